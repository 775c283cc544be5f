package restrictions

import (
	"bytes"
	"strings"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// rowFilter is a restriction evaluated on each row read (ALLOW FILTERING,
// or clustering restrictions that cannot become slices). A null value never
// matches.
type rowFilter interface {
	Match(q *query.Execution, r *expr.SelRow) (bool, error)
}

// valuesFilter keeps rows whose column equals one of the values (EQ, IN).
type valuesFilter struct {
	col  *schema.Column
	vals *WhereValues
}

func (f *valuesFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	v := r.Value(f.col)
	if v == nil {
		return false, nil
	}
	vals, err := f.vals.Eval(q)
	if err != nil {
		return false, err
	}
	for _, x := range vals {
		if types.Compare(f.col.Type, v, x) == 0 {
			return true, nil
		}
	}
	return false, nil
}

// sliceFilter keeps rows whose column compares above (lower) or below the
// bound.
type sliceFilter struct {
	col   *schema.Column
	bound *sliceBound
	lower bool
}

func sliceFilterFor(col *schema.Column, b *sliceBound, lower bool) rowFilter {
	return &sliceFilter{col: col, bound: b, lower: lower}
}

func (f *sliceFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	v := r.Value(f.col)
	if v == nil {
		return false, nil
	}
	bv, err := f.bound.Eval(q)
	if err != nil {
		return false, err
	}
	return cmpOK(types.Compare(f.col.Type, v, bv[0]), f.lower, f.bound.incl), nil
}

func cmpOK(c int, lower, incl bool) bool {
	if c == 0 {
		return incl
	}
	return (c > 0) == lower
}

// containsFilter is CONTAINS / CONTAINS KEY on a collection.
type containsFilter struct {
	col *schema.Column
	key bool
	val expr.Term
}

func (f *containsFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	v := r.Value(f.col)
	if v == nil {
		return false, nil
	}
	x, err := f.val.Eval(q)
	if err != nil {
		return false, err
	}
	if x.Unset {
		return false, query.Invalidf("Invalid unset value for column %s", f.col.Name)
	}
	if x.Bytes == nil {
		return false, query.Invalidf("Invalid null value for column %s", f.col.Name)
	}
	elems, err := types.DecodeCollection(f.col.Type, v)
	if err != nil {
		return false, nil
	}
	t := f.col.Type
	switch {
	case t.Kind == types.Map && f.key:
		for i := 0; i+1 < len(elems); i += 2 {
			if types.Compare(t.Params[0], elems[i], x.Bytes) == 0 {
				return true, nil
			}
		}
	case t.Kind == types.Map:
		for i := 0; i+1 < len(elems); i += 2 {
			if types.Compare(t.Params[1], elems[i+1], x.Bytes) == 0 {
				return true, nil
			}
		}
	default:
		for _, e := range elems {
			if types.Compare(t.Params[0], e, x.Bytes) == 0 {
				return true, nil
			}
		}
	}
	return false, nil
}

// mapEntryFilter is m[key] = value.
type mapEntryFilter struct {
	col      *schema.Column
	key, val expr.Term
}

func (f *mapEntryFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	v := r.Value(f.col)
	if v == nil {
		return false, nil
	}
	k, err := f.key.Eval(q)
	if err != nil {
		return false, err
	}
	x, err := f.val.Eval(q)
	if err != nil {
		return false, err
	}
	if k.Unset || x.Unset {
		return false, query.Invalidf("Invalid unset value for column %s", f.col.Name)
	}
	if k.Bytes == nil {
		return false, query.Invalidf("Invalid null value for map key of column %s", f.col.Name)
	}
	elems, err := types.DecodeCollection(f.col.Type, v)
	if err != nil {
		return false, nil
	}
	for i := 0; i+1 < len(elems); i += 2 {
		if types.Compare(f.col.Type.Params[0], elems[i], k.Bytes) == 0 {
			return x.Bytes != nil && types.Compare(f.col.Type.Params[1], elems[i+1], x.Bytes) == 0, nil
		}
	}
	return false, nil
}

// ckPartFilter evaluates a clustering restriction on the row's clustering
// values (multi-column slices compare tuples in value order).
type ckPartFilter struct {
	tbl  *schema.Table
	part *ckPart
}

func (f *ckPartFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	if r.Ck == nil {
		return false, nil
	}
	ck := f.tbl.ClusteringColumns()
	p := f.part
	switch {
	case p.Single != nil:
		vals, err := p.Single.Eval(q)
		if err != nil {
			return false, err
		}
		for _, v := range vals {
			if types.Compare(ck[p.first].Type, r.Ck[p.first], v) == 0 {
				return true, nil
			}
		}
		return false, nil
	case p.tuple != nil:
		tuples, err := p.tuple.Eval(q)
		if err != nil {
			return false, err
		}
		for _, t := range tuples {
			if compareTuple(ck[p.first:], r.Ck[p.first:], t) == 0 {
				return true, nil
			}
		}
		return false, nil
	}
	if p.lower != nil {
		vals, err := p.lower.Eval(q)
		if err != nil {
			return false, err
		}
		if !cmpOK(compareTuple(ck[p.first:], r.Ck[p.first:], vals), true, p.lower.incl) {
			return false, nil
		}
	}
	if p.upper != nil {
		vals, err := p.upper.Eval(q)
		if err != nil {
			return false, err
		}
		if !cmpOK(compareTuple(ck[p.first:], r.Ck[p.first:], vals), false, p.upper.incl) {
			return false, nil
		}
	}
	return true, nil
}

// compareTuple compares the row's values with a (possibly shorter) tuple in
// value order, column by column; a row equal on the tuple's length compares
// equal.
func compareTuple(cols []*schema.Column, row, tuple [][]byte) int {
	for i, t := range tuple {
		if c := types.Compare(cols[i].Type, row[i], t); c != 0 {
			return c
		}
	}
	return 0
}

// likeFilter is col LIKE 'pattern' on a text column with a SASI index
// (SASI's LikePattern): 'abc%' (prefix), '%abc' (suffix), '%abc%'
// (contains) or 'abc' (equality). A PREFIX-mode index, SASI's default,
// serves only prefixes and equality, as in Cassandra; a CONTAINS-mode one
// serves all four. 'case_sensitive': 'false' compares without case.
type likeFilter struct {
	col     *schema.Column
	pattern expr.Term
	index   *schema.Index
}

func (f *likeFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	p, err := f.pattern.Eval(q)
	if err != nil {
		return false, err
	}
	if p.Unset || p.Bytes == nil {
		return false, query.Invalidf("Invalid null value for LIKE restriction on %s", f.col.Name)
	}
	prefix, suffix, term, err := f.parse(p.Bytes)
	if err != nil {
		return false, err
	}
	v := r.Value(f.col)
	if v == nil {
		return false, nil
	}
	val, t := v, []byte(term)
	if strings.EqualFold(f.index.Options["case_sensitive"], "false") {
		val, t = bytes.ToLower(val), bytes.ToLower(t)
	}
	switch {
	case prefix && suffix:
		return bytes.Contains(val, t), nil
	case prefix:
		return bytes.HasPrefix(val, t), nil
	case suffix:
		return bytes.HasSuffix(val, t), nil
	}
	return bytes.Equal(val, t), nil
}

// parse splits a LIKE pattern and checks that the index serves its kind.
func (f *likeFilter) parse(pattern []byte) (prefix, suffix bool, term string, err error) {
	pat := string(pattern)
	prefix, suffix = strings.HasSuffix(pat, "%"), strings.HasPrefix(pat, "%")
	term = strings.TrimSuffix(strings.TrimPrefix(pat, "%"), "%")
	if term == "" {
		return false, false, "", query.Invalidf("LIKE value can't be empty.")
	}
	if suffix && !strings.EqualFold(f.index.Options["mode"], "CONTAINS") {
		op := "LIKE '%<term>'"
		if prefix {
			op = "LIKE '%<term>%'"
		}
		return false, false, "", query.Invalidf("%s %s %s is only supported on properly indexed columns", f.col.Name, op, term)
	}
	return prefix, suffix, term, nil
}

// sasiIndex returns the SASI index of tbl on column name, or nil.
func sasiIndex(tbl *schema.Table, name string) *schema.Index {
	for i := range tbl.Indexes {
		if ix := &tbl.Indexes[i]; ix.Column == name && strings.HasSuffix(ix.Class, "SASIIndex") {
			return ix
		}
	}
	return nil
}
