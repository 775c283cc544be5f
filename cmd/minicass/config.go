package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/server"
)

// serveConfig is everything `minicass serve` configures: the database's
// and the server's options, the listen address and the authenticator.
// Settings come, in increasing precedence, from the defaults, the YAML file
// of --config (in cassandra.yaml's format) and the command-line flags,
// which take the same names and values as the file.
type serveConfig struct {
	db     minicass.Options
	srv    server.Options
	host   string // rpc_address
	port   int    // native_transport_port
	listen string // --listen, which overrides host and port when set

	// authenticator is "AllowAllAuthenticator" or "PasswordAuthenticator".
	authenticator string
	// authorizer is "AllowAllAuthorizer" or "CassandraAuthorizer", ""
	// while not set (--auth then chooses CassandraAuthorizer).
	authorizer string
}

func defaultServeConfig() *serveConfig {
	return &serveConfig{host: "127.0.0.1", port: 9042, authenticator: "AllowAllAuthenticator"}
}

// listenAddr returns the address to listen on.
func (c *serveConfig) listenAddr() string {
	if c.listen != "" {
		return c.listen
	}
	return net.JoinHostPort(c.host, strconv.Itoa(c.port))
}

// setting is one cassandra.yaml setting minicass understands: its 4.1
// name, the pre-4.1 name 4.1 still accepts (values in oldUnit, a bare
// number), and how a value is applied. set receives the value as a string
// (a YAML scalar or a flag's text); a YAML null keeps the default.
type setting struct {
	name, old string
	oldUnit   string // the unit of the old name's bare number: "ms", "MiB", "KiB", "B"
	usage     string
	set       func(c *serveConfig, v string) error
}

