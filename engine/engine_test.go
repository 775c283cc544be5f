package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
)

func TestOpenOptions(t *testing.T) {
	e, err := Open(Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(DefaultMemtableSize), e.Options().MemtableSize)
	require.NoError(t, e.Close())
	assert.ErrorIs(t, e.Close(), ErrClosed)
	assert.ErrorIs(t, e.CreateKeyspace(&schema.Keyspace{Name: "x"}), ErrClosed)

	_, err = Open(Options{MemtableSize: -1})
	assert.ErrorIs(t, err, ErrInvalidOptions)
}

func TestTimestamps(t *testing.T) {
	clock := NewManualClock(testStart)
	e, err := Open(Options{Clock: clock})
	require.NoError(t, err)
	base := testStart.UnixMicro()
	assert.Equal(t, base, e.NewTimestamp())
	assert.Equal(t, base+1, e.NewTimestamp(), "a stopped clock still gives increasing timestamps")
	clock.Set(testStart.Add(-time.Hour))
	assert.Equal(t, base+2, e.NewTimestamp(), "a clock moving back does not move timestamps back")
	clock.Set(testStart.Add(time.Second))
	assert.Equal(t, base+1_000_000, e.NewTimestamp())
	assert.Equal(t, testStart.Unix()+1, e.Now())

	// Concurrent callers never get the same timestamp.
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				ts := e.NewTimestamp()
				mu.Lock()
				seen[ts] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, seen, 4000)
}

func TestSchemaRegistry(t *testing.T) {
	e, _, tbl := newTestEngine(t)
	var changes []string
	cancel := e.Subscribe(func(c SchemaChange) {
		changes = append(changes, fmt.Sprintf("%s %s %s.%s", c.Kind, c.Target, c.Keyspace, c.Table))
	})
	v0 := e.SchemaVersion()

	ks2 := &schema.Keyspace{Name: "ks2", Replication: map[string]string{"class": "SimpleStrategy"}}
	require.NoError(t, e.CreateKeyspace(ks2))
	assert.ErrorIs(t, e.CreateKeyspace(ks2), ErrKeyspaceExists)
	v1 := e.SchemaVersion()
	assert.NotEqual(t, v0, v1)
	assert.Equal(t, byte(0x30), v1[6]&0xf0, "a version 3 UUID")

	assert.ErrorIs(t, e.CreateTable(tbl), ErrTableExists)
	other := testTable("t", data.TableID{2})
	other.Keyspace = "nope"
	assert.ErrorIs(t, e.CreateTable(other), ErrNoKeyspace)
	t2 := testTable("t2", data.TableID{2})
	require.NoError(t, e.CreateTable(t2))
	assert.Len(t, e.Tables("ks"), 2)
	assert.Equal(t, "t", e.Tables("ks")[0].Name)

	// AlterTable keeps the data and needs the same ID.
	require.NoError(t, e.Apply(context.Background(), t2, mutationOf("k", "a", "v", "1", 1)))
	t2b := testTable("t2", data.TableID{2})
	t2b.Options.Comment = "changed"
	require.NoError(t, e.AlterTable(t2b))
	got, ok := e.Table("ks", "t2")
	require.True(t, ok)
	assert.Equal(t, "changed", got.Options.Comment)
	_, rows := readAll(t, e, got, "k", ReadOptions{})
	assert.Len(t, rows, 1)
	assert.ErrorIs(t, e.AlterTable(testTable("t2", data.TableID{9})), ErrTableIDMismatch)
	assert.ErrorIs(t, e.AlterTable(testTable("t9", data.TableID{9})), ErrNoTable)

	// A table dropped and created again under the same name is empty.
	require.NoError(t, e.DropTable("ks", "t2"))
	assert.ErrorIs(t, e.DropTable("ks", "t2"), ErrNoTable)
	assert.ErrorIs(t, e.Apply(context.Background(), t2, mutationOf("k", "a", "v", "1", 1)), ErrNoTable)
	t2c := testTable("t2", data.TableID{3})
	require.NoError(t, e.CreateTable(t2c))
	_, rows = readAll(t, e, t2c, "k", ReadOptions{})
	assert.Empty(t, rows)

	require.NoError(t, e.AlterKeyspace(&schema.Keyspace{Name: "ks2", DurableWrites: true}))
	ks, _ := e.Keyspace("ks2")
	assert.True(t, ks.DurableWrites)
	require.NoError(t, e.DropKeyspace("ks"))
	assert.ErrorIs(t, e.DropKeyspace("ks"), ErrNoKeyspace)
	_, ok = e.Table("ks", "t")
	assert.False(t, ok)
	assert.Len(t, e.Keyspaces(), 1)
	assert.ErrorIs(t, e.Truncate("ks", "t"), ErrNoKeyspace)

	cancel()
	require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks3"}))
	assert.Equal(t, []string{
		"CREATED KEYSPACE ks2.", "CREATED TABLE ks.t2", "UPDATED TABLE ks.t2", "DROPPED TABLE ks.t2",
		"CREATED TABLE ks.t2", "UPDATED KEYSPACE ks2.", "DROPPED KEYSPACE ks.",
	}, changes)
}

