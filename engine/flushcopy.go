package engine

import (
	"errors"
	"runtime"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/memtable"
	"github.com/minicass/minicass/sstable"
)

// copyMemtable writes every partition of mt to w, calling done with each
// partition's key, estimated size and row count.
//
// As Cassandra's flush, it writes what the memtable's deletions leave: a
// memtable partition can hold rows that a later partition deletion or range
// tombstone of the same memtable covers (Cassandra's memtable partitions
// "can have shadowed data", and the iterator a flush writes from removes it:
// RowAndDeletionMergeIterator with removeShadowedData). So cells and row
// markers at or below the deletion covering them are left out, rows left
// empty are not written, and range tombstones that the partition deletion
// supersedes are dropped.
//
// With more than one CPU the copy is a pipeline of two stages: a goroutine
// walks the memtable (partition snapshots, row decoding, the purge of
// shadowed data) and copies what it reads into batches (flushBatch), while
// the caller's goroutine writes the batches with w. The walk was about 15
// ms of a narrow 100,000-row flush's 40 on one goroutine (bench/RESULTS.md,
// Run 44). A batch holds copies of the row structs and their cell and
// column-deletion arrays, which the memtable's iterator reuses; the bytes
// they reference (keys, clusterings, values, bounds) are the memtable's and
// stay valid (memtable.ScanReuse). A narrow partition with nothing to
// purge goes over as its encoded row, which the writer's goroutine decodes
// (memtable.RowDecoder): no copy, and the decoding moves to the stage with
// less to do. Three batches pass back and forth. With
// one CPU the same batches are filled and written in turn.
func copyMemtable(w *sstable.Writer, mt *memtableSource, done func(key []byte, size, rows int64)) error {
	r := &flushReader{it: mt.mt.ScanReuse(data.FullRing)}
	if runtime.GOMAXPROCS(0) == 1 {
		defer r.close()
		b, dec := new(flushBatch), new(memtable.RowDecoder)
		for {
			more := r.fill(b)
			if err := b.write(w, dec, done); err != nil || !more {
				return err
			}
		}
	}
	work := make(chan *flushBatch, 1)
	free := make(chan *flushBatch, flushBatches)
	for range flushBatches {
		free <- new(flushBatch)
	}
	quit := make(chan struct{})
	go func() {
		defer close(work)
		defer r.close()
		for {
			var b *flushBatch
			select {
			case b = <-free:
			case <-quit:
				return
			}
			more := r.fill(b)
			select {
			case work <- b:
			case <-quit:
				return
			}
			if !more {
				return
			}
		}
	}()
	dec := new(memtable.RowDecoder)
	for b := range work {
		if err := b.write(w, dec, done); err != nil {
			close(quit)
			for range work { // until the walk has ended and closed the iterator
			}
			return err
		}
		free <- b
	}
	return nil
}

// flushBatches is the number of batches a pipelined copyMemtable passes
// back and forth: one being filled, one queued, one being written.
const flushBatches = 3

// Limits of a flushBatch: it is handed over once it holds this many rows
// (a narrow partition is one), cells or partitions. At 1,024 a narrow
// flush of 100,000 rows takes about 100 hand-overs.
const (
	flushBatchRows  = 1024
	flushBatchCells = 8192
)

// flushBatch is a stretch of a memtable's walk: partitions begun,
// continued or ended in it, their rows (copied, or for most narrow
// partitions the encoded row, see flushPart.one) and their static rows. A partition
// can span batches: only its first part is begun, only its last ended.
type flushBatch struct {
	parts   []flushPart
	rows    []data.Row
	statics []data.Row
	cells   []data.Cell
	cdels   []data.ColumnDeletion
	rts     []data.RangeTombstone
	// err is the walk's error, after the batch's parts; no batch follows.
	err error
}

// flushPart is one partition's part of a flushBatch.
type flushPart struct {
	// begin: the part starts the partition (token, key, del, static,
	// rts); otherwise it continues the previous batch's last part.
	begin bool
	// end: the part ends the partition, of size bytes and n rows (for
	// done).
	end            bool
	token          int64
	key            []byte
	del            data.DeletionTime
	static         int // index in statics, -1 if none
	rtsLo, rtsHi   int // in rts
	rowsLo, rowsHi int // in rows
	// one is the encoded only row of a narrow partition (memtable
	// InlineRow) that needs no purge, decoded by write instead of rows;
	// size and n do not count it.
	one     []byte
	size, n int64
}

func (b *flushBatch) reset() {
	b.parts, b.rows, b.statics = b.parts[:0], b.rows[:0], b.statics[:0]
	b.cells, b.cdels, b.rts = b.cells[:0], b.cdels[:0], b.rts[:0]
	b.err = nil
}

func (b *flushBatch) full() bool {
	return len(b.rows) >= flushBatchRows || len(b.parts) >= flushBatchRows || len(b.cells) >= flushBatchCells
}

// copyRow appends a copy of r to rows, with its cells and column deletions
// copied into the batch's arrays (their bytes are not copied).
func (b *flushBatch) copyRow(rows []data.Row, r *data.Row) []data.Row {
	c := *r
	if r.Cells != nil {
		lo := len(b.cells)
		b.cells = append(b.cells, r.Cells...)
		c.Cells = b.cells[lo:len(b.cells):len(b.cells)]
	}
	if r.ColumnDeletions != nil {
		lo := len(b.cdels)
		b.cdels = append(b.cdels, r.ColumnDeletions...)
		c.ColumnDeletions = b.cdels[lo:len(b.cdels):len(b.cdels)]
	}
	return append(rows, c)
}

