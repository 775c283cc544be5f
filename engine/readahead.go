package engine

import (
	"errors"
	"sync"

	"github.com/minicass/minicass/data"
)

// A compaction's read-ahead: each input's partition stream is read on a
// goroutine of its own, which decompresses its chunks, decodes its
// partition headers and rows, and copies them into batches that the
// compaction's goroutine merges and writes. On two cores the reading of
// the inputs (about half of a narrow compaction's work: the stream scan,
// the headers, the row decoding) then runs beside the merge and the
// writer, instead of before them in turn.
//
// A batch is a sequence of items: a partition's header (raHeader), its
// rows, and the end of its rows (which carries the partition's size, known
// once its rows are read). A partition may span batches. Everything an
// item refers to (keys, clusterings, values, paths, cells, range
// tombstones) is copied into the batch's own arrays, so the reading
// goroutine's scan may reuse its buffers at once, and a batch is
// recycled only when the merge is done with what it holds: its pool is
// raBatches per input, of which the merge holds at most four (the one
// holding the current partition's header, those holding the last two rows
// it was given, whose bytes a merge may still hold, and the one it
// reads), so the reader always has one to fill. The merge sees the same partitions and rows, in the same order,
// with the same errors at the same points, as it would reading the scan
// itself.

// errReadAheadOrder reports a batch item out of its order (a header among
// a partition's rows), which the reader never writes.
var errReadAheadOrder = errors.New("engine: read-ahead item out of order")

// raBatches is the number of batches of one input's read-ahead.
const raBatches = 5

// raBatchItems and raBatchBytes bound a batch: it is handed over when it
// holds this many items or copied bytes (a larger item goes alone). Tests
// choose smaller bounds (raLimits), so that partitions span batches.
const (
	raBatchItems = 256
	raBatchBytes = 64 << 10
)

// raLimits bounds a read-ahead's batches; zero fields take the defaults.
type raLimits struct{ items, bytes int }

// raKind is the kind of a batch item.
type raKind uint8

const (
	raPartition raKind = iota // a partition's header: headers[idx]
	raRow                     // a row of the partition: rows[idx]
	raEnd                     // the end of the partition's rows; size is its size
	// raOnly is a partition of one row and nothing else, in one item:
	// headers[idx], whose row is its only row; size is its size.
	raOnly
)

type raItem struct {
	kind raKind
	idx  int32
	size uint64
}

// raHeader is a partition's header in a batch.
type raHeader struct {
	token    int64
	key      []byte
	deletion data.DeletionTime
	static   int32 // index in rows, or -1
	row      int32 // the only row's index in rows (raOnly)
	rts      []data.RangeTombstone
}

// raBatch is a batch of items and the arrays they refer to. The reader
// fills it; once sent, the merge alone reads and may change it (an owned
// row's fields and cells), until it hands it back.
type raBatch struct {
	items   []raItem
	headers []raHeader
	rows    []data.Row
	cells   []data.Cell
	cds     []data.ColumnDeletion
	rts     []data.RangeTombstone
	bytes   []byte
	// last marks the stream's last batch; err is then the error the
	// stream ended with (nil at its end).
	last bool
	err  error
	lim  raLimits
}

func (b *raBatch) reset() {
	clear(b.headers)
	clear(b.rows)
	clear(b.cells)
	clear(b.cds)
	clear(b.rts)
	b.items, b.headers, b.rows, b.cells, b.cds, b.rts, b.bytes = b.items[:0], b.headers[:0], b.rows[:0], b.cells[:0], b.cds[:0], b.rts[:0], b.bytes[:0]
	b.last, b.err = false, nil
}

func (b *raBatch) full() bool { return len(b.items) >= b.lim.items || len(b.bytes) >= b.lim.bytes }

// copyBytes returns a copy of p in the batch, nil for nil (nil and empty
// differ: an unbounded range-tombstone bound, a cell without a value).
func (b *raBatch) copyBytes(p []byte) []byte {
	if p == nil {
		return nil
	}
	if len(p) == 0 {
		return p[:0:0]
	}
	n := len(b.bytes)
	b.bytes = append(b.bytes, p...)
	return b.bytes[n:len(b.bytes):len(b.bytes)]
}

