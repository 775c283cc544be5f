package sstable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"sync"

	"github.com/minicass/minicass/data"
)

// Index.db layout. Part of the file format:
//
//	header (8 bytes, see headerSize)
//	entry*  in partition order, where
//	entry   := uvarint(len(payload)) payload crc32c(payload):uint32 little-endian
//	payload := bytes(key) varint(token) uvarint(position) uvarint(length)
//	           uvarint(rowsOffset) flags:byte [deletion]
//	           [uvarint(nMarks) nMarks*uvarint(mark delta)]
//	           [uvarint(nBlocks) nBlocks*block nBlocks*uint32(block offset)]
//	block   := bytes(firstClustering) bytes(lastClustering)
//	           uvarint(offset) uvarint(length)
//
// position is the partition's offset in the uncompressed Data.db stream and
// length its size there; rowsOffset, and each block's offset, are relative
// to position. flags 0x01: the partition is deleted, and deletion (the
// version-2 encoding of rowcodec.go) follows, else it is live; flags 0x02:
// the partition has a row index (nBlocks > 0), its blocks cover its rows
// in clustering order, and the table of their offsets (relative to the
// payload, little-endian) lets a reader binary-search them, decoding only
// the blocks it needs (a latest-N read of a huge partition decodes one). A
// partition that fits in one ColumnIndexSize block has none.
//
// Format version 3 adds two flags. 0x04: chunk marks follow (only in an
// entry without a row index, and only when the partition's rows cross a
// chunk boundary): for each chunk after the one the rows start in, in
// order, the position (relative to position) of the first record that
// starts in it, each as its distance from the one before (the first from
// rowsOffset), every one after rowsOffset and before the partition's end
// byte. A reverse read then walks the records from the last mark, in the
// partition's last chunk, then from the mark before, and so on, instead
// of walking every record from the first (records are found only from
// their start, by their lengths): a latest-N read of a partition of a few
// chunks reads the chunk its last rows are in. 0x08: the partition header
// is plain, its key, flags and deletion only (no static row, no range
// tombstones), so that a point read of a partition with chunk marks or a
// row index leaves it unread (the key and deletion are the entry's): a
// reverse read then reads the last chunk or block only, and a slice the
// block that holds its start. Cassandra's BIG format has neither: its
// reversed read of a partition without a row index reads the whole
// partition (SSTableReversedIterator). Version 2 has neither flag.
//
// Format version 1 has, after rowsOffset, data.AppendDeletion's encoding
// of the partition deletion and uvarint(nBlocks) (0 without a row index),
// then the blocks and their offsets.
type indexEntry struct {
	key         []byte
	token       int64
	pos, length uint64
	rowsOff     uint64
	deletion    data.DeletionTime
	indexPos    uint64 // offset of the entry in Index.db
	indexFile   string
	// blockRaw is the entry payload and blockTable its trailing table of
	// block offsets (uint32 LE, relative to the payload) when the partition
	// has a row index.
	blockRaw, blockTable []byte
	// marks holds the chunk marks' uvarint distances (nMarks of them,
	// checked), aliasing the payload; plainHeader is flag 0x08.
	marks       []byte
	nMarks      int
	plainHeader bool
}

// indexReader reads consecutive Index.db entries from [pos, end).
type indexReader struct {
	r        *Reader
	pos, end uint64
	buf      []byte
	bufStart uint64
	st       *ReadStats
}

const indexReadSize = 16 << 10

// ensure makes buf hold Index.db bytes [pos, pos+n) and returns them.
func (ir *indexReader) ensure(n uint64) ([]byte, error) {
	if ir.pos >= ir.bufStart && ir.pos+n <= ir.bufStart+uint64(len(ir.buf)) {
		return ir.buf[ir.pos-ir.bufStart : ir.pos-ir.bufStart+n], nil
	}
	if ir.pos+n > ir.end {
		return nil, corruptf(ir.r.name(ComponentIndex), int64(ir.pos), "entry runs past %d", ir.end)
	}
	size := min(max(n, indexReadSize), ir.end-ir.pos)
	ir.buf = grow(ir.buf[:0], int(size))[:size]
	if ir.r.closed.Load() {
		return nil, ErrClosed
	}
	if _, err := ir.r.index.ReadAt(ir.buf, int64(ir.pos)); err != nil {
		return nil, fmt.Errorf("sstable: read %s at %d: %w", ir.r.name(ComponentIndex), ir.pos, err)
	}
	ir.st.IndexBytes += size
	ir.bufStart = ir.pos
	return ir.buf[:n], nil
}

