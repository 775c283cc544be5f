package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
//	group     := version:byte(2) uvarint(n) n*bytes(mutation)
//
// The engine writes mutations to the commit log in the compact encoding
// of mutation_compact.go (version 3); version 1 is still read.
//
// A group is one commit-log record holding several mutations, of
// different tables, that are applied together: a base-table write and
// the derived-table mutations (index entries, view rows) it caused.
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

// MutationGroupFormatVersion is the version byte at the start of an
// encoded mutation group (AppendMutationGroup).
const MutationGroupFormatVersion = 2

// varintMin and varintMax are the encodings of math.MinInt64 and
// math.MaxInt64 (ten bytes each), which every live deletion and every
// value without expiry or deletion time carries: appendVarint copies them
// instead of encoding them byte by byte.
var (
	varintMin = binary.AppendVarint(nil, math.MinInt64)
	varintMax = binary.AppendVarint(nil, math.MaxInt64)
)

// appendVarint is binary.AppendVarint with the two extreme values copied.
func appendVarint(b []byte, v int64) []byte {
	switch v {
	case math.MaxInt64:
		return append(b, varintMax...)
	case math.MinInt64:
		return append(b, varintMin...)
	}
	return binary.AppendVarint(b, v)
}

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
	b = appendVarint(b, d.MarkedForDeleteAt)
	return appendVarint(b, d.LocalDeletionTime)
}

// AppendCell appends the encoding of c to b.
func AppendCell(b []byte, c *Cell) []byte {
	b = appendBytes(b, []byte(c.Column))
	b = appendOptBytes(b, c.Path)
	b = append(b, byte(c.Kind))
	b = appendVarint(b, c.Timestamp)
	b = binary.AppendUvarint(b, uint64(uint32(c.TTL)))
	b = appendVarint(b, c.LocalDeletionTime)
	return appendOptBytes(b, c.Value)
}

// AppendRow appends the encoding of r to b.
func AppendRow(b []byte, r *Row) []byte {
	b = appendBytes(b, r.Clustering)
	b = appendVarint(b, r.Liveness.Timestamp)
	b = binary.AppendUvarint(b, uint64(uint32(r.Liveness.TTL)))
	b = appendVarint(b, r.Liveness.ExpiresAt)
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
	c   Cursor
	err error
}

// NewDecoder returns a Decoder reading b.
func NewDecoder(b []byte) *Decoder { return &Decoder{c: Cursor{Buf: b}} }

// Err returns the first decoding error, or nil.
func (d *Decoder) Err() error {
	if d.err == nil {
		if what, at, ok := d.c.Failure(); ok {
			d.err = fmt.Errorf("%w: bad %s at offset %d", ErrCorrupt, what, at)
		}
	}
	return d.err
}

// Remaining returns the number of bytes not yet read.
func (d *Decoder) Remaining() int { return d.c.Remaining() }

// Offset returns the number of bytes read so far.
func (d *Decoder) Offset() int { return d.c.Off }

// bytes reads a length-prefixed byte string; an empty string decodes as nil.
func (d *Decoder) bytes(what string) []byte {
	if b := d.c.Bytes(what); len(b) > 0 {
		return b
	}
	return nil
}

func (d *Decoder) optBytes(what string) []byte {
	n := d.c.Uvarint(what)
	if n == 0 || d.c.Failed() {
		return nil
	}
	if n == 1 {
		return []byte{} // present but empty: not the same as nil (null)
	}
	return d.c.Raw(n-1, what)
}

func (d *Decoder) ttl(what string, liveness bool) int32 {
	v := d.c.Uvarint(what)
	if v > MaxTTL && !(liveness && v == uint64(ExpiredTTL)) {
		d.c.Fail(what)
		return 0
	}
	return int32(v)
}

// Deletion decodes a DeletionTime.
func (d *Decoder) Deletion() DeletionTime {
	return DeletionTime{MarkedForDeleteAt: d.c.Varint("deletion"), LocalDeletionTime: d.c.Varint("deletion")}
}

// Cell decodes a cell into c.
func (d *Decoder) Cell(c *Cell) { d.cell(c, nil) }

func (d *Decoder) cell(c *Cell, names *ColumnNames) {
	c.Column = names.intern(d.bytes("cell column"))
	c.Path = d.optBytes("cell path")
	c.Kind = CellKind(d.c.Byte("cell kind"))
	if c.Kind > CellCounter {
		d.c.Fail("cell kind")
	}
	c.Timestamp = d.c.Varint("cell timestamp")
	c.TTL = d.ttl("cell ttl", false)
	c.LocalDeletionTime = d.c.Varint("cell deletion time")
	c.Value = d.optBytes("cell value")
}

// Row decodes a row.
func (d *Decoder) Row() Row {
	var r Row
	d.RowInto(&r, nil)
	return r
}

// RowInto decodes a row into r, as Row does, but reuses the arrays of
// r.Cells and r.ColumnDeletions when they are large enough, and takes the
// column names from names (nil: none), so that a reader decoding the rows
// of one table one after the other allocates nothing per row. r's previous
// cells are overwritten.
func (d *Decoder) RowInto(r *Row, names *ColumnNames) {
	if !d.c.failed {
		if n := rowFast(d.c.Buf[d.c.Off:], r, names); n >= 0 {
			d.c.Off += n
			return
		}
	}
	d.rowSlow(r, names)
}

