package engine

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
)

// ReadOptions restrict and shape a read.
type ReadOptions struct {
	// Slices selects clustering ranges; nil selects every row.
	Slices data.Slices
	// Reverse returns rows in reverse clustering order.
	Reverse bool
	// Limit is the maximum number of rows returned by the whole read (all
	// partitions of a scan); 0 means no limit. Static-only partitions do
	// not count: the CQL layer, which decides to emit them, counts them.
	Limit int
	// PerPartitionLimit is the maximum number of rows returned per
	// partition; 0 means no limit.
	PerPartitionLimit int
	// Columns lists the static and regular columns whose cells are
	// returned; nil returns all. Row liveness is still decided on every
	// column, so a row whose only live cells are unselected is returned
	// with no cells, as Cassandra does.
	Columns []string
	// Now is the read time in seconds since the epoch, against which TTLs
	// expire; 0 means the engine clock's time.
	Now int64
	// Queried lists the static and regular columns the caller reads from
	// the rows and the static row (selected, filtered on), as Cassandra's
	// ColumnFilter queried columns; nil means every column. It returns no
	// other row or cell, but a names read (Names) stops once the queried
	// cells are found newer than the SSTables left, so its rows may then
	// lack cells of the columns not queried.
	Queried []string
	// Names marks a read of the rows Slices name one by one, each slice
	// the range of one full clustering key (or nil Slices on a table
	// without clustering columns): Cassandra's ClusteringIndexNamesFilter,
	// which the CQL layer uses when every clustering column is restricted
	// by = or IN. A partition read then reads its SSTables in timestamp
	// order and stops early (see ReadPartition); scans ignore it.
	Names bool
	// InRange marks a partition read that serves a range read (a scan that
	// reads each partition it finds on its own): it does not record in the
	// table's SSTables-per-read histogram, as Cassandra's range reads do
	// not ("they might pollute the metric").
	InRange bool
}

// Partition is the live view of one partition: its static row and a stream
// of its live rows, merged from every source of the table. Call Next until
// it returns false, then Err; Close releases it (closing twice is harmless).
type Partition struct {
	key   []byte
	token int64
	// static is the live static row, or nil.
	static *data.Row
	reader *partitionReader
	stats  *ReadStats

	ctx     context.Context
	sources *readSources // the read's sources, released when done; nil for scans
	// reads records the finished read in its table's histograms (a
	// partition read; a scan records once, from its Scanner).
	reads    *readHistograms
	limit    int  // rows left for this partition, -1: unlimited
	shared   *int // rows left for the whole read, nil: unlimited
	returned int
	// readLimit holds what shared points to for a partition read, saving
	// an allocation per read.
	readLimit int
	peeked    *data.Row
	done      bool
	err       error
	// home is the allocation of a partition read (ReadPartition), which
	// Release gives back to partitionReadPool; nil for a scan's partitions.
	home *partitionRead
}

// Key returns the partition key.
func (p *Partition) Key() []byte { return p.key }

// Token returns the partition's token.
func (p *Partition) Token() int64 { return p.token }

// Static returns the partition's live static row (only live, selected
// cells), or nil if it has no live static data. The row stays valid.
func (p *Partition) Static() *data.Row { return p.static }

// Stats returns the statistics of the read this partition belongs to.
func (p *Partition) Stats() *ReadStats { return p.stats }

// RowsReturned returns the number of rows Next has returned.
func (p *Partition) RowsReturned() int { return p.returned }

// StaticOnly reports whether the partition, now exhausted, returned no row
// but has live static data. For a read of the full partition (no clustering
// restriction) Cassandra then returns one row with the key, the static
// values and nulls elsewhere; the CQL layer emits it.
func (p *Partition) StaticOnly() bool { return p.done && p.returned == 0 && p.static != nil }

// Next returns the next live row. The row (its cells and their bytes) is
// valid until the next call to Next or Close; copy what must outlive it.
// Its cells keep their Timestamp, TTL and LocalDeletionTime, for WRITETIME
// and TTL.
func (p *Partition) Next() (*data.Row, bool) {
	if p.done {
		return nil, false
	}
	if p.limit == 0 || (p.shared != nil && *p.shared <= 0) {
		p.finish()
		return nil, false
	}
	r := p.peeked
	p.peeked = nil
	if r == nil {
		if p.returned%256 == 255 {
			if err := p.ctx.Err(); err != nil {
				p.err = err
				p.finish()
				return nil, false
			}
		}
		var ok bool
		if p.reader != nil {
			r, ok = p.reader.next()
		}
		if !ok {
			if p.reader != nil && p.reader.merger.err != nil {
				p.err = p.reader.merger.err
			}
			p.finish()
			return nil, false
		}
	}
	p.returned++
	p.stats.RowsReturned++
	if p.limit > 0 {
		p.limit--
	}
	if p.shared != nil {
		*p.shared--
	}
	return r, true
}

// peek fetches the first row ahead (to skip empty partitions in scans)
// without counting it.
func (p *Partition) peek() bool {
	if p.reader == nil || p.limit == 0 {
		return false
	}
	r, ok := p.reader.next()
	if !ok {
		if p.reader.merger.err != nil {
			p.err = p.reader.merger.err
		}
		return false
	}
	p.peeked = r
	return true
}

