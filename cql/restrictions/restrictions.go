package restrictions

import (
	"bytes"
	"errors"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// This file analyses a WHERE clause the way Cassandra 4.1's
// StatementRestrictions does: it sorts relations into partition key,
// token, clustering and filtering restrictions, checks them with Cassandra's
// rules and error texts, and at execution turns them into the list of
// partition keys (or a token range), the clustering slices to read, and the
// residual row filters.

// filteringMsg is Cassandra's REQUIRES_ALLOW_FILTERING_MESSAGE.
const filteringMsg = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"

// WhereValues is an EQ or IN restriction of one column: one term for EQ,
// several for IN (...), or a marker bound to a list for IN ?.
type WhereValues struct {
	Col    *schema.Column
	In     bool
	Terms  []expr.Term
	marker expr.Term // IN ?: evaluates to a list<type>
}

// Eval returns the restricted values, checking nulls and unset values with
// Cassandra's texts. IN values may repeat; callers sort and deduplicate.
func (w *WhereValues) Eval(q *query.Execution) ([][]byte, error) {
	if w.marker != nil {
		v, err := w.marker.Eval(q)
		if err != nil {
			return nil, err
		}
		if v.Unset {
			return nil, query.Invalidf("Invalid unset value for column %s", w.Col.Name)
		}
		if v.Bytes == nil {
			return nil, query.Invalidf("Invalid null value for column %s", w.Col.Name)
		}
		elems, err := types.DecodeCollection(types.ListOf(w.Col.Type, false), v.Bytes)
		if err != nil {
			return nil, query.Invalidf("Invalid list value for in(%s): %v", w.Col.Name, err)
		}
		for _, e := range elems {
			if e == nil {
				return nil, query.Invalidf("Invalid null value in condition for column %s", w.Col.Name)
			}
		}
		return elems, nil
	}
	out := make([][]byte, 0, len(w.Terms))
	for _, t := range w.Terms {
		v, err := t.Eval(q)
		if err != nil {
			return nil, err
		}
		if v.Unset {
			return nil, query.Invalidf("Invalid unset value for column %s", w.Col.Name)
		}
		if v.Bytes == nil {
			return nil, query.Invalidf("Invalid null value in condition for column %s", w.Col.Name)
		}
		out = append(out, v.Bytes)
	}
	return out, nil
}

// tupleValues is a multi-column EQ or IN restriction: (c1, c2) = (..) or
// (c1, c2) IN ((..), (..)) or IN ?.
type tupleValues struct {
	cols   []*schema.Column
	in     bool
	tuples [][]expr.Term // literal tuples, one term per column
	whole  []expr.Term   // markers standing for a whole tuple
	marker expr.Term     // IN ?: a list of tuples
}

func (w *tupleValues) Eval(q *query.Execution) ([][][]byte, error) {
	var out [][][]byte
	ttyp := tupleTypeOf(w.cols)
	decodeTuple := func(b []byte) ([][]byte, error) {
		fields, err := types.DecodeTuple(ttyp, b)
		if err != nil {
			return nil, query.Invalidf("Invalid tuple value: %v", err)
		}
		return fields, nil
	}
	switch {
	case w.marker != nil:
		if v, err := w.marker.Eval(q); err == nil && v.Unset {
			// The marker of IN ? stands for the list: its receiver is in(...).
			return nil, query.Invalidf("Invalid unset value for in%s", tupleName(w.cols))
		}
		b, err := evalWholeTuple(q, w.marker, w.cols)
		if err != nil {
			return nil, err
		}
		elems, err := types.DecodeCollection(types.ListOf(ttyp, false), b)
		if err != nil {
			return nil, query.Invalidf("Invalid list value for in(%s): %v", tupleName(w.cols), err)
		}
		for _, e := range elems {
			f, err := decodeTuple(e)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	default:
		for _, t := range w.whole {
			b, err := evalWholeTuple(q, t, w.cols)
			if err != nil {
				return nil, err
			}
			f, err := decodeTuple(b)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		for _, tuple := range w.tuples {
			vals := make([][]byte, len(tuple))
			for i, t := range tuple {
				v, err := t.Eval(q)
				if err != nil {
					return nil, err
				}
				if v.Unset {
					// Tuples.DelayedValue: an element of a tuple literal.
					return nil, query.Invalidf("Invalid unset value for tuple field number %d", i)
				}
				vals[i] = v.Bytes
			}
			out = append(out, vals)
		}
	}
	for _, vals := range out {
		for i, v := range vals {
			if v == nil {
				if w.in {
					// MultiColumnRestriction.INRestriction.appendTo.
					names := make([]string, len(w.cols))
					for j, c := range w.cols {
						names[j] = c.Name
					}
					return nil, query.Invalidf("Invalid null value in condition for columns: [%s]", strings.Join(names, ", "))
				}
				// MultiColumnRestriction.EQRestriction.appendTo.
				return nil, query.Invalidf("Invalid null value for column %s", w.cols[i].Name)
			}
		}
	}
	return out, nil
}

// evalWholeTuple evaluates a marker standing for a whole tuple (or list of
// tuples) of cols, refusing unset and null as Cassandra does.
func evalWholeTuple(q *query.Execution, t expr.Term, cols []*schema.Column) ([]byte, error) {
	v, err := t.Eval(q)
	if err != nil {
		return nil, err
	}
	if v.Unset {
		return nil, query.Invalidf("Invalid unset value for tuple %s", tupleName(cols))
	}
	if v.Bytes == nil {
		return nil, query.Invalidf("Invalid null value for tuple %s", tupleName(cols))
	}
	return v.Bytes, nil
}

func tupleTypeOf(cols []*schema.Column) types.Type {
	ps := make([]types.Type, len(cols))
	for i, c := range cols {
		ps[i] = c.Type
	}
	return types.Type{Kind: types.Tuple, Params: ps}
}

func tupleName(cols []*schema.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return "(" + strings.Join(names, ",") + ")"
}

// sliceBound is one side of a slice: a single value or a tuple of values
// for cols (a prefix of the clustering columns starting at the slice's first
// column).
type sliceBound struct {
	cols  []*schema.Column
	incl  bool
	terms []expr.Term // one per column
	whole expr.Term   // a marker standing for the whole tuple
	multi bool
}

func (b *sliceBound) Eval(q *query.Execution) ([][]byte, error) {
	if b.whole != nil {
		v, err := evalWholeTuple(q, b.whole, b.cols)
		if err != nil {
			return nil, err
		}
		fields, err := types.DecodeTuple(tupleTypeOf(b.cols), v)
		if err != nil {
			return nil, query.Invalidf("Invalid tuple value: %v", err)
		}
		for i, f := range fields {
			if f == nil {
				return nil, query.Invalidf("Invalid null value in condition for column %s", b.cols[i].Name)
			}
		}
		return fields, nil
	}
	out := make([][]byte, len(b.terms))
	for i, t := range b.terms {
		v, err := t.Eval(q)
		if err != nil {
			return nil, err
		}
		if v.Unset {
			if b.multi {
				// Tuples.DelayedValue: an element of a tuple literal.
				return nil, query.Invalidf("Invalid unset value for tuple field number %d", i)
			}
			return nil, query.Invalidf("Invalid unset value for column %s", b.cols[i].Name)
		}
		if v.Bytes == nil {
			return nil, query.Invalidf("Invalid null value in condition for column %s", b.cols[i].Name)
		}
		out[i] = v.Bytes
	}
	return out, nil
}

// ckPart is the restriction of one or more consecutive clustering columns
// starting at position first: EQ/IN on one column, multi-column EQ/IN, or a
// slice (single or multi-column).
type ckPart struct {
	first        int
	Single       *WhereValues
	tuple        *tupleValues
	lower, upper *sliceBound
	multi        bool
}

func (p *ckPart) IsSlice() bool { return p.lower != nil || p.upper != nil }

func (p *ckPart) isIn() bool {
	return (p.Single != nil && p.Single.In) || (p.tuple != nil && p.tuple.in)
}

// width is the number of clustering columns the part covers.
func (p *ckPart) width() int {
	switch {
	case p.Single != nil:
		return 1
	case p.tuple != nil:
		return len(p.tuple.cols)
	}
	n := 0
	if p.lower != nil {
		n = len(p.lower.cols)
	}
	if p.upper != nil && len(p.upper.cols) > n {
		n = len(p.upper.cols)
	}
	return n
}

// tokenBound is one side of a token restriction.
type tokenBound struct {
	t    expr.Term
	incl bool
}

// WhereClause is a compiled WHERE clause of a SELECT.
type WhereClause struct {
	Tbl            *schema.Table
	allowFiltering bool

	// Pk holds, per partition key column, its EQ/IN restriction (nil if none).
	Pk []*WhereValues
	// PkComplete is set when every partition key column has EQ or IN.
	PkComplete bool
	// PkIn is set when a partition key column is restricted by IN.
	PkIn bool
	// tokenEq, tokenLower and tokenUpper are the token restrictions.
	tokenEq             expr.Term
	tokenLower, tokenUp *tokenBound
	// part is the node's partitioner, which gives the tokens the token
	// restrictions compare.
	part partitioner.Partitioner
	// Parts are the clustering restrictions by first column; prefix is the
	// number of parts usable to compute slices (the rest filter rows).
	Parts  []*ckPart
	Prefix int
	// Filters are evaluated on each row (ALLOW FILTERING).
	Filters []rowFilter
	// Index is the secondary index that lets the query run without ALLOW
	// FILTERING (its one filter is the indexed restriction, or the
	// query's custom index expression), or nil.
	Index *schema.Index
	// customIndex is the index of the query's custom index expression,
	// nil if none.
	customIndex *schema.Index
	// custom tells what the Go instances of custom indexes support (nil:
	// nothing is asked).
	custom expr.CustomIndexes
	// CkRestricted is set when any clustering column is restricted.
	CkRestricted bool
	// NonPK is set when a static or regular column is restricted.
	NonPK bool
	// Restricted records every restricted column by name.
	Restricted map[string]bool
	// ckContains is set when a clustering column is restricted by CONTAINS
	// or CONTAINS KEY.
	ckContains bool
	// ckGap is the error that refuses, without ALLOW FILTERING, the first
	// clustering part past the usable prefix (nil when every part is usable).
	ckGap error
}

// HasToken reports whether token() relations restrict the partition token.
func (w *WhereClause) HasToken() bool { return w.hasToken() }

// hasToken reports whether the partition token is restricted.
func (w *WhereClause) hasToken() bool {
	return w.tokenEq != nil || w.tokenLower != nil || w.tokenUp != nil
}

// isKeyRange reports whether the query scans a token range rather than
// reading a list of partitions.
func (w *WhereClause) isKeyRange() bool { return !w.PkComplete }

// NamesRows reports whether the clustering restrictions name whole rows:
// every one of the table's nck clustering columns restricted by = or IN
// (single or multi-column), so that each slice is one full key. This is
// Cassandra's !StatementRestrictions.isColumnRange, when SelectStatement
// makes a ClusteringIndexNamesFilter; a table without clustering columns
// names its one row.
func (w *WhereClause) NamesRows(nck int) bool {
	covered := 0
	for _, p := range w.Parts[:w.Prefix] {
		if p.IsSlice() || (p.Single == nil && p.tuple == nil) {
			return false
		}
		covered += p.width()
	}
	return covered == nck
}

// eqRestricted reports whether column position pos of the clustering key is
// restricted by a single-value EQ (used by ORDER BY and GROUP BY rules).
func (w *WhereClause) CkEq(pos int) bool {
	for _, p := range w.Parts {
		if p.first <= pos && pos < p.first+p.width() {
			if p.Single != nil && !p.Single.In {
				return true
			}
			if p.tuple != nil && !p.tuple.in {
				return true
			}
			return false
		}
	}
	return false
}

// CkEqOrSingleIn reports whether clustering column pos is restricted to one
// value: by EQ, or by an IN whose literal list holds a single value (b IN (?)
// or (b, c) IN ((?, ?))). An ORDER BY may skip such a column (CASSANDRA-10271,
// SelectOrderByTest.testAllowSkippingEqualityAndSingleValueInRestrictedClusteringColumns);
// IN ? counts as several values, as its list is only known once bound.
func (w *WhereClause) CkEqOrSingleIn(pos int) bool {
	if w.CkEq(pos) {
		return true
	}
	for _, p := range w.Parts {
		if p.first <= pos && pos < p.first+p.width() {
			if p.Single != nil && p.Single.In {
				return p.Single.marker == nil && len(p.Single.Terms) == 1
			}
			if p.tuple != nil && p.tuple.in {
				return p.tuple.marker == nil && len(p.tuple.tuples)+len(p.tuple.whole) == 1
			}
			return false
		}
	}
	return false
}

// PkEq reports whether partition key column pos is restricted by EQ.
func (w *WhereClause) PkEq(pos int) bool {
	return pos < len(w.Pk) && w.Pk[pos] != nil && !w.Pk[pos].In
}

// CompileWhere analyses the relations of a SELECT on tbl. A query that
// would need ALLOW FILTERING runs without it when a secondary index of the
// table supports its only filtered restriction, or, in a range query, its
// only restriction: '=' or a slice on a clustering column (the relations on
// one column count as one restriction, as RestrictionSet merges them). The
// planner then reads a built-in index (IndexReads; a custom one is served
// by a scan that keeps the matching rows, the same rows in the same token
// order). Two or more
// filtered restrictions still need ALLOW FILTERING, index or not, as in
// Cassandra.
func CompileWhere(c *expr.CompileCtx, tbl *schema.Table, where []parser.Relation, allowFiltering bool) (*WhereClause, error) {
	w, err := analyzeWhere(c, tbl, where, allowFiltering)
	if err == nil && w.customIndex != nil {
		// A custom index expression makes the query an index query
		// (StatementRestrictions' usesSecondaryIndexing).
		w.Index = w.customIndex
	}
	var ie *indexableError
	if err == nil || !errors.As(err, &ie) {
		return w, err
	}
	if allowFiltering || len(tbl.Indexes) == 0 {
		return nil, ie.err
	}
	wi, ierr := analyzeWhere(c, tbl, where, true)
	if ierr != nil || !hasQueriableIndex(tbl, wi) {
		return nil, ie.err
	}
	// With a queriable index, StatementRestrictions skips the clustering
	// checks (missing preceding column, CONTAINS) and the query either
	// reads the index or needs ALLOW FILTERING: needFiltering counts the
	// restrictions the index query filters with, every clustering one
	// included once the index is chosen for the clustering columns or for
	// a scan of partitions without token() (usesSecondaryIndexing before
	// processClusteringColumnsRestrictions ends). Only one may remain, and
	// it is the indexed one.
	filtering := query.Invalidf(filteringMsg)
	n := len(wi.Filters)
	onCk := false
	for _, f := range wi.Filters {
		if _, ok := f.(*ckPartFilter); ok {
			onCk = true
		}
	}
	if onCk || (!wi.PkComplete && !wi.hasToken()) {
		for _, p := range wi.Parts[:wi.Prefix] {
			n += p.width()
		}
	}
	if n != 1 {
		return nil, filtering
	}
	var ix *schema.Index
	if len(wi.Filters) == 1 {
		ix = indexFor(tbl, wi.Filters[0], wi.custom)
	} else {
		// The restriction counted is '=' or a slice on a clustering
		// column (a range query's only one): an index on the column that
		// supports it serves it
		// (ClusteringColumnRestrictions.hasSupportingIndex), read as the
		// index's filter rather than as slices.
		f := &ckPartFilter{tbl: tbl, part: wi.Parts[0]}
		if ix = indexFor(tbl, f, wi.custom); ix != nil && wi.Prefix == 1 {
			wi.Prefix = 0
			wi.Filters = append(wi.Filters, f)
		}
	}
	if ix == nil {
		return nil, filtering
	}
	wi.Index = ix
	return wi, nil
}

// indexableError marks the errors a query gets without ALLOW FILTERING that
// a secondary index may lift (the filtering message, a missing preceding
// clustering column, CONTAINS on a clustering column): CompileWhere looks
// for an index before it returns the wrapped error.
type indexableError struct{ err error }

func (e *indexableError) Error() string { return e.err.Error() }
func (e *indexableError) Unwrap() error { return e.err }

func indexable(err error) error { return &indexableError{err: err} }

// hasQueriableIndex reports whether an index of tbl supports one of the
// restrictions of w (analysed as with ALLOW FILTERING): StatementRestrictions'
// hasQueriableIndex.
func hasQueriableIndex(tbl *schema.Table, w *WhereClause) bool {
	for _, f := range w.Filters {
		if indexFor(tbl, f, w.custom) != nil {
			return true
		}
	}
	for _, p := range w.Parts {
		if indexFor(tbl, &ckPartFilter{tbl: tbl, part: p}, w.custom) != nil {
			return true
		}
	}
	for _, v := range w.Pk {
		if v != nil && indexFor(tbl, &valuesFilter{col: v.Col, vals: v}, w.custom) != nil {
			return true
		}
	}
	return false
}

// indexFor returns the index of tbl that supports filter f, or nil: a
// column index for =, the values, keys or entries index of a collection
// for CONTAINS, CONTAINS KEY and m[k] = v, a full index for = on a frozen
// collection, and a custom (SASI, SAI) index for = and ranges.
//
// A custom index whose Go instance answers supportsExpression
// (engine.IndexExpressionSupporter, through ci) serves only the operators
// it supports: a slice bound's GT, GTE, LT or LTE (TermSlice.isSupportedBy
// asks per bound), '=' for the others, CONTAINS and CONTAINS KEY.
func indexFor(tbl *schema.Table, f rowFilter, ci expr.CustomIndexes) *schema.Index {
	var col *schema.Column
	var ok func(ix *schema.Index) bool
	op := engine.IndexEQ
	supports := func(ix *schema.Index, column string) bool {
		if ix.Class == "" {
			return true
		}
		if op == engine.IndexEQ && isSASI(ix) {
			// ColumnIndex.supports: "EQ is only applicable to
			// non-tokenized indexes".
			if c := tbl.Column(column); c != nil && sasiTokenized(ix, c) {
				return false
			}
		}
		s, known := customSupports(ci, tbl, ix, column, op)
		return !known || s
	}
	switch f := f.(type) {
	case *valuesFilter:
		if f.vals.In || f.vals.marker != nil || len(f.vals.Terms) != 1 {
			return nil
		}
		col = f.col
		ok = func(ix *schema.Index) bool { return ix.Target == schema.IndexSimple || ix.Target == schema.IndexFull }
	case *ckPartFilter:
		if tv := f.part.tuple; tv != nil && !tv.in && len(tv.tuples)+len(tv.whole) == 1 {
			// A multi-column EQ is supported by an index on any of its
			// columns (MultiColumnRestriction.EQRestriction).
			for _, c := range tv.cols {
				for i := range tbl.Indexes {
					if ix := &tbl.Indexes[i]; ix.Column == c.Name && (ix.Target == schema.IndexSimple || ix.Target == schema.IndexFull) && supports(ix, c.Name) {
						return ix
					}
				}
			}
			return nil
		}
		if p := f.part; p.Single == nil && p.tuple == nil && !p.multi && p.IsSlice() {
			// A slice on one clustering column, as on a regular one
			// (SingleColumnRestriction.SliceRestriction).
			c := tbl.ClusteringColumns()[p.first]
			return sliceIndex(tbl, c, &sliceFilter{col: c, lo: p.lower, hi: p.upper}, ci)
		}
		if f.part.Single == nil || !f.part.Single.IsSingle() {
			return nil
		}
		col = f.part.Single.Col
		// An EQ on a frozen collection reads its full() index.
		ok = func(ix *schema.Index) bool { return ix.Target == schema.IndexSimple || ix.Target == schema.IndexFull }
	case *containsFilter:
		col = f.col
		want := schema.IndexValues
		op = engine.IndexContains
		if f.key {
			want, op = schema.IndexKeys, engine.IndexContainsKey
		}
		ok = func(ix *schema.Index) bool { return ix.Target == want }
	case *mapEntryFilter:
		col = f.col
		ok = func(ix *schema.Index) bool { return ix.Target == schema.IndexEntries }
	case *sliceFilter:
		return sliceIndex(tbl, f.col, f, ci)
	case *likeFilter:
		return f.index
	default:
		return nil
	}
	for i := range tbl.Indexes {
		if ix := &tbl.Indexes[i]; ix.Column == col.Name && ok(ix) && supports(ix, col.Name) {
			return ix
		}
	}
	return nil
}

// sliceIndex returns the index of tbl that supports slice f on col, or nil:
// one that supports the operator of either bound (TermSlice.isSupportedBy).
// A built-in index supports only '=' (CassandraIndex.supportsOperator); a
// SASI index supports ranges when sasiSupportsRange says so; a Go index
// that answers supportsExpression is asked per bound.
func sliceIndex(tbl *schema.Table, col *schema.Column, f *sliceFilter, ci expr.CustomIndexes) *schema.Index {
	bs, lower := f.bounds()
	for i, b := range bs {
		op := sliceOp(lower[i], b.incl)
		for j := range tbl.Indexes {
			ix := &tbl.Indexes[j]
			if ix.Column != col.Name || ix.Class == "" || ix.Target != schema.IndexSimple {
				continue
			}
			if isSASI(ix) && !sasiSupportsRange(ix, col) {
				continue
			}
			if s, known := customSupports(ci, tbl, ix, col.Name, op); !known || s {
				return ix
			}
		}
	}
	return nil
}

// customSupports asks the Go instance of custom index ix, through ci,
// whether it supports operator op on column (supportsExpression); known is
// false when ci is nil or the instance does not answer.
func customSupports(ci expr.CustomIndexes, tbl *schema.Table, ix *schema.Index, column string, op engine.IndexOperator) (supported, known bool) {
	if ci == nil {
		return false, false
	}
	return ci.CustomIndexSupports(tbl, ix.Name, column, op)
}

// sliceOp is the index operator of a slice bound: GT or GTE for a lower
// bound, LT or LTE for an upper one.
func sliceOp(lower, incl bool) engine.IndexOperator {
	switch {
	case lower && incl:
		return engine.IndexGTE
	case lower:
		return engine.IndexGT
	case incl:
		return engine.IndexLTE
	}
	return engine.IndexLT
}

// analyzeWhere analyses the relations of a SELECT on tbl, as if ALLOW
// FILTERING were given when allowFiltering is set.
func analyzeWhere(c *expr.CompileCtx, tbl *schema.Table, where []parser.Relation, allowFiltering bool) (*WhereClause, error) {
	w := &WhereClause{Tbl: tbl, part: c.Partitioner, allowFiltering: allowFiltering, Pk: make([]*WhereValues, len(tbl.PartitionKey())), Restricted: map[string]bool{}, custom: c.CustomIndexes}
	var pkSliced bool
	var ckRels []ckRelation
	var custom []*parser.CustomIndexExpression
	for _, rel := range where {
		switch r := rel.(type) {
		case *parser.CustomIndexExpression:
			custom = append(custom, r)
		case *parser.ColumnRelation:
			sliced, err := addColumnRelation(c, w, r)
			if err != nil {
				return nil, err
			}
			pkSliced = pkSliced || sliced
			if col := tbl.Column(string(r.Column)); col != nil && col.Kind == schema.Clustering && !allowFiltering {
				rel := ckRelation{first: col.Position, last: col.Position, slice: isSliceOp(r.Op)}
				if err := checkCkMerge(tbl, ckRels, rel, relationIndexed(tbl, col, r.Op, w.custom)); err != nil {
					return nil, err
				}
				ckRels = append(ckRels, rel)
			}
		case *parser.TupleRelation:
			if err := addTupleRelation(c, w, r); err != nil {
				return nil, err
			}
			if !allowFiltering && len(r.Columns) > 0 {
				if first := tbl.Column(string(r.Columns[0])); first != nil && first.Kind == schema.Clustering {
					rel := ckRelation{first: first.Position, last: first.Position + len(r.Columns) - 1, slice: isSliceOp(r.Op)}
					if err := checkCkMerge(tbl, ckRels, rel, false); err != nil {
						return nil, err
					}
					ckRels = append(ckRels, rel)
				}
			}
		case *parser.TokenRelation:
			if _, err := addTokenRelation(c, w, r); err != nil {
				return nil, err
			}
		}
	}
	// Custom index expressions come after the relations and before the
	// partition key checks, as in StatementRestrictions.
	if len(custom) > 0 {
		ix, err := checkCustomExpressions(c, tbl, custom)
		if err != nil {
			return nil, err
		}
		w.customIndex = ix
	}
	// Partition key.
	pkAny, pkAll := pkSliced, true
	for _, v := range w.Pk {
		if v != nil {
			pkAny = true
			if v.In {
				w.PkIn = true
			}
		} else {
			pkAll = false
		}
	}
	w.PkComplete = pkAll && !pkSliced
	// EQ or IN on every partition key column with token() relations reads
	// the partitions the keys name whose token the relations accept
	// (Cassandra's TokenFilter.NotOnToken); with a partial key, or a slice
	// on it, the read is a range read on the token bounds whose rows the
	// key restrictions filter (TokenFilter.OnToken, needFiltering), as
	// without token() relations.
	if pkAny && !w.PkComplete {
		if !allowFiltering {
			return nil, indexable(query.Invalidf(filteringMsg))
		}
		// Scan and filter on the key components.
		for _, v := range w.Pk {
			if v != nil {
				w.Filters = append(w.Filters, &valuesFilter{col: v.Col, vals: v})
			}
		}
		w.PkIn = false
	}
	if w.ckContains && !allowFiltering {
		return nil, indexable(query.Invalidf("Clustering columns can only be restricted with CONTAINS with a secondary index or filtering"))
	}
	// Clustering columns.
	sort.SliceStable(w.Parts, func(i, j int) bool { return w.Parts[i].first < w.Parts[j].first })
	ck := tbl.ClusteringColumns()
	next := 0
	w.Prefix = len(w.Parts)
	var prev *ckPart
	for i, p := range w.Parts {
		w.CkRestricted = true
		var gap error
		switch {
		case p.first > next && prev != nil && prev.IsSlice():
			gap = query.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", ck[p.first].Name, ck[next-1].Name)
		case p.first > next:
			gap = query.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", ck[p.first].Name, ck[next].Name)
		case prev != nil && prev.IsSlice():
			gap = query.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", ck[p.first].Name, ck[prev.first].Name)
		}
		if gap != nil {
			if !allowFiltering {
				return nil, indexable(gap)
			}
			if w.Prefix > i {
				w.Prefix, w.ckGap = i, gap
			}
		}
		if end := p.first + p.width(); end > next {
			next = end
		}
		prev = p
	}
	if w.CkRestricted && w.isKeyRange() && !allowFiltering {
		return nil, indexable(query.Invalidf(filteringMsg))
	}
	// Parts past the usable prefix become row filters; a multi-column
	// slice or IN cannot (MultiColumnRestriction.SliceRestriction and
	// INRestriction.addRowFilterTo).
	for _, p := range w.Parts[w.Prefix:] {
		if p.multi && p.IsSlice() {
			return nil, query.Invalidf("Multi-column slice restrictions cannot be used for filtering.")
		}
		if p.tuple != nil && p.tuple.in && len(p.tuple.cols) > 1 {
			return nil, query.Invalidf("Multicolumn IN filters are not supported")
		}
	}
	for _, p := range w.Parts[w.Prefix:] {
		w.Filters = append(w.Filters, &ckPartFilter{tbl: tbl, part: p})
	}
	if w.NonPK && !allowFiltering {
		return nil, indexable(query.Invalidf(filteringMsg))
	}
	return w, nil
}

// ckRelation is a clustering relation as ClusteringColumnRestrictions
// merges it: the positions of its first and last columns, and whether it
// is a slice.
type ckRelation struct {
	first, last int
	slice       bool
}

// checkCkMerge refuses, as ClusteringColumnRestrictions.mergeWith does
// while the WHERE clause's relations are added in their written order
// (before any partition key, CONTAINS or filtering check), a clustering
// relation that follows a slice on an earlier column, or a slice on a
// column before the last restricted one. The relation's own index, like
// ALLOW FILTERING (which the caller checks), lifts the check.
func checkCkMerge(tbl *schema.Table, prev []ckRelation, rel ckRelation, indexed bool) error {
	if len(prev) == 0 || indexed {
		return nil
	}
	// RestrictionSet.lastRestriction: the restriction of the last
	// restricted column.
	last := prev[0]
	for _, p := range prev[1:] {
		if p.last >= last.last {
			last = p
		}
	}
	ck := tbl.ClusteringColumns()
	if last.slice && rel.first > last.first {
		return query.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", ck[rel.first].Name, ck[last.first].Name)
	}
	if rel.first < last.first && rel.slice {
		return query.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", ck[rel.first+1].Name, ck[rel.first].Name)
	}
	return nil
}

// checkCustomExpressions applies StatementRestrictions'
// processCustomIndexExpressions to the custom index expressions of a SELECT
// on tbl: one at most, naming an index of tbl that is CUSTOM and supports
// custom expressions (a Go index whose instance gives a
// customExpressionValueType; SASI's is null), whose value it compiles with
// that type (a bind marker's name is "custom index expression"). It returns
// the index, or the first of Cassandra's errors that applies.
func checkCustomExpressions(c *expr.CompileCtx, tbl *schema.Table, exprs []*parser.CustomIndexExpression) (*schema.Index, error) {
	if len(exprs) > 1 {
		return nil, query.Invalidf("Multiple custom index expressions in a single query are not supported")
	}
	name := string(exprs[0].Index)
	for i := range tbl.Indexes {
		ix := &tbl.Indexes[i]
		if ix.Name != name {
			continue
		}
		if ix.Class == "" {
			return nil, query.Invalidf("Only CUSTOM indexes may be used in custom index expressions, %s is not valid", name)
		}
		if c.CustomIndexes != nil {
			if typ, ok := c.CustomIndexes.CustomExpressionValueType(tbl, name); ok {
				r := expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "custom index expression", Typ: typ}
				if _, err := c.CompileTerm(exprs[0].Value, r); err != nil {
					return nil, err
				}
				return ix, nil
			}
		}
		return nil, query.Invalidf("Index %s does not support custom expressions", name)
	}
	return nil, query.Invalidf("Invalid index expression, index %s not found for %s", name, tbl.QualifiedName())
}

// relationIndexed reports whether an index of tbl supports, by itself, the
// relation op on clustering column col: the new restriction's
// hasSupportingIndex that ClusteringColumnRestrictions.mergeWith asks
// before its order checks. '=' is supported by a column or full()
// index (a Go index that answers supportsExpression is asked), a slice
// bound as sliceIndex says, IN by none (neither CassandraIndex nor SASI
// supports Operator.IN); any index on the column lifts the checks for the
// other operators.
func relationIndexed(tbl *schema.Table, col *schema.Column, op parser.Operator, ci expr.CustomIndexes) bool {
	switch {
	case isSliceOp(op):
		b := &sliceBound{cols: []*schema.Column{col}, incl: op == parser.OpLte || op == parser.OpGte}
		return sliceIndex(tbl, col, sliceFilterFor(col, b, op == parser.OpGt || op == parser.OpGte), ci) != nil
	case op == parser.OpEq:
		for i := range tbl.Indexes {
			ix := &tbl.Indexes[i]
			if ix.Column != col.Name || (ix.Target != schema.IndexSimple && ix.Target != schema.IndexFull) {
				continue
			}
			if ix.Class == "" {
				return true
			}
			if s, known := customSupports(ci, tbl, ix, col.Name, engine.IndexEQ); !known || s {
				return true
			}
		}
		return false
	case op == parser.OpIn:
		return false
	}
	return hasIndexOn(tbl, col.Name)
}

// hasIndexOn reports whether a secondary index of tbl is on column name.
func hasIndexOn(tbl *schema.Table, name string) bool {
	for i := range tbl.Indexes {
		if tbl.Indexes[i].Column == name {
			return true
		}
	}
	return false
}

// checkRelationReceiver applies the checks SingleColumnRelation makes
// before it reads a relation's value: a slice on a type that holds a
// duration (newSliceRestriction, whose durations have no order), then a
// non-frozen UDT, which no relation may restrict (toReceivers).
func checkRelationReceiver(col *schema.Column, r *parser.ColumnRelation) error {
	t := col.Type
	switch r.Op {
	case parser.OpLt, parser.OpLte, parser.OpGt, parser.OpGte:
		if r.MapKey == nil && refersToDuration(t) {
			switch {
			case t.IsCollection():
				return query.Invalidf("Slice restrictions are not supported on collections containing durations")
			case t.IsUDT():
				return query.Invalidf("Slice restrictions are not supported on UDTs containing durations")
			case t.Kind == types.Tuple:
				return query.Invalidf("Slice restrictions are not supported on tuples containing durations")
			}
			return query.Invalidf("Slice restrictions are not supported on duration columns")
		}
	}
	if (r.Op == parser.OpContains || r.Op == parser.OpContainsKey) && !t.IsCollection() {
		// toReceivers makes the collection receiver first, which refuses
		// a non-collection (addColumnRelation says so).
		return nil
	}
	if t.IsUDT() && t.IsMultiCell() {
		return query.Invalidf("Non-frozen UDT column '%s' (%s) cannot be restricted by any relation", col.Name, t)
	}
	return nil
}

// refersToDuration reports whether t is, or holds, a duration
// (AbstractType.referencesDuration).
func refersToDuration(t types.Type) bool {
	if t.Kind == types.Duration {
		return true
	}
	for _, p := range t.Params {
		if refersToDuration(p) {
			return true
		}
	}
	return false
}

// addColumnRelation adds a single-column relation; it reports whether the
// relation slices a partition key column.
func addColumnRelation(c *expr.CompileCtx, w *WhereClause, r *parser.ColumnRelation) (bool, error) {
	tbl := w.Tbl
	col := tbl.Column(string(r.Column))
	if col == nil {
		return false, query.Invalidf("Undefined column name %s in table %s", r.Column.String(), tbl.QualifiedName())
	}
	recv := expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: col.Name, Typ: col.Type}
	switch r.Op {
	case parser.OpIsNot:
		return false, query.Invalidf("Unsupported restriction: %s", r)
	case parser.OpNeq:
		return false, query.Invalidf("Unsupported \"!=\" relation: %s", r)
	case parser.OpLike:
		// The relation's receivers are made (and a non-frozen UDT refused)
		// before StatementRestrictions looks for the index LIKE needs.
		if err := checkRelationReceiver(col, r); err != nil {
			return false, err
		}
		ix := sasiIndex(tbl, col.Name)
		// ColumnIndex.supports gives LIKE only to a literal index.
		if ix == nil || !sasiLiteral(ix, col) || col.Kind == schema.PartitionKey || (col.Type.Kind != types.Text && col.Type.Kind != types.Ascii) {
			return false, query.Invalidf("LIKE restriction is only supported on properly indexed columns. %s is not valid.", r)
		}
		t, err := c.CompileTerm(r.Value, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: col.Name, Typ: col.Type})
		if err != nil {
			return false, err
		}
		w.Restricted[col.Name] = true
		if col.Kind == schema.Clustering {
			w.CkRestricted = true
		} else {
			w.NonPK = true
		}
		// The LIKE merges into the restriction already on its column
		// (RestrictionSet.addRestriction), whose doMergeWith refuses it.
		if err := w.mergeLike(col); err != nil {
			return false, err
		}
		lf := &likeFilter{col: col, pattern: t, index: ix}
		if ct, ok := t.(expr.ConstTerm); ok && ct.V != nil {
			if _, _, _, err := lf.parse(ct.V); err != nil {
				return false, err
			}
		}
		w.Filters = append(w.Filters, lf)
		return false, nil
	}
	w.Restricted[col.Name] = true
	if err := checkRelationReceiver(col, r); err != nil {
		return false, err
	}
	if r.MapKey != nil {
		if col.Type.Kind != types.Map {
			return false, query.Invalidf("Column %s cannot be used as a map", col.Name)
		}
		if !col.Type.IsMultiCell() {
			return false, query.Invalidf("Map-entry equality predicates on frozen map column %s are not supported", col.Name)
		}
		if r.Op != parser.OpEq {
			return false, query.Invalidf("Unsupported \"%s\" relation: %s", r.Op, r)
		}
		kt, err := c.CompileTerm(r.MapKey, recv.Sub("key("+col.Name+")", col.Type.Params[0]))
		if err != nil {
			return false, err
		}
		vt, err := c.CompileTerm(r.Value, recv.Sub("value("+col.Name+")", col.Type.Params[1]))
		if err != nil {
			return false, err
		}
		if err := w.mergeContains(col); err != nil {
			return false, err
		}
		w.NonPK = true
		w.Filters = append(w.Filters, &mapEntryFilter{col: col, key: kt, val: vt})
		return false, nil
	}
	if r.Op == parser.OpContains || r.Op == parser.OpContainsKey {
		if !col.Type.IsCollection() {
			return false, query.Invalidf("Cannot use %s on non-collection column %s", r.Op, col.Name)
		}
		var et types.Type
		name := "value(" + col.Name + ")"
		switch {
		case r.Op == parser.OpContainsKey:
			if col.Type.Kind != types.Map {
				return false, query.Invalidf("Cannot use CONTAINS KEY on non-map column %s", col.Name)
			}
			et, name = col.Type.Params[0], "key("+col.Name+")"
		case col.Type.Kind == types.Map:
			et = col.Type.Params[1]
		default:
			et = col.Type.Params[0]
		}
		t, err := c.CompileTerm(r.Value, recv.Sub(name, et))
		if err != nil {
			return false, err
		}
		if col.Kind != schema.Clustering {
			if err := w.mergeContains(col); err != nil {
				return false, err
			}
		}
		switch col.Kind {
		case schema.Clustering:
			// Refused without filtering once every relation is added
			// (analyzeWhere), as processClusteringColumnsRestrictions does.
			w.ckContains = true
			w.CkRestricted = true
		case schema.PartitionKey:
			if !w.allowFiltering {
				return false, indexable(query.Invalidf(filteringMsg))
			}
		default:
			w.NonPK = true
		}
		w.Filters = append(w.Filters, &containsFilter{col: col, key: r.Op == parser.OpContainsKey, val: t})
		return false, nil
	}
	if col.Type.IsMultiCell() {
		return false, query.Invalidf("Collection column '%s' (%s) cannot be restricted by a '%s' relation", col.Name, col.Type, r.Op)
	}
	var vals *WhereValues
	var bound *sliceBound
	switch r.Op {
	case parser.OpEq:
		t, err := c.CompileTerm(r.Value, recv)
		if err != nil {
			return false, err
		}
		vals = &WhereValues{Col: col, Terms: []expr.Term{t}}
	case parser.OpIn:
		vals = &WhereValues{Col: col, In: true}
		switch v := r.Value.(type) {
		case *parser.BindMarker:
			vals.marker = c.Bind(v, recv.Sub("in("+col.Name+")", types.ListOf(col.Type, false)))
		case *parser.InList:
			for _, e := range v.Elems {
				t, err := c.CompileTerm(e, recv)
				if err != nil {
					return false, err
				}
				vals.Terms = append(vals.Terms, t)
			}
			// An IN of one value is an EQ restriction
			// (SingleColumnRelation.newINRestriction).
			vals.In = len(vals.Terms) != 1
		default:
			return false, query.Invalidf("Invalid IN relation: %s", r)
		}
	case parser.OpLt, parser.OpLte, parser.OpGt, parser.OpGte:
		t, err := c.CompileTerm(r.Value, recv)
		if err != nil {
			return false, err
		}
		bound = &sliceBound{cols: []*schema.Column{col}, terms: []expr.Term{t}, incl: r.Op == parser.OpLte || r.Op == parser.OpGte}
	default:
		return false, query.Invalidf("Unsupported \"%s\" relation: %s", r.Op, r)
	}
	isLower := r.Op == parser.OpGt || r.Op == parser.OpGte
	if col.Kind == schema.Clustering {
		if _, _, _, like := w.prevRestriction(col); like {
			return false, mergeLikeError(col.Name)
		}
		return false, w.addCkSingle(col, vals, bound, isLower)
	}
	// The relations on one partition key or non-primary-key column merge
	// into one restriction (RestrictionSet.addRestriction), with the
	// mergeWith errors of the restriction already there.
	prevVals, prevSlice, prevContains, prevLike := w.prevRestriction(col)
	switch {
	case prevLike:
		return false, mergeLikeError(col.Name)
	case prevContains:
		return false, query.Invalidf("Collection column %s can only be restricted by CONTAINS, CONTAINS KEY, or map-entry equality", col.Name)
	case prevVals != nil:
		return false, mergeEqError(col.Name, prevVals.In)
	case prevSlice != nil && bound == nil:
		return false, query.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.Name)
	case prevSlice != nil:
		return col.Kind == schema.PartitionKey, prevSlice.merge(bound, isLower)
	}
	if col.Kind == schema.PartitionKey {
		if bound != nil {
			// Without ALLOW FILTERING this is refused once all relations
			// are read, as Cassandra does; with it, the slice filters rows.
			w.Filters = append(w.Filters, sliceFilterFor(col, bound, isLower))
			return true, nil
		}
		w.Pk[col.Position] = vals
		return false, nil
	}
	w.NonPK = true
	if vals != nil {
		w.Filters = append(w.Filters, &valuesFilter{col: col, vals: vals})
	} else {
		w.Filters = append(w.Filters, sliceFilterFor(col, bound, isLower))
	}
	return false, nil
}

