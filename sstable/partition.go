package sstable

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"sort"

	"github.com/minicass/minicass/data"
)

// Data.db layout. Part of the file format:
//
//	header (8 bytes, see headerSize)
//	chunk*  each: kind:byte (0 raw, 1 compressed) payload crc32c(kind, payload):uint32 LE
//
// The chunks decompress to the partition stream (positions in Index.db,
// Summary.db and Statistics.db are offsets in this uncompressed stream;
// CompressionInfo.db maps them to chunks):
//
//	partition := bytes(key) flags:byte [deletion] [uvarint(len) row]
//	             [uvarint(nRT) nRT*rangetomb]  record*  0x00
//	record    := uvarint(len) row            -- len > 0
//
// flags 0x01: a partition deletion follows (else the partition is live);
// 0x02: the static row follows (its clustering is empty); 0x04: range
// tombstones follow (nRT > 0); the other bits are 0. deletion, row and
// rangetomb are the version-2 encodings of rowcodec.go; rows come in
// clustering order and range tombstones sorted by start.
//
// Format version 1 has instead
//
//	partition := varint(token) bytes(key) deletion static:byte [uvarint(len) row]
//	             uvarint(nRT) nRT*rangetomb  record*  0x00
//
// with the encodings of package data (data.AppendDeletion,
// data.AppendRow, data.AppendRangeTombstone), static 0 or 1.

// Partition is one partition of an SSTable: a data.PartitionSource whose
// key, deletion, static row and range tombstones are loaded, and whose rows
// stream from Data.db. A Partition and its iterators belong to one
// goroutine.
type Partition struct {
	r      *Reader
	e      indexEntry
	static *data.Row
	// staticPos is the stream position of the static row's record (valid
	// when static is not nil).
	staticPos uint64
	rts       []data.RangeTombstone
	stats     ReadStats
	// cur read the header; the first row iterator takes it over, so that
	// the chunk holding the first rows is not read again.
	cur *chunkCursor
	// spare, when set, is the first row iterator's memory, allocated with
	// the partition; home is that allocation, from pointReadPool.
	spare *rowIter
	home  *pointRead
}

// loadPartition reads the header of the partition p.e through cur into
// p, adding what it read to st, and sets p's stats to st.
func (r *Reader) loadPartition(p *Partition, cur *chunkCursor, st *ReadStats) error {
	return r.loadPartitionInto(p, cur, st, nil)
}

// loadPartitionInto is loadPartition for a reusing scan when hb is not
// nil: the header is copied into hb's buffers (header bytes, static row,
// range tombstones), which the next partition overwrites, instead of
// being viewed in the chunk.
func (r *Reader) loadPartitionInto(p *Partition, cur *chunkCursor, st *ReadStats, hb *headerBufs) error {
	p.r = r
	e := &p.e
	prev := cur.st
	cur.st = st
	// The static row and range tombstones alias the header bytes: a view
	// of the chunk holding them, which the cursor then never overwrites,
	// or a copy when the header straddles chunks (or is read into hb).
	var buf []byte
	var err error
	if hb != nil {
		buf, err = cur.readRange(hb.raw[:0], e.pos, e.pos+e.rowsOff)
		hb.raw = buf
	} else {
		buf, err = cur.view(e.pos, e.pos+e.rowsOff)
	}
	cur.st = prev
	p.stats = *st
	if err != nil {
		return err
	}
	return p.decodeHeader(buf, hb)
}

// headerBufs are the buffers a reusing scan decodes partition headers
// into, from partition to partition.
type headerBufs struct {
	raw    []byte
	static data.Row
	names  data.ColumnNames
	rts    []data.RangeTombstone
}

func (p *Partition) decodeHeader(buf []byte, hb *headerBufs) error {
	if p.r.version == 1 {
		return p.decodeHeaderV1(buf, hb)
	}
	n, err := p.decodeHeaderV2(buf, hb, false)
	if err == nil && n != len(buf) {
		err = p.r.dataErr(p.e.pos, nil, "bad partition header: %d trailing bytes", len(buf)-n)
	}
	return err
}