// rowSlow is RowInto through the Cursor, which names what failed.
func (d *Decoder) rowSlow(r *Row, names *ColumnNames) {
	// Every field is assigned (not *r = Row{}: field by field is cheaper
	// while the collector runs).
	cells, cds := r.Cells[:0], r.ColumnDeletions[:0]
	r.Cells, r.ColumnDeletions = nil, nil
	r.Clustering = d.bytes("clustering")
	r.Liveness.Timestamp = d.c.Varint("liveness")
	r.Liveness.TTL = d.ttl("liveness ttl", true)
	r.Liveness.ExpiresAt = d.c.Varint("liveness")
	r.Deletion = d.Deletion()
	if n := d.c.Count("column deletions", 3); n > 0 {
		if cap(cds) < n {
			cds = make([]ColumnDeletion, n)
		}
		r.ColumnDeletions = cds[:n]
		for i := range r.ColumnDeletions {
			r.ColumnDeletions[i].Column = names.intern(d.bytes("column deletion"))
			r.ColumnDeletions[i].Deletion = d.Deletion()
		}
	}
	if n := d.c.Count("cells", 7); n > 0 {
		if cap(cells) < n {
			cells = make([]Cell, n)
		}
		r.Cells = cells[:n]
		for i := range r.Cells {
			d.cell(&r.Cells[i], names)
		}
	}
}

// ColumnNames interns the column names a Decoder reads (RowInto): a name
// seen before is returned without allocating. It keeps up to
// maxColumnNames names; the zero value is ready to use. It is not safe for
// concurrent use.
type ColumnNames struct {
	list []string
	buf  [8]string // list starts here
}

const maxColumnNames = 64

func (n *ColumnNames) intern(b []byte) string {
	if n == nil {
		return string(b)
	}
	if n.list == nil {
		n.list = n.buf[:0]
	}
	for _, s := range n.list {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	if len(n.list) < maxColumnNames {
		n.list = append(n.list, s)
	}
	return s
}

// RangeTombstone decodes a range tombstone.
func (d *Decoder) RangeTombstone() RangeTombstone {
	return RangeTombstone{Start: d.optBytes("range start"), End: d.optBytes("range end"), Deletion: d.Deletion()}
}

// AppendMutationGroup appends the encoding of the group of mutations ms
// (each encoded by AppendCompactMutation) to b.
func AppendMutationGroup(b []byte, ms []*Mutation) []byte {
	b = append(b, MutationGroupFormatVersion)
	b = binary.AppendUvarint(b, uint64(len(ms)))
	for _, m := range ms {
		b = binary.AppendUvarint(b, uint64(CompactMutationSize(m)))
		b = AppendCompactMutation(b, m)
	}
	return b
}

// DecodeMutations decodes a record holding one mutation (AppendMutation)
// or a group (AppendMutationGroup). The results alias b.
func DecodeMutations(b []byte) ([]*Mutation, error) {
	if len(b) == 0 || b[0] != MutationGroupFormatVersion {
		m, err := DecodeMutation(b)
		if err != nil {
			return nil, err
		}
		return []*Mutation{m}, nil
	}
	d := NewDecoder(b[1:])
	n := d.c.Count("group mutations", 20)
	ms := make([]*Mutation, 0, n)
	for i := 0; i < n && !d.c.Failed(); i++ {
		one := d.c.Bytes("group mutation")
		if d.c.Failed() {
			break
		}
		m, err := DecodeMutation(one)
		if err != nil {
			return nil, fmt.Errorf("group member %d: %w", i, err)
		}
		ms = append(ms, m)
	}
	if !d.c.Failed() && d.Remaining() != 0 {
		d.c.Fail("trailing bytes")
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return ms, nil
}

// DecodeMutation decodes a mutation encoded by AppendMutation or
// AppendCompactMutation (mutation_compact.go). The result aliases b.
func DecodeMutation(b []byte) (*Mutation, error) {
	if len(b) > 0 && b[0] == CompactMutationFormatVersion {
		return decodeCompactMutation(b)
	}
	d := NewDecoder(b)
	if v := d.c.Byte("version"); !d.c.Failed() && v != MutationFormatVersion {
		return nil, fmt.Errorf("%w: unknown mutation format version %d", ErrCorrupt, v)
	}
	m := &Mutation{}
	copy(m.Table[:], d.c.Raw(16, "table id"))
	m.Key = d.bytes("partition key")
	m.PartitionDeletion = d.Deletion()
	if n := d.c.Count("range tombstones", 4); n > 0 {
		m.RangeTombstones = make([]RangeTombstone, n)
		for i := range m.RangeTombstones {
			m.RangeTombstones[i] = d.RangeTombstone()
		}
	}
	if d.c.Byte("static flag") == 1 {
		r := d.Row()
		m.Static = &r
	}
	if n := d.c.Count("rows", 8); n > 0 {
		m.Rows = make([]Row, n)
		for i := range m.Rows {
			m.Rows[i] = d.Row()
		}
	}
	if !d.c.Failed() && d.Remaining() != 0 {
		d.c.Fail("trailing bytes")
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