func (p *Partition) finish() {
	p.done = true
	if p.reader != nil {
		for _, pd := range p.reader.merger.pending {
			ss := &p.stats.Sources[pd.srcIdx]
			ss.Skipped++
			ss.SkipReason = skipLowerBound
		}
		if err := p.reader.merger.close(); err != nil && p.err == nil {
			p.err = err
		}
		// The sources' partitions are done with: the row last returned
		// lives in the merger's buffers, its bytes in immutable chunks.
		for _, ps := range p.reader.parts {
			if rel, ok := ps.(releaser); ok {
				rel.Release()
			}
		}
		r := p.reader
		p.reader = nil
		r.clear()
		readerPool.Put(r)
	}
	if p.sources != nil {
		p.sources.release()
		p.sources = nil
	}
	if p.reads != nil {
		p.reads.record(p.stats)
		p.reads = nil
	}
}

// Err returns the error that ended Next early, if any.
func (p *Partition) Err() error { return p.err }

// Close releases the partition's iterators and returns Err.
func (p *Partition) Close() error {
	if !p.done {
		p.finish()
	}
	return p.err
}

// Release closes the partition, if it is not closed, and gives its memory
// (the partition, its statistics and its sources) back to the engine for
// the next ReadPartition. Neither the partition, nor its Stats, nor a row
// it returned may be used afterwards. Calling Release is optional: a
// partition that is not released is left to the garbage collector, which
// is what a caller reading Stats after Close needs.
func (p *Partition) Release() {
	_ = p.Close()
	h := p.home
	if h == nil {
		return
	}
	p.home = nil
	h.srcKeep = h.st.Sources[:0]
	partitionReadPool.Put(h)
}

// partitionReader yields the live rows of one partition.
type partitionReader struct {
	merger   rowMerger
	deletion data.DeletionTime
	rts      rtCursor
	now      int64
	cols     columnFilter
	dropped  map[string]schema.DroppedColumn
	strict   bool
	keepDead bool
	stats    *ReadStats
	// parts are the sources' partitions, released when the read is done
	// (partsBuf holds those of a common read).
	parts    []data.PartitionSource
	partsBuf [inlineSources]data.PartitionSource
	// The read's slices and order, and what openPending needs to open
	// the SSTables the merge reaches (a partition read's).
	slices  data.Slices
	reverse bool
	ctx     context.Context
	token   int64
	key     []byte
}

// readerPool recycles partitionReaders (with their merge buffers), which
// a partition gives back when its read is done, cleared (see clear).
var readerPool = sync.Pool{New: func() any { return new(partitionReader) }}

// clear readies a reader whose read is done (its merger closed) for
// readerPool: what the next read tests before it sets it (the merger's
// error, the parts, the range tombstones, a pending read's key) is reset,
// and what the read refers to is dropped. The merge buffers (cells, column
// deletions, the merged rows) keep their arrays, which the next read
// overwrites before it reads them: their stale contents stay reachable
// until then or until the pool drops the reader. Clearing the whole
// reader instead would write each of its pointer words, paying a write
// barrier for every one while the collector marks.
func (r *partitionReader) clear() {
	m := &r.merger
	m.err, m.stats, m.scratch = nil, nil, data.Row{}
	// The merge drops pending sources as it opens them, so the list's
	// array may hold SSTables past its length (close clears up to it).
	clear(m.pending[:cap(m.pending)])
	clear(r.parts)
	if r.parts != nil {
		r.parts = r.parts[:0]
	}
	r.rts = rtCursor{}
	r.cols, r.dropped, r.stats, r.slices = nil, nil, nil, nil
	r.ctx, r.key = nil, nil
}

// releaser is a source partition whose memory can be reused once its
// read is done (sstable.Partition).
type releaser interface{ Release() }

func (r *partitionReader) next() (*data.Row, bool) {
	for {
		row, ok := r.merger.next()
		if !ok {
			return nil, false
		}
		outer := data.MaxDeletion(r.deletion, r.rts.covering(row.Clustering))
		if r.keepDead {
			if deadView(row, outer, r.dropped) {
				return row, true
			}
			continue
		}
		live, dead := liveView(row, outer, r.now, r.cols, r.dropped, r.stats)
		if r.strict && live && row.Liveness.IsEmpty() {
			// A view row with a base column in its key lives only by
			// its primary-key liveness (schema.Table.StrictLiveness).
			live = false
		}
		if dead {
			// The tombstone counts only grow when liveView met one.
			if err := r.stats.checkTombstones(); err != nil {
				r.merger.err = err
				return nil, false
			}
		}
		if live {
			return row, true
		}
	}
}

// readOptions holds per-read settings resolved from ReadOptions.
type readState struct {
	now   int64
	cols  columnFilter
	stats *ReadStats
	// dropped hides the cells of dropped columns (schema.Table.Dropped).
	dropped map[string]schema.DroppedColumn
	// strict is schema.Table.StrictLiveness: a row without live
	// primary-key liveness is not live.
	strict bool
	// keepDead keeps tombstones and expired cells (deadView), for the
	// reads that derive materialized views (readRaw).
	keepDead bool
}

func (e *Engine) resolve(opts *ReadOptions, st *ReadStats) readState {
	*st = ReadStats{warnAt: e.opts.TombstoneWarnThreshold, failAt: e.opts.TombstoneFailureThreshold}
	rs := readState{now: opts.Now, stats: st}
	if rs.now == 0 {
		rs.now = e.Now()
	}
	rs.stats.now = rs.now
	if opts.Columns != nil {
		rs.cols = columnFilter(opts.Columns)
	}
	return rs
}

