package schema

import "github.com/minicass/minicass/types"

// TableFlags are a table's flags as system_schema.tables.flags lists them
// (Cassandra's TableMetadata.Flag): a CQL table is compound (and counter when
// its columns are counters); a COMPACT STORAGE table is dense when it was
// declared with clustering columns, compound when it was declared with more
// than one, and neither when it is a static compact table.
type TableFlags uint8

// The flags of TableMetadata.Flag. FlagSuper (a Thrift super column family)
// is never set by CQL; it is listed for completeness.
const (
	FlagSuper TableFlags = 1 << iota
	FlagCounter
	FlagDense
	FlagCompound
)

// Names returns the flags as system_schema.tables.flags spells them, in the
// order of Cassandra's Flag enum (super, counter, dense, compound).
func (f TableFlags) Names() []string {
	out := []string{}
	for _, x := range []struct {
		flag TableFlags
		name string
	}{{FlagSuper, "super"}, {FlagCounter, "counter"}, {FlagDense, "dense"}, {FlagCompound, "compound"}} {
		if f&x.flag != 0 {
			out = append(out, x.name)
		}
	}
	return out
}

// CompactStorage describes the layout of a table created WITH COMPACT
// STORAGE (Table.Compact; nil for a CQL table). Cassandra 4.1 builds such a
// table in CreateTableStatement.fixupCompactTable:
//
//   - a dense table (declared with clustering columns) has at most one
//     declared column outside the primary key, its compact value column; when
//     none was declared, a hidden regular column "value" of type EmptyType is
//     added, whose empty cell is what makes a row exist;
//   - a static compact table (declared without clustering columns) keeps its
//     declared columns as static columns and gets a hidden clustering column
//     "column1" (text) and a hidden regular column "value" (blob, or counter
//     for a counter table): each partition is one CQL row, its static row.
//
// The hidden columns are real columns of the table (system_schema.columns
// lists them) that CQL cannot name (TableMetadata.CompactTableMetadata's
// isHiddenColumn): Table.Column does not return them and SELECT * leaves them
// out. ALTER TABLE ... DROP COMPACT STORAGE clears Table.Compact, which makes
// them visible. No row of a compact table carries primary-key liveness (a row
// marker): a row exists only through its cells.
type CompactStorage struct {
	// Dense is set when the table was declared with clustering columns.
	Dense bool `json:"dense"`
}

// EmptyType is Cassandra's EmptyType, the type of the hidden compact value
// column of a dense table declared without a column outside its primary
// key: only the empty value is valid.
var EmptyType = types.Type{Kind: types.Blob, Custom: "org.apache.cassandra.db.marshal.EmptyType"}

// The default names of the columns a compact table adds (DefaultNames): the
// first of column1, column2, ... and of value, value1, ... that no column
// uses.
const (
	DefaultClusteringName   = "column"
	DefaultCompactValueName = "value"
)

// IsCompact reports whether t is a COMPACT STORAGE table
// (TableMetadata.isCompactTable).
func (t *Table) IsCompact() bool { return t.Compact != nil }

// IsStaticCompact reports whether t is a static compact table: COMPACT
// STORAGE without declared clustering columns (isStaticCompactTable).
func (t *Table) IsStaticCompact() bool { return t.Compact != nil && !t.Compact.Dense }

// Flags returns t's flags (system_schema.tables.flags).
func (t *Table) Flags() TableFlags {
	var f TableFlags
	if t.IsCounter() {
		f |= FlagCounter
	}
	if t.Compact == nil {
		return f | FlagCompound
	}
	if t.Compact.Dense {
		f |= FlagDense
	}
	if len(t.clustering) > 1 {
		f |= FlagCompound
	}
	return f
}

// CompactValueColumn returns the compact value column of a compact table
// (its single regular column), or nil for a CQL table.
func (t *Table) CompactValueColumn() *Column {
	if t.Compact == nil {
		return nil
	}
	for _, c := range t.Columns {
		if c.Kind == Regular {
			return c
		}
	}
	return nil
}

// HasEmptyCompactValue reports whether t is a dense compact table declared
// without a column outside its primary key, whose compact value column is
// the hidden EmptyType "value" (hasEmptyCompactValue).
func (t *Table) HasEmptyCompactValue() bool {
	v := t.CompactValueColumn()
	return v != nil && v.Type.Equal(EmptyType)
}

// IsHidden reports whether c is a hidden column of compact table t, one CQL
// cannot name: the EmptyType value column of a dense table, and the
// clustering and value columns of a static compact table.
func (t *Table) IsHidden(c *Column) bool {
	if t.Compact == nil || c == nil {
		return false
	}
	if t.Compact.Dense {
		return c.Kind == Regular && c.Type.Equal(EmptyType)
	}
	return c.Kind == Clustering || c.Kind == Regular
}

// StoredColumn returns the column named name, hidden or not, or nil: the
// engine's view of the table. CQL names columns through Column.
func (t *Table) StoredColumn(name string) *Column { return t.byName[name] }

// VisibleColumns returns the columns of SELECT *, in order: every column
// but the hidden ones (Columns itself for a CQL table).
func (t *Table) VisibleColumns() []*Column {
	if t.Compact == nil {
		return t.Columns
	}
	out := make([]*Column, 0, len(t.Columns))
	for _, c := range t.Columns {
		if !t.IsHidden(c) {
			out = append(out, c)
		}
	}
	return out
}

// VisibleClusteringColumns returns the clustering columns CQL sees: none for
// a static compact table, ClusteringColumns otherwise.
func (t *Table) VisibleClusteringColumns() []*Column {
	if t.IsStaticCompact() {
		return nil
	}
	return t.clustering
}

// TypeName returns t as Cassandra prints a column's type in
// system_schema.columns and DESCRIBE (AbstractType.asCQL3Type): "empty" for
// EmptyType (CQL3Type.Native.EMPTY), t.String() for every other type.
func TypeName(t types.Type) string {
	if t.Equal(EmptyType) {
		return "empty"
	}
	return t.String()
}
