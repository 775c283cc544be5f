package memtable

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/minicass/minicass/data"
)

// partitionOverhead estimates the bytes of a partition struct without its
// inline row (the row's own estimate counts that).
const partitionOverhead = 64

// partition is one partition of a memtable. token and key never change; the
// other fields are guarded by mu. Stored rows are immutable.
//
// A narrow partition (one row, no partition-level data) is this struct
// alone, 176 bytes with its row inline; what only some partitions have
// lives behind more.
type partition struct {
	token int64
	key   []byte
	// seq numbers the partition among those inserted into its shard; a
	// snapshot of the shard's index skips the ones numbered after it.
	seq uint64

	mu sync.Mutex
	// one is the only row while the partition has a single row; it is nil
	// once more.rows holds every row.
	one *data.Row
	// more is nil until the partition gets a deletion, a static row, a
	// range tombstone or a second row.
	more *partitionMore
	// first holds the first row ever inserted, so that a narrow partition
	// and its row are one allocation. It is written once, before one
	// points to it, and never modified afterwards (rows are immutable).
	first data.Row
}

// partitionMore is the partition-level data and the row tree of a
// partition that has them.
type partitionMore struct {
	deletion data.DeletionTime
	static   *data.Row
	// rts is sorted by Start (nil first) and replaced, never modified in
	// place, so snapshots can share it.
	rts []data.RangeTombstone
	// rows holds every row of a partition that had more than one.
	rows *btree.BTreeG[*data.Row]
	// snap is a clone of rows shared by readers until the next write.
	snap *btree.BTreeG[*data.Row]
}

// partitionMoreSize estimates the bytes of a partitionMore.
const partitionMoreSize = 80

// extra returns p.more, allocating it first if needed, and the growth of
// the partition's estimated size. The caller holds p.mu (or has not
// published p).
func (p *partition) extra() (*partitionMore, int) {
	if p.more != nil {
		return p.more, 0
	}
	p.more = &partitionMore{deletion: data.LiveDeletion}
	return p.more, partitionMoreSize
}

func lessRow(a, b *data.Row) bool { return bytes.Compare(a.Clustering, b.Clustering) < 0 }

// minTS accumulates the smallest timestamp of applied data.
type minTS int64

func (r *minTS) add(ts int64) {
	if ts != data.NoTimestamp && ts < int64(*r) {
		*r = minTS(ts)
	}
}

func (r *minTS) addRow(row *data.Row) {
	r.add(row.Liveness.Timestamp)
	r.add(row.Deletion.MarkedForDeleteAt)
	for i := range row.ColumnDeletions {
		r.add(row.ColumnDeletions[i].Deletion.MarkedForDeleteAt)
	}
	for i := range row.Cells {
		r.add(row.Cells[i].Timestamp)
	}
}

// apply merges mu into p, which the caller has locked (or not yet
// published). It returns the size delta and the smallest timestamp applied
// (math.MaxInt64 if none).
func (p *partition) apply(mu *data.Mutation, free *btree.FreeListG[*data.Row]) (delta int, lo int64) {
	ts := minTS(1<<63 - 1)
	if !mu.PartitionDeletion.IsLive() {
		m, grown := p.extra()
		delta += grown
		m.deletion = data.MaxDeletion(m.deletion, mu.PartitionDeletion)
		ts.add(mu.PartitionDeletion.MarkedForDeleteAt)
	}
	if len(mu.RangeTombstones) > 0 {
		m, grown := p.extra()
		delta += grown
		m.rts = insertRangeTombstones(m.rts, mu.RangeTombstones)
		for i := range mu.RangeTombstones {
			rt := &mu.RangeTombstones[i]
			delta += 48 + len(rt.Start) + len(rt.End)
			ts.add(rt.Deletion.MarkedForDeleteAt)
		}
	}
	if mu.Static != nil && !mu.Static.IsEmpty() {
		ts.addRow(mu.Static)
		m, grown := p.extra()
		delta += grown
		if m.static == nil {
			r := *mu.Static
			m.static = &r
			delta += r.Size()
		} else {
			merged := data.MergeRows(m.static, mu.Static)
			delta += merged.Size() - m.static.Size()
			m.static = &merged
		}
	}
	for i := range mu.Rows {
		in := &mu.Rows[i]
		ts.addRow(in)
		delta += p.applyRow(in, free)
	}
	return delta, int64(ts)
}