// settings lists the cassandra.yaml settings of serve, in the order of the
// usage text.
var settings = []setting{
	{name: "commitlog_sync", usage: "when writes are durable: periodic (acknowledged once written, synced every commitlog_sync_period) or batch (acknowledged once synced)",
		set: func(c *serveConfig, v string) error {
			switch v {
			case "periodic":
				c.db.CommitLogSync = minicass.SyncPeriodic
			case "batch":
				c.db.CommitLogSync = minicass.SyncBatch
			case "group":
				return errors.New("group is not supported; use periodic or batch")
			default:
				return fmt.Errorf("%q is not one of periodic, batch", v)
			}
			return nil
		}},
	{name: "commitlog_sync_period", old: "commitlog_sync_period_in_ms", oldUnit: "ms", usage: "the interval of periodic commit-log syncs (default 10000ms)",
		set: durationSetter(func(c *serveConfig) *time.Duration { return &c.db.CommitLogSyncPeriod }, true)},
	{name: "commitlog_segment_size", old: "commitlog_segment_size_in_mb", oldUnit: "MiB", usage: "the size of a commit-log segment (default 32MiB)",
		set: storageSetter("MiB", true, func(c *serveConfig, n int64) { c.db.CommitLogSegmentSize = n })},
	{name: "commitlog_total_space", old: "commitlog_total_space_in_mb", oldUnit: "MiB", usage: "the commit log's space; past it the tables holding the oldest segments are flushed (default 8192MiB)",
		set: storageSetter("MiB", true, func(c *serveConfig, n int64) { c.db.CommitLogTotalSpace = n })},
	{name: "memtable_heap_space", old: "memtable_heap_space_in_mb", oldUnit: "MiB", usage: "the memory of all memtables; past half of it the largest is flushed, past all of it writes wait (default 256MiB)",
		set: storageSetter("MiB", true, func(c *serveConfig, n int64) {
			c.db.MemtableHardLimit = n
			c.db.MemtableSize = min(engine.DefaultMemtableSize, n)
		})},
	timeoutSetting("read_request_timeout", "single-partition reads", 5000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.Read }),
	timeoutSetting("range_request_timeout", "reads scanning partitions", 10000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.Range }),
	timeoutSetting("write_request_timeout", "writes and batches", 2000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.Write }),
	timeoutSetting("counter_write_request_timeout", "counter batches", 5000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.CounterWrite }),
	timeoutSetting("cas_contention_timeout", "conditional statements", 1000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.CASContention }),
	timeoutSetting("truncate_request_timeout", "TRUNCATE", 60000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.Truncate }),
	timeoutSetting("request_timeout", "other requests (schema changes, PREPARE, ...)", 10000, func(c *serveConfig) *time.Duration { return &c.srv.Timeouts.Other }),
	{name: "rpc_address", usage: "the address to listen on (default 127.0.0.1; --listen overrides)",
		set: func(c *serveConfig, v string) error {
			if v == "" {
				return errors.New("empty address")
			}
			c.host = v
			return nil
		}},
	{name: "native_transport_port", usage: "the port to listen on (default 9042; --listen overrides)",
		set: intSetter(0, 65535, func(c *serveConfig, n int) { c.port = n })},
	{name: "native_transport_max_frame_size", old: "native_transport_max_frame_size_in_mb", oldUnit: "MiB", usage: "the largest request frame (default 16MiB)",
		set: storageSetter("MiB", false, func(c *serveConfig, n int64) { c.srv.MaxFrameSize = int(n) })},
	{name: "native_transport_max_concurrent_connections", usage: "the most client connections at once, -1 for no limit (default -1)",
		set: intSetter(-1, math.MaxInt32, func(c *serveConfig, n int) { c.srv.MaxConnections = max(n, 0) })},
	{name: "native_transport_max_concurrent_connections_per_ip", usage: "the most connections from one client address, -1 for no limit (default -1)",
		set: intSetter(-1, math.MaxInt32, func(c *serveConfig, n int) { c.srv.MaxConnectionsPerIP = max(n, 0) })},
	{name: "native_transport_max_request_data_in_flight", old: "native_transport_max_concurrent_requests_in_bytes", oldUnit: "B",
		usage: "the bytes of requests read and not yet answered, over all clients (default a tenth of GOMEMLIMIT, or 100MiB)",
		set:   storageSetter("B", false, func(c *serveConfig, n int64) { c.srv.MaxRequestDataInFlight = n })},
	{name: "native_transport_max_request_data_in_flight_per_ip", old: "native_transport_max_concurrent_requests_in_bytes_per_ip", oldUnit: "B",
		usage: "the same for one client address (default a fortieth of GOMEMLIMIT, or 25MiB)",
		set:   storageSetter("B", false, func(c *serveConfig, n int64) { c.srv.MaxRequestDataInFlightPerIP = n })},
	{name: "native_transport_idle_timeout", old: "native_transport_idle_timeout_in_ms", oldUnit: "ms", usage: "close connections idle that long, 0ms for never (default 0ms)",
		set: durationSetter(func(c *serveConfig) *time.Duration { return &c.srv.IdleTimeout }, false)},
	{name: "authenticator", usage: "AllowAllAuthenticator, or PasswordAuthenticator (logins checked against system_auth; the superuser is --auth's user, or cassandra/cassandra)",
		set: func(c *serveConfig, v string) error {
			switch strings.TrimPrefix(v, "org.apache.cassandra.auth.") {
			case "AllowAllAuthenticator":
				c.authenticator = "AllowAllAuthenticator"
			case "PasswordAuthenticator":
				c.authenticator = "PasswordAuthenticator"
			default:
				return fmt.Errorf("%q is not one of AllowAllAuthenticator, PasswordAuthenticator", v)
			}
			return nil
		}},
	{name: "authorizer", usage: "AllowAllAuthorizer, or CassandraAuthorizer (permissions kept in system_auth and checked on every statement; needs PasswordAuthenticator); default CassandraAuthorizer with --auth, else AllowAllAuthorizer",
		set: func(c *serveConfig, v string) error {
			switch strings.TrimPrefix(v, "org.apache.cassandra.auth.") {
			case cql.AllowAllAuthorizer:
				c.authorizer = cql.AllowAllAuthorizer
			case cql.CassandraAuthorizer:
				c.authorizer = cql.CassandraAuthorizer
			default:
				return fmt.Errorf("%q is not one of AllowAllAuthorizer, CassandraAuthorizer", v)
			}
			return nil
		}},
	{name: "materialized_views_enabled", usage: "allow CREATE MATERIALIZED VIEW (default false, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				c.db.MaterializedViewsEnabled = true
			case "false":
				c.db.MaterializedViewsEnabled = false
			default:
				return fmt.Errorf("%q is not true or false", v)
			}
			return nil
		}},
	{name: "compact_tables_enabled", usage: "allow CREATE TABLE ... WITH COMPACT STORAGE (the guardrail; default true, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				c.db.CompactTablesDisabled = false
			case "false":
				c.db.CompactTablesDisabled = true
			default:
				return fmt.Errorf("%q is not true or false", v)
			}
			return nil
		}},
	{name: "default_keyspace_rf", usage: "the replication factor of a keyspace created without one (default 1, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%q is not an integer", v)
			}
			if n < 1 {
				// DatabaseDescriptor.applySimpleConfig.
				return errors.New("default_keyspace_rf cannot be less than 1")
			}
			c.db.DefaultKeyspaceRF = n
			return nil
		}},
	{name: "drop_compact_storage_enabled", usage: "allow ALTER TABLE ... DROP COMPACT STORAGE (default false, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				c.db.DropCompactStorageEnabled = true
			case "false":
				c.db.DropCompactStorageEnabled = false
			default:
				return fmt.Errorf("%q is not true or false", v)
			}
			return nil
		}},
	{name: "user_defined_functions_enabled", usage: "allow CREATE FUNCTION (default false, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				c.db.UserDefinedFunctionsEnabled = true
			case "false":
				c.db.UserDefinedFunctionsEnabled = false
			default:
				return fmt.Errorf("%q is not true or false", v)
			}
			return nil
		}},
	{name: "scripted_user_defined_functions_enabled", usage: "allow LANGUAGE javascript functions too (default false, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				c.db.ScriptedUserDefinedFunctionsEnabled = true
			case "false":
				c.db.ScriptedUserDefinedFunctionsEnabled = false
			default:
				return fmt.Errorf("%q is not true or false", v)
			}
			return nil
		}},
	{name: "auto_snapshot", usage: "snapshot a table's SSTables before DROP TABLE, DROP KEYSPACE or TRUNCATE removes them (default true, as in Cassandra 4.1)",
		set: func(c *serveConfig, v string) error {
			switch strings.ToLower(v) {
			case "true":
				c.db.AutoSnapshotDisabled = false
			case "false":
				c.db.AutoSnapshotDisabled = true
			default:
				return fmt.Errorf("%q is not true or false", v)
			}
			return nil
		}},
	{name: "auto_snapshot_ttl", usage: "the time to live of the auto snapshots, in whole seconds or more, e.g. 30d (default none: they do not expire)",
		set: func(c *serveConfig, v string) error {
			d, err := parseDuration(v)
			if err != nil {
				return err
			}
			if strings.HasSuffix(v, "ms") || d%time.Second != 0 {
				// DurationSpec.IntSecondsBound: no unit below s.
				return fmt.Errorf("invalid duration %q: the smallest unit accepted is s", v)
			}
			c.db.AutoSnapshotTTL = d
			return nil
		}},
	{name: "cluster_name", usage: "system.local's cluster_name (default Test Cluster)",
		set: func(c *serveConfig, v string) error { c.db.ClusterName = v; return nil }},
	{name: "partitioner", usage: "Murmur3Partitioner (the default) or ByteOrderedPartitioner, a class of org.apache.cassandra.dht; a data directory keeps the one it was created with",
		set: func(c *serveConfig, v string) error {
			p, ok := partitioner.Parse(v)
			if !ok {
				return fmt.Errorf("Invalid partitioner class %s (minicass has Murmur3Partitioner and ByteOrderedPartitioner)", v)
			}
			c.db.Partitioner = p
			return nil
		}},
	{name: "prepared_statements_cache_size", old: "prepared_statements_cache_size_mb", oldUnit: "MiB", usage: "the memory of the prepared statements kept (default 10MiB)",
		set: storageSetter("MiB", false, func(c *serveConfig, n int64) { c.db.PreparedStatementsCacheSize = n })},
	{name: "column_index_size", old: "column_index_size_in_kb", oldUnit: "KiB", usage: "the row-index granularity of wide partitions in SSTables (default 64KiB)",
		set: storageSetter("KiB", false, func(c *serveConfig, n int64) { c.db.ColumnIndexSize = int(n) })},
	{name: "compaction_throughput", old: "compaction_throughput_mb_per_sec", oldUnit: "MiB/s", usage: "the pace of all compactions together, in bytes of input per second; 0 does not throttle (default 64MiB/s)",
		set: func(c *serveConfig, v string) error {
			size, ok := strings.CutSuffix(v, "/s")
			if !ok {
				return fmt.Errorf("invalid data rate %q: a size per second, e.g. 64MiB/s", v)
			}
			n, err := parseStorage(size, "B")
			if err != nil {
				return fmt.Errorf("invalid data rate %q: %w", v, err)
			}
			if n == 0 {
				n = -1 // cassandra.yaml's 0 turns throttling off; the engine's zero is the default
			}
			c.db.CompactionThroughput = n
			return nil
		}},
}

