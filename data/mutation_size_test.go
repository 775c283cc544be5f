package data

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncodedMutationSize checks EncodedMutationSize against the length of
// AppendMutation's output for the sample mutation, an empty one, and random
// mutations whose integers and lengths cross every varint length boundary.
func TestEncodedMutationSize(t *testing.T) {
	require.Equal(t, len(AppendMutation(nil, sampleMutation())), EncodedMutationSize(sampleMutation()))
	empty := &Mutation{PartitionDeletion: LiveDeletion}
	require.Equal(t, len(AppendMutation(nil, empty)), EncodedMutationSize(empty))

	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 19))
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
		return make([]byte, lens[rng.IntN(len(lens))])
	}
	anyDeletion := func() DeletionTime { return DeletionTime{MarkedForDeleteAt: anyInt(), LocalDeletionTime: anyInt()} }
	anyRow := func() Row {
		r := Row{Clustering: anyBytes(false), Deletion: anyDeletion(),
			Liveness: LivenessInfo{Timestamp: anyInt(), TTL: int32(anyInt()), ExpiresAt: anyInt()}}
		for range rng.IntN(3) {
			r.ColumnDeletions = append(r.ColumnDeletions, ColumnDeletion{Column: string(anyBytes(false)), Deletion: anyDeletion()})
		}
		for range rng.IntN(4) {
			r.Cells = append(r.Cells, Cell{Column: string(anyBytes(false)), Path: anyBytes(true), Kind: CellKind(rng.IntN(3)),
				Timestamp: anyInt(), TTL: int32(anyInt()), LocalDeletionTime: anyInt(), Value: anyBytes(true)})
		}
		return r
	}
	for range 2000 {
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
		require.Equal(t, len(AppendMutation(nil, m)), EncodedMutationSize(m))
	}
}
