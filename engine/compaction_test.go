package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// counterMutation adds delta to counter n of row ck in partition key.
func counterMutation(key, ck string, ts, delta int64) *data.Mutation {
	r := data.NewRow([]byte(ck))
	r.Cells = []data.Cell{{Column: "n", Kind: data.CellCounter, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(delta)}}
	return &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}
}

// snapshot reads keys k0..k<n-1> of tbl.
func snapshot(t testing.TB, e *Engine, tbl *schema.Table, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%d", i)
		fmt.Fprintf(&b, "%s %v\n", key, dump(t, e, tbl, key, false))
	}
	return b.String()
}

// TestCompactionCrashAtEveryStep crashes (CrashClone: only what was
// durable survives) before each filesystem operation of a major
// compaction, reopens the crashed copy and checks that it reads exactly
// what was written: the old SSTable set or the new one, never both (the
// counters would count twice) and never neither.
func TestCompactionCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewCrashableMem()
	var armed atomic.Bool
	var mu sync.Mutex
	var clones []*vfs.MemFS
	var ops []string
	efs := vfs.NewErrorFS(mem, vfs.InjectorFunc(func(op vfs.Op, name string) error {
		if armed.Load() {
			mu.Lock()
			clones = append(clones, mem.CrashClone())
			ops = append(ops, fmt.Sprintf("%v %s", op, name))
			mu.Unlock()
		}
		return nil
	}))
	e, clock, tbl := openDurable(t, efs, Options{CommitLogSync: SyncBatch, DisableAutoCompaction: true})
	const keys = 6
	ts := int64(100)
	for f := 0; f < 3; f++ {
		for i := 0; i < keys; i++ {
			ts++
			require.NoError(t, e.Apply(ctx, tbl, counterMutation(fmt.Sprintf("k%d", i), "a", ts, int64(f+1))))
		}
		ts++
		m := &data.Mutation{Key: []byte(fmt.Sprintf("k%d", f)), PartitionDeletion: data.LiveDeletion}
		r := data.NewRow([]byte(fmt.Sprintf("r%d", f)))
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		m.Rows = []data.Row{r}
		require.NoError(t, e.Apply(ctx, tbl, m))
		require.NoError(t, e.Flush(ctx, "ks", "t"))
	}
	want := snapshot(t, e, tbl, keys)
	require.Len(t, e.SSTables("ks", "t"), 3)

	armed.Store(true)
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	armed.Store(false)
	require.Equal(t, want, snapshot(t, e, tbl, keys))
	require.Len(t, e.SSTables("ks", "t"), 1)
	require.NoError(t, e.Close())
	require.NotEmpty(t, clones)
	t.Logf("%d crash points", len(clones))

	for i, c := range clones {
		e2, err := Open(Options{Dir: "db", FS: c, Clock: clock, CommitLogSync: SyncBatch, DisableAutoCompaction: true})
		require.NoError(t, err, "crash before op %d (%s)", i, ops[i])
		tbl2, ok := e2.Table("ks", "t")
		require.True(t, ok)
		require.Equal(t, want, snapshot(t, e2, tbl2, keys), "crash before op %d (%s)", i, ops[i])
		n := len(e2.SSTables("ks", "t"))
		require.True(t, n == 1 || n == 3, "crash before op %d (%s): %d SSTables", i, ops[i], n)
		// No compaction log and no stray component survives the reopen.
		names, err := c.List(e2.tableDir(tbl2))
		require.NoError(t, err)
		for _, name := range names {
			require.False(t, strings.HasSuffix(name, txnSuffix), "log %s left after reopen (op %d)", name, i)
		}
		require.Len(t, names, n*len(sstable.Components), "crash before op %d (%s): files %v", i, ops[i], names)
		require.NoError(t, e2.Close())
	}
}