// decodeHeaderV2 decodes the version-2 header at the start of buf and
// returns its length. The header must agree with the index entry p.e;
// for a streamed partition (stream, see Reader.ScanStream), which has no
// entry, the key and deletion are set from it instead, and buf may run
// past the header.
func (p *Partition) decodeHeaderV2(buf []byte, hb *headerBufs, stream bool) (int, error) {
	r, e := p.r, &p.e
	in := in{b: buf}
	key := in.bytes("key", true)
	flags := in.byte1("partition flags")
	if flags&partFlagsReserved != 0 {
		in.fail("partition flags")
	}
	del := data.LiveDeletion
	if flags&partHasDeletion != 0 {
		del = r.rows.deletion(&in, "partition deletion")
	}
	if in.what != "" {
		return 0, r.dataErr(e.pos, nil, "bad partition header: bad %s", in.what)
	}
	if stream {
		e.key, e.deletion = key[:len(key):len(key)], del
	} else if !bytes.Equal(key, e.key) || del != e.deletion {
		return 0, r.dataErr(e.pos, nil, "partition header disagrees with %s entry at %d", r.name(ComponentIndex), e.indexPos)
	}
	if flags&partHasStatic != 0 {
		// Its position is that of its length, as a row record's is.
		p.staticPos = e.pos + uint64(in.off)
		n := in.uvarint("static row length")
		if n == 0 || n > uint64(len(buf)-in.off) {
			return 0, r.dataErr(e.pos, nil, "bad static row length")
		}
		raw := buf[in.off : in.off+int(n)]
		in.off += int(n)
		row := new(data.Row)
		if hb != nil {
			row = &hb.static
		}
		if what := r.rows.decodeRow(raw, row); what != "" {
			return 0, r.dataErr(e.pos, nil, "bad static row: bad %s", what)
		}
		row.Clustering = nil // see Static
		p.static = row
	}
	if flags&partHasRangeTombstones != 0 {
		// Each takes at least 4 bytes (two bounds, two varints).
		n := in.uvarint("range tombstones")
		if n == 0 || n > uint64(len(buf)-in.off)/4 {
			return 0, r.dataErr(e.pos, nil, "bad range tombstone count")
		}
		if hb != nil && uint64(cap(hb.rts)) >= n {
			p.rts = hb.rts[:n]
		} else {
			p.rts = make([]data.RangeTombstone, n)
			if hb != nil {
				hb.rts = p.rts
			}
		}
		for i := range p.rts {
			p.rts[i] = r.rows.rangeTombstone(&in)
		}
		if in.what != "" {
			return 0, r.dataErr(e.pos, nil, "bad range tombstone: bad %s", in.what)
		}
	}
	return in.off, nil
}

// decodeHeaderV1 is decodeHeader for format version 1.
func (p *Partition) decodeHeaderV1(buf []byte, hb *headerBufs) error {
	r, e := p.r, &p.e
	d := &decoder{file: r.name(ComponentData), Cursor: data.Cursor{Buf: buf}}
	token := d.Varint("token")
	key := d.Bytes("key")
	del := data.DeletionTime{MarkedForDeleteAt: d.Varint("deletion"), LocalDeletionTime: d.Varint("deletion")}
	if d.Err() != nil {
		return r.dataErr(e.pos, d.Err(), "bad partition header")
	}
	if token != e.token || !bytes.Equal(key, e.key) || del != e.deletion {
		return r.dataErr(e.pos, nil, "partition header disagrees with %s entry at %d", r.name(ComponentIndex), e.indexPos)
	}
	switch d.Byte("static flag") {
	case 0:
	case 1:
		p.staticPos = e.pos + uint64(d.Off)
		raw := d.Bytes("static row")
		if d.Err() == nil {
			dd := data.NewDecoder(raw)
			row := new(data.Row)
			if hb != nil {
				row = &hb.static
				dd.RowInto(row, &hb.names)
			} else {
				dd.RowInto(row, nil)
			}
			if dd.Err() != nil || dd.Remaining() != 0 {
				return r.dataErr(e.pos, dd.Err(), "bad static row")
			}
			row.Clustering = nil // see Static
			p.static = row
		}
	default:
		d.Fail("static flag")
	}
	n := d.Count("range tombstones", 4)
	if d.Err() == nil && n > 0 {
		dd := data.NewDecoder(buf[d.Off:])
		if hb != nil && cap(hb.rts) >= n {
			p.rts = hb.rts[:n]
		} else {
			p.rts = make([]data.RangeTombstone, n)
			if hb != nil {
				hb.rts = p.rts
			}
		}
		for i := range p.rts {
			p.rts[i] = dd.RangeTombstone()
		}
		if dd.Err() != nil {
			return r.dataErr(e.pos, dd.Err(), "bad range tombstone")
		}
		d.Off += dd.Offset()
	}
	if err := d.finish("partition header"); err != nil {
		return r.dataErr(e.pos, err, "bad partition header")
	}
	return nil
}

