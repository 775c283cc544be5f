package data

import "math/bits"

// EncodedMutationSize returns the exact length of AppendMutation's encoding
// of m, so that a writer can reserve the space (a commit-log record in a
// mapped segment) and encode m straight into it. It walks m as
// AppendMutation does and allocates nothing.
func EncodedMutationSize(m *Mutation) int {
	n := 1 + len(m.Table) + bytesLen(len(m.Key)) + deletionLen(m.PartitionDeletion) +
		uvarintLen(uint64(len(m.RangeTombstones)))
	for i := range m.RangeTombstones {
		rt := &m.RangeTombstones[i]
		n += optBytesLen(rt.Start) + optBytesLen(rt.End) + deletionLen(rt.Deletion)
	}
	n++ // the static flag
	if m.Static != nil {
		n += encodedRowSize(m.Static)
	}
	n += uvarintLen(uint64(len(m.Rows)))
	for i := range m.Rows {
		n += encodedRowSize(&m.Rows[i])
	}
	return n
}

// encodedRowSize is the length of AppendRow's encoding of r.
func encodedRowSize(r *Row) int {
	n := bytesLen(len(r.Clustering)) + varintLen(r.Liveness.Timestamp) +
		uvarintLen(uint64(uint32(r.Liveness.TTL))) + varintLen(r.Liveness.ExpiresAt) +
		deletionLen(r.Deletion) + uvarintLen(uint64(len(r.ColumnDeletions)))
	for i := range r.ColumnDeletions {
		n += bytesLen(len(r.ColumnDeletions[i].Column)) + deletionLen(r.ColumnDeletions[i].Deletion)
	}
	n += uvarintLen(uint64(len(r.Cells)))
	for i := range r.Cells {
		c := &r.Cells[i]
		n += bytesLen(len(c.Column)) + optBytesLen(c.Path) + 1 + varintLen(c.Timestamp) +
			uvarintLen(uint64(uint32(c.TTL))) + varintLen(c.LocalDeletionTime) + optBytesLen(c.Value)
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