// TestCompactionKeepsReadsInFlight checks that a read that started before
// a compaction keeps reading the old SSTables (reference counting) while
// the compaction removes them, and that their files go once it ends.
func TestCompactionKeepsReadsInFlight(t *testing.T) {
	ctx := context.Background()
	fsys := vfs.NewCrashableMem()
	e, _, tbl := openDurable(t, fsys, Options{DisableAutoCompaction: true})
	defer func() { _ = e.Close() }()
	for f := 0; f < 2; f++ {
		for i := 0; i < 50; i++ {
			m := &data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion}
			r := data.NewRow([]byte(fmt.Sprintf("%03d-%d", i, f)))
			r.Liveness = data.LivenessInfo{Timestamp: int64(i + 1), ExpiresAt: data.NoDeletionTime}
			m.Rows = []data.Row{r}
			require.NoError(t, e.Apply(ctx, tbl, m))
		}
		require.NoError(t, e.Flush(ctx, "ks", "t"))
	}
	old := e.SSTables("ks", "t")
	p, err := e.ReadPartition(ctx, tbl, []byte("p"), ReadOptions{})
	require.NoError(t, err)
	_, ok := p.Next()
	require.True(t, ok)
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	// The old files are still there: the read holds them.
	_, err = fsys.Stat(fsys.PathJoin(old[0].Dir, old[0].Name))
	require.NoError(t, err)
	n := 1
	for {
		if _, ok := p.Next(); !ok {
			break
		}
		n++
	}
	require.NoError(t, p.Close())
	require.Equal(t, 100, n)
	for _, o := range old {
		_, err = fsys.Stat(fsys.PathJoin(o.Dir, o.Name))
		require.Error(t, err, "%s removed after the read", o.Name)
	}
	st, err := e.TableStats("ks", "t")
	require.NoError(t, err)
	assert.Equal(t, 1, st.SSTableCount)
	assert.Equal(t, st.SpaceUsedLive, st.SpaceUsedTotal)
}

// TestCompactionConcurrentReadsWritesTruncate runs reads, writes, flushes,
// background compactions and truncations at once (go test -race): reads
// never fail with a closed SSTable.
func TestCompactionConcurrentReadsWritesTruncate(t *testing.T) {
	ctx := context.Background()
	e, _, tbl := openDurable(t, vfs.NewMem(), Options{MemtableSize: 8 << 10})
	defer func() { _ = e.Close() }()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var failures atomic.Int64
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				m := &data.Mutation{Key: []byte(fmt.Sprintf("k%d", i%20)), PartitionDeletion: data.LiveDeletion}
				r := data.NewRow([]byte(fmt.Sprintf("c%d-%d", w, i)))
				r.Liveness = data.LivenessInfo{Timestamp: e.NewTimestamp(), ExpiresAt: data.NoDeletionTime}
				r.Cells = []data.Cell{{Column: "v", Timestamp: r.Liveness.Timestamp, LocalDeletionTime: data.NoDeletionTime, Value: bytes.Repeat([]byte("x"), 100)}}
				m.Rows = []data.Row{r}
				if err := e.Apply(ctx, tbl, m); err != nil {
					failures.Add(1)
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p, err := e.ReadPartition(ctx, tbl, []byte(fmt.Sprintf("k%d", i%20)), ReadOptions{})
			if err != nil {
				t.Errorf("read: %v", err)
				return
			}
			for {
				if _, ok := p.Next(); !ok {
					break
				}
			}
			if err := p.Close(); err != nil {
				t.Errorf("read: %v", err)
				return
			}
		}
	}()
	for i := 0; i < 20; i++ {
		time.Sleep(2 * time.Millisecond)
		require.NoError(t, e.Flush(ctx, "ks", "t"))
		if i%7 == 6 {
			require.NoError(t, e.Truncate("ks", "t"))
		}
		if i%5 == 4 {
			require.NoError(t, e.Compact(ctx, "ks", "t"))
		}
	}
	close(stop)
	wg.Wait()
	require.Zero(t, failures.Load())
}

