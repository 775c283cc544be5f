package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// logClass makes logIndexes, which log their Indexer calls.
type logClass struct {
	mu  sync.Mutex
	log []string
	// initErr, when set, is what the indexes' initialization returns.
	initErr error
	dropped int
}

func (c *logClass) NewIndex(t *schema.Table, ix *schema.Index) CustomIndex {
	return &logIndex{c: c, name: ix.Name}
}

func (c *logClass) add(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, fmt.Sprintf(format, args...))
}

func (c *logClass) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.Join(c.log, "\n")
	c.log = nil
	return s
}

type logIndex struct {
	c    *logClass
	name string
}

func (x *logIndex) Indexer(key []byte, now int64) Indexer { return logIndexer{x} }

func (x *logIndex) InitializationTask() func() error {
	if x.c.initErr == nil {
		return nil
	}
	err := x.c.initErr
	return func() error { return err }
}

func (x *logIndex) Dropped() { x.c.mu.Lock(); x.c.dropped++; x.c.mu.Unlock() }

type logIndexer struct{ x *logIndex }

func (l logIndexer) Begin()  { l.x.c.add("%s begin", l.x.name) }
func (l logIndexer) Finish() { l.x.c.add("%s finish", l.x.name) }
func (l logIndexer) PartitionDelete(d data.DeletionTime) {
	l.x.c.add("%s partitionDelete live=%v at=%d", l.x.name, d.IsLive(), d.MarkedForDeleteAt)
}
func (l logIndexer) RangeTombstone(rt data.RangeTombstone) {
	l.x.c.add("%s rangeTombstone [%s, %s] at=%d", l.x.name, rt.Start, rt.End, rt.Deletion.MarkedForDeleteAt)
}
func (l logIndexer) InsertRow(r *data.Row) { l.x.c.add("%s insert %s", l.x.name, rowText(r)) }
func (l logIndexer) UpdateRow(old, new *data.Row) {
	l.x.c.add("%s update %s -> %s", l.x.name, rowText(old), rowText(new))
}
func (l logIndexer) RemoveRow(r *data.Row) { l.x.c.add("%s remove %s", l.x.name, rowText(r)) }

// rowText prints a row's clustering, liveness timestamp, deletion and cells.
func rowText(r *data.Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q ts=%d", r.Clustering, r.Liveness.Timestamp)
	if !r.Deletion.IsLive() {
		fmt.Fprintf(&b, " del=%d", r.Deletion.MarkedForDeleteAt)
	}
	for _, c := range r.Cells {
		if c.IsTombstone() {
			fmt.Fprintf(&b, " %s=tombstone@%d", c.Column, c.Timestamp)
		} else {
			fmt.Fprintf(&b, " %s=%s@%d", c.Column, c.Value, c.Timestamp)
		}
	}
	return b.String()
}

// newIndexedEngine opens an in-memory engine whose table ks.t has the
// custom index li of class on column v, and returns the table as altered.
func newIndexedEngine(t *testing.T, class IndexClass) (*Engine, *schema.Table) {
	e, _, tbl := newTestEngineOpts(t, Options{IndexClasses: map[string]IndexClass{"org.example.LogIndex": class}})
	nt := tbl.Clone()
	nt.Indexes = []schema.Index{{Name: "li", Column: "v", Class: "org.example.LogIndex"}}
	require.NoError(t, e.AlterTable(nt))
	cur, _ := e.Table("ks", "t")
	return e, cur
}

func cell(col, v string, ts int64) data.Cell {
	return data.Cell{Column: col, Kind: data.CellRegular, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(v)}
}

func TestCustomIndexWritePath(t *testing.T) {
	class := &logClass{}
	e, tbl := newIndexedEngine(t, class)
	ctx := context.Background()
	apply := func(m *data.Mutation) {
		t.Helper()
		require.NoError(t, e.Apply(ctx, tbl, m))
	}
	row := func(c string, ts int64, cells ...data.Cell) data.Row {
		r := data.NewRow([]byte(c))
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		r.Cells = cells
		return r
	}

	// A new row, then the same row with one cell changed and one the same:
	// the update carries only the changed cell, old and new.
	apply(&data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row("a", 1, cell("v", "x", 1), cell("w", "y", 1))}})
	assert.Equal(t, "li begin\nli insert \"a\" ts=1 v=x@1 w=y@1\nli finish", class.take())
	apply(&data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{{Clustering: []byte("a"), Liveness: data.EmptyLiveness, Deletion: data.LiveDeletion,
		Cells: []data.Cell{cell("v", "z", 2), cell("w", "y", 1)}}}})
	assert.Equal(t, "li begin\nli update \"a\" ts=1 v=x@1 -> \"a\" ts=1 v=z@2\nli finish", class.take())

	// A static row, a partition deletion and a range tombstone: the
	// deletions come before the rows, in Cassandra's order.
	static := data.NewRow(nil)
	static.Cells = []data.Cell{cell("s", "st", 3)}
	apply(&data.Mutation{Key: []byte("p"), Static: &static,
		PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: 2, LocalDeletionTime: 100},
		RangeTombstones:   []data.RangeTombstone{{Start: []byte("b"), End: []byte("c"), Deletion: data.DeletionTime{MarkedForDeleteAt: 3, LocalDeletionTime: 100}}}})
	assert.Equal(t, fmt.Sprintf("li begin\nli partitionDelete live=false at=2\nli rangeTombstone [b, c] at=3\nli insert \"\" ts=%d s=st@3\nli finish", data.NoTimestamp), class.take())

	// After a flush the memtable is empty: the row is new to it again.
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	apply(&data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row("a", 5, cell("v", "q", 5))}})
	assert.Equal(t, "li begin\nli insert \"a\" ts=5 v=q@5\nli finish", class.take())

	// The instance lives as long as the index: DROP INDEX tells it.
	nt := tbl.Clone()
	nt.Indexes = nil
	require.NoError(t, e.AlterTable(nt))
	_, ok := e.CustomIndex(nt, "li")
	assert.False(t, ok)
	assert.Equal(t, 1, class.dropped)
	apply(&data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row("a", 6, cell("v", "r", 6))}})
	assert.Empty(t, class.take())
}