// next returns the raw payload of the next entry (checked against its CRC)
// and its offset, or nil at the end.
func (ir *indexReader) next() (payload []byte, at uint64, err error) {
	if ir.pos >= ir.end {
		return nil, 0, nil
	}
	at = ir.pos
	name := ir.r.name(ComponentIndex)
	head, err := ir.ensure(min(binary.MaxVarintLen64, ir.end-ir.pos))
	if err != nil {
		return nil, 0, err
	}
	l, n := binary.Uvarint(head)
	if n <= 0 || l == 0 || l > ir.end-ir.pos {
		return nil, 0, corruptf(name, int64(at), "bad entry length")
	}
	total := uint64(n) + l + 4
	b, err := ir.ensure(total)
	if err != nil {
		return nil, 0, err
	}
	payload = b[n : uint64(n)+l]
	if got, want := crc32c(payload), binary.LittleEndian.Uint32(b[uint64(n)+l:]); got != want {
		return nil, 0, corruptf(name, int64(at), "entry checksum mismatch: computed %08x, stored %08x", got, want)
	}
	ir.pos += total
	ir.st.IndexEntries++
	return payload, at, nil
}

// entryKey decodes the key and token at the start of a payload.
func entryKey(payload []byte) (key []byte, token int64, rest int, ok bool) {
	l, n := binary.Uvarint(payload)
	if n <= 0 || l > uint64(len(payload)-n) {
		return nil, 0, 0, false
	}
	key = payload[n : n+int(l)]
	t, m := binary.Varint(payload[n+int(l):])
	if m <= 0 {
		return nil, 0, 0, false
	}
	return key, t, n + int(l) + m, true
}

// decodeEntry decodes a whole payload read at Index.db offset at. The
// entry's byte slices alias payload.
func (r *Reader) decodeEntry(payload []byte, at uint64) (indexEntry, error) {
	var e indexEntry
	err := r.decodeEntryInto(&e, payload, at)
	return e, err
}

// decodeEntryInto is decodeEntry into e, every field of which it sets (a
// scan decodes each entry into the same one, and an indexEntry is too
// large to return by value on that path). On error e is left zero.
func (r *Reader) decodeEntryInto(e *indexEntry, payload []byte, at uint64) error {
	if r.version == 1 {
		return r.decodeEntryV1(e, payload, at)
	}
	key, token, rest, ok := entryKey(payload)
	if !ok {
		*e = indexEntry{}
		return r.badEntryKey(payload, at)
	}
	return r.decodeEntryRest(e, payload, at, key, token, rest)
}

// badEntryKey returns the corruption error for an entry whose key or
// token does not decode, naming the field as a full decode does.
func (r *Reader) badEntryKey(payload []byte, at uint64) error {
	p := in{b: payload}
	p.bytes("key", true)
	p.varint("token")
	what := p.what
	if what == "" {
		what = "key"
	}
	return corruptf(r.name(ComponentIndex), int64(at), "bad %s", what)
}

// decodeEntryRest is decodeEntryInto (format version 2) for an entry whose
// key and token the caller has decoded (entryKey); rest is where the rest
// of payload starts.
func (r *Reader) decodeEntryRest(e *indexEntry, payload []byte, at uint64, key []byte, token int64, rest int) error {
	p := in{b: payload, off: rest}
	e.indexPos = at
	if len(key) == 0 {
		key = nil // as in.bytes decodes it
	}
	e.key, e.token = key[:len(key):len(key)], token
	e.pos = p.uvarint("position")
	e.length = p.uvarint("length")
	e.rowsOff = p.uvarint("rows offset")
	flags := p.byte1("entry flags")
	reserved := byte(entryFlagsReserved)
	if r.version == 2 {
		reserved = entryFlagsReservedV2
	}
	if flags&reserved != 0 || flags&(entryHasChunkMarks|entryHasRowIndex) == entryHasChunkMarks|entryHasRowIndex {
		p.fail("entry flags")
	}
	e.deletion = data.LiveDeletion
	if flags&entryHasDeletion != 0 {
		e.deletion = r.rows.deletion(&p, "deletion")
	}
	e.plainHeader = flags&entryPlainHeader != 0
	e.marks, e.nMarks = nil, 0
	if flags&entryHasChunkMarks != 0 && p.what == "" {
		e.marks, e.nMarks = decodeMarks(&p, e.rowsOff, e.length)
	}
	e.blockRaw, e.blockTable = nil, nil
	if flags&entryHasRowIndex != 0 {
		// The blocks are decoded on demand (block); check the offset table.
		n := p.uvarint("blocks")
		if p.what == "" && (n == 0 || n > uint64(len(payload)-p.off)/8) {
			p.fail("blocks")
		}
		if p.what == "" {
			e.blockRaw = payload
			e.blockTable = payload[len(payload)-4*int(n):]
			p.off = len(payload)
		}
	}
	if p.what == "" && p.off != len(payload) {
		p.fail("index entry length")
	}
	if p.what != "" {
		*e = indexEntry{}
		return corruptf(r.name(ComponentIndex), int64(at), "bad %s", p.what)
	}
	if e.pos+e.length > r.dataLen || e.length == 0 || e.rowsOff >= e.length {
		*e = indexEntry{}
		return corruptf(r.name(ComponentIndex), int64(at), "entry positions out of range")
	}
	e.indexFile = r.names[ComponentIndex]
	return nil
}