// part is one source's view of a partition being read.
type part struct {
	src Source
	ps  data.PartitionSource
}

// openPartition builds the live view of a partition from its sources'
// views, into p.
func (e *Engine) openPartition(p *Partition, ctx context.Context, token int64, key []byte, parts []part, opts *ReadOptions, rs readState, shared *int) {
	st := rs.stats
	st.Partitions++
	*p = Partition{key: key, token: token, stats: st, ctx: ctx, limit: -1, shared: shared}
	if opts.PerPartitionLimit > 0 {
		p.limit = opts.PerPartitionLimit
	}
	if len(parts) == 0 {
		p.done = true
		return
	}
	e.startReader(p, opts, rs)
	r := p.reader
	var static *data.Row
	var rts []data.RangeTombstone
	for _, pt := range parts {
		d := pt.ps.Deletion()
		if !d.IsLive() {
			r.deletion = data.MaxDeletion(r.deletion, d)
		}
		if s := pt.ps.Static(); s != nil {
			if static == nil {
				c := *s
				c.Cells = append([]data.Cell(nil), s.Cells...)
				c.ColumnDeletions = append([]data.ColumnDeletion(nil), s.ColumnDeletions...)
				static = &c
			} else {
				merged := data.MergeRows(static, s)
				static = &merged
			}
		}
		rts = append(rts, pt.ps.RangeTombstones(opts.Slices)...)
	}
	if !r.deletion.IsLive() && st.counts(r.deletion.LocalDeletionTime) {
		st.Tombstones.Partition++
	}
	for i := range rts {
		if st.counts(rts[i].Deletion.LocalDeletionTime) {
			st.Tombstones.Range++
		}
	}
	if err := st.checkTombstones(); err != nil {
		r.merger.err = err
	}
	r.rts = newRTCursor(rts, opts.Reverse)
	if static != nil && rs.keepDead {
		if deadView(static, r.deletion, rs.dropped) {
			p.static = static
		}
	} else if static != nil {
		if live, _ := liveView(static, r.deletion, rs.now, rs.cols, rs.dropped, st); live {
			p.static = static
		}
	}
	for _, pt := range parts {
		i := st.sourceIndex(pt.src)
		st.Sources[i].Read++
		r.merger.add(pt.ps.Rows(opts.Slices, opts.Reverse), i)
		if r.parts == nil {
			r.parts = r.partsBuf[:0]
		}
		r.parts = append(r.parts, pt.ps)
	}
}

// startReader gives p a partition reader with no source yet. A reader
// from readerPool is new or cleared (partitionReader.clear), so only the
// fields a read sets are written, not the whole reader.
func (e *Engine) startReader(p *Partition, opts *ReadOptions, rs readState) {
	r := readerPool.Get().(*partitionReader)
	r.deletion, r.now, r.cols, r.stats, r.dropped = data.LiveDeletion, rs.now, rs.cols, rs.stats, rs.dropped
	r.strict, r.keepDead, r.slices, r.reverse = rs.strict, rs.keepDead, opts.Slices, opts.Reverse
	r.token = 0
	r.merger.reverse, r.merger.stats = opts.Reverse, rs.stats
	p.reader = r
}

// openPending opens an SSTable the merge has reached (lazyOpener).
func (r *partitionReader) openPending(pd pendingSource) (data.RowIterator, error) {
	ps, skip, err := pd.src.partitionAdmitted(r.ctx, r.token, r.key)
	if err != nil {
		return nil, fmt.Errorf("engine: reading %s: %w", pd.src.Name(), err)
	}
	ss := &r.stats.Sources[pd.srcIdx]
	if ps == nil {
		ss.Skipped++
		ss.SkipReason = skip
		return nil, nil
	}
	r.stats.SSTablesIterated++
	ss.Read++
	if r.parts == nil {
		r.parts = r.partsBuf[:0]
	}
	r.parts = append(r.parts, ps)
	return ps.Rows(r.slices, r.reverse), nil
}

// partitionRead is what ReadPartition allocates, in one piece: the
// partition, the read's statistics (with room for the sources of a common
// read) and its sources.
type partitionRead struct {
	p      Partition
	st     ReadStats
	srcBuf [inlineSources]SourceStats
	// srcKeep is the array st.Sources grew into in the read before, which
	// the next read starts with (Release sets it), so that a table of many
	// SSTables allocates no statistics per read.
	srcKeep []SourceStats
	srcs    readSources
}

// partitionReadPool recycles the partitionReads that Partition.Release
// gives back.
var partitionReadPool = sync.Pool{New: func() any { return new(partitionRead) }}

