package memtable

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/minicass/minicass/data"
)

// Rows are stored in a memtable's arena in a compact encoding of their own,
// private to the memtable (never written to disk, so it may change freely).
// It leaves out the values most rows hold: no TTL, no expiry, no deletion,
// and cell timestamps equal to the row's liveness timestamp. Integers are
// encoding/binary varints (signed ones zig-zag); bytes(x) is a uvarint length
// and the bytes.
//
//	row   := optbytes(clustering) flags:byte
//	         [varint(liveness.Timestamp)]                  -- rowLiveTS
//	         [varint(liveness.TTL) varint(liveness.ExpiresAt)] -- rowLiveTTL
//	         [varint(markedForDeleteAt) varint(localDeletionTime)] -- rowDeleted
//	         [uvarint(n) n*(bytes(column) varint(mfda) varint(ldt))] -- rowColDels
//	         uvarint(cells) cells*cell
//	cell  := head:byte bytes(column) [bytes(path)] varint(timestamp - base)
//	         [varint(ttl)] [varint(localDeletionTime)] [bytes(value)]
//
// optbytes(x) is 0 for nil and len+1 otherwise, so that the clustering, which
// comes first, can be compared without decoding the rest (rowClustering).
// A cell's head holds its kind in the low two bits and cellPath, cellTTL,
// cellLDT and cellValue for the optional parts; base is the row's liveness
// timestamp, or 0 if it has none. A narrow row of one 16-byte value, a
// one-byte clustering and a microsecond-clock timestamp encodes in 33 bytes
// (8 of them the timestamp), where data.Row and data.Cell take 208 bytes of
// structs before any of their bytes.
//
// Decoding allocates nothing: the clustering, paths and values alias the
// encoded bytes, and column names are strings over them (unsafe.String),
// which is safe because the arena's bytes never change once written.
const (
	rowLiveTS  = 1 << 0
	rowLiveTTL = 1 << 1
	rowDeleted = 1 << 2
	rowColDels = 1 << 3

	cellKindMask = 3
	cellPath     = 1 << 2
	cellTTL      = 1 << 3
	cellLDT      = 1 << 4
	cellValue    = 1 << 5
)

func appendRowBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeRow appends the memtable encoding of r to b.
func encodeRow(b []byte, r *data.Row) []byte {
	if r.Clustering == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(r.Clustering))+1)
		b = append(b, r.Clustering...)
	}
	var flags byte
	if r.Liveness.Timestamp != data.NoTimestamp {
		flags |= rowLiveTS
	}
	if r.Liveness.TTL != 0 || r.Liveness.ExpiresAt != data.NoDeletionTime {
		flags |= rowLiveTTL
	}
	if r.Deletion != data.LiveDeletion {
		flags |= rowDeleted
	}
	if r.ColumnDeletions != nil {
		flags |= rowColDels
	}
	b = append(b, flags)
	base := int64(0)
	if flags&rowLiveTS != 0 {
		b = binary.AppendVarint(b, r.Liveness.Timestamp)
		base = r.Liveness.Timestamp
	}
	if flags&rowLiveTTL != 0 {
		b = binary.AppendVarint(b, int64(r.Liveness.TTL))
		b = binary.AppendVarint(b, r.Liveness.ExpiresAt)
	}
	if flags&rowDeleted != 0 {
		b = binary.AppendVarint(b, r.Deletion.MarkedForDeleteAt)
		b = binary.AppendVarint(b, r.Deletion.LocalDeletionTime)
	}
	if flags&rowColDels != 0 {
		b = binary.AppendUvarint(b, uint64(len(r.ColumnDeletions)))
		for i := range r.ColumnDeletions {
			cd := &r.ColumnDeletions[i]
			b = appendRowBytes(b, unsafe.Slice(unsafe.StringData(cd.Column), len(cd.Column)))
			b = binary.AppendVarint(b, cd.Deletion.MarkedForDeleteAt)
			b = binary.AppendVarint(b, cd.Deletion.LocalDeletionTime)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(r.Cells)))
	for i := range r.Cells {
		c := &r.Cells[i]
		head := byte(c.Kind) & cellKindMask
		if c.Path != nil {
			head |= cellPath
		}
		if c.TTL != 0 {
			head |= cellTTL
		}
		if c.LocalDeletionTime != data.NoDeletionTime {
			head |= cellLDT
		}
		if c.Value != nil {
			head |= cellValue
		}
		b = append(b, head)
		b = appendRowBytes(b, unsafe.Slice(unsafe.StringData(c.Column), len(c.Column)))
		if head&cellPath != 0 {
			b = appendRowBytes(b, c.Path)
		}
		b = binary.AppendVarint(b, c.Timestamp-base)
		if head&cellTTL != 0 {
			b = binary.AppendVarint(b, int64(c.TTL))
		}
		if head&cellLDT != 0 {
			b = binary.AppendVarint(b, c.LocalDeletionTime)
		}
		if head&cellValue != 0 {
			b = appendRowBytes(b, c.Value)
		}
	}
	return b
}