// decodeMarks reads and checks the chunk marks of an entry (flag 0x04) at
// p: at least one, each after the one before (the first after rowsOff)
// and before the partition's end byte at length-1. It returns their
// encoded distances, which mark decodes, and their number.
func decodeMarks(p *in, rowsOff, length uint64) ([]byte, int) {
	n := p.uvarint("chunk marks")
	if length == 0 || rowsOff+1 >= length {
		p.fail("chunk marks")
		return nil, 0
	}
	if p.what != "" || n == 0 || n > uint64(len(p.b)-p.off) {
		p.fail("chunk marks")
		return nil, 0
	}
	start := p.off
	prev := rowsOff
	for i := uint64(0); i < n; i++ {
		d := p.uvarint("chunk mark")
		if p.what != "" || d == 0 || d >= length-1-prev {
			p.fail("chunk mark")
			return nil, 0
		}
		prev += d
	}
	return p.b[start:p.off:p.off], int(n)
}

// markPositions appends to dst the chunk marks of e, relative to e.pos, in
// order (checked when e was decoded).
func (e *indexEntry) markPositions(dst []uint64) []uint64 {
	prev := e.rowsOff
	b := e.marks
	for i := 0; i < e.nMarks; i++ {
		d, n := binary.Uvarint(b)
		b = b[n:]
		prev += d
		dst = append(dst, prev)
	}
	return dst
}

// decodeEntryV1 is decodeEntryInto for format version 1.
func (r *Reader) decodeEntryV1(out *indexEntry, payload []byte, at uint64) error {
	d := &decoder{file: r.name(ComponentIndex), base: int64(at), Cursor: data.Cursor{Buf: payload}}
	e := indexEntry{indexPos: at}
	e.key = d.Bytes("key")
	e.token = d.Varint("token")
	e.pos = d.Uvarint("position")
	e.length = d.Uvarint("length")
	e.rowsOff = d.Uvarint("rows offset")
	e.deletion = data.DeletionTime{MarkedForDeleteAt: d.Varint("deletion"), LocalDeletionTime: d.Varint("deletion")}
	n := d.Count("blocks", 8)
	if n > 0 {
		// The blocks are decoded on demand (block); check the offset table.
		tableAt := len(payload) - 4*n
		if d.Err() == nil && tableAt < d.Off {
			d.Fail("block table")
		}
		e.blockRaw = payload
		e.blockTable = payload[max(tableAt, 0):]
		d.Off = len(payload)
	}
	if err := d.finish("index entry"); err != nil {
		*out = indexEntry{}
		return err
	}
	if e.pos+e.length > r.dataLen || e.length == 0 || e.rowsOff >= e.length {
		*out = indexEntry{}
		return corruptf(r.name(ComponentIndex), int64(at), "entry positions out of range")
	}
	e.indexFile = r.name(ComponentIndex)
	*out = e
	return nil
}

// summarySample returns the index of the last Summary.db sample at or
// before (token, key) (0 if none).
func (r *Reader) summarySample(token int64, key []byte) int {
	lo, hi := 0, len(r.summary) // the first sample after the key is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if e := &r.summary[m]; data.ComparePartitions(e.token, e.key, token, key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, 0)
}

// sampleSpan returns the Index.db range of the entries of sample i: from
// its position to the next sample's.
func (r *Reader) sampleSpan(i int) (start, end uint64) {
	start, end = headerSize, r.indexSize
	if len(r.summary) > 0 {
		start = r.summary[i].indexPos
		if i+1 < len(r.summary) {
			end = r.summary[i+1].indexPos
		}
	}
	return start, end
}

// Get looks up one partition: bloom filter, then the token range, then the
// summary, then Index.db, then Data.db for the partition header. found is
// false (with a nil error) when the SSTable does not hold the partition.
// The returned source is a *Partition.
func (r *Reader) Get(token int64, key []byte) (data.PartitionSource, bool, error) {
	p, found, err := r.GetPartition(token, key)
	if !found || err != nil {
		return nil, found, err
	}
	return p, true, nil
}

// pointRead is what a point read allocates, in one piece: the partition,
// its first row iterator and the chunk cursor they share.
type pointRead struct {
	p   Partition
	it  rowIter
	cur chunkCursor
	st  ReadStats // the lookup's
}

