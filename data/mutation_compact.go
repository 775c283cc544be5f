package data

import (
	"encoding/binary"
	"math/bits"
)

// The compact mutation encoding (version 3) is what the engine writes to
// the commit log. It carries what a mutation's fields say and leaves out
// what they usually hold: a flags byte per mutation, row and cell says
// which optional fields follow, so a live partition, a row without TTL or
// deletion, and a cell with its row's timestamp, no TTL and no deletion
// time cost no bytes for them (version 1 spends ten bytes on every
// math.MinInt64 or math.MaxInt64 it writes). A one-cell narrow row takes
// about half the bytes of version 1, which the commit log then copies,
// checksums and pages in. Integers and byte strings are encoded as in
// version 1 (encoding.go); [x] is present only when its flag is set:
//
//	mutation3 := version:byte(3) table:16 bytes(key) flags:byte
//	             [deletion]                 0x01: a partition deletion
//	             [uvarint(n) n*rangetomb]   0x02: range tombstones
//	             [row3]                     0x04: a static row
//	             uvarint(n) n*row3
//	row3      := bytes(clustering) flags:byte
//	             [varint(timestamp)]              0x01: liveness timestamp (else NoTimestamp)
//	             [uvarint(ttl) varint(expiresAt)] 0x02: liveness TTL or expiry (else 0, NoDeletionTime)
//	             [deletion]                       0x04: a row deletion (else LiveDeletion)
//	             [uvarint(n) n*(bytes(column) deletion)] 0x08: column deletions
//	             uvarint(n) n*cell3
//	cell3     := bytes(column) kind:byte flags:byte
//	             [bytes(path)]              0x01: a path (else nil)
//	             [varint(timestamp)]        0x02: a timestamp other than the row's liveness timestamp
//	             [uvarint(ttl)]             0x04: a TTL (else 0)
//	             [varint(localDeletionTime)] 0x08: a deletion or expiry time (else NoDeletionTime)
//	             [bytes(value)]             0x10: a value (else nil)
//
// A present path or value may be empty, which is not the same as nil (a
// null value). Replay decodes both versions (DecodeMutation), to the same
// mutation for the same input. A minicass from before version 3 refuses a
// commit log holding version 3 records as corrupt: flush every table
// first (nodetool flush), which releases the segments, before going back.

// CompactMutationFormatVersion is the version byte of a mutation encoded by
// AppendCompactMutation.
const CompactMutationFormatVersion = 3

// Flags of the compact encoding.
const (
	mutPartitionDeletion = 0x01
	mutRangeTombstones   = 0x02
	mutStatic            = 0x04
	mutFlags             = 0x07

	rowTimestamp       = 0x01
	rowExpiring        = 0x02
	rowDeleted         = 0x04
	rowColumnDeletions = 0x08
	rowFlags           = 0x0f

	cellPath         = 0x01
	cellOwnTimestamp = 0x02
	cellTTL          = 0x04
	cellDeletionTime = 0x08
	cellValue        = 0x10
	cellFlags        = 0x1f
)

// AppendCompactMutation appends the compact encoding (version 3) of m to b.
func AppendCompactMutation(b []byte, m *Mutation) []byte {
	b = append(b, CompactMutationFormatVersion)
	b = append(b, m.Table[:]...)
	b = appendBytes(b, m.Key)
	var f byte
	if m.PartitionDeletion != LiveDeletion {
		f |= mutPartitionDeletion
	}
	if len(m.RangeTombstones) > 0 {
		f |= mutRangeTombstones
	}
	if m.Static != nil {
		f |= mutStatic
	}
	b = append(b, f)
	if f&mutPartitionDeletion != 0 {
		b = AppendDeletion(b, m.PartitionDeletion)
	}
	if f&mutRangeTombstones != 0 {
		b = binary.AppendUvarint(b, uint64(len(m.RangeTombstones)))
		for i := range m.RangeTombstones {
			b = AppendRangeTombstone(b, &m.RangeTombstones[i])
		}
	}
	if m.Static != nil {
		b = appendCompactRow(b, m.Static)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Rows)))
	for i := range m.Rows {
		b = appendCompactRow(b, &m.Rows[i])
	}
	return b
}

func compactRowFlags(r *Row) byte {
	var f byte
	if r.Liveness.Timestamp != NoTimestamp {
		f |= rowTimestamp
	}
	if r.Liveness.TTL != 0 || r.Liveness.ExpiresAt != NoDeletionTime {
		f |= rowExpiring
	}
	if r.Deletion != LiveDeletion {
		f |= rowDeleted
	}
	if len(r.ColumnDeletions) > 0 {
		f |= rowColumnDeletions
	}
	return f
}