// prevRestriction returns the restriction already on partition key or
// regular column col: its EQ or IN values, its slice, whether it is a
// CONTAINS, CONTAINS KEY or map-entry one (ContainsRestriction), or whether
// it is a LIKE (LikeRestriction).
func (w *WhereClause) prevRestriction(col *schema.Column) (vals *WhereValues, slice *sliceFilter, contains, like bool) {
	if col.Kind == schema.PartitionKey {
		vals = w.Pk[col.Position]
	}
	for _, f := range w.Filters {
		switch f := f.(type) {
		case *valuesFilter:
			if f.col == col {
				vals = f.vals
			}
		case *sliceFilter:
			if f.col == col {
				slice = f
			}
		case *containsFilter:
			contains = contains || f.col == col
		case *mapEntryFilter:
			contains = contains || f.col == col
		case *likeFilter:
			like = like || f.col == col
		}
	}
	return vals, slice, contains, like
}

// mergeLike refuses a LIKE relation on col after any other relation on it,
// with the mergeWith error of the restriction already there: an EQ's or
// IN's, a slice's (SliceRestriction.doMergeWith wants another slice), a
// CONTAINS's, or another LIKE's.
func (w *WhereClause) mergeLike(col *schema.Column) error {
	vals, slice, contains, like := w.prevRestriction(col)
	if p := w.partAt(col.Position); col.Kind == schema.Clustering && p != nil && !p.multi && p.tuple == nil && p.first == col.Position {
		// A single-column clustering restriction (ClusteringColumnRestrictions
		// .mergeWith merges through its RestrictionSet as well).
		vals = p.Single
		if p.IsSlice() {
			slice = &sliceFilter{col: col}
		}
	}
	switch {
	case like:
		return mergeLikeError(col.Name)
	case contains:
		return query.Invalidf("Collection column %s can only be restricted by CONTAINS, CONTAINS KEY, or map-entry equality", col.Name)
	case vals != nil:
		return mergeEqError(col.Name, vals.In)
	case slice != nil:
		return query.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.Name)
	}
	return nil
}