// rowClustering returns the clustering of the encoded row b.
func rowClustering(b []byte) []byte {
	n, w := uint64(b[0]), 1
	if n >= 0x80 { // a clustering of 127 bytes or more
		n, w = binary.Uvarint(b)
	}
	if n == 0 {
		return nil
	}
	return b[w : w+int(n)-1 : w+int(n)-1]
}

// rowItem is an item of a partition's row B-tree: an encoded row in the
// arena, with the first eight bytes of its clustering and the clustering's
// length kept inline, so that most comparisons (lessItem) read neither the
// row nor its clustering's uvarint length. It takes the 24 bytes of the
// slice header it stands for, and holds no pointer the collector sees
// (rowRef): the B-tree's item arrays are memory it does not scan.
type rowItem struct {
	// row and n are the encoded row (never empty). Use bytes.
	row rowRef
	n   uint32
	// ckLen is the clustering's length. Like n it fits 32 bits: the
	// engine refuses mutations over 16 MiB (engine.MaxMutationSize).
	ckLen uint32
	// prefix is the clustering's first eight bytes, big-endian, padded
	// with zeros when it is shorter.
	prefix uint64
}

// makeRowItem returns the item of the encoded row b, whose clustering is
// ck (rowClustering(b), or bytes equal to it).
func makeRowItem(b, ck []byte) rowItem {
	return rowItem{row: rowRef(uintptr(unsafe.Pointer(&b[0]))), n: uint32(len(b)), ckLen: uint32(len(ck)), prefix: clusteringPrefix(ck)}
}

// rowRef is a row item's reference to its encoded row: the row's address
// as a plain word, which the collector does not follow, as pref is for
// partitions. A wide partition's row B-tree held one pointer per row, and
// the collector looked each up in every cycle.
//
// This is sound because the rows live in the arena of their partition's
// shard, which keeps every chunk and every allocation outside chunks for
// as long as the memtable lives, and whoever holds a row B-tree holds that
// arena too: the partition (its partitionMore's arena), a snapshot of it
// (snapshot.keep) and a row iterator over it (rowIter.keep). The
// collector does not move heap objects, so the address stays valid; an item
// never refers to a stack, which can move: rows are arena bytes, and a
// seek key (setPivot) lies in its walk's heap-allocated treeWalk, which
// keeps it alive while the tree compares it. The rows a reader is handed
// (bytes) are real slices, which keep their chunk alive by themselves.
type rowRef uintptr

// bytes returns the encoded row.
func (it rowItem) bytes() []byte {
	// The word read as a pointer: a conversion of *rowRef to **byte
	// (both one word), which go vet and checkptr accept where a
	// uintptr-to-Pointer conversion would not be.
	return unsafe.Slice(*(**byte)(unsafe.Pointer(&it.row)), it.n)
}

// encodedRowItem returns the item of the encoded row b.
func encodedRowItem(b []byte) rowItem { return makeRowItem(b, rowClustering(b)) }

// clusteringPrefix returns ck's first eight bytes as a big-endian
// integer, padded with zeros.
func clusteringPrefix(ck []byte) uint64 {
	if len(ck) >= 8 {
		return binary.BigEndian.Uint64(ck)
	}
	var p uint64
	for i := 0; i < 8; i++ {
		p <<= 8
		if i < len(ck) {
			p |= uint64(ck[i])
		}
	}
	return p
}

