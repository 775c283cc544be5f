package virtual

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Values is one row of a system table: serialized values by column name
// (native protocol bytes; a missing column is null). Non-frozen collections
// are given serialized as a whole and split into cells when written.
type Values map[string][]byte

// Partition is the content of one partition of a system table: the
// rows a derived table shows (derived.go), or the new content of a
// partition of a stored one (roles, traces), whose table is then set.
type Partition struct {
	Table *schema.Table
	Key   []byte
	Rows  []Values
}

// Value encoders for system rows.

func TextV(s string) []byte { return []byte(s) }

func IntV(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func BoolV(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

// TimestampV encodes milliseconds since the epoch as a timestamp.
func TimestampV(ms int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(ms)) }

func doubleV(f float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)) }

func InetV(ip net.IP) []byte {
	if v4 := ip.To4(); v4 != nil {
		return []byte(v4)
	}
	return []byte(ip.To16())
}

var (
	textMapType   = types.MapOf(types.TextType, types.TextType, true)
	blobMapType   = types.MapOf(types.TextType, types.BlobType, true)
	textSetType   = types.SetOf(types.TextType, true)
	extensionType = blobMapType
)

func TextMapV(m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ks, vs [][]byte
	for _, k := range keys {
		ks, vs = append(ks, []byte(k)), append(vs, []byte(m[k]))
	}
	b, _ := types.EncodeMap(textMapType, ks, vs) // text keys and values always encode
	return b
}

func TextSetV(elems ...string) []byte {
	bs := make([][]byte, len(elems))
	for i, e := range elems {
		bs[i] = []byte(e)
	}
	b, _ := types.EncodeSet(textSetType, bs)
	return b
}

func textListV(elems ...string) []byte {
	bs := make([][]byte, len(elems))
	for i, e := range elems {
		bs[i] = []byte(e)
	}
	return types.EncodeList(bs)
}

// Table option defaults, as Cassandra 4.1 stores them in
// system_schema.tables (schema/TableParams.java).
const (
	defaultAdditionalWritePolicy = "99p"
	defaultSpeculativeRetry      = "99p"
	defaultReadRepair            = "BLOCKING"
	defaultCRCCheckChance        = 1.0
	defaultMinIndexInterval      = 128
	defaultMaxIndexInterval      = 2048
)

var defaultCaching = map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}

// TableParams are a table's options with every default filled in: the
// values of its system_schema.tables row and of DESCRIBE.
type TableParams struct {
	AdditionalWritePolicy string
	BloomFilterFPChance   float64
	Caching               map[string]string
	Cdc                   bool
	Comment               string
	Compaction            map[string]string
	Compression           map[string]string
	CrcCheckChance        float64
	DefaultTTL            int32
	Extensions            map[string][]byte
	GcGraceSeconds        int32
	MaxIndexInterval      int32
	Memtable              string
	MemtableFlushPeriod   int32
	MinIndexInterval      int32
	ReadRepair            string
	SpeculativeRetry      string
}