// mergeContains refuses a CONTAINS, CONTAINS KEY or map-entry relation on
// col after an EQ, IN or slice on it, with the mergeWith error of the
// restriction already there; CONTAINS relations merge with each other.
func (w *WhereClause) mergeContains(col *schema.Column) error {
	vals, slice, _, like := w.prevRestriction(col)
	switch {
	case like:
		return mergeLikeError(col.Name)
	case vals != nil:
		return mergeEqError(col.Name, vals.In)
	case slice != nil:
		return query.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.Name)
	}
	return nil
}

// mergeLikeError is LikeRestriction.doMergeWith's error: a LIKE merges
// with no other relation on its column. The operator it names is the
// relation's, Operator.LIKE, whose text is "LIKE".
func mergeLikeError(name string) error {
	return query.Invalidf("%s cannot be restricted by more than one relation if it includes a LIKE", name)
}

// mergeEqError is EQRestriction's and INRestriction's doMergeWith error.
func mergeEqError(name string, in bool) error {
	if in {
		return query.Invalidf("%s cannot be restricted by more than one relation if it includes a IN", name)
	}
	return query.Invalidf("%s cannot be restricted by more than one relation if it includes an Equal", name)
}

// partAt returns the clustering part covering position pos, or nil.
func (w *WhereClause) partAt(pos int) *ckPart {
	for _, p := range w.Parts {
		if p.first <= pos && pos < p.first+p.width() {
			return p
		}
	}
	return nil
}