func compactCellFlags(c *Cell, rowTS int64) byte {
	var f byte
	if c.Path != nil {
		f |= cellPath
	}
	if c.Timestamp != rowTS {
		f |= cellOwnTimestamp
	}
	if c.TTL != 0 {
		f |= cellTTL
	}
	if c.LocalDeletionTime != NoDeletionTime {
		f |= cellDeletionTime
	}
	if c.Value != nil {
		f |= cellValue
	}
	return f
}

func appendCompactRow(b []byte, r *Row) []byte {
	b = appendBytes(b, r.Clustering)
	f := compactRowFlags(r)
	b = append(b, f)
	if f&rowTimestamp != 0 {
		b = appendVarint(b, r.Liveness.Timestamp)
	}
	if f&rowExpiring != 0 {
		b = binary.AppendUvarint(b, uint64(uint32(r.Liveness.TTL)))
		b = appendVarint(b, r.Liveness.ExpiresAt)
	}
	if f&rowDeleted != 0 {
		b = AppendDeletion(b, r.Deletion)
	}
	if f&rowColumnDeletions != 0 {
		b = binary.AppendUvarint(b, uint64(len(r.ColumnDeletions)))
		for _, cd := range r.ColumnDeletions {
			b = appendBytes(b, []byte(cd.Column))
			b = AppendDeletion(b, cd.Deletion)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(r.Cells)))
	for i := range r.Cells {
		c := &r.Cells[i]
		b = appendBytes(b, []byte(c.Column))
		cf := compactCellFlags(c, r.Liveness.Timestamp)
		b = append(b, byte(c.Kind), cf)
		if cf&cellPath != 0 {
			b = appendBytes(b, c.Path)
		}
		if cf&cellOwnTimestamp != 0 {
			b = appendVarint(b, c.Timestamp)
		}
		if cf&cellTTL != 0 {
			b = binary.AppendUvarint(b, uint64(uint32(c.TTL)))
		}
		if cf&cellDeletionTime != 0 {
			b = appendVarint(b, c.LocalDeletionTime)
		}
		if cf&cellValue != 0 {
			b = appendBytes(b, c.Value)
		}
	}
	return b
}

// CompactMutationSize returns the exact length of AppendCompactMutation's
// encoding of m, so that a writer can reserve the space (a commit-log
// record in a mapped segment) and encode m straight into it. It allocates
// nothing.
func CompactMutationSize(m *Mutation) int {
	n := 1 + len(m.Table) + bytesLen(len(m.Key)) + 1
	if m.PartitionDeletion != LiveDeletion {
		n += deletionLen(m.PartitionDeletion)
	}
	if len(m.RangeTombstones) > 0 {
		n += uvarintLen(uint64(len(m.RangeTombstones)))
		for i := range m.RangeTombstones {
			rt := &m.RangeTombstones[i]
			n += optBytesLen(rt.Start) + optBytesLen(rt.End) + deletionLen(rt.Deletion)
		}
	}
	if m.Static != nil {
		n += compactRowSize(m.Static)
	}
	n += uvarintLen(uint64(len(m.Rows)))
	for i := range m.Rows {
		n += compactRowSize(&m.Rows[i])
	}
	return n
}

// MutationGroupSize returns the exact length of AppendMutationGroup's
// encoding of ms.
func MutationGroupSize(ms []*Mutation) int {
	n := 1 + uvarintLen(uint64(len(ms)))
	for _, m := range ms {
		n += bytesLen(CompactMutationSize(m))
	}
	return n
}

func compactRowSize(r *Row) int {
	f := compactRowFlags(r)
	n := bytesLen(len(r.Clustering)) + 1
	if f&rowTimestamp != 0 {
		n += varintLen(r.Liveness.Timestamp)
	}
	if f&rowExpiring != 0 {
		n += uvarintLen(uint64(uint32(r.Liveness.TTL))) + varintLen(r.Liveness.ExpiresAt)
	}
	if f&rowDeleted != 0 {
		n += deletionLen(r.Deletion)
	}
	if f&rowColumnDeletions != 0 {
		n += uvarintLen(uint64(len(r.ColumnDeletions)))
		for i := range r.ColumnDeletions {
			n += bytesLen(len(r.ColumnDeletions[i].Column)) + deletionLen(r.ColumnDeletions[i].Deletion)
		}
	}
	n += uvarintLen(uint64(len(r.Cells)))
	for i := range r.Cells {
		c := &r.Cells[i]
		cf := compactCellFlags(c, r.Liveness.Timestamp)
		n += bytesLen(len(c.Column)) + 2
		if cf&cellPath != 0 {
			n += bytesLen(len(c.Path))
		}
		if cf&cellOwnTimestamp != 0 {
			n += varintLen(c.Timestamp)
		}
		if cf&cellTTL != 0 {
			n += uvarintLen(uint64(uint32(c.TTL)))
		}
		if cf&cellDeletionTime != 0 {
			n += varintLen(c.LocalDeletionTime)
		}
		if cf&cellValue != 0 {
			n += bytesLen(len(c.Value))
		}
	}
	return n
}

