package statements

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"sync"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/restrictions"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// selectRun is one execution of a selectPlan: it consumes partitions in
// result order, filters rows, applies PER PARTITION LIMIT, groups and
// aggregates, projects, and stops at LIMIT or when the page is full.
//
// A run is scratch: it lives only while Exec runs and then goes back to
// selectRuns for the next execution of any plan. Nothing the result holds
// (rows, values, paging state) may point into it; what the result needs is
// allocated apart (rows, vals, valBytes) or copied out (the paging state).
// Its state is cleared for every run; its buffers are not, as every run
// writes them before it reads them.
type selectRun struct {
	runState
	runBuffers
}

// runState is the part of a selectRun that each run starts from zero.
type runState struct {
	p     *selectPlan
	q     *plan.Execution
	evals []expr.Evaluator

	limit, ppl, pageSize int
	// resume is the paging state this page starts from (nil for the first).
	resume *pagingState

	rows [][][]byte
	// vals is room for the values of the next result rows (plain
	// projections take each row's values from it).
	vals    [][]byte
	valRows int // rows of the last block of vals
	// valsUsed is how many of vals are taken: counted rather than resliced
	// away, so that taking a row's room writes no pointer into the run
	// (which, while the collector marks, costs a write barrier per row).
	valsUsed int
	// units counts result rows (groups with GROUP BY) of this page;
	// returned counts them over all pages.
	units, returned int
	// Position of the last row consumed.
	lastKey []byte
	lastCk  []byte
	// lastInPart is the rows (or groups) returned from lastKey's partition,
	// which the paging state carries for PER PARTITION LIMIT: inPart counts
	// those of the partition being read, which may be a later one (a page
	// that ends on the first group of the next partition).
	lastInPart int
	inPart     int
	stopped    bool // LIMIT reached or page full
	more       bool // a paging state must be returned
	groupOpen  bool
	groupKey   [][]byte
	// groupEval computes the GROUP BY function of a row (selectPlan.groupFn).
	groupEval expr.Evaluator
	stats     readStats
	// indexed is set when the rows came through a secondary index.
	indexed    bool
	curPartKey []byte
	// inTrace sums, for a trace, the reads of an IN list's partitions
	// past the first few (nil: not traced, or one partition).
	inTrace *readTrace
	// valBytes holds the copies of the result values of rows projected as
	// the engine yields them (selectPlan.stream), which must outlive the
	// engine's buffers, and lastValBytes is the size of its last block;
	// ckBuf holds lastCk when the read is paged; ckVals and ckBytes hold
	// the decoded clustering values of the row being projected (ckVals
	// point into valBytes instead under selectPlan.ckInResult). The three
	// start in the arrays of runBuffers.
	valBytes     []byte
	lastValBytes int
	valUsed      int // bytes copied into valBytes blocks
	ckBuf        []byte
	ckVals       [][]byte
	ckBytes      []byte
	// pack is set when the result rows go into packed (query.Result's
	// packed form) instead of rows: the caller asked for it
	// (plan.Execution.PackRows) and the plan is direct. npacked counts
	// them, and packRow is the size of the last, which sizes the room
	// for the rows still expected.
	pack    bool
	packed  []byte
	npacked int
	packRow int
	// packScratch is set while packed is in the run's packArr (see
	// packRoom).
	packScratch bool
	// packBlobs is, when the caller asked for spare room
	// (plan.Execution.PackSpare), the bytes of the blob values of the last
	// row packed, which packRoom reserves past the rows.
	packBlobs int
}

// runBuffers is the part of a selectRun kept from one run to the next:
// room that a run always sets before it reads it, so clearing it would be
// wasted. What stale pointers it holds in the pool (a bound value, an engine
// row already released, a result block) stay reachable until the next run
// overwrites them or the pool drops the run.
type runBuffers struct {
	// slice is room for the slice of a single-row or single-prefix read;
	// key, comps and pk for the key of a single-partition read; sr for the
	// row being filtered and projected (set at the start of each
	// partition). The result's rows never point into them: key components
	// are the bound values' bytes, not pk's.
	slice [1]data.Slice
	key   [1][]byte
	comps [1][][]byte
	pk    [2][]byte // longer keys use the heap
	sr    expr.SelRow
	// part is the partition being read when rows are projected as the
	// engine yields them (selectPlan.stream), set by openPartition.
	part       selPart
	ckBufArr   [32]byte
	ckValsArr  [plan.MaxInlineKeyParts][]byte
	ckBytesArr [32]byte
	// packArr holds the first packed row (see packRoom).
	packArr [256]byte
}

// readStats is what the trace reports about a read.
type readStats struct {
	partitions, rows, liveRows, staticRows int
}

// selectRuns recycles the scratch of SELECT executions (selectRun), so that
// a read allocates only what its result keeps.
var selectRuns = sync.Pool{New: func() any { return new(selectRun) }}

// release clears the run's state and returns it to selectRuns.
func (r *selectRun) release() {
	r.runState = runState{}
	selectRuns.Put(r)
}