// ParamsOf completes o with Cassandra's defaults. Options kept as CQL
// literal text in o.Extra are parsed; a literal that does not parse (it was
// validated when the table was created, so this does not happen) keeps the
// default.
func ParamsOf(o schema.Options) TableParams {
	p := TableParams{
		AdditionalWritePolicy: defaultAdditionalWritePolicy,
		BloomFilterFPChance:   o.BloomFilterFPChance,
		Caching:               defaultCaching,
		Comment:               o.Comment,
		Compaction:            o.Compaction,
		Compression:           o.Compression,
		CrcCheckChance:        defaultCRCCheckChance,
		DefaultTTL:            o.DefaultTTL,
		Extensions:            map[string][]byte{},
		GcGraceSeconds:        o.GCGraceSeconds,
		MaxIndexInterval:      defaultMaxIndexInterval,
		Memtable:              "default",
		MinIndexInterval:      defaultMinIndexInterval,
		ReadRepair:            defaultReadRepair,
		SpeculativeRetry:      defaultSpeculativeRetry,
	}
	if p.BloomFilterFPChance == 0 {
		p.BloomFilterFPChance = 0.01
	}
	def := schema.DefaultOptions()
	if p.Compaction == nil {
		p.Compaction = def.Compaction
	}
	if p.Compression == nil {
		p.Compression = def.Compression
	}
	text := func(lit string, dst *string) {
		if b, err := types.ParseLiteral(types.TextType, lit); err == nil && b != nil {
			*dst = string(b)
		}
	}
	double := func(lit string, dst *float64) {
		if f, err := strconv.ParseFloat(lit, 64); err == nil {
			*dst = f
		}
	}
	integer := func(lit string, dst *int32) {
		if n, err := strconv.ParseInt(lit, 10, 32); err == nil {
			*dst = int32(n)
		}
	}
	for name, lit := range o.Extra {
		switch name {
		case "additional_write_policy":
			text(lit, &p.AdditionalWritePolicy)
		case "speculative_retry":
			text(lit, &p.SpeculativeRetry)
		case "memtable":
			text(lit, &p.Memtable)
		case "read_repair":
			text(lit, &p.ReadRepair)
		case "crc_check_chance":
			double(lit, &p.CrcCheckChance)
		case "memtable_flush_period_in_ms":
			integer(lit, &p.MemtableFlushPeriod)
		case "min_index_interval":
			integer(lit, &p.MinIndexInterval)
		case "max_index_interval":
			integer(lit, &p.MaxIndexInterval)
		case "cdc":
			p.Cdc = lit == "true" || lit == "'true'"
		case "caching":
			if b, err := types.ParseLiteral(types.MapOf(types.TextType, types.TextType, false), lit); err == nil && b != nil {
				m := map[string]string{}
				for k, v := range decodeTextMap(b) {
					m[k] = string(v)
				}
				c := map[string]string{"keys": defaultCaching["keys"], "rows_per_partition": defaultCaching["rows_per_partition"]}
				for k, v := range m {
					c[k] = v
				}
				p.Caching = c
			}
		case "extensions":
			if b, err := types.ParseLiteral(types.MapOf(types.TextType, types.BlobType, false), lit); err == nil && b != nil {
				p.Extensions = decodeTextMap(b)
			}
		}
	}
	return p
}

func decodeTextMap(b []byte) map[string][]byte {
	elems, err := types.DecodeCollection(types.MapOf(types.TextType, types.BlobType, true), b)
	out := map[string][]byte{}
	if err != nil {
		return out
	}
	for i := 0; i+1 < len(elems); i += 2 {
		out[string(elems[i])] = elems[i+1]
	}
	return out
}

func extensionsV(m map[string][]byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ks, vs [][]byte
	for _, k := range keys {
		ks, vs = append(ks, []byte(k)), append(vs, m[k])
	}
	b, _ := types.EncodeMap(extensionType, ks, vs)
	return b
}

// tableFlags returns system_schema.tables.flags for t: "compound" (and
// "counter") for a CQL table, and for a COMPACT STORAGE table its own
// ("dense", "compound", "counter", or none for a static compact table).
func tableFlags(t *schema.Table) []string { return t.Flags().Names() }

// keyspaceRow is a keyspace's system_schema.keyspaces row.
func keyspaceRow(ks *schema.Keyspace) Values {
	return Values{"keyspace_name": TextV(ks.Name), "durable_writes": BoolV(ks.DurableWrites), "replication": TextMapV(ks.Replication)}
}

// tableRow is a table's system_schema.tables row.
func tableRow(t *schema.Table) Values {
	p := ParamsOf(t.Options)
	r := Values{
		"keyspace_name":               TextV(t.Keyspace),
		"table_name":                  TextV(t.Name),
		"additional_write_policy":     TextV(p.AdditionalWritePolicy),
		"bloom_filter_fp_chance":      doubleV(p.BloomFilterFPChance),
		"caching":                     TextMapV(p.Caching),
		"cdc":                         BoolV(p.Cdc),
		"comment":                     TextV(p.Comment),
		"compaction":                  TextMapV(p.Compaction),
		"compression":                 TextMapV(p.Compression),
		"crc_check_chance":            doubleV(p.CrcCheckChance),
		"dclocal_read_repair_chance":  doubleV(0),
		"default_time_to_live":        IntV(p.DefaultTTL),
		"extensions":                  extensionsV(p.Extensions),
		"flags":                       TextSetV(tableFlags(t)...),
		"gc_grace_seconds":            IntV(p.GcGraceSeconds),
		"id":                          append([]byte(nil), t.ID[:]...),
		"max_index_interval":          IntV(p.MaxIndexInterval),
		"memtable_flush_period_in_ms": IntV(p.MemtableFlushPeriod),
		"min_index_interval":          IntV(p.MinIndexInterval),
		"read_repair":                 TextV(p.ReadRepair),
		"read_repair_chance":          doubleV(0),
		"speculative_retry":           TextV(p.SpeculativeRetry),
	}
	// SchemaKeyspace writes memtable only for a configuration other than
	// the default one (null otherwise, also for memtable = 'default').
	if p.Memtable != schema.DefaultMemtableConfiguration {
		r["memtable"] = TextV(p.Memtable)
	}
	return r
}