func (w *WhereClause) addCkSingle(col *schema.Column, vals *WhereValues, bound *sliceBound, isLower bool) error {
	p := &ckPart{first: col.Position, Single: vals}
	if bound != nil {
		if isLower {
			p.lower = bound
		} else {
			p.upper = bound
		}
	}
	return w.addCkPart(p)
}

// addCkPart adds the clustering restriction n, merging it, as
// RestrictionSet.addRestriction does, with each restriction already on one
// of its columns.
func (w *WhereClause) addCkPart(n *ckPart) error {
	var hits []*ckPart // the restrictions on n's columns, in column order
	for pos := n.first; pos < n.first+n.width(); pos++ {
		if p := w.partAt(pos); p != nil && (len(hits) == 0 || hits[len(hits)-1] != p) {
			hits = append(hits, p)
		}
	}
	if len(hits) == 0 {
		w.Parts = append(w.Parts, n)
		return nil
	}
	for _, x := range hits {
		m, err := w.mergeCkParts(x, n)
		if err != nil {
			return err
		}
		for i, p := range w.Parts {
			if p == x {
				w.Parts[i] = m
			}
		}
	}
	return nil
}

// mergeCkParts merges the new clustering restriction n into the existing
// restriction x, as x.mergeWith(n) does: when either is a multi-column
// restriction the other is taken as a multi-column one on its single column
// (SingleColumnRestriction.toMultiColumnRestriction), so a slice and a tuple
// slice starting on the same column merge into one slice, each bound keeping
// its own columns. An EQ or IN merges with nothing.
func (w *WhereClause) mergeCkParts(x, n *ckPart) (*ckPart, error) {
	ck := w.Tbl.ClusteringColumns()
	// MultiColumnRestriction.getColumnsInCommons.
	var common []string
	for pos := n.first; pos < n.first+n.width(); pos++ {
		if x.first <= pos && pos < x.first+x.width() {
			common = append(common, ck[pos].Name)
		}
	}
	names := strings.Join(common, " ,")
	multi := x.multi || n.multi
	if !x.IsSlice() {
		return nil, mergeEqError(names, x.isIn())
	}
	if !n.IsSlice() {
		return nil, query.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", names)
	}
	if x.first != n.first {
		later := x.first
		if n.first > later {
			later = n.first
		}
		return nil, query.Invalidf("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", ck[later].Name)
	}
	if x.lower != nil && n.lower != nil {
		return nil, query.Invalidf("More than one restriction was found for the start bound on %s", names)
	}
	if x.upper != nil && n.upper != nil {
		return nil, query.Invalidf("More than one restriction was found for the end bound on %s", names)
	}
	m := &ckPart{first: x.first, lower: x.lower, upper: x.upper, multi: multi}
	if n.lower != nil {
		m.lower = n.lower
	}
	if n.upper != nil {
		m.upper = n.upper
	}
	return m, nil
}

