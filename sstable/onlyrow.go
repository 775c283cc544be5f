package sstable

import (
	"encoding/binary"

	"github.com/minicass/minicass/data"
)

// NextOnlyRow is Next for a streaming scan (Reader.ScanStream, format
// version 2 or later) whose caller is done with each partition before it
// asks for the next (a compaction: package engine's onlyRows). It moves
// to the next partition as Next does and, when that partition has no
// partition deletion, static row or range tombstone and exactly one row,
// decodes that row into row (reusing row's cell and column-deletion
// arrays, as a row iterator does) and consumes the partition: its rows
// are read, counted in the ReadStats as a row iterator would count them,
// and its Size is known; only is then true. The row is decoded where its
// record lies in the chunk, as the reusing scan's row iterator decodes
// it, or, when the record straddles chunks, from a copy appended to dst
// (out is dst with it, else dst): its bytes are valid until the next
// call, or while out's are.
//
// For any other partition, or when the scan cannot tell cheaply (a record
// that does not decode, a length that runs past the stream), only is
// false and out is dst: the partition is to be read through its Rows as
// after Next, which reports whatever is wrong with it. ok is false at the
// end of the scan or on its error (Err), as Next's.
func (it *scanIter) NextOnlyRow(dst []byte, row *data.Row) (ps data.PartitionSource, out []byte, only, ok bool) {
	ps, ok = it.Next()
	if !ok || !it.stream {
		return ps, dst, false, ok
	}
	p := it.p
	e := &p.e
	if e.deletion != data.LiveDeletion || p.static != nil || p.rts != nil || e.length != 0 || e.numBlocks() != 0 {
		return ps, dst, false, true
	}
	// The chunks read count in the scan's own ReadStats for the row
	// (a field: a local would escape through the cursor).
	st := &it.ost
	*st = ReadStats{}
	prev := it.cur.st
	it.cur.st = st
	out, only = it.onlyRow(dst, row)
	it.cur.st = prev
	if !only {
		// What was read counts; the row iterator reads the chunk again
		// from the cursor, not from the file.
		it.st.Add(*st)
		p.stats.Add(*st)
		return ps, dst, false, true
	}
	st.Blocks++
	st.Rows++
	it.st.Add(*st)
	p.stats.Add(*st)
	return ps, out, true, true
}

// onlyRow views the record at the current partition's first row in its
// chunk (or copies it into dst when it straddles chunks) and decodes it
// into row when the byte after it ends the partition's records, and
// records the partition's length.
func (it *scanIter) onlyRow(dst []byte, row *data.Row) ([]byte, bool) {
	r, cur, e := it.r, it.cur, &it.p.e
	pos := e.pos + e.rowsOff
	i := int(pos >> r.chunkShift)
	c, err := cur.chunk(i)
	if err != nil {
		return dst, false
	}
	off := pos - uint64(i)*r.chunkLen
	if off >= uint64(len(c)) {
		return dst, false
	}
	l, n := binary.Uvarint(c[off:])
	if n <= 0 || l == 0 || l > r.dataLen-pos-uint64(n) {
		// A length straddling chunks, an empty partition or a bad length:
		// the row iterator's business.
		return dst, false
	}
	start := len(dst)
	from, end := pos+uint64(n), pos+uint64(n)+l
	var raw []byte
	if s := off + uint64(n); s+l <= uint64(len(c)) {
		if cur.alias(i) {
			raw = c[s : s+l : s+l]
		} else {
			dst = append(dst, c[s:s+l]...)
		}
	} else if dst, err = cur.readRange(dst, from, end); err != nil {
		return dst[:start], false
	}
	if raw == nil {
		raw = dst[start:len(dst):len(dst)]
	}
	// The byte after the record ends the partition's records (a zero
	// length) when this is its only row.
	if end >= r.dataLen {
		return dst[:start], false
	}
	j := int(end >> r.chunkShift)
	c, err = cur.chunk(j)
	if err != nil || end-uint64(j)*r.chunkLen >= uint64(len(c)) || c[end-uint64(j)*r.chunkLen] != 0 {
		return dst[:start], false
	}
	if what := r.rows.decodeRow(raw, row); what != "" {
		return dst[:start], false
	}
	e.length = end + 1 - e.pos
	return dst, true
}