func mutationOf(key, ck, col, val string, ts int64) *data.Mutation {
	r := data.NewRow([]byte(ck))
	r.Cells = []data.Cell{{Column: col, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(val)}}
	return &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}
}

func TestApplyValidation(t *testing.T) {
	e, _, tbl := newTestEngine(t)
	ctx := context.Background()
	big := mutationOf(string(make([]byte, MaxKeySize+1)), "a", "v", "1", 1)
	assert.ErrorIs(t, e.Apply(ctx, tbl, big), ErrKeyTooLarge)
	huge := mutationOf("k", "a", "v", string(make([]byte, MaxMutationSize)), 1)
	assert.ErrorIs(t, e.Apply(ctx, tbl, huge), ErrMutationTooLarge)

	m := mutationOf("k", "a", "v", "1", 1)
	m.Rows[0].Cells = append(m.Rows[0].Cells, data.Cell{Column: "a", Timestamp: 1, LocalDeletionTime: data.NoDeletionTime})
	assert.ErrorIs(t, e.Apply(ctx, tbl, m), ErrInvalidMutation, "unsorted cells")

	m = mutationOf("k", "a", "n", "1", 1)
	m.Rows[0].Cells[0].Kind = data.CellCounter
	assert.ErrorIs(t, e.Apply(ctx, tbl, m), ErrInvalidMutation, "short counter")

	m = mutationOf("k", "a", "v", "1", 1)
	m.Rows[0].Cells[0].TTL, m.Rows[0].Cells[0].LocalDeletionTime = 100, MaxExpirationTime+1
	assert.ErrorIs(t, e.Apply(ctx, tbl, m), ErrExpirationOverflow)

	m = mutationOf("k", "a", "v", "1", 1)
	m.Table = data.TableID{7}
	assert.ErrorIs(t, e.Apply(ctx, tbl, m), ErrInvalidMutation)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, e.Apply(cctx, tbl, mutationOf("k", "a", "v", "1", 1)), context.Canceled)
	_, err := e.ReadPartition(cctx, tbl, []byte("k"), ReadOptions{})
	assert.ErrorIs(t, err, context.Canceled)

	// Nothing invalid was applied.
	_, rows := readAll(t, e, tbl, "k", ReadOptions{})
	assert.Empty(t, rows)
	st, err := e.MemtableStats(tbl)
	require.NoError(t, err)
	assert.Zero(t, st.Partitions)
}

// fakeSource is an SSTable stand-in: a memtable that reports a skip reason.
type fakeSource struct {
	memtableSource
	reason string
}

func (f *fakeSource) Kind() SourceKind { return SourceSSTable }

func (f *fakeSource) Partition(ctx context.Context, token int64, key []byte) (data.PartitionSource, string, error) {
	ps, skip, err := f.memtableSource.Partition(ctx, token, key)
	if ps == nil {
		skip = f.reason
	}
	return ps, skip, err
}

