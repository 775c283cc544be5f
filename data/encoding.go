package data

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrCorrupt is returned (wrapped) when encoded rows or mutations cannot be
// decoded.
var ErrCorrupt = errors.New("data: corrupt encoding")

// Binary encoding of rows and mutations, shared by the commit log (mutation
// payloads) and the SSTable data file (rows). All integers are varints
// (encoding/binary: signed values zig-zag, unsigned plain); byte strings are
// a uvarint length followed by the bytes; an optional byte string (cell path,
// cell value, range bound) stores length+1, with 0 meaning nil. These
// layouts are part of the on-disk formats: change them only with a new
// format version.
//
//	deletion  := varint(markedForDeleteAt) varint(localDeletionTime)
//	liveness  := varint(timestamp) uvarint(ttl) varint(expiresAt)
//	cell      := bytes(column) optbytes(path) kind:byte varint(timestamp)
//	             uvarint(ttl) varint(localDeletionTime) optbytes(value)
//	row       := bytes(clustering) liveness deletion
//	             uvarint(n) n*(bytes(column) deletion)   -- column deletions
//	             uvarint(n) n*cell
//	rangetomb := optbytes(start) optbytes(end) deletion
//	mutation  := version:byte(1) table:16 bytes(key) deletion
//	             uvarint(n) n*rangetomb  hasStatic:byte [row]  uvarint(n) n*row
//
// Worked example: the cell {Column "v", Kind regular, Timestamp 5, TTL 0,
// LocalDeletionTime NoDeletionTime, Value 0x0000002a} encodes as
//
//	01 76                        column "v"
//	00                           path nil
//	00                           kind regular
//	0a                           timestamp 5 (zig-zag)
//	00                           ttl 0
//	fe ff ff ff ff ff ff ff ff 01  localDeletionTime MaxInt64 (zig-zag)
//	05 00 00 00 2a               value, length 4 (+1)

// MutationFormatVersion is the version byte at the start of an encoded
// mutation.
const MutationFormatVersion = 1

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendOptBytes(b, s []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

// AppendDeletion appends the encoding of d to b.
func AppendDeletion(b []byte, d DeletionTime) []byte {
	b = binary.AppendVarint(b, d.MarkedForDeleteAt)
	return binary.AppendVarint(b, d.LocalDeletionTime)
}

// AppendCell appends the encoding of c to b.
func AppendCell(b []byte, c *Cell) []byte {
	b = appendBytes(b, []byte(c.Column))
	b = appendOptBytes(b, c.Path)
	b = append(b, byte(c.Kind))
	b = binary.AppendVarint(b, c.Timestamp)
	b = binary.AppendUvarint(b, uint64(uint32(c.TTL)))
	b = binary.AppendVarint(b, c.LocalDeletionTime)
	return appendOptBytes(b, c.Value)
}

// AppendRow appends the encoding of r to b.
func AppendRow(b []byte, r *Row) []byte {
	b = appendBytes(b, r.Clustering)
	b = binary.AppendVarint(b, r.Liveness.Timestamp)
	b = binary.AppendUvarint(b, uint64(uint32(r.Liveness.TTL)))
	b = binary.AppendVarint(b, r.Liveness.ExpiresAt)
	b = AppendDeletion(b, r.Deletion)
	b = binary.AppendUvarint(b, uint64(len(r.ColumnDeletions)))
	for _, cd := range r.ColumnDeletions {
		b = appendBytes(b, []byte(cd.Column))
		b = AppendDeletion(b, cd.Deletion)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Cells)))
	for i := range r.Cells {
		b = AppendCell(b, &r.Cells[i])
	}
	return b
}

// AppendRangeTombstone appends the encoding of rt to b.
func AppendRangeTombstone(b []byte, rt *RangeTombstone) []byte {
	b = appendOptBytes(b, rt.Start)
	b = appendOptBytes(b, rt.End)
	return AppendDeletion(b, rt.Deletion)
}

// AppendMutation appends the encoding of m to b.
func AppendMutation(b []byte, m *Mutation) []byte {
	b = append(b, MutationFormatVersion)
	b = append(b, m.Table[:]...)
	b = appendBytes(b, m.Key)
	b = AppendDeletion(b, m.PartitionDeletion)
	b = binary.AppendUvarint(b, uint64(len(m.RangeTombstones)))
	for i := range m.RangeTombstones {
		b = AppendRangeTombstone(b, &m.RangeTombstones[i])
	}
	if m.Static != nil {
		b = append(b, 1)
		b = AppendRow(b, m.Static)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Rows)))
	for i := range m.Rows {
		b = AppendRow(b, &m.Rows[i])
	}
	return b
}

// Decoder reads the encodings above from a byte slice. Decoded byte slices
// alias the input; copy them if the input is reused. The first error is kept
// and every later read returns zero values.
type Decoder struct {
	buf []byte
	off int
	err error
}

