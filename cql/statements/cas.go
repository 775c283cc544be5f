package statements

import (
	"bytes"
	"context"
	"sort"

	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// casKind is the kind of condition a conditional statement puts on one row.
type casKind uint8

const (
	casColumns casKind = iota + 1
	casExists
	casNotExists
)

// casRequest gathers what the conditional statements of one partition (one
// statement, or every statement of a conditional BATCH) check, as Cassandra's
// CQL3CasRequest does: the kind of condition on each row (by clustering, the
// static row apart), which columns the read fetches, and which columns a
// result that did not apply reports. Its read of the current state decides
// the rows of that result, whichever condition failed.
type casRequest struct {
	tbl *schema.Table
	key []byte
	// rows holds the kind of condition on each clustering row, keyed by
	// the encoded clustering; static is the static row's (0 if none).
	rows   map[string]casKind
	static casKind
	// updatesRegular and updatesStatic say whether a statement writes a
	// clustering row or the static row: the read then fetches every
	// regular (or static) column, else only the conditioned ones.
	updatesRegular, updatesStatic bool
	condRegular, condStatic       map[string]bool
	// wildcard is set when a statement has IF EXISTS or IF NOT EXISTS:
	// the result then has every column, in SELECT * order. Otherwise it
	// has resultCols: the primary key for a batch, then each statement's
	// conditioned columns, regular ones first, in IF order, without
	// repeats.
	wildcard   bool
	resultCols []*schema.Column
	seen       map[string]bool
}

func newCASRequest(tbl *schema.Table, key []byte, batch bool) *casRequest {
	r := &casRequest{tbl: tbl, key: key, rows: map[string]casKind{}, condRegular: map[string]bool{}, condStatic: map[string]bool{}, seen: map[string]bool{}}
	if batch {
		for _, c := range tbl.Columns {
			if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering {
				r.addResultColumn(c)
			}
		}
	}
	return r
}

func (r *casRequest) addResultColumn(c *schema.Column) {
	if !r.seen[c.Name] {
		r.seen[c.Name] = true
		r.resultCols = append(r.resultCols, c)
	}
}

// add records a statement's conditions on the row at clustering (nil when
// the statement writes only the static row).
func (r *casRequest) add(mp *modPlan, clustering []byte) error {
	if mp.staticOnly {
		r.updatesStatic = true
	} else {
		r.updatesRegular = true
	}
	for _, o := range mp.ops {
		if o.col.Kind == schema.Static {
			r.updatesStatic = true
		}
	}
	cs := mp.conds
	if cs == nil {
		return nil
	}
	if cs.ifExists || cs.ifNotExists {
		r.wildcard = true
		kind := casExists
		if cs.ifNotExists {
			kind = casNotExists
		}
		return r.addExists(clustering, kind)
	}
	var regular, static bool
	for _, c := range cs.conds {
		if c.col.Kind == schema.Static {
			static = true
			r.condStatic[c.col.Name] = true
		} else {
			regular = true
			r.condRegular[c.col.Name] = true
			r.addResultColumn(c.col)
		}
	}
	for _, c := range cs.conds {
		if c.col.Kind == schema.Static {
			r.addResultColumn(c.col)
		}
	}
	if regular {
		if err := r.addColumnConditions(clustering); err != nil {
			return err
		}
	}
	if static {
		return r.addColumnConditions(nil)
	}
	return nil
}

func (r *casRequest) kindOf(clustering []byte) casKind {
	if clustering == nil {
		return r.static
	}
	return r.rows[string(clustering)]
}

func (r *casRequest) setKind(clustering []byte, k casKind) {
	if clustering == nil {
		r.static = k
		return
	}
	r.rows[string(clustering)] = k
}

// addExists adds an IF EXISTS or IF NOT EXISTS condition, refusing to mix it
// with another kind of condition on the same row (CQL3CasRequest's
// addExistsCondition).
func (r *casRequest) addExists(clustering []byte, kind casKind) error {
	switch prev := r.kindOf(clustering); {
	case prev == 0:
		r.setKind(clustering, kind)
	case prev == kind:
	case prev == casExists || prev == casNotExists:
		return query.Invalidf("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")
	case kind == casNotExists:
		return query.Invalidf("Cannot mix IF conditions and IF NOT EXISTS for the same row")
	default:
		return query.Invalidf("Cannot mix IF conditions and IF EXISTS for the same row")
	}
	return nil
}

func (r *casRequest) addColumnConditions(clustering []byte) error {
	switch r.kindOf(clustering) {
	case 0:
		r.setKind(clustering, casColumns)
	case casExists, casNotExists:
		return query.Invalidf("Cannot mix IF conditions and IF NOT EXISTS for the same row")
	}
	return nil
}

// failure builds the result of a request that did not apply: [applied] false
// and, for each row the request's read returns, the result columns
// (buildCasFailureResultSet). The read fetches the conditioned rows, or the
// partition's first live row when only the static row is conditioned, with
// the columns columnsToRead chooses; a partition with no such row but a
// static row with fetched content gives one row of its key and statics.
func (r *casRequest) failure(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	now := q.NowInSec()
	var rows []*data.Row
	if len(r.rows) == 0 {
		row, err := readOneRow(ctx, q, r.tbl, r.key, nil, false)
		if err != nil {
			return nil, err
		}
		if row != nil {
			rows = append(rows, row)
		}
	} else {
		keys := make([]string, 0, len(r.rows))
		for k := range r.rows {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return bytes.Compare([]byte(keys[i]), []byte(keys[j])) < 0 })
		for _, k := range keys {
			row, err := readOneRow(ctx, q, r.tbl, r.key, []byte(k), false)
			if err != nil {
				return nil, err
			}
			if row != nil {
				rows = append(rows, row)
			}
		}
	}
	var static *data.Row
	if r.tbl.HasStatic() {
		var err error
		if static, err = readOneRow(ctx, q, r.tbl, r.key, nil, true); err != nil {
			return nil, err
		}
	}
	fetched := func(c *schema.Column) bool {
		switch c.Kind {
		case schema.Static:
			return r.updatesStatic || r.condStatic[c.Name]
		case schema.Regular:
			return r.updatesRegular || r.condRegular[c.Name]
		}
		return true
	}
	cols := r.resultCols
	if r.wildcard {
		cols = r.tbl.VisibleColumns()
	}
	pk, err := splitPartitionKey(r.tbl, r.key)
	if err != nil {
		return nil, err
	}
	value := func(c *schema.Column, row *data.Row, ck [][]byte) []byte {
		switch {
		case c.Kind == schema.PartitionKey:
			return pk[c.Position]
		case c.Kind == schema.Clustering:
			if ck == nil {
				return nil
			}
			return ck[c.Position]
		case !fetched(c):
			return nil
		case c.Kind == schema.Static:
			row = static
		}
		if row == nil {
			return nil
		}
		return columnValue(c, cellsNamed(row, c.Name), now)
	}
	res := &query.Result{Kind: wire.ResultRows, Columns: r.resultSpecs(cols)}
	build := func(row *data.Row, ck [][]byte) {
		out := make([][]byte, 1, len(cols)+1)
		out[0] = boolBytes(false)
		for _, c := range cols {
			out = append(out, value(c, row, ck))
		}
		res.Rows = append(res.Rows, out)
	}
	for _, row := range rows {
		if !rowHasFetchedData(row, now, fetched, r.tbl) {
			continue
		}
		ck, _, err := types.DecodeClustering(r.tbl.ClusteringTypes(), row.Clustering)
		if err != nil {
			return nil, query.AsError(err)
		}
		build(row, ck)
	}
	if len(res.Rows) == 0 && static != nil && rowHasFetchedData(static, now, fetched, r.tbl) {
		build(nil, nil)
	}
	if len(res.Rows) == 0 {
		res.Columns = res.Columns[:1]
		res.Rows = [][][]byte{{boolBytes(false)}}
	}
	return res, nil
}

func (r *casRequest) resultSpecs(cols []*schema.Column) []query.ColumnSpec {
	out := []query.ColumnSpec{{Keyspace: r.tbl.Keyspace, Table: r.tbl.Name, Name: appliedSpecName, Type: types.BooleanType}}
	for _, c := range cols {
		out = append(out, query.ColumnSpec{Keyspace: r.tbl.Keyspace, Table: r.tbl.Name, Name: c.Name, Type: c.Type})
	}
	return out
}

// rowHasFetchedData reports whether a row read has live content the read
// fetches: its primary key liveness (a clustering row) or a live cell of a
// fetched column.
func rowHasFetchedData(row *data.Row, now int64, fetched func(*schema.Column) bool, tbl *schema.Table) bool {
	if len(row.Clustering) > 0 && row.Liveness.IsLive(now) {
		return true
	}
	for i := range row.Cells {
		c := tbl.StoredColumn(row.Cells[i].Column)
		if c != nil && fetched(c) && row.Cells[i].IsLive(now) {
			return true
		}
	}
	return false
}

func cellsNamed(r *data.Row, name string) []data.Cell {
	var out []data.Cell
	for _, c := range r.Cells {
		if c.Column == name {
			out = append(out, c)
		}
	}
	return out
}
