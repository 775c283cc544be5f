package sstable

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
)

// TestNextOnlyRow reads random tables (each codec, small chunks, so that
// records straddle them) with NextOnlyRow and checks its contract for each
// partition: only exactly when the partition has no deletion, static row
// or range tombstone and one row, that row decoded as written and the
// partition's size known; any other partition is then read through its
// rows as after Next.
func TestNextOnlyRow(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, codec := range []Codec{CodecNone, CodecS2, CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			parts := streamPartitions(rng, 200, 3)
			r, tokens, sizes := openStreamTable(t, rng, codec, parts)

			it := r.ScanStream(func(key []byte) int64 { return tokens[string(key)] }).(*scanIter)
			var row data.Row
			var buf []byte
			var onlies int
			for i := 0; ; i++ {
				src, out, only, ok := it.NextOnlyRow(buf[:0], &row)
				if !ok {
					require.Equal(t, len(parts), i)
					break
				}
				buf = out
				p := &parts[i]
				require.Equal(t, p.key, src.Key())
				plain := p.del == data.LiveDeletion && p.static == nil && len(p.rts) == 0 && len(p.rows) == 1
				require.Equal(t, plain, only, "partition %d", i)
				if only {
					onlies++
					require.Equal(t, normRow(p.rows[0]), normRow(cloneRow(&row)))
					require.Equal(t, sizes[i], src.(*Partition).Size())
					continue
				}
				got := collectRows(t, src.Rows(nil, false))
				require.Equal(t, normRows(p.rows), normRows(got))
				require.Equal(t, sizes[i], src.(*Partition).Size())
			}
			require.NoError(t, it.Err())
			require.NoError(t, it.Close())
			require.Greater(t, onlies, 0)
		})
	}
}
