package statements

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
)

// This file is the only place where SELECT talks to the engine's read API,
// and where it reads the derived system tables instead (package virtual).

// readPartition reads one partition: its live static row and the live rows
// of slices in the plan's order, at most limit rows (0: all), copied so
// that they outlive the read. Under tracing the read is traced on its own
// lines, as Cassandra traces a single-partition read, or summed into agg
// when agg is not nil and has traced its share of partitions already (see
// readTrace).
func (p *selectPlan) readPartition(ctx context.Context, q *plan.Execution, key []byte, slices data.Slices, limit int, agg *readTrace) (*selPart, error) {
	sp := &selPart{}
	if err := p.openPartition(ctx, q, key, slices, limit, agg, sp); err != nil {
		return nil, err
	}
	if sp.live != nil {
		err := sp.collect(limit)
		if cerr := p.closePartition(q, sp); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// openPartition starts the read of one partition into sp, as readPartition
// reads it, without copying its rows: sp.next yields them as the engine
// does, each valid only until the next, and closePartition must end the
// read (even after an error). A derived table's partition is computed whole
// (sp.live stays nil).
func (p *selectPlan) openPartition(ctx context.Context, q *plan.Execution, key []byte, slices data.Slices, limit int, agg *readTrace, sp *selPart) error {
	if p.derived {
		dp, err := p.readDerived(q, key, slices, limit)
		if err != nil {
			return err
		}
		*sp = *dp
		return nil
	}
	if err := q.CheckReadOf(p.replicas); err != nil {
		return err
	}
	part, err := q.Env.Engine.ReadPartition(ctx, p.tbl, key, engine.ReadOptions{Slices: slices, Reverse: p.reversed, Limit: limit, Now: q.NowInSec(),
		Queried: p.queried, Names: p.namesRead, InRange: agg != nil && agg.scan})
	if err != nil {
		return query.AsError(err)
	}
	// The static row stays valid until the read is closed.
	*sp = selPart{key: part.Key(), static: part.Static(), live: part, limit: limit, agg: agg}
	return nil
}

// closePartition ends a read opened by openPartition: the rows its consumer
// did not take are still read (so that the read's statistics, its trace
// and its tombstone warning are those of the whole read, however soon the
// consumer stopped), the engine's partition is closed, the read is traced,
// and the partition is released (engine.Partition.Release): sp.static and
// the rows it gave are not valid afterwards.
func (p *selectPlan) closePartition(q *plan.Execution, sp *selPart) error {
	part := sp.live
	if part == nil {
		return nil
	}
	sp.live = nil
	for {
		if _, ok := part.Next(); !ok {
			break
		}
	}
	if err := part.Close(); err != nil {
		return query.AsError(err)
	}
	p.noteTombstones(q, sp.key, part.Stats(), sp.limit)
	if q.Trace != nil {
		agg := sp.agg
		access := query.AccessPartition
		if agg != nil && agg.scan {
			access = query.AccessScan
		}
		index := ""
		if p.where.Index != nil {
			index = p.where.Index.Name
		}
		if agg != nil && agg.index != "" {
			access, index = query.AccessIndex, agg.index
		}
		q.Trace.Read(p.tbl.QualifiedName(), access, index, func() string { return p.tbl.FormatPartitionWhere(sp.key) }, part.Stats())
		if agg != nil && agg.detailed >= agg.detail {
			agg.sum.Add(part.Stats())
		} else {
			if agg != nil {
				agg.detailed++
			}
			p.traceSinglePartition(q, sp.key, part.Stats())
		}
	}
	// Nothing of the read is used past this point (its rows were copied or
	// consumed, its statistics read): the engine may reuse its memory.
	part.Release()
	return nil
}

// traceSinglePartition traces the read of one partition as Cassandra traces
// a single-partition read (SinglePartitionReadCommand, ReadCommand), with
// the key decoded and what each source gave.
func (p *selectPlan) traceSinglePartition(q *plan.Execution, key []byte, st *engine.ReadStats) {
	q.Trace.Add("Executing single-partition query on %s", p.tbl.Name)
	q.Trace.Add("Read partition %s (token %s) of %s", p.tbl.FormatPartitionWhere(key), q.Env.Engine.Partitioner().TokenString(key), p.tbl.QualifiedName())
	for _, line := range strings.Split(strings.TrimSpace(st.String()), "\n") {
		q.Trace.Add("  %s", line)
	}
	sstables := 0
	for _, src := range st.Sources {
		if src.Kind == engine.SourceSSTable && src.Read > 0 {
			sstables++
		}
	}
	q.Trace.Add("Merged data from memtables and %d sstables", sstables)
	q.Trace.Add("Read %d live rows and %d tombstone cells", st.RowsReturned, st.TombstonesScanned())
}

// readTrace sums the reads of many partitions for a trace, so that a
// trace's length does not grow with the partitions a statement reads: the
// first detail partitions are traced on their own lines, the others summed
// into sum, which summary prints on a few lines. A range read (scan) sums
// every partition, as Cassandra traces a range read with a few lines for
// the whole range; a read of an IN list details the first few.
type readTrace struct {
	detail, detailed int
	sum              engine.ReadStats
	// scan is set for the partitions of a range read.
	scan bool
	// index names the secondary index whose entries named the partitions
	// (an index read, select_index.go), empty otherwise.
	index string
}

// tracedINPartitions is how many partitions of an IN list a trace details.
const tracedINPartitions = 2

// summary traces the partitions summed in a, if any.
func (a *readTrace) summary(q *plan.Execution, p *selectPlan, what string) {
	if q.Trace == nil || a.sum.Partitions == 0 && len(a.sum.Sources) == 0 {
		return
	}
	q.Trace.Add("%s %d partitions of %s", what, a.sum.Partitions, p.tbl.QualifiedName())
	for _, line := range strings.Split(strings.TrimSpace(a.sum.String()), "\n") {
		q.Trace.Add("  %s", line)
	}
	q.Trace.Add("Read %d live rows and %d tombstone cells", a.sum.RowsReturned, a.sum.TombstonesScanned())
}

// keyRangeString prints a token range as Cassandra's trace of a range read
// prints a key range (AbstractBounds.getString): a range (left, right] of
// token bounds, min(T) standing before every key of token T and max(T)
// after them; the whole ring is (min(-9223372036854775808),
// min(-9223372036854775808)].
func keyRangeString(tr data.TokenRange) string {
	const minToken = -1 << 63
	left := fmt.Sprintf("max(%d)", tr.Start)
	if tr.StartInclusive {
		left = fmt.Sprintf("min(%d)", tr.Start)
	}
	right := fmt.Sprintf("max(%d)", tr.End)
	if tr.End == 1<<63-1 {
		right = fmt.Sprintf("min(%d)", int64(minToken))
	}
	return "(" + left + ", " + right + "]"
}

// collectPartition drains an engine partition into a selPart, copying each
// row (the engine's rows are valid only until the next call to Next).
func collectPartition(part *engine.Partition) (*selPart, error) {
	return collectPartitionN(part, 0)
}

// collectPartitionN is collectPartition for a read of at most limit rows
// (0: unknown), which sizes the row slice.
func collectPartitionN(part *engine.Partition, limit int) (*selPart, error) {
	defer part.Close()
	sp := &selPart{key: part.Key(), static: part.Static(), live: part}
	if err := sp.collect(limit); err != nil {
		return nil, err
	}
	sp.live = nil
	return sp, nil
}

// collect copies the static row and the rows of sp.live into sp (the
// engine's rows are valid only until the next call to Next); limit is the
// read's limit (0: unknown), which sizes the row slice.
func (sp *selPart) collect(limit int) error {
	part := sp.live
	var a rowArena
	if st := part.Static(); st != nil {
		cp := a.copyRow(st)
		sp.static = &cp
	}
	if limit > 0 && limit <= 256 {
		sp.rows = make([]data.Row, 0, limit)
	}
	for {
		r, ok := part.Next()
		if !ok {
			break
		}
		sp.rows = append(sp.rows, a.copyRow(r))
	}
	if err := part.Err(); err != nil {
		return query.AsError(err)
	}
	return nil
}

// rowArena hands out the bytes and cells of copied rows from blocks: each
// block holds at least twice the previous one (up to maxArenaBlock bytes or
// cells), so the rows of one read take a few allocations instead of two
// per row. Blocks are never reused; they live as long as any row copied
// into them.
type rowArena struct {
	bytes []byte
	cells []data.Cell
	// lastBytes and lastCells are the sizes of the last blocks.
	lastBytes, lastCells int
}

// maxArenaBlock bounds the growth of rowArena blocks (in bytes, and in
// cells).
const maxArenaBlock = 16 << 10

// copyRow deep-copies r into the arena.
func (a *rowArena) copyRow(r *data.Row) data.Row {
	n := len(r.Clustering)
	for i := range r.Cells {
		n += len(r.Cells[i].Path) + len(r.Cells[i].Value)
	}
	if cap(a.bytes)-len(a.bytes) < n {
		size := max(n, min(2*a.lastBytes, maxArenaBlock))
		a.bytes, a.lastBytes = make([]byte, 0, size), size
	}
	out := *r
	out.Clustering = a.clone(r.Clustering)
	if r.Cells != nil {
		nc := len(r.Cells)
		if cap(a.cells)-len(a.cells) < nc {
			size := max(nc, min(2*a.lastCells, maxArenaBlock/int(unsafe.Sizeof(data.Cell{}))))
			a.cells, a.lastCells = make([]data.Cell, 0, size), size
		}
		start := len(a.cells)
		a.cells = append(a.cells, r.Cells...)
		out.Cells = a.cells[start:len(a.cells):len(a.cells)]
		for i := range out.Cells {
			c := &out.Cells[i]
			c.Path = a.clone(c.Path)
			c.Value = a.clone(c.Value)
		}
	}
	if r.ColumnDeletions != nil {
		out.ColumnDeletions = append([]data.ColumnDeletion(nil), r.ColumnDeletions...)
	}
	return out
}

// clone copies b into the current block, which has room for it (nil stays
// nil).
func (a *rowArena) clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	start := len(a.bytes)
	a.bytes = append(a.bytes, b...)
	return a.bytes[start:len(a.bytes):len(a.bytes)]
}

// scan reads the partitions of a token range in token order. slicesFor
// gives each partition's slices (skip drops the partition); fn receives each
// partition and returns true to stop. With stream set, fn receives each
// partition in stream, its rows uncopied (see openPartition); else a copied
// one (see readPartition).
func (p *selectPlan) scan(ctx context.Context, q *plan.Execution, tr data.TokenRange, slicesFor func(key []byte) (data.Slices, bool), limit int, stream *selPart, fn func(*selPart) (bool, error)) error {
	if p.derived {
		return p.scanDerived(q, tr, slicesFor, limit, fn)
	}

	// The scanner finds the partitions in token order; each is then read
	// with its own slices (the one a page resumes in needs narrower ones).
	// The scanner's own rows are never pulled, so it reads only what it
	// needs to know a partition has live data.
	if err := q.CheckReadOf(p.replicas); err != nil {
		return err
	}
	sc, err := q.Env.Engine.Scan(ctx, p.tbl, tr, engine.ReadOptions{Reverse: p.reversed, Now: q.NowInSec()})
	if err != nil {
		return query.AsError(err)
	}
	defer sc.Close()
	// A traced scan prints Cassandra's lines of a range read and sums its
	// partitions (readTrace), never a line per partition.
	agg := &readTrace{scan: true}
	if q.Trace != nil {
		q.Trace.Add("Executing seq scan across %d sstables for %s", sc.SSTables(), keyRangeString(tr))
		defer agg.summary(q, p, "Scanned")
	}
	for {
		ep, ok := sc.Next()
		if !ok {
			break
		}
		key := append([]byte(nil), ep.Key()...)
		sl, skip := slicesFor(key)
		if skip {
			continue
		}
		var stop bool
		if stream != nil {
			if err := p.openPartition(ctx, q, key, sl, limit, agg, stream); err != nil {
				return err
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
			return err
		}
		if stop {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return query.AsError(err)
	}
	return nil
}

// noteTombstones records Cassandra's tombstone warning for a partition
// read that met more tombstones than tombstone_warn_threshold: "Read N live
// rows and M tombstone cells for query SELECT ... (see
// tombstone_warn_threshold)". The query is printed as Cassandra's
// ReadCommand.toCQLString prints it: the table, the partition key and the
// limit (5000, the default page size, when none).
func (p *selectPlan) noteTombstones(q *plan.Execution, key []byte, st *engine.ReadStats, limit int) {
	if st == nil || !st.TombstoneWarning() {
		return
	}
	var where []string
	if comps, err := splitKey(p.tbl, key); err == nil {
		for i, c := range p.tbl.PartitionKey() {
			if i < len(comps) {
				where = append(where, fmt.Sprintf("%s = %s", c.Name, types.FormatLiteral(c.Type, comps[i])))
			}
		}
	}
	if limit <= 0 {
		limit = 5000
	}
	query := fmt.Sprintf("SELECT * FROM %s WHERE %s LIMIT %d", p.tbl.QualifiedName(), strings.Join(where, " AND "), limit)
	q.Warnings = append(q.Warnings, fmt.Sprintf("Read %d live rows and %d tombstone cells for query %s (see tombstone_warn_threshold)",
		st.RowsReturned, st.TombstonesScanned(), query))
}

// readDerived is readPartition for a derived system table: the partition is
// computed, not read from the engine.
func (p *selectPlan) readDerived(q *plan.Execution, key []byte, slices data.Slices, limit int) (*selPart, error) {
	parts, err := q.Env.System.Partitions(p.tbl, key)
	if err != nil {
		return nil, query.AsError(err)
	}
	for _, dp := range parts {
		if bytes.Equal(dp.Key, key) {
			return derivedPart(p.tbl, dp, virtual.DerivedTimestamp(p.tbl, q.Now.UnixMicro()), slices, p.reversed, limit)
		}
	}
	return &selPart{key: key}, nil
}

// scanDerived is scan for a derived system table: its partitions are
// computed once, then given to fn in token order as scan gives them.
func (p *selectPlan) scanDerived(q *plan.Execution, tr data.TokenRange, slicesFor func(key []byte) (data.Slices, bool), limit int, fn func(*selPart) (bool, error)) error {
	parts, err := q.Env.System.Partitions(p.tbl, nil)
	if err != nil {
		return query.AsError(err)
	}
	ts := virtual.DerivedTimestamp(p.tbl, q.Now.UnixMicro())
	for _, dp := range parts {
		if !tr.Contains(q.Env.Engine.Token(dp.Key)) {
			continue
		}
		sl, skip := slicesFor(dp.Key)
		if skip {
			continue
		}
		part, err := derivedPart(p.tbl, dp, ts, sl, p.reversed, limit)
		if err != nil {
			return err
		}
		stop, err := fn(part)
		if err != nil || stop {
			return err
		}
	}
	return nil
}
