package data

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMutationBuilder builds mutations of several shapes with one builder,
// each compared with the same mutation built by hand, and checks that the
// builder copies what it is given and that, once grown, it allocates
// nothing.
func TestMutationBuilder(t *testing.T) {
	var b MutationBuilder
	require.ErrorIs(t, b.AddCell(Cell{Column: "v"}), ErrNoRow)
	live := LivenessInfo{Timestamp: 7, ExpiresAt: NoDeletionTime}
	for i := range 20 {
		key := []byte(fmt.Sprintf("key-%d", i))
		want := &Mutation{Table: TableID{byte(i)}, Key: []byte(fmt.Sprintf("key-%d", i)), PartitionDeletion: LiveDeletion}
		b.Reset(want.Table, key)
		if i%3 == 0 {
			st := Row{Liveness: EmptyLiveness, Deletion: LiveDeletion}
			for j := range i % 4 {
				c := Cell{Column: fmt.Sprintf("s%d", j), Timestamp: 3, LocalDeletionTime: NoDeletionTime, Value: []byte(fmt.Sprintf("sv%d-%d", i, j))}
				st.Cells = append(st.Cells, c)
			}
			if len(st.Cells) > 0 {
				want.Static = &st
				for _, c := range st.Cells {
					val := append([]byte(nil), c.Value...)
					c.Value = val
					b.AddStaticCell(c)
					val[0] = 'X' // the builder copied it
				}
			}
		}
		for r := range i % 5 {
			ck := []byte{0x40, byte(r), 0x80}
			row := Row{Clustering: []byte{0x40, byte(r), 0x80}, Liveness: live, Deletion: LiveDeletion}
			b.AddRow(ck, live)
			ck[1] = 0xff
			for j := range (i + r) % 3 {
				c := Cell{Column: fmt.Sprintf("v%d", j), Timestamp: 7, LocalDeletionTime: NoDeletionTime, Value: []byte(fmt.Sprintf("%d/%d/%d", i, r, j))}
				if j == 1 {
					c.Path, c.Value = []byte{1, 2}, nil
				}
				row.Cells = append(row.Cells, c)
				require.NoError(t, b.AddCell(c))
			}
			want.Rows = append(want.Rows, row)
		}
		key[0] = 'X'
		assert.Equal(t, want, b.Mutation(), "mutation %d", i)
	}
	// Grown to the largest of those: building again allocates nothing.
	val := make([]byte, 20)
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset(TableID{1}, []byte("key-0001"))
		b.AddRow([]byte{0x40, 1, 0x80}, live)
		_ = b.AddCell(Cell{Column: "v", Timestamp: 7, LocalDeletionTime: NoDeletionTime, Value: val})
		_ = b.Mutation()
	})
	assert.Zero(t, allocs)
}