// GetPartition is Get returning the concrete *Partition, whose ReadStats
// tell what the lookup touched. The lookup is the summary, then the block
// cache's Index.db span of the key's sample (read and checked once), or
// the key cache when the span is not cached, then one chunk (cached too)
// for the partition header and first rows. Release gives the Partition's
// memory back once it is done with.
func (r *Reader) GetPartition(token int64, key []byte) (*Partition, bool, error) {
	if !r.filter.mayContain(HashKey(key)) {
		r.total.filterChecks.Add(1)
		r.total.filterNegatives.Add(1)
		return nil, false, nil
	}
	return r.getAdmitted(token, key)
}

// GetAdmitted is Get for a key that MayContain or MayContainHash has just
// admitted: the bloom filter is not probed again, and its check is counted
// as Get counts one that admits the key. A read that checks an SSTable's
// filter before it decides to open the SSTable probes it once.
func (r *Reader) GetAdmitted(token int64, key []byte) (data.PartitionSource, bool, error) {
	p, found, err := r.getAdmitted(token, key)
	if !found || err != nil {
		return nil, found, err
	}
	return p, true, nil
}

// getAdmitted is GetPartition past the bloom filter.
func (r *Reader) getAdmitted(token int64, key []byte) (*Partition, bool, error) {
	if r.stats.Partitions == 0 ||
		data.ComparePartitions(token, key, r.stats.FirstToken, r.stats.FirstKey) < 0 ||
		data.ComparePartitions(token, key, r.stats.LastToken, r.stats.LastKey) > 0 {
		r.total.filterChecks.Add(1)
		return nil, false, nil
	}
	pr := pointReadPool.Get().(*pointRead)
	bufs := pr.it.bufs // kept: see rowIter.bufs
	spare := pr.cur.spareBuffers()
	*pr = pointRead{}
	pr.it.bufs = bufs
	st := &pr.st
	st.FilterChecks++
	found, err := r.findEntry(token, key, &pr.p.e, st)
	if err == nil && found {
		r.initCursor(&pr.cur, nil, true)
		pr.cur.buf, pr.cur.own = spare, [2]bool{spare[0] != nil, spare[1] != nil}
		if e := &pr.p.e; e.plainHeader && (e.nMarks > 0 || e.numBlocks() > 0) {
			// The header holds nothing the entry lacks (format version
			// 3), and the rows cross chunks or have a row index: leave
			// its chunk unread until a row iterator needs it (a reverse
			// read starts in the last chunk or block, a slice in the
			// block that holds its start).
			pr.p.r, pr.p.stats = r, *st
		} else {
			err = r.loadPartition(&pr.p, &pr.cur, st)
		}
	}
	r.total.add(st)
	if err != nil || !found {
		pointReadPool.Put(pr)
		return nil, false, err
	}
	p := &pr.p
	p.cur, p.spare, p.home = &pr.cur, &pr.it, pr
	return p, true, nil
}

// pointReadPool recycles the memory of point reads (Partition.Release).
var pointReadPool = sync.Pool{New: func() any { return new(pointRead) }}

// Release gives the memory of a Partition returned by GetPartition (and of
// its first row iterator) back for reuse by later reads; it does nothing
// for other Partitions. The caller must have closed the Partition's row
// iterators, and must use neither the Partition, nor its iterators, nor
// the Row values they returned afterwards (the byte slices of keys, rows
// and cells, which alias immutable chunks, stay valid).
func (p *Partition) Release() {
	if pr := p.home; pr != nil {
		p.home = nil
		pointReadPool.Put(pr)
	}
}

// findEntry reads the index entry of (token, key) into e: from the block
// cache's span of the key's summary sample, loaded (every entry checked)
// on a miss, or, when the span is not cached (no block cache, or a span too
// large, as wide partitions' row indexes make them), by reading Index.db
// from the sample on. e's slices alias bytes nothing writes.
func (r *Reader) findEntry(token int64, key []byte, e *indexEntry, st *ReadStats) (bool, error) {
	i := r.summarySample(token, key)
	sp, ok := r.cache.span(r.cacheID, i)
	if !ok {
		if c, ok := r.cache.entry(r.cacheID, token, key); ok {
			*e = *c
			return true, nil
		}
		start, end := r.sampleSpan(i)
		var found bool
		var err error
		if r.cache.blocks == nil || end-start > maxSpanBytes {
			found, err = r.streamEntry(start, end, token, key, e, st)
		} else if sp, err = r.loadSpan(start, end, st); err == nil {
			r.cache.putSpan(r.cacheID, i, sp)
			found, err = sp.find(r, token, key, e)
		}
		if found && err == nil && r.cache.keys != nil {
			r.cache.putEntry(r.cacheID, e.detached())
		}
		return found, err
	}
	return sp.find(r, token, key, e)
}

