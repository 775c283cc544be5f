package memtable

import (
	"bytes"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/google/btree"

	"github.com/minicass/minicass/data"
)

// partitionOverhead estimates the bytes a partition costs besides its
// arena bytes: the partition struct and its share of the index's buckets
// and directories (36 bytes, as measured for a million narrow partitions:
// 16-byte slots in buckets about three quarters full, and the directories).
const partitionOverhead = 48 + 36

// partition is one partition of a memtable. token and key never change; the
// other fields are guarded by mu. key and the encoded rows live in the
// memtable's arena and are never modified.
//
// Partitions live in slabs the garbage collector does not scan (see
// newSlab): every pointer field below (one, key, more) must point to
// memory that the shard's arena keeps alive in its keep list (arena chunks,
// allocations outside chunks, partitionMores), and a new pointer field
// must too, or the slab must be made scanned memory again.
//
// A narrow partition (one row, no partition-level data) is this struct
// alone, 48 bytes with three pointers, and its key and row in the arena;
// what only some partitions have lives behind more. Slices into the arena
// are kept as a pointer and a length (key: a uvarint length before the
// bytes) instead of 24-byte slice headers.
type partition struct {
	token int64
	mu    sync.Mutex
	// seq numbers the partition among those inserted into its shard; a
	// snapshot of the shard's index skips the ones numbered after it. A
	// shard holds fewer than 2^32 partitions (at 48 bytes each, 192 GiB).
	seq uint32
	// oneLen and one are the encoded only row while the partition has a
	// single row (see rowenc.go). one points to it, or is nil with
	// oneAfterKey set in oneLen when the row lies right after the key in
	// the same arena allocation (a new narrow partition's, see setKey and
	// setRowAfterKey): the collector then has one pointer less to follow
	// per partition. Both are zero once more.rows holds every row. Use
	// row, setRow and setRowAfterKey.
	oneLen uint32
	one    *byte
	// key points to the partition key's length (a uvarint) and bytes in
	// the arena. Use keyBytes.
	key *byte
	// more is nil until the partition gets a deletion, a static row, a
	// range tombstone or a second row.
	more *partitionMore
}

// oneAfterKey, set in partition.oneLen with a nil partition.one, says the
// only row lies right after the key.
const oneAfterKey = 1 << 31

// keyBytes returns the partition key.
func (p *partition) keyBytes() []byte {
	w, n := p.keyLen()
	if n == 0 {
		return emptyBytes
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(p.key), w)), n)
}

// keyLen returns the width of the key's uvarint length and the key's
// length.
func (p *partition) keyLen() (w, n int) {
	// The uvarint is read byte by byte: a slice over the longest one
	// could reach past the end of the arena chunk.
	shift, ptr := 0, unsafe.Pointer(p.key)
	for {
		c := *(*byte)(unsafe.Add(ptr, w))
		w++
		n |= int(c&0x7f) << shift
		if c < 0x80 {
			return w, n
		}
		shift += 7
	}
}

// setKey copies key, with its length before it, into a's arena, and
// reserves room bytes right after it in the same allocation, handed to a
// as a.spare (nil for no room).
func (p *partition) setKey(key []byte, room int, a *applier) {
	var hdr [binary.MaxVarintLen64]byte
	w := binary.PutUvarint(hdr[:], uint64(len(key)))
	n := w + len(key)
	b, grown := a.arena.alloc(n + room)
	a.grown += grown
	copy(b, hdr[:w])
	copy(b[w:], key)
	p.key = &b[0]
	a.spare = nil
	if room > 0 {
		a.spare = b[n : n+room : n+room]
	}
}

// row returns the encoded only row, or nil.
func (p *partition) row() []byte {
	if p.one != nil {
		return unsafe.Slice(p.one, p.oneLen)
	}
	if p.oneLen&oneAfterKey == 0 {
		return nil
	}
	w, n := p.keyLen()
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(p.key), w+n)), p.oneLen&^oneAfterKey)
}

// setRow makes the encoded row b (never empty) the only row, or clears it
// for nil b.
func (p *partition) setRow(b []byte) {
	if b == nil {
		p.one, p.oneLen = nil, 0
		return
	}
	p.one, p.oneLen = &b[0], uint32(len(b))
}

