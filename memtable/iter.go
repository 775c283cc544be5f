package memtable

import (
	"bytes"
	"encoding/binary"
	"runtime"

	"github.com/google/btree"

	"github.com/minicass/minicass/data"
)

// Batch sizes of the seeking iterators: the first seek collects minBatch
// items, and each further seek twice as many, up to maxBatch.
const (
	minBatch = 8
	maxBatch = 256
)

// rowIter walks the rows of a partition snapshot in slices, forward or
// reverse, collecting encoded rows from the B-tree in batches. After a
// batch it resumes by seeking past the last row it returned. Next decodes
// each row into the iterator's own row, reusing its cell array.
type rowIter struct {
	one  []byte
	tree *btree.BTreeG[rowItem]
	// keep is the arena that holds the rows of tree (see rowRef): an
	// iterator may outlive its snapshot.
	keep    *arena
	slices  data.Slices
	reverse bool
	all     bool // slices select every row

	si      int  // index of the current slice
	oneDone bool // the inline row was handled
	buf     [][]byte
	pos     int
	last    []byte // clustering of the last row collected in this slice
	started bool   // last is set
	done    bool   // the current slice is exhausted
	batch   int

	// row is the decoded row Next returns; cellsArr backs its cells for
	// rows of up to two cells, so a point read allocates nothing more.
	row      data.Row
	cellsArr [2]data.Cell

	// w holds the state of B-tree walks, allocated by the first fill: a
	// partition with a single inline row never needs it.
	w *treeWalk
}

// treeWalk is the state fill needs to walk a row B-tree without allocating
// per batch.
type treeWalk struct {
	// visit is the B-tree callback of fill, visitForward or visitReverse
	// as the read's order asks; each is made the first time a read of its
	// order needs it (a method value allocates) and kept, and reads the
	// current slice and batch size from sl and n.
	visit                      func(rowItem) bool
	visitForward, visitReverse func(rowItem) bool
	sl                         data.Slice
	n                          int
	// pivot is the encoded seek key of fill (a clustering with no more),
	// in pivotArr when it fits; bufArr backs the first two batches (a
	// LIMIT 10 read fills two).
	pivot    []byte
	pivotArr [40]byte
	bufArr   [2 * minBatch][]byte
}

// everything selects every row; it is never modified.
var everything = data.Slices{{}}

// init prepares it to walk one (the inline row) or tree, whose rows keep
// keeps alive, in slices.
func (it *rowIter) init(one []byte, tree *btree.BTreeG[rowItem], keep *arena, slices data.Slices, reverse bool) {
	if len(slices) == 0 {
		slices = everything
	}
	// A single slice without bounds (a flush's and a full scan's) selects
	// the inline row without a look at its clustering.
	it.all = len(slices) == 1 && slices[0].Start == nil && slices[0].End == nil
	it.one, it.tree, it.slices, it.reverse, it.batch = one, tree, slices, reverse, minBatch
	if tree != nil && it.keep != keep {
		it.keep = keep
	}
	if reverse {
		it.si = len(slices) - 1
	}
	if it.row.Cells == nil {
		it.row.Cells = it.cellsArr[:0]
	}
}

// Next returns the next row. The row is the iterator's and valid until the
// next call to Next or Close; the bytes it references belong to the
// memtable, are never modified, and stay valid as long as the caller keeps
// them.
func (it *rowIter) Next() (*data.Row, bool) {
	b, ok := it.NextEncoded()
	if !ok {
		return nil, false
	}
	return it.decode(b), true
}

// NextEncoded is Next without the decoding: it returns the next row's
// encoding, for a RowDecoder. The bytes are the memtable's, never
// modified, and stay valid as long as the caller keeps them, so that a
// flush can hand them to another goroutine to decode. Next and
// NextEncoded may be mixed.
func (it *rowIter) NextEncoded() ([]byte, bool) {
	if it.tree == nil {
		if it.oneDone || it.one == nil {
			return nil, false
		}
		it.oneDone = true
		if it.all || it.slices.Contains(rowClustering(it.one)) {
			return it.one, true
		}
		return nil, false
	}
	for {
		if it.pos < len(it.buf) {
			r := it.buf[it.pos]
			it.pos++
			return r, true
		}
		if it.si < 0 || it.si >= len(it.slices) {
			return nil, false
		}
		if it.done {
			it.nextSlice()
			continue
		}
		it.fill()
	}
}

// decode decodes the encoded row b into it.row.
func (it *rowIter) decode(b []byte) *data.Row {
	decodeRow(b, &it.row)
	return &it.row
}

func (it *rowIter) nextSlice() {
	if it.reverse {
		it.si--
	} else {
		it.si++
	}
	it.done, it.started, it.last = false, false, nil
}

