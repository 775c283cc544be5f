package sstable

import (
	"bytes"
	"encoding/binary"
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
//	partition := varint(token) bytes(key) deletion static:byte [uvarint(len) row]
//	             uvarint(nRT) nRT*rangetomb  record*  0x00
//	record    := uvarint(len) row            -- len > 0
//
// deletion, row and rangetomb are the encodings of package data
// (data.AppendDeletion, data.AppendRow, data.AppendRangeTombstone); rows
// come in clustering order and range tombstones sorted by start.

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
}

func (r *Reader) loadPartition(e indexEntry, cur *chunkCursor, st *ReadStats) (*Partition, error) {
	p := &Partition{r: r, e: e}
	var hs ReadStats
	cur.st = &hs
	buf, err := cur.readRange(nil, e.pos, e.pos+e.rowsOff)
	cur.st = nil
	st.Add(hs)
	p.stats = *st
	if err != nil {
		return nil, err
	}
	if err := p.decodeHeader(buf); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Partition) decodeHeader(buf []byte) error {
	r, e := p.r, &p.e
	d := &decoder{file: r.name(ComponentData), buf: buf}
	token := d.varint("token")
	key := d.bytes("key")
	del := data.DeletionTime{MarkedForDeleteAt: d.varint("deletion"), LocalDeletionTime: d.varint("deletion")}
	if d.err != nil {
		return r.dataErr(e.pos, d.err, "bad partition header")
	}
	if token != e.token || !bytes.Equal(key, e.key) || del != e.deletion {
		return r.dataErr(e.pos, nil, "partition header disagrees with %s entry at %d", r.name(ComponentIndex), e.indexPos)
	}
	switch d.byte1("static flag") {
	case 0:
	case 1:
		p.staticPos = e.pos + uint64(d.off)
		raw := d.bytes("static row")
		if d.err == nil {
			dd := data.NewDecoder(raw)
			row := dd.Row()
			if dd.Err() != nil || dd.Remaining() != 0 {
				return r.dataErr(e.pos, dd.Err(), "bad static row")
			}
			row.Clustering = nil // see Static
			p.static = &row
		}
	default:
		d.fail("static flag")
	}
	n := d.count("range tombstones", 4)
	if d.err == nil && n > 0 {
		dd := data.NewDecoder(buf[d.off:])
		p.rts = make([]data.RangeTombstone, n)
		for i := range p.rts {
			p.rts[i] = dd.RangeTombstone()
		}
		if dd.Err() != nil {
			return r.dataErr(e.pos, dd.Err(), "bad range tombstone")
		}
		d.off += dd.Offset()
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
// a reverse read decodes one block at a time from the end. The *Row returned
// by Next is valid until the next call to Next or Close.
func (p *Partition) Rows(slices data.Slices, reverse bool) data.RowIterator {
	it := &rowIter{p: p, slices: slices, reverse: reverse}
	it.cur = p.r.newCursor(&it.st)
	e := &p.e
	n := e.numBlocks()
	if n == 0 {
		if e.length-1 > e.rowsOff {
			it.segs = append(it.segs, segment{e.pos + e.rowsOff, e.pos + e.length - 1})
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
	seg     int // next segment to load; > 0 once one is loaded
	// With a row index, blocks lo..hi may intersect the slices; nextBlock
	// is the next one to consider.
	blockMode         bool
	lo, hi, nextBlock int
	cur               *chunkCursor
	buf               []byte
	segPos            uint64 // stream position of buf[0]
	off               int    // forward: next record offset in buf
	offs              []int  // reverse: record offsets in buf
	ri                int    // reverse: next index into offs, counting down
	row               data.Row
	rowPos            uint64 // stream position of the record of row
	st                ReadStats
	err               error
	done              bool
	closed            bool
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
	var err error
	it.buf, err = it.cur.readRange(it.buf[:0], s.start, s.end)
	if err != nil {
		it.err = err
		return false
	}
	it.st.Blocks++
	it.segPos = s.start
	it.off = 0
	if it.reverse {
		it.offs = it.offs[:0]
		for off := 0; off < len(it.buf); {
			l, n := binary.Uvarint(it.buf[off:])
			if n <= 0 || l == 0 || l > uint64(len(it.buf)-off-n) {
				it.err = it.p.r.dataErr(s.start+uint64(off), nil, "bad row record length")
				return false
			}
			it.offs = append(it.offs, off)
			off += n + int(l)
		}
		it.ri = len(it.offs) - 1
	}
	return true
}

// record returns the row bytes of the record at off and the next offset.
func (it *rowIter) record(off int) ([]byte, int, bool) {
	l, n := binary.Uvarint(it.buf[off:])
	if n <= 0 || l == 0 || l > uint64(len(it.buf)-off-n) {
		it.err = it.p.r.dataErr(it.segPos+uint64(off), nil, "bad row record length")
		return nil, 0, false
	}
	return it.buf[off+n : off+n+int(l)], off + n + int(l), true
}

// clustering returns the clustering key at the start of an encoded row.
func clusteringOf(row []byte) ([]byte, bool) {
	l, n := binary.Uvarint(row)
	if n <= 0 || l > uint64(len(row)-n) {
		return nil, false
	}
	return row[n : n+int(l)], true
}

// Next returns the next row in slices.
func (it *rowIter) Next() (*data.Row, bool) {
	if it.err != nil || it.done || it.closed {
		return nil, false
	}
	for {
		var raw []byte
		var at int
		if it.reverse {
			if it.seg == 0 || it.ri < 0 {
				if !it.loadSegment() {
					return nil, false
				}
				continue
			}
			at = it.offs[it.ri]
			it.ri--
			var ok bool
			if raw, _, ok = it.record(at); !ok {
				return nil, false
			}
		} else {
			if it.seg == 0 || it.off >= len(it.buf) {
				if !it.loadSegment() {
					return nil, false
				}
				continue
			}
			at = it.off
			var ok bool
			if raw, it.off, ok = it.record(at); !ok {
				return nil, false
			}
		}
		ck, ok := clusteringOf(raw)
		if !ok {
			it.err = it.p.r.dataErr(it.segPos+uint64(at), nil, "bad clustering")
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
		d := data.NewDecoder(raw)
		it.row = d.Row()
		if d.Err() != nil || d.Remaining() != 0 {
			it.err = it.p.r.dataErr(it.segPos+uint64(at), d.Err(), "bad row")
			return nil, false
		}
		it.st.Rows++
		it.rowPos = it.segPos + uint64(at)
		return &it.row, true
	}
}

// Err returns the first error met.
func (it *rowIter) Err() error { return it.err }

// Close releases the iterator and adds what it read to the partition's and
// the Reader's ReadStats.
func (it *rowIter) Close() error {
	if it.closed {
		return nil
	}
	it.closed = true
	it.p.stats.Add(it.st)
	it.p.r.total.add(&it.st)
	it.buf, it.offs = nil, nil
	return nil
}