// TestTombstoneThresholds checks the warning past
// TombstoneWarnThreshold and ErrTombstoneOverwhelming past
// TombstoneFailureThreshold, counted over the tombstones a read meets.
func TestTombstoneThresholds(t *testing.T) {
	ctx := context.Background()
	clock := NewManualClock(testStart)
	e, err := Open(Options{Clock: clock, TombstoneWarnThreshold: 10, TombstoneFailureThreshold: 50})
	require.NoError(t, err)
	defer func() { _ = e.Close() }()
	require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
	tbl := testTable("t", data.TableID{1})
	require.NoError(t, e.CreateTable(tbl))
	deleteRows := func(key string, n int) {
		for i := 0; i < n; i++ {
			r := data.NewRow([]byte(fmt.Sprintf("%03d", i)))
			r.Deletion = data.DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: clock.Now().Unix()}
			require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
		}
	}
	deleteRows("few", 5)
	deleteRows("some", 20)
	deleteRows("many", 60)
	read := func(key string) (*ReadStats, error) {
		p, err := e.ReadPartition(ctx, tbl, []byte(key), ReadOptions{})
		if err != nil {
			return nil, err
		}
		for {
			if _, ok := p.Next(); !ok {
				break
			}
		}
		return p.Stats(), p.Close()
	}
	st, err := read("few")
	require.NoError(t, err)
	assert.False(t, st.TombstoneWarning())
	st, err = read("some")
	require.NoError(t, err)
	assert.True(t, st.TombstoneWarning())
	assert.Equal(t, 20, st.TombstonesScanned())
	_, err = read("many")
	require.ErrorIs(t, err, ErrTombstoneOverwhelming)
	// Scans count over the whole query.
	sc, err := e.Scan(ctx, tbl, data.FullRing, ReadOptions{})
	require.NoError(t, err)
	for {
		if _, ok := sc.Next(); !ok {
			break
		}
	}
	require.ErrorIs(t, sc.Close(), ErrTombstoneOverwhelming)

	// Past gc_grace_seconds the tombstones are purgeable, and a read does
	// not count them (ReadCommand.withoutPurgeableTombstones).
	clock.Advance(time.Duration(tbl.Options.GCGraceSeconds+1) * time.Second)
	st, err = read("many")
	require.NoError(t, err)
	assert.Zero(t, st.TombstonesScanned())
	sc, err = e.Scan(ctx, tbl, data.FullRing, ReadOptions{})
	require.NoError(t, err)
	for {
		if _, ok := sc.Next(); !ok {
			break
		}
	}
	require.NoError(t, sc.Close())
}

// TestLargePartitionWarning checks the log lines of flushes and
// compactions writing partitions past the size and row thresholds.
func TestLargePartitionWarning(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil))
	e, err := Open(Options{Logger: logger, LargePartitionWarnBytes: 4 << 10, WidePartitionWarnRows: 30})
	require.NoError(t, err)
	defer func() { _ = e.Close() }()
	require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
	tbl := testTable("t", data.TableID{1})
	require.NoError(t, e.CreateTable(tbl))
	for i := 0; i < 40; i++ {
		r := data.NewRow([]byte(fmt.Sprintf("%03d", i)))
		r.Cells = []data.Cell{{Column: "v", Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: bytes.Repeat([]byte("v"), 200)}}
		require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte("big"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
	}
	require.NoError(t, e.Apply(ctx, tbl, counterMutation("small", "a", 1, 1)))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	assert.Contains(t, out, "Writing large partition ks/t:626967 (")
	assert.Contains(t, out, "Writing wide partition ks/t:626967 (40 rows) to sstable xa-1-big-Data.db")
	assert.Equal(t, 2, strings.Count(out, "Writing large partition"), "flush and compaction")
	assert.NotContains(t, out, "736d616c6c") // "small"
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestSTCSBuckets checks Cassandra's bucketing on sizes.
func TestSTCSBuckets(t *testing.T) {
	mk := func(sizes ...int64) []*sstableSource {
		var out []*sstableSource
		for i, s := range sizes {
			out = append(out, &sstableSource{name: fmt.Sprintf("s%d", i), stats: &sstable.Stats{CompressedSize: uint64(s), Partitions: 1}})
		}
		return out
	}
	names := func(bs [][]*sstableSource) string {
		var parts []string
		for _, b := range bs {
			var ns []string
			for _, s := range b {
				ns = append(ns, s.name)
			}
			parts = append(parts, strings.Join(ns, ","))
		}
		return strings.Join(parts, " | ")
	}
	// Below min_sstable_size everything is one bucket.
	assert.Equal(t, "s0,s2,s1", names(stcsBuckets(mk(10, 1000, 100), 0.5, 1.5, 50<<20)))
	// Above it, sizes within 0.5..1.5 of the average group.
	const M = 1 << 20
	assert.Equal(t, "s1,s0,s3 | s2", names(stcsBuckets(mk(110*M, 100*M, 400*M, 120*M), 0.5, 1.5, 50*M)))
	b := mostInterestingBucket(stcsBuckets(mk(110*M, 100*M, 400*M, 120*M, 90*M), 0.5, 1.5, 50*M), 4, 32)
	assert.Len(t, b, 4)
	assert.Nil(t, mostInterestingBucket(stcsBuckets(mk(110*M, 100*M, 400*M), 0.5, 1.5, 50*M), 4, 32))
	// max_threshold trims.
	assert.Len(t, mostInterestingBucket(stcsBuckets(mk(1, 2, 3, 4, 5, 6), 0.5, 1.5, 50*M), 4, 5), 5)
}

// TestTWCSWindows checks getWindowBoundsInMillis's window starts.
func TestTWCSWindows(t *testing.T) {
	p, err := parseCompaction(map[string]string{"class": "TimeWindowCompactionStrategy", "compaction_window_unit": "HOURS", "compaction_window_size": "2"})
	require.NoError(t, err)
	ts := time.Date(2024, 5, 1, 13, 59, 59, 0, time.UTC)
	assert.Equal(t, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).Unix(), p.twcsWindow(ts.UnixMicro()))
	assert.Equal(t, time.Date(2024, 5, 1, 14, 0, 0, 0, time.UTC).Unix(), p.twcsWindow(ts.Add(time.Second).UnixMicro()))
	p, err = parseCompaction(map[string]string{"class": "TimeWindowCompactionStrategy", "timestamp_resolution": "MILLISECONDS"})
	require.NoError(t, err)
	assert.Equal(t, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Unix(), p.twcsWindow(ts.UnixMilli()))
}