func (p *selectPlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	// SelectStatement.execute validates the level first.
	if err := q.ValidateRead(); err != nil {
		return nil, err
	}
	r := selectRuns.Get().(*selectRun)
	defer r.release()
	r.p, r.q = p, q
	return r.exec(ctx)
}

// exec runs the statement and builds its result, which owns everything it
// holds (see selectRun).
func (r *selectRun) exec(ctx context.Context) (*query.Result, error) {
	p, q := r.p, r.q
	if p.stream {
		r.ckBuf, r.ckVals, r.ckBytes = r.ckBufArr[:0], r.ckValsArr[:0], r.ckBytesArr[:0]
	}
	r.pack = q.PackRows && p.direct
	var err error
	if r.limit, err = evalLimit(q, p.limit, "LIMIT"); err != nil {
		return nil, err
	}
	if r.ppl, err = evalLimit(q, p.perPartitionLimit, "PER PARTITION LIMIT"); err != nil {
		return nil, err
	}
	r.pageSize = q.Params.PageSize
	if p.aggregate && p.groupBy == 0 {
		r.pageSize = 0 // aggregates without GROUP BY return one row, unpaged
	}
	if p.postSort && r.pageSize > 0 && (r.limit == 0 || r.limit > r.pageSize) {
		return nil, query.Invalidf("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query")
	}
	if r.pageSize > 0 && len(q.Params.PagingState) > 0 {
		if r.resume, err = decodePagingState(q.Params.PagingState); err != nil {
			return nil, err
		}
		r.returned = r.resume.returned
		if r.limit > 0 && r.returned >= r.limit {
			return &query.Result{Kind: wire.ResultRows, Columns: p.specs}, nil
		}
	}
	if p.groupFn != nil {
		// AggregationSpecification's factory validates the function when it
		// binds the query's options, at each execution.
		if err := expr.ValidateForGroupBy(p.groupFn.Selector); err != nil {
			return nil, err
		}
		r.groupEval = p.groupFn.Selector.NewEval()
	}
	if p.plainCols == nil {
		r.evals = make([]expr.Evaluator, len(p.sels))
		for i, s := range p.sels {
			r.evals[i] = s.NewEval()
		}
	}
	if ix := p.where.Index; ix != nil && ix.Class != "" && !q.Env.Engine.CustomIndexQueryable(p.tbl, ix.Name) {
		// SecondaryIndexManager.checkQueryability, as the read starts.
		return nil, query.AsError(fmt.Errorf("%w: The secondary index '%s' is not yet available", engine.ErrIndexNotAvailable, ix.Name))
	}
	if ix := p.where.Index; ix != nil && ix.Class != "" && q.Trace != nil {
		q.Trace.Add("Index %s of %s serves the restriction on %s: minicass keeps no data for a custom index and scans, filtering rows", ix.Name, p.tbl.QualifiedName(), ix.Column)
	}
	if err := r.run(ctx); err != nil {
		return nil, err
	}
	res := q.NewResult()
	res.Kind, res.Columns, res.Rows = wire.ResultRows, p.specs, r.rows
	if r.npacked > 0 {
		res.Packed, res.PackedRows = r.packedOut(), r.npacked
	}
	if r.more {
		st := &pagingState{hasLast: true, key: r.lastKey, clustering: r.lastCk, returned: r.returned, inPartition: r.lastInPart}
		st.partDone = r.lastCk == nil
		res.PagingState = st.Encode()
	}
	if q.Trace != nil {
		if r.indexed {
			q.Trace.IndexChecked(p.tbl.QualifiedName(), r.stats.rows, r.stats.liveRows)
			q.Trace.Add("Checked %d rows of %d partitions the index named against the restrictions: %d matched, %d discarded", r.stats.rows, r.stats.partitions, r.stats.liveRows, r.stats.rows-r.stats.liveRows)
		} else if len(p.where.Filters) > 0 {
			q.Trace.Filtered(p.tbl.QualifiedName(), r.stats.rows, r.stats.liveRows)
			q.Trace.Add("Filtered %d rows of %d partitions (ALLOW FILTERING): %d matched, %d discarded", r.stats.rows, r.stats.partitions, r.stats.liveRows, r.stats.rows-r.stats.liveRows)
		}
		q.Trace.Add("Read %d live rows and %d static rows from %d partitions of %s", r.stats.liveRows, r.stats.staticRows, r.stats.partitions, p.tbl.QualifiedName())
		q.Trace.Add("Returned %d rows", len(r.rows)+r.npacked)
	}
	if r.rows == nil && r.npacked == 0 {
		res.Rows = [][][]byte{}
	}
	return res, nil
}