// NewDecoder returns a Decoder reading b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Err returns the first decoding error, or nil.
func (d *Decoder) Err() error { return d.err }

// Remaining returns the number of bytes not yet read.
func (d *Decoder) Remaining() int { return len(d.buf) - d.off }

// Offset returns the number of bytes read so far.
func (d *Decoder) Offset() int { return d.off }

func (d *Decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s at offset %d", ErrCorrupt, what, d.off)
	}
}

func (d *Decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.off += n
	return v
}

func (d *Decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf[d.off:])
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.off += n
	return v
}

func (d *Decoder) byte1(what string) byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.buf) {
		d.fail(what)
		return 0
	}
	c := d.buf[d.off]
	d.off++
	return c
}

func (d *Decoder) raw(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.buf)-d.off) {
		d.fail(what)
		return nil
	}
	s := d.buf[d.off : d.off+int(n) : d.off+int(n)]
	d.off += int(n)
	return s
}

// bytes reads a length-prefixed byte string; an empty string decodes as nil.
func (d *Decoder) bytes(what string) []byte {
	n := d.uvarint(what)
	if n == 0 {
		return nil
	}
	return d.raw(n, what)
}

func (d *Decoder) optBytes(what string) []byte {
	n := d.uvarint(what)
	if n == 0 || d.err != nil {
		return nil
	}
	if n == 1 {
		return []byte{} // present but empty: not the same as nil (null)
	}
	return d.raw(n-1, what)
}

func (d *Decoder) count(what string, minSize int) int {
	n := d.uvarint(what)
	if d.err == nil && n > uint64(d.Remaining()/minSize) {
		d.fail(what)
		return 0
	}
	return int(n)
}

func (d *Decoder) ttl(what string) int32 {
	v := d.uvarint(what)
	if v > MaxTTL {
		d.fail(what)
		return 0
	}
	return int32(v)
}

// Deletion decodes a DeletionTime.
func (d *Decoder) Deletion() DeletionTime {
	return DeletionTime{MarkedForDeleteAt: d.varint("deletion"), LocalDeletionTime: d.varint("deletion")}
}

// Cell decodes a cell into c.
func (d *Decoder) Cell(c *Cell) {
	c.Column = string(d.bytes("cell column"))
	c.Path = d.optBytes("cell path")
	c.Kind = CellKind(d.byte1("cell kind"))
	if c.Kind > CellCounter {
		d.fail("cell kind")
	}
	c.Timestamp = d.varint("cell timestamp")
	c.TTL = d.ttl("cell ttl")
	c.LocalDeletionTime = d.varint("cell deletion time")
	c.Value = d.optBytes("cell value")
}

// Row decodes a row.
func (d *Decoder) Row() Row {
	var r Row
	r.Clustering = d.bytes("clustering")
	r.Liveness.Timestamp = d.varint("liveness")
	r.Liveness.TTL = d.ttl("liveness ttl")
	r.Liveness.ExpiresAt = d.varint("liveness")
	r.Deletion = d.Deletion()
	if n := d.count("column deletions", 3); n > 0 {
		r.ColumnDeletions = make([]ColumnDeletion, n)
		for i := range r.ColumnDeletions {
			r.ColumnDeletions[i].Column = string(d.bytes("column deletion"))
			r.ColumnDeletions[i].Deletion = d.Deletion()
		}
	}
	if n := d.count("cells", 7); n > 0 {
		r.Cells = make([]Cell, n)
		for i := range r.Cells {
			d.Cell(&r.Cells[i])
		}
	}
	return r
}

// RangeTombstone decodes a range tombstone.
func (d *Decoder) RangeTombstone() RangeTombstone {
	return RangeTombstone{Start: d.optBytes("range start"), End: d.optBytes("range end"), Deletion: d.Deletion()}
}

// DecodeMutation decodes a mutation encoded by AppendMutation. The result
// aliases b.
func DecodeMutation(b []byte) (*Mutation, error) {
	d := NewDecoder(b)
	if v := d.byte1("version"); d.err == nil && v != MutationFormatVersion {
		return nil, fmt.Errorf("%w: unknown mutation format version %d", ErrCorrupt, v)
	}
	m := &Mutation{}
	copy(m.Table[:], d.raw(16, "table id"))
	m.Key = d.bytes("partition key")
	m.PartitionDeletion = d.Deletion()
	if n := d.count("range tombstones", 4); n > 0 {
		m.RangeTombstones = make([]RangeTombstone, n)
		for i := range m.RangeTombstones {
			m.RangeTombstones[i] = d.RangeTombstone()
		}
	}
	if d.byte1("static flag") == 1 {
		r := d.Row()
		m.Static = &r
	}
	if n := d.count("rows", 8); n > 0 {
		m.Rows = make([]Row, n)
		for i := range m.Rows {
			m.Rows[i] = d.Row()
		}
	}
	if d.err == nil && d.Remaining() != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return m, nil
}
