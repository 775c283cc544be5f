package data

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The reference compact encoder: AppendCompactMutation as first written
// (every field through binary.AppendUvarint, binary.AppendVarint and
// append), frozen here. The commit log holds these bytes, so the encoder's
// faster code must produce them exactly; TestCompactMutationMatchesReference
// holds it to that.

func refAppendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func refAppendOptBytes(b, s []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

func refAppendDeletion(b []byte, d DeletionTime) []byte {
	b = binary.AppendVarint(b, d.MarkedForDeleteAt)
	return binary.AppendVarint(b, d.LocalDeletionTime)
}

func refAppendCompactMutation(b []byte, m *Mutation) []byte {
	b = append(b, CompactMutationFormatVersion)
	b = append(b, m.Table[:]...)
	b = refAppendBytes(b, m.Key)
	var f byte
	if m.PartitionDeletion != LiveDeletion {
		f |= 0x01
	}
	if len(m.RangeTombstones) > 0 {
		f |= 0x02
	}
	if m.Static != nil {
		f |= 0x04
	}
	b = append(b, f)
	if f&0x01 != 0 {
		b = refAppendDeletion(b, m.PartitionDeletion)
	}
	if f&0x02 != 0 {
		b = binary.AppendUvarint(b, uint64(len(m.RangeTombstones)))
		for i := range m.RangeTombstones {
			rt := &m.RangeTombstones[i]
			b = refAppendOptBytes(b, rt.Start)
			b = refAppendOptBytes(b, rt.End)
			b = refAppendDeletion(b, rt.Deletion)
		}
	}
	if m.Static != nil {
		b = refAppendCompactRow(b, m.Static)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Rows)))
	for i := range m.Rows {
		b = refAppendCompactRow(b, &m.Rows[i])
	}
	return b
}

func refAppendCompactRow(b []byte, r *Row) []byte {
	b = refAppendBytes(b, r.Clustering)
	var f byte
	if r.Liveness.Timestamp != NoTimestamp {
		f |= 0x01
	}
	if r.Liveness.TTL != 0 || r.Liveness.ExpiresAt != NoDeletionTime {
		f |= 0x02
	}
	if r.Deletion != LiveDeletion {
		f |= 0x04
	}
	if len(r.ColumnDeletions) > 0 {
		f |= 0x08
	}
	b = append(b, f)
	if f&0x01 != 0 {
		b = binary.AppendVarint(b, r.Liveness.Timestamp)
	}
	if f&0x02 != 0 {
		b = binary.AppendUvarint(b, uint64(uint32(r.Liveness.TTL)))
		b = binary.AppendVarint(b, r.Liveness.ExpiresAt)
	}
	if f&0x04 != 0 {
		b = refAppendDeletion(b, r.Deletion)
	}
	if f&0x08 != 0 {
		b = binary.AppendUvarint(b, uint64(len(r.ColumnDeletions)))
		for _, cd := range r.ColumnDeletions {
			b = refAppendBytes(b, []byte(cd.Column))
			b = refAppendDeletion(b, cd.Deletion)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(r.Cells)))
	for i := range r.Cells {
		c := &r.Cells[i]
		b = refAppendBytes(b, []byte(c.Column))
		var cf byte
		if c.Path != nil {
			cf |= 0x01
		}
		if c.Timestamp != r.Liveness.Timestamp {
			cf |= 0x02
		}
		if c.TTL != 0 {
			cf |= 0x04
		}
		if c.LocalDeletionTime != NoDeletionTime {
			cf |= 0x08
		}
		if c.Value != nil {
			cf |= 0x10
		}
		b = append(b, byte(c.Kind), cf)
		if cf&0x01 != 0 {
			b = refAppendBytes(b, c.Path)
		}
		if cf&0x02 != 0 {
			b = binary.AppendVarint(b, c.Timestamp)
		}
		if cf&0x04 != 0 {
			b = binary.AppendUvarint(b, uint64(uint32(c.TTL)))
		}
		if cf&0x08 != 0 {
			b = binary.AppendVarint(b, c.LocalDeletionTime)
		}
		if cf&0x10 != 0 {
			b = refAppendBytes(b, c.Value)
		}
	}
	return b
}

// TestCompactMutationMatchesReference compares AppendCompactMutation's
// bytes, and CompactMutationSize, with the frozen reference encoder's on
// random mutations (every varint length boundary, nil and empty paths and
// values, extreme integers, invalid TTLs and kinds), on the narrow
// mutation of the benchmarks, and appended after a prefix, into a buffer
// of exactly the size (as the commit log gives it) or with no room at all.
func TestCompactMutationMatchesReference(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 21))
	ms := []*Mutation{narrowBenchMutation(), sampleMutation()}
	for i := range 2000 {
		ms = append(ms, randomMutation(rng, i%2 == 1))
	}
	for i, m := range ms {
		want := refAppendCompactMutation(nil, m)
		require.Equal(t, len(want), CompactMutationSize(m), "mutation %d", i)
		require.Equal(t, want, AppendCompactMutation(nil, m), "mutation %d", i)
		exact := AppendCompactMutation(make([]byte, 0, len(want)), m)
		require.Equal(t, want, exact, "mutation %d, exact capacity", i)
		prefix := []byte("prefix")
		got := AppendCompactMutation(prefix[:len(prefix):len(prefix)], m)
		require.Equal(t, append([]byte("prefix"), want...), got, "mutation %d after a prefix", i)
	}
}