func TestCustomIndexFailedInitialization(t *testing.T) {
	class := &logClass{initErr: errors.New("no")}
	e, tbl := newIndexedEngine(t, class)
	ctx := context.Background()
	for e.CustomIndexBuilding(tbl, "li") {
	}
	// 4.1's default load after a failed initial build: writes, no reads.
	assert.False(t, e.CustomIndexQueryable(tbl, "li"))
	require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{{Clustering: []byte("a"),
		Liveness: data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime}, Deletion: data.LiveDeletion, Cells: []data.Cell{cell("v", "x", 1)}}}}))
	assert.Equal(t, "li begin\nli insert \"a\" ts=1 v=x@1\nli finish", class.take())

	// A rebuild reads the SSTables' partitions whole (here none: the row
	// is in the memtable, and the index was writable, so no flush), then
	// the index is queryable.
	require.NoError(t, e.RebuildCustomIndexes(ctx, tbl, "li"))
	assert.Empty(t, class.take())
	assert.True(t, e.CustomIndexQueryable(tbl, "li"))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.RebuildCustomIndexes(ctx, tbl, "li"))
	// Begin, the partition deletion (live here: 4.1 calls partitionDelete
	// with whatever the partition has), the rows, Finish.
	assert.Equal(t, fmt.Sprintf("li begin\nli partitionDelete live=true at=%d\nli insert \"a\" ts=1 v=x@1\nli finish", data.LiveDeletion.MarkedForDeleteAt),
		class.take())
}

func TestIndexClassesValidate(t *testing.T) {
	_, err := Open(Options{IndexClasses: map[string]IndexClass{SASIIndexClass: &logClass{}}})
	require.ErrorIs(t, err, ErrInvalidOptions)
	e, err := Open(Options{IndexClasses: map[string]IndexClass{"org.example.LogIndex": &logClass{}}})
	require.NoError(t, err)
	defer e.Close()
	_, ok := e.IndexClass(SASIIndexClass)
	assert.True(t, ok)
	_, ok = e.IndexClass("org.example.LogIndex")
	assert.True(t, ok)
	_, ok = e.IndexClass("org.example.Missing")
	assert.False(t, ok)
}

func TestCustomIndexRebuildStaticRow(t *testing.T) {
	class := &logClass{}
	e, tbl := newIndexedEngine(t, class)
	ctx := context.Background()
	static := data.NewRow(nil)
	static.Cells = []data.Cell{cell("s", "st", 1)}
	r := data.NewRow([]byte("a"))
	r.Liveness = data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime}
	r.Cells = []data.Cell{cell("v", "x", 1)}
	require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Static: &static, Rows: []data.Row{r}}))
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	class.take()
	// indexPartition's order: Begin, the static row, the partition
	// deletion, the rows, Finish.
	require.NoError(t, e.RebuildCustomIndexes(ctx, tbl, "li"))
	assert.Equal(t, fmt.Sprintf("li begin\nli insert \"\" ts=%d s=st@1\nli partitionDelete live=true at=%d\nli insert \"a\" ts=1 v=x@1\nli finish",
		data.NoTimestamp, data.LiveDeletion.MarkedForDeleteAt), class.take())
}

// flushLogIndex is a logIndex told of flushes and truncations.
type flushLogIndex struct{ logIndex }

func (x *flushLogIndex) Flush() error       { x.c.add("%s flush", x.name); return nil }
func (x *flushLogIndex) Truncated(at int64) { x.c.add("%s truncated", x.name) }

type flushLogClass struct{ *logClass }

func (c flushLogClass) NewIndex(t *schema.Table, ix *schema.Index) CustomIndex {
	return &flushLogIndex{logIndex{c: c.logClass, name: ix.Name}}
}

func TestCustomIndexFlushAndTruncate(t *testing.T) {
	class := &logClass{}
	e, nt := newIndexedEngine(t, flushLogClass{class})
	ctx := context.Background()
	// A flush with nothing to write does not call the index.
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	assert.Empty(t, class.take())
	r := data.NewRow([]byte("a"))
	r.Liveness = data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime}
	require.NoError(t, e.Apply(ctx, nt, &data.Mutation{Key: []byte("p"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
	class.take()
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	assert.Equal(t, "li flush", class.take())
	require.NoError(t, e.Truncate("ks", "t"))
	assert.Equal(t, "li truncated", class.take())
}