// ReadPartition returns the live view of the partition key of table t,
// merged from all the table's sources, restricted and ordered by opts. The
// result is never nil when err is nil: a partition that does not exist has
// no rows and no static row. Rows stream: only the rows Next returns (and
// the dead ones skipped to reach them) are read.
//
// The read opens only the SSTables it must, as Cassandra 4.1's
// SinglePartitionReadCommand does (queryMemtableAndDiskInternal): every
// memtable, then the SSTables in decreasing order of max timestamp, ending
// at the first one older than the newest partition deletion found. An
// SSTable whose clustering bounds miss the slices is skipped unless it may
// hold tombstones (then its partition deletion is read, and kept if not
// live); one without tombstones is opened lazily, only once the merge
// reaches its lower bound (its smallest clustering, or largest in
// reverse), unless the read needs static columns. A names read
// (ReadOptions.Names) reads the SSTables one after the other instead, and
// stops once every queried cell of every requested row is found newer
// than the SSTables left (queryMemtableAndSSTablesInTimestampOrder).
// ReadStats.SSTablesIterated counts the SSTables opened, which the table's
// SSTables-per-read histogram records when the read is done.
func (e *Engine) ReadPartition(ctx context.Context, t *schema.Table, key []byte, opts ReadOptions) (*Partition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := e.storeFor(t)
	if err != nil {
		return nil, err
	}
	if len(key) == 0 {
		return nil, ErrEmptyKey
	}
	h := partitionReadPool.Get().(*partitionRead)
	// resolve and openPartition set st and p whole; the sources are set
	// by sourcesInto, and srcBuf's entries by ReadStats.source.
	rs := e.resolve(&opts, &h.st)
	h.st.Sources = h.srcKeep[:0]
	if h.st.Sources == nil {
		h.st.Sources = h.srcBuf[:0]
	}
	h.st.partitionRead = !opts.InRange
	rs.dropped = t.Dropped
	rs.strict = t.StrictLiveness()
	h.st.gcBefore = rs.now - int64(t.Options.GCGraceSeconds)
	token := e.Token(key)
	s.readCount.Add(1)
	srcs := s.sourcesInto(&h.srcs)
	if srcs.sstFrom == srcs.sstTo {
		// No SSTable to choose from (a table still in its memtables):
		// every source is opened, so the selection is not needed.
		return e.readMemtables(ctx, t, s, h, srcs, token, key, &opts, rs)
	}
	// The selection comes from a pool and goes back to it before the read
	// returns; the options live in it, so that neither is allocated.
	sel := selectionPool.Get().(*readSelection)
	defer selectionPool.Put(sel)
	sel.optsCopy = opts
	o := &sel.optsCopy
	sel.reset(ctx, token, key, o, rs.stats, t)
	for i, src := range srcs.list {
		idx := srcs.listStats(rs.stats, i) // list the sources in read order
		if sst, ok := src.(*sstableSource); ok {
			sel.ssts = append(sel.ssts, rankedSST{sst, idx})
			continue
		}
		if err := sel.open(src, idx); err != nil {
			sel.done()
			srcs.release()
			return nil, fmt.Errorf("engine: reading %s from %s: %w", t.QualifiedName(), src.Name(), err)
		}
	}
	// SSTableReader.maxTimestampDescending; the list is newest first, so
	// a stable sort keeps flush order among equal timestamps.
	slices.SortStableFunc(sel.ssts, func(a, b rankedSST) int { return cmp.Compare(b.stats.MaxTimestamp, a.stats.MaxTimestamp) })
	if sel.names {
		err = sel.selectNames(sel.ssts)
	} else {
		err = sel.selectSlices(sel.ssts)
	}
	if err != nil {
		sel.releaseParts()
		sel.done()
		srcs.release()
		return nil, fmt.Errorf("engine: reading %s: %w", t.QualifiedName(), err)
	}
	p := &h.p
	e.openPartition(p, ctx, token, key, sel.parts, o, rs, nil)
	if len(sel.pending) > 0 {
		if p.reader == nil {
			e.startReader(p, o, rs)
		}
		r := p.reader
		r.ctx, r.token, r.key = ctx, token, key
		r.merger.opener = r
		for _, pd := range sel.pending {
			r.merger.addPending(pd)
		}
		p.done = false
	}
	sel.done()
	return startRead(p, h, s, srcs, &opts)
}

// readMemtables is ReadPartition for a table without SSTables: every source
// is a memtable (or another source that is always opened), so the read
// opens each in turn, without a readSelection.
func (e *Engine) readMemtables(ctx context.Context, t *schema.Table, s *tableStore, h *partitionRead, srcs *readSources, token int64, key []byte, opts *ReadOptions, rs readState) (*Partition, error) {
	var partsBuf [inlineSources]part
	parts := partsBuf[:0]
	for i, src := range srcs.list {
		ss := &rs.stats.Sources[srcs.listStats(rs.stats, i)] // list the sources in read order
		ps, skip, err := src.Partition(ctx, token, key)
		if err != nil {
			srcs.release()
			for _, pt := range parts {
				if rel, ok := pt.ps.(releaser); ok {
					rel.Release()
				}
			}
			return nil, fmt.Errorf("engine: reading %s from %s: %w", t.QualifiedName(), src.Name(), err)
		}
		if ps == nil {
			ss.Skipped++
			ss.SkipReason = skip
			continue
		}
		if src.Kind() == SourceSSTable { // one added by AddSource
			rs.stats.SSTablesIterated++
		}
		parts = append(parts, part{src: src, ps: ps})
	}
	p := &h.p
	e.openPartition(p, ctx, token, key, parts, opts, rs, nil)
	return startRead(p, h, s, srcs, opts)
}

