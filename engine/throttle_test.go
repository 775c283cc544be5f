package engine

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// fakePace replaces an engine's throttle clock: sleeping advances the fake
// time instead of waiting, and the sleeps are counted.
type fakePace struct {
	now    time.Time
	slept  time.Duration
	sleeps int
}

func (f *fakePace) install(th *throttle) {
	th.now = func() time.Time { return f.now }
	th.sleep = func(_ context.Context, d time.Duration) error {
		f.now = f.now.Add(d)
		f.slept += d
		f.sleeps++
		return nil
	}
}

// TestThrottledCompactionOutputEqualsUnthrottled compacts the same four
// overlapping SSTables (overwrites, row and partition deletions, expiring
// cells) in two engines, one paced to 4 KiB/s and one unthrottled, and
// checks that the throttle paused the first and that both wrote the same
// SSTable, byte for byte, with the same rows.
func TestThrottledCompactionOutputEqualsUnthrottled(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	ctx := context.Background()
	build := func(throughput int64) (*Engine, *fakePace, vfs.FS) {
		fsys := vfs.NewMem()
		e, clock, tbl := openDurable(t, fsys, Options{CommitLogSync: SyncNone, DisableAutoCompaction: true,
			CompactionThroughput: throughput, MemtableSize: 1 << 40})
		t.Cleanup(func() { _ = e.Close() })
		pace := &fakePace{now: time.Unix(0, 0)}
		if e.throttle != nil {
			pace.install(e.throttle)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		ts := int64(1)
		for f := 0; f < 4; f++ {
			for i := 0; i < 400; i++ {
				ts++
				key := fmt.Sprintf("k%03d", rng.IntN(150))
				ck := fmt.Sprintf("c%02d", rng.IntN(20))
				m := &data.Mutation{Table: tbl.ID, Key: []byte(key), PartitionDeletion: data.LiveDeletion}
				switch x := rng.IntN(20); {
				case x == 0:
					m.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: clock.Now().Unix()}
				case x == 1:
					r := data.NewRow([]byte(ck))
					r.Deletion = data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: clock.Now().Unix()}
					m.Rows = []data.Row{r}
				default:
					r := data.NewRow([]byte(ck))
					r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
					c := data.Cell{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(fmt.Sprint("value-", i))}
					if x == 2 {
						c.TTL, c.LocalDeletionTime = 60, clock.Now().Unix()+60
					}
					r.Cells = []data.Cell{c}
					m.Rows = []data.Row{r}
				}
				require.NoError(t, e.Apply(ctx, tbl, m))
			}
			require.NoError(t, e.Flush(ctx, "ks", "t"))
		}
		clock.Advance(30 * time.Second)
		require.Len(t, e.SSTables("ks", "t"), 4)
		require.NoError(t, e.Compact(ctx, "ks", "t"))
		return e, pace, fsys
	}
	slow, pace, slowFS := build(4 << 10)
	fast, _, fastFS := build(-1)
	require.Nil(t, fast.throttle, "negative throughput: unthrottled")
	require.Positive(t, pace.sleeps, "the throttle paused the compaction")

	a, b := slow.SSTables("ks", "t"), fast.SSTables("ks", "t")
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	require.Greater(t, a[0].Stats.Partitions, uint64(50), "the compaction kept data")
	require.Equal(t, a[0].Files, b[0].Files)
	for _, f := range a[0].Files {
		ba := readFileBytes(t, slowFS, slowFS.PathJoin(a[0].Dir, f))
		bb := readFileBytes(t, fastFS, fastFS.PathJoin(b[0].Dir, f))
		require.Equal(t, ba, bb, "component %s differs", f)
	}
	ra, err := sstable.Open(slowFS, a[0].Dir, a[0].Gen, sstable.ReaderOptions{})
	require.NoError(t, err)
	defer ra.Close()
	require.Equal(t, *a[0].Stats, *ra.Stats())
	// The pace matches the rate: the bytes read, at 4 KiB/s, less the
	// second of burst the throttle grants.
	var in int64
	for _, r := range slow.CompactionHistory() {
		in += r.BytesIn
	}
	require.Positive(t, in)
	require.InDelta(t, float64(in)/(4<<10)-1, pace.slept.Seconds(), 1.0)
}

// TestThrottleDefaults: zero is Cassandra 4.1's 64 MiB/s, negative is no
// throttle.
func TestThrottleDefaults(t *testing.T) {
	require.Equal(t, int64(DefaultCompactionThroughput), Options{}.EnsureDefaults().CompactionThroughput)
	require.Equal(t, float64(64<<20), newThrottle(Options{}.EnsureDefaults().CompactionThroughput).rate)
	require.Nil(t, newThrottle(-1))
	var none *throttle
	require.NoError(t, none.acquire(context.Background(), 1<<30))
}

func readFileBytes(t *testing.T, fsys vfs.FS, name string) []byte {
	t.Helper()
	f, err := fsys.Open(name)
	require.NoError(t, err)
	defer f.Close()
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	return b
}