// find looks (token, key) up in the span: a binary search on the tokens,
// then the keys of the entries sharing the token (Murmur3 collisions are
// rare).
func (sp *indexSpan) find(r *Reader, token int64, key []byte, e *indexEntry) (bool, error) {
	m := sort.Search(len(sp.ents), func(j int) bool { return sp.ents[j].token >= token })
	for ; m < len(sp.ents) && sp.ents[m].token == token; m++ {
		payload := sp.payload(m)
		k, t, _, ok := entryKey(payload)
		if !ok || t != token {
			return false, corruptf(r.name(ComponentIndex), int64(sp.at(m)), "bad entry key")
		}
		switch c := bytes.Compare(k, key); {
		case c < 0:
			continue
		case c > 0:
			return false, nil
		}
		var err error
		*e, err = r.decodeEntry(payload, sp.at(m))
		return err == nil, err
	}
	return false, nil
}

// maxSpanBytes bounds the Index.db spans the block cache keeps: a larger
// one (the row indexes of wide partitions) is read entry by entry.
const maxSpanBytes = 256 << 10

// indexSpan holds the Index.db entries of one Summary.db sample, each
// checked against its CRC once, as the block cache keeps them.
type indexSpan struct {
	start uint64 // Index.db offset of raw[0]
	raw   []byte
	ents  []spanEntry
}

// spanEntry locates one entry in indexSpan.raw: its token, the offset of
// its length prefix, of its payload, and the payload's length.
type spanEntry struct {
	token         int64
	frame, off, n uint32
}

func (sp *indexSpan) payload(i int) []byte {
	e := sp.ents[i]
	return sp.raw[e.off : e.off+e.n : e.off+e.n]
}

func (sp *indexSpan) at(i int) uint64 { return sp.start + uint64(sp.ents[i].frame) }

// loadSpan reads Index.db [start, end) and checks its entries.
func (r *Reader) loadSpan(start, end uint64, st *ReadStats) (*indexSpan, error) {
	name := r.name(ComponentIndex)
	if r.closed.Load() {
		return nil, ErrClosed
	}
	sp := &indexSpan{start: start, raw: make([]byte, end-start)}
	if _, err := r.index.ReadAt(sp.raw, int64(start)); err != nil {
		return nil, fmt.Errorf("sstable: read %s at %d: %w", name, start, err)
	}
	st.IndexBytes += end - start
	sp.ents = make([]spanEntry, 0, r.interval)
	for pos := uint64(0); pos < uint64(len(sp.raw)); {
		l, n := binary.Uvarint(sp.raw[pos:])
		if n <= 0 || l == 0 || l+4 > uint64(len(sp.raw))-pos-uint64(n) {
			return nil, corruptf(name, int64(start+pos), "bad entry length")
		}
		off := pos + uint64(n)
		payload := sp.raw[off : off+l]
		if got, want := crc32c(payload), binary.LittleEndian.Uint32(sp.raw[off+l:]); got != want {
			return nil, corruptf(name, int64(start+pos), "entry checksum mismatch: computed %08x, stored %08x", got, want)
		}
		_, t, _, ok := entryKey(payload)
		if !ok || len(sp.ents) > 0 && t < sp.ents[len(sp.ents)-1].token {
			return nil, corruptf(name, int64(start+pos), "bad entry key")
		}
		sp.ents = append(sp.ents, spanEntry{token: t, frame: uint32(pos), off: uint32(off), n: uint32(l)})
		st.IndexEntries++
		pos = off + l + 4
	}
	return sp, nil
}

// streamEntry reads the index entry of (token, key) into e from Index.db
// [start, end), entry by entry.
func (r *Reader) streamEntry(start, end uint64, token int64, key []byte, e *indexEntry, st *ReadStats) (bool, error) {
	bufp := indexPool.Get().(*[]byte)
	ir := &indexReader{r: r, pos: start, end: end, st: st, buf: (*bufp)[:0]}
	defer func() {
		*bufp = ir.buf
		indexPool.Put(bufp)
	}()
	for {
		payload, at, err := ir.next()
		if err != nil {
			return false, err
		}
		if payload == nil {
			return false, nil
		}
		k, t, _, ok := entryKey(payload)
		if !ok {
			return false, corruptf(r.name(ComponentIndex), int64(at), "bad entry key")
		}
		switch c := data.ComparePartitions(t, k, token, key); {
		case c < 0:
			continue
		case c > 0:
			return false, nil
		}
		// Copy the payload out of the pooled buffer: the entry aliases it
		// from now on, and may be cached.
		*e, err = r.decodeEntry(append([]byte(nil), payload...), at)
		return err == nil, err
	}
}