// uvarintLen is the length of binary.AppendUvarint's encoding of x.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// varintLen is the length of binary.AppendVarint's encoding of v (zig-zag).
func varintLen(v int64) int { return uvarintLen(uint64(v<<1) ^ uint64(v>>63)) }

// bytesLen is the length of appendBytes's encoding of n bytes.
func bytesLen(n int) int { return uvarintLen(uint64(n)) + n }

// optBytesLen is the length of appendOptBytes's encoding of s.
func optBytesLen(s []byte) int {
	if s == nil {
		return 1
	}
	return uvarintLen(uint64(len(s))+1) + len(s)
}

// deletionLen is the length of AppendDeletion's encoding of d.
func deletionLen(d DeletionTime) int {
	return varintLen(d.MarkedForDeleteAt) + varintLen(d.LocalDeletionTime)
}

// decodeCompactMutation decodes a mutation of version 3 (b[0] is the
// version byte, already checked). The result aliases b.
func decodeCompactMutation(b []byte) (*Mutation, error) {
	d := NewDecoder(b)
	d.c.Byte("version")
	m := &Mutation{PartitionDeletion: LiveDeletion}
	copy(m.Table[:], d.c.Raw(16, "table id"))
	m.Key = d.bytes("partition key")
	f := d.c.Byte("mutation flags")
	if f&^mutFlags != 0 {
		d.c.Fail("mutation flags")
	}
	if f&mutPartitionDeletion != 0 {
		m.PartitionDeletion = d.Deletion()
	}
	if f&mutRangeTombstones != 0 {
		if n := d.c.Count("range tombstones", 4); n > 0 {
			m.RangeTombstones = make([]RangeTombstone, n)
			for i := range m.RangeTombstones {
				m.RangeTombstones[i] = d.RangeTombstone()
			}
		}
	}
	if f&mutStatic != 0 {
		r := d.compactRow()
		m.Static = &r
	}
	if n := d.c.Count("rows", 3); n > 0 {
		m.Rows = make([]Row, n)
		for i := range m.Rows {
			m.Rows[i] = d.compactRow()
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

// presentBytes reads a byte string whose flag said it is present: an
// empty one is not nil.
func (d *Decoder) presentBytes(what string) []byte {
	b := d.c.Bytes(what)
	if len(b) == 0 && !d.c.Failed() {
		return []byte{} // present but empty: not the same as nil (null)
	}
	return b
}

func (d *Decoder) compactRow() Row {
	r := Row{Liveness: EmptyLiveness, Deletion: LiveDeletion}
	r.Clustering = d.bytes("clustering")
	f := d.c.Byte("row flags")
	if f&^rowFlags != 0 {
		d.c.Fail("row flags")
	}
	if f&rowTimestamp != 0 {
		r.Liveness.Timestamp = d.c.Varint("liveness")
	}
	if f&rowExpiring != 0 {
		r.Liveness.TTL = d.ttl("liveness ttl", true)
		r.Liveness.ExpiresAt = d.c.Varint("liveness")
	}
	if f&rowDeleted != 0 {
		r.Deletion = d.Deletion()
	}
	if f&rowColumnDeletions != 0 {
		if n := d.c.Count("column deletions", 3); n > 0 {
			r.ColumnDeletions = make([]ColumnDeletion, n)
			for i := range r.ColumnDeletions {
				r.ColumnDeletions[i].Column = string(d.bytes("column deletion"))
				r.ColumnDeletions[i].Deletion = d.Deletion()
			}
		}
	}
	if n := d.c.Count("cells", 3); n > 0 {
		r.Cells = make([]Cell, n)
		for i := range r.Cells {
			c := &r.Cells[i]
			c.Column = string(d.bytes("cell column"))
			c.Kind = CellKind(d.c.Byte("cell kind"))
			if c.Kind > CellCounter {
				d.c.Fail("cell kind")
			}
			cf := d.c.Byte("cell flags")
			if cf&^cellFlags != 0 {
				d.c.Fail("cell flags")
			}
			if cf&cellPath != 0 {
				c.Path = d.presentBytes("cell path")
			}
			c.Timestamp = r.Liveness.Timestamp
			if cf&cellOwnTimestamp != 0 {
				c.Timestamp = d.c.Varint("cell timestamp")
			}
			if cf&cellTTL != 0 {
				c.TTL = d.ttl("cell ttl", false)
			}
			c.LocalDeletionTime = NoDeletionTime
			if cf&cellDeletionTime != 0 {
				c.LocalDeletionTime = d.c.Varint("cell deletion time")
			}
			if cf&cellValue != 0 {
				c.Value = d.presentBytes("cell value")
			}
		}
	}
	return r
}