func addTupleRelation(c *expr.CompileCtx, w *WhereClause, r *parser.TupleRelation) error {
	tbl := w.Tbl
	if r.Op == parser.OpNeq {
		// Relation.toRestriction refuses the operator before it looks at
		// the columns.
		return query.Invalidf("Unsupported \"!=\" relation: %s", r)
	}
	cols := make([]*schema.Column, len(r.Columns))
	for i, id := range r.Columns {
		col := tbl.Column(string(id))
		if col == nil {
			return query.Invalidf("Undefined column name %s in table %s", id.String(), tbl.QualifiedName())
		}
		if col.Kind != schema.Clustering {
			return query.Invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", col.Name)
		}
		cols[i] = col
	}
	for i := 1; i < len(cols); i++ {
		if cols[i].Position != cols[i-1].Position+1 {
			if cols[i].Position < cols[i-1].Position {
				return query.Invalidf("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: %s", r)
			}
			return query.Invalidf("Clustering columns may not be skipped in multi-column relations. They should appear in the PRIMARY KEY order. Got %s", r)
		}
	}
	for _, col := range cols {
		w.Restricted[col.Name] = true
	}
	ttyp := tupleTypeOf(cols)
	trecv := expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: tupleName(cols), Typ: ttyp}
	compileTuple := func(e parser.Expr) ([]expr.Term, expr.Term, error) {
		switch v := e.(type) {
		case *parser.BindMarker:
			return nil, c.Bind(v, trecv), nil
		case *parser.TupleLit:
			if len(v.Elems) != len(cols) {
				return nil, nil, query.Invalidf("Expected %d elements in value tuple, but got %d: %s", len(cols), len(v.Elems), v)
			}
			ts := make([]expr.Term, len(cols))
			for i, el := range v.Elems {
				t, err := c.CompileTerm(el, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: cols[i].Name, Typ: cols[i].Type})
				if err != nil {
					return nil, nil, err
				}
				ts[i] = t
			}
			return ts, nil, nil
		}
		return nil, nil, query.Invalidf("Invalid tuple value %s for %s", e, tupleName(cols))
	}
	first := cols[0].Position
	switch r.Op {
	case parser.OpEq, parser.OpIn:
		tv := &tupleValues{cols: cols, in: r.Op == parser.OpIn}
		if r.Op == parser.OpEq {
			ts, whole, err := compileTuple(r.Value)
			if err != nil {
				return err
			}
			if whole != nil {
				tv.whole = []expr.Term{whole}
			} else {
				tv.tuples = [][]expr.Term{ts}
			}
		} else {
			switch v := r.Value.(type) {
			case *parser.BindMarker:
				tv.marker = c.Bind(v, trecv.Sub("in("+tupleName(cols)+")", types.ListOf(ttyp, false)))
			case *parser.InList:
				for _, el := range v.Elems {
					ts, whole, err := compileTuple(el)
					if err != nil {
						return err
					}
					if whole != nil {
						tv.whole = append(tv.whole, whole)
					} else {
						tv.tuples = append(tv.tuples, ts)
					}
				}
			default:
				return query.Invalidf("Invalid IN relation: %s", r)
			}
		}
		if tv.in && tv.marker == nil && len(tv.tuples)+len(tv.whole) == 1 {
			// MultiColumnRelation.newINRestriction: an IN of one tuple is
			// an EQ.
			tv.in = false
		}
		return w.addCkPart(&ckPart{first: first, tuple: tv, multi: true})
	case parser.OpLt, parser.OpLte, parser.OpGt, parser.OpGte:
		ts, whole, err := compileTuple(r.Value)
		if err != nil {
			return err
		}
		b := &sliceBound{cols: cols, incl: r.Op == parser.OpLte || r.Op == parser.OpGte, terms: ts, whole: whole, multi: true}
		p := &ckPart{first: first, multi: true}
		if r.Op == parser.OpGt || r.Op == parser.OpGte {
			p.lower = b
		} else {
			p.upper = b
		}
		return w.addCkPart(p)
	}
	return query.Invalidf("Unsupported \"%s\" relation: %s", r.Op, r)
}