// Scan returns an iterator over the partitions whose tokens lie in tr, in
// token order. Its PartitionSources are *Partition values.
func (r *Reader) Scan(tr data.TokenRange) data.PartitionIterator {
	it := &scanIter{r: r, tr: tr}
	it.cur = r.newCursor(&it.st, false)
	start := uint64(headerSize)
	if i := sort.Search(len(r.summary), func(i int) bool { return r.summary[i].token >= tr.Start }) - 1; i >= 0 {
		start = r.summary[i].indexPos
	}
	it.ir = &indexReader{r: r, pos: start, end: r.indexSize, st: &it.st}
	return it
}

// ScanReuse is Scan for a caller that is done with each partition before it
// asks for the next one, and with each row before it asks for the next row,
// as a compaction is: the partition Next returns, its row iterator (one per
// partition), its key, static row and range tombstones are valid only until
// the next call to Next, and a row (with the bytes it references) only
// until the row iterator's next call to Next. The scan then recycles one
// Partition, one row iterator, their buffers and two chunk buffers for
// every partition, and the rows read through the scan's own chunk cursor,
// so that no chunk is decompressed twice and nothing is allocated per
// partition or chunk.
func (r *Reader) ScanReuse(tr data.TokenRange) data.PartitionIterator {
	it := r.Scan(tr).(*scanIter)
	it.reuse = true
	it.cur.recycle = true
	it.rows.keep = true
	it.rows.scanSt = &it.st
	return it
}

// ScanStream is ScanReuse over the whole ring for a compaction, which reads
// every partition in order: for format version 2 it reads the partition
// stream of Data.db alone, not Index.db. Each partition's key and
// deletion come from its header, its token from tokenOf (the table's
// partitioner), and its end from the byte that ends its records, found
// when its rows are read to the end (or, when they are not, by walking
// their lengths before the next partition). The index entries, their
// checksums and the header lookups through them, which were about a third
// of a narrow compaction's merge (bench/RESULTS.md, Run 21), are not read.
// Instead of the cross-checks between the index and the stream, the scan
// checks that the partitions come in strictly increasing (token, key)
// order and that their number is the one Statistics.db records; the chunks
// are checked against their CRCs as always. A partition's Size is 0 until
// its end is known. For format version 1, whose headers are read through
// the index, ScanStream is ScanReuse(data.FullRing).
func (r *Reader) ScanStream(tokenOf func(key []byte) int64) data.PartitionIterator {
	it := r.ScanReuse(data.FullRing).(*scanIter)
	if r.version >= 2 {
		it.stream, it.tokenOf = true, tokenOf
	}
	return it
}

// minHeaderWindow is the first number of stream bytes a streaming scan
// reads for a partition header, whose length only decoding it tells; the
// window doubles until the header fits, from this size again for each
// partition.
const minHeaderWindow = 128

type scanIter struct {
	r    *Reader
	tr   data.TokenRange
	ir   *indexReader
	cur  *chunkCursor
	st   ReadStats
	pst  ReadStats // the current partition's header read
	ost  ReadStats // NextOnlyRow's row read
	oraw []byte    // NextOnlyRecord's record, until decoded or the next call
	err  error
	done bool
	p    *Partition

	// noChunkStep turns NextOnlyRecord's one-step path (nextOnlyInChunk)
	// off: the tests' reference; chunkSteps counts the partitions that
	// path loaded.
	noChunkStep bool
	chunkSteps  int

	// With reuse (ScanReuse): the partition and its row iterator,
	// recycled from partition to partition.
	reuse bool
	part  Partition
	rows  rowIter
	hdr   headerBufs

	// With stream (ScanStream): the stream position of the next
	// partition, the partitions read so far and the last one's token and
	// key (a copy).
	stream  bool
	tokenOf func(key []byte) int64
	spos    uint64
	count   uint64
	lastTok int64
	lastKey []byte
}

// Next returns the next partition in range.
func (it *scanIter) Next() (data.PartitionSource, bool) {
	if it.done || it.err != nil {
		return nil, false
	}
	if it.stream {
		if err := it.nextStreamed(); err != nil {
			it.err = err
			return nil, false
		}
		if it.done {
			return nil, false
		}
		return it.p, true
	}
	for {
		payload, at, err := it.ir.next()
		if err != nil {
			it.err = err
			return nil, false
		}
		if payload == nil {
			it.done = true
			return nil, false
		}
		k, t, rest, ok := entryKey(payload)
		if !ok {
			it.err = corruptf(it.r.name(ComponentIndex), int64(at), "bad entry key")
			return nil, false
		}
		if t > it.tr.End {
			it.done = true
			return nil, false
		}
		if !it.tr.Contains(t) {
			continue
		}
		if it.reuse {
			if err := it.nextReused(payload, at, k, t, rest); err != nil {
				it.err = err
				return nil, false
			}
			return it.p, true
		}
		// Copy the payload: the index reader reuses its buffer.
		p := &Partition{r: it.r}
		p.e, err = it.r.decodeEntry(append([]byte(nil), payload...), at)
		if err != nil {
			it.err = err
			return nil, false
		}
		it.pst = ReadStats{}
		err = it.r.loadPartition(p, it.cur, &it.pst)
		it.st.Add(it.pst)
		if err != nil {
			it.err = err
			return nil, false
		}
		// The partition's rows start in the chunk just read: share it.
		p.cur = it.cur.share(nil)
		it.p = p
		return p, true
	}
}

