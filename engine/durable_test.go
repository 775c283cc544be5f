package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// openDurable opens an engine on fs in "db" with a manual clock; if the
// schema has no keyspace ks it creates ks and table ks.t (testTable).
func openDurable(t testing.TB, fsys vfs.FS, opts Options) (*Engine, *ManualClock, *schema.Table) {
	t.Helper()
	clock, ok := opts.Clock.(*ManualClock)
	if !ok {
		clock = NewManualClock(testStart)
	}
	opts.Clock, opts.FS = clock, fsys
	if opts.Dir == "" {
		opts.Dir = "db"
	}
	e, err := Open(opts)
	require.NoError(t, err)
	tbl, ok := e.Table("ks", "t")
	if !ok {
		require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
			Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
		tbl = testTable("t", data.TableID{1})
		require.NoError(t, e.CreateTable(tbl))
	}
	return e, clock, tbl
}

// put writes v=val (and an INSERT liveness) at row ck of partition key.
func put(t testing.TB, e *Engine, tbl *schema.Table, key, ck, val string, ts int64) {
	t.Helper()
	r := data.NewRow([]byte(ck))
	r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(val)}}
	require.NoError(t, e.Apply(context.Background(), tbl, &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
}

// addCounter adds n to counter n of row ck of partition key.
func addCounter(t testing.TB, e *Engine, tbl *schema.Table, key, ck string, n int64, ts int64) {
	t.Helper()
	r := data.NewRow([]byte(ck))
	r.Cells = []data.Cell{{Column: "n", Kind: data.CellCounter, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(n)}}
	require.NoError(t, e.Apply(context.Background(), tbl, &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
}

// dump returns the live rows of partition key as "ck:v" or "ck:n=N"
// strings.
func dump(t testing.TB, e *Engine, tbl *schema.Table, key string, reverse bool) []string {
	t.Helper()
	_, rows := readAll(t, e, tbl, key, ReadOptions{Reverse: reverse})
	var out []string
	for _, r := range rows {
		s := string(r.Clustering) + ":"
		for _, c := range r.Cells {
			if c.Kind == data.CellCounter {
				s += fmt.Sprintf("n=%d", data.CounterValue(c.Value))
			} else {
				s += string(c.Value)
			}
		}
		out = append(out, s)
	}
	return out
}

func TestRestartKeepsSchemaAndData(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k1", "a", "1", 10)
	require.NoError(t, e.Flush(context.Background(), "ks", "t"))
	put(t, e, tbl, "k1", "b", "2", 11)
	put(t, e, tbl, "k2", "a", "3", 12)
	version := e.SchemaVersion()
	require.NoError(t, e.Close())

	e2, _, tbl2 := openDurable(t, fsys, Options{})
	defer e2.Close()
	assert.Equal(t, version, e2.SchemaVersion(), "the schema survives with the same version")
	assert.Equal(t, tbl.ID, tbl2.ID)
	assert.Equal(t, []string{"a:1", "b:2"}, dump(t, e2, tbl2, "k1", false))
	assert.Equal(t, []string{"b:2", "a:1"}, dump(t, e2, tbl2, "k1", true))
	assert.Equal(t, []string{"a:3"}, dump(t, e2, tbl2, "k2", false))
	require.Len(t, e2.SSTables("ks", "t"), 1)
}

func TestLock(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, _ := openDurable(t, fsys, Options{})
	_, err := Open(Options{Dir: "db", FS: fsys})
	require.ErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), "db")
	require.NoError(t, e.Close())
	e2, err := Open(Options{Dir: "db", FS: fsys})
	require.NoError(t, err, "the lock is released by Close")
	require.NoError(t, e2.Close())
}

func TestCountersNotDoubleCountedAfterPartialFlush(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	addCounter(t, e, tbl, "c", "x", 5, 1)
	addCounter(t, e, tbl, "c", "x", 7, 2)
	require.NoError(t, e.Flush(context.Background(), "ks", ""))
	addCounter(t, e, tbl, "c", "x", 100, 3)
	assert.Equal(t, []string{"x:n=112"}, dump(t, e, tbl, "c", false))
	// Crash without Close: the log still holds the flushed records.
	crashed := fsys.CrashClone()
	require.NoError(t, e.Close())

	for _, f := range []*vfs.MemFS{fsys, crashed} {
		e2, _, tbl2 := openDurable(t, f, Options{})
		assert.Equal(t, []string{"x:n=112"}, dump(t, e2, tbl2, "c", false))
		require.NoError(t, e2.Close())
		// And again: replaying twice does not add either.
		e3, _, tbl3 := openDurable(t, f, Options{})
		assert.Equal(t, []string{"x:n=112"}, dump(t, e3, tbl3, "c", false))
		require.NoError(t, e3.Close())
	}
}

func TestTruncateAndDropNotResurrected(t *testing.T) {
	for _, auto := range []bool{false, true} {
		t.Run(fmt.Sprintf("auto_snapshot=%t", auto), func(t *testing.T) { testTruncateAndDropNotResurrected(t, auto) })
	}
}

// testTruncateAndDropNotResurrected checks that neither truncated nor
// dropped data comes back after a restart or a crash; with auto snapshots
// the dropped table's directory keeps its snapshots and nothing else.
func testTruncateAndDropNotResurrected(t *testing.T, autoSnapshot bool) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{DisableAutoSnapshot: !autoSnapshot})
	ctx := context.Background()
	put(t, e, tbl, "k", "a", "old", 1)
	require.NoError(t, e.Flush(ctx, "", ""))
	put(t, e, tbl, "k", "b", "old", 2)
	require.NoError(t, e.Truncate("ks", "t"))
	assert.Empty(t, e.SSTables("ks", "t"))
	put(t, e, tbl, "k", "c", "new", 3)

	other := testTable("gone", data.TableID{2})
	require.NoError(t, e.CreateTable(other))
	put(t, e, other, "k", "a", "x", 1)
	require.NoError(t, e.Flush(ctx, "ks", "gone"))
	put(t, e, other, "k", "b", "y", 2)
	require.NoError(t, e.DropTable("ks", "gone"))
	crashed := fsys.CrashClone()
	require.NoError(t, e.Close())

	for _, f := range []*vfs.MemFS{fsys, crashed} {
		e2, _, tbl2 := openDurable(t, f, Options{})
		assert.Equal(t, []string{"c:new"}, dump(t, e2, tbl2, "k", false))
		_, ok := e2.Table("ks", "gone")
		assert.False(t, ok)
		names, err := f.List("db/data/ks")
		require.NoError(t, err)
		if autoSnapshot {
			assert.Equal(t, []string{TableDirName(other), TableDirName(tbl2)}, names)
			kept, err := f.List("db/data/ks/" + TableDirName(other))
			require.NoError(t, err)
			assert.Equal(t, []string{snapshotsDirName}, kept, "the dropped table's directory keeps only its snapshots")
		} else {
			assert.Equal(t, []string{TableDirName(tbl2)}, names, "the dropped table's directory is gone")
		}
		require.NoError(t, e2.Close())
	}
}