// evalLimit evaluates LIMIT or PER PARTITION LIMIT (0 = none).
func evalLimit(q *plan.Execution, t expr.Term, what string) (int, error) {
	if t == nil {
		return 0, nil
	}
	v, err := t.Eval(&q.Execution)
	if err != nil {
		return 0, err
	}
	if v.Unset {
		return 0, nil
	}
	if v.Bytes == nil {
		return 0, query.Invalidf("Invalid null value of limit")
	}
	if len(v.Bytes) != 4 {
		return 0, query.Invalidf("Invalid limit value")
	}
	n := int32(binary.BigEndian.Uint32(v.Bytes))
	if n <= 0 {
		if what == "LIMIT" {
			return 0, query.Invalidf("LIMIT must be strictly positive")
		}
		return 0, query.Invalidf("PER PARTITION LIMIT must be strictly positive")
	}
	return int(n), nil
}

func (r *selectRun) run(ctx context.Context) error {
	p, q := r.p, r.q
	w := p.where
	if err := w.ValidateFilters(&q.Execution); err != nil {
		return err
	}
	slices, none, err := r.slices()
	if err != nil {
		return err
	}
	if none {
		return r.finish()
	}
	readLimit := 0 // rows per partition the engine needs to return (0: all)
	if len(w.Filters) == 0 && !p.aggregate && p.groupBy == 0 {
		if r.ppl > 0 {
			readLimit = r.ppl
		}
		if r.limit > 0 && (readLimit == 0 || r.limit < readLimit) {
			readLimit = r.limit
		}
		if r.pageSize > 0 && (readLimit == 0 || r.pageSize < readLimit) {
			readLimit = r.pageSize
		}
		if p.distinct {
			readLimit = 1
		}
	}
	if w.PkComplete {
		keys, comps, err := r.partitionKeys()
		if err != nil {
			return err
		}
		if len(keys) > 1 && q.IsSerialRead() {
			// StorageProxy.readWithPaxos reads one partition.
			return query.Invalidf("SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time")
		}
		if q.Trace != nil && len(keys) > 1 {
			r.inTrace = &readTrace{detail: tracedINPartitions}
			defer r.inTrace.summary(q, p, "Read the other")
		}
		if p.postSort {
			return r.runSorted(ctx, keys, comps, slices)
		}
		start := 0
		if r.resume != nil {
			// Keys are sorted and unique: find where the last page stopped.
			for start < len(keys) && !bytes.Equal(keys[start], r.resume.key) {
				start++
			}
			if start == len(keys) {
				return errPagingState()
			}
		}
		for i := start; i < len(keys) && !r.stopped; i++ {
			sl, skip, inPart := r.resumeSlices(keys[i], slices)
			if skip {
				continue
			}
			if p.stream {
				if err := p.openPartition(ctx, q, keys[i], sl, readLimit, r.inTrace, &r.part); err != nil {
					return err
				}
				err := r.partition(comps[i], &r.part, inPart)
				if cerr := p.closePartition(q, &r.part); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
				continue
			}
			part, err := p.readPartition(ctx, q, keys[i], sl, readLimit, r.inTrace)
			if err != nil {
				return err
			}
			if err := r.partition(comps[i], part, inPart); err != nil {
				return err
			}
		}
		return r.finish()
	}
	kr, empty, err := w.TokenRange(&q.Execution)
	if err != nil {
		return err
	}
	if empty {
		return r.finish()
	}
	tr := kr.Tokens
	eng := q.Env.Engine
	var after []byte
	var afterTok int64
	if r.resume != nil {
		after = r.resume.key
		afterTok = eng.Token(after)
		if tr.Contains(afterTok) {
			tr.Start, tr.StartInclusive = afterTok, true
		}
	}
	var stream *selPart
	if p.stream {
		stream = &r.part
	}
	scan := p.scan
	x, v, err := p.chooseIndex(q)
	if err != nil {
		return err
	}
	if x != nil {
		r.indexed = true
		scan = func(ctx context.Context, q *plan.Execution, tr data.TokenRange, slicesFor func(key []byte) (data.Slices, bool), limit int, stream *selPart, fn func(*selPart) (bool, error)) error {
			return p.scanIndex(ctx, q, x, v, tr, slicesFor, limit, stream, fn)
		}
	}
	err = scan(ctx, q, tr, func(key []byte) (data.Slices, bool) {
		if !kr.Exact() && !kr.Contains(eng.Token(key), key) {
			// A key the engine's token range holds but the token()
			// bounds do not (ByteOrderedPartitioner's keys that share
			// a bound's prefix token).
			return nil, true
		}
		if after != nil {
			c := data.ComparePartitions(eng.Token(key), key, afterTok, after)
			if c < 0 {
				return nil, true
			}
			if c == 0 {
				sl, skip, _ := r.resumeSlices(key, slices)
				return sl, skip
			}
		}
		return slices, false
	}, readLimit, stream, func(part *selPart) (bool, error) {
		comps, err := splitKey(p.tbl, part.key)
		if err != nil {
			return false, err
		}
		inPart := 0
		if after != nil && bytes.Equal(part.key, after) {
			inPart = r.resume.inPartition
		}
		if err := r.partition(comps, part, inPart); err != nil {
			return false, err
		}
		return r.stopped, nil
	})
	if err != nil {
		return err
	}
	return r.finish()
}