// Key returns the partition key bytes.
func (p *Partition) Key() []byte { return p.e.key }

// Token returns the partition's token.
func (p *Partition) Token() int64 { return p.e.token }

// Deletion returns the partition deletion.
func (p *Partition) Deletion() data.DeletionTime { return p.e.deletion }

// Static returns the static row, or nil. Its Clustering is nil, whatever
// empty slice the writer was given: package cql builds static rows with
// data.NewRow(nil) and the memtable keeps the row it was given, so the
// static rows of both sources compare equal. Callers test for the static
// row by position (Static), never by len(Clustering) alone.
func (p *Partition) Static() *data.Row { return p.static }

// Position returns the partition's offset in the uncompressed Data.db
// stream, and Size its length there.
func (p *Partition) Position() uint64 { return p.e.pos }

// Size returns the partition's length in the uncompressed Data.db stream.
func (p *Partition) Size() uint64 { return p.e.length }

// IndexBlocks returns the number of row-index blocks (0 for a partition
// without a row index).
func (p *Partition) IndexBlocks() int { return p.e.numBlocks() }

// ReadStats returns what this partition's lookup and its closed row
// iterators touched.
func (p *Partition) ReadStats() ReadStats { return p.stats }

// RangeTombstones returns the range tombstones that may intersect slices,
// sorted by Start.
func (p *Partition) RangeTombstones(slices data.Slices) []data.RangeTombstone {
	if len(slices) == 0 {
		return p.rts
	}
	var out []data.RangeTombstone
	for _, rt := range p.rts {
		for _, s := range slices {
			if (s.End == nil || rt.Start == nil || bytes.Compare(rt.Start, s.End) < 0) &&
				(s.Start == nil || rt.End == nil || bytes.Compare(rt.End, s.Start) > 0) {
				out = append(out, rt)
				break
			}
		}
	}
	return out
}

type segment struct{ start, end uint64 }

