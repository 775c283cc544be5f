package ddl

import (
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"

	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// propertyValue returns a WITH property's value as text (for a constant) or
// as a map (for a map literal).
func propertyValue(p parser.Property) (text string, m map[string]string, err error) {
	switch v := p.Value.(type) {
	case *parser.Constant:
		return v.Value(), nil, nil
	case *parser.MapLit:
		m = make(map[string]string, len(v.Entries))
		for _, e := range v.Entries {
			k, ok1 := e.Key.(*parser.Constant)
			val, ok2 := e.Value.(*parser.Constant)
			if !ok1 || !ok2 {
				return "", nil, &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Invalid value for property '%s'", p.Name)}
			}
			// Parser.convertPropertyMap: a key given twice is a
			// recognition error of the parser.
			if _, dup := m[k.Value()]; dup {
				return "", nil, &query.Error{Code: wire.CodeSyntax, Message: "Multiple definition for property " + k.Value()}
			}
			m[k.Value()] = val.Value()
		}
		return "", m, nil
	case *parser.EmptyBraces:
		return "", map[string]string{}, nil
	}
	return "", nil, &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Invalid value for property '%s'", p.Name)}
}

// replicationStrategies maps the short names Cassandra accepts to the full
// class names it stores.
var replicationStrategies = map[string]string{
	"simplestrategy":          "org.apache.cassandra.locator.SimpleStrategy",
	"networktopologystrategy": "org.apache.cassandra.locator.NetworkTopologyStrategy",
	"localstrategy":           "org.apache.cassandra.locator.LocalStrategy",
	"everywherestrategy":      "org.apache.cassandra.locator.EverywhereStrategy",
}

// eachProperty calls f for each WITH property in order, with its name in
// lower case and its value as propertyValue decodes it, after refusing a
// property given twice as Cassandra does. It returns the names seen.
func eachProperty(props []parser.Property, f func(p parser.Property, name, text string, m map[string]string) error) (map[string]bool, error) {
	seen := map[string]bool{}
	for _, p := range props {
		name := strings.ToLower(string(p.Name))
		if seen[name] {
			return nil, &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Multiple definition for property '%s'", name)}
		}
		seen[name] = true
		text, m, err := propertyValue(p)
		if err != nil {
			return nil, err
		}
		if err := f(p, name, text, m); err != nil {
			return nil, err
		}
	}
	return seen, nil
}

// keyspaceOptions checks the CREATE/ALTER KEYSPACE options as
// KeyspaceAttributes.validate does, before the statement looks at the
// schema: it sets ks.DurableWrites and returns the replication map as
// given (nil when there is none), which validateReplication resolves once
// the keyspace is known not to exist (CREATE) or is found (ALTER).
func keyspaceOptions(ks *schema.Keyspace, props []parser.Property, create bool) (map[string]string, error) {
	var repl map[string]string
	seen, err := eachProperty(props, func(p parser.Property, name, text string, m map[string]string) error {
		switch name {
		case "replication":
			if m == nil {
				return &query.Error{Code: wire.CodeSyntax, Message: "Invalid value for property 'replication'"}
			}
			repl = m
		case "durable_writes":
			b, err := strconv.ParseBool(strings.ToLower(text))
			if err != nil {
				return &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Invalid boolean value %s for 'durable_writes'", text)}
			}
			ks.DurableWrites = b
		default:
			return &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Unknown property '%s'", name)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if create && !seen["replication"] {
		return nil, query.Configf("Missing mandatory option 'replication'")
	}
	if repl != nil {
		if _, ok := repl["class"]; !ok {
			return nil, query.Configf("Missing replication strategy class")
		}
	}
	return repl, nil
}

// defaultKeyspaceRF is cassandra.yaml's default_keyspace_rf of env (1
// unless set): the replication factor of a SimpleStrategy or
// NetworkTopologyStrategy keyspace created without one.
func defaultKeyspaceRF(env *plan.Env) string {
	if env.DefaultKeyspaceRF < 1 {
		return "1"
	}
	return strconv.Itoa(env.DefaultKeyspaceRF)
}

// validateReplication checks the replication map m of keyspace ksName as
// AbstractReplicationStrategy.validateReplicationStrategy does in 4.1: the
// strategy's prepareOptions fills in what is left out (from prev, the
// keyspace's replication before an ALTER, or defaultRF, default_keyspace_rf), then
// validateExpectedOptions refuses an option the strategy does not know (for
// NetworkTopologyStrategy, a data center other than dc, the only one the
// single node's cluster has) and validateOptions a replication factor that
// is not a non-negative integer.
func validateReplication(ksName string, m, prev map[string]string, dc, defaultRF string) (map[string]string, error) {
	class, ok := m["class"]
	if !ok {
		return nil, query.Configf("Missing replication strategy class")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = replicationStrategies[strings.ToLower(class)]
		if full == "" {
			return nil, query.Configf("Unable to find replication strategy class 'org.apache.cassandra.locator.%s'", class)
		}
	} else if !strings.HasPrefix(class, "org.apache.cassandra.locator.") || replicationStrategies[strings.ToLower(strings.TrimPrefix(class, "org.apache.cassandra.locator."))] == "" {
		return nil, query.Configf("Unable to find replication strategy class '%s'", class)
	}
	short := strings.TrimPrefix(full, "org.apache.cassandra.locator.")
	opts := map[string]string{}
	for k, v := range m {
		if k != "class" {
			opts[k] = v
		}
	}
	prevOpts := map[string]string{}
	for k, v := range prev {
		if k != "class" {
			prevOpts[k] = v
		}
	}
	var recognized func(string) bool
	switch short {
	case "SimpleStrategy":
		// SimpleStrategy.prepareOptions.
		if _, ok := opts["replication_factor"]; !ok {
			rf := defaultRF
			if v, ok := prevOpts["replication_factor"]; ok {
				rf = v
			}
			opts["replication_factor"] = rf
		}
		recognized = func(k string) bool { return k == "replication_factor" }
	case "NetworkTopologyStrategy":
		prepareNTSOptions(opts, prevOpts, dc, defaultRF)
		if len(opts) == 0 {
			return nil, query.Configf("Configuration for at least one datacenter must be present")
		}
		recognized = func(k string) bool { return k == dc }
	default:
		recognized = func(string) bool { return false }
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !recognized(k) {
			return nil, query.Configf("Unrecognized strategy option {%s} passed to %s for keyspace %s", k, short, ksName)
		}
	}
	out := map[string]string{"class": full}
	for _, k := range keys {
		v := opts[k]
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, query.Configf("Replication factor must be non-negative; found %s", v)
		}
		out[k] = v
	}
	return out, nil
}

// prepareNTSOptions is NetworkTopologyStrategy.prepareOptions (4.1, the
// datacenter auto-expansion of CASSANDRA-14303): a replication_factor
// option, or no option at all, becomes that factor (the previous one, else
// default_keyspace_rf) for every data center not named, the previous data
// centers are kept on an ALTER that gives a replication_factor, and a data
// center given 0 replicas is dropped.
func prepareNTSOptions(opts, prev map[string]string, dc, defaultRF string) {
	if len(opts) == 0 {
		rf := defaultRF
		if v, ok := prev["replication_factor"]; ok {
			rf = v
		}
		opts["replication_factor"] = rf
	}
	rf, hasRF := opts["replication_factor"]
	delete(opts, "replication_factor")
	if hasRF {
		for k, v := range prev {
			if _, ok := opts[k]; !ok && k != "replication_factor" {
				opts[k] = v
			}
		}
		if _, ok := opts[dc]; !ok {
			opts[dc] = rf
		}
	}
	for k, v := range opts {
		if v == "0" {
			delete(opts, k)
		}
	}
}

// compactionStrategies are the strategy classes minicass accepts.
var compactionStrategies = map[string]bool{
	"SizeTieredCompactionStrategy": true,
	"TimeWindowCompactionStrategy": true,
	"LeveledCompactionStrategy":    true,
	"UnifiedCompactionStrategy":    true,
}

func validateCompaction(m map[string]string) (map[string]string, error) {
	class, ok := m["class"]
	if !ok {
		return nil, query.Configf("Missing sub-option 'class' for the 'compaction' option.")
	}
	short := strings.TrimPrefix(class, "org.apache.cassandra.db.compaction.")
	if !compactionStrategies[short] {
		if !strings.Contains(class, ".") {
			class = "org.apache.cassandra.db.compaction." + class
		}
		return nil, query.Configf("Unable to find compaction strategy class '%s'", class)
	}
	out := map[string]string{"class": "org.apache.cassandra.db.compaction." + short}
	for k, v := range m {
		if k != "class" {
			out[k] = v
		}
	}
	if err := validateCompactionOptions(short, out); err != nil {
		return nil, err
	}
	// The strategies' own option checks (bucket_low/high, min_sstable_size,
	// tombstone options, TWCS units and resolution) live in the engine.
	if err := engine.ValidateCompactionOptions(out); err != nil {
		return nil, query.Configf("%s", engine.CompactionErrorMessage(err))
	}
	if short != "UnifiedCompactionStrategy" {
		// CompactionParams.create: a strategy taking the threshold options
		// stores their defaults when they are not given.
		if _, ok := out["min_threshold"]; !ok {
			out["min_threshold"] = "4"
		}
		if _, ok := out["max_threshold"]; !ok {
			out["max_threshold"] = "32"
		}
	}
	return out, nil
}

// validateCompactionOptions checks the sub-options Cassandra's strategies
// validate (AbstractCompactionStrategy.validateOptions and the strategies').
func validateCompactionOptions(short string, m map[string]string) error {
	intOpt := func(name string, min int) (int, bool, error) {
		v, ok := m[name]
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, query.Configf("%s is not a parsable int (base10) for %s", v, name)
		}
		if n < min {
			return 0, true, query.Configf("%s must be larger than %d, but was %d", name, min-1, n)
		}
		return n, true, nil
	}
	minT, hasMin, err := intOpt("min_threshold", 2)
	if err != nil {
		return err
	}
	maxT, hasMax, err := intOpt("max_threshold", 1)
	if err != nil {
		return err
	}
	if hasMin && hasMax && minT > maxT {
		return query.Configf("min_threshold cannot be greater than max_threshold")
	}
	known := map[string]bool{"class": true, "min_threshold": true, "max_threshold": true, "enabled": true,
		"tombstone_threshold": true, "tombstone_compaction_interval": true, "unchecked_tombstone_compaction": true,
		"only_purge_repaired_tombstones": true, "log_all": true, "provide_overlapping_tombstones": true}
	switch short {
	case "SizeTieredCompactionStrategy":
		for _, k := range []string{"bucket_high", "bucket_low", "min_sstable_size"} {
			known[k] = true
		}
	case "TimeWindowCompactionStrategy":
		for _, k := range []string{"compaction_window_unit", "compaction_window_size", "timestamp_resolution", "expired_sstable_check_frequency_seconds", "unsafe_aggressive_sstable_expiration"} {
			known[k] = true
		}
		if u, ok := m["compaction_window_unit"]; ok {
			switch strings.ToUpper(u) {
			case "MINUTES", "HOURS", "DAYS":
			default:
				return query.Configf("%s is not valid for compaction_window_unit", u)
			}
		}
		if s, ok := m["compaction_window_size"]; ok {
			n, err := strconv.Atoi(s)
			if err != nil {
				return query.Configf("%s is not a parsable int (base10) for compaction_window_size", s)
			}
			if n < 1 {
				return query.Configf("%d must be greater than 1 for compaction_window_size", n)
			}
		}
	case "LeveledCompactionStrategy":
		for _, k := range []string{"sstable_size_in_mb", "fanout_size", "single_sstable_uplevel"} {
			known[k] = true
		}
	case "UnifiedCompactionStrategy":
		return nil
	}
	for k := range m {
		if !known[k] {
			return query.Configf("Properties specified [%s] are not understood by %s", k, short)
		}
	}
	return nil
}

var compressors = map[string]string{
	"LZ4Compressor":     "org.apache.cassandra.io.compress.LZ4Compressor",
	"SnappyCompressor":  "org.apache.cassandra.io.compress.SnappyCompressor",
	"ZstdCompressor":    "org.apache.cassandra.io.compress.ZstdCompressor",
	"DeflateCompressor": "org.apache.cassandra.io.compress.DeflateCompressor",
	"NoopCompressor":    "org.apache.cassandra.io.compress.NoopCompressor",
}

func validateCompression(m map[string]string) (map[string]string, error) {
	// CompressionParams.fromMap, in its order.
	enabled := true
	if v, ok := m["enabled"]; ok {
		enabled = strings.EqualFold(v, "true")
	}
	class, ok := m["class"]
	if _, legacy := m["sstable_compression"]; !ok && !legacy && len(m) > 0 && enabled {
		return nil, query.Configf("Missing sub-option 'class' for the 'compression' option.")
	}
	if !enabled {
		if len(m) > 1 {
			return nil, query.Configf("If the 'enabled' option is set to false no other options must be specified")
		}
		return map[string]string{"enabled": "false"}, nil
	}
	if ok && class == "" {
		return nil, query.Configf("The 'class' option must not be empty. To disable compression use 'enabled' : false")
	}
	if !ok {
		// Cassandra 4 allows {'sstable_compression': ''} to disable; an empty map too.
		if len(m) == 0 || m["sstable_compression"] == "" {
			return map[string]string{"enabled": "false"}, nil
		}
		class = m["sstable_compression"]
	}
	short := strings.TrimPrefix(class, "org.apache.cassandra.io.compress.")
	full, ok := compressors[short]
	if !ok {
		return nil, query.Configf("Could not create Compression for type %s", class)
	}
	out := map[string]string{"class": full, "chunk_length_in_kb": "16"}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The compressor refuses options it does not know (createCompressor)
	// before the chunk length and ratio are checked (validate).
	for _, k := range keys {
		switch k {
		case "class", "sstable_compression", "enabled", "chunk_length_in_kb", "chunk_length_kb", "min_compress_ratio":
		case "crc_check_chance", "compression_level", "max_compressed_length":
			out[k] = m[k]
		default:
			return nil, query.Configf("Unknown compression options %s", k)
		}
	}
	for _, k := range []string{"chunk_length_in_kb", "chunk_length_kb"} {
		if v, ok := m[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, query.Configf("Invalid negative or null chunk_length_in_kb")
			}
			if n&(n-1) != 0 {
				return nil, query.Configf("chunk_length_in_kb must be a power of 2")
			}
			out["chunk_length_in_kb"] = strconv.Itoa(n)
		}
	}
	if v, ok := m["min_compress_ratio"]; ok {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, query.Configf("Invalid value %s for min_compress_ratio", v)
		}
		if r < 0 {
			return nil, query.Configf("Invalid negative min_compress_ratio")
		}
		if r > 0 && r < 1 {
			return nil, query.Configf("min_compress_ratio can either be 0 or greater than or equal to 1")
		}
		if r != 0 {
			// asMap: String.valueOf(double), only when not the default 0.
			out["min_compress_ratio"] = strconv.FormatFloat(r, 'f', -1, 64)
			if !strings.Contains(out["min_compress_ratio"], ".") {
				out["min_compress_ratio"] += ".0"
			}
		}
	}
	return out, nil
}

