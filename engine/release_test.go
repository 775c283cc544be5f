package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
)

// TestPartitionRelease reads the same partitions again and again through
// released partitions (from the memtable and from an SSTable): each read
// returns its own rows and statistics, whatever the recycled partition
// held before, and releasing twice or releasing a scan's partition is
// harmless.
func TestPartitionRelease(t *testing.T) {
	e, _, tbl := newTestEngine(t)
	ctx := context.Background()
	require.NoError(t, e.Apply(ctx, tbl, mutationOf("a", "1", "v", "x", 5)))
	require.NoError(t, e.Apply(ctx, tbl, mutationOf("a", "2", "v", "y", 5)))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.Apply(ctx, tbl, mutationOf("b", "1", "v", "z", 6)))

	for round := range 3 {
		for _, c := range []struct {
			key     string
			reverse bool
			want    []string
		}{{"a", false, []string{"1", "2"}}, {"a", true, []string{"2", "1"}}, {"b", false, []string{"1"}}, {"none", false, nil}} {
			p, err := e.ReadPartition(ctx, tbl, []byte(c.key), ReadOptions{Reverse: c.reverse})
			require.NoError(t, err)
			var got []string
			for {
				r, ok := p.Next()
				if !ok {
					break
				}
				got = append(got, string(r.Clustering))
			}
			require.NoError(t, p.Close())
			assert.Equal(t, c.want, got, "round %d, key %s", round, c.key)
			assert.Equal(t, len(c.want), p.Stats().RowsReturned, "round %d, key %s", round, c.key)
			assert.Equal(t, 1, p.Stats().Partitions, "round %d, key %s", round, c.key)
			p.Release()
			p.Release()
		}
	}

	sc, err := e.Scan(ctx, tbl, data.FullRing, ReadOptions{})
	require.NoError(t, err)
	n := 0
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		n++
		p.Release() // a scan's partition: closed, not recycled
	}
	require.NoError(t, sc.Close())
	assert.Equal(t, 2, n)
}
