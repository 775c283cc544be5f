package expr

import (
	"fmt"
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
)

// GroupByFunction is a function call ending a GROUP BY clause, such as
// floor(time, 5m): rows whose other GROUP BY columns are equal fall in one
// group while the function gives the same value on its column (Cassandra
// 4.1's aggregation by time ranges, CASSANDRA-11871: the
// AGGREGATE_BY_PK_PREFIX_WITH_SELECTOR AggregationSpecification and
// GroupMaker's SelectorGroupMaker).
type GroupByFunction struct {
	// Selector computes the group value of a row.
	Selector Selector
	// Column is the one clustering column the function reads.
	Column *schema.Column
}

// CompileGroupByFunction prepares the call e of a GROUP BY clause on tbl as
// SelectStatement.getAggregationSpecFactory does: an aggregate is refused,
// then the call is prepared as a selector, which must read exactly one
// column, a clustering column. Whether the function suits grouping (is
// monotonic) is checked by ValidateForGroupBy, at execution as Cassandra
// checks it.
func (c *CompileCtx) CompileGroupByFunction(tbl *schema.Table, e *parser.FuncCall) (*GroupByFunction, error) {
	name := strings.ToLower(string(e.Name))
	if isAggregateName(name) && (e.Keyspace == "" || strings.EqualFold(string(e.Keyspace), "system")) {
		return nil, query.Invalidf("Aggregate functions are not supported within the GROUP BY clause, got: system.%s", name)
	}
	sel, err := c.CompileSelector(tbl, e)
	if err != nil {
		return nil, err
	}
	var cols []*schema.Column
	collectColumns(tbl, e, &cols)
	if len(cols) == 0 {
		return nil, query.Invalidf("GROUP BY functions must have one clustering column name as parameter")
	}
	if len(cols) > 1 {
		names := make([]string, len(cols))
		for i, col := range cols {
			names[i] = parser.Ident(col.Name).String()
		}
		return nil, query.Invalidf("GROUP BY functions accept only one clustering column as parameter, got: %s", strings.Join(names, ","))
	}
	if cols[0].Kind != schema.Clustering {
		return nil, query.Invalidf("Group by functions are only supported on clustering columns, got %s", cols[0].Name)
	}
	return &GroupByFunction{Selector: sel, Column: cols[0]}, nil
}

// collectColumns appends to cols, once each and in the order they first
// appear, the columns the selector expression e reads (the column list
// Selectable.newSelectorFactory fills).
func collectColumns(tbl *schema.Table, e parser.Expr, cols *[]*schema.Column) {
	add := func(name parser.Ident) {
		col := tbl.Column(string(name))
		if col == nil {
			return
		}
		for _, have := range *cols {
			if have == col {
				return
			}
		}
		*cols = append(*cols, col)
	}
	switch e := e.(type) {
	case *parser.ColumnRef:
		add(e.Name)
	case *parser.CellMeta:
		add(e.Column)
	case *parser.BinaryExpr:
		collectColumns(tbl, e.Left, cols)
		collectColumns(tbl, e.Right, cols)
	case *parser.Neg:
		collectColumns(tbl, e.Expr, cols)
	case *parser.TypeHint:
		collectColumns(tbl, e.Expr, cols)
	case *parser.Cast:
		collectColumns(tbl, e.Expr, cols)
	case *parser.FieldAccess:
		collectColumns(tbl, e.Expr, cols)
	case *parser.ElementAccess:
		collectColumns(tbl, e.Expr, cols)
	case *parser.FuncCall:
		for _, a := range e.Args {
			collectColumns(tbl, a, cols)
		}
	case *parser.TupleLit:
		for _, a := range e.Elems {
			collectColumns(tbl, a, cols)
		}
	}
}

// ValidateForGroupBy applies Selector.validateForGroupBy to the selector of
// a GROUP BY function: every function in it must be monotonic, and its
// arguments only columns, terms or such functions.
func ValidateForGroupBy(s Selector) error {
	switch s := s.(type) {
	case *ColumnSel, *constSel, *termSel:
		return nil
	case *funcSel:
		if !s.monotonic() {
			return query.Invalidf("Only monotonic functions are supported in the GROUP BY clause. Got: %s ", s.fn.String())
		}
		for _, a := range s.args {
			if err := ValidateForGroupBy(a); err != nil {
				return err
			}
		}
		return nil
	}
	return query.Invalidf("Only column names and monotonic scalar functions are supported in the GROUP BY clause.")
}

// monotonic reports whether the call keeps the order of its values, which
// grouping consecutive rows needs: the conversions toDate, toTimestamp and
// toUnixTimestamp are (TimeFcts' isMonotonic), and floor is once its
// duration and start are given as terms (FloorFunction's
// isPartialApplicationMonotonic), its time being the unresolved argument.
func (s *funcSel) monotonic() bool {
	switch s.fn.name {
	case "todate", "totimestamp", "tounixtimestamp":
		return true
	case "floor":
		if isTermSel(s.args[0]) {
			return false
		}
		for _, a := range s.args[1:] {
			if !isTermSel(a) {
				return false
			}
		}
		return true
	}
	return false
}

func isTermSel(s Selector) bool {
	switch s.(type) {
	case *constSel, *termSel:
		return true
	}
	return false
}

// String writes the function as AbstractFunction.toString does:
// system.name : (argument types) -> return type.
func (f *function) String() string {
	return fmt.Sprintf("%s : (%s) -> %s", f.qualifiedName(), f.argList(), f.ret)
}