// Rows returns an iterator over the rows in slices (sorted, not
// overlapping; nil for all), in clustering order or, if reverse, in reverse
// order. With a row index, only the blocks that intersect slices are read;
// a forward read streams rows out of the chunks, reading only the chunks
// that hold the rows it returns, and a reverse read decodes one block at a
// time from the end. Without a row index, a reverse read walks the record
// lengths of a segment and returns its rows from the end: the whole
// partition is one segment, or, when the index entry has chunk marks
// (format version 3, see index.go), each mark starts one, and the read
// starts with the last, in the partition's last chunk. The *Row returned by Next is valid until the next call
// to Next or Close; the byte slices it holds stay valid through the next
// call to Next (so a merge may hold the previous row while it advances).
func (p *Partition) Rows(slices data.Slices, reverse bool) data.RowIterator {
	it := p.spare
	if it != nil {
		p.spare = nil
	} else {
		it = new(rowIter)
	}
	if it.keep {
		// A reusing scan's iterator: keep the interned column names, the
		// cell and column-deletion arrays and the scratch buffers from
		// partition to partition, and reset the rest field by field (a
		// whole-struct assignment clears and copies the buffers too).
		it.reset(p, slices, reverse)
	} else {
		bufs := it.bufs
		*it = rowIter{p: p, slices: slices, reverse: reverse, bufs: bufs}
		it.row.Cells = it.cellBuf[:0]
	}
	if p.cur != nil {
		it.cur, p.cur = p.cur, nil
		it.cur.st = &it.st
	} else {
		it.cur = p.r.newCursor(&it.st, true)
	}
	e := &p.e
	n := e.numBlocks()
	if n == 0 && e.length == 0 {
		// A streamed partition (Reader.ScanStream) whose end is not known
		// yet: a forward read streams its records until the byte that
		// ends them, and so finds the end; a reverse read, which walks
		// the records from the end, finds it first.
		if !reverse {
			it.stream = true
			it.segs = append(it.segBuf[:0], segment{e.pos + e.rowsOff, p.r.dataLen})
			return it
		}
		end, err := p.r.partitionEnd(it.cur, e.pos+e.rowsOff)
		if err != nil {
			it.err = err
			return it
		}
		e.length = end - e.pos
	}
	if n == 0 {
		if e.length-1 > e.rowsOff {
			start, end := e.pos+e.rowsOff, e.pos+e.length-1
			if reverse && e.nMarks > 0 {
				// One segment per mark, from the last: the records of
				// each are found from its first (format version 3).
				marks := e.markPositions(it.bufs.marks[:0])
				segs := it.bufs.segs[:0]
				for i := len(marks) - 1; i >= 0; i-- {
					segs = append(segs, segment{e.pos + marks[i], end})
					end = e.pos + marks[i]
				}
				it.segs = append(segs, segment{start, end})
				it.bufs.marks, it.bufs.segs = marks[:0], it.segs[:0]
			} else {
				it.segs = append(it.segBuf[:0], segment{start, end})
			}
		}
		return it
	}
	it.blockMode = true
	it.lo, it.hi = 0, n-1
	if len(slices) > 0 {
		if start := slices[0].Start; start != nil {
			it.lo = sort.Search(n, func(i int) bool {
				b, err := e.block(i)
				if err != nil {
					it.err = err
					return true
				}
				return bytes.Compare(b.Last, start) >= 0
			})
		}
		if end := slices[len(slices)-1].End; end != nil {
			it.hi = sort.Search(n, func(i int) bool {
				b, err := e.block(i)
				if err != nil {
					it.err = err
					return true
				}
				return bytes.Compare(b.First, end) >= 0
			}) - 1
		}
	}
	it.nextBlock = it.lo
	if reverse {
		it.nextBlock = it.hi
	}
	return it
}

func blockIntersects(b *blockInfo, slices data.Slices) bool {
	if len(slices) == 0 {
		return true
	}
	for _, s := range slices {
		if (s.End == nil || bytes.Compare(b.First, s.End) < 0) && (s.Start == nil || bytes.Compare(b.Last, s.Start) >= 0) {
			return true
		}
	}
	return false
}

