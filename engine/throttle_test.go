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

// TestCPUShareSleepsInProportion drives a cpuShare of a quarter with a
// fake clock: each working stretch of 10 ms or more is followed by a sleep
// three times as long, shorter stretches are carried on, and the working
// time after a sleep starts afresh.
func TestCPUShareSleepsInProportion(t *testing.T) {
	now := time.Unix(0, 0)
	var sleeps []time.Duration
	c := newCPUShare(0.25)
	require.NotNil(t, c)
	c.now = func() time.Time { return now }
	c.sleep = func(_ context.Context, d time.Duration) error {
		sleeps = append(sleeps, d)
		now = now.Add(d)
		return nil
	}
	ctx := context.Background()
	require.NoError(t, c.pace(ctx)) // starts the first stretch
	now = now.Add(4 * time.Millisecond)
	require.NoError(t, c.pace(ctx))
	require.Empty(t, sleeps, "4 ms is carried on")
	now = now.Add(8 * time.Millisecond)
	require.NoError(t, c.pace(ctx))
	require.Equal(t, []time.Duration{36 * time.Millisecond}, sleeps, "12 ms of work, 36 ms of rest")
	now = now.Add(20 * time.Millisecond)
	require.NoError(t, c.pace(ctx))
	require.Equal(t, []time.Duration{36 * time.Millisecond, 60 * time.Millisecond}, sleeps,
		"the sleep is not counted as work")

	require.Nil(t, newCPUShare(0), "0: not paced")
	require.Nil(t, newCPUShare(1), "a whole core: not paced")
	var none *cpuShare
	require.NoError(t, none.pace(ctx))
}

// TestCPUShareCancelled: a pause ends with the context's error.
func TestCPUShareCancelled(t *testing.T) {
	c := newCPUShare(0.5)
	now := time.Unix(0, 0)
	c.now = func() time.Time { return now }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, c.pace(ctx))
	now = now.Add(time.Hour)
	require.ErrorIs(t, c.pace(ctx), context.Canceled)
}

// TestCompactionCPUSharePaces compacts four SSTables in an engine whose
// compactions take half a core, on a fake clock on which every look at the
// time is a millisecond of work: the compaction pauses after every
// stretch of 10 ms, and rests as long as it worked, with the byte throttle
// off. Its output is the same as without pacing.
func TestCompactionCPUSharePaces(t *testing.T) {
	ctx := context.Background()
	build := func(share float64) (*Engine, *[]time.Duration) {
		e, _, tbl := openDurable(t, vfs.NewMem(), Options{CommitLogSync: SyncNone, DisableAutoCompaction: true,
			CompactionThroughput: -1, CompactionCPUShare: share, MemtableSize: 1 << 40})
		t.Cleanup(func() { _ = e.Close() })
		var sleeps []time.Duration
		now := time.Unix(0, 0)
		e.shareHook = func(c *cpuShare) {
			c.now = func() time.Time {
				now = now.Add(time.Millisecond)
				return now
			}
			c.sleep = func(_ context.Context, d time.Duration) error {
				sleeps = append(sleeps, d)
				now = now.Add(d)
				return nil
			}
		}
		for f := 0; f < 4; f++ {
			for i := 0; i < 200; i++ {
				r := data.NewRow([]byte(fmt.Sprintf("c%02d", i%20)))
				r.Liveness = data.LivenessInfo{Timestamp: int64(f*1000 + i + 1), ExpiresAt: data.NoDeletionTime}
				r.Cells = []data.Cell{{Column: "v", Timestamp: int64(f*1000 + i + 1), LocalDeletionTime: data.NoDeletionTime, Value: []byte(fmt.Sprint("value-", f, i))}}
				m := &data.Mutation{Table: tbl.ID, Key: []byte(fmt.Sprintf("k%03d", i)), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}
				require.NoError(t, e.Apply(ctx, tbl, m))
			}
			require.NoError(t, e.Flush(ctx, "ks", "t"))
		}
		require.NoError(t, e.Compact(ctx, "ks", "t"))
		return e, &sleeps
	}
	paced, sleeps := build(0.5)
	// One pace per partition, a millisecond each, and one more look at
	// the clock after each pause: a pause follows every stretch of 10
	// looks, and at half a core rests as long as the stretch worked.
	require.GreaterOrEqual(t, len(*sleeps), 200/11-1, "the compaction paused")
	require.LessOrEqual(t, len(*sleeps), 200/10)
	for _, d := range *sleeps {
		require.Equal(t, minShareStretch, d, "half a core: as much rest as work")
	}

	plain, none := build(0)
	require.Empty(t, *none, "0: compactions are not paced")
	a, b := paced.SSTables("ks", "t"), plain.SSTables("ks", "t")
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	require.Equal(t, a[0].Stats.Partitions, b[0].Stats.Partitions)
	require.Equal(t, uint64(200), a[0].Stats.Partitions)
}