// resumeSlices narrows slices for the partition the previous page stopped
// in: rows after the last one returned. skip is set when that partition is
// finished. inPart is the number of rows already returned from it.
func (r *selectRun) resumeSlices(key []byte, slices data.Slices) (data.Slices, bool, int) {
	if r.resume == nil || !bytes.Equal(key, r.resume.key) {
		return slices, false, 0
	}
	st := r.resume
	if st.partDone || st.clustering == nil {
		return nil, true, 0
	}
	if r.ppl > 0 && st.inPartition >= r.ppl {
		return nil, true, 0
	}
	var rest data.Slice
	if r.p.reversed {
		rest = data.Slice{Start: []byte{}, End: st.clustering}
	} else {
		rest = data.Slice{Start: append(append([]byte{}, st.clustering...), 0x00), End: []byte{0xff, 0xff}}
	}
	in := slices
	if len(in) == 0 {
		in = data.Slices{{Start: []byte{}, End: []byte{0xff, 0xff}}}
	}
	out := restrictions.IntersectRanges(in, []data.Slice{rest})
	if len(out) == 0 {
		return nil, true, 0
	}
	return out, false, st.inPartition
}

// splitKey returns the partition key components of a serialized key.
func splitKey(tbl *schema.Table, key []byte) ([][]byte, error) {
	if len(tbl.PartitionKey()) == 1 {
		return [][]byte{key}, nil
	}
	parts, err := partitioner.SplitCompositeKey(key)
	if err != nil {
		return nil, &query.Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
	}
	return parts, nil
}

// noClustering is the clustering values of a row of a table without
// clustering columns, or of a row whose values nothing reads (see
// selectPlan.needCk): empty, but not nil, which marks a static-only row.
var noClustering = [][]byte{}

// selPart is one partition as SELECT reads it: the live static row (nil if
// none) and the live rows of the requested slices, in read order, either
// copied into rows or, while live is set, read from the engine as next
// takes them (see selectPlan.openPartition).
type selPart struct {
	key    []byte
	static *data.Row
	rows   []data.Row
	// live is the engine's partition being read, nil once rows has them
	// all; limit and agg are the read's limit and trace (closePartition).
	live  *engine.Partition
	limit int
	agg   *readTrace
	// pos is the index in rows of the row next returns.
	pos int
}

// next returns the partition's next row: valid until the next call when
// the partition is live, as long as the partition otherwise.
func (sp *selPart) next() (*data.Row, bool) {
	if sp.live != nil {
		return sp.live.Next()
	}
	if sp.pos < len(sp.rows) {
		sp.pos++
		return &sp.rows[sp.pos-1], true
	}
	return nil, false
}

// partition consumes one partition's rows.
func (r *selectRun) partition(pk [][]byte, part *selPart, inPart int) error {
	p := r.p
	r.stats.partitions++
	if part.static != nil {
		r.stats.staticRows++
	}
	// Groups never span partitions (GROUP BY covers the whole partition
	// key): the previous partition's group closes here, so that its count
	// goes to its own PER PARTITION LIMIT, not to this partition's.
	if p.groupBy > 0 && r.groupOpen && r.curPartKey != nil {
		if err := r.closeGroup(); err != nil {
			return err
		}
		if r.pageFull() {
			// The page ends with that group: the paging state names the
			// previous partition and its count of groups.
			r.stopped, r.more = true, true
		}
		if r.stopped {
			return nil
		}
	}
	r.curPartKey = part.key
	r.inPart = inPart
	resumed := inPart > 0
	now := r.q.NowInSec()
	if p.distinct {
		// DISTINCT reads copied partitions (selectPlan.stream).
		if part.static == nil && len(part.rows) == 0 {
			return nil
		}
		// DISTINCT restricts only partition key and static columns, so the
		// filters read the key and the static row.
		sr := &expr.SelRow{Pk: pk, Static: part.static, Now: now}
		if ok, err := r.filter(sr); err != nil || !ok {
			return err
		}
		return r.emit(sr, nil)
	}
	var matched int
	var err error
	if p.direct {
		matched, err = r.directRows(pk, part, now)
	} else {
		matched, err = r.selRows(pk, part, now)
	}
	if err != nil {
		return err
	}
	if matched == 0 && !resumed && p.staticRows && part.static != nil && !r.stopped {
		sr := &expr.SelRow{Pk: pk, Static: part.static, Now: now}
		ok, err := r.filter(sr)
		if err != nil || !ok {
			return err
		}
		return r.emit(sr, nil)
	}
	return nil
}