// TestValidateCompactionOptions checks Cassandra's messages.
func TestValidateCompactionOptions(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		msg  string
	}{
		{map[string]string{"class": "SizeTieredCompactionStrategy"}, ""},
		{map[string]string{"class": "LeveledCompactionStrategy"}, ""},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "bucket_high": "x"}, "x is not a parsable int (base10) for 1.5"},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "bucket_low": "1", "bucket_high": "1"}, "Bucket high value (1.0) is less than or equal bucket low value (1.0)"},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "min_sstable_size": "-1"}, "min_sstable_size must be non negative: -1"},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "tombstone_threshold": "-1"}, "tombstone_threshold must be greater than 0, but was -1.000000"},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "tombstone_compaction_interval": "x"}, "x is not a parsable int (base10) for tombstone_compaction_interval"},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "unchecked_tombstone_compaction": "yes"}, "'unchecked_tombstone_compaction' should be either 'true' or 'false', not 'yes'"},
		{map[string]string{"class": "SizeTieredCompactionStrategy", "enabled": "maybe"}, "Invalid value maybe for 'enabled' compaction sub-option - must be 'true' or 'false'"},
		{map[string]string{"class": "TimeWindowCompactionStrategy", "compaction_window_size": "0"}, "0 must be greater than 1 for compaction_window_size"},
		{map[string]string{"class": "TimeWindowCompactionStrategy", "timestamp_resolution": "HOURS"}, "HOURS is not valid for timestamp_resolution"},
	} {
		err := ValidateCompactionOptions(tc.opts)
		if tc.msg == "" {
			assert.NoError(t, err, "%v", tc.opts)
			continue
		}
		require.ErrorIs(t, err, ErrInvalidCompactionOptions, "%v", tc.opts)
		assert.Equal(t, tc.msg, CompactionErrorMessage(err))
	}
}

// TestTxnLogTornTail checks that a damaged or torn record ends the log.
func TestTxnLogTornTail(t *testing.T) {
	full := txnLine("remove", 1) + txnLine("remove", 2) + txnLine("add", 5) + txnLine("commit", 0)
	r := parseTxn([]byte(full))
	assert.Equal(t, []int{1, 2}, r.remove)
	assert.Equal(t, []int{5}, r.add)
	assert.True(t, r.committed)
	// A record is complete once its checksum is: only the newline may be
	// missing.
	for cut := 0; cut < len(full)-1; cut++ {
		r := parseTxn([]byte(full[:cut]))
		assert.False(t, r.committed, "cut at %d", cut)
	}
	bad := []byte(full)
	bad[len(bad)-3] ^= 1 // damage the commit record's checksum
	assert.False(t, parseTxn(bad).committed)
}

