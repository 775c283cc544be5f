package virtual

import (
	"crypto/md5"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// System keyspaces and tables.
//
// minicass serves Cassandra 4.1's system keyspaces as engine tables with
// Cassandra's exact names, column types and primary keys (from
// db/SystemKeyspace.java, schema/SchemaKeyspace.java, auth/AuthKeyspace.java,
// repair/SystemDistributedKeyspace.java, tracing/TraceKeyspace.java and
// db/virtual/*). The executor creates them in Bootstrap. system.local,
// system_schema.*, system_virtual_schema.* and system_views.* are derived:
// their rows are computed when a SELECT reads them (derived.go), the
// others are stored. Every driver query on them goes through the normal
// SELECT path: WHERE keyspace_name = ?, paging, bound values all work.
//
// system_views and system_virtual_schema are virtual keyspaces in Cassandra:
// they are described by system_virtual_schema, not by system_schema, and
// DESCRIBE prints them as comments.

// systemCol is one column of a system table definition: name and CQL type.
type systemCol struct{ name, typ string }

// systemTableDef is the definition of one system table.
type systemTableDef struct {
	keyspace, name, comment string
	cols                    []systemCol
	// pk and ck list the partition key and clustering columns in order.
	pk, ck []string
	// gcGrace is gc_grace_seconds; defaultTTL is default_time_to_live.
	gcGrace, defaultTTL int32
	// flushPeriod is memtable_flush_period_in_ms (0 for virtual tables).
	flushPeriod int
}

// Replication of the system keyspaces, as Cassandra 4.1 creates them.
var systemReplication = map[string]map[string]string{
	"system":             {"class": "org.apache.cassandra.locator.LocalStrategy"},
	"system_schema":      {"class": "org.apache.cassandra.locator.LocalStrategy"},
	"system_auth":        {"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"},
	"system_distributed": {"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"},
	"system_traces":      {"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "2"},
	// Virtual keyspaces have no replication; LocalStrategy keeps the engine
	// happy and they are never listed in system_schema.keyspaces.
	"system_views":          {"class": "org.apache.cassandra.locator.LocalStrategy"},
	"system_virtual_schema": {"class": "org.apache.cassandra.locator.LocalStrategy"},
}

// SystemKeyspaceOrder lists the system keyspaces in the order they are
// created and described.
var SystemKeyspaceOrder = []string{"system", "system_schema", "system_auth", "system_distributed", "system_traces", "system_views", "system_virtual_schema"}

var systemKeyspaceSet = func() map[string]bool {
	m := make(map[string]bool, len(SystemKeyspaceOrder))
	for _, ks := range SystemKeyspaceOrder {
		m[ks] = true
	}
	return m
}()

// IsSystemKeyspace reports whether ks is one of the keyspaces the node
// serves itself, which users cannot create, alter or drop.
func IsSystemKeyspace(ks string) bool { return systemKeyspaceSet[ks] }

// VirtualKeyspaces are Cassandra's virtual keyspaces.
var VirtualKeyspaces = map[string]bool{"system_views": true, "system_virtual_schema": true}

// isVirtualKeyspace reports whether ks is one of Cassandra's virtual
// keyspaces (system_views, system_virtual_schema).
func isVirtualKeyspace(ks string) bool { return VirtualKeyspaces[ks] }

func sysCols(spec string) []systemCol {
	// spec is "name type; name type; ...": types may contain commas.
	var out []systemCol
	for _, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sp := strings.IndexByte(part, ' ')
		out = append(out, systemCol{name: part[:sp], typ: strings.TrimSpace(part[sp+1:])})
	}
	return out
}

// sysFlushPeriod is the memtable_flush_period_in_ms of Cassandra's system tables (one hour).
const sysFlushPeriod = 3600000

// systemTableDefs are the system tables, keyspace by keyspace.
var systemTableDefs = []systemTableDef{
	// system (db/SystemKeyspace.java): gc_grace_seconds 0, flushed hourly.
	{keyspace: "system", name: "IndexInfo", comment: "built column indexes",
		cols: sysCols("table_name text; index_name text; value blob"), pk: []string{"table_name"}, ck: []string{"index_name"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "available_ranges", comment: "available keyspace/ranges during bootstrap/replace that are ready to be served",
		cols: sysCols("keyspace_name text; ranges set<blob>"), pk: []string{"keyspace_name"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "available_ranges_v2", comment: "available keyspace/ranges during bootstrap/replace that are ready to be served",
		cols: sysCols("keyspace_name text; full_ranges set<blob>; transient_ranges set<blob>"), pk: []string{"keyspace_name"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "batches", comment: "batches awaiting replay",
		cols: sysCols("id timeuuid; mutations list<blob>; version int"), pk: []string{"id"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "built_views", comment: "built views",
		cols: sysCols("keyspace_name text; view_name text; status_replicated boolean"), pk: []string{"keyspace_name"}, ck: []string{"view_name"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "compaction_history", comment: "week-long compaction history",
		cols: sysCols("id uuid; bytes_in bigint; bytes_out bigint; columnfamily_name text; compacted_at timestamp; keyspace_name text; rows_merged map<int, bigint>"),
		pk:   []string{"id"}, defaultTTL: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "local", comment: "information about the local node",
		cols: sysCols("key text; bootstrapped text; broadcast_address inet; broadcast_port int; cluster_name text; cql_version text; data_center text; " +
			"gossip_generation int; host_id uuid; listen_address inet; listen_port int; native_protocol_version text; partitioner text; rack text; " +
			"release_version text; rpc_address inet; rpc_port int; schema_version uuid; tokens set<text>; truncated_at map<uuid, blob>"),
		pk: []string{"key"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "paxos", comment: "in-progress paxos proposals",
		cols: sysCols("row_key blob; cf_id uuid; in_progress_ballot timeuuid; most_recent_commit blob; most_recent_commit_at timeuuid; " +
			"most_recent_commit_version int; proposal blob; proposal_ballot timeuuid; proposal_version int"),
		pk: []string{"row_key"}, ck: []string{"cf_id"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "peer_events", comment: "events related to peers",
		cols: sysCols("peer inet; hints_dropped map<uuid, int>"), pk: []string{"peer"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "peer_events_v2", comment: "events related to peers",
		cols: sysCols("peer inet; peer_port int; hints_dropped map<uuid, int>"), pk: []string{"peer"}, ck: []string{"peer_port"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "peers", comment: "information about known peers in the cluster",
		cols: sysCols("peer inet; data_center text; host_id uuid; preferred_ip inet; rack text; release_version text; rpc_address inet; schema_version uuid; tokens set<text>"),
		pk:   []string{"peer"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "peers_v2", comment: "information about known peers in the cluster",
		cols: sysCols("peer inet; peer_port int; data_center text; host_id uuid; preferred_ip inet; preferred_port int; rack text; release_version text; " +
			"native_address inet; native_port int; schema_version uuid; tokens set<text>"),
		pk: []string{"peer"}, ck: []string{"peer_port"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "prepared_statements", comment: "prepared statements",
		cols: sysCols("prepared_id blob; logged_keyspace text; query_string text"), pk: []string{"prepared_id"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "repairs", comment: "repairs",
		cols: sysCols("parent_id timeuuid; cfids set<uuid>; coordinator inet; coordinator_port int; last_update timestamp; participants set<inet>; " +
			"participants_wp set<text>; ranges set<blob>; repaired_at timestamp; started_at timestamp; state int"),
		pk: []string{"parent_id"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "size_estimates", comment: "per-table primary range size estimates, table is deprecated in favor of table_estimates",
		cols: sysCols("keyspace_name text; table_name text; range_start text; range_end text; mean_partition_size bigint; partitions_count bigint"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "range_start", "range_end"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "sstable_activity", comment: "historic sstable read rates",
		cols: sysCols("keyspace_name text; columnfamily_name text; generation int; rate_120m double; rate_15m double"),
		pk:   []string{"keyspace_name", "columnfamily_name", "generation"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "table_estimates", comment: "per-table range size estimates",
		cols: sysCols("keyspace_name text; table_name text; range_type text; range_start text; range_end text; mean_partition_size bigint; partitions_count bigint"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "range_type", "range_start", "range_end"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "transferred_ranges_v2", comment: "record of transferred ranges for streaming operation",
		cols: sysCols("operation text; keyspace_name text; peer inet; peer_port int; ranges set<blob>"),
		pk:   []string{"operation", "keyspace_name"}, ck: []string{"peer", "peer_port"}, flushPeriod: sysFlushPeriod},
	{keyspace: "system", name: "view_builds_in_progress", comment: "views builds current progress",
		cols: sysCols("keyspace_name text; view_name text; start_token text; end_token text; keys_built bigint; last_token text"),
		pk:   []string{"keyspace_name"}, ck: []string{"view_name", "start_token", "end_token"}, flushPeriod: sysFlushPeriod},

	// system_schema (schema/SchemaKeyspace.java): gc_grace_seconds 7 days.
	{keyspace: "system_schema", name: "aggregates", comment: "user defined aggregate definitions",
		cols: sysCols("keyspace_name text; aggregate_name text; argument_types frozen<list<text>>; final_func text; initcond text; return_type text; state_func text; state_type text"),
		pk:   []string{"keyspace_name"}, ck: []string{"aggregate_name", "argument_types"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "columns", comment: "column definitions",
		cols: sysCols("keyspace_name text; table_name text; column_name text; clustering_order text; column_name_bytes blob; kind text; position int; type text"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "column_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "dropped_columns", comment: "dropped column registry",
		cols: sysCols("keyspace_name text; table_name text; column_name text; dropped_time timestamp; kind text; type text"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "column_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "functions", comment: "user defined function definitions",
		cols: sysCols("keyspace_name text; function_name text; argument_types frozen<list<text>>; argument_names frozen<list<text>>; body text; " +
			"called_on_null_input boolean; language text; return_type text"),
		pk: []string{"keyspace_name"}, ck: []string{"function_name", "argument_types"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "indexes", comment: "secondary index definitions",
		cols: sysCols("keyspace_name text; table_name text; index_name text; kind text; options frozen<map<text, text>>"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "index_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "keyspaces", comment: "keyspace definitions",
		cols: sysCols("keyspace_name text; durable_writes boolean; replication frozen<map<text, text>>"),
		pk:   []string{"keyspace_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "tables", comment: "table definitions",
		cols: sysCols("keyspace_name text; table_name text; additional_write_policy text; bloom_filter_fp_chance double; caching frozen<map<text, text>>; cdc boolean; " +
			"comment text; compaction frozen<map<text, text>>; compression frozen<map<text, text>>; crc_check_chance double; dclocal_read_repair_chance double; " +
			"default_time_to_live int; extensions frozen<map<text, blob>>; flags frozen<set<text>>; gc_grace_seconds int; id uuid; max_index_interval int; " +
			"memtable text; memtable_flush_period_in_ms int; min_index_interval int; read_repair text; read_repair_chance double; speculative_retry text"),
		pk: []string{"keyspace_name"}, ck: []string{"table_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "triggers", comment: "trigger definitions",
		cols: sysCols("keyspace_name text; table_name text; trigger_name text; options frozen<map<text, text>>"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "trigger_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "types", comment: "user defined type definitions",
		cols: sysCols("keyspace_name text; type_name text; field_names frozen<list<text>>; field_types frozen<list<text>>"),
		pk:   []string{"keyspace_name"}, ck: []string{"type_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},
	{keyspace: "system_schema", name: "views", comment: "view definitions",
		cols: sysCols("keyspace_name text; view_name text; additional_write_policy text; base_table_id uuid; base_table_name text; bloom_filter_fp_chance double; " +
			"caching frozen<map<text, text>>; cdc boolean; comment text; compaction frozen<map<text, text>>; compression frozen<map<text, text>>; " +
			"crc_check_chance double; dclocal_read_repair_chance double; default_time_to_live int; extensions frozen<map<text, blob>>; gc_grace_seconds int; " +
			"id uuid; include_all_columns boolean; max_index_interval int; memtable text; memtable_flush_period_in_ms int; min_index_interval int; read_repair text; " +
			"read_repair_chance double; speculative_retry text; where_clause text"),
		pk: []string{"keyspace_name"}, ck: []string{"view_name"}, gcGrace: 604800, flushPeriod: sysFlushPeriod},

	// system_auth (auth/AuthKeyspace.java): gc_grace_seconds 90 days.
	{keyspace: "system_auth", name: "network_permissions", comment: "user network permissions",
		cols: sysCols("role text; dcs frozen<set<text>>"), pk: []string{"role"}, gcGrace: 7776000, flushPeriod: sysFlushPeriod},
	{keyspace: "system_auth", name: "resource_role_permissons_index", comment: "index of db resources to roles with permissions",
		cols: sysCols("resource text; role text"), pk: []string{"resource"}, ck: []string{"role"}, gcGrace: 7776000, flushPeriod: sysFlushPeriod},
	{keyspace: "system_auth", name: "role_members", comment: "role memberships lookup table",
		cols: sysCols("role text; member text"), pk: []string{"role"}, ck: []string{"member"}, gcGrace: 7776000, flushPeriod: sysFlushPeriod},
	{keyspace: "system_auth", name: "role_permissions", comment: "permissions granted to db roles",
		cols: sysCols("role text; resource text; permissions set<text>"), pk: []string{"role"}, ck: []string{"resource"}, gcGrace: 7776000, flushPeriod: sysFlushPeriod},
	{keyspace: "system_auth", name: "roles", comment: "role definitions",
		cols: sysCols("role text; can_login boolean; is_superuser boolean; member_of set<text>; salted_hash text"), pk: []string{"role"}, gcGrace: 7776000, flushPeriod: sysFlushPeriod},

	// system_distributed (repair/SystemDistributedKeyspace.java).
	{keyspace: "system_distributed", name: "parent_repair_history", comment: "Repair history",
		cols: sysCols("parent_id timeuuid; columnfamily_names set<text>; exception_message text; exception_stacktrace text; finished_at timestamp; " +
			"keyspace_name text; options map<text, text>; requested_ranges set<text>; started_at timestamp; successful_ranges set<text>"),
		pk: []string{"parent_id"}, gcGrace: 864000},
	{keyspace: "system_distributed", name: "repair_history", comment: "Repair history",
		cols: sysCols("keyspace_name text; columnfamily_name text; id timeuuid; coordinator inet; coordinator_port int; exception_message text; " +
			"exception_stacktrace text; finished_at timestamp; parent_id timeuuid; participants set<inet>; participants_v2 set<text>; " +
			"range_begin text; range_end text; started_at timestamp; status text"),
		pk: []string{"keyspace_name", "columnfamily_name"}, ck: []string{"id"}, gcGrace: 864000},
	{keyspace: "system_distributed", name: "view_build_status", comment: "Materialized View build status",
		cols: sysCols("keyspace_name text; view_name text; host_id uuid; status text"),
		pk:   []string{"keyspace_name", "view_name"}, ck: []string{"host_id"}, gcGrace: 864000},

	// system_traces (tracing/TraceKeyspace.java).
	{keyspace: "system_traces", name: "events", comment: "tracing events",
		cols: sysCols("session_id uuid; event_id timeuuid; activity text; source inet; source_elapsed int; source_port int; thread text"),
		pk:   []string{"session_id"}, ck: []string{"event_id"}, gcGrace: 0},
	{keyspace: "system_traces", name: "sessions", comment: "tracing sessions",
		cols: sysCols("session_id uuid; client inet; command text; coordinator inet; coordinator_port int; duration int; parameters map<text, text>; " +
			"request text; started_at timestamp"),
		pk: []string{"session_id"}, gcGrace: 0},

	// system_views (db/virtual/*): a few of Cassandra's virtual tables.
	{keyspace: "system_views", name: "settings", comment: "current settings",
		cols: sysCols("name text; value text"), pk: []string{"name"}},
	{keyspace: "system_views", name: "clients", comment: "currently connected clients",
		cols: sysCols("address inet; port int; client_options frozen<map<text, text>>; connection_stage text; driver_name text; driver_version text; " +
			"hostname text; protocol_version int; request_count bigint; ssl_cipher_suite text; ssl_enabled boolean; ssl_protocol text; username text"),
		pk: []string{"address"}, ck: []string{"port"}},
	// db/virtual/TableMetricTables: one row per table (views.go).
	{keyspace: "system_views", name: "disk_usage",
		cols: sysCols("keyspace_name text; table_name text; mebibytes bigint"), pk: []string{"keyspace_name", "table_name"}},
	{keyspace: "system_views", name: "max_partition_size",
		cols: sysCols("keyspace_name text; table_name text; mebibytes bigint"), pk: []string{"keyspace_name", "table_name"}},
	{keyspace: "system_views", name: "rows_per_read",
		cols: sysCols("keyspace_name text; table_name text; count bigint; max double; p50th double; p99th double"), pk: []string{"keyspace_name", "table_name"}},
	{keyspace: "system_views", name: "tombstones_per_read",
		cols: sysCols("keyspace_name text; table_name text; count bigint; max double; p50th double; p99th double"), pk: []string{"keyspace_name", "table_name"}},

	// system_virtual_schema (db/virtual/VirtualSchemaKeyspace.java).
	{keyspace: "system_virtual_schema", name: "columns", comment: "virtual column definitions",
		cols: sysCols("keyspace_name text; table_name text; column_name text; clustering_order text; column_name_bytes blob; kind text; position int; type text"),
		pk:   []string{"keyspace_name"}, ck: []string{"table_name", "column_name"}},
	{keyspace: "system_virtual_schema", name: "keyspaces", comment: "virtual keyspace definitions",
		cols: sysCols("keyspace_name text"), pk: []string{"keyspace_name"}},
	{keyspace: "system_virtual_schema", name: "tables", comment: "virtual table definitions",
		cols: sysCols("keyspace_name text; table_name text; comment text"), pk: []string{"keyspace_name"}, ck: []string{"table_name"}},
}

// SystemTableID returns the id Cassandra gives a system table
// (TableId.forSystemTable): the name-based (version 3) UUID of the keyspace
// name followed by the table name.
func SystemTableID(keyspace, table string) data.TableID {
	sum := md5.Sum([]byte(keyspace + table))
	sum[6] = sum[6]&0x0f | 0x30
	sum[8] = sum[8]&0x3f | 0x80
	return data.TableID(sum)
}

// build turns a definition into a schema table.
func (d *systemTableDef) build() *schema.Table {
	var cs []*schema.Column
	for _, c := range d.cols {
		t := types.MustParseType(c.typ)
		col := &schema.Column{Name: c.name, Type: t, Kind: schema.Regular, Position: -1}
		if i := slices.Index(d.pk, c.name); i >= 0 {
			col.Kind, col.Position = schema.PartitionKey, i
		} else if i := slices.Index(d.ck, c.name); i >= 0 {
			col.Kind, col.Position = schema.Clustering, i
		}
		cs = append(cs, col)
	}
	opts := schema.DefaultOptions()
	opts.GCGraceSeconds = d.gcGrace
	opts.DefaultTTL = d.defaultTTL
	opts.Comment = d.comment
	if d.flushPeriod != 0 {
		opts.Extra = map[string]string{"memtable_flush_period_in_ms": strconv.Itoa(d.flushPeriod)}
	}
	return schema.NewTable(d.keyspace, d.name, SystemTableID(d.keyspace, d.name), cs, opts)
}

var (
	systemTablesOnce sync.Once
	systemTablesByKS map[string][]*schema.Table
)

// Tables returns the definitions of the system tables of keyspace ks,
// sorted by name (nil for a keyspace that is not a system keyspace). The
// tables are shared and must not be modified.
func Tables(ks string) []*schema.Table {
	systemTablesOnce.Do(func() {
		systemTablesByKS = make(map[string][]*schema.Table)
		for i := range systemTableDefs {
			d := &systemTableDefs[i]
			systemTablesByKS[d.keyspace] = append(systemTablesByKS[d.keyspace], d.build())
		}
		for _, ts := range systemTablesByKS {
			sortTables(ts)
		}
	})
	return systemTablesByKS[ks]
}

func sortTables(ts []*schema.Table) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Name < ts[j-1].Name; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// SystemKeyspaceDef returns the definition of system keyspace name. The
// definition is built once per process and shared, as the engine's
// definitions are immutable once published: it must not be modified.
func SystemKeyspaceDef(name string) *schema.Keyspace {
	systemKeyspacesOnce.Do(func() {
		systemKeyspaces = make(map[string]*schema.Keyspace, len(SystemKeyspaceOrder))
		for _, ks := range SystemKeyspaceOrder {
			systemKeyspaces[ks] = &schema.Keyspace{Name: ks, Replication: maps.Clone(systemReplication[ks]), DurableWrites: true}
		}
	})
	if ks, ok := systemKeyspaces[name]; ok {
		return ks
	}
	return &schema.Keyspace{Name: name, Replication: maps.Clone(systemReplication[name]), DurableWrites: true}
}

var (
	systemKeyspacesOnce sync.Once
	systemKeyspaces     map[string]*schema.Keyspace
)
