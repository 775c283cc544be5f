package virtual

import (
	"context"
	"crypto/md5"
	"fmt"
	"sort"
	"sync"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Virtual keyspaces of an embedder.
//
// An embedder registers keyspaces of its own whose tables it implements in
// Go, as Cassandra 4.1 lets a node register a VirtualKeyspace of
// VirtualTables (db/virtual/VirtualKeyspaceRegistry) before it starts. A
// UserTable gives its definition and, for each read, its rows, as
// AbstractVirtualTable.data() does; CQL then reads it as any derived table
// (restrictions, filtering, ORDER BY, paging, aggregates all apply to those
// rows). A table is read-only unless it implements one or more of the
// modification interfaces below, as an AbstractMutableVirtualTable overrides
// the operations it supports: a write is turned into those calls as
// AbstractMutableVirtualTable.apply turns a PartitionUpdate into them, and
// an operation the table lacks is refused with 4.1's text ("Row deletion is
// not supported by table ks.t"). A table with none of them refuses every
// write with "Modification is not supported by table ks.t", and TRUNCATE
// needs Truncater ("Truncation is not supported by table ks.t").
//
// Values cross the API as the Go values of types.Decode and types.Encode
// (text is string, int is int32, bigint is int64, ...).
//
// Schema statements on a virtual keyspace are refused with "Virtual keyspace
// 'ks' is not user-modifiable"; writes refuse USING TIMESTAMP, USING TTL
// and conditions, and a batch may not mix virtual and regular tables, be
// logged, or carry conditions, with ModificationStatement's and
// BatchStatement's texts.

// UserKeyspace is a virtual keyspace and its tables.
type UserKeyspace struct {
	Name   string
	Tables []UserTable
}

// ColumnDef is one column of a virtual table: its name and its CQL type
// ("text", "bigint", "map<text, int>", ...).
type ColumnDef struct {
	Name, Type string
}

// TableDef defines a virtual table: its name, its partition key and
// clustering columns in order, and its other columns.
type TableDef struct {
	Name         string
	PartitionKey []ColumnDef
	Clustering   []ColumnDef
	Regular      []ColumnDef
	Comment      string
}

// Row is one row of a virtual table: its columns' Go values by name. A
// column left out (or nil) is null; key columns must be given.
type Row map[string]any

// UserTable is a virtual table implemented in Go. Rows is called for each
// read and may be called concurrently.
type UserTable interface {
	Definition() TableDef
	Rows(ctx context.Context) ([]Row, error)
}

// ImplicitFilteringRefuser is implemented by a table whose reads that
// filter need ALLOW FILTERING, as a VirtualTable whose
// allowFilteringImplicitly() is false. Other virtual tables filter without
// it (Cassandra 4.1.1's default, CASSANDRA-18238).
type ImplicitFilteringRefuser interface {
	AllowFilteringImplicitly() bool
}

// PartitionDeleter deletes a whole partition (DELETE restricting only the
// partition key), as applyPartitionDeletion.
type PartitionDeleter interface {
	DeletePartition(ctx context.Context, partitionKey []any) error
}

// RangeDeleter deletes the rows of a clustering range of a partition, as
// applyRangeTombstone.
type RangeDeleter interface {
	DeleteRange(ctx context.Context, partitionKey []any, r ClusteringRange) error
}

// RowDeleter deletes one row, as applyRowDeletion.
type RowDeleter interface {
	DeleteRow(ctx context.Context, partitionKey, clustering []any) error
}

// ColumnDeleter sets one column of a row to null, as applyColumnDeletion.
type ColumnDeleter interface {
	DeleteColumn(ctx context.Context, partitionKey, clustering []any, column string) error
}

// ColumnUpdater sets one column of a row, as applyColumnUpdate: value is
// nil for a write of the primary key alone (an INSERT of no other column),
// which makes the row exist.
type ColumnUpdater interface {
	UpdateColumn(ctx context.Context, partitionKey, clustering []any, value *ColumnValue) error
}

// Truncater removes every row, as VirtualTable.truncate.
type Truncater interface {
	Truncate(ctx context.Context) error
}

// ColumnValue is a regular column's new value.
type ColumnValue struct {
	Name  string
	Value any
}

// ClusteringRange is a range of clustering keys: Start and End are
// clustering prefixes (nil: unbounded on that side), each bound inclusive
// or not, as Range<ColumnValues> in applyRangeTombstone.
type ClusteringRange struct {
	Start, End                   []any
	StartInclusive, EndInclusive bool

	cols []types.ClusteringColumn
	rt   data.RangeTombstone
}

// Contains reports whether the clustering key ck (every clustering column's
// value) lies inside the range. A key whose values do not fit the columns'
// types is outside.
func (r ClusteringRange) Contains(ck []any) bool {
	vals := make([][]byte, len(ck))
	for i, v := range ck {
		if i >= len(r.cols) {
			return false
		}
		b, err := types.Encode(r.cols[i].Type, v)
		if err != nil {
			return false
		}
		vals[i] = b
	}
	k, err := types.EncodeClustering(r.cols, vals)
	if err != nil {
		return false
	}
	return r.rt.Contains(k)
}

// InvalidRequestError is a refusal of a virtual table's operation: CQL
// answers it as an InvalidRequest with its message. Tables may return one
// (Invalid) for their own refusals.
type InvalidRequestError struct{ Message string }

func (e *InvalidRequestError) Error() string { return e.Message }

// Invalid returns an InvalidRequestError with a formatted message, as
// Cassandra's RequestValidations.invalidRequest.
func Invalid(format string, args ...any) error {
	return &InvalidRequestError{Message: fmt.Sprintf(format, args...)}
}

// userTable is a registered virtual table: its definition as a schema
// table and its implementation.
type userTable struct {
	def  *schema.Table
	impl UserTable
}

// userTables maps the schema table of every registered virtual table to
// it, for every node of the process: a schema table is registered once, by
// one node.
var userTables sync.Map // *schema.Table -> *userTable

func lookupUser(tbl *schema.Table) *userTable {
	if v, ok := userTables.Load(tbl); ok {
		return v.(*userTable)
	}
	return nil
}

// IsUserVirtual reports whether tbl is a registered virtual table.
func IsUserVirtual(tbl *schema.Table) bool { return lookupUser(tbl) != nil }

// IsVirtualTable reports whether tbl is a virtual table: one of the
// system's virtual keyspaces or a registered one.
func IsVirtualTable(tbl *schema.Table) bool {
	return VirtualKeyspaces[tbl.Keyspace] || IsUserVirtual(tbl)
}

// AllowsFilteringImplicitly reports whether a read of tbl that filters may
// leave out ALLOW FILTERING (SelectStatement's
// requiresAllowFilteringIfNotSpecified): true for virtual tables unless
// their implementation says otherwise.
func AllowsFilteringImplicitly(tbl *schema.Table) bool {
	if u := lookupUser(tbl); u != nil {
		if r, ok := u.impl.(ImplicitFilteringRefuser); ok {
			return r.AllowFilteringImplicitly()
		}
		return true
	}
	return VirtualKeyspaces[tbl.Keyspace]
}

// userKeyspaces holds a node's registered virtual keyspaces.
type userKeyspaces struct {
	mu     sync.RWMutex
	tables map[string]map[string]*schema.Table
}

// RegisterKeyspace registers a virtual keyspace and its tables on the node,
// as VirtualKeyspaceRegistry.register. The keyspace's name must be new: not
// a system keyspace, a keyspace of the engine or one registered before.
func (n *Node) RegisterKeyspace(ks UserKeyspace) error {
	if ks.Name == "" {
		return fmt.Errorf("virtual: a virtual keyspace needs a name")
	}
	if IsSystemKeyspace(ks.Name) {
		return fmt.Errorf("virtual: %s is a system keyspace", ks.Name)
	}
	if _, ok := n.eng.Keyspace(ks.Name); ok {
		return fmt.Errorf("virtual: keyspace %s already exists", ks.Name)
	}
	tables := make(map[string]*schema.Table, len(ks.Tables))
	var made []*userTable
	for _, t := range ks.Tables {
		if t == nil {
			return fmt.Errorf("virtual: keyspace %s: nil table", ks.Name)
		}
		def, err := buildUserTable(ks.Name, t.Definition())
		if err != nil {
			return err
		}
		if tables[def.Name] != nil {
			return fmt.Errorf("virtual: keyspace %s: table %s defined twice", ks.Name, def.Name)
		}
		tables[def.Name] = def
		made = append(made, &userTable{def: def, impl: t})
	}
	n.users.mu.Lock()
	defer n.users.mu.Unlock()
	if n.users.tables[ks.Name] != nil {
		return fmt.Errorf("virtual: keyspace %s is already registered", ks.Name)
	}
	if n.users.tables == nil {
		n.users.tables = map[string]map[string]*schema.Table{}
	}
	n.users.tables[ks.Name] = tables
	for _, u := range made {
		userTables.Store(u.def, u)
	}
	return nil
}

// UserVirtualKeyspace reports whether ks is a virtual keyspace registered
// on the node.
func (n *Node) UserVirtualKeyspace(ks string) bool {
	if n == nil {
		return false
	}
	n.users.mu.RLock()
	defer n.users.mu.RUnlock()
	return n.users.tables[ks] != nil
}

// UserVirtualTable returns the registered virtual table ks.name, nil if
// there is none.
func (n *Node) UserVirtualTable(ks, name string) *schema.Table {
	if n == nil {
		return nil
	}
	n.users.mu.RLock()
	defer n.users.mu.RUnlock()
	return n.users.tables[ks][name]
}

// buildUserTable turns a definition into a schema table, whose id is the
// name-based one Cassandra gives tables built in code.
func buildUserTable(ks string, d TableDef) (*schema.Table, error) {
	if d.Name == "" {
		return nil, fmt.Errorf("virtual: keyspace %s: a table needs a name", ks)
	}
	if len(d.PartitionKey) == 0 {
		return nil, fmt.Errorf("virtual: table %s.%s needs a partition key", ks, d.Name)
	}
	var cols []*schema.Column
	seen := map[string]bool{}
	add := func(c ColumnDef, kind schema.ColumnKind, pos int) error {
		if c.Name == "" || seen[c.Name] {
			return fmt.Errorf("virtual: table %s.%s: column %q is empty or defined twice", ks, d.Name, c.Name)
		}
		seen[c.Name] = true
		t, err := types.ParseType(c.Type)
		if err != nil {
			return fmt.Errorf("virtual: table %s.%s, column %s: %w", ks, d.Name, c.Name, err)
		}
		cols = append(cols, &schema.Column{Name: c.Name, Type: t, Kind: kind, Position: pos})
		return nil
	}
	for i, c := range d.PartitionKey {
		if err := add(c, schema.PartitionKey, i); err != nil {
			return nil, err
		}
	}
	for i, c := range d.Clustering {
		if err := add(c, schema.Clustering, i); err != nil {
			return nil, err
		}
	}
	for _, c := range d.Regular {
		if err := add(c, schema.Regular, -1); err != nil {
			return nil, err
		}
	}
	opts := schema.DefaultOptions()
	opts.Comment = d.Comment
	sum := md5.Sum([]byte(ks + d.Name))
	sum[6] = sum[6]&0x0f | 0x30
	sum[8] = sum[8]&0x3f | 0x80
	return schema.NewTable(ks, d.Name, data.TableID(sum), cols, opts), nil
}

// userPartitions returns the partitions of registered virtual table u, from
// its rows: grouped by partition key; Partitions orders them.
func userPartitions(ctx context.Context, u *userTable) ([]Partition, error) {
	rows, err := u.impl.Rows(ctx)
	if err != nil {
		return nil, err
	}
	tbl := u.def
	byKey := map[string]int{}
	var parts []Partition
	for _, r := range rows {
		vals := make(Values, len(r))
		for _, c := range tbl.Columns {
			v, ok := r[c.Name]
			if !ok || v == nil {
				if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering {
					return nil, fmt.Errorf("virtual: a row of %s lacks key column %s", tbl.QualifiedName(), c.Name)
				}
				continue
			}
			b, err := types.Encode(c.Type, v)
			if err != nil {
				return nil, fmt.Errorf("virtual: a row of %s, column %s: %w", tbl.QualifiedName(), c.Name, err)
			}
			vals[c.Name] = b
		}
		key, err := partitionKeyOf(tbl, vals)
		if err != nil {
			return nil, err
		}
		i, ok := byKey[string(key)]
		if !ok {
			i = len(parts)
			byKey[string(key)] = i
			parts = append(parts, Partition{Key: key})
		}
		parts[i].Rows = append(parts[i].Rows, vals)
	}
	return parts, nil
}

func partitionKeyOf(tbl *schema.Table, vals Values) ([]byte, error) {
	pk := tbl.PartitionKey()
	if len(pk) == 1 {
		return vals[pk[0].Name], nil
	}
	comps := make([][]byte, len(pk))
	for i, c := range pk {
		comps[i] = vals[c.Name]
	}
	return partitioner.CompositeKey(comps)
}

// ApplyUser applies mutation m to registered virtual table tbl, as
// AbstractVirtualTable.apply (a read-only table refuses it) and
// AbstractMutableVirtualTable.apply (each part of the mutation becomes a
// call of the table's modification interfaces) do.
func ApplyUser(ctx context.Context, tbl *schema.Table, m *data.Mutation) error {
	u := lookupUser(tbl)
	if u == nil {
		return fmt.Errorf("virtual: %s is not a registered virtual table", tbl.QualifiedName())
	}
	if !isMutable(u.impl) {
		return Invalid("Modification is not supported by table %s", tbl.QualifiedName())
	}
	pk, err := decodePartitionKey(tbl, m.Key)
	if err != nil {
		return err
	}
	name := tbl.QualifiedName()
	if m.PartitionDeletion.IsLive() && len(m.RangeTombstones) == 0 {
		for i := range m.Rows {
			if err := applyUserRow(ctx, u, pk, &m.Rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, rt := range m.RangeTombstones {
		d, ok := u.impl.(RangeDeleter)
		if !ok {
			return Invalid("Range deletion is not supported by table %s", name)
		}
		r, err := clusteringRange(tbl, rt)
		if err != nil {
			return err
		}
		if err := d.DeleteRange(ctx, pk, r); err != nil {
			return err
		}
	}
	if !m.PartitionDeletion.IsLive() {
		d, ok := u.impl.(PartitionDeleter)
		if !ok {
			return Invalid("Partition deletion is not supported by table %s", name)
		}
		return d.DeletePartition(ctx, pk)
	}
	return nil
}

func applyUserRow(ctx context.Context, u *userTable, pk []any, row *data.Row) error {
	tbl := u.def
	name := tbl.QualifiedName()
	ck, err := decodeClustering(tbl, row.Clustering)
	if err != nil {
		return err
	}
	if !row.Deletion.IsLive() {
		d, ok := u.impl.(RowDeleter)
		if !ok {
			return Invalid("Row deletion is not supported by table %s", name)
		}
		return d.DeleteRow(ctx, pk, ck)
	}
	if len(row.ColumnDeletions) > 0 {
		return Invalid("Complex type columns are not supported by table %s", name)
	}
	if len(row.Cells) == 0 {
		up, ok := u.impl.(ColumnUpdater)
		if !ok {
			return Invalid("Column modification is not supported by table %s", name)
		}
		return up.UpdateColumn(ctx, pk, ck, nil)
	}
	for i := range row.Cells {
		c := &row.Cells[i]
		col := tbl.Column(c.Column)
		if col == nil {
			return fmt.Errorf("virtual: %s has no column %s", name, c.Column)
		}
		if col.Type.IsMultiCell() {
			return Invalid("Complex type columns are not supported by table %s", name)
		}
		if c.Kind == data.CellTombstone {
			d, ok := u.impl.(ColumnDeleter)
			if !ok {
				return Invalid("Column deletion is not supported by table %s", name)
			}
			if err := d.DeleteColumn(ctx, pk, ck, c.Column); err != nil {
				return err
			}
			continue
		}
		up, ok := u.impl.(ColumnUpdater)
		if !ok {
			return Invalid("Column modification is not supported by table %s", name)
		}
		v, err := types.Decode(col.Type, c.Value)
		if err != nil {
			return err
		}
		if err := up.UpdateColumn(ctx, pk, ck, &ColumnValue{Name: c.Column, Value: v}); err != nil {
			return err
		}
	}
	return nil
}

// TruncateUser truncates registered virtual table tbl, as
// VirtualTable.truncate: a table without Truncater refuses.
func TruncateUser(ctx context.Context, tbl *schema.Table) error {
	u := lookupUser(tbl)
	if u == nil {
		return fmt.Errorf("virtual: %s is not a registered virtual table", tbl.QualifiedName())
	}
	t, ok := u.impl.(Truncater)
	if !ok {
		return Invalid("Truncation is not supported by table %s", tbl.QualifiedName())
	}
	return t.Truncate(ctx)
}

func isMutable(t UserTable) bool {
	switch t.(type) {
	case PartitionDeleter, RangeDeleter, RowDeleter, ColumnDeleter, ColumnUpdater:
		return true
	}
	return false
}

func decodePartitionKey(tbl *schema.Table, key []byte) ([]any, error) {
	pk := tbl.PartitionKey()
	comps := [][]byte{key}
	if len(pk) > 1 {
		var err error
		if comps, err = partitioner.SplitCompositeKey(key); err != nil {
			return nil, err
		}
		if len(comps) != len(pk) {
			return nil, fmt.Errorf("virtual: a partition key of %s has %d components", tbl.QualifiedName(), len(comps))
		}
	}
	out := make([]any, len(pk))
	for i, c := range pk {
		v, err := types.Decode(c.Type, comps[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func decodeClustering(tbl *schema.Table, key []byte) ([]any, error) {
	if len(tbl.ClusteringColumns()) == 0 {
		return nil, nil
	}
	vals, _, err := types.DecodeClustering(tbl.ClusteringTypes(), key)
	if err != nil {
		return nil, err
	}
	return decodeValues(tbl.ClusteringColumns(), vals)
}

func decodeValues(cols []*schema.Column, vals [][]byte) ([]any, error) {
	out := make([]any, len(vals))
	for i, b := range vals {
		v, err := types.Decode(cols[i].Type, b)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// clusteringRange is the range a range tombstone deletes, as
// AbstractMutableVirtualTable.toRange makes it of the deleted slice.
func clusteringRange(tbl *schema.Table, rt data.RangeTombstone) (ClusteringRange, error) {
	r := ClusteringRange{cols: tbl.ClusteringTypes(), rt: rt}
	if len(rt.Start) > 0 {
		vals, kind, err := types.DecodeClustering(tbl.ClusteringTypes(), rt.Start)
		if err != nil {
			return r, err
		}
		if len(vals) > 0 {
			if r.Start, err = decodeValues(tbl.ClusteringColumns(), vals); err != nil {
				return r, err
			}
			// A start bound before its prefix includes it.
			r.StartInclusive = kind == types.BeforePrefix
		}
	}
	if len(rt.End) > 0 {
		vals, kind, err := types.DecodeClustering(tbl.ClusteringTypes(), rt.End)
		if err != nil {
			return r, err
		}
		if len(vals) > 0 {
			if r.End, err = decodeValues(tbl.ClusteringColumns(), vals); err != nil {
				return r, err
			}
			// An end bound after its prefix includes it.
			r.EndInclusive = kind == types.AfterPrefix
		}
	}
	return r, nil
}

// userVirtualSchemaPartitions returns the rows system_virtual_schema's table
// name shows for the node's registered keyspaces, as VirtualSchemaKeyspace
// lists every keyspace of the registry.
func (n *Node) userVirtualSchemaPartitions(name string) []Partition {
	n.users.mu.RLock()
	defer n.users.mu.RUnlock()
	var parts []Partition
	for ks, tables := range n.users.tables {
		var rows []Values
		names := make([]string, 0, len(tables))
		for t := range tables {
			names = append(names, t)
		}
		sort.Strings(names)
		switch name {
		case "keyspaces":
			rows = []Values{{"keyspace_name": TextV(ks)}}
		case "tables":
			for _, t := range names {
				rows = append(rows, Values{"keyspace_name": TextV(ks), "table_name": TextV(t), "comment": TextV(tables[t].Options.Comment)})
			}
		case "columns":
			for _, t := range names {
				rows = append(rows, columnRows(tables[t])...)
			}
		}
		if len(rows) > 0 {
			parts = append(parts, Partition{Key: TextV(ks), Rows: rows})
		}
	}
	return parts
}