// addTokenRelation adds token(k...) op value and returns the column list as
// Cassandra prints it in messages.
func addTokenRelation(c *expr.CompileCtx, w *WhereClause, r *parser.TokenRelation) (string, error) {
	tbl := w.Tbl
	pk := tbl.PartitionKey()
	names := make([]string, len(r.Columns))
	for i, id := range r.Columns {
		col := tbl.Column(string(id))
		if col == nil {
			return "", query.Invalidf("Undefined column name %s in table %s", id.String(), tbl.QualifiedName())
		}
		if col.Kind != schema.PartitionKey {
			return "", query.Invalidf("The token() function must contains only partition key components")
		}
		names[i] = col.Name
	}
	if len(r.Columns) != len(pk) {
		return "", query.Invalidf("The token() function must be applied to all partition key components or none of them")
	}
	for i, col := range pk {
		if names[i] != col.Name {
			pkNames := make([]string, len(pk))
			for j, c := range pk {
				pkNames[j] = c.Name
			}
			return "", query.Invalidf("The token function arguments must be in the partition key order: %s", strings.Join(pkNames, ", "))
		}
	}
	for _, n := range names {
		w.Restricted[n] = true
	}
	joined := strings.Join(names, ", ")
	var t expr.Term
	if fc, ok := r.Value.(*parser.FuncCall); ok && fc.Keyspace == "" && strings.EqualFold(string(fc.Name), "token") {
		if len(fc.Args) != len(pk) {
			return "", query.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(pk), len(fc.Args))
		}
		args := make([]expr.Term, len(pk))
		argTypes := make([]types.Type, len(pk))
		for i, col := range pk {
			argTypes[i] = col.Type
		}
		c.UsedNative("token", argTypes)
		for i, a := range fc.Args {
			at, err := c.CompileTerm(a, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: pk[i].Name, Typ: pk[i].Type})
			if err != nil {
				return "", err
			}
			args[i] = at
		}
		t = tokenOfTerm{tbl: tbl, part: c.Partitioner, args: args}
	} else {
		var err error
		t, err = c.CompileTerm(r.Value, expr.Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: "partition key token", Typ: expr.TokenType(c.Partitioner)})
		if err != nil {
			return "", err
		}
	}
	switch r.Op {
	case parser.OpEq:
		if w.tokenEq != nil {
			return "", mergeEqError(joined, false)
		}
		if w.tokenLower != nil || w.tokenUp != nil {
			return "", query.Invalidf("Columns \"%s\" cannot be restricted by both an equality and an inequality relation", joined)
		}
		w.tokenEq = t
	case parser.OpGt, parser.OpGte:
		if w.tokenEq != nil {
			return "", mergeEqError(joined, false)
		}
		if w.tokenLower != nil {
			return "", query.Invalidf("More than one restriction was found for the start bound on %s", joined)
		}
		w.tokenLower = &tokenBound{t: t, incl: r.Op == parser.OpGte}
	case parser.OpLt, parser.OpLte:
		if w.tokenEq != nil {
			return "", mergeEqError(joined, false)
		}
		if w.tokenUp != nil {
			return "", query.Invalidf("More than one restriction was found for the end bound on %s", joined)
		}
		w.tokenUp = &tokenBound{t: t, incl: r.Op == parser.OpLte}
	default:
		return "", query.Invalidf("Unsupported \"%s\" relation: %s", r.Op, r)
	}
	return joined, nil
}

