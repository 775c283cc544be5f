package statements

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/minicass/minicass/cql/index"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/restrictions"
	"github.com/minicass/minicass/data"
)

// An index read (Cassandra's CassandraIndexSearcher and CompositesSearcher):
// a range query with a filtered restriction that a built-in index serves
// reads the index partition of the restricted value, whose entries name the
// base partitions in token order and their rows, and reads only those. The
// restriction stays a filter, so a row the entry names but that no longer
// matches is skipped. Among several indexes the one with the fewest
// estimated rows is read (SecondaryIndexManager.getBestIndexQueryPlanFor),
// the first in filter order on a tie.

// chooseIndex returns the index to read and its value, or nil to scan.
func (p *selectPlan) chooseIndex(q *plan.Execution) (*index.Index, []byte, error) {
	if len(p.indexReads) == 0 {
		return nil, nil, nil
	}
	var best *index.Index
	var bestRead *restrictions.IndexRead
	var bestRows int64
	var cards []string
	for i := range p.indexReads {
		ir := &p.indexReads[i]
		x := index.Of(q.Env.Engine, p.tbl, ir.Index)
		if x == nil {
			continue
		}
		rows := x.EstimatedResultRows(q.Env.Engine)
		cards = append(cards, ir.Index.Name+":"+strconv.FormatInt(rows, 10))
		if best == nil || rows < bestRows {
			best, bestRead, bestRows = x, ir, rows
		}
	}
	if best == nil {
		return nil, nil, nil
	}
	v, mv, ok, err := bestRead.Value(&q.Execution)
	if err != nil || !ok {
		return nil, nil, err
	}
	if bestRead.EntryValue {
		v = index.EntryValue(v, mv)
	}
	if q.Trace != nil {
		q.Trace.Add("Index mean cardinalities are %s. Scanning with %s.", strings.Join(cards, ","), best.Def.Name)
	}
	return best, v, nil
}

// scanIndex is scan through index x for value v: the partitions the
// index names, in token order, each read with its slices narrowed to the
// rows the entries name.
func (p *selectPlan) scanIndex(ctx context.Context, q *plan.Execution, x *index.Index, v []byte, tr data.TokenRange, slicesFor func(key []byte) (data.Slices, bool), limit int, stream *selPart, fn func(*selPart) (bool, error)) error {
	agg := &readTrace{index: x.Def.Name}
	if q.Trace != nil {
		// A single node: one range, read by one request.
		q.Trace.Add("Computing ranges to query")
		q.Trace.Add("Submitting range requests on 1 ranges with a concurrency of 1 (%s rows per range expected)", javaDouble(float64(x.EstimatedResultRows(q.Env.Engine))))
		q.Trace.Add("Submitted 1 concurrent range requests")
		q.Trace.Add("Executing read on %s using index %s", p.tbl.QualifiedName(), x.Def.Name)
		q.Trace.Add("Executing single-partition query on %s", x.Table.Name)
		defer agg.summary(q, p, "Read through the index:")
	}
	var readErr error
	st, err := x.Lookup(ctx, q.Env.Engine, p.tbl, v, tr, q.NowInSec(), func(key []byte, cks [][]byte) (bool, error) {
		sl, skip := slicesFor(key)
		if skip {
			return false, nil
		}
		switch {
		case cks != nil && len(cks) == 0:
			// Only the static row: a slice that selects no row, as
			// CompositesSearcher's names filter of the static entry's
			// clustering selects none.
			sl = data.Slices{{Start: []byte{}, End: []byte{}}}
		case cks != nil:
			sl = narrowSlices(sl, cks)
			if sl == nil {
				return false, nil
			}
		}
		var stop bool
		var err error
		if stream != nil {
			if err := p.openPartition(ctx, q, key, sl, limit, agg, stream); err != nil {
				return true, err
			}
			stop, err = fn(stream)
			if cerr := p.closePartition(q, stream); err == nil {
				err = cerr
			}
		} else {
			var part *selPart
			if part, err = p.readPartition(ctx, q, key, sl, limit, agg); err == nil {
				stop, err = fn(part)
			}
		}
		if err != nil {
			readErr = err
			return true, err
		}
		return stop, nil
	})
	if q.Trace != nil && st != nil {
		q.Trace.Add("Read %d index entries and %d tombstone cells from %s", st.RowsReturned, st.TombstonesScanned(), x.Table.Name)
	}
	if readErr != nil {
		return readErr
	}
	if err != nil {
		return query.AsError(err)
	}
	return nil
}

// narrowSlices returns the slices selecting the rows of cks (sorted) that
// sl selects, nil if none.
func narrowSlices(sl data.Slices, cks [][]byte) data.Slices {
	var out data.Slices
	for _, ck := range cks {
		if !sl.Contains(ck) {
			continue
		}
		out = append(out, data.Slice{Start: ck, End: append(bytes.Clone(ck), 0)})
	}
	return out
}

// javaDouble formats f as Java's Double.toString does for the values a
// trace shows (1.0, 0.5).
func javaDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