func TestOnDiskLayout(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k", "a", "1", 1)
	require.NoError(t, e.Flush(context.Background(), "ks", "t"))
	var files []string
	var walk func(dir string)
	walk = func(dir string) {
		names, err := fsys.List(dir)
		require.NoError(t, err)
		for _, n := range names {
			p := dir + "/" + n
			if fi, err := fsys.Stat(p); err == nil && fi.IsDir() {
				walk(p)
				continue
			}
			files = append(files, p)
		}
	}
	walk("db")
	assert.Equal(t, strings.Join([]string{
		"db/LOCK",
		"db/commitlog/CommitLog-1.log",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-CompressionInfo.db",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-Data.db",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-Digest.crc32",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-Filter.db",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-Index.db",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-Statistics.db",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-Summary.db",
		"db/data/ks/t-01000000000000000000000000000000/xa-1-big-TOC.txt",
		"db/schema/schema-2.db",
	}, "\n"), strings.Join(files, "\n"))
	require.NoError(t, e.Close())
}

var _ = errors.Is
var _ = commitlog.Position{}

// TestRestartAfterAllSegmentsReleased covers a reopened commit log that
// finds no segment (all were released, the empty active one removed at
// Close): its new segments must be numbered after the ones the SSTables
// refer to, or replay would skip the new records as flushed.
func TestRestartAfterAllSegmentsReleased(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k", "a", "1", 1)
	require.NoError(t, e.Flush(context.Background(), "", ""))
	require.NoError(t, e.Close())
	// A session without writes releases segment 1 and leaves none.
	e, _, _ = openDurable(t, fsys, Options{})
	require.NoError(t, e.Close())
	names, err := fsys.List("db/commitlog")
	require.NoError(t, err)
	assert.Empty(t, names)
	for i, ck := range []string{"b", "c"} {
		e, _, tbl = openDurable(t, fsys, Options{})
		put(t, e, tbl, "k", ck, "2", int64(2+i))
		require.NoError(t, e.Close())
	}
	e, _, tbl = openDurable(t, fsys, Options{})
	assert.Equal(t, []string{"a:1", "b:2", "c:2"}, dump(t, e, tbl, "k", false))
	require.NoError(t, e.Close())
}