// fill collects the next batch of rows of the current slice into buf.
func (it *rowIter) fill() {
	w := it.w
	if w == nil {
		w = new(treeWalk)
		it.w, it.buf = w, w.bufArr[:0:len(w.bufArr)]
		w.pivot = w.pivotArr[:0]
	}
	if it.buf == nil { // a walk kept from an earlier read (reuse)
		it.buf = w.bufArr[:0:len(w.bufArr)]
	}
	if it.reverse {
		if w.visitReverse == nil {
			w.visitReverse = it.visitReverse
		}
		w.visit = w.visitReverse
	} else {
		if w.visitForward == nil {
			w.visitForward = it.visitForward
		}
		w.visit = w.visitForward
	}
	w.sl = it.slices[it.si]
	sl := &w.sl
	it.pos = 0
	w.n = it.batch
	if it.batch < maxBatch {
		it.batch *= 2
	}
	if cap(it.buf) < w.n {
		it.buf = make([][]byte, 0, w.n)
	}
	it.buf = it.buf[:0]
	if it.reverse {
		switch {
		case it.started:
			it.tree.DescendLessOrEqual(w.setPivot(it.last), w.visit)
		case sl.End != nil:
			it.tree.DescendLessOrEqual(w.setPivot(sl.End), w.visit)
		default:
			it.tree.Descend(w.visit)
		}
	} else {
		switch {
		case it.started:
			it.tree.AscendGreaterOrEqual(w.setPivot(it.last), w.visit)
		case sl.Start != nil:
			it.tree.AscendGreaterOrEqual(w.setPivot(sl.Start), w.visit)
		default:
			it.tree.Ascend(w.visit)
		}
	}
	if len(it.buf) < w.n {
		it.done = true
	}
	if len(it.buf) > 0 {
		it.last, it.started = rowClustering(it.buf[len(it.buf)-1]), true
	}
}

// setPivot encodes clustering as a B-tree seek key: the clustering prefix
// of an encoded row is all that lessItem reads.
func (w *treeWalk) setPivot(clustering []byte) rowItem {
	w.pivot = binary.AppendUvarint(w.pivot[:0], uint64(len(clustering))+1)
	w.pivot = append(w.pivot, clustering...)
	return makeRowItem(w.pivot, clustering)
}

// visitForward collects rows of the current slice after last.
func (it *rowIter) visitForward(item rowItem) bool {
	r := item.bytes()
	ck := rowClustering(r)
	if it.started && bytes.Compare(ck, it.last) <= 0 {
		return true
	}
	if it.w.sl.End != nil && bytes.Compare(ck, it.w.sl.End) >= 0 {
		return false
	}
	it.buf = append(it.buf, r)
	return len(it.buf) < it.w.n
}

// visitReverse collects rows of the current slice before last.
func (it *rowIter) visitReverse(item rowItem) bool {
	r := item.bytes()
	ck := rowClustering(r)
	if (it.started && bytes.Compare(ck, it.last) >= 0) ||
		(it.w.sl.End != nil && bytes.Compare(ck, it.w.sl.End) >= 0) {
		return true // the pivot itself, or the excluded end bound
	}
	if it.w.sl.Start != nil && bytes.Compare(ck, it.w.sl.Start) < 0 {
		return false
	}
	it.buf = append(it.buf, r)
	return len(it.buf) < it.w.n
}

// Err returns nil: a memtable iterator cannot fail.
func (it *rowIter) Err() error { return nil }

// Close releases the iterator. It keeps the B-tree walk state, which reuse
// hands to the next read of a pooled snapshot.
func (it *rowIter) Close() error {
	// Pointer fields are written only when set: the iterator usually
	// lives in the heap (a snapshot), where every pointer write costs a
	// write barrier while the collector marks, and a flush closes one
	// iterator per partition.
	if it.buf != nil {
		it.buf = nil
	}
	if it.tree != nil {
		it.tree, it.keep = nil, nil
	}
	if it.one != nil {
		it.one = nil
	}
	it.clearRow()
	it.si = -1
	return nil
}

// clearRow empties it.row, keeping its cell array, as
// it.row = data.Row{Cells: it.row.Cells[:0]} does but writing only the
// pointer fields that are set.
func (it *rowIter) clearRow() {
	r := &it.row
	if r.Clustering != nil {
		r.Clustering = nil
	}
	if r.ColumnDeletions != nil {
		r.ColumnDeletions = nil
	}
	r.Cells = r.Cells[:0]
	r.Liveness, r.Deletion = data.LivenessInfo{}, data.DeletionTime{}
}