// startRead completes a partition read whose sources are open: it sets
// the read's limit and histograms, and finishes a read with nothing to
// merge at once.
func startRead(p *Partition, h *partitionRead, s *tableStore, srcs *readSources, opts *ReadOptions) (*Partition, error) {
	p.home = h
	if opts.Limit > 0 {
		p.readLimit = opts.Limit
		p.shared = &p.readLimit
	}
	p.reads = s.histograms()
	if p.done {
		srcs.release()
		p.finish() // records the read
	} else {
		p.sources = srcs
	}
	if p.reader != nil && p.reader.merger.err != nil {
		// Too many tombstones already (range tombstones of the partition).
		p.err = p.reader.merger.err
		p.finish()
		return nil, p.err
	}
	return p, nil
}

// readSelection chooses the sources a partition read opens (see
// ReadPartition) and opens them: parts are the opened ones, pending the
// SSTables the merge opens when it reaches them.
type readSelection struct {
	// optsCopy holds the read's options while ReadPartition runs (opts
	// points to it).
	optsCopy ReadOptions
	ctx      context.Context
	token    int64
	key      []byte
	hash     sstable.KeyHash // key's, for the SSTables' bloom filters
	opts     *ReadOptions
	st       *ReadStats
	// deleted is the newest partition deletion found so far.
	deleted data.DeletionTime
	// names is set for a names read, staticsNeeded when the read needs
	// every SSTable's static row (the table has static columns), and
	// staticsQueried when a static column is queried.
	names, staticsNeeded, staticsQueried bool
	// lazy is set when SSTables without tombstones may be opened lazily.
	lazy bool
	// table is the table read.
	table    *schema.Table
	parts    []part
	partsBuf [inlineSources]part
	pending  []pendingSource
	// ssts are the table's SSTables, sorted by max timestamp.
	ssts    []rankedSST
	sstsBuf [inlineSources]rankedSST
	// tracked counts the parts a names read has fed to its tracker.
	tracked int
	tracker *namesTracker
}

// rankedSST is an SSTable of a read's selection, with the index of its
// entry in the read's ReadStats.Sources.
type rankedSST struct {
	*sstableSource
	idx int
}

// selectionPool recycles the readSelections of partition reads.
var selectionPool = sync.Pool{New: func() any { return new(readSelection) }}

// reset prepares sel, from selectionPool, for a read; its buffers are kept
// from read to read.
func (sel *readSelection) reset(ctx context.Context, token int64, key []byte, opts *ReadOptions, st *ReadStats, t *schema.Table) {
	parts, pending, ssts := sel.parts, sel.pending, sel.ssts
	*sel = readSelection{optsCopy: sel.optsCopy, ctx: ctx, token: token, key: key, hash: sstable.HashKey(key), opts: opts, st: st, deleted: data.LiveDeletion}
	sel.parts, sel.pending, sel.ssts = parts[:0], pending[:0], ssts[:0]
	if sel.parts == nil {
		sel.parts = sel.partsBuf[:0]
	}
	if sel.ssts == nil {
		sel.ssts = sel.sstsBuf[:0]
	}
	sel.plan(t)
}

// done drops what the selection references (sources, partitions, the
// context), once the read has taken its parts and pending sources over.
func (sel *readSelection) done() {
	clear(sel.parts)
	clear(sel.pending)
	clear(sel.ssts)
	sel.ctx, sel.key, sel.opts, sel.st, sel.table, sel.tracker = nil, nil, nil, nil, nil, nil
	sel.optsCopy = ReadOptions{}
}

// plan decides how the read selects its SSTables, from opts and the table.
// Cassandra 4.1 fetches every column of a CQL table, statics included, so
// a table with static columns needs every SSTable's static row: none is
// skipped by its clustering bounds nor opened lazily. A names read is made
// only when no queried column is multi-cell (a non-frozen collection or
// UDT: an older SSTable may hold more of its elements) and the table has
// no counters (deltas to sum); it completes on the queried columns.
func (sel *readSelection) plan(t *schema.Table) {
	sel.table = t
	sel.staticsNeeded = t.HasStatic()
	sel.lazy = !sel.staticsNeeded
	if !sel.opts.Names {
		return
	}
	q := sel.opts.Queried
	multiCell := false
	for _, c := range t.Columns {
		if c.Kind != schema.Static && c.Kind != schema.Regular {
			continue
		}
		if q != nil && !slices.Contains(q, c.Name) {
			continue
		}
		if c.Kind == schema.Static {
			sel.staticsQueried = true
		}
		if c.Type.IsMultiCell() {
			multiCell = true
		}
	}
	sel.names = !multiCell && !t.IsCounter()
}

// open opens src's partition into parts, counting an SSTable opened; idx
// is src's entry in the read's ReadStats.Sources.
func (sel *readSelection) open(src Source, idx int) error {
	ps, skip, err := src.Partition(sel.ctx, sel.token, sel.key)
	return sel.opened(src, idx, ps, skip, err)
}

// openSST is open for an SSTable that excludes has admitted.
func (sel *readSelection) openSST(sst rankedSST) error {
	ps, skip, err := sst.partitionAdmitted(sel.ctx, sel.token, sel.key)
	return sel.opened(sst.sstableSource, sst.idx, ps, skip, err)
}