// TestDroppedColumnsSurviveRestart checks that a table's dropped columns are
// kept in the schema file and still hide the old cells after a restart.
func TestDroppedColumnsSurviveRestart(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k1", "a", "old", 10)
	altered := schema.NewTable(tbl.Keyspace, tbl.Name, tbl.ID, tbl.Columns, tbl.Options)
	altered.Dropped = map[string]schema.DroppedColumn{"v": {Type: types.TextType, DroppedAt: 10}}
	require.NoError(t, e.AlterTable(altered))
	put(t, e, altered, "k1", "b", "new", 11)
	assert.Equal(t, []string{"a:", "b:new"}, dump(t, e, altered, "k1", false), "the cell written at the drop time is hidden")
	require.NoError(t, e.Close())

	e2, _, tbl2 := openDurable(t, fsys, Options{})
	defer e2.Close()
	assert.Equal(t, altered.Dropped, tbl2.Dropped)
	assert.Equal(t, []string{"a:", "b:new"}, dump(t, e2, tbl2, "k1", false))
}

// TestCompactionToNothingNotReplayed covers a compaction that purges
// everything and writes no SSTable: the commit-log records its inputs held
// must not be replayed after a restart. Here the partition tombstone's
// record is in a released segment and the row it shadows in the active
// one, so replaying the row alone would resurrect it.
func TestCompactionToNothingNotReplayed(t *testing.T) {
	fsys := vfs.NewMem()
	e, clock, tbl := openDurable(t, fsys, Options{})
	ctx := context.Background()
	nt := *tbl
	nt.Options.GCGraceSeconds = 0
	require.NoError(t, e.AlterTable(&nt))
	tbl, _ = e.Table("ks", "t")
	require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte("k"),
		PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: clock.Now().Unix()}}))
	require.NoError(t, e.Close())

	e, _, tbl = openDurable(t, fsys, Options{Clock: clock})
	put(t, e, tbl, "k", "a", "shadowed", 5)
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.Len(t, e.SSTables("ks", "t"), 1)
	clock.Advance(2 * time.Second)
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	require.Empty(t, e.SSTables("ks", "t"), "the tombstone and the row it shadows are purged")
	assert.Empty(t, dump(t, e, tbl, "k", false))
	crashed := fsys.CrashClone()
	require.NoError(t, e.Close())

	for _, f := range []*vfs.MemFS{fsys, crashed} {
		e, _, tbl = openDurable(t, f, Options{Clock: clock})
		assert.Empty(t, dump(t, e, tbl, "k", false), "replay applied the purged row again")
		put(t, e, tbl, "k", "b", "new", 20)
		require.NoError(t, e.Close())
		e, _, tbl = openDurable(t, f, Options{Clock: clock})
		assert.Equal(t, []string{"b:new"}, dump(t, e, tbl, "k", false), "a later write is replayed")
		require.NoError(t, e.Close())
	}
}

// TestIndexesSurviveRestart checks that a table's secondary index
// definitions are kept in the schema file.
func TestIndexesSurviveRestart(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	nt := tbl.Clone()
	nt.Indexes = []schema.Index{
		{Name: "t_v_idx", Column: "v", Target: schema.IndexSimple},
		{Name: "mk", Column: "m", Target: schema.IndexKeys},
		{Name: "sw", Column: "w", Target: schema.IndexSimple, Class: "org.apache.cassandra.index.sasi.SASIIndex", Options: map[string]string{"mode": "PREFIX"}},
	}
	require.NoError(t, e.AlterTable(nt))
	require.NoError(t, e.Close())
	e, _, tbl = openDurable(t, fsys, Options{})
	defer func() { require.NoError(t, e.Close()) }()
	assert.Equal(t, nt.Indexes, tbl.Indexes)
}
