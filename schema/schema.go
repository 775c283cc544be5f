// Package schema describes keyspaces and tables: columns with their CQL types
// and kinds, the primary key, clustering order and table options. It is a
// leaf of the import graph (it imports only types and data), shared by the
// engine, the SSTable tools and the CQL layer.
//
// Schema values are immutable once published: a schema change builds a new
// *Table (or *Keyspace) and swaps the pointer, so readers and writers that
// hold the old one keep a consistent view.
package schema

import (
	"maps"
	"strings"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// ColumnKind says what part of the primary key (if any) a column is.
type ColumnKind uint8

// The column kinds, named as in system_schema.columns.kind.
const (
	PartitionKey ColumnKind = iota
	Clustering
	Static
	Regular
)

// String returns the kind as system_schema.columns.kind spells it.
func (k ColumnKind) String() string {
	switch k {
	case PartitionKey:
		return "partition_key"
	case Clustering:
		return "clustering"
	case Static:
		return "static"
	default:
		return "regular"
	}
}

// Column is one column of a table.
type Column struct {
	Name string
	Type types.Type
	Kind ColumnKind
	// Position is the 0-based position within the partition key or the
	// clustering columns, and -1 for static and regular columns.
	Position int
	// Desc is true for a clustering column declared DESC.
	Desc bool
}

// Clone returns a copy of t to change before publishing it (its Indexes,
// Triggers or Dropped replaced, never modified in place: they are shared).
func (t *Table) Clone() *Table {
	nt := *t
	return &nt
}

// IndexTableName returns the name of the table holding the data of index
// index of table base: "base.index", as Cassandra names an index's table
// (TableMetadata.indexTableName). The dot keeps it apart from every table
// CQL can create.
func IndexTableName(base, index string) string { return base + "." + index }

// IsIndexTable reports whether t holds a secondary index's data (its name
// is an IndexTableName).
func (t *Table) IsIndexTable() bool { return strings.Contains(t.Name, ".") }

// OwnsTable reports whether table name is table base or one of its index
// tables: flushing or compacting a table covers its indexes.
func OwnsTable(base, name string) bool {
	return name == base || strings.HasPrefix(name, base+".")
}

// Trigger returns the trigger of t called name, if any.
func (t *Table) Trigger(name string) (Trigger, bool) {
	for _, tr := range t.Triggers {
		if tr.Name == name {
			return tr, true
		}
	}
	return Trigger{}, false
}

// IndexesOn returns the names of the indexes of t on column name.
func (t *Table) IndexesOn(name string) []string {
	var out []string
	for i := range t.Indexes {
		if t.Indexes[i].Column == name {
			out = append(out, t.Indexes[i].Name)
		}
	}
	return out
}

// ClusteringOrder returns "asc", "desc" or "none", as
// system_schema.columns.clustering_order spells it.
func (c *Column) ClusteringOrder() string {
	if c.Kind != Clustering {
		return "none"
	}
	if c.Desc {
		return "desc"
	}
	return "asc"
}

// Keyspace is a keyspace definition.
type Keyspace struct {
	Name string
	// Replication is the replication map, including its "class" entry,
	// with the class written in full (org.apache.cassandra.locator...).
	Replication   map[string]string
	DurableWrites bool
	// Types are the keyspace's user-defined types, in creation order:
	// each is a types.Type whose UDT is set (not frozen), and refers only
	// to types before it.
	Types []types.Type
	// Functions and Aggregates are the keyspace's user-defined functions
	// and aggregates, in creation order (a replaced one keeps its place).
	Functions  []*Function
	Aggregates []*Aggregate
}

// Type returns the user-defined type called name, if any.
func (ks *Keyspace) Type(name string) (types.Type, bool) {
	for _, t := range ks.Types {
		if t.UDT.Name == name {
			return t, true
		}
	}
	return types.Type{}, false
}

// Options are the table options minicass interprets, plus every other
// option kept verbatim so DESCRIBE can print it back.
type Options struct {
	// DefaultTTL is default_time_to_live in seconds (0: no expiry).
	DefaultTTL int32
	// GCGraceSeconds is gc_grace_seconds (default 864000).
	GCGraceSeconds int32
	// BloomFilterFPChance is bloom_filter_fp_chance (default 0.01).
	BloomFilterFPChance float64
	// Comment is the table comment.
	Comment string
	// Compaction is the compaction map, with its "class" entry written in
	// full (org.apache.cassandra.db.compaction...).
	Compaction map[string]string
	// Compression is the compression map (class, chunk_length_in_kb, ...),
	// or {"enabled": "false"} for no compression.
	Compression map[string]string
	// Extra holds the other options (caching, crc_check_chance,
	// speculative_retry, ...) as CQL literal text.
	Extra map[string]string
}

// DefaultGCGraceSeconds is Cassandra's default gc_grace_seconds (10 days).
const DefaultGCGraceSeconds = 864000

// DefaultOptions returns the options of a table created without WITH.
func DefaultOptions() Options {
	return Options{
		GCGraceSeconds:      DefaultGCGraceSeconds,
		BloomFilterFPChance: 0.01,
		Compaction: map[string]string{
			"class":         "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
			"max_threshold": "32",
			"min_threshold": "4",
		},
		Compression: map[string]string{
			"chunk_length_in_kb": "16",
			"class":              "org.apache.cassandra.io.compress.LZ4Compressor",
		},
	}
}

// DroppedColumn records a column removed by ALTER TABLE DROP, as
// system_schema.dropped_columns does: cells of that name written at or
// before DroppedAt (microseconds) are ignored by reads, even when a column
// of the same name is added again later.
type DroppedColumn struct {
	Type      types.Type
	DroppedAt int64
	// Static is set when the dropped column was static (its kind in
	// system_schema.dropped_columns).
	Static bool
}

// IndexTarget is what a secondary index covers of its column (Cassandra's
// IndexTarget.Type).
type IndexTarget uint8

// The index targets: a column's value, the values, keys or entries of a
// non-frozen collection, or a whole frozen collection.
const (
	IndexSimple IndexTarget = iota
	IndexValues
	IndexKeys
	IndexEntries
	IndexFull
)

// String returns the target as CQL names it: values, keys, entries or full
// (values for a simple target, as Cassandra prints it).
func (k IndexTarget) String() string {
	return [...]string{"values", "values", "keys", "entries", "full"}[k]
}

// Index is a secondary index of a table (system_schema.indexes): its
// definition. A built-in index (Class empty) keeps its data in the table
// IndexTableName(table, Name), maintained and read by package cql/index;
// a custom one (SASI, SAI) keeps none, and a query it serves scans the
// table and keeps the matching rows.
type Index struct {
	Name   string
	Column string
	Target IndexTarget
	// Class is the implementation of a CUSTOM index (USING 'class'),
	// empty for a built-in one.
	Class string
	// Options are the WITH OPTIONS of a custom index.
	Options map[string]string
}

// Kind returns the index kind of system_schema.indexes: CUSTOM or
// COMPOSITES.
func (ix *Index) Kind() string {
	if ix.Class != "" {
		return "CUSTOM"
	}
	return "COMPOSITES"
}

// Trigger is a trigger of a table (system_schema.triggers, Cassandra's
// TriggerMetadata): its name and the class it runs, which names a trigger
// the node registered (package cql/trigger). The class is kept as CREATE
// TRIGGER gave it, so a schema read back on a node that no longer registers
// the class still lists the trigger, as Cassandra's schema keeps a trigger
// whose jar left the triggers directory.
type Trigger struct {
	Name  string
	Class string
}

// Table is a table definition. Columns lists every column in the order of
// SELECT *: partition key columns in key order, clustering columns in order,
// then the static columns and then the regular ones, each group sorted by name
// in byte order (Cassandra's TableMetadata.allColumnsInSelectOrder, which
// concatenates the statics' and the regulars' selectOrderIterator).
type Table struct {
	Keyspace string
	Name     string
	ID       data.TableID
	Columns  []*Column
	Options  Options
	// Dropped lists the columns dropped from the table, by name. Set it
	// before the table is published; nil means none.
	Dropped map[string]DroppedColumn
	// Indexes are the table's secondary indexes. Set them before the
	// table is published; nil means none.
	Indexes []Index
	// Triggers are the table's triggers, in creation order (Cassandra's
	// Triggers keeps them so, and runs them in that order). Set them
	// before the table is published; nil means none.
	Triggers []Trigger
	// View is set when the table is a materialized view (see View).
	View *View
	// Compact is set for a COMPACT STORAGE table (see CompactStorage); nil
	// for a CQL table. Set it before the table is published.
	Compact *CompactStorage

	partitionKey []*Column
	clustering   []*Column
	byName       map[string]*Column
	clusterTypes []types.ClusteringColumn
}

// NewTable builds a table from its columns (in any order; positions and kinds
// must already be set) and options, and indexes it.
func NewTable(keyspace, name string, id data.TableID, cols []*Column, opts Options) *Table {
	t := &Table{Keyspace: keyspace, Name: name, ID: id, Options: opts, byName: make(map[string]*Column, len(cols))}
	var pk, ck, rest []*Column
	for _, c := range cols {
		switch c.Kind {
		case PartitionKey:
			pk = append(pk, c)
		case Clustering:
			ck = append(ck, c)
		default:
			rest = append(rest, c)
		}
		t.byName[c.Name] = c
	}
	sortByPosition(pk)
	sortByPosition(ck)
	sortStaticThenName(rest)
	t.partitionKey, t.clustering = pk, ck
	t.Columns = append(append(append(make([]*Column, 0, len(cols)), pk...), ck...), rest...)
	for _, c := range ck {
		order := types.Asc
		if c.Desc {
			order = types.Desc
		}
		t.clusterTypes = append(t.clusterTypes, types.ClusteringColumn{Type: c.Type, Order: order})
	}
	return t
}

func sortByPosition(cs []*Column) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Position < cs[j-1].Position; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// sortStaticThenName sorts static columns before regular ones, and each
// kind by name.
func sortStaticThenName(cs []*Column) {
	less := func(a, b *Column) bool {
		if (a.Kind == Static) != (b.Kind == Static) {
			return a.Kind == Static
		}
		return a.Name < b.Name
	}
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && less(cs[j], cs[j-1]); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// Column returns the column named name, or nil: the column CQL names, so a
// hidden column of a compact table (IsHidden) is nil too, as Cassandra's
// CompactTableMetadata.getExistingColumn refuses it. StoredColumn returns
// every column.
func (t *Table) Column(name string) *Column {
	c := t.byName[name]
	if t.Compact != nil && t.IsHidden(c) {
		return nil
	}
	return c
}

// PartitionKey returns the partition key columns in order.
func (t *Table) PartitionKey() []*Column { return t.partitionKey }

// ClusteringColumns returns the clustering columns in order.
func (t *Table) ClusteringColumns() []*Column { return t.clustering }

// ClusteringTypes returns the clustering columns' types and orders, as the
// byte-comparable key encoding of package types needs them.
func (t *Table) ClusteringTypes() []types.ClusteringColumn { return t.clusterTypes }

// HasStatic reports whether the table has a static column.
func (t *Table) HasStatic() bool {
	for _, c := range t.Columns {
		if c.Kind == Static {
			return true
		}
	}
	return false
}

// IsCounter reports whether the table's regular columns are counters.
func (t *Table) IsCounter() bool {
	for _, c := range t.Columns {
		if c.Kind == Regular && c.Type.Kind == types.Counter {
			return true
		}
	}
	return false
}

// DroppedAt returns the time (microseconds) column was last dropped, and
// whether it ever was.
func (t *Table) DroppedAt(column string) (int64, bool) {
	d, ok := t.Dropped[column]
	return d.DroppedAt, ok
}

// QualifiedName returns "keyspace.table".
func (t *Table) QualifiedName() string { return t.Keyspace + "." + t.Name }

// ChangeAffectsPreparedStatements reports whether a table changed from
// before to after in a way that invalidates the statements prepared against
// it, as Cassandra's TableMetadata.changeAffectsPreparedStatements: a
// column added, dropped, renamed or retyped (partition key, clustering,
// static or regular), a clustering order, an index, default_time_to_live or
// gc_grace_seconds. A table dropped and created again under the same name
// has a new ID, which counts as a change too.
func ChangeAffectsPreparedStatements(before, after *Table) bool {
	if before == after {
		return false
	}
	if before.ID != after.ID || (before.View == nil) != (after.View == nil) || (before.Compact == nil) != (after.Compact == nil) || len(before.Columns) != len(after.Columns) || len(before.Indexes) != len(after.Indexes) ||
		before.Options.DefaultTTL != after.Options.DefaultTTL || before.Options.GCGraceSeconds != after.Options.GCGraceSeconds {
		return true
	}
	for i, c := range before.Columns {
		d := after.Columns[i]
		if c.Name != d.Name || c.Kind != d.Kind || c.Position != d.Position || c.Desc != d.Desc || !c.Type.Equal(d.Type) {
			return true
		}
	}
	for i := range before.Indexes {
		a, b := &before.Indexes[i], &after.Indexes[i]
		if a.Name != b.Name || a.Column != b.Column || a.Target != b.Target || a.Class != b.Class || !maps.Equal(a.Options, b.Options) {
			return true
		}
	}
	return false
}