// opened records the outcome of opening src (entry idx of the read's
// statistics): ps, or the reason skip there is none, or err.
func (sel *readSelection) opened(src Source, idx int, ps data.PartitionSource, skip string, err error) error {
	if err != nil {
		return err
	}
	if ps == nil {
		ss := &sel.st.Sources[idx]
		ss.Skipped++
		ss.SkipReason = skip
		return nil
	}
	if src.Kind() == SourceSSTable {
		sel.st.SSTablesIterated++
	}
	sel.deleted = data.MaxDeletion(sel.deleted, ps.Deletion())
	sel.parts = append(sel.parts, part{src: src, ps: ps})
	return nil
}

// skip records that the read did not open sst, and why.
func (sel *readSelection) skip(sst rankedSST, reason string) {
	ss := &sel.st.Sources[sst.idx]
	ss.Skipped++
	ss.SkipReason = reason
}

// openDeletionOnly opens an SSTable whose bounds miss the read for its
// partition deletion, which it keeps if not live; the SSTable counts as
// opened either way, as it does in Cassandra.
func (sel *readSelection) openDeletionOnly(sst rankedSST) error {
	n := len(sel.parts)
	if err := sel.openSST(sst); err != nil {
		return err
	}
	if len(sel.parts) == n {
		return nil
	}
	if ps := sel.parts[n].ps; ps.Deletion().IsLive() {
		sel.parts = sel.parts[:n]
		sel.st.Sources[sst.idx].Read++ // its header was read
		if rel, ok := ps.(releaser); ok {
			rel.Release()
		}
	}
	return nil
}

// selectSlices selects the SSTables of a slice read, in decreasing order of
// max timestamp (ssts).
func (sel *readSelection) selectSlices(ssts []rankedSST) error {
	for i, sst := range ssts {
		if sst.olderThan(sel.deleted) {
			for _, o := range ssts[i:] {
				sel.skip(o, skipTimestamp)
			}
			return nil
		}
		if reason := sst.excludes(sel.token, sel.hash); reason != "" {
			sel.skip(sst, reason)
			continue
		}
		tombstones := sst.mayHaveTombstones()
		if sst.skipBySlices(sel.opts.Slices, sel.staticsNeeded) {
			if !tombstones {
				sel.skip(sst, skipClustering)
				continue
			}
			if err := sel.openDeletionOnly(sst); err != nil {
				return err
			}
			continue
		}
		if bound := sst.lowerBound(sel.opts.Reverse); sel.lazy && !tombstones && bound != nil {
			sel.pending = append(sel.pending, pendingSource{src: sst.sstableSource, bound: bound, srcIdx: sst.idx})
			continue
		}
		if err := sel.openSST(sst); err != nil {
			return err
		}
	}
	return nil
}

// selectNames selects the SSTables of a names read, one after the other in
// decreasing order of max timestamp, until the rows read are complete.
func (sel *readSelection) selectNames(ssts []rankedSST) error {
	for i, sst := range ssts {
		if sst.olderThan(sel.deleted) {
			for _, o := range ssts[i:] {
				sel.skip(o, skipTimestamp)
			}
			return nil
		}
		if reason := sst.excludes(sel.token, sel.hash); reason != "" {
			sel.skip(sst, reason)
			continue
		}
		if len(sel.parts) > 0 {
			complete, err := sel.complete(sst.stats.MaxTimestamp)
			if err != nil {
				return err
			}
			if complete {
				for _, o := range ssts[i:] {
					sel.skip(o, skipComplete)
				}
				return nil
			}
		}
		if sst.skipBySlices(sel.opts.Slices, sel.staticsNeeded) {
			if !sst.mayHaveTombstones() {
				sel.skip(sst, skipClustering)
				continue
			}
			if err := sel.openDeletionOnly(sst); err != nil {
				return err
			}
			continue
		}
		if err := sel.openSST(sst); err != nil {
			return err
		}
	}
	return nil
}

// complete feeds the parts opened since the last call to the names
// tracker and reports whether the rows read so far hold everything the
// query needs newer than maxTS, the max timestamp of the next SSTable.
func (sel *readSelection) complete(maxTS int64) (bool, error) {
	if sel.table.IsStaticCompact() {
		// A static compact table's CQL row is its static row, whose every
		// column its reads fetch: complete once each has a cell newer
		// than maxTS and than the partition deletion (isRowComplete on the
		// static row of a compact table).
		return sel.staticComplete(maxTS)
	}
	if sel.staticsQueried {
		// A static row has no primary-key liveness: Cassandra 4.1's
		// canRemoveRow never finds it complete.
		return false, nil
	}
	if sel.tracker == nil {
		var regulars []string
		dense := sel.table.IsCompact() && !sel.table.IsStaticCompact()
		for _, c := range sel.table.Columns {
			// A dense compact table's row is its compact value cell,
			// queried or not (its hidden EmptyType one included).
			if c.Kind == schema.Regular && (dense || sel.opts.Queried == nil || slices.Contains(sel.opts.Queried, c.Name)) {
				regulars = append(regulars, c.Name)
			}
		}
		sel.tracker = newNamesTracker(sel.opts.Slices, regulars)
		sel.tracker.compact = dense
	}
	for ; sel.tracked < len(sel.parts); sel.tracked++ {
		if err := sel.tracker.add(sel.parts[sel.tracked].ps); err != nil {
			return false, err
		}
	}
	return sel.tracker.complete(maxTS), nil
}

