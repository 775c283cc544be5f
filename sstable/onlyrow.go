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
	ps, out, only, ok = it.NextOnlyRecord(dst)
	if only && !it.DecodeOnlyRow(row) {
		return ps, dst, false, true
	}
	return ps, out, only, ok
}

// NextOnlyRecord is NextOnlyRow without the decode: when the partition has
// no partition deletion, static row or range tombstone and exactly one row
// (only), its record is found, checked to be the partition's last, and
// counted as NextOnlyRow counts it, and the partition's Size is known, but
// the row is decoded only when DecodeOnlyRow is called (or never, when
// OnlyRowShadowedBy shows it cannot change a merge). Until the next call,
// the partition is to be read through exactly one of DecodeOnlyRow or
// OnlyRowShadowedBy's verdict: its Rows must not be asked for unless
// DecodeOnlyRow failed. out is dst with the record appended when it
// straddles chunks, else dst, as NextOnlyRow's.
func (it *scanIter) NextOnlyRecord(dst []byte) (ps data.PartitionSource, out []byte, only, ok bool) {
	it.oraw = nil
	if it.nextOnlyInChunk() {
		return it.p, dst, true, true
	}
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
	out, only = it.onlyRecord(dst)
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

// DecodeOnlyRow decodes the record NextOnlyRecord found into row (reusing
// row's cell and column-deletion arrays, as a row iterator does) and
// reports whether it decodes. When it does not, the partition is left as
// NextOnlyRow leaves such a partition: its length unknown and its row and
// block not counted, to be read through its Rows, which reports what is
// wrong. Called once per record, after a NextOnlyRecord that returned only.
func (it *scanIter) DecodeOnlyRow(row *data.Row) bool {
	raw := it.oraw
	it.oraw = nil
	if raw == nil {
		return false
	}
	if what := it.r.rows.decodeRow(raw, row); what == "" {
		return true
	}
	p := it.p
	p.e.length = 0
	it.st.Blocks--
	it.st.Rows--
	p.stats.Blocks--
	p.stats.Rows--
	return false
}

// OnlyRowShadowedBy reports whether the record NextOnlyRecord found decodes
// (DecodeOnlyRow would succeed) and is a version of a's row that a merge
// with a would reduce to a unchanged, as package engine's
// rowMerger.dominant decides it for a decoded row: the same clustering, no
// row or column deletion, a liveness timestamp below a's (a's is not
// empty: the caller checks it), no counter cell, and for each of its cells
// a cell of a of the same column and path with a strictly later timestamp.
// It reads the record without decoding it into a row, and returns the
// number of its cells. A false answer says nothing: the record is then to
// be decoded (DecodeOnlyRow) and merged as usual.
func (it *scanIter) OnlyRowShadowedBy(a *data.Row) (cells int, ok bool) {
	if it.oraw == nil {
		return 0, false
	}
	return it.r.rows.shadowedBy(it.oraw, a)
}

// onlyRecord views the record at the current partition's first row in its
// chunk (or copies it into dst when it straddles chunks) and, when the
// byte after it ends the partition's records, keeps it for DecodeOnlyRow
// (it.oraw) and records the partition's length.
func (it *scanIter) onlyRecord(dst []byte) ([]byte, bool) {
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
	it.oraw = raw
	e.length = end + 1 - e.pos
	return dst, true
}

// nextOnlyInChunk is NextOnlyRecord's common case in one step: when the
// previous partition's end is known, its rows are not being read, and the
// next partition lies whole in the chunk the cursor used last (its header,
// its one row record and the byte that ends its records), with a
// non-empty key and no header flags (no partition deletion, static row or
// range tombstone), it loads that partition and finds its record straight
// from the chunk's bytes, without Next's chunk lookups, header decoder and
// read-statistics bookkeeping. It leaves the scan, the partition and the
// statistics exactly as Next followed by onlyRecord would leave them (a
// chunk in place costs no read: only the block and the row count), and
// reports whether it did; when it did not, nothing has changed and the
// general path takes the partition, reporting whatever is wrong with it.
func (it *scanIter) nextOnlyInChunk() bool {
	p := it.p
	if !it.stream || it.noChunkStep || it.done || it.err != nil || p == nil || p.e.length == 0 || (!it.rows.closed && it.rows.p == p) {
		return false
	}
	r, cur := it.r, it.cur
	spos := p.e.pos + p.e.length
	ci := cur.idx[cur.mru]
	if spos >= r.dataLen || ci < 0 || int(spos>>r.chunkShift) != ci || !cur.alias(ci) {
		return false
	}
	// A chunk decoded only in part would be read again in full.
	c := cur.buf[cur.mru]
	off := spos - uint64(ci)*r.chunkLen
	if len(c) < r.plainLen(ci) || off >= uint64(len(c)) {
		return false
	}
	b := c[off:]
	// The header: bytes(key) flags, flags 0.
	kl, n := binary.Uvarint(b)
	if n <= 0 || kl == 0 || kl >= uint64(len(b)-n) {
		return false
	}
	ks := n + int(kl)
	key := b[n:ks:ks]
	if b[ks] != 0 {
		return false
	}
	rowsOff := ks + 1
	// The record: uvarint(l) and l bytes, then the zero that ends the
	// records, all in the chunk and before the stream's end.
	if rowsOff >= len(b) {
		return false
	}
	l, m := binary.Uvarint(b[rowsOff:])
	pos := spos + uint64(rowsOff)
	if m <= 0 || l == 0 || l > r.dataLen-pos-uint64(m) {
		return false
	}
	s := uint64(rowsOff + m)
	if l >= uint64(len(b))-s || b[s+l] != 0 {
		return false
	}
	end := pos + uint64(m) + l
	if end >= r.dataLen {
		return false
	}
	token := it.tokenOf(key)
	if it.count > 0 && data.ComparePartitions(it.lastTok, it.lastKey, token, key) >= 0 {
		return false // Next reports it
	}
	it.spos = spos
	it.count++
	// The key is kept in lastKey, which the partition's key then views:
	// both are valid until the next call, as a key copied into the header
	// buffer would be.
	it.lastTok, it.lastKey = token, append(it.lastKey[:0], key...)
	q := &it.part
	q.r, q.static, q.staticPos, q.rts, q.cur, q.spare, q.home = r, nil, 0, nil, cur, &it.rows, nil
	q.e = indexEntry{pos: spos, indexFile: r.names[ComponentIndex], key: it.lastKey[:kl:kl], token: token,
		rowsOff: uint64(rowsOff), length: end + 1 - spos, deletion: data.LiveDeletion}
	q.stats = ReadStats{Blocks: 1, Rows: 1}
	it.pst = ReadStats{}
	it.ost = q.stats
	it.st.Blocks++
	it.st.Rows++
	it.oraw = b[s : s+l : s+l]
	it.p = q
	it.chunkSteps++
	return true
}