// tokenOfTerm evaluates token(v1, ...) on values: the partitioner's token
// of the serialized partition key (expr.TokenValue).
type tokenOfTerm struct {
	tbl  *schema.Table
	part partitioner.Partitioner
	args []expr.Term
}

func (t tokenOfTerm) Eval(q *query.Execution) (query.Value, error) {
	parts := make([][]byte, len(t.args))
	for i, a := range t.args {
		v, err := a.Eval(q)
		if err != nil {
			return query.Value{}, err
		}
		if v.Unset {
			// FunctionCall refuses an unset argument of any function.
			return query.Value{}, query.Invalidf("Invalid unset value for argument in call to function token")
		}
		if v.Bytes == nil {
			return query.Value{}, query.Invalidf("Invalid null value for partition key part %s", t.tbl.PartitionKey()[i].Name)
		}
		parts[i] = v.Bytes
	}
	key, err := query.SerializePartitionKey(parts)
	if err != nil {
		return query.Value{}, err
	}
	return query.Value{Bytes: expr.TokenValue(t.part, key)}, nil
}

// PartitionKeys returns the serialized partition keys selected by EQ/IN
// restrictions, sorted by the partition key's type order and without
// duplicates: Cassandra builds them with a MultiCBuilder into a sorted set
// (PartitionKeySingleRestrictionSet.values), so k IN (3, 1) reads 1 then 3.
// It must only be called when pkComplete is set. With token() relations too,
// only the keys whose token they accept are returned (TokenFilter).
func (w *WhereClause) PartitionKeys(q *query.Execution) ([][]byte, [][][]byte, error) {
	pkCols := w.Tbl.PartitionKey()
	sets := make([][][]byte, len(w.Pk))
	for i, v := range w.Pk {
		vals, err := v.Eval(q)
		if err != nil {
			return nil, nil, err
		}
		sets[i] = sortedUnique(pkCols[i].Type, false, vals)
	}
	combos := cartesian(sets)
	var accepts func(key []byte) bool
	if w.hasToken() {
		var err error
		if accepts, err = w.tokenFilter(q); err != nil {
			return nil, nil, err
		}
	}
	keys := make([][]byte, 0, len(combos))
	kept := combos[:0]
	for _, combo := range combos {
		k, err := query.SerializePartitionKey(combo)
		if err != nil {
			return nil, nil, err
		}
		if accepts != nil && !accepts(k) {
			continue
		}
		keys = append(keys, k)
		kept = append(kept, combo)
	}
	return keys, kept, nil
}

// sortedUnique sorts values by the type's comparator (reversed for desc) and
// removes duplicates.
func sortedUnique(t types.Type, desc bool, vals [][]byte) [][]byte {
	out := append([][]byte(nil), vals...)
	sort.SliceStable(out, func(i, j int) bool {
		c := types.Compare(t, out[i], out[j])
		if desc {
			return c > 0
		}
		return c < 0
	})
	n := 0
	for i, v := range out {
		if i > 0 && types.Compare(t, v, out[n-1]) == 0 {
			continue
		}
		out[n] = v
		n++
	}
	return out[:n]
}