// viewRow is a materialized view's system_schema.views row: the table
// parameters of tableRow (without flags) and the view's definition.
func viewRow(t *schema.Table) Values {
	r := tableRow(t)
	delete(r, "table_name")
	delete(r, "flags")
	r["view_name"] = TextV(t.Name)
	r["base_table_id"] = append([]byte(nil), t.View.BaseID[:]...)
	r["base_table_name"] = TextV(t.View.BaseName)
	r["include_all_columns"] = BoolV(t.View.IncludeAllColumns)
	r["where_clause"] = TextV(t.View.WhereClause)
	return r
}

// columnRows are a table's system_schema.columns rows (also the shape of
// system_virtual_schema.columns).
func columnRows(t *schema.Table) []Values {
	out := make([]Values, 0, len(t.Columns))
	for _, c := range t.Columns {
		out = append(out, Values{
			"keyspace_name":     TextV(t.Keyspace),
			"table_name":        TextV(t.Name),
			"column_name":       TextV(c.Name),
			"clustering_order":  TextV(c.ClusteringOrder()),
			"column_name_bytes": []byte(c.Name),
			"kind":              TextV(c.Kind.String()),
			"position":          IntV(int32(c.Position)),
			"type":              TextV(schema.TypeName(c.Type)),
		})
	}
	return out
}

// droppedColumnRows are a table's system_schema.dropped_columns rows.
func droppedColumnRows(t *schema.Table) []Values {
	names := make([]string, 0, len(t.Dropped))
	for name := range t.Dropped {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]Values, 0, len(names))
	for _, name := range names {
		d := t.Dropped[name]
		kind := "regular"
		if c := t.Column(name); d.Static || (c != nil && c.Kind == schema.Static) {
			kind = "static"
		}
		out = append(out, Values{
			"keyspace_name": TextV(t.Keyspace),
			"table_name":    TextV(t.Name),
			"column_name":   TextV(name),
			"dropped_time":  TimestampV(d.DroppedAt / 1000),
			"kind":          TextV(kind),
			"type":          TextV(d.Type.String()),
		})
	}
	return out
}

// indexRows are a table's system_schema.indexes rows.
func indexRows(t *schema.Table) []Values {
	out := make([]Values, 0, len(t.Indexes))
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		out = append(out, Values{
			"keyspace_name": TextV(t.Keyspace),
			"table_name":    TextV(t.Name),
			"index_name":    TextV(ix.Name),
			"kind":          TextV(ix.Kind()),
			"options":       TextMapV(indexOptions(ix)),
		})
	}
	return out
}

// triggerRows are a table's system_schema.triggers rows, in trigger_name
// order (the clustering order), each with its options {'class': class}, as
// SchemaKeyspace.addTriggerToSchemaMutation writes them.
func triggerRows(t *schema.Table) []Values {
	if len(t.Triggers) == 0 {
		return nil
	}
	trs := slices.SortedFunc(slices.Values(t.Triggers), func(a, b schema.Trigger) int { return strings.Compare(a.Name, b.Name) })
	out := make([]Values, 0, len(trs))
	for _, tr := range trs {
		out = append(out, Values{
			"keyspace_name": TextV(t.Keyspace),
			"table_name":    TextV(t.Name),
			"trigger_name":  TextV(tr.Name),
			"options":       TextMapV(map[string]string{"class": tr.Class}),
		})
	}
	return out
}