func timeoutSetting(name, what string, defMS int, field func(*serveConfig) *time.Duration) setting {
	return setting{name: name, old: name + "_in_ms", oldUnit: "ms",
		usage: fmt.Sprintf("the timeout of %s (default %dms)", what, defMS),
		set:   durationSetter(field, true)}
}

// durationPattern is 4.1's DurationSpec syntax: digits and a unit, case
// sensitive.
var durationPattern = regexp.MustCompile(`^(\d+)(d|h|s|ms|us|µs|ns|m)$`)

// parseDuration parses a 4.1 duration whose smallest unit is ms, as every
// duration serve takes is (DurationSpec.LongMillisecondsBound).
func parseDuration(v string) (time.Duration, error) {
	m := durationPattern.FindStringSubmatch(v)
	if m == nil {
		return 0, fmt.Errorf("invalid duration %q: a non-negative number and a unit, one of ms, s, m, h, d (case matters)", v)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: %v", v, err)
	}
	unit := map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute, "s": time.Second, "ms": time.Millisecond}[m[2]]
	if unit == 0 {
		return 0, fmt.Errorf("invalid duration %q: the smallest unit accepted is ms", v)
	}
	if n > int64(math.MaxInt64/unit) {
		return 0, fmt.Errorf("invalid duration %q: too large", v)
	}
	return time.Duration(n) * unit, nil
}