// write writes the batch's partitions to w, calling done for each one it
// ends, and returns the first error, the walk's last.
func (b *flushBatch) write(w *sstable.Writer, dec *memtable.RowDecoder, done func(key []byte, size, rows int64)) error {
	for i := range b.parts {
		p := &b.parts[i]
		if p.begin {
			var static *data.Row
			if p.static >= 0 {
				static = &b.statics[p.static]
			}
			var rts []data.RangeTombstone
			if p.rtsHi > p.rtsLo {
				rts = b.rts[p.rtsLo:p.rtsHi]
			}
			if err := w.BeginPartition(p.token, p.key, p.del, static, rts); err != nil {
				return err
			}
		}
		for j := p.rowsLo; j < p.rowsHi; j++ {
			if err := w.AddRow(&b.rows[j]); err != nil {
				return err
			}
		}
		if p.one != nil {
			r := dec.Decode(p.one)
			if err := w.AddRow(r); err != nil {
				return err
			}
			p.size += int64(r.Size())
			p.n++
		}
		if p.end {
			if err := w.EndPartition(); err != nil {
				return err
			}
			done(p.key, p.size, p.n)
		}
	}
	return b.err
}

// flushReader walks a memtable for copyMemtable, a batch at a time; it
// keeps the partition it is in the middle of between batches.
type flushReader struct {
	it   data.PartitionIterator
	rows data.RowIterator // the current partition's, nil between partitions
	pdel data.DeletionTime
	rts  []data.RangeTombstone // the current partition's, kept
	// key, size and n are the current partition's key, estimated size
	// and rows.
	key     []byte
	size, n int64
	purged  data.Row // a purged copy of a shadowed row (the memtable's rows are shared)
}

// fill resets b and fills it with the walk's next partitions and rows,
// until b is full or the memtable ends. It returns false when no batch
// follows: the memtable ended, or the walk failed (b.err).
func (r *flushReader) fill(b *flushBatch) bool {
	b.reset()
	for !b.full() {
		if r.rows == nil {
			ps, ok := r.it.Next()
			if !ok {
				b.err = r.it.Err()
				return false
			}
			r.pdel = ps.Deletion()
			r.rts = r.rts[:0]
			for _, rt := range ps.RangeTombstones(nil) {
				if r.pdel.IsLive() || rt.Deletion.Supersedes(r.pdel) {
					r.rts = append(r.rts, rt)
				}
			}
			p := flushPart{begin: true, token: ps.Token(), key: ps.Key(), del: r.pdel, static: -1,
				rtsLo: len(b.rts)}
			b.rts = append(b.rts, r.rts...)
			p.rtsHi = len(b.rts)
			r.key, r.size, r.n = p.key, int64(len(p.key)), 0
			if static := ps.Static(); static != nil {
				if !r.pdel.IsLive() {
					static = purgedCopy(new(data.Row), static, r.pdel)
				}
				if !static.IsEmpty() || r.pdel.IsLive() {
					p.static = len(b.statics)
					b.statics = b.copyRow(b.statics, static)
					r.size += int64(static.Size())
				}
			}
			p.rowsLo, p.rowsHi = len(b.rows), len(b.rows)
			if one, ok := inlineRow(ps); ok && r.pdel.IsLive() && len(r.rts) == 0 {
				// Nothing to purge: the row goes over encoded, for
				// the writer's goroutine to decode.
				p.one, p.end, p.size = one, true, r.size
				b.parts = append(b.parts, p)
				continue
			}
			b.parts = append(b.parts, p)
			r.rows = ps.Rows(nil, false)
		} else if len(b.parts) == 0 {
			b.parts = append(b.parts, flushPart{key: r.key, static: -1, rowsLo: len(b.rows)})
		}
		p := &b.parts[len(b.parts)-1]
		for !b.full() {
			row, ok := r.rows.Next()
			if !ok {
				err := errors.Join(r.rows.Err(), r.rows.Close())
				r.rows = nil
				if err != nil {
					b.err = err
					p.rowsHi = len(b.rows)
					return false
				}
				p.end, p.size, p.n = true, r.size, r.n
				break
			}
			if outer := coveringDeletion(r.pdel, r.rts, row.Clustering); !outer.IsLive() {
				if row = purgedCopy(&r.purged, row, outer); row.IsEmpty() {
					continue
				}
			}
			b.rows = b.copyRow(b.rows, row)
			r.size += int64(row.Size())
			r.n++
		}
		p.rowsHi = len(b.rows)
	}
	return true
}

// inlineRow returns the encoded only row of a memtable partition that
// stores it inline (memtable's InlineRow).
func inlineRow(ps data.PartitionSource) ([]byte, bool) {
	if s, ok := ps.(interface{ InlineRow() ([]byte, bool) }); ok {
		return s.InlineRow()
	}
	return nil, false
}

// close ends the walk: the current partition's rows and the iterator.
func (r *flushReader) close() {
	if r.rows != nil {
		_ = r.rows.Close() // the walk is abandoned; its error changes nothing
		r.rows = nil
	}
	_ = r.it.Close() // as before: the iterator of a finished walk holds no error
}
