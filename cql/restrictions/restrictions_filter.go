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
	// Validate checks the filter's values once per execution, before any
	// row is read, as Cassandra's RowFilter.Expression.validate does when
	// the filter is built: a filter that refuses its values does so even
	// when no row would reach it.
	Validate(q *query.Execution) error
}

// ValidateFilters checks every row filter's values (see rowFilter.Validate),
// and that a value an index would be read with fits an index key
// (Expression.validateForIndexing).
func (w *WhereClause) ValidateFilters(q *query.Execution) error {
	for _, f := range w.Filters {
		if err := f.Validate(q); err != nil {
			return err
		}
	}
	// Cassandra reads an index whenever one supports a restriction, with
	// ALLOW FILTERING or without; an index query over partitions (no full
	// key, no token()) filters with the clustering restrictions too, so an
	// index on a clustering column reads their value.
	candidates := append([]rowFilter(nil), w.Filters...)
	if w.Index != nil || (!w.PkComplete && !w.hasToken()) {
		for _, p := range w.Parts {
			candidates = append(candidates, &ckPartFilter{tbl: w.Tbl, part: p})
		}
	}
	for _, f := range candidates {
		ix := indexFor(w.Tbl, f, w.custom)
		if ix == nil {
			continue
		}
		var b []byte
		switch f := f.(type) {
		case *valuesFilter:
			if !f.vals.IsSingle() {
				continue
			}
			v, err := f.vals.SingleValue(q)
			if err != nil {
				return err
			}
			b = v
		case *ckPartFilter:
			// A multi-column EQ is read with the index of one of its
			// columns: that column's value is the index key.
			if f.part.tuple == nil {
				continue
			}
			tuples, err := f.part.tuple.Eval(q)
			if err != nil {
				return err
			}
			for i, c := range f.part.tuple.cols {
				if c.Name == ix.Column && len(tuples) == 1 {
					b = tuples[0][i]
				}
			}
		default:
			continue
		}
		if len(b) > 0xFFFF {
			return query.Invalidf("Index expression values may not be larger than 64K")
		}
		break
	}
	return nil
}

// checkFilterValue applies RowFilter's texts for a null or unset value;
// what names the part of the column ("value", "map key", "map value").
func checkFilterValue(col *schema.Column, what string, v query.Value) error {
	if v.Unset {
		return query.Invalidf("Unsupported unset %s for column %s", what, col.Name)
	}
	if v.Bytes == nil {
		return query.Invalidf("Unsupported null %s for column %s", what, col.Name)
	}
	return nil
}

// evalFilterTerm evaluates t and checks it with checkFilterValue.
func evalFilterTerm(q *query.Execution, col *schema.Column, what string, t expr.Term) error {
	v, err := t.Eval(q)
	if err != nil {
		return err
	}
	return checkFilterValue(col, what, v)
}

// valuesFilter keeps rows whose column equals one of the values (EQ, IN).
type valuesFilter struct {
	col  *schema.Column
	vals *WhereValues
}