// selRows filters, aggregates or projects the rows of one partition through
// a SelRow, and returns how many matched.
func (r *selectRun) selRows(pk [][]byte, part *selPart, now int64) (int, error) {
	p := r.p
	matched := 0
	// One selRow serves every row: filters, selectors and aggregates read
	// it and keep none of it but value bytes. What the partition's rows
	// share is set once; each row sets its own fields one by one.
	sr := &r.sr
	*sr = expr.SelRow{Pk: pk, Static: part.static, Now: now}
	for !r.stopped {
		row, ok := part.next()
		if !ok {
			break
		}
		r.stats.rows++
		ck := noClustering
		if p.needCk {
			var err error
			if ck, err = r.decodeClustering(row.Clustering); err != nil {
				return 0, &query.Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
			}
			if len(p.tbl.ClusteringColumns()) == 0 {
				ck = noClustering
			}
		}
		sr.Ck, sr.Row = ck, row
		ok, err := r.filter(sr)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		r.stats.liveRows++
		matched++
		if err := r.emit(sr, row.Clustering); err != nil {
			return 0, err
		}
		if r.ppl > 0 && r.inPart >= r.ppl && p.groupBy == 0 {
			break
		}
	}
	return matched, nil
}

// decodeClustering decodes the clustering values of the row being read.
// Streamed rows decode into buffers the next row reuses, and project copies
// the values it returns, unless the plan projects every row it decodes
// (ckInResult): the values are then decoded once, straight into the
// result's value blocks, each capped at its length as copyValue caps its
// copies. Rows read whole decode into new arrays.
func (r *selectRun) decodeClustering(ck []byte) ([][]byte, error) {
	p := r.p
	switch {
	case p.ckInResult && !r.pack:
		// A decoded value is never longer than its encoding, so the
		// room reserved keeps the decoder from growing valBytes.
		r.valRoom(len(ck))
		before := len(r.valBytes)
		vals, buf, err := r.appendClustering(r.valBytes, ck)
		r.keepDecoded(vals, buf)
		r.valUsed += len(buf) - before
		return vals, err
	case p.stream:
		vals, buf, err := r.appendClustering(r.ckBytes[:0], ck)
		r.ckVals, r.ckBytes = vals, buf
		return vals, err
	}
	vals, _, err := types.DecodeClustering(p.tbl.ClusteringTypes(), ck)
	return vals, err
}

// keepDecoded records the values and value bytes a decode into r.ckVals
// and r.valBytes returned. When they did not grow, as they do not when the
// room was reserved, only their lengths change: the run's pointers are not
// written again, which saves two write barriers per row while the collector
// marks.
func (r *selectRun) keepDecoded(vals [][]byte, buf []byte) {
	if cap(vals) > 0 && cap(vals) == cap(r.ckVals) && &r.ckVals[:1][0] == &vals[:1][0] {
		r.ckVals = r.ckVals[:len(vals)]
	} else {
		r.ckVals = vals
	}
	if cap(buf) > 0 && cap(buf) == cap(r.valBytes) && &r.valBytes[:1][0] == &buf[:1][0] {
		r.valBytes = r.valBytes[:len(buf)]
	} else {
		r.valBytes = buf
	}
}

// appendClustering decodes ck into r.ckVals and buf: in one step when the
// plan has a fixed-width decoder (selectPlan.fixedCk) and ck is a full key
// of non-empty values, else through types.AppendDecodedClustering.
func (r *selectRun) appendClustering(buf, ck []byte) ([][]byte, []byte, error) {
	if f := r.p.fixedCk; f != nil {
		if vals, buf, ok := f.Append(r.ckVals[:0], buf, ck); ok {
			return vals, buf, nil
		}
	}
	vals, buf, _, err := types.AppendDecodedClustering(r.ckVals[:0], buf, r.p.tbl.ClusteringTypes(), ck)
	return vals, buf, err
}

