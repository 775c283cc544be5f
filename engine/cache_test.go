package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// cacheTestWrite writes rows c0..c19 of partitions k0..k29 with values
// "<tag>-<k>-<c>" at timestamp ts.
func cacheTestWrite(t *testing.T, e *Engine, tbl *schema.Table, tag string, ts int64) {
	t.Helper()
	for k := range 30 {
		m := &data.Mutation{Table: tbl.ID, Key: fmt.Appendf(nil, "k%d", k), PartitionDeletion: data.LiveDeletion}
		for c := range 20 {
			m.Rows = append(m.Rows, data.Row{Clustering: fmt.Appendf(nil, "c%02d", c), Deletion: data.LiveDeletion,
				Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
				Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: fmt.Appendf(nil, "%s-%d-%d", tag, k, c)}}})
		}
		require.NoError(t, e.Apply(context.Background(), tbl, m))
	}
}

// cacheTestCheck reads every partition forward, reverse and by a point
// slice and checks that every value carries tag.
func cacheTestCheck(t *testing.T, e *Engine, tbl *schema.Table, tag string) {
	t.Helper()
	for k := range 30 {
		key := fmt.Sprintf("k%d", k)
		for _, reverse := range []bool{false, true} {
			_, rows := readAll(t, e, tbl, key, ReadOptions{Reverse: reverse})
			require.Len(t, rows, 20, "%s reverse=%v", key, reverse)
			for i, r := range rows {
				c := i
				if reverse {
					c = 19 - i
				}
				require.Equal(t, fmt.Sprintf("%s-%d-%d", tag, k, c), string(r.Cells[0].Value), "%s reverse=%v", key, reverse)
			}
		}
		_, rows := readAll(t, e, tbl, key, ReadOptions{Limit: 1, Reverse: true})
		require.Len(t, rows, 1)
		require.Equal(t, fmt.Sprintf("%s-%d-19", tag, k), string(rows[0].Cells[0].Value))
	}
}

// liveReaders returns the SSTable readers the table lists now.
func liveReaders(t *testing.T, e *Engine, tbl *schema.Table) []*sstable.Reader {
	t.Helper()
	s, err := e.storeFor(tbl)
	require.NoError(t, err)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var rs []*sstable.Reader
	for _, src := range s.ssts {
		rs = append(rs, src.r)
	}
	return rs
}

// TestCacheNeverServesRemovedSSTables fills the engine's shared block and
// key caches from a table's SSTables, then replaces them by a compaction, a
// truncate or a drop and re-create, with new values for the same keys:
// every read must return the new values, the removed SSTables' readers
// must have left nothing in the caches, and everything cached must belong
// to a listed SSTable.
func TestCacheNeverServesRemovedSSTables(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"compact", "truncate", "drop"} {
		t.Run(op, func(t *testing.T) {
			e, clock, tbl := openDurable(t, vfs.NewMem(), Options{CommitLogSync: SyncNone, DisableAutoCompaction: true, MemtableSize: 1 << 30})
			defer e.Close()
			cacheTestWrite(t, e, tbl, "old", 1)
			require.NoError(t, e.Flush(ctx, "ks", "t"))
			cacheTestWrite(t, e, tbl, "old", 2) // a second SSTable for the compaction
			require.NoError(t, e.Flush(ctx, "ks", "t"))
			cacheTestCheck(t, e, tbl, "old")
			cacheTestCheck(t, e, tbl, "old") // served from the caches
			old := liveReaders(t, e, tbl)
			require.Len(t, old, 2)
			for _, r := range old {
				blocks, keys := r.CachedEntries()
				require.NotZero(t, blocks, "%s", r.Files()[0])
				require.NotZero(t, keys, "%s", r.Files()[0])
			}
			clock.Advance(1_000_000_000)
			switch op {
			case "compact":
				cacheTestWrite(t, e, tbl, "new", 3)
				require.NoError(t, e.Flush(ctx, "ks", "t"))
				require.NoError(t, e.Compact(ctx, "ks", "t"))
			case "truncate":
				require.NoError(t, e.Truncate("ks", "t"))
				clock.Advance(1_000_000_000)
				cacheTestWrite(t, e, tbl, "new", e.NewTimestamp())
				require.NoError(t, e.Flush(ctx, "ks", "t"))
			case "drop":
				require.NoError(t, e.DropTable("ks", "t"))
				tbl = testTable("t", data.TableID{2})
				require.NoError(t, e.CreateTable(tbl))
				cacheTestWrite(t, e, tbl, "new", e.NewTimestamp())
				require.NoError(t, e.Flush(ctx, "ks", "t"))
			}
			for _, r := range old {
				blocks, keys := r.CachedEntries()
				assert.Zero(t, blocks, "%s: blocks of a removed SSTable", r.Files()[0])
				assert.Zero(t, keys, "%s: keys of a removed SSTable", r.Files()[0])
			}
			cacheTestCheck(t, e, tbl, "new")
			cacheTestCheck(t, e, tbl, "new")
			live := liveReaders(t, e, tbl)
			require.NotEmpty(t, live)
			var blocks, keys int
			for _, r := range live {
				b, k := r.CachedEntries()
				blocks += b
				keys += k
			}
			st := e.CacheStats()
			assert.Equal(t, st.Blocks, blocks, "every cached block belongs to a listed SSTable")
			assert.Equal(t, st.Keys, keys, "every cached key belongs to a listed SSTable")
		})
	}
}