// typeRows are a keyspace's system_schema.types rows.
func typeRows(ks *schema.Keyspace) []Values {
	out := make([]Values, 0, len(ks.Types))
	for _, t := range ks.Types {
		names := make([]string, len(t.UDT.Fields))
		typs := make([]string, len(t.UDT.Fields))
		for i, f := range t.UDT.Fields {
			names[i], typs[i] = f, t.DeclaredField(i).String()
		}
		out = append(out, Values{
			"keyspace_name": TextV(ks.Name),
			"type_name":     TextV(t.UDT.Name),
			"field_names":   textListV(names...),
			"field_types":   textListV(typs...),
		})
	}
	return out
}

// SchemaSnapshot is the schema the system_schema tables describe.
type SchemaSnapshot struct {
	Keyspaces []*schema.Keyspace
	Tables    map[string][]*schema.Table
}

// schemaTableRows returns the rows of system_schema.name that describe
// keyspace ks, whose tables (and materialized views) are tables. A view is a row of views, not of
// tables; its columns are in columns, as SchemaKeyspace writes them.
func schemaTableRows(name string, ks *schema.Keyspace, tables []*schema.Table) []Values {
	var out []Values
	switch name {
	case "keyspaces":
		out = append(out, keyspaceRow(ks))
	case "tables":
		for _, t := range tables {
			if !t.IsView() {
				out = append(out, tableRow(t))
			}
		}
	case "views":
		for _, t := range tables {
			if t.IsView() {
				out = append(out, viewRow(t))
			}
		}
	case "columns":
		for _, t := range tables {
			out = append(out, columnRows(t)...)
		}
	case "dropped_columns":
		for _, t := range tables {
			out = append(out, droppedColumnRows(t)...)
		}
	case "indexes":
		for _, t := range tables {
			out = append(out, indexRows(t)...)
		}
	case "triggers":
		for _, t := range tables {
			out = append(out, triggerRows(t)...)
		}
	case "types":
		out = typeRows(ks)
	case "functions":
		out = functionRows(ks)
	case "aggregates":
		out = aggregateRows(ks)
	}
	return out
}

// SchemaPartitions returns the partitions of system_schema.name that
// describe snap: one per keyspace that has rows in it, keyed by keyspace
// name. The virtual keyspaces are described by system_virtual_schema only.
func SchemaPartitions(snap SchemaSnapshot, name string) []Partition {
	var parts []Partition
	for _, ks := range snap.Keyspaces {
		if VirtualKeyspaces[ks.Name] {
			continue
		}
		if rows := schemaTableRows(name, ks, snap.Tables[ks.Name]); len(rows) > 0 {
			parts = append(parts, Partition{Key: TextV(ks.Name), Rows: rows})
		}
	}
	return parts
}

// VirtualSchemaPartitions returns the partitions of
// system_virtual_schema.name (keyspaces, tables or columns), which describe
// the virtual keyspaces: one per virtual keyspace, keyed by its name.
func VirtualSchemaPartitions(name string) []Partition {
	var parts []Partition
	for _, ks := range SystemKeyspaceOrder {
		if !VirtualKeyspaces[ks] {
			continue
		}
		var rows []Values
		switch name {
		case "keyspaces":
			rows = []Values{{"keyspace_name": TextV(ks)}}
		case "tables":
			for _, t := range Tables(ks) {
				rows = append(rows, Values{"keyspace_name": TextV(ks), "table_name": TextV(t.Name), "comment": TextV(t.Options.Comment)})
			}
		case "columns":
			for _, t := range Tables(ks) {
				rows = append(rows, columnRows(t)...)
			}
		}
		if len(rows) > 0 {
			parts = append(parts, Partition{Key: TextV(ks), Rows: rows})
		}
	}
	return parts
}

// NodeInfo is what system.local says about the node.
type NodeInfo struct {
	ClusterName, DataCenter, Rack string
	HostID                        types.UUIDValue
	schemaVersion                 types.UUIDValue
	RpcAddress                    net.IP
	RpcPort                       int
	gossipGeneration              int32
	Tokens                        []string
	// Partitioner is the node's partitioner (system.local.partitioner).
	Partitioner partitioner.Partitioner
}

// Versions minicass reports in system.local.
const (
	// ReleaseVersion is system.local.release_version: the Cassandra release
	// minicass behaves like.
	ReleaseVersion = "4.1.6"
	// CQLVersion is system.local.cql_version (Cassandra 4.1's).
	CQLVersion = "3.4.6"
	// nativeProtocolVersion is system.local.native_protocol_version.
	nativeProtocolVersion = "4"
	// NumTokens is the number of tokens the node owns (Cassandra 4's
	// num_tokens default).
	NumTokens = 16
)