func durationSetter(field func(*serveConfig) *time.Duration, positive bool) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		d, err := parseDuration(v)
		if err != nil {
			return err
		}
		if positive && d == 0 {
			return fmt.Errorf("invalid duration %q: must be positive", v)
		}
		*field(c) = d
		return nil
	}
}

// storagePattern is 4.1's DataStorageSpec syntax.
var storagePattern = regexp.MustCompile(`^(\d+)(GiB|MiB|KiB|B)$`)

var storageUnits = map[string]int64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

// parseStorage parses a 4.1 data size whose smallest unit is minUnit.
func parseStorage(v, minUnit string) (int64, error) {
	m := storagePattern.FindStringSubmatch(v)
	if m == nil {
		return 0, fmt.Errorf("invalid data size %q: a non-negative number and a unit, one of B, KiB, MiB, GiB (case matters)", v)
	}
	if storageUnits[m[2]] < storageUnits[minUnit] {
		return 0, fmt.Errorf("invalid data size %q: the smallest unit accepted is %s", v, minUnit)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > math.MaxInt64/storageUnits[m[2]] {
		return 0, fmt.Errorf("invalid data size %q: too large", v)
	}
	return n * storageUnits[m[2]], nil
}

func storageSetter(minUnit string, allowZero bool, apply func(*serveConfig, int64)) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		n, err := parseStorage(v, minUnit)
		if err != nil {
			return err
		}
		if n == 0 && !allowZero {
			return fmt.Errorf("invalid data size %q: must be positive", v)
		}
		if minUnit != "B" && n/storageUnits[minUnit] >= math.MaxInt32 {
			return fmt.Errorf("invalid data size %q: too large", v)
		}
		apply(c, n)
		return nil
	}
}

func intSetter(lo, hi int, apply func(*serveConfig, int)) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%q is not an integer from %d to %d", v, lo, hi)
		}
		apply(c, n)
		return nil
	}
}

// convertOld turns the bare number of a pre-4.1 name into the new syntax;
// a negative number for the in-flight limits means the default, as 4.1's
// converter reads -1 there.
func (s *setting) convertOld(v string) (string, bool, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return "", false, fmt.Errorf("%q is not an integer (in %s)", v, s.oldUnit)
	}
	if n < 0 {
		if s.oldUnit == "B" {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%d is negative", n)
	}
	return strconv.FormatInt(n, 10) + s.oldUnit, true, nil
}

// settingError names the setting a bad value was given for.
func settingError(name string, err error) error {
	return fmt.Errorf("invalid value for %s: %w", name, err)
}