// applyRow merges one row into p and returns the size delta.
func (p *partition) applyRow(in *data.Row, free *btree.FreeListG[*data.Row]) int {
	delta := 0
	if p.more == nil || p.more.rows == nil {
		if p.one == nil {
			// The partition never had a row (p.first is unused): only
			// a partition without rows lacks both one and rows.
			p.first = *in
			p.one = &p.first
			return in.Size()
		}
		if bytes.Equal(p.one.Clustering, in.Clustering) {
			merged := data.MergeRows(p.one, in)
			delta := merged.Size() - p.one.Size()
			p.one = &merged
			return delta
		}
		var m *partitionMore
		m, delta = p.extra()
		m.rows = btree.NewWithFreeListG(btreeDegree, lessRow, free)
		m.rows.ReplaceOrInsert(p.one)
		p.one = nil
	}
	m := p.more
	m.snap = nil
	// Inserting first costs one walk for a new row (the common case of
	// appends to a wide partition); an existing row is put back merged.
	r := new(data.Row)
	*r = *in
	old, ok := m.rows.ReplaceOrInsert(r)
	if !ok {
		return delta + r.Size()
	}
	merged := data.MergeRows(old, in)
	m.rows.ReplaceOrInsert(&merged)
	return delta + merged.Size() - old.Size()
}

// insertRangeTombstones returns a new slice holding old and add, sorted by
// Start (nil first). old is not modified.
func insertRangeTombstones(old, add []data.RangeTombstone) []data.RangeTombstone {
	out := make([]data.RangeTombstone, 0, len(old)+len(add))
	out = append(out, old...)
	for _, rt := range add {
		i := len(out)
		for i > 0 && data.CompareStarts(out[i-1].Start, rt.Start) > 0 {
			i--
		}
		out = append(out, data.RangeTombstone{})
		copy(out[i+1:], out[i:])
		out[i] = rt
	}
	return out
}

// snapshot returns a consistent read-only view of p. The view and the first
// row iterator asked of it are one allocation.
func (p *partition) snapshot() *snapshot {
	s := new(snapshot)
	p.snapshotInto(s)
	return s
}

// snapshotInto overwrites s, which no reader may still use, with a
// consistent read-only view of p, as snapshot does without allocating.
func (p *partition) snapshotInto(s *snapshot) {
	s.token, s.key = p.token, p.key
	s.iter = rowIter{}
	s.iterTaken.Store(false)
	p.mu.Lock()
	s.one = p.one
	if m := p.more; m == nil {
		s.deletion, s.static, s.rts, s.rows = data.LiveDeletion, nil, nil, nil
	} else {
		s.deletion, s.static, s.rts, s.rows = m.deletion, m.static, m.rts, nil
		if m.rows != nil {
			if m.snap == nil {
				m.snap = m.rows.Clone()
			}
			s.rows = m.snap
		}
	}
	p.mu.Unlock()
}

// snapshot is an immutable view of a partition; it implements
// data.PartitionSource.
type snapshot struct {
	token    int64
	key      []byte
	deletion data.DeletionTime
	static   *data.Row
	rts      []data.RangeTombstone
	one      *data.Row
	rows     *btree.BTreeG[*data.Row]

	// iter is handed out by the first call to Rows (iterTaken).
	iter      rowIter
	iterTaken atomic.Bool
}

// Key returns the partition key.
func (s *snapshot) Key() []byte { return s.key }

// Token returns the partition token.
func (s *snapshot) Token() int64 { return s.token }

// Deletion returns the partition deletion.
func (s *snapshot) Deletion() data.DeletionTime { return s.deletion }

// Static returns the static row, or nil. The row must not be modified.
func (s *snapshot) Static() *data.Row { return s.static }

// RangeTombstones returns the range tombstones that intersect one of slices
// (all of them for empty slices), sorted by Start. The returned slice must
// not be modified.
func (s *snapshot) RangeTombstones(slices data.Slices) []data.RangeTombstone {
	if len(slices) == 0 || len(s.rts) == 0 {
		return s.rts
	}
	var out []data.RangeTombstone
	for i := range s.rts {
		for _, sl := range slices {
			if intersects(&s.rts[i], sl) {
				out = append(out, s.rts[i])
				break
			}
		}
	}
	return out
}

// intersects reports whether [rt.Start, rt.End) and [sl.Start, sl.End)
// share a key.
func intersects(rt *data.RangeTombstone, sl data.Slice) bool {
	if rt.End != nil && sl.Start != nil && bytes.Compare(rt.End, sl.Start) <= 0 {
		return false
	}
	if rt.Start != nil && sl.End != nil && bytes.Compare(rt.Start, sl.End) >= 0 {
		return false
	}
	return true
}

// Rows returns an iterator over the rows of the snapshot in slices.
func (s *snapshot) Rows(slices data.Slices, reverse bool) data.RowIterator {
	var it *rowIter
	if s.iterTaken.CompareAndSwap(false, true) {
		it = &s.iter
	} else {
		it = new(rowIter)
	}
	it.init(s.one, s.rows, slices, reverse)
	return it
}
