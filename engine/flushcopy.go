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
// stay valid (memtable.ScanReuse). The rows of a partition with nothing
// to purge (most of them) go over encoded (the row iterator's
// NextEncoded), and the writer's goroutine decodes them
// (memtable.RowDecoder): no copy, and the decoding moves to the stage
// that had less to do. The one row of a narrow partition, when it is
// plain (memtable.PlainRow: no TTL, no deletion, every cell at the row's
// timestamp, as most writes make them), is decoded into its fields
// alone and written from them (sstable.Writer.AddPlainNarrowPartition),
// without a data.Row. Three batches pass back and forth. With
// one CPU the same batches are filled and written in turn.
func copyMemtable(w *sstable.Writer, mt *memtableSource, done func(key []byte, size, rows int64)) error {
	r := &flushReader{it: mt.mt.ScanReuse(data.FullRing)}
	if runtime.GOMAXPROCS(0) == 1 {
		defer r.close()
		b, fw := new(flushBatch), &flushWriter{w: w, done: done}
		for {
			more := r.fill(b)
			if err := fw.write(b); err != nil || !more {
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
	fw := &flushWriter{w: w, done: done}
	for b := range work {
		if err := fw.write(b); err != nil {
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
// continued or ended in it, their rows (encoded, or decoded and copied for
// a partition with shadowed data to purge) and their static rows. A
// partition can span batches: only its first part is begun, only its last
// ended.
type flushBatch struct {
	parts   []flushPart
	rows    []data.Row
	statics []data.Row
	cells   []data.Cell
	cdels   []data.ColumnDeletion
	rts     []data.RangeTombstone
	encs    [][]byte // encoded rows (memtable NextEncoded)
	// bytes holds copies of the keys and encoded rows of narrow
	// partitions (flushPart.copied).
	bytes []byte
	// err is the walk's error, after the batch's parts; no batch follows.
	err error
}

// flushCopyMax is the largest key and encoded row, together, of a narrow
// partition that the walk copies into its batch (flushPart.copied); a
// larger one is passed as the memtable's bytes.
const flushCopyMax = 512

// flushPart is one partition's part of a flushBatch.
type flushPart struct {
	// begin: the part starts the partition (token, key, del, static,
	// rts); otherwise it continues the previous batch's last part.
	begin bool
	// end: the part ends the partition.
	end            bool
	token          int64
	key            []byte
	del            data.DeletionTime
	static         int // index in statics, -1 if none
	rtsLo, rtsHi   int // in rts
	rowsLo, rowsHi int // in rows
	encLo, encHi   int // in encs
	// size is the estimated size of the partition's key and static row
	// (the rows' are added by write, for done).
	size int64
	// copied: the part is a whole narrow partition whose key and encoded
	// row are copies in the batch's bytes, from copyOff on: the key
	// (len(key) bytes; key itself is nil) then the row (encLen bytes).
	// The walk has just read them, and they are in its cache; the
	// writer's goroutine, on the other core, reads the copies, packed in
	// order, rather than the memtable's bytes, scattered over its arena,
	// each a cache miss (the first byte of a row's decoding was most of
	// its cost in the profile).
	copied          bool
	copyOff, keyLen int
	encLen          int
}

func (b *flushBatch) reset() {
	b.parts, b.rows, b.statics = b.parts[:0], b.rows[:0], b.statics[:0]
	b.cells, b.cdels, b.rts, b.encs, b.bytes = b.cells[:0], b.cdels[:0], b.rts[:0], b.encs[:0], b.bytes[:0]
	b.err = nil
}

func (b *flushBatch) full() bool {
	return len(b.rows)+len(b.encs) >= flushBatchRows || len(b.parts) >= flushBatchRows || len(b.cells) >= flushBatchCells
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

// flushWriter writes flushBatches with w: the writer's stage of
// copyMemtable. It decodes encoded rows with dec and keeps the estimated
// size and the rows of the partition being written, for done.
type flushWriter struct {
	w       *sstable.Writer
	dec     memtable.RowDecoder
	done    func(key []byte, size, rows int64)
	size, n int64
}

// write writes b's partitions, calling done for each one it ends, and
// returns the first error, the walk's last.
func (fw *flushWriter) write(b *flushBatch) error {
	w := fw.w
	// A fresh decoder for each batch: a RowDecoder keeps a column name
	// equal to the one it decoded before (a string over that row's
	// bytes), and the rows of the last batch may have been copies in its
	// bytes, which the walk is now overwriting.
	fw.dec = memtable.RowDecoder{}
	for i := range b.parts {
		p := &b.parts[i]
		if p.copied {
			key := b.bytes[p.copyOff : p.copyOff+p.keyLen]
			enc := b.bytes[p.copyOff+p.keyLen : p.copyOff+p.keyLen+p.encLen]
			if err := fw.writeNarrow(p.token, key, enc, p.size); err != nil {
				return err
			}
			continue
		}
		if p.begin && p.end && p.static < 0 && p.rtsHi == p.rtsLo && p.del == data.LiveDeletion &&
			(p.rowsHi-p.rowsLo)+(p.encHi-p.encLo) == 1 {
			// A narrow partition: its one row in one call.
			if p.encHi > p.encLo {
				if err := fw.writeNarrow(p.token, p.key, b.encs[p.encLo], p.size); err != nil {
					return err
				}
				continue
			}
			r := &b.rows[p.rowsLo]
			if err := w.AddNarrowPartition(p.token, p.key, r); err != nil {
				return err
			}
			fw.done(p.key, p.size+int64(r.Size()), 1)
			continue
		}
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
			fw.size, fw.n = p.size, 0
		}
		for j := p.rowsLo; j < p.rowsHi; j++ {
			r := &b.rows[j]
			if err := w.AddRow(r); err != nil {
				return err
			}
			fw.size += int64(r.Size())
			fw.n++
		}
		for _, enc := range b.encs[p.encLo:p.encHi] {
			r := fw.dec.Decode(enc)
			if err := w.AddRow(r); err != nil {
				return err
			}
			fw.size += int64(r.Size())
			fw.n++
		}
		if p.end {
			if err := w.EndPartition(); err != nil {
				return err
			}
			fw.done(p.key, fw.size, fw.n)
		}
	}
	return b.err
}

// writeNarrow writes the narrow partition of token and key whose one row
// is encoded in enc, and calls done with size plus the row's size. A
// plain row (memtable.PlainRow, most are) is written from its fields,
// without a data.Row.
func (fw *flushWriter) writeNarrow(token int64, key, enc []byte, size int64) error {
	if pr, ok := fw.dec.DecodePlain(enc); ok {
		if err := fw.w.AddPlainNarrowPartition(token, key, pr.Clustering, pr.Timestamp, pr.Columns, pr.Values); err != nil {
			return err
		}
		fw.done(key, size+int64(pr.Size()), 1)
		return nil
	}
	r := fw.dec.Decode(enc)
	if err := fw.w.AddNarrowPartition(token, key, r); err != nil {
		return err
	}
	fw.done(key, size+int64(r.Size()), 1)
	return nil
}

// flushReader walks a memtable for copyMemtable, a batch at a time; it
// keeps the partition it is in the middle of between batches.
type flushReader struct {
	it   data.PartitionIterator
	rows data.RowIterator // the current partition's, nil between partitions
	// enc is rows' NextEncoded when the current partition's rows go over
	// encoded (nothing to purge), nil when they are decoded and copied.
	enc    func() ([]byte, bool)
	pdel   data.DeletionTime
	rts    []data.RangeTombstone // the current partition's, kept
	key    []byte                // the current partition's
	purged data.Row              // a purged copy of a shadowed row (the memtable's rows are shared)
}

// encodedRows is a memtable row iterator's NextEncoded.
type encodedRows interface {
	NextEncoded() ([]byte, bool)
}

// onlyRow is a memtable partition snapshot's OnlyRow: the encoded row of a
// partition of that one row and nothing else.
type onlyRow interface {
	OnlyRow() ([]byte, bool)
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
			if o, ok := ps.(onlyRow); ok {
				if enc, ok := o.OnlyRow(); ok {
					// A narrow partition, nothing to purge: its one row
					// goes over encoded, as below, without a row iterator,
					// copied with its key when they are small.
					key := ps.Key()
					if len(key)+len(enc) <= flushCopyMax {
						off := len(b.bytes)
						b.bytes = append(append(b.bytes, key...), enc...)
						b.parts = append(b.parts, flushPart{begin: true, end: true, token: ps.Token(), static: -1,
							copied: true, copyOff: off, keyLen: len(key), encLen: len(enc), size: int64(len(key))})
						continue
					}
					b.parts = append(b.parts, flushPart{begin: true, end: true, token: ps.Token(), key: key,
						del: data.LiveDeletion, static: -1, rtsLo: len(b.rts), rtsHi: len(b.rts),
						rowsLo: len(b.rows), rowsHi: len(b.rows), encLo: len(b.encs), encHi: len(b.encs) + 1,
						size: int64(len(key))})
					b.encs = append(b.encs, enc)
					continue
				}
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
			r.key, p.size = p.key, int64(len(p.key))
			if static := ps.Static(); static != nil {
				if !r.pdel.IsLive() {
					static = purgedCopy(new(data.Row), static, r.pdel)
				}
				if !static.IsEmpty() || r.pdel.IsLive() {
					p.static = len(b.statics)
					b.statics = b.copyRow(b.statics, static)
					p.size += int64(static.Size())
				}
			}
			p.rowsLo, p.rowsHi = len(b.rows), len(b.rows)
			p.encLo, p.encHi = len(b.encs), len(b.encs)
			b.parts = append(b.parts, p)
			r.rows, r.enc = ps.Rows(nil, false), nil
			if e, ok := r.rows.(encodedRows); ok && r.pdel.IsLive() && len(r.rts) == 0 {
				// Nothing to purge: the rows go over encoded, for the
				// writer's goroutine to decode.
				r.enc = e.NextEncoded
			}
		} else if len(b.parts) == 0 {
			b.parts = append(b.parts, flushPart{key: r.key, static: -1})
		}
		p := &b.parts[len(b.parts)-1]
		for !b.full() {
			if r.enc != nil {
				enc, ok := r.enc()
				if ok {
					b.encs = append(b.encs, enc)
					continue
				}
			} else if row, ok := r.rows.Next(); ok {
				if outer := coveringDeletion(r.pdel, r.rts, row.Clustering); !outer.IsLive() {
					if row = purgedCopy(&r.purged, row, outer); row.IsEmpty() {
						continue
					}
				}
				b.rows = b.copyRow(b.rows, row)
				continue
			}
			err := errors.Join(r.rows.Err(), r.rows.Close())
			r.rows, r.enc = nil, nil
			if err != nil {
				b.err = err
				p.rowsHi, p.encHi = len(b.rows), len(b.encs)
				return false
			}
			p.end = true
			break
		}
		p.rowsHi, p.encHi = len(b.rows), len(b.encs)
	}
	return true
}

// close ends the walk: the current partition's rows and the iterator.
func (r *flushReader) close() {
	if r.rows != nil {
		_ = r.rows.Close() // the walk is abandoned; its error changes nothing
		r.rows = nil
	}
	_ = r.it.Close() // as before: the iterator of a finished walk holds no error
}