func (f *valuesFilter) Validate(q *query.Execution) error {
	if f.vals.IsSingle() {
		return evalFilterTerm(q, f.col, "value", f.vals.Terms[0])
	}
	_, err := f.vals.Eval(q)
	return err
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

// sliceFilter keeps rows whose column compares above its lower bound and
// below its upper one (either may be missing): the relations on one column
// merged into a single slice restriction, as RestrictionSet merges them
// (SingleColumnRestriction.SliceRestriction.mergeWith), so that the filter
// counts once where needFiltering counts restrictions.
type sliceFilter struct {
	col    *schema.Column
	lo, hi *sliceBound
}

func sliceFilterFor(col *schema.Column, b *sliceBound, lower bool) *sliceFilter {
	if lower {
		return &sliceFilter{col: col, lo: b}
	}
	return &sliceFilter{col: col, hi: b}
}

// merge adds bound b to the slice, refusing a second bound on a side with
// SliceRestriction.mergeWith's messages.
func (f *sliceFilter) merge(b *sliceBound, lower bool) error {
	if lower {
		if f.lo != nil {
			return query.Invalidf("More than one restriction was found for the start bound on %s", f.col.Name)
		}
		f.lo = b
		return nil
	}
	if f.hi != nil {
		return query.Invalidf("More than one restriction was found for the end bound on %s", f.col.Name)
	}
	f.hi = b
	return nil
}

// bounds returns the slice's bounds, the lower one first (the order in
// which SliceRestriction adds them to the row filter), each with whether
// it is the lower one.
func (f *sliceFilter) bounds() (bs []*sliceBound, lower []bool) {
	if f.lo != nil {
		bs, lower = append(bs, f.lo), append(lower, true)
	}
	if f.hi != nil {
		bs, lower = append(bs, f.hi), append(lower, false)
	}
	return bs, lower
}

func (f *sliceFilter) Validate(q *query.Execution) error {
	bs, _ := f.bounds()
	for _, b := range bs {
		var err error
		if b.whole == nil && len(b.terms) == 1 {
			err = evalFilterTerm(q, f.col, "value", b.terms[0])
		} else {
			_, err = b.Eval(q)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (f *sliceFilter) Match(q *query.Execution, r *expr.SelRow) (bool, error) {
	v := r.Value(f.col)
	if v == nil {
		return false, nil
	}
	bs, lower := f.bounds()
	for i, b := range bs {
		bv, err := b.Eval(q)
		if err != nil {
			return false, err
		}
		if !cmpOK(types.Compare(f.col.Type, v, bv[0]), lower[i], b.incl) {
			return false, nil
		}
	}
	return true, nil
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

func (f *containsFilter) Validate(q *query.Execution) error {
	return evalFilterTerm(q, f.col, "value", f.val)
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

func (f *mapEntryFilter) Validate(q *query.Execution) error {
	if err := evalFilterTerm(q, f.col, "map key", f.key); err != nil {
		return err
	}
	return evalFilterTerm(q, f.col, "map value", f.val)
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

// Validate leaves a clustering part's values to the checks of its
// evaluation.
func (f *ckPartFilter) Validate(*query.Execution) error { return nil }

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

// Validate checks once per execution, before any row is read, that the
// index serves the pattern's kind, as SASI's query plan does when it is
// built (an empty table refuses a suffix pattern on a PREFIX index too). A
// null or unset pattern is left to Match's check.
func (f *likeFilter) Validate(q *query.Execution) error {
	p, err := f.pattern.Eval(q)
	if err != nil || p.Unset || p.Bytes == nil {
		return nil
	}
	_, _, _, err = f.parse(p.Bytes)
	return err
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

// isSASI reports whether ix is a SASI index.
func isSASI(ix *schema.Index) bool { return strings.HasSuffix(ix.Class, "SASIIndex") }

// sasiSupportsRange reports whether SASI index ix on col serves a slice
// bound (SASI's Op.RANGE), as ColumnIndex.supports decides: not on a
// literal index (one with 'is_literal': 'true', or by default one on a text
// or ascii column: IndexMode.getMode), and not in CONTAINS mode, whose
// operators (OnDiskIndexBuilder.Mode) lack RANGE; PREFIX, the default, and
// SPARSE have it.
func sasiSupportsRange(ix *schema.Index, col *schema.Column) bool {
	return !sasiLiteral(ix, col) && !strings.EqualFold(ix.Options["mode"], "CONTAINS")
}

// sasiLiteral reports whether SASI index ix on col is literal
// (IndexMode.getMode): its 'is_literal' option, or by default whether col
// is a text or ascii column. ColumnIndex.supports gives LIKE only to a
// literal index.
func sasiLiteral(ix *schema.Index, col *schema.Column) bool {
	if opt, ok := ix.Options["is_literal"]; ok {
		return strings.EqualFold(opt, "true")
	}
	return col.Type.Kind == types.Text || col.Type.Kind == types.Ascii
}

// sasiTokenized reports whether SASI index ix on col is tokenized, that is
// whether its analyzer splits a value into tokens (ColumnIndex.isTokenized,
// AbstractAnalyzer.isTokenizing). IndexMode.getMode makes an index analyzed
// when it names an analyzer_class (unless 'analyzed' is 'false') or when
// 'analyzed' is 'true'; IndexMode.getAnalyzer then uses that class, or
// StandardAnalyzer on a text or ascii column. Of SASI's analyzers,
// StandardAnalyzer and DelimiterAnalyzer tokenize; NonTokenizingAnalyzer
// and NoOpAnalyzer do not.
func sasiTokenized(ix *schema.Index, col *schema.Column) bool {
	class, hasClass := ix.Options["analyzer_class"]
	analyzed := hasClass
	if opt, ok := ix.Options["analyzed"]; ok {
		analyzed = strings.EqualFold(opt, "true")
	}
	if !analyzed {
		return false
	}
	if !hasClass {
		return col.Type.Kind == types.Text || col.Type.Kind == types.Ascii
	}
	switch class {
	case "org.apache.cassandra.index.sasi.analyzer.StandardAnalyzer",
		"org.apache.cassandra.index.sasi.analyzer.DelimiterAnalyzer":
		return true
	}
	return false
}

// sasiIndex returns the SASI index of tbl on column name, or nil.
func sasiIndex(tbl *schema.Table, name string) *schema.Index {
	for i := range tbl.Indexes {
		if ix := &tbl.Indexes[i]; ix.Column == name && isSASI(ix) {
			return ix
		}
	}
	return nil
}
