package virtual

import (
	"context"
	"sort"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// Derived system tables.
//
// system_schema.*, system_virtual_schema.*, system_views.* and system.local
// hold nothing: their rows are computed from the engine's current schema,
// its table statistics, the node's identity and the server's connections
// each time a SELECT reads them, as Cassandra computes its virtual tables
// (AbstractVirtualTable.select). The engine knows the tables (Bootstrap
// creates them, with the definitions of system_tables.go) but never
// receives a write for them, so a schema change writes nothing derived to
// the commit log and costs the same however many tables exist.
//
// The SELECT pipeline reads these partitions through the same two calls as
// any other (the statements package's selectPlan.readPartition and scan): they are
// built in memory, ordered as the engine orders partitions (by token, then
// key) and rows (by clustering), and restricted to the requested slices, so
// restrictions, filtering, ORDER BY, paging, aggregates and JSON work on
// them unchanged.
//
// Cells have the timestamp Cassandra would show. A virtual table's cells
// (system_views, system_virtual_schema) are built at the time of the read,
// and Cassandra stamps them with that time in milliseconds
// (AbstractVirtualTable.select's currentTimeMillis), not microseconds.
// system_schema and system.local are stored tables in Cassandra, whose cells
// carry the microsecond timestamp of the write that made them; minicass has
// no such write and gives the time of the read, in microseconds
// (docs/compatibility.md).

// IsDerived reports whether the rows of tbl are computed when read.
func IsDerived(tbl *schema.Table) bool {
	if IsUserVirtual(tbl) {
		return true
	}
	switch tbl.Keyspace {
	case "system_schema", "system_virtual_schema", "system_views":
		return true
	case "system":
		return tbl.Name == "local" || tbl.Name == "IndexInfo"
	}
	return false
}

// DerivedTimestamp returns the timestamp of the cells of derived table tbl
// read at nowMicros (microseconds since the epoch).
func DerivedTimestamp(tbl *schema.Table, nowMicros int64) int64 {
	if IsVirtualTable(tbl) {
		return nowMicros / 1000
	}
	return nowMicros
}

// Partitions returns the partitions of derived table tbl as they are
// now, in the engine's partition order, without empty ones. When key is not
// nil only the partition of that key is wanted: the result may then hold
// others, but a system_schema table computes only that keyspace.
func (n *Node) Partitions(tbl *schema.Table, key []byte) ([]Partition, error) {
	return n.PartitionsContext(context.Background(), tbl, key)
}

// PartitionsContext is Partitions with the context a registered virtual
// table's Rows receives.
func (n *Node) PartitionsContext(ctx context.Context, tbl *schema.Table, key []byte) ([]Partition, error) {
	var parts []Partition
	if u := lookupUser(tbl); u != nil {
		var err error
		if parts, err = userPartitions(ctx, u); err != nil {
			return nil, err
		}
	}
	switch tbl.Keyspace {
	case "system_schema":
		parts = SchemaPartitions(n.schemaOf(key), tbl.Name)
	case "system_virtual_schema":
		parts = append(VirtualSchemaPartitions(tbl.Name), n.userVirtualSchemaPartitions(tbl.Name)...)
	case "system_views":
		var err error
		if parts, err = n.viewPartitions(tbl.Name); err != nil {
			return nil, err
		}
	case "system":
		switch tbl.Name {
		case "local":
			parts = []Partition{{Key: TextV("local"), Rows: []Values{LocalRow(n.Info())}}}
		case "IndexInfo":
			parts = builtIndexPartitions(n.schemaOf(key))
		}
	}
	out := parts[:0]
	for _, p := range parts {
		if len(p.Rows) > 0 {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return data.ComparePartitions(n.eng.Token(out[i].Key), out[i].Key, n.eng.Token(out[j].Key), out[j].Key) < 0
	})
	return out, nil
}

// builtIndexPartitions returns the rows of system."IndexInfo", the indexes
// that are built: one partition per keyspace (its table_name column holds the
// keyspace's name, as Cassandra's SystemKeyspace.setIndexBuilt writes it),
// one row per index of its tables, by name. minicass builds an index when it
// creates it, so every index is listed.
func builtIndexPartitions(snap SchemaSnapshot) []Partition {
	var out []Partition
	for _, ks := range snap.Keyspaces {
		var names []string
		for _, t := range snap.Tables[ks.Name] {
			for _, ix := range t.Indexes {
				names = append(names, ix.Name)
			}
		}
		sort.Strings(names)
		p := Partition{Key: TextV(ks.Name)}
		for _, name := range names {
			p.Rows = append(p.Rows, Values{"table_name": TextV(ks.Name), "index_name": TextV(name)})
		}
		out = append(out, p)
	}
	return out
}

// schemaOf returns the schema system_schema describes: every keyspace, or
// only the keyspace named by key when key is not nil (none if it does not
// exist).
func (n *Node) schemaOf(key []byte) SchemaSnapshot {
	if key == nil {
		return n.CurrentSchema()
	}
	ks, ok := n.eng.Keyspace(string(key))
	if !ok {
		return SchemaSnapshot{}
	}
	return SchemaSnapshot{Keyspaces: []*schema.Keyspace{ks}, Tables: map[string][]*schema.Table{ks.Name: n.eng.Tables(ks.Name)}}
}