// nextReused loads the partition of the index entry payload (at at) into
// the scan's recycled Partition.
func (it *scanIter) nextReused(payload []byte, at uint64, key []byte, token int64, rest int) error {
	if it.p != nil && !it.rows.closed && it.rows.p == it.p {
		_ = it.rows.Close() // the caller did not close it: count its reads
	}
	// The previous partition is done with: its static row and range
	// tombstones may be overwritten. The entry aliases the index reader's
	// buffer, which its next read overwrites: at the next call to Next,
	// when the partition is done with too.
	p := &it.part
	p.r, p.static, p.staticPos, p.rts, p.stats, p.cur, p.spare, p.home = it.r, nil, 0, nil, ReadStats{}, nil, nil, nil
	var err error
	if it.r.version == 1 {
		err = it.r.decodeEntryInto(&p.e, payload, at)
	} else {
		// The key and token are decoded already (Next).
		err = it.r.decodeEntryRest(&p.e, payload, at, key, token, rest)
	}
	if err != nil {
		return err
	}
	it.pst = ReadStats{}
	err = it.r.loadPartitionInto(p, it.cur, &it.pst, &it.hdr)
	it.st.Add(it.pst)
	if err != nil {
		return err
	}
	// The rows stream through the scan's cursor: they are read before the
	// next header, which then finds their last chunk in place.
	p.cur = it.cur
	p.spare = &it.rows
	it.p = p
	return nil
}

// nextStreamed moves a streaming scan to the partition after the current
// one and loads its header into the recycled Partition, or sets done at
// the end of the stream.
func (it *scanIter) nextStreamed() error {
	r := it.r
	if p := it.p; p != nil {
		if !it.rows.closed && it.rows.p == p {
			_ = it.rows.Close() // the caller did not close it: count its reads
		}
		if p.e.length == 0 {
			// Its rows were not read to the end: walk the rest.
			end, err := r.partitionEnd(it.cur, p.e.pos+p.e.rowsOff)
			if err != nil {
				return err
			}
			p.e.length = end - p.e.pos
		}
		it.spos = p.e.pos + p.e.length
	}
	if it.spos >= r.dataLen {
		it.done = true
		if it.count != r.stats.Partitions {
			return r.dataErr(it.spos, nil, "the stream holds %d partitions, %s says %d", it.count, r.name(ComponentStatistics), r.stats.Partitions)
		}
		return nil
	}
	p := &it.part
	p.r, p.static, p.staticPos, p.rts, p.stats, p.cur, p.spare, p.home = r, nil, 0, nil, ReadStats{}, nil, nil, nil
	p.e = indexEntry{pos: it.spos, indexFile: r.names[ComponentIndex]}
	it.pst = ReadStats{}
	prev := it.cur.st
	it.cur.st = &it.pst
	n, inPlace, err := it.headerInPlace(p)
	if err != nil {
		it.cur.st = prev
		return err
	}
	for win := uint64(minHeaderWindow); !inPlace; win *= 2 {
		end := min(it.spos+win, r.dataLen)
		buf, err := it.cur.readRange(it.hdr.raw[:0], it.spos, end)
		if err != nil {
			it.cur.st = prev
			return err
		}
		it.hdr.raw = buf
		n, err = p.decodeHeaderV2(buf, &it.hdr, true)
		if err == nil && n < len(buf) {
			break
		}
		if end == r.dataLen {
			// The header (or the byte that ends an empty partition)
			// does not fit in what is left of the stream.
			it.cur.st = prev
			if err == nil {
				err = r.dataErr(it.spos, nil, "partition header runs past the end of the stream")
			}
			return err
		}
	}
	it.cur.st = prev
	it.st.Add(it.pst)
	p.stats = it.pst
	e := &p.e
	e.rowsOff = uint64(n)
	e.token = it.tokenOf(e.key)
	if it.count > 0 && data.ComparePartitions(it.lastTok, it.lastKey, e.token, e.key) >= 0 {
		return r.dataErr(e.pos, nil, "partition (%d, %x) does not follow (%d, %x)", e.token, e.key, it.lastTok, it.lastKey)
	}
	it.count++
	it.lastTok, it.lastKey = e.token, append(it.lastKey[:0], e.key...)
	p.cur = it.cur
	p.spare = &it.rows
	it.p = p
	return nil
}