// LocalRow is the system.local row.
func LocalRow(n NodeInfo) Values {
	return Values{
		"key":                     TextV("local"),
		"bootstrapped":            TextV("COMPLETED"),
		"broadcast_address":       InetV(n.RpcAddress),
		"broadcast_port":          IntV(7000),
		"cluster_name":            TextV(n.ClusterName),
		"cql_version":             TextV(CQLVersion),
		"data_center":             TextV(n.DataCenter),
		"gossip_generation":       IntV(n.gossipGeneration),
		"host_id":                 append([]byte(nil), n.HostID[:]...),
		"listen_address":          InetV(n.RpcAddress),
		"listen_port":             IntV(7000),
		"native_protocol_version": TextV(nativeProtocolVersion),
		"partitioner":             TextV(n.Partitioner.ClassName()),
		"rack":                    TextV(n.Rack),
		"release_version":         TextV(ReleaseVersion),
		"rpc_address":             InetV(n.RpcAddress),
		"rpc_port":                IntV(int32(n.RpcPort)),
		"schema_version":          append([]byte(nil), n.schemaVersion[:]...),
		"tokens":                  TextSetV(n.Tokens...),
	}
}

// NodeTokens returns the node's NumTokens tokens, evenly spaced around the
// ring from an offset derived from the host id, so a node keeps its tokens
// for as long as it keeps its host id. They are strings, as
// system.local.tokens stores them: decimal under Murmur3, and under
// ByteOrderedPartitioner the hex of eight-byte BytesTokens.
func NodeTokens(hostID types.UUIDValue, part partitioner.Partitioner) []string {
	offset := binary.BigEndian.Uint64(hostID[:8]) ^ binary.BigEndian.Uint64(hostID[8:])
	step := uint64(1) << 60 // 2^64 / NumTokens
	out := make([]string, NumTokens)
	for i := range out {
		t := int64(offset + uint64(i)*step)
		if part.OrdersKeys() {
			// A BytesToken of the eight bytes, printed as Cassandra
			// prints it (hex).
			out[i] = fmt.Sprintf("%016x", uint64(t))
			continue
		}
		if t == math.MinInt64 {
			t++ // MinToken is reserved for the ring minimum
		}
		out[i] = strconv.FormatInt(t, 10)
	}
	return out
}