func (r *selectRun) filter(sr *expr.SelRow) (bool, error) {
	for _, f := range r.p.where.Filters {
		ok, err := f.Match(&r.q.Execution, sr)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// groupKeyOf returns the values that define sr's group: its first groupBy
// primary key values, the last of them replaced by the value of the GROUP
// BY function when there is one (GroupMaker's SelectorGroupMaker compares
// the prefix before the function's column, then the function's outputs).
func (r *selectRun) groupKeyOf(sr *expr.SelRow) ([][]byte, error) {
	n := r.p.groupBy
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		if i < len(sr.Pk) {
			out = append(out, sr.Pk[i])
		} else if sr.Ck != nil && i-len(sr.Pk) < len(sr.Ck) {
			out = append(out, sr.Ck[i-len(sr.Pk)])
		} else {
			out = append(out, nil)
		}
	}
	if r.groupEval != nil && sr.Ck != nil {
		// A static row (no clustering) keeps the null of its column.
		r.groupEval.Reset()
		if err := r.groupEval.Add(&r.q.Execution, sr); err != nil {
			return nil, err
		}
		v, err := r.groupEval.Out(&r.q.Execution)
		if err != nil {
			return nil, err
		}
		out[n-1] = v
	}
	return out, nil
}

func sameGroup(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// emit feeds one matching row (clustering is its key, nil for a static or
// DISTINCT row).
func (r *selectRun) emit(sr *expr.SelRow, clustering []byte) error {
	p := r.p
	if p.aggregate || p.groupBy > 0 {
		if p.groupBy > 0 {
			key, err := r.groupKeyOf(sr)
			if err != nil {
				return err
			}
			if r.groupOpen && !sameGroup(key, r.groupKey) {
				if err := r.closeGroup(); err != nil {
					return err
				}
				if r.stopped {
					return nil
				}
			}
			if !r.groupOpen {
				if r.ppl > 0 && r.inPart >= r.ppl {
					return nil
				}
				if r.pageFull() {
					r.stopped, r.more = true, true
					return nil
				}
				r.groupOpen, r.groupKey = true, key
			}
		}
		for _, e := range r.evals {
			if err := e.Add(&r.q.Execution, sr); err != nil {
				return err
			}
		}
		r.lastKey, r.lastCk, r.lastInPart = r.curPartKey, clustering, r.inPart
		return nil
	}
	if err := r.project(sr); err != nil {
		return err
	}
	if r.p.stream && len(clustering) > 0 {
		// The row's clustering lives in the engine's buffers; only a
		// paging state reads it once the next row is read.
		if r.pageSize > 0 {
			r.ckBuf = append(r.ckBuf[:0], clustering...)
			clustering = r.ckBuf
		} else {
			clustering = nil
		}
	}
	r.lastKey, r.lastCk = r.curPartKey, clustering
	r.inPart++
	r.lastInPart = r.inPart
	r.count()
	return nil
}

func (r *selectRun) pageFull() bool { return r.pageSize > 0 && r.units >= r.pageSize }

// count records one result unit and stops at LIMIT or a full page.
func (r *selectRun) count() {
	r.units++
	r.returned++
	if r.limit > 0 && r.returned >= r.limit {
		r.stopped = true
		return
	}
	if r.pageFull() && r.p.groupBy == 0 {
		r.stopped, r.more = true, true
	}
}

func (r *selectRun) closeGroup() error {
	if !r.groupOpen {
		return nil
	}
	if err := r.output(); err != nil {
		return err
	}
	r.groupOpen = false
	r.inPart++
	r.lastInPart = r.inPart // the group's rows set lastKey to this partition
	r.count()
	return nil
}

// finish closes the last group, or produces the single row of an
// aggregate query without GROUP BY.
func (r *selectRun) finish() error {
	p := r.p
	if p.groupBy > 0 {
		if !r.stopped {
			return r.closeGroup()
		}
		return nil
	}
	if p.aggregate {
		return r.output()
	}
	return nil
}

// project evaluates the selectors on one row and appends the result row.
func (r *selectRun) project(sr *expr.SelRow) error {
	if r.pack {
		r.packSelRow(sr)
		return nil
	}
	if proj := r.p.proj; proj != nil {
		// A streamed row's values live in the engine's buffers and are
		// copied, except key components (the key's own bytes) and
		// clustering values decoded into the result already.
		stream := r.p.stream
		vals := r.rowValues(len(proj))
		for i := range proj {
			pr := &proj[i]
			var v []byte
			switch pr.from {
			case fromKey:
				vals[i] = sr.Pk[pr.col.Position]
				continue
			case fromClustering:
				if sr.Ck != nil {
					v = sr.Ck[pr.col.Position]
				}
				if r.p.ckInResult {
					vals[i] = v
					continue
				}
			case fromCell:
				v = sr.CellValue(pr.col)
			default:
				v = sr.Value(pr.col)
			}
			if stream {
				v = r.copyValue(v)
			}
			vals[i] = v
		}
		r.rows = append(r.rows, vals)
		return nil
	}
	for _, e := range r.evals {
		e.Reset()
		if err := e.Add(&r.q.Execution, sr); err != nil {
			return err
		}
	}
	return r.output()
}

func (r *selectRun) output() error {
	vals := make([][]byte, len(r.evals))
	for i, e := range r.evals {
		v, err := e.Out(&r.q.Execution)
		if err != nil {
			return err
		}
		vals[i] = v
		e.Reset()
	}
	if r.p.json {
		vals = [][]byte{r.p.jsonRow(vals)}
	}
	r.rows = append(r.rows, vals)
	return nil
}

// emptyValue is the copy of an empty (not null) value.
var emptyValue = []byte{}

// copyValue copies a result value read from the engine's buffers into
// blocks of valBytes (nil stays nil, empty stays empty): 256 bytes, then
// twice the last block up to maxArenaBlock, so that a page takes a few
// allocations, none of them per row.
func (r *selectRun) copyValue(v []byte) []byte {
	if v == nil {
		return nil
	}
	if len(v) == 0 {
		return emptyValue
	}
	r.valRoom(len(v))
	start := len(r.valBytes)
	r.valBytes = append(r.valBytes, v...)
	r.valUsed += len(v)
	return r.valBytes[start:len(r.valBytes):len(r.valBytes)]
}

// valRoom makes room for n more bytes in valBytes, starting a new block
// when the last has less. When LIMIT or the page size bounds the rows still
// expected, the block is sized for them: by the bytes per row of the rows
// so far, or before the first row by a guess of 16 bytes a value, at most
// 256 bytes, so that a short result takes one small block. Otherwise the
// first block is 256 bytes, the next twice the last, up to maxArenaBlock.
func (r *selectRun) valRoom(n int) {
	if cap(r.valBytes)-len(r.valBytes) >= n {
		return
	}
	size := min(max(2*r.lastValBytes, 256), maxArenaBlock)
	if rows, bounded := r.rowsExpected(); bounded {
		if done := len(r.rows); done > 0 {
			size = min((r.valUsed/done+1)*rows, maxArenaBlock)
		} else {
			size = min(max(n, 16)*max(len(r.p.proj), 1)*rows, size)
		}
	}
	size = max(size, n)
	r.valBytes, r.lastValBytes = make([]byte, 0, size), size
}

// rowsExpected returns the number of result rows the run is still to
// produce, the one being produced included, and whether LIMIT, the page
// size or a single-row restriction bounds it; unbounded, it is the size of
// the next block of rowValues.
func (r *selectRun) rowsExpected() (rows int, bounded bool) {
	rows = min(max(2*r.valRows, 8), 256)
	if left := r.limit - r.returned; r.limit > 0 && left <= 256 {
		rows, bounded = max(left, 1), true
	}
	if left := r.pageSize - r.units; r.pageSize > 0 && left <= 256 && (!bounded || left < rows) {
		rows, bounded = max(left, 1), true
	}
	if r.p.singleRow {
		rows, bounded = 1, true
	}
	return rows, bounded
}

// rowValues returns room for the n values of one result row. Rows are
// carved from blocks: sized for the rows still expected when LIMIT or the
// page size bounds them, else 8 rows, then twice the previous block up to
// 256 rows. A read of ten rows allocates its values once.
func (r *selectRun) rowValues(n int) [][]byte {
	if len(r.vals)-r.valsUsed < n {
		rows, bounded := r.rowsExpected()
		if r.rows == nil && bounded {
			r.rows = make([][][]byte, 0, rows)
		}
		r.valRows = rows
		r.vals, r.valsUsed = make([][]byte, n*rows), 0
	}
	i := r.valsUsed
	r.valsUsed += n
	return r.vals[i : i+n : i+n]
}

// partitionKeys returns the keys to read and their components: those of
// whereClause.partitionKeys, computed without sorting or combinations when
// every partition key column is restricted by one '=' term.
func (r *selectRun) partitionKeys() ([][]byte, [][][]byte, error) {
	w := r.p.where
	if !r.p.singlePK {
		return w.PartitionKeys(&r.q.Execution)
	}
	comps := r.pk[:0:len(r.pk)]
	for _, kv := range w.Pk {
		v, err := kv.SingleValue(&r.q.Execution)
		if err != nil {
			return nil, nil, err
		}
		comps = append(comps, v)
	}
	key, err := query.SerializePartitionKey(comps)
	if err != nil {
		return nil, nil, err
	}
	r.key[0], r.comps[0] = key, comps
	return r.key[:], r.comps[:], nil
}

// slices returns whereClause.slices, computed without combinations or
// sorting when the clustering restrictions are one '=' term per column of
// a prefix (a point read, or the rows under one prefix).
func (r *selectRun) slices() (data.Slices, bool, error) {
	w := r.p.where
	if !r.p.singlePrefix {
		return w.Slices(&r.q.Execution)
	}
	var buf [plan.MaxInlineKeyParts][]byte
	prefix := buf[:0]
	for _, part := range w.Parts[:w.Prefix] {
		v, err := part.Single.SingleValue(&r.q.Execution)
		if err != nil {
			return nil, false, err
		}
		prefix = append(prefix, v)
	}
	all, err := restrictions.PrefixRange(w.Tbl.ClusteringTypes(), prefix)
	if err != nil {
		return nil, false, err
	}
	r.slice[0] = all
	return r.slice[:], false, nil
}

// sortedItem is one row read by runSorted, with the index of its partition.
type sortedItem struct {
	sr   *expr.SelRow
	ck   []byte
	part int
}

// runSortedGroups groups the rows of an IN query with GROUP BY and ORDER BY
// partition by partition, in the ORDER BY order, and then sorts the groups'
// rows by the clustering of each group's first row, as Cassandra aggregates
// each partition before orderResults sorts the result rows; PER PARTITION
// LIMIT counts groups in their partition and LIMIT applies to the sorted
// rows.
func (r *selectRun) runSortedGroups(items []sortedItem, less func(a, b []byte) bool) error {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].part != items[j].part {
			return items[i].part < items[j].part
		}
		return less(items[i].ck, items[j].ck)
	})
	limit := r.limit
	r.limit = 0
	var firsts [][]byte // the clustering of each output row's first row
	for start := 0; start < len(items); {
		end := start
		for end < len(items) && items[end].part == items[start].part {
			end++
		}
		if r.groupOpen {
			if err := r.closeGroup(); err != nil {
				return err
			}
		}
		before := len(r.rows)
		r.inPart = 0
		var groupFirsts [][]byte
		var key [][]byte
		for _, it := range items[start:end] {
			k, err := r.groupKeyOf(it.sr)
			if err != nil {
				return err
			}
			if key == nil || !sameGroup(k, key) {
				groupFirsts = append(groupFirsts, it.ck)
				key = k
			}
			r.stats.liveRows++
			r.curPartKey = nil
			if err := r.emit(it.sr, it.ck); err != nil {
				return err
			}
		}
		if err := r.closeGroup(); err != nil {
			return err
		}
		firsts = append(firsts, groupFirsts[:len(r.rows)-before]...)
		start = end
	}
	idx := make([]int, len(r.rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return less(firsts[idx[i]], firsts[idx[j]]) })
	sorted := make([][][]byte, len(idx))
	for i, k := range idx {
		sorted[i] = r.rows[k]
	}
	if limit > 0 && len(sorted) > limit {
		sorted = sorted[:limit]
	}
	r.rows = sorted
	r.limit, r.returned = limit, len(sorted)
	r.more = false
	return nil
}

