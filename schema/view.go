package schema

import (
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// View is what makes a table a materialized view (Cassandra's
// ViewMetadata): the base table it is derived from, whether it was defined
// with SELECT *, and its WHERE clause, both as CQL text (for
// system_schema.views and DESCRIBE) and as the restrictions a base row must
// satisfy to have an entry in the view.
//
// A view is stored and read like any table: Table.View is set, and its
// columns are the selected base columns, with the view's own primary key.
type View struct {
	// BaseID and BaseName name the base table (same keyspace).
	BaseID   data.TableID `json:"base_table_id"`
	BaseName string       `json:"base_table_name"`
	// IncludeAllColumns is true for SELECT *: columns added to the base
	// table later are added to the view too.
	IncludeAllColumns bool `json:"include_all_columns"`
	// WhereClause is the WHERE clause as Cassandra stores it in
	// system_schema.views.where_clause ("k IS NOT NULL AND c = 1").
	WhereClause string `json:"where_clause"`
	// Filter holds the restrictions of WhereClause other than IS NOT
	// NULL, which filters no base row (a base column in the view's key
	// without a value has no entry: BaseColumnInKey).
	Filter []ViewRestriction `json:"filter,omitempty"`
	// BaseColumnInKey is the base column outside the base primary key
	// that the view's primary key holds, "" if none (at most one).
	BaseColumnInKey string `json:"base_column_in_key,omitempty"`
}

// ViewOp is the operator of a view restriction.
type ViewOp string

// The operators a view's WHERE clause may use.
const (
	ViewEQ        ViewOp = "="
	ViewLT        ViewOp = "<"
	ViewLE        ViewOp = "<="
	ViewGT        ViewOp = ">"
	ViewGE        ViewOp = ">="
	ViewNEQ       ViewOp = "!="
	ViewIN        ViewOp = "IN"
	ViewIsNotNull ViewOp = "IS NOT NULL"
)

// ViewRestriction is one relation of a view's WHERE clause on base columns:
// a single column (Columns has one name, Values serialized in its type) or
// a multi-column relation on clustering columns ((c1, c2) > (1, 2): each of
// Values is a tuple of the columns' types, serialized).
type ViewRestriction struct {
	Columns []string `json:"columns"`
	Op      ViewOp   `json:"op"`
	Values  [][]byte `json:"values,omitempty"`
}

// IsView reports whether t is a materialized view.
func (t *Table) IsView() bool { return t.View != nil }

// StrictLiveness reports whether the rows of t are live only while their
// primary-key liveness is (Cassandra's enforceStrictLiveness): a view whose
// primary key holds a base column outside the base primary key, whose
// entry lives and dies with that column's cell.
func (t *Table) StrictLiveness() bool {
	return t.View != nil && t.View.BaseColumnInKey != ""
}

// ViewsOf returns the views among tables whose base table is base (by ID).
func ViewsOf(base *Table, tables []*Table) []*Table {
	var out []*Table
	for _, t := range tables {
		if t.View != nil && t.View.BaseID == base.ID {
			out = append(out, t)
		}
	}
	return out
}

// Matches reports whether a base row satisfies r: value returns the row's
// value of a column of base (nil when null), which types the values.
func (r *ViewRestriction) Matches(base *Table, value func(col *Column) []byte) bool {
	if len(r.Columns) == 1 {
		c := base.StoredColumn(r.Columns[0])
		if c == nil {
			return false
		}
		v := value(c)
		if r.Op == ViewIsNotNull {
			return v != nil
		}
		if v == nil {
			return false
		}
		return compareOp(c.Type, r.Op, v, r.Values)
	}
	fields := make([][]byte, len(r.Columns))
	ts := make([]types.Type, len(r.Columns))
	for i, n := range r.Columns {
		c := base.StoredColumn(n)
		if c == nil {
			return false
		}
		fields[i] = value(c)
		ts[i] = c.Type
	}
	return compareOp(types.TupleOf(ts...), r.Op, types.EncodeTuple(fields), r.Values)
}

func compareOp(t types.Type, op ViewOp, v []byte, values [][]byte) bool {
	switch op {
	case ViewIN:
		for _, x := range values {
			if types.Compare(t, v, x) == 0 {
				return true
			}
		}
		return false
	case ViewIsNotNull:
		return v != nil
	}
	if len(values) != 1 {
		return false
	}
	c := types.Compare(t, v, values[0])
	switch op {
	case ViewEQ:
		return c == 0
	case ViewNEQ:
		return c != 0
	case ViewLT:
		return c < 0
	case ViewLE:
		return c <= 0
	case ViewGT:
		return c > 0
	case ViewGE:
		return c >= 0
	}
	return false
}