type rowIter struct {
	p       *Partition
	slices  data.Slices
	reverse bool
	segs    []segment
	segBuf  [1]segment // segs starts here
	seg     int        // next segment to load; > 0 once one is loaded
	// With a row index, blocks lo..hi may intersect the slices; nextBlock
	// is the next one to consider.
	blockMode         bool
	lo, hi, nextBlock int
	cur               *chunkCursor
	// pos is the stream position of the next record (forward) or of the
	// record being read (reverse), end that of the end of the segment; records straddling chunks are assembled in
	// the scratch buffers, used in turn.
	pos, end uint64
	scratch  [2][]byte
	sc       int
	// Reverse: offs holds the positions of the records of the segment,
	// relative to segStart (from the block cache, or bufs.offs), ri the
	// next index into offs, counting down.
	offs     []uint32
	bufs     iterBufs
	segStart uint64
	ri       int
	// row is the row Next returns, decoded into the same cells each
	// time; names interns its column names.
	row     data.Row
	cellBuf [4]data.Cell // row.Cells starts here
	names   data.ColumnNames
	rowPos  uint64 // stream position of the record of row
	st      ReadStats
	err     error
	done    bool
	closed  bool
	// stream marks a forward read of a streamed partition whose end is not
	// known (Reader.ScanStream): its segment runs to the end of the stream
	// and the byte that ends the partition's records ends it.
	stream bool
	// keep marks the iterator of a reusing scan (ScanReuse), whose buffers
	// survive from one partition to the next; scanSt is then the scan's
	// ReadStats, which Close adds to.
	keep   bool
	scanSt *ReadStats
}

// iterBufs are arrays a row iterator owns and keeps from read to read (the
// pools its memory comes from keep them too): the record positions of a
// reverse read's segment, the segments of a reverse read of a partition
// with chunk marks, and the marks.
type iterBufs struct {
	offs  []uint32
	segs  []segment
	marks []uint64
}

// reset prepares a reusing scan's iterator (keep) for partition p: every
// field as a fresh iterator has it, but the buffers kept.
func (it *rowIter) reset(p *Partition, slices data.Slices, reverse bool) {
	it.p, it.slices, it.reverse = p, slices, reverse
	it.segs, it.seg = nil, 0
	it.blockMode, it.lo, it.hi, it.nextBlock = false, 0, 0, 0
	it.cur = nil
	it.pos, it.end, it.sc = 0, 0, 0
	it.offs, it.segStart, it.ri = nil, 0, 0
	it.rowPos = 0
	it.stream = false
	it.st = ReadStats{}
	it.err, it.done, it.closed = nil, false, false
	if it.row.Cells == nil {
		it.row.Cells = it.cellBuf[:0]
	}
}

// loadSegment reads the next segment; false at the end or on error.
func (it *rowIter) loadSegment() bool {
	var s segment
	if it.blockMode {
		for {
			if it.nextBlock < it.lo || it.nextBlock > it.hi {
				it.done = true
				return false
			}
			b, err := it.p.e.block(it.nextBlock)
			if err != nil {
				it.err = err
				return false
			}
			if it.reverse {
				it.nextBlock--
			} else {
				it.nextBlock++
			}
			if blockIntersects(&b, it.slices) {
				s = segment{it.p.e.pos + b.Offset, it.p.e.pos + b.Offset + b.Length}
				break
			}
		}
	} else {
		if it.seg >= len(it.segs) {
			it.done = true
			return false
		}
		s = it.segs[it.seg]
	}
	it.seg++
	it.st.Blocks++
	if !it.reverse {
		it.pos, it.end = s.start, s.end
		return true
	}
	it.end = s.end
	return it.indexRecords(s)
}

