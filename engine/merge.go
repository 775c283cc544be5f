package engine

import (
	"bytes"
	"slices"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// This file merges the sources of one partition into its live view. The
// steps, per clustering key, in clustering order (or reverse):
//
//  1. rowMerger: a k-way merge of the sources' row iterators (a linear scan
//     of the heads: reads rarely have more than a handful of sources), the
//     versions of one row reconciled with data.MergeRows;
//  2. rtCursor: the range tombstones covering the key, found by a sweep
//     over tombstones sorted by start (forward) or end (reverse);
//  3. partitionReader.filter: the row purged of what the partition
//     deletion, covering range tombstones, row deletion and collection
//     deletions shadow, then reduced to its live cells at the read time;
//     it is returned if its liveness record or one of its cells is live.

// rowMerger merges the row iterators of several sources.
type rowMerger struct {
	iters  []data.RowIterator
	heads  []*data.Row
	srcIdx []int // index of each iterator's source in stats.Sources
	// owned marks the iterators whose rows are theirs to give away
	// (ownedRows): a row only they hold is returned as it is, not copied.
	owned   []bool
	reverse bool
	stats   *ReadStats
	err     error

	// scratch is the row next returns when one source that shares its
	// rows holds it, in the merger's own cells (the caller may change
	// them; a memtable's rows are shared).
	scratch data.Row
	cells   []data.Cell
	cds     []data.ColumnDeletion
	same    []int
	// merged are the rows MergeRowsInto fills in turn when several
	// sources hold the row; next returns the last one filled.
	// mergedCells and mergedCDs are their arrays.
	merged      [2]data.Row
	mergedCells [2][]data.Cell
	mergedCDs   [2][]data.ColumnDeletion

	// pending are the sources not opened yet (a partition read's SSTables
	// without tombstones, see ReadPartition), each waiting at its lower
	// bound: next opens one, through opener, only once every row before
	// that bound is returned, as Cassandra's merge consumes an
	// UnfilteredRowIteratorWithLowerBound's bound before it initializes
	// the iterator. A read that stops early (LIMIT) never opens the
	// SSTables whose rows all come later.
	pending    []pendingSource
	pendingBuf [inlineSources]pendingSource
	// first is the index in pending of the source to open next, valid
	// while firstKnown (addPending and every opening clear it).
	first      int
	firstKnown bool
	opener     lazyOpener

	// The slices above start in these, so that a read of up to
	// inlineSources sources allocates none of them (the merger lives in
	// the partitionReader, itself one allocation).
	itersBuf [inlineSources]data.RowIterator
	headsBuf [inlineSources]*data.Row
	idxBuf   [inlineSources]int
	ownedBuf [inlineSources]bool
	sameBuf  [inlineSources]int
	cellsBuf [inlineCells]data.Cell
}

// inlineCells is how many cells a merged row holds without allocating.
const inlineCells = 4

// inlineSources is how many sources a rowMerger holds without allocating:
// the memtable and one SSTable, the common case.
const inlineSources = 2

// ownedRows is a row iterator whose rows the caller may modify (their
// fields and arrays, not the bytes they reference) until the next call to
// Next: each row is decoded afresh into the iterator's own row
// (sstable's row iterator).
type ownedRows interface{ OwnedRows() bool }

// pendingSource is an SSTable a merge opens when it reaches bound.
type pendingSource struct {
	src    *sstableSource
	bound  []byte
	srcIdx int
}

// lazyOpener opens a pending source: its row iterator, or nil when the
// SSTable does not hold the partition.
type lazyOpener interface {
	openPending(p pendingSource) (data.RowIterator, error)
}

// addPending registers a source that next opens when the merge reaches
// its bound.
func (m *rowMerger) addPending(p pendingSource) {
	if m.pending == nil {
		m.pending = m.pendingBuf[:0]
	}
	m.pending = append(m.pending, p)
	m.firstKnown = false
}

// openReached opens the pending sources whose bound comes at or before
// the first head (in the read's order; m.same holds the heads of that
// clustering, as next found them): one of them may hold a row that sorts
// first. The pending source of the first bound (the earliest added of
// equal bounds) opens first; it is found again only when the list
// changes, so a row costs one comparison while nothing opens. It stops
// once the first head comes before every bound left, and keeps m.same
// the heads of the first clustering, the opened sources' included.
func (m *rowMerger) openReached() {
	for len(m.pending) > 0 && m.err == nil {
		if !m.firstKnown {
			j := 0
			for i := 1; i < len(m.pending); i++ {
				if m.before(m.pending[i].bound, m.pending[j].bound) {
					j = i
				}
			}
			m.first, m.firstKnown = j, true
		}
		j := m.first
		if len(m.same) > 0 && m.before(m.heads[m.same[0]].Clustering, m.pending[j].bound) {
			return
		}
		p := m.pending[j]
		m.pending = append(m.pending[:j], m.pending[j+1:]...)
		m.firstKnown = false
		it, err := m.opener.openPending(p)
		if err != nil {
			m.err = err
			return
		}
		if it != nil {
			m.add(it, p.srcIdx)
			m.sameInsert(len(m.heads) - 1)
		}
	}
}

// sameInsert adds head i, the merger's last, to m.same if it is of the
// first clustering, as next's scan of the heads would have.
func (m *rowMerger) sameInsert(i int) {
	h := m.heads[i]
	if h == nil {
		return
	}
	if len(m.same) == 0 {
		m.same = append(m.same, i)
		return
	}
	c := bytes.Compare(h.Clustering, m.heads[m.same[0]].Clustering)
	if m.reverse {
		c = -c
	}
	switch {
	case c < 0:
		m.same = append(m.same[:0], i)
	case c == 0:
		m.same = append(m.same, i)
	}
}

// before reports whether clustering a comes strictly before b in the
// read's order.
func (m *rowMerger) before(a, b []byte) bool {
	c := bytes.Compare(a, b)
	if m.reverse {
		return c > 0
	}
	return c < 0
}

func (m *rowMerger) add(it data.RowIterator, srcIdx int) {
	m.initArrays()
	o, ok := it.(ownedRows)
	m.owned = append(m.owned, ok && o.OwnedRows())
	m.iters = append(m.iters, it)
	m.heads = append(m.heads, nil)
	m.srcIdx = append(m.srcIdx, srcIdx)
	m.advance(len(m.iters) - 1)
}

// initArrays points the merger's slices at its own arrays the first time.
func (m *rowMerger) initArrays() {
	if m.iters == nil {
		m.iters, m.heads, m.srcIdx, m.same, m.owned = m.itersBuf[:0], m.headsBuf[:0], m.idxBuf[:0], m.sameBuf[:0], m.ownedBuf[:0]
	}
}

// advance moves iterator i to its next row.
func (m *rowMerger) advance(i int) {
	r, ok := m.iters[i].Next()
	if !ok {
		m.heads[i] = nil
		if err := m.iters[i].Err(); err != nil && m.err == nil {
			m.err = wrapCorruption(err)
		}
		return
	}
	m.heads[i] = r
	m.stats.RowsRead++
	m.stats.CellsRead += len(r.Cells)
	m.stats.Sources[m.srcIdx[i]].Rows++
}

// next returns the reconciled versions of the next clustering key. The row
// is owned by the merger and valid until the next call; the caller may
// modify it (but not the bytes it references).
//
// The sources of the row are advanced at the next call, not before this
// one returns: a read that stops after N rows decodes N rows, not N+1, and
// the row may alias its source's clustering bytes, which stay valid until
// then.
func (m *rowMerger) next() (*data.Row, bool) {
	if m.err != nil {
		return nil, false
	}
	for _, i := range m.same {
		m.advance(i)
	}
	m.same = m.same[:0]
	if m.err != nil {
		return nil, false
	}
	for i := range m.heads {
		m.sameInsert(i)
	}
	if len(m.pending) > 0 {
		m.openReached()
		if m.err != nil {
			return nil, false
		}
	}
	if len(m.same) == 0 {
		return nil, false
	}
	first := m.heads[m.same[0]]
	if len(m.same) == 1 && m.owned[m.same[0]] {
		// The source decodes its next row into a row of its own at the
		// next call, which advances it: the caller may change this one.
		return first, true
	}
	if len(m.same) == 1 {
		// A shared row (a memtable's) is copied into scratch, whose
		// arrays the caller may filter in place.
		m.scratch = *first
		if m.cells == nil {
			m.cells = m.cellsBuf[:0]
		}
		m.cells = append(m.cells[:0], first.Cells...)
		m.scratch.Cells = m.cells
		if len(first.ColumnDeletions) > 0 {
			m.cds = append(m.cds[:0], first.ColumnDeletions...)
			m.scratch.ColumnDeletions = m.cds
		}
		return &m.scratch, true
	}
	return m.reconcile(), true
}

// reconcile returns the reconciled row of the two or more versions in
// m.same.
func (m *rowMerger) reconcile() *data.Row {
	if w := m.dominant(); w >= 0 {
		// One owned version supersedes every other in full: the merge
		// would return a copy of it, so it is returned as it is.
		return m.heads[w]
	}
	// Merge into the two spare rows in turn, so that their arrays are
	// reused from row to row, and return the last: its arrays are the
	// merger's (MergeRowsInto copies every cell), which the caller may
	// filter in place until the next call refills them.
	k := 0
	m.mergeInto(k, m.heads[m.same[0]], m.heads[m.same[1]])
	for _, i := range m.same[2:] {
		k = 1 - k
		m.mergeInto(k, &m.merged[1-k], m.heads[i])
	}
	return &m.merged[k]
}

// dominant returns the head among m.same that the merge of all of them
// would reproduce unchanged, if it is owned (the caller may change it), or
// -1. It is the head with the latest liveness timestamp (the first of
// equals), checked against every other version: no version carries a row or
// collection deletion or a counter cell, the other's liveness does not
// supersede its own, and every cell of the other has a cell of the same
// column and path in it with a strictly later timestamp. data.MergeRowsInto
// then keeps its liveness (LivenessInfo.Supersedes), its deletion (both
// live), each of its cells (data.Reconcile: the later timestamp wins) and
// no other cell, and its PurgeShadowed under no deletion removes nothing.
// A compaction of versions of a narrow row rewritten in full (the common
// overwrite) takes this path and copies no cell.
func (m *rowMerger) dominant() int {
	w := -1
	for _, i := range m.same {
		if w < 0 || m.heads[i].Liveness.Timestamp > m.heads[w].Liveness.Timestamp {
			w = i
		}
	}
	if !m.owned[w] {
		return -1
	}
	a := m.heads[w]
	if a.Deletion != data.LiveDeletion || len(a.ColumnDeletions) > 0 {
		return -1
	}
	for i := range a.Cells {
		if a.Cells[i].Kind == data.CellCounter {
			return -1
		}
	}
	for _, i := range m.same {
		if i == w {
			continue
		}
		b := m.heads[i]
		if b.Deletion != data.LiveDeletion || len(b.ColumnDeletions) > 0 || b.Liveness.Supersedes(a.Liveness) {
			return -1
		}
		j := 0
		for k := range b.Cells {
			c := &b.Cells[k]
			for j < len(a.Cells) && data.CompareID(&a.Cells[j], c) < 0 {
				j++
			}
			if j == len(a.Cells) || data.CompareID(&a.Cells[j], c) != 0 ||
				c.Kind == data.CellCounter || a.Cells[j].Timestamp <= c.Timestamp {
				return -1
			}
			j++
		}
	}
	return w
}

// mergeInto merges a and b into merged[k], in the arrays the merger keeps
// for it (not whatever the caller left in the row it was given).
func (m *rowMerger) mergeInto(k int, a, b *data.Row) {
	dst := &m.merged[k]
	dst.Cells, dst.ColumnDeletions = m.mergedCells[k][:0], m.mergedCDs[k][:0]
	data.MergeRowsInto(dst, a, b)
	m.mergedCells[k] = dst.Cells[:0]
	if dst.ColumnDeletions != nil {
		m.mergedCDs[k] = dst.ColumnDeletions[:0]
	}
}

func (m *rowMerger) close() error {
	var err error
	for _, it := range m.iters {
		if cerr := it.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	// Keep the arrays (a compaction reuses its merger for every
	// partition), not what they point to.
	clear(m.iters)
	clear(m.heads)
	clear(m.pending)
	m.pending, m.opener, m.firstKnown = m.pending[:0], nil, false
	m.iters, m.heads, m.srcIdx, m.same, m.owned = m.iters[:0], m.heads[:0], m.srcIdx[:0], m.same[:0], m.owned[:0]
	return err
}

// rtCursor finds the range tombstones covering successive clustering keys
// that arrive in clustering order (or reverse order).
type rtCursor struct {
	rts     []data.RangeTombstone
	next    int
	active  []data.RangeTombstone
	reverse bool
}

func newRTCursor(rts []data.RangeTombstone, reverse bool) rtCursor {
	if reverse {
		// Sort by End, largest (nil: unbounded) first.
		slices.SortFunc(rts, func(a, b data.RangeTombstone) int { return -data.CompareEnds(a.End, b.End) })
	} else {
		slices.SortFunc(rts, func(a, b data.RangeTombstone) int { return data.CompareStarts(a.Start, b.Start) })
	}
	return rtCursor{rts: rts, reverse: reverse}
}

// covering returns the strongest deletion of the range tombstones that
// contain k, LiveDeletion if none.
func (c *rtCursor) covering(k []byte) data.DeletionTime {
	if len(c.rts) == 0 {
		return data.LiveDeletion
	}
	if c.reverse {
		// Tombstones whose end lies beyond k may cover k (and smaller keys).
		for c.next < len(c.rts) && (c.rts[c.next].End == nil || bytes.Compare(c.rts[c.next].End, k) > 0) {
			c.active = append(c.active, c.rts[c.next])
			c.next++
		}
	} else {
		for c.next < len(c.rts) && (c.rts[c.next].Start == nil || bytes.Compare(c.rts[c.next].Start, k) <= 0) {
			c.active = append(c.active, c.rts[c.next])
			c.next++
		}
	}
	d := data.LiveDeletion
	kept := c.active[:0]
	for _, rt := range c.active {
		// Drop tombstones the sweep has passed for good.
		if c.reverse && rt.Start != nil && bytes.Compare(rt.Start, k) > 0 {
			continue
		}
		if !c.reverse && rt.End != nil && bytes.Compare(rt.End, k) <= 0 {
			continue
		}
		kept = append(kept, rt)
		if rt.Contains(k) {
			d = data.MaxDeletion(d, rt.Deletion)
		}
	}
	c.active = kept
	return d
}

// columnFilter selects the cells returned; nil selects all.
type columnFilter []string

func (f columnFilter) selects(col string) bool {
	if f == nil {
		return true
	}
	return slices.Contains(f, col)
}

// deadView reduces r, in place, to what is not shadowed by outer (the
// partition deletion and covering range tombstones) or by r's own
// deletions, keeping tombstone cells and expired cells, and dropping the
// cells of dropped columns. r's deletion becomes the later of its own and
// outer, as Cassandra's view update generation sees an existing row
// (Row.withRowDeletion of the partition's current deletion). It reports
// whether anything is left.
func deadView(r *data.Row, outer data.DeletionTime, dropped map[string]schema.DroppedColumn) bool {
	r.PurgeShadowed(outer)
	r.Deletion = data.MaxDeletion(r.Deletion, outer)
	if len(dropped) > 0 {
		kept := r.Cells[:0]
		for _, c := range r.Cells {
			if d, ok := dropped[c.Column]; ok && c.Timestamp <= d.DroppedAt {
				continue
			}
			kept = append(kept, c)
		}
		r.Cells = kept
	}
	return !r.IsEmpty()
}

// liveView reduces r, in place, to its live data at now: it applies outer
// (the partition deletion and covering range tombstones) and r's own
// deletions, drops tombstones and expired cells and the cells f does not
// select, and reports whether the row is live. Liveness is decided on all
// cells, selected or not (Cassandra fetches all columns to decide whether a
// row exists). Statistics are added to st; dead reports whether a
// tombstone or expired cell was counted (the tombstone counts grew).
func liveView(r *data.Row, outer data.DeletionTime, now int64, f columnFilter, dropped map[string]schema.DroppedColumn, st *ReadStats) (live, dead bool) {
	if !r.Deletion.IsLive() && st.counts(r.Deletion.LocalDeletionTime) {
		st.Tombstones.Row++
		dead = true
	}
	for i := range r.ColumnDeletions {
		if st.counts(r.ColumnDeletions[i].Deletion.LocalDeletionTime) {
			st.Tombstones.Collection++
			dead = true
		}
	}
	r.PurgeShadowed(outer)
	live = r.Liveness.IsLive(now)
	if !live {
		r.Liveness = data.EmptyLiveness
	}
	kept := r.Cells[:0]
	for i := range r.Cells {
		c := &r.Cells[i]
		switch {
		case c.Kind == data.CellTombstone:
			if st.counts(c.LocalDeletionTime) {
				st.Tombstones.Cell++
				dead = true
			}
			continue
		case c.IsExpired(now):
			if st.counts(c.LocalDeletionTime) {
				st.ExpiredCells++
				dead = true
			}
			continue
		}
		if d, ok := dropped[c.Column]; ok && c.Timestamp <= d.DroppedAt {
			continue // written before the column was dropped
		}
		live = true
		if f.selects(c.Column) {
			kept = append(kept, *c)
		}
	}
	r.Cells = kept
	r.Deletion = data.LiveDeletion
	r.ColumnDeletions = nil
	if live {
		st.LiveCells += len(kept)
	}
	return live, dead
}