// reset readies the iterator of a ScanReuse ring snapshot for the
// snapshot's next partition: as new, but keeping its B-tree walk state
// (whose callbacks are bound to this iterator) and its row's cell array,
// whose column names decodeRow then keeps when the next partition names
// the same columns. Unlike reuse, it leaves the walk's batch buffer as it
// is: the ring lives only as long as its scan, which holds the memtable.
// Only fields that differ from a new iterator's are written (see Close).
func (it *rowIter) reset() {
	if it.one != nil {
		it.one = nil
	}
	if it.tree != nil {
		it.tree, it.keep = nil, nil
	}
	if it.slices != nil {
		it.slices = nil
	}
	if it.buf != nil {
		it.buf = nil
	}
	if it.last != nil {
		it.last = nil
	}
	it.reverse, it.all, it.si, it.oneDone, it.pos, it.started, it.done, it.batch = false, false, 0, false, 0, false, false, 0
	it.clearRow()
}

// reuse readies the iterator of a snapshot that Release gives back for the
// snapshot's next read: as new, but keeping its B-tree walk state (whose
// callbacks are bound to this iterator) and its row's cell array. The
// walk's batch buffer is cleared of the rows of the last read.
func (it *rowIter) reuse() {
	w, cells := it.w, it.row.Cells[:0]
	*it = rowIter{w: w}
	it.row.Cells = cells
	if w != nil {
		clear(w.bufArr[:])
	}
}

// partitionIter walks snapshots of the partition shards over a token
// range with a cursor, shard after shard (shards are in token order).
type partitionIter struct {
	trees   [numShards]*psnap
	shard   int // the shard the cursor is in
	last    int // the last shard to walk
	r       data.TokenRange
	c       pcursor
	started bool // the cursor is positioned in shard
	done    bool
	// body is the memtable's: its arenas keep alive what the partitions
	// the cursor reads point to (see newSlab), should the memtable be
	// dropped before the scan ends.
	body *body

	// reuse makes Next overwrite the snapshots of ring instead of
	// allocating one per partition (ScanReuse). ring holds the snapshots
	// of the next n partitions from ring[head] on, taken ahead of time;
	// handed reports that ring[head] was returned by the last Next.
	reuse  bool
	ring   *[lookahead]snapshot
	head   int
	n      int
	handed bool
	sink   byte
}

// lookahead is how many partitions ScanReuse snapshots ahead of the one it
// returns. A flush walks partitions scattered over the heap, and each costs
// several cache misses (the partition, its key, its cells, their values)
// that would otherwise come one after the other: the cursor touches the
// keys of a whole bucket at once, and each snapshot's row is touched when
// it is taken, so that those misses are issued together, while the caller
// works on earlier partitions.
const lookahead = 8

// Next returns a snapshot of the next partition in the range.
func (it *partitionIter) Next() (data.PartitionSource, bool) {
	if !it.reuse {
		p := it.advance()
		if p == nil {
			return nil, false
		}
		s := p.snapshot()
		// it.body keeps what p points to alive until the snapshot
		// holds it, even if the caller drops the memtable and it.
		runtime.KeepAlive(it.body)
		return s, true
	}
	if it.ring == nil {
		it.ring = new([lookahead]snapshot)
	}
	if it.handed {
		it.handed = false
		it.head = (it.head + 1) % lookahead
		it.n--
	}
	for it.n < lookahead {
		p := it.advance()
		if p == nil {
			break
		}
		s := &it.ring[(it.head+it.n)%lookahead]
		p.snapshotInto(s)
		// Touch the snapshot's row as soon as it is taken, lookahead
		// partitions before the caller reaches it: the load does not
		// depend on the work in between, so its miss overlaps it. (The
		// cursor touched the key when it read the bucket.)
		it.touch(s)
		it.n++
	}
	if it.n == 0 {
		return nil, false
	}
	it.handed = true
	return &it.ring[it.head], true
}

// touch reads the first and last bytes of s's inline row (the last is
// usually in its cell's value), so that the memory is in cache by the
// time the caller reaches s. The row is immutable once the snapshot holds
// it: reading it needs no lock.
func (it *partitionIter) touch(s *snapshot) {
	r := s.one
	if len(r) == 0 {
		return
	}
	it.sink ^= r[0] ^ r[len(r)-1]
}

// advance moves the cursor to the next partition in the range and returns
// it, or nil at the end.
func (it *partitionIter) advance() *partition {

	for !it.done {
		var ok bool
		if !it.started {
			it.started = true
			ok = it.c.seekToken(it.trees[it.shard], it.r.Start)
			for ok && !it.r.StartInclusive && it.c.curToken() == it.r.Start {
				ok = it.c.next()
			}
		} else {
			ok = it.c.next()
		}
		if !ok {
			if it.shard++; it.shard > it.last {
				it.done = true
			}
			it.started = false
			continue
		}
		// The bucket's copy of the token is compared, which is in the
		// cursor's batch, not the partition's.
		if it.c.curToken() <= it.r.End {
			return it.c.cur()
		}
		it.done = true
	}
	return nil
}

// Err returns nil: a memtable iterator cannot fail.
func (it *partitionIter) Err() error { return nil }

// Close releases the iterator.
func (it *partitionIter) Close() error {
	*it = partitionIter{done: true}
	return nil
}