// TestCompactionErrorsLeaveInputs injects a failure at every write of a
// compaction and checks that the inputs stay readable and nothing of the
// outputs remains.
func TestCompactionErrorsLeaveInputs(t *testing.T) {
	ctx := context.Background()
	for n := 1; n < 40; n++ {
		mem := vfs.NewMem()
		var armed atomic.Bool
		var count atomic.Int64
		efs := vfs.NewErrorFS(mem, vfs.InjectorFunc(func(op vfs.Op, name string) error {
			if armed.Load() && (op == vfs.OpWrite || op == vfs.OpSync || op == vfs.OpCreate || op == vfs.OpSyncDir) && count.Add(1) == int64(n) {
				return vfs.ErrInjected
			}
			return nil
		}))
		e, _, tbl := openDurable(t, efs, Options{DisableAutoCompaction: true})
		rng := rand.New(rand.NewSource(int64(n)))
		for f := 0; f < 3; f++ {
			for i := 0; i < 5; i++ {
				require.NoError(t, e.Apply(ctx, tbl, counterMutation(fmt.Sprintf("k%d", i), "a", int64(f*10+i+1), rng.Int63n(10))))
			}
			require.NoError(t, e.Flush(ctx, "ks", "t"))
		}
		want := snapshot(t, e, tbl, 5)
		armed.Store(true)
		err := e.Compact(ctx, "ks", "t")
		armed.Store(false)
		if err == nil {
			require.Len(t, e.SSTables("ks", "t"), 1)
		} else {
			require.True(t, errors.Is(err, ErrCompaction), "%v", err)
			require.Len(t, e.SSTables("ks", "t"), 3)
		}
		require.Equal(t, want, snapshot(t, e, tbl, 5))
		require.NoError(t, e.Close())
		e2, err := Open(Options{Dir: "db", FS: mem, DisableAutoCompaction: true})
		require.NoError(t, err)
		tbl2, _ := e2.Table("ks", "t")
		require.Equal(t, want, snapshot(t, e2, tbl2, 5), "after a failure at op %d and a restart", n)
		require.NoError(t, e2.Close())
	}
}

// FuzzParseTxn feeds arbitrary bytes to the compaction-log decoder: it
// never panics, and what it accepts re-encodes to a log that decodes to
// the same records.
func FuzzParseTxn(f *testing.F) {
	f.Add([]byte(txnLine("remove", 1) + txnLine("add", 2) + txnLine("commit", 0)))
	f.Add([]byte(txnLine("remove", 1) + "add 2 0000"))
	f.Add([]byte("commit 0 ffffffff\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := parseTxn(b)
		var re strings.Builder
		for _, g := range r.remove {
			re.WriteString(txnLine("remove", g))
		}
		for _, g := range r.add {
			re.WriteString(txnLine("add", g))
		}
		if r.committed {
			re.WriteString(txnLine("commit", 0))
		}
		r2 := parseTxn([]byte(re.String()))
		require.Equal(t, r.remove, r2.remove)
		require.Equal(t, r.add, r2.add)
		require.Equal(t, r.committed, r2.committed)
	})
}

// TestPeriodicCompactionCheck checks that time passing alone gets expired
// SSTables dropped: after a restart nothing flushes, and the periodic check
// finds the TWCS SSTable whose data all expired.
func TestPeriodicCompactionCheck(t *testing.T) {
	fsys := vfs.NewMem()
	e, clock, tbl := openDurable(t, fsys, Options{})
	ctx := context.Background()
	nt := *tbl
	nt.Options.GCGraceSeconds = 0
	nt.Options.Compaction = map[string]string{"class": "TimeWindowCompactionStrategy"}
	require.NoError(t, e.AlterTable(&nt))
	tbl, _ = e.Table("ks", "t")
	r := data.NewRow([]byte("a"))
	now := clock.Now().Unix()
	r.Cells = []data.Cell{{Column: "v", Timestamp: e.NewTimestamp(), TTL: 60, LocalDeletionTime: now + 60, Value: []byte("1")}}
	require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte("k"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.Close()) // waits for the compaction check after the flush

	clock.Advance(61 * time.Second)
	e, _, _ = openDurable(t, fsys, Options{Clock: clock, CompactionCheckPeriod: time.Millisecond})
	defer func() { require.NoError(t, e.Close()) }()
	// The compaction publishes its new SSTable set before it records its
	// history entry: wait for both.
	require.Eventually(t, func() bool { return len(e.SSTables("ks", "t")) == 0 && len(e.CompactionHistory()) > 0 }, 10*time.Second, time.Millisecond,
		"the expired SSTable is still listed, or its compaction not yet in the history")
	h := e.CompactionHistory()
	require.NotEmpty(t, h)
	assert.Equal(t, "expired", h[len(h)-1].Reason)
}

