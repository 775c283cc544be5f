package parser

import (
	"strconv"
	"strings"
)

// ---- Keyspaces ----

// CreateKeyspace is CREATE KEYSPACE [IF NOT EXISTS] ks WITH replication = {...}
// [AND durable_writes = bool].
type CreateKeyspace struct {
	Binds
	IfNotExists bool
	Name        Ident
	Options     []Property
}

// Format writes the statement's canonical CQL.
func (s *CreateKeyspace) Format(buf *strings.Builder) {
	buf.WriteString("CREATE KEYSPACE ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	formatProperties(buf, s.Options, true)
}

// AlterKeyspace is ALTER KEYSPACE [IF EXISTS] ks WITH options.
type AlterKeyspace struct {
	Binds
	IfExists bool
	Name     Ident
	Options  []Property
}

// Format writes the statement's canonical CQL.
func (s *AlterKeyspace) Format(buf *strings.Builder) {
	buf.WriteString("ALTER KEYSPACE ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
	formatProperties(buf, s.Options, true)
}

// DropKeyspace is DROP KEYSPACE [IF EXISTS] ks.
type DropKeyspace struct {
	Binds
	IfExists bool
	Name     Ident
}

// Format writes the statement's canonical CQL.
func (s *DropKeyspace) Format(buf *strings.Builder) {
	buf.WriteString("DROP KEYSPACE ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
}

// Use is USE ks.
type Use struct {
	Binds
	Keyspace Ident
}

// Format writes the statement's canonical CQL.
func (s *Use) Format(buf *strings.Builder) {
	buf.WriteString("USE ")
	s.Keyspace.Format(buf)
}

// ---- Tables ----

// ColumnDef is one column definition of CREATE TABLE or ALTER TABLE ADD.
type ColumnDef struct {
	Name   Ident
	Type   *Type
	Static bool
	// PrimaryKey is set by an inline "col type PRIMARY KEY".
	PrimaryKey bool
}

func (c *ColumnDef) format(buf *strings.Builder) {
	c.Name.Format(buf)
	buf.WriteByte(' ')
	c.Type.Format(buf)
	if c.Static {
		buf.WriteString(" STATIC")
	}
	if c.PrimaryKey {
		buf.WriteString(" PRIMARY KEY")
	}
}

// PrimaryKey is the PRIMARY KEY (...) clause of CREATE TABLE.
type PrimaryKey struct {
	PartitionKey []Ident
	Clustering   []Ident
}

// CreateTable is CREATE TABLE [IF NOT EXISTS] [ks.]t (columns, PRIMARY KEY
// (...)) [WITH ...]. Key is nil when the key is declared inline on a column.
type CreateTable struct {
	Binds
	IfNotExists bool
	Table       TableName
	Columns     []*ColumnDef
	Key         *PrimaryKey
	TableWith
}

// TableWith is the WITH clause of CREATE TABLE and CREATE MATERIALIZED
// VIEW: CLUSTERING ORDER BY, COMPACT STORAGE and options.
type TableWith struct {
	ClusteringOrder []Ordering
	CompactStorage  bool
	Options         []Property
}

// format writes " WITH ..." (nothing when the clause is empty): CLUSTERING
// ORDER BY, then COMPACT STORAGE, then the options in order.
func (w *TableWith) format(buf *strings.Builder) {
	first := true
	with := func() {
		if first {
			buf.WriteString(" WITH ")
			first = false
		} else {
			buf.WriteString(" AND ")
		}
	}
	if len(w.ClusteringOrder) > 0 {
		with()
		buf.WriteString("CLUSTERING ORDER BY (")
		formatOrderings(buf, w.ClusteringOrder)
		buf.WriteByte(')')
	}
	if w.CompactStorage {
		with()
		buf.WriteString("COMPACT STORAGE")
	}
	formatProperties(buf, w.Options, first)
}

// format writes "PRIMARY KEY (...)".
func (k *PrimaryKey) format(buf *strings.Builder) {
	buf.WriteString("PRIMARY KEY (")
	if len(k.PartitionKey) == 1 {
		k.PartitionKey[0].Format(buf)
	} else {
		formatIdentList(buf, k.PartitionKey)
	}
	for _, c := range k.Clustering {
		buf.WriteString(", ")
		c.Format(buf)
	}
	buf.WriteByte(')')
}

// Format writes the statement's canonical CQL.
func (s *CreateTable) Format(buf *strings.Builder) {
	buf.WriteString("CREATE TABLE ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Table.Format(buf)
	buf.WriteString(" (")
	for i, c := range s.Columns {
		if i > 0 {
			buf.WriteString(", ")
		}
		c.format(buf)
	}
	if s.Key != nil {
		if len(s.Columns) > 0 {
			buf.WriteString(", ")
		}
		s.Key.format(buf)
	}
	buf.WriteByte(')')
	s.TableWith.format(buf)
}

// AlterTableKind says what an ALTER TABLE does.
type AlterTableKind uint8

// The ALTER TABLE forms.
const (
	AlterAdd AlterTableKind = iota + 1
	AlterDrop
	AlterRename
	AlterOptions
	AlterType
	// AlterDropCompactStorage is DROP COMPACT STORAGE.
	AlterDropCompactStorage
)

// Rename is one "from TO to" pair of ALTER TABLE RENAME.
type Rename struct{ From, To Ident }

// AlterTable is ALTER TABLE [IF EXISTS] t followed by ADD columns, DROP
// columns, RENAME a TO b [AND ...], WITH options, ALTER c TYPE t or DROP
// COMPACT STORAGE. The
// fields used depend on Kind.
type AlterTable struct {
	Binds
	IfExists bool
	Table    TableName
	Kind     AlterTableKind
	// Add holds the columns of AlterAdd; AlterType uses Add[0].
	Add []*ColumnDef
	// Drop holds the columns of AlterDrop.
	Drop []Ident
	// DropTimestamp is the USING TIMESTAMP of AlterDrop, nil when absent.
	DropTimestamp *int64
	// Renames holds the pairs of AlterRename.
	Renames []Rename
	// Options holds the options of AlterOptions.
	Options []Property
	// IfColumn is ADD IF NOT EXISTS, DROP IF EXISTS or RENAME IF EXISTS
	// (CASSANDRA-16916): a column that is already there, or not, is
	// skipped instead of refused.
	IfColumn bool
}

// Format writes the statement's canonical CQL.
func (s *AlterTable) Format(buf *strings.Builder) {
	buf.WriteString("ALTER TABLE ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Table.Format(buf)
	switch s.Kind {
	case AlterAdd:
		buf.WriteString(" ADD ")
		if s.IfColumn {
			buf.WriteString("IF NOT EXISTS ")
		}
		if len(s.Add) > 1 {
			buf.WriteByte('(')
		}
		for i, c := range s.Add {
			if i > 0 {
				buf.WriteString(", ")
			}
			c.format(buf)
		}
		if len(s.Add) > 1 {
			buf.WriteByte(')')
		}
	case AlterDrop:
		buf.WriteString(" DROP ")
		if s.IfColumn {
			buf.WriteString("IF EXISTS ")
		}
		if len(s.Drop) == 1 {
			s.Drop[0].Format(buf)
		} else {
			formatIdentList(buf, s.Drop)
		}
		if s.DropTimestamp != nil {
			buf.WriteString(" USING TIMESTAMP ")
			buf.WriteString(strconv.FormatInt(*s.DropTimestamp, 10))
		}
	case AlterRename:
		formatRenamesIf(buf, s.Renames, s.IfColumn)
	case AlterOptions:
		formatProperties(buf, s.Options, true)
	case AlterDropCompactStorage:
		buf.WriteString(" DROP COMPACT STORAGE")
	case AlterType:
		if len(s.Add) == 1 {
			buf.WriteString(" ALTER ")
			s.Add[0].Name.Format(buf)
			buf.WriteString(" TYPE ")
			s.Add[0].Type.Format(buf)
		}
	}
}

// DropTable is DROP TABLE [IF EXISTS] t.
type DropTable struct {
	Binds
	IfExists bool
	Table    TableName
}

// Format writes the statement's canonical CQL.
func (s *DropTable) Format(buf *strings.Builder) {
	buf.WriteString("DROP TABLE ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Table.Format(buf)
}

// CreateType is CREATE TYPE [IF NOT EXISTS] name (field type, ...).
type CreateType struct {
	Binds
	IfNotExists bool
	Name        TableName // the keyspace and the type name
	Fields      []*ColumnDef
}

// Format writes the statement's canonical CQL.
func (s *CreateType) Format(buf *strings.Builder) {
	buf.WriteString("CREATE TYPE ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	buf.WriteString(" (")
	for i, f := range s.Fields {
		if i > 0 {
			buf.WriteString(", ")
		}
		f.format(buf)
	}
	buf.WriteByte(')')
}

// formatRenames writes " RENAME a TO b AND c TO d".
func formatRenames(buf *strings.Builder, renames []Rename) { formatRenamesIf(buf, renames, false) }

// formatRenamesIf is formatRenames with ALTER TABLE's RENAME IF EXISTS.
func formatRenamesIf(buf *strings.Builder, renames []Rename, ifExists bool) {
	buf.WriteString(" RENAME ")
	if ifExists {
		buf.WriteString("IF EXISTS ")
	}
	for i, r := range renames {
		if i > 0 {
			buf.WriteString(" AND ")
		}
		r.From.Format(buf)
		buf.WriteString(" TO ")
		r.To.Format(buf)
	}
}

// AlterUserType is ALTER TYPE [IF EXISTS] name ADD field type, RENAME f TO
// g [AND ...] or ALTER field TYPE type (Kind AlterAdd, AlterRename or
// AlterType).
type AlterUserType struct {
	Binds
	IfExists bool
	Name     TableName
	Kind     AlterTableKind
	Add      *ColumnDef // the field of ADD and ALTER
	Renames  []Rename
}

// Format writes the statement's canonical CQL.
func (s *AlterUserType) Format(buf *strings.Builder) {
	buf.WriteString("ALTER TYPE ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
	switch s.Kind {
	case AlterAdd:
		buf.WriteString(" ADD ")
		s.Add.format(buf)
	case AlterType:
		buf.WriteString(" ALTER ")
		s.Add.Name.Format(buf)
		buf.WriteString(" TYPE ")
		s.Add.Type.Format(buf)
	case AlterRename:
		formatRenames(buf, s.Renames)
	}
}

// DropType is DROP TYPE [IF EXISTS] name.
type DropType struct {
	Binds
	IfExists bool
	Name     TableName
}

// Format writes the statement's canonical CQL.
func (s *DropType) Format(buf *strings.Builder) {
	buf.WriteString("DROP TYPE ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
}

// IndexTargetKind is what an index covers of its column.
type IndexTargetKind uint8

// The index targets: a column (IndexSimple), or the values, keys or entries
// of a collection, or all of a frozen collection.
const (
	IndexSimple IndexTargetKind = iota
	IndexValues
	IndexKeys
	IndexEntries
	IndexFull
)

// String returns the target's function name in CQL (values, keys, entries,
// full; "" for a plain column).
func (k IndexTargetKind) String() string {
	return [...]string{"", "values", "keys", "entries", "full"}[k]
}

// IndexTarget is the (target) of CREATE INDEX.
type IndexTarget struct {
	// Column is the indexed column, empty for an index without a target
	// (ON t ()).
	Column Ident
	Kind   IndexTargetKind
}

// Format writes the target as CQL (nothing for no target).
func (t IndexTarget) Format(buf *strings.Builder) {
	if t.Column == "" {
		return
	}
	if t.Kind == IndexSimple {
		t.Column.Format(buf)
		return
	}
	buf.WriteString(strings.ToUpper(t.Kind.String()))
	buf.WriteByte('(')
	t.Column.Format(buf)
	buf.WriteByte(')')
}

// CreateIndex is CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON t (target)
// [USING 'class' [WITH OPTIONS = {...}]].
type CreateIndex struct {
	Binds
	Custom      bool
	IfNotExists bool
	Name        Ident // empty when not given
	Table       TableName
	Target      IndexTarget
	Using       string // the class of a CUSTOM index
	Options     Expr   // the WITH OPTIONS map literal, or nil
}

// Format writes the statement's canonical CQL.
func (s *CreateIndex) Format(buf *strings.Builder) {
	buf.WriteString("CREATE ")
	if s.Custom {
		buf.WriteString("CUSTOM ")
	}
	buf.WriteString("INDEX ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	if s.Name != "" {
		s.Name.Format(buf)
		buf.WriteByte(' ')
	}
	buf.WriteString("ON ")
	s.Table.Format(buf)
	buf.WriteString(" (")
	s.Target.Format(buf)
	buf.WriteByte(')')
	if s.Using != "" {
		buf.WriteString(" USING ")
		formatString(buf, s.Using)
		if s.Options != nil {
			buf.WriteString(" WITH OPTIONS = ")
			s.Options.Format(buf)
		}
	}
}

// DropIndex is DROP INDEX [IF EXISTS] [keyspace.]name.
type DropIndex struct {
	Binds
	IfExists bool
	Name     TableName // the keyspace and the index name
}

// Format writes the statement's canonical CQL.
func (s *DropIndex) Format(buf *strings.Builder) {
	buf.WriteString("DROP INDEX ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
}

// Truncate is TRUNCATE [TABLE] t.
type Truncate struct {
	Binds
	Table TableName
}

// Format writes the statement's canonical CQL.
func (s *Truncate) Format(buf *strings.Builder) {
	buf.WriteString("TRUNCATE TABLE ")
	s.Table.Format(buf)
}

// ---- Data manipulation ----

// JSONDefault is the DEFAULT clause of INSERT ... JSON.
type JSONDefault uint8

// The INSERT JSON defaults; JSONDefaultNone means no clause (Cassandra then
// behaves as DEFAULT NULL).
const (
	JSONDefaultNone JSONDefault = iota
	JSONDefaultNull
	JSONDefaultUnset
)

// Insert is INSERT INTO t (cols) VALUES (terms) or INSERT INTO t JSON value
// [DEFAULT NULL|UNSET], with optional IF NOT EXISTS and USING.
type Insert struct {
	Binds
	Table   TableName
	Columns []Ident
	Values  []Expr
	// JSON is the JSON value (a string constant or bind marker) of an INSERT
	// JSON; Columns and Values are then empty.
	JSON        Expr
	JSONDefault JSONDefault
	Conditions
	Using
}

// Format writes the statement's canonical CQL.
func (s *Insert) Format(buf *strings.Builder) {
	buf.WriteString("INSERT INTO ")
	s.Table.Format(buf)
	if s.JSON != nil {
		buf.WriteString(" JSON ")
		s.JSON.Format(buf)
		switch s.JSONDefault {
		case JSONDefaultNull:
			buf.WriteString(" DEFAULT NULL")
		case JSONDefaultUnset:
			buf.WriteString(" DEFAULT UNSET")
		}
	} else {
		buf.WriteByte(' ')
		formatIdentList(buf, s.Columns)
		buf.WriteString(" VALUES ")
		formatExprs(buf, '(', ')', s.Values)
	}
	s.Conditions.format(buf)
	s.Using.format(buf)
}

// AssignOp is the form of an UPDATE assignment.
type AssignOp uint8

// The assignment forms.
const (
	// AssignSet is c = v.
	AssignSet AssignOp = iota + 1
	// AssignAdd is c = c + v (also c += v; also c = c -1 with a negative literal).
	AssignAdd
	// AssignSub is c = c - v (also c -= v).
	AssignSub
	// AssignPrepend is c = v + c (list prepend).
	AssignPrepend
	// AssignSetElem is c[k] = v.
	AssignSetElem
	// AssignSetField is c.field = v.
	AssignSetField
)

// Assignment is one SET clause item of UPDATE.
type Assignment struct {
	Column Ident
	Op     AssignOp
	// Key is the element key or index of AssignSetElem.
	Key Expr
	// Field is the field name of AssignSetField.
	Field Ident
	Value Expr
}

// Format writes the assignment.
func (a *Assignment) Format(buf *strings.Builder) {
	a.Column.Format(buf)
	switch a.Op {
	case AssignSetElem:
		buf.WriteByte('[')
		a.Key.Format(buf)
		buf.WriteByte(']')
	case AssignSetField:
		buf.WriteByte('.')
		a.Field.Format(buf)
	}
	buf.WriteString(" = ")
	switch a.Op {
	case AssignAdd, AssignSub:
		a.Column.Format(buf)
		if a.Op == AssignAdd {
			buf.WriteString(" + ")
		} else {
			buf.WriteString(" - ")
		}
		a.Value.Format(buf)
	case AssignPrepend:
		a.Value.Format(buf)
		buf.WriteString(" + ")
		a.Column.Format(buf)
	default:
		a.Value.Format(buf)
	}
}

// String returns the assignment's CQL text.
func (a *Assignment) String() string { return nodeString(a) }

// Update is UPDATE t [USING ...] SET assignments WHERE relations [IF ...].
type Update struct {
	Binds
	Table TableName
	Using
	Set   []*Assignment
	Where []Relation
	Conditions
}

// Format writes the statement's canonical CQL.
func (s *Update) Format(buf *strings.Builder) {
	buf.WriteString("UPDATE ")
	s.Table.Format(buf)
	s.Using.format(buf)
	buf.WriteString(" SET ")
	for i, a := range s.Set {
		if i > 0 {
			buf.WriteString(", ")
		}
		a.Format(buf)
	}
	formatWhere(buf, s.Where)
	s.Conditions.format(buf)
}

// DeleteColumn is one selection of DELETE: col, col[key] or col.field.
type DeleteColumn struct {
	Column Ident
	Key    Expr
	Field  Ident
}

// Delete is DELETE [cols] FROM t [USING TIMESTAMP ts] WHERE relations [IF ...].
type Delete struct {
	Binds
	Columns []DeleteColumn
	Table   TableName
	Using
	Where []Relation
	Conditions
}

// Format writes the statement's canonical CQL.
func (s *Delete) Format(buf *strings.Builder) {
	buf.WriteString("DELETE ")
	for i, c := range s.Columns {
		if i > 0 {
			buf.WriteString(", ")
		}
		c.Column.Format(buf)
		if c.Key != nil {
			buf.WriteByte('[')
			c.Key.Format(buf)
			buf.WriteByte(']')
		}
		if c.Field != "" {
			buf.WriteByte('.')
			c.Field.Format(buf)
		}
	}
	if len(s.Columns) > 0 {
		buf.WriteByte(' ')
	}
	buf.WriteString("FROM ")
	s.Table.Format(buf)
	s.Using.format(buf)
	formatWhere(buf, s.Where)
	s.Conditions.format(buf)
}

// BatchType is the kind of a BATCH.
type BatchType uint8

// The batch types.
const (
	BatchLogged BatchType = iota + 1
	BatchUnlogged
	BatchCounter
)

// Batch is BEGIN [UNLOGGED|COUNTER] BATCH [USING TIMESTAMP ts] stmts APPLY BATCH.
// Statements holds *Insert, *Update and *Delete; bind markers are numbered
// across the whole batch, and the Batch's Binds lists all of them.
type Batch struct {
	Binds
	Type BatchType
	Using
	Statements []Statement
}

// Format writes the statement's canonical CQL on one line.
func (s *Batch) Format(buf *strings.Builder) {
	buf.WriteString("BEGIN ")
	switch s.Type {
	case BatchUnlogged:
		buf.WriteString("UNLOGGED ")
	case BatchCounter:
		buf.WriteString("COUNTER ")
	}
	buf.WriteString("BATCH")
	s.Using.format(buf)
	for _, st := range s.Statements {
		buf.WriteByte(' ')
		st.Format(buf)
		buf.WriteByte(';')
	}
	buf.WriteString(" APPLY BATCH")
}

// SelectExpr is one selector with its optional alias.
type SelectExpr struct {
	Expr  Expr
	Alias Ident
}

// Select is SELECT [JSON] [DISTINCT] selectors FROM t [WHERE ...] [GROUP BY
// ...] [ORDER BY ...] [PER PARTITION LIMIT n] [LIMIT n] [ALLOW FILTERING].
// Exprs is empty for SELECT *.
type Select struct {
	Binds
	Distinct bool
	JSON     bool
	Exprs    []*SelectExpr
	Table    TableName
	Where    []Relation
	// GroupBy holds the GROUP BY elements: column references, or (the
	// last one) a call of a monotonic function such as floor(ck, 5m)
	// (Parser.g's groupByClause reads unaliased selectors).
	GroupBy           []Expr
	OrderBy           []Ordering
	PerPartitionLimit Expr
	Limit             Expr
	AllowFiltering    bool
}

// Format writes the statement's canonical CQL.
func (s *Select) Format(buf *strings.Builder) {
	buf.WriteString("SELECT ")
	if s.JSON {
		buf.WriteString("JSON ")
	}
	if s.Distinct {
		buf.WriteString("DISTINCT ")
	}
	if len(s.Exprs) == 0 {
		buf.WriteByte('*')
	}
	for i, e := range s.Exprs {
		if i > 0 {
			buf.WriteString(", ")
		}
		if c, ok := e.Expr.(*ColumnRef); ok && i == 0 {
			// A leading column named like a keyword (json, distinct, ...)
			// is quoted so it cannot be read as a modifier.
			c.Name.formatStrict(buf)
		} else {
			e.Expr.Format(buf)
		}
		if e.Alias != "" {
			buf.WriteString(" AS ")
			e.Alias.Format(buf)
		}
	}
	buf.WriteString(" FROM ")
	s.Table.Format(buf)
	formatWhere(buf, s.Where)
	if len(s.GroupBy) > 0 {
		buf.WriteString(" GROUP BY ")
		for i, g := range s.GroupBy {
			if i > 0 {
				buf.WriteString(", ")
			}
			g.Format(buf)
		}
	}
	if len(s.OrderBy) > 0 {
		buf.WriteString(" ORDER BY ")
		formatOrderings(buf, s.OrderBy)
	}
	if s.PerPartitionLimit != nil {
		buf.WriteString(" PER PARTITION LIMIT ")
		s.PerPartitionLimit.Format(buf)
	}
	if s.Limit != nil {
		buf.WriteString(" LIMIT ")
		s.Limit.Format(buf)
	}
	if s.AllowFiltering {
		buf.WriteString(" ALLOW FILTERING")
	}
}

// DescribeKind says what a DESCRIBE statement describes.
type DescribeKind uint8

// The DESCRIBE forms (Cassandra 4.0 server-side DESCRIBE).
const (
	DescribeCluster DescribeKind = iota + 1
	DescribeSchema
	DescribeKeyspaces
	DescribeKeyspace
	DescribeTables
	DescribeTable
	DescribeIndex
	DescribeView
	DescribeTypes
	DescribeType
	DescribeFunctions
	DescribeAggregates
	// DescribeName is DESCRIBE name: a keyspace, or a table (or other
	// object) in the current keyspace or ks.name.
	DescribeName
	// DescribeFunction and DescribeAggregate are DESCRIBE FUNCTION f and
	// DESCRIBE AGGREGATE a: every overload of that name.
	DescribeFunction
	DescribeAggregate
)

// Describe is DESCRIBE (or DESC) with one of the DescribeKind forms.
type Describe struct {
	Binds
	Kind DescribeKind
	// Full is set by DESCRIBE FULL SCHEMA.
	Full bool
	// Only is set by DESCRIBE ONLY KEYSPACE.
	Only bool
	// Keyspace is the optional name of DESCRIBE KEYSPACE.
	Keyspace Ident
	// Name is the object of TABLE, INDEX, MATERIALIZED VIEW, TYPE, FUNCTION,
	// AGGREGATE and DescribeName.
	Name TableName
	// WithInternals is set by a trailing WITH INTERNALS.
	WithInternals bool
}

// Format writes the statement's canonical CQL.
func (s *Describe) Format(buf *strings.Builder) {
	buf.WriteString("DESCRIBE ")
	switch s.Kind {
	case DescribeCluster:
		buf.WriteString("CLUSTER")
	case DescribeSchema:
		if s.Full {
			buf.WriteString("FULL ")
		}
		buf.WriteString("SCHEMA")
	case DescribeKeyspaces:
		buf.WriteString("KEYSPACES")
	case DescribeKeyspace:
		if s.Only {
			buf.WriteString("ONLY ")
		}
		buf.WriteString("KEYSPACE")
		if s.Keyspace != "" {
			buf.WriteByte(' ')
			s.Keyspace.Format(buf)
		}
	case DescribeTables:
		buf.WriteString("TABLES")
	case DescribeTable:
		buf.WriteString("TABLE ")
		s.Name.Format(buf)
	case DescribeIndex:
		buf.WriteString("INDEX ")
		s.Name.Format(buf)
	case DescribeView:
		buf.WriteString("MATERIALIZED VIEW ")
		s.Name.Format(buf)
	case DescribeTypes:
		buf.WriteString("TYPES")
	case DescribeType:
		buf.WriteString("TYPE ")
		s.Name.Format(buf)
	case DescribeFunctions:
		buf.WriteString("FUNCTIONS")
	case DescribeAggregates:
		buf.WriteString("AGGREGATES")
	case DescribeFunction:
		buf.WriteString("FUNCTION ")
		s.Name.Format(buf)
	case DescribeAggregate:
		buf.WriteString("AGGREGATE ")
		s.Name.Format(buf)
	case DescribeName:
		if s.Name.Keyspace != "" {
			s.Name.Keyspace.formatStrict(buf)
			buf.WriteByte('.')
			s.Name.Name.Format(buf)
		} else {
			s.Name.Name.formatStrict(buf)
		}
	}
	if s.WithInternals {
		buf.WriteString(" WITH INTERNALS")
	}
}

// String methods and the closed statement set.

// String returns the statement's canonical CQL.
func (s *CreateKeyspace) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *AlterKeyspace) String() string { return nodeString(s) }

// CreateView is CREATE MATERIALIZED VIEW [IF NOT EXISTS] v AS SELECT
// selectors FROM t [WHERE relations] PRIMARY KEY (...) [WITH ...]. Select
// holds the selectors, the base table and the WHERE clause.
type CreateView struct {
	Binds
	IfNotExists bool
	Name        TableName
	Select      *Select
	Key         *PrimaryKey
	TableWith
}

// Format writes the statement's canonical CQL.
func (s *CreateView) Format(buf *strings.Builder) {
	buf.WriteString("CREATE MATERIALIZED VIEW ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	buf.WriteString(" AS ")
	s.Select.Format(buf)
	buf.WriteByte(' ')
	s.Key.format(buf)
	s.TableWith.format(buf)
}

// AlterView is ALTER MATERIALIZED VIEW [IF EXISTS] v WITH options.
type AlterView struct {
	Binds
	IfExists bool
	Name     TableName
	Options  []Property
}

// Format writes the statement's canonical CQL.
func (s *AlterView) Format(buf *strings.Builder) {
	buf.WriteString("ALTER MATERIALIZED VIEW ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
	formatProperties(buf, s.Options, true)
}

// DropView is DROP MATERIALIZED VIEW [IF EXISTS] v.
type DropView struct {
	Binds
	IfExists bool
	Name     TableName
}

// Format writes the statement's canonical CQL.
func (s *DropView) Format(buf *strings.Builder) {
	buf.WriteString("DROP MATERIALIZED VIEW ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
}

// CreateFunction is CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] f (arg
// type, ...) (CALLED | RETURNS NULL) ON NULL INPUT RETURNS type LANGUAGE l
// AS 'body'.
type CreateFunction struct {
	Binds
	OrReplace, IfNotExists bool
	Name                   TableName // the keyspace and the function name
	Args                   []*ColumnDef
	CalledOnNullInput      bool
	Returns                *Type
	Language               Ident
	Body                   string
}

// Format writes the statement's canonical CQL.
func (s *CreateFunction) Format(buf *strings.Builder) {
	buf.WriteString("CREATE ")
	if s.OrReplace {
		buf.WriteString("OR REPLACE ")
	}
	buf.WriteString("FUNCTION ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	buf.WriteString(" (")
	for i, a := range s.Args {
		if i > 0 {
			buf.WriteString(", ")
		}
		a.format(buf)
	}
	if s.CalledOnNullInput {
		buf.WriteString(") CALLED ON NULL INPUT RETURNS ")
	} else {
		buf.WriteString(") RETURNS NULL ON NULL INPUT RETURNS ")
	}
	s.Returns.Format(buf)
	buf.WriteString(" LANGUAGE ")
	s.Language.Format(buf)
	buf.WriteString(" AS ")
	formatString(buf, s.Body)
}

// CreateAggregate is CREATE [OR REPLACE] AGGREGATE [IF NOT EXISTS] a
// (type, ...) SFUNC f STYPE type [FINALFUNC g] [INITCOND term].
type CreateAggregate struct {
	Binds
	OrReplace, IfNotExists bool
	Name                   TableName
	ArgTypes               []*Type
	SFunc                  Ident
	SType                  *Type
	FinalFunc              Ident // empty when absent
	InitCond               Expr  // nil when absent
}

// Format writes the statement's canonical CQL.
func (s *CreateAggregate) Format(buf *strings.Builder) {
	buf.WriteString("CREATE ")
	if s.OrReplace {
		buf.WriteString("OR REPLACE ")
	}
	buf.WriteString("AGGREGATE ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	formatTypeList(buf, s.ArgTypes)
	buf.WriteString(" SFUNC ")
	s.SFunc.Format(buf)
	buf.WriteString(" STYPE ")
	s.SType.Format(buf)
	if s.FinalFunc != "" {
		buf.WriteString(" FINALFUNC ")
		s.FinalFunc.Format(buf)
	}
	if s.InitCond != nil {
		buf.WriteString(" INITCOND ")
		s.InitCond.Format(buf)
	}
}

// formatTypeList writes " (t1, t2)".
func formatTypeList(buf *strings.Builder, ts []*Type) {
	buf.WriteString(" (")
	for i, t := range ts {
		if i > 0 {
			buf.WriteString(", ")
		}
		t.Format(buf)
	}
	buf.WriteByte(')')
}

// CreateTrigger is CREATE TRIGGER [IF NOT EXISTS] name ON t USING 'class'.
type CreateTrigger struct {
	Binds
	IfNotExists bool
	Name        Ident
	Table       TableName
	Class       string // the Java class that implements the trigger
}

// Format writes the statement's canonical CQL.
func (s *CreateTrigger) Format(buf *strings.Builder) {
	buf.WriteString("CREATE TRIGGER ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	buf.WriteString(" ON ")
	s.Table.Format(buf)
	buf.WriteString(" USING ")
	formatString(buf, s.Class)
}

// DropTrigger is DROP TRIGGER [IF EXISTS] name ON t.
type DropTrigger struct {
	Binds
	IfExists bool
	Name     Ident
	Table    TableName
}

// Format writes the statement's canonical CQL.
func (s *DropTrigger) Format(buf *strings.Builder) {
	buf.WriteString("DROP TRIGGER ")
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
	buf.WriteString(" ON ")
	s.Table.Format(buf)
}

// DropFunction is DROP FUNCTION or DROP AGGREGATE [IF EXISTS] f [(type,
// ...)].
type DropFunction struct {
	Binds
	Aggregate bool
	IfExists  bool
	Name      TableName
	// ArgsGiven is set when the argument types are listed (maybe none).
	ArgsGiven bool
	ArgTypes  []*Type
}

// Format writes the statement's canonical CQL.
func (s *DropFunction) Format(buf *strings.Builder) {
	if s.Aggregate {
		buf.WriteString("DROP AGGREGATE ")
	} else {
		buf.WriteString("DROP FUNCTION ")
	}
	if s.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	s.Name.Format(buf)
	if s.ArgsGiven {
		formatTypeList(buf, s.ArgTypes)
	}
}

// String returns the statement's canonical CQL.
func (s *DropKeyspace) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Use) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *CreateTable) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *AlterTable) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *DropTable) String() string       { return nodeString(s) }
func (s *CreateIndex) String() string     { return nodeString(s) }
func (s *CreateType) String() string      { return nodeString(s) }
func (s *AlterUserType) String() string   { return nodeString(s) }
func (s *DropType) String() string        { return nodeString(s) }
func (s *DropIndex) String() string       { return nodeString(s) }
func (s *CreateView) String() string      { return nodeString(s) }
func (s *AlterView) String() string       { return nodeString(s) }
func (s *DropView) String() string        { return nodeString(s) }
func (s *CreateFunction) String() string  { return nodeString(s) }
func (s *CreateAggregate) String() string { return nodeString(s) }
func (s *DropFunction) String() string    { return nodeString(s) }
func (s *CreateTrigger) String() string   { return nodeString(s) }
func (s *DropTrigger) String() string     { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Truncate) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Insert) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Update) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Delete) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Batch) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Select) String() string { return nodeString(s) }

// String returns the statement's canonical CQL.
func (s *Describe) String() string { return nodeString(s) }

func (*CreateKeyspace) iStatement()  {}
func (*AlterKeyspace) iStatement()   {}
func (*DropKeyspace) iStatement()    {}
func (*Use) iStatement()             {}
func (*CreateTable) iStatement()     {}
func (*AlterTable) iStatement()      {}
func (*DropTable) iStatement()       {}
func (*CreateIndex) iStatement()     {}
func (*CreateType) iStatement()      {}
func (*AlterUserType) iStatement()   {}
func (*DropType) iStatement()        {}
func (*DropIndex) iStatement()       {}
func (*CreateView) iStatement()      {}
func (*AlterView) iStatement()       {}
func (*DropView) iStatement()        {}
func (*CreateFunction) iStatement()  {}
func (*CreateAggregate) iStatement() {}
func (*DropFunction) iStatement()    {}
func (*CreateTrigger) iStatement()   {}
func (*DropTrigger) iStatement()     {}
func (*Truncate) iStatement()        {}
func (*Insert) iStatement()          {}
func (*Update) iStatement()          {}
func (*Delete) iStatement()          {}
func (*Batch) iStatement()           {}
func (*Select) iStatement()          {}
func (*Describe) iStatement()        {}