// staticComplete reports whether the static rows of the parts opened hold,
// for every static column of a static compact table, a cell (live or a
// tombstone) newer than maxTS and than the partition deletion.
func (sel *readSelection) staticComplete(maxTS int64) (bool, error) {
	floor := maxTS
	newest := map[string]int64{}
	for _, pt := range sel.parts {
		if d := pt.ps.Deletion(); !d.IsLive() {
			floor = max(floor, d.MarkedForDeleteAt)
		}
		if st := pt.ps.Static(); st != nil {
			for j := range st.Cells {
				c := &st.Cells[j]
				if ts, ok := newest[c.Column]; !ok || c.Timestamp > ts {
					newest[c.Column] = c.Timestamp
				}
			}
		}
	}
	for _, c := range sel.table.Columns {
		if c.Kind != schema.Static {
			continue
		}
		if ts, ok := newest[c.Name]; !ok || ts <= floor {
			return false, nil
		}
	}
	return true, nil
}

// releaseParts gives back the partitions opened, after an error.
func (sel *readSelection) releaseParts() {
	for _, pt := range sel.parts {
		if rel, ok := pt.ps.(releaser); ok {
			rel.Release()
		}
	}
}

// namesTracker follows, for each row a names read requests, the newest
// timestamps of what the sources read so far hold for it: its
// primary-key liveness, each queried regular column's cell (a tombstone
// counts) and the deletions covering it, which shadow the older ones as
// the merge would.
type namesTracker struct {
	slices data.Slices // one slice per requested row; nil: the one row
	cols   []string
	rows   []trackedRow
	// compact is set for a dense COMPACT STORAGE table, whose rows have no
	// primary-key liveness (see complete).
	compact bool
}

type trackedRow struct {
	liveness, deletion int64
	// rowDeletion is the row's own deletion; deletion also holds the
	// partition and range deletions covering it.
	rowDeletion int64
	cells       []int64 // per column of cols; math.MinInt64: none
}

func newNamesTracker(slices data.Slices, cols []string) *namesTracker {
	n := max(len(slices), 1)
	t := &namesTracker{slices: slices, cols: cols, rows: make([]trackedRow, n)}
	cells := make([]int64, n*len(cols))
	for i := range cells {
		cells[i] = math.MinInt64
	}
	for i := range t.rows {
		t.rows[i] = trackedRow{liveness: math.MinInt64, deletion: math.MinInt64, rowDeletion: math.MinInt64, cells: cells[i*len(cols) : (i+1)*len(cols)]}
	}
	return t
}

// add takes in one source's partition: its deletions and the rows of the
// requested slices.
func (t *namesTracker) add(ps data.PartitionSource) error {
	if d := ps.Deletion(); !d.IsLive() {
		for i := range t.rows {
			t.rows[i].deletion = max(t.rows[i].deletion, d.MarkedForDeleteAt)
		}
	}
	for _, rt := range ps.RangeTombstones(t.slices) {
		for i, sl := range t.slices {
			if (rt.Start == nil || (sl.Start != nil && bytes.Compare(rt.Start, sl.Start) <= 0)) &&
				(rt.End == nil || (sl.End != nil && bytes.Compare(sl.End, rt.End) <= 0)) {
				t.rows[i].deletion = max(t.rows[i].deletion, rt.Deletion.MarkedForDeleteAt)
			}
		}
	}
	it := ps.Rows(t.slices, false)
	for {
		r, ok := it.Next()
		if !ok {
			break
		}
		i := 0
		for i < len(t.slices) && !t.slices[i].Contains(r.Clustering) {
			i++
		}
		if i == len(t.rows) {
			continue
		}
		tr := &t.rows[i]
		if !r.Deletion.IsLive() {
			tr.deletion = max(tr.deletion, r.Deletion.MarkedForDeleteAt)
			tr.rowDeletion = max(tr.rowDeletion, r.Deletion.MarkedForDeleteAt)
		}
		if !r.Liveness.IsEmpty() {
			tr.liveness = max(tr.liveness, r.Liveness.Timestamp)
		}
		for j := range r.Cells {
			c := &r.Cells[j]
			if k := slices.Index(t.cols, c.Column); k >= 0 {
				tr.cells[k] = max(tr.cells[k], c.Timestamp)
			}
		}
	}
	if err := it.Err(); err != nil {
		_ = it.Close()
		return wrapCorruption(err)
	}
	return wrapCorruption(it.Close())
}

// complete reports whether every requested row has, not shadowed by a
// deletion, a primary-key liveness and a cell for every queried column
// newer than maxTS: Cassandra 4.1's canRemoveRow for all the rows, so that
// nothing in an SSTable whose timestamps are all at or below maxTS can
// change the answer.
//
// A dense compact table's rows have no primary-key liveness, so Cassandra
// 4.1 (SinglePartitionReadCommand.isRowComplete) takes such a row as
// complete once its compact value cell, live or a tombstone, is newer than
// maxTS, or once its own deletion is, unless a partition or range deletion
// at least as new shadows it (the merge then drops the row).
func (t *namesTracker) complete(maxTS int64) bool {
	for i := range t.rows {
		r := &t.rows[i]
		floor := max(r.deletion, maxTS)
		if t.compact {
			if r.rowDeletion > maxTS && r.rowDeletion == r.deletion {
				continue
			}
		} else if r.liveness <= floor {
			return false
		}
		for _, ts := range r.cells {
			if ts <= floor {
				return false
			}
		}
	}
	return true
}