// headerInPlace decodes the header of the partition at it.spos into p from
// the chunk that holds its start, without copying the chunk's bytes, when
// the header (and the byte after it) lies in that chunk and holds neither
// a static row nor range tombstones, which would alias the chunk. The key
// is then copied into the scan's header buffer: a later chunk read of the
// partition's rows may overwrite the chunk (ScanReuse's recycling cursor).
// ok false (with a nil error) means the header is to be read through the
// copying window instead; p's header fields are then reset.
func (it *scanIter) headerInPlace(p *Partition) (n int, ok bool, err error) {
	r := it.r
	i := int(it.spos >> r.chunkShift)
	c, err := it.cur.chunk(i)
	if err != nil {
		return 0, false, err
	}
	off := it.spos - uint64(i)*r.chunkLen
	if off >= uint64(len(c)) {
		return 0, false, nil
	}
	buf := c[off:]
	n, err = p.decodeHeaderV2(buf, &it.hdr, true)
	if err != nil || n >= len(buf) || p.static != nil || p.rts != nil {
		p.static, p.staticPos, p.rts = nil, 0, nil
		p.e.key, p.e.deletion = nil, data.LiveDeletion
		return 0, false, nil
	}
	it.hdr.raw = append(it.hdr.raw[:0], p.e.key...)
	p.e.key = it.hdr.raw[:len(p.e.key):len(p.e.key)]
	return n, true, nil
}

// partitionEnd walks the row records of a partition from stream position
// from (a record's start) to the byte that ends them, and returns the
// position after it.
func (r *Reader) partitionEnd(cur *chunkCursor, from uint64) (uint64, error) {
	var tmp [binary.MaxVarintLen64]byte
	for pos := from; pos < r.dataLen; {
		b, err := cur.readRange(tmp[:0], pos, min(pos+binary.MaxVarintLen64, r.dataLen))
		if err != nil {
			return 0, err
		}
		l, n := binary.Uvarint(b)
		if n <= 0 || l > r.dataLen-pos-uint64(n) {
			return 0, r.dataErr(pos, nil, "bad row record length")
		}
		if l == 0 {
			if n != 1 {
				return 0, r.dataErr(pos, nil, "bad row record length")
			}
			return pos + 1, nil
		}
		pos += uint64(n) + l
	}
	return 0, r.dataErr(r.dataLen, nil, "partition runs past the end of the stream")
}

// Err returns the first error met.
func (it *scanIter) Err() error { return it.err }

// Close ends the scan and adds what it read to the Reader's ReadStats.
func (it *scanIter) Close() error {
	if !it.done {
		it.done = true
	}
	it.r.total.add(&it.st)
	it.st = ReadStats{}
	return nil
}

// detached returns a copy of e on the heap whose byte slices are its own,
// so that a key cache entry does not keep the span it came from alive.
func (e *indexEntry) detached() *indexEntry {
	c := new(indexEntry)
	*c = *e
	b := make([]byte, 0, len(e.key)+len(e.blockRaw))
	b = append(b, e.key...)
	b = append(b, e.blockRaw...)
	c.key = b[:len(e.key):len(e.key)]
	if e.marks != nil {
		c.marks = append([]byte(nil), e.marks...)
	}
	if e.blockRaw != nil {
		c.blockRaw = b[len(e.key):]
		c.blockTable = c.blockRaw[len(c.blockRaw)-len(e.blockTable):]
	}
	return c
}

// numBlocks returns the number of row-index blocks.
func (e *indexEntry) numBlocks() int { return len(e.blockTable) / 4 }

// block decodes row-index block i.
func (e *indexEntry) block(i int) (blockInfo, error) {
	off := binary.LittleEndian.Uint32(e.blockTable[4*i:])
	limit := len(e.blockRaw) - len(e.blockTable)
	if uint64(off) >= uint64(limit) {
		return blockInfo{}, corruptf(e.indexFile, int64(e.indexPos), "block %d offset out of range", i)
	}
	d := &decoder{file: e.indexFile, base: int64(e.indexPos), Cursor: data.Cursor{Buf: e.blockRaw[:limit], Off: int(off)}}
	var b blockInfo
	b.First = d.Bytes("block first clustering")
	b.Last = d.Bytes("block last clustering")
	b.Offset = d.Uvarint("block offset")
	b.Length = d.Uvarint("block length")
	if d.Err() != nil {
		return blockInfo{}, d.Err()
	}
	if b.Offset < e.rowsOff || b.Length == 0 || b.Offset+b.Length > e.length-1 || bytes.Compare(b.First, b.Last) > 0 {
		return blockInfo{}, corruptf(e.indexFile, int64(e.indexPos), "block %d positions out of range", i)
	}
	return b, nil
}