// setRowAfterKey is setRow for b, arena bytes of the allocation that holds
// p's key (setKey's room): when b starts right after the key, the row is
// kept without a pointer of its own. Any other b is kept as setRow keeps
// it.
func (p *partition) setRowAfterKey(b []byte) {
	w, n := p.keyLen()
	if len(b) == 0 || len(b) >= oneAfterKey || uintptr(unsafe.Pointer(p.key))+uintptr(w+n) != uintptr(unsafe.Pointer(&b[0])) {
		p.setRow(b)
		return
	}
	p.one, p.oneLen = nil, uint32(len(b))|oneAfterKey
}

// partitionMore is the partition-level data and the row tree of a
// partition that has them.
type partitionMore struct {
	deletion data.DeletionTime
	// static is the encoded static row, nil if none.
	static []byte
	// rts is sorted by Start (nil first) and replaced, never modified in
	// place, so snapshots can share it. Its bounds live in the arena.
	rts []data.RangeTombstone
	// rows holds the encoded rows of a partition that had more than one,
	// ordered by clustering (lessItem).
	rows *btree.BTreeG[rowItem]
	// snap is a clone of rows shared by readers until the next write.
	snap *btree.BTreeG[rowItem]
	// arena is the arena of the partition's shard, which holds the rows
	// that the items of rows and snap refer to (rowRef) and keeps them
	// alive: a snapshot of the partition keeps it too.
	arena *arena
}

// partitionMoreSize estimates the bytes of a partitionMore.
const partitionMoreSize = 96

// rowItemSize estimates the bytes a row costs in a row B-tree besides its
// arena bytes: its item (a rowItem, 24 bytes) in a node that is on average
// three quarters full, and the node structs around it.
const rowItemSize = 40

// extra returns p.more, allocating it first if needed, and the growth of
// the partition's estimated size. A new partitionMore is added to the
// keep list of a's arena, the arena of p's shard: p lives in a slab the
// collector does not scan, so p.more alone would not keep it alive. The
// caller holds p.mu (or has not published p).
func (p *partition) extra(a *applier) (*partitionMore, int) {
	if p.more != nil {
		return p.more, 0
	}
	m := &partitionMore{deletion: data.LiveDeletion, arena: a.arena}
	a.arena.keepMore(m)
	p.more = m
	return m, partitionMoreSize
}

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

// applier holds what applying mutations to the partitions of one shard
// needs: the shard's arena and scratch space for encoding and merging.
type applier struct {
	arena *arena
	free  *btree.FreeListG[rowItem]
	// grown counts the arena bytes added while applying.
	grown int
	// obs, when not nil, is told of every row merged (ApplyObserved).
	obs RowObserver

	// spare, if not nil, is the encoding of the mutation's only row,
	// made by Memtable.Apply for a new partition before it took the
	// shard's lock, in arena bytes reserved right after the partition's
	// key (one allocation for both, see setKey): the next store returns
	// it instead of encoding the row again. It is used once.
	spare []byte
}

// preSize is the stack space a row is encoded in before it is copied into
// the arena; a longer encoding moves to the heap (encodeRow appends).
const preSize = 256

// store encodes r into the arena and returns the encoded bytes (a.spare, if
// set: r is then the row it encodes).
func (a *applier) store(r *data.Row) []byte {
	if b := a.spare; b != nil {
		a.spare = nil
		return b
	}
	return a.storeReuse(r, nil)
}

// storeReuse is store, but writes into reuse, arena bytes that no reader
// can see, if the encoding fits.
func (a *applier) storeReuse(r *data.Row, reuse []byte) []byte {
	var stack [preSize]byte
	enc := encodeRow(stack[:0], r)
	if len(enc) <= len(reuse) {
		return reuse[:copy(reuse, enc)]
	}
	b, grown := a.arena.alloc(len(enc))
	copy(b, enc)
	a.grown += grown
	return b
}

// copyIn copies s into the arena.
func (a *applier) copyIn(s []byte) []byte {
	b, grown := a.arena.copyIn(s)
	a.grown += grown
	return b
}

// merge returns the encoding of the reconciliation of the stored row old
// and the incoming row in, written into reuse if it fits (see storeReuse).
func (a *applier) merge(old []byte, in *data.Row, reuse []byte) []byte {
	var cur data.Row
	var cellsArr [8]data.Cell
	cur.Cells = cellsArr[:0]
	decodeRow(old, &cur)
	merged := data.MergeRows(&cur, in)
	if a.obs != nil {
		a.obs.RowUpdated(&cur, &merged)
	}
	return a.storeReuse(&merged, reuse)
}

// inserted tells the observer, if any, of a row the memtable did not hold.
func (a *applier) inserted(in *data.Row) {
	if a.obs != nil {
		a.obs.RowInserted(in)
	}
}

