package data

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomMutation returns a mutation whose integers and lengths cross every
// varint length boundary, with nil and empty paths and values, and fields
// at and away from their usual values (live deletions, no TTL, a cell
// timestamp equal to its row's or not). TTLs and kinds are valid unless
// invalid is set.
func randomMutation(rng *rand.Rand, invalid bool) *Mutation {
	ints := []int64{0, 1, -1, 63, -64, 64, -65, 8191, 8192, -8193, 1 << 20, -(1 << 27), 1_700_000_000_000_000,
		math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	anyInt := func() int64 {
		if rng.IntN(3) == 0 {
			return int64(rng.Uint64())
		}
		return ints[rng.IntN(len(ints))]
	}
	lens := []int{0, 1, 126, 127, 128, 16382, 16383, 16384, 20000}
	anyBytes := func(nilOK bool) []byte {
		if nilOK && rng.IntN(4) == 0 {
			return nil
		}
		b := make([]byte, lens[rng.IntN(len(lens))])
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}
	anyDeletion := func() DeletionTime {
		if rng.IntN(2) == 0 {
			return LiveDeletion
		}
		return DeletionTime{MarkedForDeleteAt: anyInt(), LocalDeletionTime: anyInt()}
	}
	anyTTL := func() int32 {
		switch {
		case invalid && rng.IntN(10) == 0:
			return int32(anyInt())
		case rng.IntN(2) == 0:
			return 0
		}
		return int32(rng.IntN(MaxTTL + 1))
	}
	anyRow := func() Row {
		r := Row{Clustering: anyBytes(false), Deletion: anyDeletion(), Liveness: EmptyLiveness}
		if rng.IntN(4) > 0 {
			r.Liveness.Timestamp = anyInt()
		}
		if rng.IntN(3) == 0 {
			r.Liveness.TTL, r.Liveness.ExpiresAt = anyTTL(), anyInt()
		}
		for range rng.IntN(3) {
			r.ColumnDeletions = append(r.ColumnDeletions, ColumnDeletion{Column: string(anyBytes(false)), Deletion: anyDeletion()})
		}
		for range rng.IntN(4) {
			c := Cell{Column: string(anyBytes(false)), Path: anyBytes(true), Kind: CellKind(rng.IntN(3)),
				Timestamp: r.Liveness.Timestamp, LocalDeletionTime: NoDeletionTime, Value: anyBytes(true)}
			if rng.IntN(2) == 0 {
				c.Timestamp = anyInt()
			}
			if rng.IntN(2) == 0 {
				c.TTL, c.LocalDeletionTime = anyTTL(), anyInt()
			}
			if invalid && rng.IntN(10) == 0 {
				c.Kind = CellKind(rng.IntN(256))
			}
			r.Cells = append(r.Cells, c)
		}
		return r
	}
	m := &Mutation{Table: TableID{byte(rng.Uint32())}, Key: anyBytes(false), PartitionDeletion: anyDeletion()}
	for range rng.IntN(3) {
		m.RangeTombstones = append(m.RangeTombstones, RangeTombstone{Start: anyBytes(true), End: anyBytes(true), Deletion: anyDeletion()})
	}
	if rng.IntN(2) == 0 {
		st := anyRow()
		m.Static = &st
	}
	for range rng.IntN(4) {
		m.Rows = append(m.Rows, anyRow())
	}
	return m
}

// TestCompactMutation checks the compact encoding against version 1 on
// random mutations: its size is what CompactMutationSize says, it decodes
// to what the version 1 encoding of the same mutation decodes to (or both
// fail, for invalid TTLs and kinds), and it is never longer.
func TestCompactMutation(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 19))
	for i := range 3000 {
		m := randomMutation(rng, i%2 == 1)
		compact := AppendCompactMutation(nil, m)
		require.Equal(t, len(compact), CompactMutationSize(m))
		v1 := AppendMutation(nil, m)
		flags := 1 + len(m.Rows)
		for _, r := range m.Rows {
			flags += len(r.Cells)
		}
		if m.Static != nil {
			flags += 1 + len(m.Static.Cells)
		}
		require.LessOrEqual(t, len(compact), len(v1)+flags, "its flags bytes aside, never longer")
		want, errV1 := DecodeMutation(v1)
		got, err := DecodeMutation(compact)
		if errV1 != nil {
			require.ErrorIs(t, err, ErrCorrupt, "version 1 failed with %v", errV1)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	// The sample round-trips exactly, and a narrow row is about half its
	// version 1 size.
	got, err := DecodeMutation(AppendCompactMutation(nil, sampleMutation()))
	require.NoError(t, err)
	assert.Equal(t, sampleMutation(), got)
	narrow := &Mutation{Table: TableID{1}, Key: []byte("p0000042"), PartitionDeletion: LiveDeletion, Rows: []Row{{
		Clustering: []byte{0x40, 0, 0, 0, 0, 0x80}, Deletion: LiveDeletion,
		Liveness: LivenessInfo{Timestamp: 1_700_000_000_000_000, ExpiresAt: NoDeletionTime},
		Cells:    []Cell{{Column: "v", Timestamp: 1_700_000_000_000_000, LocalDeletionTime: NoDeletionTime, Value: make([]byte, 20)}},
	}}}
	t.Logf("narrow row: %d bytes compact, %d in version 1", CompactMutationSize(narrow), len(AppendMutation(nil, narrow)))
	assert.Less(t, 2*CompactMutationSize(narrow), len(AppendMutation(nil, narrow))+20)
}

// TestMutationGroupSize checks MutationGroupSize against the length of
// AppendMutationGroup's output, and the group's round trip.
func TestMutationGroupSize(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 20))
	for range 300 {
		ms := make([]*Mutation, rng.IntN(4))
		for i := range ms {
			ms[i] = randomMutation(rng, false)
		}
		b := AppendMutationGroup(nil, ms)
		require.Equal(t, len(b), MutationGroupSize(ms))
		got, err := DecodeMutations(b)
		require.NoError(t, err)
		require.Len(t, got, len(ms))
		for i := range ms {
			want, err := DecodeMutation(AppendMutation(nil, ms[i]))
			require.NoError(t, err)
			require.Equal(t, want, got[i])
		}
	}
}

// TestCompactMutationTruncated checks that every prefix of a compact
// encoding, and bad flags, fail with ErrCorrupt.
func TestCompactMutationTruncated(t *testing.T) {
	b := AppendCompactMutation(nil, sampleMutation())
	for i := 0; i < len(b); i++ {
		_, err := DecodeMutation(b[:i])
		require.Error(t, err, "prefix of length %d", i)
		assert.True(t, errors.Is(err, ErrCorrupt))
	}
	bad := append([]byte(nil), b...)
	bad[1+16+1+2] |= 0x80 // the mutation flags byte, after the table and the key "pk"
	_, err := DecodeMutation(bad)
	require.ErrorIs(t, err, ErrCorrupt)
}