// Scanner walks the live partitions of a token range in token order. A
// partition with neither a live row (in the read's slices) nor live static
// data is skipped. Each Partition returned must be used before the next
// call to Next, which closes it.
type Scanner struct {
	ctx     context.Context
	e       *Engine
	opts    ReadOptions
	rs      readState
	srcs    []Source
	iters   []data.PartitionIterator
	heads   []data.PartitionSource
	used    []int
	cur     *Partition
	sources *readSources
	// reads records the scan, once, in its table's histograms.
	reads  *readHistograms
	shared *int
	err    error
	done   bool
}

// Scan returns a scanner over the partitions of table t whose token lies in
// r, merged from all the table's sources. opts.Limit bounds the rows of the
// whole scan.
func (e *Engine) Scan(ctx context.Context, t *schema.Table, r data.TokenRange, opts ReadOptions) (*Scanner, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := e.storeFor(t)
	if err != nil {
		return nil, err
	}
	sc := &Scanner{ctx: ctx, e: e, opts: opts, reads: s.histograms()}
	sc.rs = e.resolve(&opts, new(ReadStats))
	sc.rs.dropped = t.Dropped
	sc.rs.strict = t.StrictLiveness()
	sc.rs.stats.gcBefore = sc.rs.now - int64(t.Options.GCGraceSeconds)
	if opts.Limit > 0 {
		n := opts.Limit
		sc.shared = &n
	}
	s.readCount.Add(1)
	sc.sources = s.sources()
	for _, src := range sc.sources.list {
		it, err := src.Partitions(ctx, r)
		if err != nil {
			sc.Close()
			return nil, fmt.Errorf("engine: scanning %s in %s: %w", t.QualifiedName(), src.Name(), err)
		}
		sc.srcs = append(sc.srcs, src)
		sc.iters = append(sc.iters, it)
		sc.heads = append(sc.heads, nil)
		sc.used = append(sc.used, len(sc.iters)-1)
	}
	return sc, nil
}

// Stats returns the statistics of the scan so far.
func (sc *Scanner) Stats() *ReadStats { return sc.rs.stats }

// SSTables returns the number of SSTables the scan reads from, as
// Cassandra's trace of a range read counts them ("Executing seq scan across
// N sstables").
func (sc *Scanner) SSTables() int {
	n := 0
	for _, src := range sc.srcs {
		if src.Kind() == SourceSSTable {
			n++
		}
	}
	return n
}

// Next returns the next partition with live data, closing the previous one.
func (sc *Scanner) Next() (*Partition, bool) {
	for !sc.done {
		if sc.cur != nil {
			if err := sc.cur.Close(); err != nil {
				sc.fail(err)
				return nil, false
			}
			sc.cur = nil
		}
		if sc.shared != nil && *sc.shared <= 0 {
			sc.done = true
			break
		}
		if err := sc.ctx.Err(); err != nil {
			sc.fail(err)
			return nil, false
		}
		// Advance the sources whose partition was consumed last time.
		for _, i := range sc.used {
			ps, ok := sc.iters[i].Next()
			if !ok {
				if err := sc.iters[i].Err(); err != nil {
					sc.fail(err)
					return nil, false
				}
				ps = nil
			}
			sc.heads[i] = ps
		}
		sc.used = sc.used[:0]
		for i, h := range sc.heads {
			if h == nil {
				continue
			}
			if len(sc.used) == 0 {
				sc.used = append(sc.used, i)
				continue
			}
			m := sc.heads[sc.used[0]]
			switch c := data.ComparePartitions(h.Token(), h.Key(), m.Token(), m.Key()); {
			case c < 0:
				sc.used = append(sc.used[:0], i)
			case c == 0:
				sc.used = append(sc.used, i)
			}
		}
		if len(sc.used) == 0 {
			sc.done = true
			break
		}
		parts := make([]part, 0, len(sc.used))
		for _, i := range sc.used {
			parts = append(parts, part{src: sc.srcs[i], ps: sc.heads[i]})
		}
		first := parts[0].ps
		p := new(Partition)
		sc.e.openPartition(p, sc.ctx, first.Token(), first.Key(), parts, &sc.opts, sc.rs, sc.shared)
		sc.cur = p
		if p.static == nil && !p.peek() {
			if p.err != nil {
				sc.fail(p.err)
				return nil, false
			}
			continue
		}
		return p, true
	}
	return nil, false
}

func (sc *Scanner) fail(err error) {
	if sc.err == nil {
		sc.err = err
	}
	sc.done = true
}

// Err returns the error that ended the scan early, if any.
func (sc *Scanner) Err() error { return sc.err }

// Close releases the scanner and its current partition and returns Err.
func (sc *Scanner) Close() error {
	if sc.cur != nil {
		if err := sc.cur.Close(); err != nil && sc.err == nil {
			sc.err = err
		}
		sc.cur = nil
	}
	for _, it := range sc.iters {
		if err := it.Close(); err != nil && sc.err == nil {
			sc.err = err
		}
	}
	sc.iters = nil
	sc.done = true
	if sc.sources != nil {
		sc.sources.release()
		sc.sources = nil
	}
	if sc.reads != nil {
		sc.reads.record(sc.rs.stats)
		sc.reads = nil
	}
	return sc.err
}