// apply merges mu into p, which the caller has locked (or not yet
// published). It returns the size delta (the arena's growth and the
// estimated structs) and the smallest timestamp applied (math.MaxInt64 if
// none). Nothing of mu is kept: what p needs is copied into the arena.
func (p *partition) apply(mu *data.Mutation, a *applier) (delta int, lo int64) {
	ts := minTS(1<<63 - 1)
	if !mu.PartitionDeletion.IsLive() {
		m, grown := p.extra(a)
		delta += grown
		m.deletion = data.MaxDeletion(m.deletion, mu.PartitionDeletion)
		ts.add(mu.PartitionDeletion.MarkedForDeleteAt)
	}
	if len(mu.RangeTombstones) > 0 {
		m, grown := p.extra(a)
		delta += grown
		m.rts = insertRangeTombstones(m.rts, mu.RangeTombstones, a)
		delta += 40 * len(mu.RangeTombstones)
		for i := range mu.RangeTombstones {
			ts.add(mu.RangeTombstones[i].Deletion.MarkedForDeleteAt)
		}
	}
	if mu.Static != nil && !mu.Static.IsEmpty() {
		ts.addRow(mu.Static)
		m, grown := p.extra(a)
		delta += grown
		if m.static == nil {
			m.static = a.store(mu.Static)
			a.inserted(mu.Static)
		} else {
			m.static = a.merge(m.static, mu.Static, nil)
		}
	}
	for i := range mu.Rows {
		in := &mu.Rows[i]
		ts.addRow(in)
		delta += p.applyRow(in, a)
	}
	return delta, int64(ts)
}

// applyRow merges one row into p and returns the size delta of the
// structs (the arena's growth is counted in a).
func (p *partition) applyRow(in *data.Row, a *applier) int {
	delta := 0
	if p.more == nil || p.more.rows == nil {
		one := p.row()
		if one == nil {
			// The partition never had a row: only a partition without
			// rows lacks both one and rows. A new narrow partition's row
			// is in the room reserved after its key (a.spare).
			if a.spare != nil {
				p.setRowAfterKey(a.store(in))
			} else {
				p.setRow(a.store(in))
			}
			a.inserted(in)
			return 0
		}
		if bytes.Equal(rowClustering(one), in.Clustering) {
			p.setRow(a.merge(one, in, nil))
			return 0
		}
		var m *partitionMore
		m, delta = p.extra(a)
		m.rows = btree.NewWithFreeListG(btreeDegree, lessItem, a.free)
		m.rows.ReplaceOrInsert(encodedRowItem(one))
		p.setRow(nil)
		delta += rowItemSize
	}
	m := p.more
	m.snap = nil
	// Inserting first costs one walk for a new row (the common case of
	// appends to a wide partition); an existing row is put back merged,
	// over the bytes of the inserted one when it fits: no snapshot holds
	// them yet (clones of the tree are made under p.mu).
	enc := a.store(in)
	old, ok := m.rows.ReplaceOrInsert(makeRowItem(enc, in.Clustering))
	if !ok {
		a.inserted(in)
		return delta + rowItemSize
	}
	m.rows.ReplaceOrInsert(makeRowItem(a.merge(old.bytes(), in, enc), in.Clustering))
	return delta
}

// insertRangeTombstones returns a new slice holding old and add, sorted by
// Start (nil first). old is not modified.
func insertRangeTombstones(old, add []data.RangeTombstone, a *applier) []data.RangeTombstone {
	out := make([]data.RangeTombstone, 0, len(old)+len(add))
	out = append(out, old...)
	for _, rt := range add {
		i := len(out)
		for i > 0 && data.CompareStarts(out[i-1].Start, rt.Start) > 0 {
			i--
		}
		out = append(out, data.RangeTombstone{})
		copy(out[i+1:], out[i:])
		out[i] = data.RangeTombstone{Start: a.copyIn(rt.Start), End: a.copyIn(rt.End), Deletion: rt.Deletion}
	}
	return out
}

// snapshot returns a consistent read-only view of p. The view and the first
// row iterator asked of it are one allocation.
func (p *partition) snapshot() *snapshot {
	s := new(snapshot)
	p.fillSnapshot(s)
	return s
}

// snapshots recycles the snapshots Memtable.Get hands out, which their
// reader gives back with Release (with the first row iterator's B-tree
// walk state), so that a partition read allocates neither.
var snapshots = sync.Pool{New: func() any { return &snapshot{pooled: true} }}