// addRow copies r into the batch and returns its index in rows.
func (b *raBatch) addRow(r *data.Row) int32 {
	c := data.Row{Clustering: b.copyBytes(r.Clustering), Liveness: r.Liveness, Deletion: r.Deletion}
	if r.ColumnDeletions != nil {
		n := len(b.cds)
		b.cds = append(b.cds, r.ColumnDeletions...)
		c.ColumnDeletions = b.cds[n:len(b.cds):len(b.cds)]
	}
	if r.Cells != nil {
		n := len(b.cells)
		b.cells = append(b.cells, r.Cells...)
		c.Cells = b.cells[n:len(b.cells):len(b.cells)]
		for i := range c.Cells {
			cl := &c.Cells[i]
			cl.Path, cl.Value = b.copyBytes(cl.Path), b.copyBytes(cl.Value)
		}
	}
	b.rows = append(b.rows, c)
	return int32(len(b.rows) - 1)
}

// addHeader copies the header of ps into the batch as an item.
func (b *raBatch) addHeader(ps data.PartitionSource) {
	h := raHeader{token: ps.Token(), key: b.copyBytes(ps.Key()), deletion: ps.Deletion(), static: -1}
	if st := ps.Static(); st != nil {
		h.static = b.addRow(st)
	}
	if rts := ps.RangeTombstones(nil); rts != nil {
		n := len(b.rts)
		for _, rt := range rts {
			b.rts = append(b.rts, data.RangeTombstone{Start: b.copyBytes(rt.Start), End: b.copyBytes(rt.End), Deletion: rt.Deletion})
		}
		h.rts = b.rts[n:len(b.rts):len(b.rts)]
	}
	b.headers = append(b.headers, h)
	b.items = append(b.items, raItem{kind: raPartition, idx: int32(len(b.headers) - 1)})
}

// onlyRowScanner is the SSTable streaming scan's NextOnlyRow
// (sstable.Reader.ScanStream), which hands out a partition of one row
// already decoded from a copy of its record.
type onlyRowScanner interface {
	NextOnlyRow(dst []byte, row *data.Row, alias bool) (ps data.PartitionSource, out []byte, only, ok bool)
}

// addOnly adds the partition of one row ps, whose row NextOnlyRow decoded
// into b.rows' spare element (its bytes are the batch's), as one item.
func (b *raBatch) addOnly(ps data.PartitionSource) {
	n := len(b.rows)
	b.rows = b.rows[:n+1]
	r := &b.rows[n]
	if k := len(b.cells); len(r.Cells) > 0 && k+len(r.Cells) <= cap(b.cells) && &r.Cells[0] == &b.cells[k : k+1][0] {
		b.cells = b.cells[:k+len(r.Cells)] // decoded in the batch's cells
	}
	r.Cells = r.Cells[:len(r.Cells):len(r.Cells)]
	b.headers = append(b.headers, raHeader{token: ps.Token(), key: b.copyBytes(ps.Key()), deletion: data.LiveDeletion, static: -1, row: int32(n)})
	var size uint64
	if sz, ok := ps.(interface{ Size() uint64 }); ok {
		size = sz.Size()
	}
	b.items = append(b.items, raItem{kind: raOnly, idx: int32(len(b.headers) - 1), size: size})
}

// spareRow returns the element after b.rows' last (in its capacity), its
// cells pointing at b.cells' spare capacity, for NextOnlyRow to decode
// into.
func (b *raBatch) spareRow() *data.Row {
	if len(b.rows) == cap(b.rows) {
		b.rows = append(b.rows, data.Row{})[:len(b.rows)]
	}
	if cap(b.cells)-len(b.cells) < 64 {
		b.cells = append(b.cells, make([]data.Cell, 256)...)[:len(b.cells)]
	}
	r := &b.rows[:len(b.rows)+1][len(b.rows)]
	*r = data.Row{Cells: b.cells[len(b.cells):len(b.cells)]}
	return r
}

// readAhead is a data.PartitionIterator over an input read on a goroutine
// of its own (see above). Its partitions and rows follow ScanReuse's
// contract: a partition, and its row iterator, are valid until the next
// call to Next; a row until the row iterator's next call to Next but one
// (its bytes stay valid through the next call, as the merge needs). The
// rows are owned: the caller may change them. Close stops the reader and
// waits for it.
type readAhead struct {
	full   chan *raBatch
	free   chan *raBatch
	done   chan struct{}
	exited chan struct{}
	stop   sync.Once
	// closeErr is the source's Close error, set by the reader before it
	// exits.
	closeErr error

	// The merge's side.
	cur     *raBatch // the batch being read
	i       int      // the next item of cur
	hdr     *raBatch // the batch holding part's header
	lastRow *raBatch // the batch holding the last row returned
	prevRow *raBatch // the batch holding the row before it
	held    []*raBatch
	heldBuf [raBatches]*raBatch
	part    raPart
	inPart  bool // part's rows are not read to their end
	ended   bool
	err     error
}