// PartitionMutation turns the new content of a stored system table
// partition (system_auth, system_traces) into a mutation that replaces it:
// a partition deletion at delTS, then rows written at ts (> delTS) with a
// primary-key liveness record, as INSERT writes them. now is the write time
// in seconds.
func PartitionMutation(p Partition, delTS, ts, now int64) (*data.Mutation, error) {
	t := p.Table
	m := &data.Mutation{Table: t.ID, Key: p.Key, PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: delTS, LocalDeletionTime: now}}
	for _, r := range p.Rows {
		row, err := SystemRow(t, r, ts)
		if err != nil {
			return nil, err
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// SystemRow turns row r of system table t into a live row whose liveness
// record and cells carry timestamp ts, as INSERT writes them. The cells are
// sorted as the storage model orders them.
func SystemRow(t *schema.Table, r Values, ts int64) (data.Row, error) {
	var ck [][]byte
	for _, c := range t.ClusteringColumns() {
		v := r[c.Name]
		if v == nil {
			return data.Row{}, fmt.Errorf("cql: system row of %s lacks clustering column %s", t.QualifiedName(), c.Name)
		}
		ck = append(ck, v)
	}
	clustering, err := types.EncodeClustering(t.ClusteringTypes(), ck)
	if err != nil {
		return data.Row{}, err
	}
	row := data.NewRow(clustering)
	row.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	for _, c := range t.Columns {
		if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering {
			continue
		}
		v, ok := r[c.Name]
		if !ok || v == nil {
			continue
		}
		cells, err := systemCells(c, v, ts)
		if err != nil {
			return data.Row{}, fmt.Errorf("cql: system row of %s, column %s: %w", t.QualifiedName(), c.Name, err)
		}
		row.Cells = append(row.Cells, cells...)
	}
	sort.Slice(row.Cells, func(i, j int) bool { return data.CompareID(&row.Cells[i], &row.Cells[j]) < 0 })
	return row, nil
}

// systemCells returns the cells of value v of column c: one cell, or one
// per element for a non-frozen set or map.
func systemCells(c *schema.Column, v []byte, ts int64) ([]data.Cell, error) {
	cell := func(path, value []byte) data.Cell {
		return data.Cell{Column: c.Name, Path: path, Kind: data.CellRegular, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}
	}
	if !c.Type.IsMultiCell() {
		return []data.Cell{cell(nil, v)}, nil
	}
	elems, err := types.DecodeCollection(c.Type, v)
	if err != nil {
		return nil, err
	}
	var out []data.Cell
	switch c.Type.Kind {
	case types.Set:
		for _, e := range elems {
			out = append(out, cell(types.EncodeKey(c.Type.Params[0], e), []byte{}))
		}
	case types.Map:
		for i := 0; i+1 < len(elems); i += 2 {
			out = append(out, cell(types.EncodeKey(c.Type.Params[0], elems[i]), elems[i+1]))
		}
	default:
		return nil, fmt.Errorf("cql: non-frozen %s is not supported in system tables", c.Type)
	}
	return out, nil
}

// IndexTargetCQL writes an index target as CQL and system_schema.indexes
// do: the column, or keys(m), values(l), entries(m), full(f), or nothing
// for a custom index without a target.
func IndexTargetCQL(ix *schema.Index) string {
	if ix.Column == "" {
		return ""
	}
	col := parser.Ident(ix.Column).String()
	if ix.Target == schema.IndexSimple {
		return col
	}
	return ix.Target.String() + "(" + col + ")"
}

// indexOptions returns an index's system_schema.indexes options: its
// target, and for a custom index its class and WITH OPTIONS.
func indexOptions(ix *schema.Index) map[string]string {
	opts := map[string]string{"target": IndexTargetCQL(ix)}
	if ix.Class != "" {
		opts["class_name"] = ix.Class
		for k, v := range ix.Options {
			opts[k] = v
		}
	}
	return opts
}

// functionRows are a keyspace's system_schema.functions rows
// (SchemaKeyspace.makeFunctionMutation), in clustering order: by name,
// then by argument types.
func functionRows(ks *schema.Keyspace) []Values {
	fns := slices.Clone(ks.Functions)
	slices.SortStableFunc(fns, func(a, b *schema.Function) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), slices.Compare(a.ArgTypeStrings(), b.ArgTypeStrings()))
	})
	out := make([]Values, 0, len(fns))
	for _, f := range fns {
		out = append(out, Values{
			"keyspace_name":        TextV(ks.Name),
			"function_name":        TextV(f.Name),
			"argument_types":       textListV(typeStringsOf(f.ArgTypes)...),
			"argument_names":       textListV(f.ArgNames...),
			"body":                 TextV(f.Body),
			"called_on_null_input": BoolV(f.CalledOnNullInput),
			"language":             TextV(f.Language),
			"return_type":          TextV(f.Return.String()),
		})
	}
	return out
}

// aggregateRows are a keyspace's system_schema.aggregates rows
// (SchemaKeyspace.makeAggregateMutation): initcond as a CQL literal of the
// state type, final_func and initcond null when absent.
func aggregateRows(ks *schema.Keyspace) []Values {
	aggs := slices.Clone(ks.Aggregates)
	slices.SortStableFunc(aggs, func(a, b *schema.Aggregate) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), slices.Compare(a.ArgTypeStrings(), b.ArgTypeStrings()))
	})
	out := make([]Values, 0, len(aggs))
	for _, a := range aggs {
		row := Values{
			"keyspace_name":  TextV(ks.Name),
			"aggregate_name": TextV(a.Name),
			"argument_types": textListV(typeStringsOf(a.ArgTypes)...),
			"return_type":    TextV(a.Return.String()),
			"state_func":     TextV(a.StateFunc),
			"state_type":     TextV(a.StateType.String()),
		}
		if a.FinalFunc != "" {
			row["final_func"] = TextV(a.FinalFunc)
		}
		if a.InitCond != nil {
			row["initcond"] = TextV(types.FormatLiteral(a.StateType, a.InitCond))
		}
		out = append(out, row)
	}
	return out
}

// typeStringsOf returns the CQL type strings of ts
// (AbstractType.asCQLTypeStringList).
func typeStringsOf(ts []types.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}