// apply sets a value given under name (new or old style); a value under an
// old name is converted first.
func (c *serveConfig) apply(name, v string) error {
	for i := range settings {
		s := &settings[i]
		switch name {
		case s.name:
			if err := s.set(c, v); err != nil {
				return settingError(name, err)
			}
			return nil
		case s.old:
			nv, ok, err := s.convertOld(v)
			if err != nil {
				return settingError(name, err)
			}
			if !ok {
				return nil
			}
			if err := s.set(c, nv); err != nil {
				return settingError(name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("unknown setting %s", name)
}

// lookupSetting returns the setting named name (new or old style).
func lookupSetting(name string) *setting {
	for i := range settings {
		if settings[i].name == name || settings[i].old != "" && settings[i].old == name {
			return &settings[i]
		}
	}
	return nil
}

// loadYAML applies the settings of a cassandra.yaml file. Settings
// minicass does not have are returned, to be logged as ignored; a bad
// value, a setting given under both its old and new names, or a file that
// is not a YAML mapping is an error naming the file and the setting.
func (c *serveConfig) loadYAML(path string) (ignored []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return c.parseYAML(data, path)
}

// parseYAML is loadYAML on the file's contents; path names it in errors.
func (c *serveConfig) parseYAML(data []byte, path string) (ignored []string, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Kind == 0 { // an empty file
		return nil, nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping of settings", path)
	}
	m := doc.Content[0]
	seen := map[*setting]string{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		name := k.Value
		if name == "memtable" && v.Kind == yaml.MappingNode {
			if err := c.parseMemtable(v); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			continue
		}
		s := lookupSetting(name)
		if s == nil {
			ignored = append(ignored, name)
			continue
		}
		if prev, dup := seen[s]; dup {
			return nil, fmt.Errorf("%s: %s and %s are the same setting; give it once", path, prev, name)
		}
		seen[s] = name
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue // null: the default, as in cassandra.yaml
		}
		if v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: invalid value for %s (line %d): not a single value", path, name, v.Line)
		}
		if err := c.apply(name, v.Value); err != nil {
			return nil, fmt.Errorf("%s (line %d): %w", path, v.Line, err)
		}
	}
	slices.Sort(ignored)
	return ignored, nil
}

// parseMemtable reads cassandra.yaml's memtable section: its
// configurations, each a mapping of inherits, class_name and parameters
// (4.1's InheritingClass), into the database's MemtableConfigurations.
func (c *serveConfig) parseMemtable(v *yaml.Node) error {
	var sec struct {
		Configurations map[string]struct {
			Inherits   string            `yaml:"inherits"`
			ClassName  *string           `yaml:"class_name"`
			Parameters map[string]string `yaml:"parameters"`
		} `yaml:"configurations"`
	}
	if err := v.Decode(&sec); err != nil {
		return fmt.Errorf("invalid memtable section (line %d): %w", v.Line, err)
	}
	if len(sec.Configurations) == 0 {
		return nil
	}
	c.db.MemtableConfigurations = map[string]schema.MemtableConfiguration{}
	for name, def := range sec.Configurations {
		c.db.MemtableConfigurations[name] = schema.MemtableConfiguration{Inherits: def.Inherits, ClassName: def.ClassName, Parameters: def.Parameters}
	}
	return nil
}

// settingFlags registers every setting, under its new and its old name, as
// a flag of fs taking the same value syntax as the YAML file. The values
// are recorded in order, to be applied after the file.
type settingFlags struct {
	given []struct{ name, value string }
}

func (sf *settingFlags) register(fs *flag.FlagSet) {
	for i := range settings {
		s := &settings[i]
		fs.Var(settingFlag{sf, s.name}, s.name, s.usage)
		if s.old != "" {
			fs.Var(settingFlag{sf, s.old}, s.old, fmt.Sprintf("%s as a number in %s (the name before Cassandra 4.1)", s.name, s.oldUnit))
		}
	}
}

// applyTo applies the flags given, checking each value.
func (sf *settingFlags) applyTo(c *serveConfig) error {
	for _, g := range sf.given {
		if err := c.apply(g.name, g.value); err != nil {
			return err
		}
	}
	return nil
}

type settingFlag struct {
	sf   *settingFlags
	name string
}

func (f settingFlag) String() string { return "" }

func (f settingFlag) Set(v string) error {
	// Check now, so that flag reports the bad value with the flag's name.
	if err := defaultServeConfig().apply(f.name, v); err != nil {
		return errors.Unwrap(err)
	}
	f.sf.given = append(f.sf.given, struct{ name, value string }{f.name, v})
	return nil
}