// runSorted reads every partition of an IN list and merges their rows in
// the ORDER BY order (SelectStatement.orderResults); paging was refused.
func (r *selectRun) runSorted(ctx context.Context, keys [][]byte, comps [][][]byte, slices data.Slices) error {
	var items []sortedItem
	now := r.q.NowInSec()
	for i, key := range keys {
		part, err := r.p.readPartition(ctx, r.q, key, slices, 0, r.inTrace)
		if err != nil {
			return err
		}
		r.stats.partitions++
		n := 0
		for j := range part.rows {
			row := &part.rows[j]
			ck, _, err := types.DecodeClustering(r.p.tbl.ClusteringTypes(), row.Clustering)
			if err != nil {
				return &query.Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
			}
			sr := &expr.SelRow{Pk: comps[i], Ck: ck, Static: part.static, Row: row, Now: now}
			ok, err := r.filter(sr)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			items = append(items, sortedItem{sr, row.Clustering, i})
			n++
			if r.ppl > 0 && n >= r.ppl && r.p.groupBy == 0 {
				break
			}
		}
		if n == 0 && r.p.staticRows && part.static != nil {
			// A partition with only static data answers with its static
			// row, as in the unsorted path; its empty clustering sorts
			// before every row (after every row in reverse).
			sr := &expr.SelRow{Pk: comps[i], Static: part.static, Now: now}
			ok, err := r.filter(sr)
			if err != nil {
				return err
			}
			if ok {
				items = append(items, sortedItem{sr, nil, i})
			}
		}
	}
	less := func(a, b []byte) bool {
		c := bytes.Compare(a, b)
		if r.p.reversed {
			return c > 0
		}
		return c < 0
	}
	if r.p.groupBy > 0 {
		return r.runSortedGroups(items, less)
	}
	sort.SliceStable(items, func(i, j int) bool { return less(items[i].ck, items[j].ck) })
	saved := r.ppl
	r.ppl = 0
	for _, it := range items {
		if r.stopped {
			break
		}
		r.stats.liveRows++
		r.curPartKey = nil
		if err := r.emit(it.sr, it.ck); err != nil {
			return err
		}
	}
	r.ppl = saved
	r.more = false
	return r.finish()
}