// indexRecords collects the stream positions of the records of segment s
// for a reverse read, reading their lengths through the cursor (the rows
// are decoded later, from the end). The positions are kept in the block
// cache: a reverse read of a hot block walks it once, then decodes only
// the rows it returns, as a forward read does.
func (it *rowIter) indexRecords(s segment) bool {
	r := it.p.r
	it.segStart, it.ri = s.start, -1
	if s.end-s.start > math.MaxUint32 {
		it.err = r.dataErr(s.start, nil, "row segment of %d bytes", s.end-s.start)
		return false
	}
	if offs, ok := r.cache.records(r.cacheID, s.start); ok {
		it.offs = offs
		it.ri = len(offs) - 1
		return true
	}
	// The positions are collected in the iterator's own array (never in
	// one the cache holds, which nothing may write).
	it.offs = it.bufs.offs[:0]
	for pos := s.start; pos < s.end; {
		i := int(pos / r.chunkLen)
		base := uint64(i) * r.chunkLen
		c, err := it.cur.chunkPrefix(i, int(min(s.end-base, r.chunkLen)))
		if err != nil {
			it.err = err
			return false
		}
		for pos < s.end && pos-base < uint64(len(c)) {
			l, n := binary.Uvarint(c[pos-base:])
			if n == 0 && uint64(len(c))-(pos-base) < binary.MaxVarintLen64 {
				// The length straddles two chunks.
				var tmp [binary.MaxVarintLen64]byte
				b, err := it.cur.readRange(tmp[:0], pos, min(pos+binary.MaxVarintLen64, s.end))
				if err != nil {
					it.err = err
					return false
				}
				l, n = binary.Uvarint(b)
			}
			if n <= 0 || l == 0 || l > s.end-pos-uint64(n) {
				it.err = r.dataErr(pos, nil, "bad row record length")
				return false
			}
			it.offs = append(it.offs, uint32(pos-s.start))
			pos += uint64(n) + l
		}
	}
	it.ri = len(it.offs) - 1
	it.bufs.offs = it.offs[:0]
	if it.cur.fill && r.cache.blocks != nil {
		// The cache gets a copy of its own, exactly sized: one allocation
		// per segment cached, however many records it has.
		r.cache.putRecords(r.cacheID, s.start, slices.Clone(it.offs))
	}
	return true
}

// clustering returns the clustering key at the start of an encoded row.
func clusteringOf(row []byte) ([]byte, bool) {
	l, n := binary.Uvarint(row)
	if n <= 0 || l > uint64(len(row)-n) {
		return nil, false
	}
	return row[n : n+int(l)], true
}

// streamRecord returns the row bytes of the record at it.pos and moves
// past it. A record inside one chunk that nothing overwrites (a cached
// one: chunkCursor.alias) aliases the chunk; one straddling chunks, or in a
// buffer the cursor reuses, is copied into a scratch buffer.
func (it *rowIter) streamRecord() ([]byte, bool) {
	r, at := it.p.r, it.pos
	i := int(at >> r.chunkShift)
	// The chunk is needed up to the records' end (a partition ending in it
	// leaves the rest to the partitions after it).
	c, err := it.cur.chunkPrefix(i, int(min(it.end-uint64(i)*r.chunkLen, r.chunkLen)))
	if err != nil {
		it.err = err
		return nil, false
	}
	off := at - uint64(i)*r.chunkLen
	if off >= uint64(len(c)) {
		it.err = r.dataErr(at, nil, "record beyond chunk")
		return nil, false
	}
	l, n := binary.Uvarint(c[off:])
	if n == 0 && uint64(len(c))-off < binary.MaxVarintLen64 {
		// The length itself straddles two chunks.
		var tmp [binary.MaxVarintLen64]byte
		b, err := it.cur.readRange(tmp[:0], at, min(at+binary.MaxVarintLen64, it.end))
		if err != nil {
			it.err = err
			return nil, false
		}
		l, n = binary.Uvarint(b)
	}
	if it.stream && l == 0 && n == 1 {
		// The end of a streamed partition's records: now its length is
		// known.
		it.p.e.length = at + 1 - it.p.e.pos
		it.done = true
		return nil, false
	}
	if n <= 0 || l == 0 || l > it.end-at-uint64(n) {
		it.err = r.dataErr(at, nil, "bad row record length")
		return nil, false
	}
	start := at + uint64(n)
	it.pos = start + l
	if s := off + uint64(n); s+l <= uint64(len(c)) {
		// The chunk may have moved to the other slot meanwhile, but its
		// bytes are the same.
		if it.cur.alias(i) {
			return c[s : s+l : s+l], true
		}
		it.sc = 1 - it.sc
		it.scratch[it.sc] = append(it.scratch[it.sc][:0], c[s:s+l]...)
		return it.scratch[it.sc], true
	}
	it.sc = 1 - it.sc
	b, err := it.cur.readRange(it.scratch[it.sc][:0], start, it.pos)
	if err != nil {
		it.err = err
		return nil, false
	}
	it.scratch[it.sc] = b
	return b, true
}