func TestReadStatsSources(t *testing.T) {
	e, _, tbl := newTestEngine(t)
	ctx := context.Background()
	sst := &fakeSource{memtableSource: memtableSource{name: "nb-1-big-Data.db", mt: newMemtableWith(t, "k", "b", 3)}, reason: "bloom filter"}
	require.NoError(t, e.AddSource(tbl, sst))
	require.NoError(t, e.Apply(ctx, tbl, mutationOf("k", "a", "v", "mem", 5)))

	_, rows := readAll(t, e, tbl, "k", ReadOptions{})
	require.Len(t, rows, 2)
	p, err := e.ReadPartition(ctx, tbl, []byte("other"), ReadOptions{})
	require.NoError(t, err)
	_, ok := p.Next()
	assert.False(t, ok)
	require.NoError(t, p.Close())
	assert.Equal(t, []SourceStats{
		{Name: "memtable-1", Kind: SourceMemtable, Skipped: 1, SkipReason: "not present"},
		{Name: "nb-1-big-Data.db", Kind: SourceSSTable, Skipped: 1, SkipReason: "bloom filter"},
	}, p.Stats().Sources)
}

func newMemtableWith(t *testing.T, key, ck string, ts int64) *memtableMT {
	mt := newMT()
	mt.Apply(int64(partitioner.Murmur3([]byte(key))), mutationOf(key, ck, "v", "sst", ts))
	return mt
}

// TestConcurrentReadWriteSchema runs writers, readers, scanners and schema
// changes at once; run it under -race. Each write puts the same value in two
// rows of a partition, and readers check they never see a torn mutation.
func TestConcurrentReadWriteSchema(t *testing.T) {
	e, _, tbl := newTestEngine(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	const n = 300
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				key := fmt.Sprintf("k%d", i%7)
				ts := e.NewTimestamp()
				m := mutationOf(key, "a", "v", fmt.Sprint(ts), ts)
				r := data.NewRow([]byte("b"))
				r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(fmt.Sprint(ts))}}
				m.Rows = append(m.Rows, r)
				if err := e.Apply(ctx, tbl, m); err != nil {
					errc <- err
					return
				}
				if i%100 == 0 {
					if _, err := e.SwitchMemtable(tbl); err != nil {
						errc <- err
						return
					}
				}
			}
		}(w)
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				sc, err := e.Scan(ctx, tbl, data.FullRing, ReadOptions{Reverse: r == 1})
				if err != nil {
					errc <- err
					return
				}
				for {
					p, ok := sc.Next()
					if !ok {
						break
					}
					var vals []string
					for {
						row, ok := p.Next()
						if !ok {
							break
						}
						vals = append(vals, string(row.Cells[0].Value))
					}
					if len(vals) != 2 || vals[0] != vals[1] {
						errc <- fmt.Errorf("torn partition %s: %q", p.Key(), vals)
					}
				}
				if err := sc.Close(); err != nil {
					errc <- err
					return
				}
			}
		}(r)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			name := fmt.Sprintf("x%d", i)
			if err := e.CreateTable(testTable(name, data.TableID{byte(i), 9})); err != nil {
				errc <- err
				return
			}
			_ = e.SchemaVersion()
			if err := e.DropTable("ks", name); err != nil {
				errc <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errc)
	for err := range errc {
		require.NoError(t, err)
	}
}

// TestRealClock checks that the system clock, which reads the wall clock
// only once per anchorAge, stays within a millisecond of time.Now and never
// goes back between two readings taken in order.
func TestRealClock(t *testing.T) {
	c := RealClock()
	prev := c.Now()
	for i := 0; i < 1000; i++ {
		before := time.Now()
		got := c.Now()
		after := time.Now()
		require.False(t, got.Before(prev), "clock went back from %v to %v", prev, got)
		require.WithinRange(t, got, before.Add(-time.Millisecond), after.Add(time.Millisecond))
		prev = got
	}
	// nowMicro, NewTimestamp's reading, is Now's in microseconds: it
	// lies between two readings of Now taken around it.
	rc := systemClock
	for i := 0; i < 1000; i++ {
		before := rc.Now().UnixMicro()
		got := rc.nowMicro()
		after := rc.Now().UnixMicro()
		require.True(t, before <= got && got <= after, "nowMicro %d not within [%d, %d]", got, before, after)
	}
	// A reading with no anchor reads the wall clock and anchors.
	for i := 0; i < 10; i++ {
		rc.anchor.Store(nil)
		before := time.Now().UnixMicro()
		got := rc.nowMicro()
		after := time.Now().UnixMicro()
		require.True(t, before <= got && got <= after, "nowMicro %d not within [%d, %d] after anchoring", got, before, after)
		require.NotNil(t, rc.anchor.Load())
	}
}