// pooledSnapshot is snapshot for Memtable.Get: the view comes from
// snapshots, and Release gives it back.
func (p *partition) pooledSnapshot() *snapshot {
	s := snapshots.Get().(*snapshot)
	p.fillSnapshot(s) // a pooled snapshot's iterator was reset by Release
	return s
}

// Release gives a snapshot of Memtable.Get back for the next Get, once its
// reader is done: neither the snapshot, nor the row iterators it handed
// out, nor their rows and static row may be used afterwards (the bytes
// those reference are the memtable's, and stay valid). Other snapshots
// (a scan's) are left alone: they are collected as before. The engine
// calls it when a partition read ends.
func (s *snapshot) Release() {
	if !s.pooled {
		return
	}
	s.key, s.one, s.rows, s.rts, s.static, s.keep = nil, nil, nil, nil, nil, nil
	s.iter.reuse()
	s.iterTaken.Store(false)
	snapshots.Put(s)
}

// snapshotInto overwrites s, which no reader may still use, with a
// consistent read-only view of p, as snapshot does without allocating.
func (p *partition) snapshotInto(s *snapshot) {
	s.iter.reset()
	if s.iterTaken.Load() {
		s.iterTaken.Store(false)
	}
	p.fillSnapshot(s)
}

// fillSnapshot is snapshotInto for a snapshot whose iterator is unused
// (a new one): clearing its iterator would cost a bulk write barrier
// while the collector marks.
func (p *partition) fillSnapshot(s *snapshot) {
	s.token, s.key = p.token, p.keyBytes()
	p.mu.Lock()
	s.one = p.row()
	var static []byte
	if m := p.more; m == nil {
		s.deletion, s.rts, s.rows = data.LiveDeletion, nil, nil
	} else {
		s.deletion, static, s.rts, s.rows = m.deletion, m.static, m.rts, nil
		if m.rows != nil {
			if m.snap == nil {
				m.snap = m.rows.Clone()
			}
			s.rows = m.snap
			if s.keep != m.arena {
				s.keep = m.arena
			}
		}
	}
	p.mu.Unlock()
	// The static row is decoded once per snapshot, into the snapshot's
	// own row (reusing its arrays): Static hands it out for as long as the
	// snapshot lives.
	s.static = nil
	if static != nil {
		if s.staticRow == nil {
			s.staticRow = new(data.Row)
		}
		decodeRow(static, s.staticRow)
		s.static = s.staticRow
	}
}

// snapshot is an immutable view of a partition; it implements
// data.PartitionSource.
type snapshot struct {
	token    int64
	key      []byte
	deletion data.DeletionTime
	static   *data.Row
	rts      []data.RangeTombstone
	// one is the encoded only row, rows the tree of encoded rows.
	one  []byte
	rows *btree.BTreeG[rowItem]
	// keep is the arena that holds the rows of rows (see rowRef), set
	// with rows: the tree's items do not keep them alive. A ScanReuse
	// ring snapshot may keep an arena of its memtable after its rows are
	// gone.
	keep *arena
	// staticRow holds the decoded static row that static points to,
	// allocated for the first static row a snapshot (or a ScanReuse ring
	// slot) decodes.
	staticRow *data.Row

	// iter is handed out by the first call to Rows (iterTaken).
	iter      rowIter
	iterTaken atomic.Bool
	// pooled marks a snapshot of snapshots, which Release gives back.
	pooled bool
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

// OnlyRow returns the encoded row of a partition that holds that one row
// and nothing else (no partition deletion, static row, range tombstone or
// other row), and false for any other partition. The row is the one, and
// only, that Rows(nil, false).NextEncoded returns, with the same
// guarantees, taken without the iterator: a flush's walk takes a narrow
// partition this way (engine's flushReader).
func (s *snapshot) OnlyRow() ([]byte, bool) {
	if s.one == nil || s.rows != nil || s.static != nil || len(s.rts) != 0 || s.deletion != data.LiveDeletion {
		return nil, false
	}
	return s.one, true
}

// Rows returns an iterator over the rows of the snapshot in slices.
func (s *snapshot) Rows(slices data.Slices, reverse bool) data.RowIterator {
	var it *rowIter
	if s.iterTaken.CompareAndSwap(false, true) {
		it = &s.iter
	} else {
		it = new(rowIter)
	}
	it.init(s.one, s.rows, s.keep, slices, reverse)
	return it
}