// clusteringPrefixes returns the clustering prefixes fixed by the EQ/IN
// parts of the usable prefix (sorted in clustering order, deduplicated), and
// the slice part that follows them (nil if none).
func (w *WhereClause) clusteringPrefixes(q *query.Execution) ([][][]byte, *ckPart, error) {
	prefixes := [][][]byte{{}}
	for _, p := range w.Parts[:w.Prefix] {
		if p.IsSlice() {
			return prefixes, p, nil
		}
		var sets [][][]byte // alternatives for the columns of p
		if p.Single != nil {
			vals, err := p.Single.Eval(q)
			if err != nil {
				return nil, nil, err
			}
			for _, v := range vals {
				sets = append(sets, [][]byte{v})
			}
		} else {
			tuples, err := p.tuple.Eval(q)
			if err != nil {
				return nil, nil, err
			}
			sets = tuples
		}
		next := make([][][]byte, 0, len(prefixes)*len(sets))
		for _, pre := range prefixes {
			for _, s := range sets {
				next = append(next, append(append(make([][]byte, 0, len(pre)+len(s)), pre...), s...))
			}
		}
		prefixes = next
	}
	// Sort in clustering order and deduplicate.
	cols := w.Tbl.ClusteringTypes()
	type enc struct {
		key  []byte
		vals [][]byte
	}
	encs := make([]enc, 0, len(prefixes))
	for _, pre := range prefixes {
		b, err := types.EncodeBound(cols[:len(pre)], pre, types.StartInclusive)
		if err != nil {
			return nil, nil, query.Invalidf("%v", expr.UnwrapReason(err))
		}
		encs = append(encs, enc{b, pre})
	}
	sort.SliceStable(encs, func(i, j int) bool { return bytes.Compare(encs[i].key, encs[j].key) < 0 })
	out := prefixes[:0]
	for i, e := range encs {
		if i > 0 && bytes.Equal(e.key, encs[i-1].key) {
			continue
		}
		out = append(out, e.vals)
	}
	return out, nil, nil
}

// Slices returns the clustering slices to read, sorted and merged, or nil
// when every row is selected. none is set when no row can match.
func (w *WhereClause) Slices(q *query.Execution) (ss data.Slices, none bool, err error) {
	if w.Prefix == 0 {
		return nil, false, nil
	}
	prefixes, slice, err := w.clusteringPrefixes(q)
	if err != nil {
		return nil, false, err
	}
	if len(prefixes) == 0 {
		return nil, true, nil
	}
	cols := w.Tbl.ClusteringTypes()
	var lower, upper [][]byte
	if slice != nil {
		if slice.lower != nil {
			if lower, err = slice.lower.Eval(q); err != nil {
				return nil, false, err
			}
		}
		if slice.upper != nil {
			if upper, err = slice.upper.Eval(q); err != nil {
				return nil, false, err
			}
		}
	}
	for _, pre := range prefixes {
		all, err := PrefixRange(cols, pre)
		if err != nil {
			return nil, false, err
		}
		if slice == nil {
			ss = append(ss, all)
			continue
		}
		rs := []data.Slice{all}
		if slice.lower != nil {
			lr, err := boundRanges(cols, pre, lower, slice.lower.incl, true)
			if err != nil {
				return nil, false, err
			}
			rs = IntersectRanges(rs, lr)
		}
		if slice.upper != nil {
			ur, err := boundRanges(cols, pre, upper, slice.upper.incl, false)
			if err != nil {
				return nil, false, err
			}
			rs = IntersectRanges(rs, ur)
		}
		ss = append(ss, rs...)
	}
	ss = mergeRanges(ss)
	if len(ss) == 0 {
		return nil, true, nil
	}
	return ss, false, nil
}

// PrefixRange is the byte range of every key starting with prefix.
func PrefixRange(cols []types.ClusteringColumn, prefix [][]byte) (data.Slice, error) {
	s, err := types.EncodeBound(cols[:len(prefix)], prefix, types.StartInclusive)
	if err != nil {
		return data.Slice{}, query.Invalidf("%v", expr.UnwrapReason(err))
	}
	e, err := types.EncodeBound(cols[:len(prefix)], prefix, types.EndInclusive)
	if err != nil {
		return data.Slice{}, query.Invalidf("%v", expr.UnwrapReason(err))
	}
	return data.Slice{Start: s, End: e}, nil
}

// boundRanges returns the sorted byte ranges of the keys with prefix pre
// whose following columns compare, as a tuple in value order, above
// (lower) or below (!lower) vals. A tuple comparison (c1, c2) > (v1, v2) is
// the union of c1 > v1 and (c1 = v1 AND c2 > v2), plus equality when
// inclusive; each piece is one column slice after an equality prefix, and a
// slice on a DESC column is a reversed byte range. So mixed ASC/DESC columns
// give several ranges.
func boundRanges(cols []types.ClusteringColumn, pre, vals [][]byte, incl, lower bool) ([]data.Slice, error) {
	var out []data.Slice
	for i := range vals {
		p := append(append(make([][]byte, 0, len(pre)+i+1), pre...), vals[:i]...)
		col := cols[len(p)]
		withV := append(append(make([][]byte, 0, len(p)+1), p...), vals[i])
		last := i == len(vals)-1
		// The piece "column > v" (lower) or "column < v" (upper); at the
		// last column, inclusive bounds also take "column = v".
		inclHere := last && incl
		all, err := PrefixRange(cols, p)
		if err != nil {
			return nil, err
		}
		var r data.Slice
		var kind types.BoundKind
		greaterInBytes := lower != (col.Order == types.Desc) // the piece lies after v in byte order
		if greaterInBytes {
			if inclHere {
				kind = types.StartInclusive
			} else {
				kind = types.StartExclusive
			}
			b, err := types.EncodeBound(cols[:len(withV)], withV, kind)
			if err != nil {
				return nil, query.Invalidf("%v", expr.UnwrapReason(err))
			}
			r = data.Slice{Start: b, End: all.End}
		} else {
			if inclHere {
				kind = types.EndInclusive
			} else {
				kind = types.EndExclusive
			}
			b, err := types.EncodeBound(cols[:len(withV)], withV, kind)
			if err != nil {
				return nil, query.Invalidf("%v", expr.UnwrapReason(err))
			}
			r = data.Slice{Start: all.Start, End: b}
		}
		out = append(out, r)
	}
	return mergeRanges(out), nil
}

// IntersectRanges intersects two sorted lists of disjoint ranges.
func IntersectRanges(a, b []data.Slice) []data.Slice {
	var out []data.Slice
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		start := a[i].Start
		if bytes.Compare(b[j].Start, start) > 0 {
			start = b[j].Start
		}
		end := a[i].End
		if bytes.Compare(b[j].End, end) < 0 {
			end = b[j].End
		}
		if bytes.Compare(start, end) < 0 {
			out = append(out, data.Slice{Start: start, End: end})
		}
		if bytes.Compare(a[i].End, b[j].End) < 0 {
			i++
		} else {
			j++
		}
	}
	return out
}

// mergeRanges sorts ranges by start and merges overlapping or touching ones;
// empty ranges are dropped.
func mergeRanges(rs []data.Slice) []data.Slice {
	sort.Slice(rs, func(i, j int) bool { return bytes.Compare(rs[i].Start, rs[j].Start) < 0 })
	var out []data.Slice
	for _, r := range rs {
		if bytes.Compare(r.Start, r.End) >= 0 {
			continue
		}
		if n := len(out); n > 0 && bytes.Compare(r.Start, out[n-1].End) <= 0 {
			if bytes.Compare(r.End, out[n-1].End) > 0 {
				out[n-1].End = r.End
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// IsSingle reports whether the restriction is one '=' term.
func (w *WhereValues) IsSingle() bool {
	return !w.In && w.marker == nil && len(w.Terms) == 1
}

// SingleValue evaluates a single '=' restriction with the checks and error
// texts of eval.
func (w *WhereValues) SingleValue(q *query.Execution) ([]byte, error) {
	v, err := w.Terms[0].Eval(q)
	if err != nil {
		return nil, err
	}
	if v.Unset {
		return nil, query.Invalidf("Invalid unset value for column %s", w.Col.Name)
	}
	if v.Bytes == nil {
		return nil, query.Invalidf("Invalid null value in condition for column %s", w.Col.Name)
	}
	return v.Bytes, nil
}

// isSliceOp reports whether op is <, <=, > or >=.
func isSliceOp(op parser.Operator) bool {
	return op == parser.OpLt || op == parser.OpLte || op == parser.OpGt || op == parser.OpGte
}