// jsonRow renders a row as SELECT JSON does: one object keyed by
// p.jsonKeys.
func (p *selectPlan) jsonRow(vals [][]byte) []byte {
	out := []byte{'{'}
	for i, v := range vals {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = append(out, jsonString(p.jsonKeys[i])...)
		out = append(out, ": "...)
		if v == nil {
			out = append(out, "null"...)
		} else {
			out = types.AppendJSON(out, p.sels[i].Typ(), v)
		}
	}
	return append(out, '}')
}

// jsonKey is the key of a selector in SELECT JSON's objects, as
// Selection.rowToJson writes it: the result column's name (the alias when
// there is one), double-quoted inside the key when it is an identifier that
// needs quoting in CQL.
func jsonKey(sel expr.Selector, alias string) string {
	name := alias
	switch {
	case alias != "":
	case isColumnSel(sel):
		name = sel.(*expr.ColumnSel).Col.Name
	default:
		name = sel.Name()
		if isFunctionColumnName(name) {
			return name
		}
	}
	if parser.Ident(name).String() != name {
		return `"` + name + `"`
	}
	return name
}

func isColumnSel(sel expr.Selector) bool {
	_, ok := sel.(*expr.ColumnSel)
	return ok
}

// isFunctionColumnName reports names such as "system.count(*)" or
// "count" that Cassandra writes unquoted in JSON keys.
func isFunctionColumnName(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] == '(' {
			return true
		}
	}
	return false
}

func jsonString(s string) []byte {
	out := []byte{'"'}
	for _, c := range []byte(s) {
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		case '\n':
			out = append(out, '\\', 'n')
		default:
			if c < 0x20 {
				out = append(out, []byte(fmt.Sprintf("\\u%04x", c))...)
			} else {
				out = append(out, c)
			}
		}
	}
	return append(out, '"')
}
