package data

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleMutation() *Mutation {
	st := NewRow(nil)
	st.Cells = []Cell{{Column: "s", Timestamp: 1, LocalDeletionTime: NoDeletionTime, Value: []byte("x")}}
	r := NewRow([]byte{0x40, 1, 0x80})
	r.Liveness = LivenessInfo{Timestamp: 7, TTL: 60, ExpiresAt: 1000}
	r.ColumnDeletions = []ColumnDeletion{{Column: "m", Deletion: DeletionTime{MarkedForDeleteAt: 6, LocalDeletionTime: 900}}}
	r.Cells = []Cell{
		{Column: "m", Path: []byte{0x40, 'k'}, Timestamp: 7, TTL: 60, LocalDeletionTime: 1000, Value: []byte{}},
		{Column: "v", Kind: CellTombstone, Timestamp: 7, LocalDeletionTime: 940},
	}
	return &Mutation{
		Table:             TableID{1, 2, 3},
		Key:               []byte("pk"),
		PartitionDeletion: LiveDeletion,
		RangeTombstones:   []RangeTombstone{{Start: []byte{0x40, 2, 0x00}, End: nil, Deletion: DeletionTime{MarkedForDeleteAt: 3, LocalDeletionTime: 4}}},
		Static:            &st,
		Rows:              []Row{r},
	}
}

func TestMutationRoundTrip(t *testing.T) {
	m := sampleMutation()
	b := AppendMutation(nil, m)
	got, err := DecodeMutation(b)
	require.NoError(t, err)
	assert.Equal(t, m, got)
}

func TestCellEncodingExample(t *testing.T) {
	// The worked example in encoding.go's comment.
	c := Cell{Column: "v", Timestamp: 5, LocalDeletionTime: NoDeletionTime, Value: []byte{0, 0, 0, 0x2a}}
	want := []byte{0x01, 'v', 0x00, 0x00, 0x0a, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x05, 0, 0, 0, 0x2a}
	assert.Equal(t, want, AppendCell(nil, &c))
}

func TestDecodeMutationTruncated(t *testing.T) {
	b := AppendMutation(nil, sampleMutation())
	for i := 0; i < len(b); i++ {
		_, err := DecodeMutation(b[:i])
		require.Error(t, err, "prefix of length %d", i)
		assert.True(t, errors.Is(err, ErrCorrupt))
	}
}

func FuzzDecodeMutation(f *testing.F) {
	f.Add(AppendMutation(nil, sampleMutation()))
	f.Add(AppendCompactMutation(nil, sampleMutation()))
	f.Add([]byte{1})
	f.Add([]byte{3})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMutation(b)
		if err != nil {
			return
		}
		// Whatever decodes must survive a re-encoding unchanged (the input
		// itself may use non-canonical varints, so compare decoded forms),
		// in either encoding; the compact one's size is what
		// CompactMutationSize says.
		compact := AppendCompactMutation(nil, m)
		require.Equal(t, len(compact), CompactMutationSize(m))
		again, err := DecodeMutation(compact)
		require.NoError(t, err)
		assert.Equal(t, m, again)
		again, err = DecodeMutation(AppendMutation(nil, m))
		require.NoError(t, err)
		assert.Equal(t, m, again)
	})
}

// TestMutationGroupRoundTrip checks that a group decodes to its members
// and that DecodeMutations reads a single mutation too.
func TestMutationGroupRoundTrip(t *testing.T) {
	a, b := sampleMutation(), sampleMutation()
	b.Key = []byte("other")
	b.Table = TableID{9}
	ms, err := DecodeMutations(AppendMutationGroup(nil, []*Mutation{a, b}))
	require.NoError(t, err)
	assert.Equal(t, []*Mutation{a, b}, ms)
	ms, err = DecodeMutations(AppendMutation(nil, a))
	require.NoError(t, err)
	assert.Equal(t, []*Mutation{a}, ms)
	_, err = DecodeMutations([]byte{MutationGroupFormatVersion, 1, 3, 1, 2})
	assert.ErrorIs(t, err, ErrCorrupt)
}

func FuzzDecodeMutations(f *testing.F) {
	f.Add(AppendMutationGroup(nil, []*Mutation{sampleMutation(), sampleMutation()}))
	f.Add([]byte{2, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := DecodeMutations(b)
		if err != nil {
			return
		}
		again, err := DecodeMutations(AppendMutationGroup(nil, ms))
		require.NoError(t, err)
		assert.Equal(t, ms, again)
	})
}

// TestAppendVarintMatchesBinary checks the copied encodings of the
// extreme values against encoding/binary.
func TestAppendVarintMatchesBinary(t *testing.T) {
	for _, v := range []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, 1_700_000_000_000_000, math.MaxInt64 - 1, math.MaxInt64} {
		require.Equal(t, binary.AppendVarint([]byte{7}, v), appendVarint([]byte{7}, v), "%d", v)
	}
}