// Next returns the next row in slices.
func (it *rowIter) Next() (*data.Row, bool) {
	if it.err != nil || it.done || it.closed {
		return nil, false
	}
	for {
		var raw []byte
		var rowPos uint64
		if it.reverse {
			if it.seg == 0 || it.ri < 0 {
				if !it.loadSegment() {
					return nil, false
				}
				continue
			}
			rowPos = it.segStart + uint64(it.offs[it.ri])
			it.ri--
			it.pos = rowPos
			var ok bool
			if raw, ok = it.streamRecord(); !ok {
				return nil, false
			}
		} else {
			if it.seg == 0 || it.pos >= it.end {
				if !it.loadSegment() {
					return nil, false
				}
				continue
			}
			rowPos = it.pos
			var ok bool
			if raw, ok = it.streamRecord(); !ok {
				return nil, false
			}
		}
		ck, ok := clusteringOf(raw)
		if !ok {
			it.err = it.p.r.dataErr(rowPos, nil, "bad clustering")
			return nil, false
		}
		if len(it.slices) > 0 {
			if it.reverse {
				if first := it.slices[0]; first.Start != nil && bytes.Compare(ck, first.Start) < 0 {
					it.done = true
					return nil, false
				}
			} else if last := it.slices[len(it.slices)-1]; last.End != nil && bytes.Compare(ck, last.End) >= 0 {
				it.done = true
				return nil, false
			}
			if !it.slices.Contains(ck) {
				continue
			}
		}
		if r := it.p.r; r.version == 1 {
			d := data.NewDecoder(raw)
			d.RowInto(&it.row, &it.names)
			if d.Err() != nil || d.Remaining() != 0 {
				it.err = r.dataErr(rowPos, d.Err(), "bad row")
				return nil, false
			}
		} else if what := r.rows.decodeRow(raw, &it.row); what != "" {
			it.err = r.dataErr(rowPos, nil, "bad row: bad %s", what)
			return nil, false
		}
		it.st.Rows++
		it.rowPos = rowPos
		return &it.row, true
	}
}

// EndsAfterRow reports whether a forward read of a streamed partition
// (Reader.ScanStream) has returned its last row: the record after it is the
// end of the partition's records, which it then consumes as Next would
// (Next returns false and the partition's length is known). It reports
// false when it cannot tell, or another row follows, leaving the iterator
// where it was: the caller goes on with Next.
func (it *rowIter) EndsAfterRow() bool {
	if it.done {
		return it.err == nil
	}
	if !it.stream || it.reverse || it.err != nil || it.closed || len(it.slices) > 0 || it.seg == 0 || it.pos >= it.end {
		return false
	}
	pos, sc := it.pos, it.sc
	if _, ok := it.streamRecord(); ok {
		// A row follows: it is read again by Next, into the other
		// scratch slot again (the current row's bytes stay valid).
		it.pos, it.sc = pos, sc
		return false
	}
	return it.done && it.err == nil
}

// Err returns the first error met.
func (it *rowIter) Err() error { return it.err }

// OwnedRows reports that the caller may modify the row Next returns (its
// fields, cells and column deletions, not the bytes they reference) until
// the next call to Next or Close: Next decodes every row afresh into the
// iterator's row, assigning each field (rowDecoder.decodeRow, or
// data.Decoder.RowInto in format version 1).
func (it *rowIter) OwnedRows() bool { return true }

// Close releases the iterator and adds what it read to the partition's and
// the Reader's ReadStats.
func (it *rowIter) Close() error {
	if it.closed {
		return nil
	}
	it.closed = true
	it.p.stats.Add(it.st)
	if it.scanSt != nil {
		// A reusing scan's: the scan adds its total to the Reader's when
		// it closes (one set of atomic adds per scan, not per partition).
		it.scanSt.Add(it.st)
	} else {
		it.p.r.total.add(&it.st)
	}
	it.offs = nil
	if !it.keep {
		it.scratch = [2][]byte{}
	}
	return nil
}
