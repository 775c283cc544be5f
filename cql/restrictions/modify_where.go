package restrictions

import (
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// StmtKind names a modification statement in Cassandra's error texts.
type StmtKind string

const (
	KindInsert StmtKind = "INSERT"
	KindUpdate StmtKind = "UPDATE"
	KindDelete StmtKind = "DELETE"
)

// ModWhere is the compiled WHERE clause of an UPDATE or DELETE, or the key
// of an INSERT. It is the SELECT compiler's analysis (whereClause), checked
// against the rules Cassandra's StatementRestrictions applies to
// modification statements, so both share every relation, merge rule and
// error text: UPDATE and DELETE accept multi-column relations, IN on any
// clustering column and, for DELETE, single or multi-column slices.
type ModWhere struct {
	tbl *schema.Table
	sel *WhereClause
}

// CompileModWhere analyses the WHERE clause of an UPDATE or DELETE on tbl.
// staticOnly is set when the statement writes static columns only. The
// checks come in Cassandra's order: operators the statement cannot use,
// each relation as it is added, the partition key, static-only statements,
// the clustering columns, and last the non-key columns.
func CompileModWhere(c *expr.CompileCtx, tbl *schema.Table, where []parser.Relation, kind StmtKind, staticOnly bool) (*ModWhere, error) {
	// ModificationStatement.Parsed.newRestrictions refuses custom index
	// expressions before it builds the restrictions.
	for _, rel := range where {
		if _, ok := rel.(*parser.CustomIndexExpression); ok {
			return nil, query.Invalidf("Custom index expressions cannot be used in WHERE clauses for UPDATE or DELETE statements")
		}
	}
	var nonPK []string
	for _, rel := range where {
		r, ok := rel.(*parser.ColumnRelation)
		if !ok {
			continue
		}
		switch r.Op {
		case parser.OpContains, parser.OpContainsKey:
			return nil, query.Invalidf("Cannot use %s with %s", kind, r.Op)
		case parser.OpLike:
			return nil, query.Invalidf("LIKE restriction is only supported on properly indexed columns. %s is not valid.", r)
		}
		if col := tbl.Column(string(r.Column)); col != nil && (col.Kind == schema.Regular || col.Kind == schema.Static) && !slices.Contains(nonPK, col.Name) {
			nonPK = append(nonPK, col.Name)
		}
	}
	// Analysed as if ALLOW FILTERING were given, so that the rules below,
	// not SELECT's, decide what is refused.
	sel, err := analyzeWhere(c, tbl, where, true)
	if err != nil {
		return nil, err
	}
	w := &ModWhere{tbl: tbl, sel: sel}
	if sel.hasToken() {
		return nil, query.Invalidf("The token function cannot be used in WHERE clauses for %s statements", kind)
	}
	var missing []string
	for _, col := range tbl.PartitionKey() {
		if !sel.Restricted[col.Name] {
			missing = append(missing, col.Name)
		}
	}
	if len(missing) > 0 {
		return nil, query.Invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	if !sel.PkComplete {
		return nil, query.Invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", kind)
	}
	if staticOnly && w.CkRestricted() {
		return nil, query.Invalidf("Invalid restrictions on clustering columns since the %s statement modifies only static columns", kind)
	}
	if kind == KindUpdate {
		for _, p := range sel.Parts {
			if p.IsSlice() {
				return nil, query.Invalidf("Slice restrictions are not supported on the clustering columns in %s statements", kind)
			}
		}
		if !staticOnly && !w.FullClustering() {
			// A compact table's UPDATE that restricts some clustering
			// columns skips the missing clustering check
			// (processClusteringColumnsRestrictions), so a gap is refused as
			// such; minicass then refuses a clean prefix as missing keys,
			// as it writes no row of a clustering prefix
			// (docs/compatibility.md).
			if tbl.IsCompact() && w.CkRestricted() && sel.ckGap != nil {
				return nil, sel.ckGap
			}
			return nil, query.Invalidf("Some clustering keys are missing: %s", w.missingClustering())
		}
	} else if sel.ckGap != nil {
		return nil, sel.ckGap
	}
	if len(nonPK) > 0 {
		return nil, query.Invalidf("Non PRIMARY KEY columns found in where clause: %s ", strings.Join(nonPK, ", "))
	}
	return w, nil
}

// InsertWhere is the key of an INSERT: one '=' per partition key column and
// per given clustering column (a prefix of them, possibly none).
func InsertWhere(tbl *schema.Table, pk, ck []*WhereValues) *ModWhere {
	sel := &WhereClause{Tbl: tbl, Pk: pk, PkComplete: true, Parts: make([]*ckPart, len(ck)), Prefix: len(ck)}
	for i, kv := range ck {
		sel.Parts[i] = &ckPart{first: i, Single: kv}
	}
	sel.CkRestricted = len(ck) > 0
	return &ModWhere{tbl: tbl, sel: sel}
}

// CkRestricted reports whether any clustering column is restricted.
func (w *ModWhere) CkRestricted() bool { return len(w.sel.Parts) > 0 }

// FullClustering reports whether every clustering column is restricted by EQ
// or IN, so that the statement names whole rows.
func (w *ModWhere) FullClustering() bool {
	n := 0
	for _, p := range w.sel.Parts[:w.sel.Prefix] {
		if p.IsSlice() {
			return false
		}
		n += p.width()
	}
	return n == len(w.tbl.ClusteringColumns())
}

// missingClustering returns the names of unrestricted clustering columns.
func (w *ModWhere) missingClustering() string {
	var names []string
	for _, col := range w.tbl.ClusteringColumns() {
		if !w.sel.Restricted[col.Name] {
			names = append(names, col.Name)
		}
	}
	return strings.Join(names, ", ")
}

// SingleKey returns the partition key and clustering restrictions when each
// column has its own '=' of one term (the single-row fast path), or false.
func (w *ModWhere) SingleKey() (pk, ck []*WhereValues, ok bool) {
	for _, kv := range w.sel.Pk {
		if !kv.IsSingle() {
			return nil, nil, false
		}
	}
	if len(w.sel.Parts) != len(w.tbl.ClusteringColumns()) {
		return nil, nil, false
	}
	ck = make([]*WhereValues, len(w.sel.Parts))
	for i, p := range w.sel.Parts {
		if p.first != i || p.Single == nil || p.IsSlice() || !p.Single.IsSingle() {
			return nil, nil, false
		}
		ck[i] = p.Single
	}
	return w.sel.Pk, ck, true
}

// KeyIsIn reports whether a partition key column is restricted by IN, even
// of one value (Cassandra's StatementRestrictions.keyIsInRelation).
func (w *ModWhere) KeyIsIn() bool {
	for _, kv := range w.sel.Pk {
		if kv.In {
			return true
		}
	}
	return false
}

// ClusteringHasIn reports whether a clustering column is restricted by IN
// (Cassandra's clusteringKeyRestrictionsHasIN).
func (w *ModWhere) ClusteringHasIn() bool {
	for _, p := range w.sel.Parts {
		if p.isIn() {
			return true
		}
	}
	return false
}

// HasSlices reports whether the statement names ranges of rows rather than
// rows: clustering columns are restricted, but not all of them by EQ or IN
// (ModificationStatement.hasSlices, for a DELETE).
func (w *ModWhere) HasSlices() bool { return w.CkRestricted() && !w.FullClustering() }

// PkValues returns the partition key restrictions, one per column.
func (w *ModWhere) PkValues() []*WhereValues { return w.sel.Pk }

// PartitionKeys evaluates the partition key restrictions into serialized
// keys, sorted and without duplicates, as Cassandra builds them.
func (w *ModWhere) PartitionKeys(q *query.Execution) ([][]byte, error) {
	keys, _, err := w.sel.PartitionKeys(q)
	return keys, err
}

// ClusteringPrefixes evaluates the clustering EQ/IN restrictions into value
// tuples in clustering order, without duplicates.
func (w *ModWhere) ClusteringPrefixes(q *query.Execution) ([][][]byte, error) {
	prefixes, _, err := w.sel.clusteringPrefixes(q)
	if err != nil {
		return nil, err
	}
	for _, pre := range prefixes {
		if err := CheckClusteringSize(pre); err != nil {
			return nil, err
		}
	}
	return prefixes, nil
}

// CheckClusteringSize refuses a clustering whose values together pass 65535
// bytes, with their total (ModificationStatement.validateClustering, whose
// message gives clustering.dataSize(); CASSANDRA-18504, 4.1.3, checks the
// total as InsertInvalidateSizedRecordsTest expects).
func CheckClusteringSize(values [][]byte) error {
	total := 0
	for _, v := range values {
		total += len(v)
	}
	if total > 0xFFFF {
		return query.Invalidf("Key length of %d is longer than maximum of 65535", total)
	}
	return nil
}

// Ranges returns the clustering ranges a DELETE of rows removes, sorted and
// merged (Cassandra's Slices); none is set when they select no row.
func (w *ModWhere) Ranges(q *query.Execution) (ss data.Slices, none bool, err error) {
	return w.sel.Slices(q)
}

// cartesian returns every combination of one value per column.
func cartesian(sets [][][]byte) [][][]byte {
	out := [][][]byte{{}}
	for _, set := range sets {
		next := make([][][]byte, 0, len(out)*len(set))
		for _, prefix := range out {
			for _, v := range set {
				combo := append(append(make([][]byte, 0, len(prefix)+1), prefix...), v)
				next = append(next, combo)
			}
		}
		out = next
	}
	return out
}
