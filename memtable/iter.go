package memtable

import (
	"bytes"

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
// reverse, collecting rows from the B-tree in batches. After a batch it
// resumes by seeking past the last row it returned.
type rowIter struct {
	one     *data.Row
	tree    *btree.BTreeG[*data.Row]
	slices  data.Slices
	reverse bool

	si      int  // index of the current slice
	oneDone bool // the inline row was handled
	buf     []*data.Row
	pos     int
	last    []byte // clustering of the last row collected in this slice
	started bool   // last is set
	done    bool   // the current slice is exhausted
	batch   int
}

// Next returns the next row. The row belongs to the memtable and is never
// modified: it stays valid after later calls.
func (it *rowIter) Next() (*data.Row, bool) {
	if it.tree == nil {
		return it.nextOne()
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

func (it *rowIter) nextSlice() {
	if it.reverse {
		it.si--
	} else {
		it.si++
	}
	it.done, it.started, it.last = false, false, nil
}

// nextOne serves a partition whose only row is stored inline.
func (it *rowIter) nextOne() (*data.Row, bool) {
	if it.oneDone || it.one == nil {
		return nil, false
	}
	it.oneDone = true
	if it.slices.Contains(it.one.Clustering) {
		return it.one, true
	}
	return nil, false
}

// fill collects the next batch of rows of the current slice into buf.
func (it *rowIter) fill() {
	sl := it.slices[it.si]
	it.buf, it.pos = it.buf[:0], 0
	n := it.batch
	if it.batch < maxBatch {
		it.batch *= 2
	}
	if it.reverse {
		visit := func(r *data.Row) bool {
			if (it.started && bytes.Compare(r.Clustering, it.last) >= 0) ||
				(sl.End != nil && bytes.Compare(r.Clustering, sl.End) >= 0) {
				return true // the pivot itself, or the excluded end bound
			}
			if sl.Start != nil && bytes.Compare(r.Clustering, sl.Start) < 0 {
				return false
			}
			it.buf = append(it.buf, r)
			return len(it.buf) < n
		}
		switch {
		case it.started:
			it.tree.DescendLessOrEqual(&data.Row{Clustering: it.last}, visit)
		case sl.End != nil:
			it.tree.DescendLessOrEqual(&data.Row{Clustering: sl.End}, visit)
		default:
			it.tree.Descend(visit)
		}
	} else {
		visit := func(r *data.Row) bool {
			if it.started && bytes.Compare(r.Clustering, it.last) <= 0 {
				return true
			}
			if sl.End != nil && bytes.Compare(r.Clustering, sl.End) >= 0 {
				return false
			}
			it.buf = append(it.buf, r)
			return len(it.buf) < n
		}
		switch {
		case it.started:
			it.tree.AscendGreaterOrEqual(&data.Row{Clustering: it.last}, visit)
		case sl.Start != nil:
			it.tree.AscendGreaterOrEqual(&data.Row{Clustering: sl.Start}, visit)
		default:
			it.tree.Ascend(visit)
		}
	}
	if len(it.buf) < n {
		it.done = true
	}
	if len(it.buf) > 0 {
		it.last, it.started = it.buf[len(it.buf)-1].Clustering, true
	}
}

// Err returns nil: a memtable iterator cannot fail.
func (it *rowIter) Err() error { return nil }

// Close releases the iterator.
func (it *rowIter) Close() error {
	it.buf, it.tree, it.one = nil, nil, nil
	it.si = -1
	return nil
}

// partitionIter walks a snapshot of the partition tree over a token range.
type partitionIter struct {
	tree  *btree.BTreeG[*partition]
	r     data.TokenRange
	buf   []*partition
	pos   int
	last  *partition
	done  bool
	batch int
}

// Next returns a snapshot of the next partition in the range.
func (it *partitionIter) Next() (data.PartitionSource, bool) {
	for {
		if it.pos < len(it.buf) {
			p := it.buf[it.pos]
			it.pos++
			return p.snapshot(), true
		}
		if it.done || it.tree == nil {
			return nil, false
		}
		it.fill()
	}
}

func (it *partitionIter) fill() {
	it.buf, it.pos = it.buf[:0], 0
	n := it.batch
	if it.batch < maxBatch {
		it.batch *= 2
	}
	visit := func(p *partition) bool {
		if it.last != nil && !lessPartition(it.last, p) {
			return true
		}
		if !it.r.StartInclusive && p.token == it.r.Start {
			return true
		}
		if p.token > it.r.End {
			return false
		}
		it.buf = append(it.buf, p)
		return len(it.buf) < n
	}
	if it.last != nil {
		it.tree.AscendGreaterOrEqual(it.last, visit)
	} else {
		it.tree.AscendGreaterOrEqual(&partition{token: it.r.Start}, visit)
	}
	if len(it.buf) < n {
		it.done = true
	}
	if len(it.buf) > 0 {
		it.last = it.buf[len(it.buf)-1]
	}
}

// Err returns nil: a memtable iterator cannot fail.
func (it *partitionIter) Err() error { return nil }

// Close releases the iterator.
func (it *partitionIter) Close() error {
	it.tree, it.buf, it.done = nil, nil, true
	return nil
}