// lessItem is the order of a partition's row B-tree: a's clustering sorts
// before b's by bytes.Compare. It is exactly that order, without reading
// the rows unless the clusterings share their first eight bytes and both
// are longer. With zero padding, a difference within the first eight
// bytes is decided by the prefixes: at the first differing byte either
// both clusterings have a real byte, or the shorter has ended (padded
// with a zero, where the longer has a byte above zero) and is a prefix of
// the longer, so it sorts first as bytes.Compare has it. Equal prefixes
// with one clustering of at most eight bytes make the shorter a prefix of
// the longer (the padding equals the longer's bytes): the lengths decide.
func lessItem(a, b rowItem) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	if a.ckLen <= 8 || b.ckLen <= 8 {
		return a.ckLen < b.ckLen
	}
	return bytes.Compare(rowClustering(a.bytes())[8:], rowClustering(b.bytes())[8:]) < 0
}

// rowDecoder reads the fields of an encoded row in order. The encoding is
// the memtable's own, always well formed: a bug, not bad input, would make
// it read out of range (and panic).
type rowDecoder struct {
	b []byte
}

func (d *rowDecoder) uvarint() uint64 {
	if c := d.b[0]; c < 0x80 {
		d.b = d.b[1:]
		return uint64(c)
	}
	v, n := binary.Uvarint(d.b)
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) varint() int64 {
	if c := d.b[0]; c < 0x80 {
		d.b = d.b[1:]
		return int64(c>>1) ^ -int64(c&1)
	}
	v, n := binary.Varint(d.b)
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) bytes() []byte {
	n := int(d.uvarint())
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *rowDecoder) str() string {
	s := d.bytes()
	if len(s) == 0 {
		return ""
	}
	return unsafe.String(&s[0], len(s))
}

// RowDecoder decodes the encoded rows that a snapshot's row iterator's
// NextEncoded returns (or copies of them).
// Its zero value is ready; it is not safe for concurrent use. Decode
// keeps a column name of the row it decoded last when the next row names
// the same column (a string over the last row's bytes): the bytes of the
// rows it decodes must not change while it is in use, which the
// memtable's never do; a caller that decodes copies and reuses their
// buffer takes a new decoder after each reuse.
type RowDecoder struct {
	row      data.Row
	cellsArr [2]data.Cell
	plain    PlainRow
}

// Decode decodes enc, an encoded row from NextEncoded, into the decoder's
// row: the row Rows would return for it, valid until the next Decode. The
// bytes the row references are the memtable's.
func (d *RowDecoder) Decode(enc []byte) *data.Row {
	if d.row.Cells == nil {
		d.row.Cells = d.cellsArr[:0]
	}
	decodeRow(enc, &d.row)
	return &d.row
}

// PlainRow is a row of the shape most writes make (an INSERT or UPDATE
// without TTL), as DecodePlain returns it: a liveness timestamp without
// TTL or expiry, no row or column deletion, and only regular cells
// without path, TTL or local deletion time, each written at the row's
// timestamp. Cell i names column Columns[i] and holds value Values[i]
// (nil for none). A flush writes such a row to an SSTable from these
// fields (sstable's Writer.AddPlainNarrowPartition), without the data.Row
// that Decode fills: the cells' timestamps, TTLs, local deletion times,
// kinds and paths, which a plain row does not need, are neither decoded
// nor encoded again.
type PlainRow struct {
	Clustering []byte
	Timestamp  int64
	Columns    []string
	Values     [][]byte
}

// Size returns the data.Row.Size of the row p stands for.
func (p *PlainRow) Size() int {
	n := 96 + len(p.Clustering) + 88*len(p.Values)
	for _, v := range p.Values {
		n += len(v)
	}
	return n
}