// TestPurgeSeesMemtableFlushedDuringCompaction flushes, while a compaction
// runs, a memtable holding data older than a purgeable partition
// tombstone: the flush moves the data from the memtable list to a new
// SSTable outside the compaction, and the compaction must still see it and
// keep the tombstone, or the deleted row comes back.
func TestPurgeSeesMemtableFlushedDuringCompaction(t *testing.T) {
	ctx := context.Background()
	e, clock, tbl := openDurable(t, vfs.NewMem(), Options{DisableAutoCompaction: true})
	defer func() { require.NoError(t, e.Close()) }()
	nt := *tbl
	nt.Options.GCGraceSeconds = 0
	require.NoError(t, e.AlterTable(&nt))
	tbl, _ = e.Table("ks", "t")

	del := &data.Mutation{Key: []byte("p"), PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: 20, LocalDeletionTime: clock.Now().Unix()}}
	require.NoError(t, e.Apply(ctx, tbl, del))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	clock.Advance(10 * time.Second)

	// Older data, applied after the tombstone reached an SSTable.
	m := &data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion}
	r := data.NewRow([]byte("c"))
	r.Liveness = data.LivenessInfo{Timestamp: 10, ExpiresAt: data.NoDeletionTime}
	m.Rows = []data.Row{r}
	require.NoError(t, e.Apply(ctx, tbl, m))
	switched, err := e.SwitchMemtable(tbl)
	require.NoError(t, err)
	require.True(t, switched)

	s, err := e.storeFor(tbl)
	require.NoError(t, err)
	e.compactionBegun = func() { require.NoError(t, e.flushStore(s)) }
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	e.compactionBegun = nil

	_, rows := readAll(t, e, tbl, "p", ReadOptions{})
	assert.Empty(t, rows, "the row deleted at 20 is shadowed")
	assert.Len(t, e.SSTables("ks", "t"), 2, "the tombstone is kept next to the flushed data")
}

// TestCompactionRecordCounts checks what a compaction record says went in
// and came out: a partition deleted past gc_grace_seconds is purged with
// its tombstone, and the counts survive a reopen of the history.
func TestCompactionRecordCounts(t *testing.T) {
	ctx := context.Background()
	fsys := vfs.NewMem()
	e, clock, tbl := openDurable(t, fsys, Options{DisableAutoCompaction: true})
	nt := *tbl
	nt.Options.GCGraceSeconds = 0
	require.NoError(t, e.AlterTable(&nt))
	tbl, _ = e.Table("ks", "t")
	row := func(key string, ts int64) *data.Mutation {
		r := data.NewRow([]byte("c"))
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte("1")}}
		return &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}
	}
	require.NoError(t, e.Apply(ctx, tbl, row("gone", 10)))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte("gone"),
		PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: 20, LocalDeletionTime: clock.Now().Unix()}}))
	require.NoError(t, e.Apply(ctx, tbl, row("kept", 30)))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	clock.Advance(10 * time.Second)
	require.NoError(t, e.Compact(ctx, "ks", "t"))

	want := func(h []CompactionRecord) {
		t.Helper()
		require.Len(t, h, 1)
		require.NotNil(t, h[0].In)
		require.NotNil(t, h[0].Out)
		assert.Equal(t, CompactionCounts{Partitions: 3, Rows: 2, Cells: 2, Tombstones: 1}, *h[0].In)
		assert.Equal(t, CompactionCounts{Partitions: 1, Rows: 1, Cells: 1}, *h[0].Out)
	}
	want(e.CompactionHistory())
	require.NoError(t, e.Close())
	e, _, _ = openDurable(t, fsys, Options{Clock: clock, DisableAutoCompaction: true})
	defer func() { require.NoError(t, e.Close()) }()
	want(e.CompactionHistory())
}