// tableIDOption takes the ID property (TableAttributes.ID: the table id
// CREATE TABLE is to use, as when restoring a dropped table's data) out of
// props, returning the others, its text and whether it was given.
func tableIDOption(props []parser.Property) (rest []parser.Property, text string, ok bool, err error) {
	for _, p := range props {
		if strings.ToLower(string(p.Name)) != "id" {
			rest = append(rest, p)
			continue
		}
		if ok {
			return nil, "", false, &query.Error{Code: wire.CodeSyntax, Message: "Multiple definition for property 'id'"}
		}
		t, m, err := propertyValue(p)
		if err != nil {
			return nil, "", false, err
		}
		if m != nil {
			return nil, "", false, &query.Error{Code: wire.CodeSyntax, Message: "Invalid value for property 'id'"}
		}
		text, ok = t, true
	}
	return rest, text, ok, nil
}

// tableOptions applies WITH options (other than CLUSTERING ORDER) to o. A
// memtable option must name a configuration of env's (the node's
// cassandra.yaml memtable.configurations) that MemtableParams would take.
func tableOptions(env *plan.Env, o *schema.Options, props []parser.Property, hasCounter bool) error {
	_, err := eachProperty(props, func(p parser.Property, name, text string, m map[string]string) error {
		needInt := func(min, max int64) (int64, error) {
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil || m != nil {
				return 0, &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Invalid integer value %s for '%s'", text, name)}
			}
			if n < min {
				return 0, query.Configf("%s must be greater than or equal to %d (got %d)", name, min, n)
			}
			if n > max {
				return 0, query.Configf("%s must be less than or equal to %d (got %d)", name, max, n)
			}
			return n, nil
		}
		switch name {
		case "default_time_to_live":
			n, err := needInt(0, data.MaxTTL)
			if err != nil {
				return err
			}
			if n > 0 && hasCounter {
				return query.Configf("Cannot set default_time_to_live on a table with counters")
			}
			o.DefaultTTL = int32(n)
		case "gc_grace_seconds":
			n, err := needInt(0, 1<<31-1)
			if err != nil {
				return err
			}
			o.GCGraceSeconds = int32(n)
		case "bloom_filter_fp_chance":
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Invalid double value %s for '%s'", text, name)}
			}
			if f <= 0 || f > 1 {
				return query.Configf("bloom_filter_fp_chance must be larger than 0 and less than or equal to 1.0 (got %s)", text)
			}
			o.BloomFilterFPChance = f
		case "comment":
			o.Comment = text
		case "compaction":
			if m == nil {
				return &query.Error{Code: wire.CodeSyntax, Message: "Invalid value for property 'compaction'"}
			}
			c, err := validateCompaction(m)
			if err != nil {
				return err
			}
			o.Compaction = c
		case "compression":
			if m == nil {
				return &query.Error{Code: wire.CodeSyntax, Message: "Invalid value for property 'compression'"}
			}
			c, err := validateCompression(m)
			if err != nil {
				return err
			}
			o.Compression = c
		case "memtable":
			if m != nil {
				return &query.Error{Code: wire.CodeSyntax, Message: "Invalid value for property 'memtable'"}
			}
			if err := schema.CheckMemtableConfiguration(env.MemtableConfigurations, env.MemtableClasses, text); err != nil {
				return query.Configf("%s", err.Error())
			}
			if o.Extra == nil {
				o.Extra = map[string]string{}
			}
			o.Extra[name] = p.Value.String()
		case "caching", "crc_check_chance", "speculative_retry", "additional_write_policy", "read_repair",
			"memtable_flush_period_in_ms", "min_index_interval", "max_index_interval", "cdc", "extensions",
			"dclocal_read_repair_chance", "read_repair_chance":
			if o.Extra == nil {
				o.Extra = map[string]string{}
			}
			o.Extra[name] = p.Value.String()
		default:
			return &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Unknown property '%s'", name)}
		}
		return nil
	})
	return err
}