// DecodePlain decodes enc, an encoded row from NextEncoded, into the
// decoder's PlainRow when the row is plain (see PlainRow) and reports
// whether it was; a row that is not is left for Decode. The row is valid
// until the next DecodePlain, and its bytes, column names included, are
// enc's. In the encoding a plain row is flags rowLiveTS alone and cells
// whose head is at most cellValue and whose timestamp delta is 0.
func (d *RowDecoder) DecodePlain(enc []byte) (*PlainRow, bool) {
	r := rowDecoder{b: enc}
	ck := []byte(nil)
	if n := r.uvarint(); n > 0 {
		ck = r.b[: n-1 : n-1]
		r.b = r.b[n-1:]
	}
	if r.b[0] != rowLiveTS {
		return nil, false
	}
	r.b = r.b[1:]
	ts := r.varint()
	n := int(r.uvarint())
	p := &d.plain
	if cap(p.Columns) < n {
		p.Columns, p.Values = make([]string, n), make([][]byte, n)
	}
	cols, vals := p.Columns[:n], p.Values[:n]
	for i := range cols {
		head := r.b[0]
		if head&^cellValue != 0 {
			return nil, false
		}
		r.b = r.b[1:]
		// Unlike decodeRow, the name is always set: it is a string over
		// enc, never over an earlier row's bytes.
		cols[i] = r.str()
		if r.b[0] != 0 { // the timestamp delta: not the row's timestamp
			return nil, false
		}
		r.b = r.b[1:]
		if head&cellValue != 0 {
			vals[i] = r.bytes()
		} else if vals[i] != nil {
			vals[i] = nil
		}
	}
	p.Clustering, p.Timestamp, p.Columns, p.Values = ck, ts, cols, vals
	return p, true
}

// decodeRow decodes the encoded row b into r, reusing r's Cells and
// ColumnDeletions arrays when they are large enough. The row's bytes alias
// b. r usually lives in the heap (a snapshot's iterator): fields are
// written one by one, not as whole structs, which would cost a bulk write
// barrier per struct while the collector marks.
func decodeRow(b []byte, r *data.Row) {
	d := rowDecoder{b: b}
	cells, cds := r.Cells[:0], r.ColumnDeletions[:0]
	r.Clustering = nil
	if n := d.uvarint(); n > 0 {
		r.Clustering = d.b[: n-1 : n-1]
		d.b = d.b[n-1:]
	}
	flags := d.b[0]
	d.b = d.b[1:]
	r.Liveness = data.EmptyLiveness
	r.Deletion = data.LiveDeletion
	base := int64(0)
	if flags&rowLiveTS != 0 {
		r.Liveness.Timestamp = d.varint()
		base = r.Liveness.Timestamp
	}
	if flags&rowLiveTTL != 0 {
		r.Liveness.TTL = int32(d.varint())
		r.Liveness.ExpiresAt = d.varint()
	}
	if flags&rowDeleted != 0 {
		r.Deletion.MarkedForDeleteAt = d.varint()
		r.Deletion.LocalDeletionTime = d.varint()
	}
	if r.ColumnDeletions != nil {
		r.ColumnDeletions = nil
	}
	if flags&rowColDels != 0 {
		n := int(d.uvarint())
		if cds == nil {
			cds = make([]data.ColumnDeletion, 0, n)
		}
		for i := 0; i < n; i++ {
			col := d.str()
			mfda := d.varint()
			cds = append(cds, data.ColumnDeletion{Column: col,
				Deletion: data.DeletionTime{MarkedForDeleteAt: mfda, LocalDeletionTime: d.varint()}})
		}
		r.ColumnDeletions = cds
	}
	n := int(d.uvarint())
	if n == 0 {
		r.Cells = nil
		return
	}
	if cap(cells) < n {
		cells = make([]data.Cell, n)
	}
	cells = cells[:n]
	for i := range cells {
		c := &cells[i]
		head := d.b[0]
		d.b = d.b[1:]
		c.Kind = data.CellKind(head & cellKindMask)
		// Rows of a partition mostly name the same columns in the same
		// order: a name equal to the one already in place (from the
		// previous row, in another part of the arena, which never
		// changes) is kept, saving the pointer write.
		if col := d.str(); c.Column != col {
			c.Column = col
		}
		// Pointer fields are cleared only when set: every pointer
		// write costs a write barrier while the collector marks.
		if head&cellPath != 0 {
			c.Path = d.bytes()
		} else if c.Path != nil {
			c.Path = nil
		}
		c.Timestamp = d.varint() + base
		c.TTL = 0
		if head&cellTTL != 0 {
			c.TTL = int32(d.varint())
		}
		c.LocalDeletionTime = data.NoDeletionTime
		if head&cellLDT != 0 {
			c.LocalDeletionTime = d.varint()
		}
		if head&cellValue != 0 {
			c.Value = d.bytes()
		} else if c.Value != nil {
			c.Value = nil
		}
	}
	r.Cells = cells
}