// newReadAhead starts reading src on a goroutine of its own, in batches
// bounded by lim.
func newReadAhead(src data.PartitionIterator, lim raLimits) *readAhead {
	if lim.items <= 0 {
		lim.items = raBatchItems
	}
	if lim.bytes <= 0 {
		lim.bytes = raBatchBytes
	}
	ra := &readAhead{
		full:   make(chan *raBatch, raBatches),
		free:   make(chan *raBatch, raBatches),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	ra.held = ra.heldBuf[:0]
	ra.part.ra = ra
	for range raBatches {
		ra.free <- &raBatch{lim: lim}
	}
	go ra.read(src)
	return ra
}

// read is the reader's goroutine: it fills batches from src and sends
// them, until the stream ends, fails, or the merge closes the read-ahead.
func (ra *readAhead) read(src data.PartitionIterator) {
	defer close(ra.exited)
	defer func() { ra.closeErr = src.Close() }()
	ors, _ := src.(onlyRowScanner)
	b := ra.take()
	for b != nil {
		var ps data.PartitionSource
		var ok bool
		if ors != nil {
			var only bool
			ps, b.bytes, only, ok = ors.NextOnlyRow(b.bytes, b.spareRow(), false)
			if ok && only {
				b.addOnly(ps)
				if b.full() {
					if !ra.send(b) {
						return
					}
					b = ra.take()
				}
				continue
			}
		} else {
			ps, ok = src.Next()
		}
		if !ok {
			b.last, b.err = true, src.Err()
			ra.send(b)
			return
		}
		b.addHeader(ps)
		rows := ps.Rows(nil, false)
		for {
			r, ok := rows.Next()
			if !ok {
				break
			}
			b.items = append(b.items, raItem{kind: raRow, idx: b.addRow(r)})
			if b.full() {
				if !ra.send(b) {
					_ = rows.Close()
					return
				}
				if b = ra.take(); b == nil {
					_ = rows.Close()
					return
				}
			}
		}
		err := rows.Err()
		_ = rows.Close()
		if err != nil {
			b.last, b.err = true, err
			ra.send(b)
			return
		}
		var size uint64
		if sz, ok := ps.(interface{ Size() uint64 }); ok {
			size = sz.Size()
		}
		b.items = append(b.items, raItem{kind: raEnd, size: size})
		if b.full() {
			if !ra.send(b) {
				return
			}
			b = ra.take()
		}
	}
}

// take returns a free batch, emptied, or nil once the merge has closed the
// read-ahead.
func (ra *readAhead) take() *raBatch {
	select {
	case b := <-ra.free:
		b.reset()
		return b
	case <-ra.done:
		return nil
	}
}

// send hands b to the merge; false once the merge has closed the
// read-ahead.
func (ra *readAhead) send(b *raBatch) bool {
	select {
	case ra.full <- b:
		return true
	case <-ra.done:
		return false
	}
}

// release hands back the batches the merge no longer needs.
func (ra *readAhead) release() {
	kept := ra.held[:0]
	for _, b := range ra.held {
		if b == ra.cur || b == ra.hdr || b == ra.lastRow || b == ra.prevRow {
			kept = append(kept, b)
			continue
		}
		ra.free <- b // never blocks: free holds every batch
	}
	clear(ra.held[len(kept):])
	ra.held = kept
}

// item returns the next item and its batch, receiving the next batch when
// cur is read; false at the end of the stream or on its error (ra.err).
func (ra *readAhead) item() (raItem, *raBatch, bool) {
	for ra.cur == nil || ra.i == len(ra.cur.items) {
		if ra.ended {
			return raItem{}, nil, false
		}
		if ra.cur != nil && ra.cur.last {
			ra.ended, ra.err = true, ra.cur.err
			return raItem{}, nil, false
		}
		ra.cur, ra.i = <-ra.full, 0
		ra.held = append(ra.held, ra.cur)
		ra.release()
	}
	it := ra.cur.items[ra.i]
	ra.i++
	return it, ra.cur, true
}

// Next returns the next partition; its rows not read yet are skipped.
func (ra *readAhead) Next() (data.PartitionSource, bool) {
	for ra.inPart {
		if !ra.part.rows.Next2() {
			if ra.inPart {
				return nil, false // the stream failed or ended
			}
		}
	}
	it, b, ok := ra.item()
	if !ok {
		return nil, false
	}
	h := &b.headers[it.idx]
	ra.hdr, ra.lastRow, ra.prevRow = b, nil, nil
	ra.release()
	ra.part.h, ra.part.size, ra.part.static = h, 0, nil
	if h.static >= 0 {
		ra.part.static = &b.rows[h.static]
	}
	ra.part.rows = raRows{ra: ra}
	if it.kind == raOnly {
		ra.part.rows.only, ra.part.rows.onlySize, ra.part.rows.onlyEnd = &b.rows[h.row], it.size, true
	}
	ra.inPart = true
	return &ra.part, true
}

// Err returns the error the stream ended with.
func (ra *readAhead) Err() error { return ra.err }

// Close stops the reader, waits for it and returns the source's Close
// error.
func (ra *readAhead) Close() error {
	ra.stop.Do(func() { close(ra.done) })
	<-ra.exited
	return ra.closeErr
}

// raPart is the partition a readAhead's Next returns (one, reused).
type raPart struct {
	ra     *readAhead
	h      *raHeader
	static *data.Row
	size   uint64
	rows   raRows
}

func (p *raPart) Key() []byte                                       { return p.h.key }
func (p *raPart) Token() int64                                      { return p.h.token }
func (p *raPart) Deletion() data.DeletionTime                       { return p.h.deletion }
func (p *raPart) Static() *data.Row                                 { return p.static }
func (p *raPart) RangeTombstones(data.Slices) []data.RangeTombstone { return p.h.rts }

// Size returns the partition's size in the input's stream (0 until its
// rows are read to the end), as the SSTable scan's partitions do.
func (p *raPart) Size() uint64 { return p.size }

// Rows returns the iterator over the partition's rows. A compaction reads
// them once, forward and whole: slices and reverse are not supported (nor
// needed), and a second call returns the same iterator.
func (p *raPart) Rows(slices data.Slices, reverse bool) data.RowIterator {
	if len(slices) > 0 || reverse {
		panic("engine: a read-ahead partition's rows are read forward and whole")
	}
	return &p.rows
}

// takeOnly returns the row of a partition of one row and nothing else
// (raOnly) whose rows are not read yet, and leaves its row iterator at
// the end of its rows, as Next, EndsAfterRow (true) would; nil for any
// other partition, or once its rows are read.
func (p *raPart) takeOnly() (*data.Row, data.RowIterator) {
	it := &p.rows
	r := it.only
	if r == nil || !it.onlyEnd {
		return nil, nil
	}
	it.only, it.onlyEnd, it.done = nil, false, true
	p.size = it.onlySize
	p.ra.inPart = false
	return r, it
}

// raRows iterates over the rows of a readAhead's current partition.
type raRows struct {
	ra   *readAhead
	done bool
	// only is the row of a raOnly partition not returned yet; onlyEnd
	// marks such a partition's end not reached yet (its size onlySize).
	only     *data.Row
	onlyEnd  bool
	onlySize uint64
	// peeked is an item EndsAfterRow read that is a row.
	peeked    raItem
	peekedB   *raBatch
	hasPeeked bool
}

// Next2 moves to the next row of the partition; false at its end (the
// partition is then done: ra.inPart is false) or at the stream's end or
// error.
func (it *raRows) Next2() bool {
	_, ok := it.Next()
	return ok
}

// Next returns the next row.
func (it *raRows) Next() (*data.Row, bool) {
	if it.done {
		return nil, false
	}
	ra := it.ra
	if it.onlyEnd {
		if r := it.only; r != nil {
			it.only = nil
			return r, true // in the header's batch, which stays
		}
		it.onlyEnd = false
		ra.part.size = it.onlySize
		it.done = true
		ra.inPart = false
		return nil, false
	}
	var item raItem
	var b *raBatch
	if it.hasPeeked {
		item, b, it.hasPeeked = it.peeked, it.peekedB, false
	} else {
		var ok bool
		if item, b, ok = ra.item(); !ok {
			it.done = true
			return nil, false
		}
	}
	switch item.kind {
	case raRow:
		ra.prevRow, ra.lastRow = ra.lastRow, b
		ra.release()
		return &b.rows[item.idx], true
	case raEnd:
		ra.part.size = item.size
	default:
		// A header without the end of the partition before it cannot
		// come from read; treat it as the end (never reached).
		ra.err = errReadAheadOrder
		ra.ended = true
	}
	it.done = true
	ra.inPart = false
	return nil, false
}

// EndsAfterRow reports whether the row Next returned last is the
// partition's last, consuming the end of its rows as Next would (sstable's
// rowIter.EndsAfterRow, which the narrow compaction path asks).
func (it *raRows) EndsAfterRow() bool {
	if it.done {
		return it.ra.err == nil
	}
	if it.onlyEnd {
		if it.only != nil {
			return false // Next has not returned the row
		}
		_, more := it.Next()
		return !more
	}
	if it.hasPeeked {
		return false
	}
	item, b, ok := it.ra.item()
	if !ok {
		return false // Next reports the end or the error
	}
	if item.kind == raRow {
		it.peeked, it.peekedB, it.hasPeeked = item, b, true
		return false
	}
	it.peeked, it.peekedB, it.hasPeeked = item, b, true
	_, more := it.Next()
	return !more && it.ra.err == nil
}

// Err returns the error the stream ended with, if it ended in the
// partition.
func (it *raRows) Err() error { return it.ra.err }

// OwnedRows reports that the caller may change the rows Next returns:
// they are the batch's own copies.
func (it *raRows) OwnedRows() bool { return true }

// Close does nothing: the rows not read are skipped by the next
// partition's Next.
func (it *raRows) Close() error { return nil }

// onlyRows is a compaction input's streaming scan read on the
// compaction's goroutine (no readAhead) through NextOnlyRow: a partition
// of one row and nothing else comes with its row decoded, in the
// iterator's own row (its bytes in the scan's chunk, or in the iterator's
// buffer when the record straddles chunks), which the next partition
// reuses, and
// the merge takes it without a row iterator (partMerge.narrow). Any other
// partition is the scan's, as its Next returns it.
type onlyRows struct {
	src  data.PartitionIterator
	ors  onlyRowScanner
	buf  []byte
	part onlyPart
}

// newOnlyRows returns src read through NextOnlyRow, or src itself when it
// has none.
func newOnlyRows(src data.PartitionIterator) data.PartitionIterator {
	ors, ok := src.(onlyRowScanner)
	if !ok {
		return src
	}
	it := &onlyRows{src: src, ors: ors}
	it.part.rows.p = &it.part
	return it
}

// Next returns the next partition; a partition of one row is valid, with
// its row, until the next call.
func (it *onlyRows) Next() (data.PartitionSource, bool) {
	p := &it.part
	row := &p.row
	ps, buf, only, ok := it.ors.NextOnlyRow(it.buf[:0], row, true)
	it.buf = buf
	if !ok || !only {
		return ps, ok
	}
	p.PartitionSource, p.rows.done = ps, false
	return p, true
}

func (it *onlyRows) Err() error   { return it.src.Err() }
func (it *onlyRows) Close() error { return it.src.Close() }

// onlyPart is the partition of one row onlyRows' Next returns (one,
// reused): the scan's partition, whose row is decoded.
type onlyPart struct {
	data.PartitionSource
	row  data.Row
	rows onlyRowIter
}

// Size returns the partition's size in the stream, known once NextOnlyRow
// has read it.
func (p *onlyPart) Size() uint64 {
	if sz, ok := p.PartitionSource.(interface{ Size() uint64 }); ok {
		return sz.Size()
	}
	return 0
}

// Rows returns the iterator over the one row (forward and whole only, as
// a compaction reads it).
func (p *onlyPart) Rows(slices data.Slices, reverse bool) data.RowIterator {
	if len(slices) > 0 || reverse {
		panic("engine: a one-row partition of a compaction's scan is read forward and whole")
	}
	return &p.rows
}

// takeOnly returns the row, if the partition's row iterator has not
// returned it, and leaves that iterator at its end.
func (p *onlyPart) takeOnly() (*data.Row, data.RowIterator) {
	if p.rows.done {
		return nil, nil
	}
	p.rows.done = true
	return &p.row, &p.rows
}

// onlyRowIter iterates over an onlyPart's row.
type onlyRowIter struct {
	p    *onlyPart
	done bool
}

func (it *onlyRowIter) Next() (*data.Row, bool) {
	if it.done {
		return nil, false
	}
	it.done = true
	return &it.p.row, true
}

// EndsAfterRow reports that the row returned is the partition's last.
func (it *onlyRowIter) EndsAfterRow() bool { return it.done }

func (it *onlyRowIter) Err() error      { return nil }
func (it *onlyRowIter) OwnedRows() bool { return true }
func (it *onlyRowIter) Close() error    { return nil }
