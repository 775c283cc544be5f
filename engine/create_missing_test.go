package engine

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
	"github.com/minicass/minicass/wire"
)

func testKeyspace(name string) *schema.Keyspace {
	return &schema.Keyspace{Name: name, DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}
}

func tableIn(ks, name string, id byte) *schema.Table {
	t := testTable(name, data.TableID{id})
	t.Keyspace = ks
	return t
}

// TestCreateMissing checks that CreateMissing installs keyspaces and tables
// with one write of the schema file, announces each in order, keeps what
// exists, refuses a table of a keyspace it was not given, and that the
// result survives a restart.
func TestCreateMissing(t *testing.T) {
	fsys := vfs.NewMem()
	e, err := Open(Options{Dir: "db", FS: fsys})
	require.NoError(t, err)
	var events []SchemaChange
	e.Subscribe(func(c SchemaChange) { events = append(events, c) })
	before := e.schemaN

	a, b := testKeyspace("a"), testKeyspace("b")
	require.NoError(t, e.CreateMissing([]*schema.Keyspace{a, b},
		[]*schema.Table{tableIn("a", "t1", 1), tableIn("b", "t2", 2), tableIn("a", "t3", 3)}))
	assert.Equal(t, before+1, e.schemaN, "one schema file write")
	var got []string
	for _, c := range events {
		got = append(got, c.Kind.String()+" "+c.Target.String()+" "+c.Keyspace+"."+c.Table)
	}
	assert.Equal(t, []string{
		wire.Created.String() + " " + wire.TargetKeyspace.String() + " a.",
		wire.Created.String() + " " + wire.TargetKeyspace.String() + " b.",
		wire.Created.String() + " " + wire.TargetTable.String() + " a.t1",
		wire.Created.String() + " " + wire.TargetTable.String() + " b.t2",
		wire.Created.String() + " " + wire.TargetTable.String() + " a.t3",
	}, got)
	assert.Equal(t, e.SchemaVersion(), events[len(events)-1].Version, "the last event carries the final version")

	// Again, with one table more and a changed keyspace definition: only the
	// table is created, the keyspace keeps its definition.
	events = nil
	changed := testKeyspace("a")
	changed.DurableWrites = false
	require.NoError(t, e.CreateMissing([]*schema.Keyspace{changed}, []*schema.Table{tableIn("a", "t1", 1), tableIn("a", "t4", 4)}))
	require.Len(t, events, 1)
	assert.Equal(t, "t4", events[0].Table)
	ks, ok := e.Keyspace("a")
	require.True(t, ok)
	assert.True(t, ks.DurableWrites)

	// Nothing to do: no write.
	n := e.schemaN
	require.NoError(t, e.CreateMissing([]*schema.Keyspace{a}, []*schema.Table{tableIn("a", "t1", 1)}))
	assert.Equal(t, n, e.schemaN)

	// A table of a keyspace not given changes nothing.
	err = e.CreateMissing([]*schema.Keyspace{a}, []*schema.Table{tableIn("c", "t5", 5)})
	require.ErrorIs(t, err, ErrInvalidSchema)
	_, ok = e.Keyspace("c")
	assert.False(t, ok)
	assert.Equal(t, n, e.schemaN)

	require.NoError(t, e.Close())
	e, err = Open(Options{Dir: "db", FS: fsys})
	require.NoError(t, err)
	defer e.Close()
	for _, name := range []string{"a.t1", "b.t2", "a.t3", "a.t4"} {
		_, ok := e.Table(name[:1], name[2:])
		assert.True(t, ok, name)
	}
}

// TestTableDirCreatedAtFirstFlush checks that a table's directory appears
// with its first SSTable, and that a table never flushed reopens (its rows
// replayed from the commit log) and flushes after the restart.
func TestTableDirCreatedAtFirstFlush(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	dir := e.tableDir(tbl)
	_, err := fsys.Stat(dir)
	require.True(t, errors.Is(err, fs.ErrNotExist), "no directory before the first flush: %v", err)
	put(t, e, tbl, "k", "c1", "v1", 1)
	require.NoError(t, e.Close())

	e, _, tbl = openDurable(t, fsys, Options{})
	_, rows := readAll(t, e, tbl, "k", ReadOptions{})
	require.Len(t, rows, 1, "replayed")
	_, err = fsys.Stat(dir)
	require.True(t, errors.Is(err, fs.ErrNotExist), "reopening creates no directory: %v", err)
	require.NoError(t, e.Flush(context.Background(), "ks", "t"))
	_, err = fsys.Stat(dir)
	require.NoError(t, err, "the flush created the directory")
	require.Len(t, e.SSTables("ks", "t"), 1)
	require.NoError(t, e.Close())

	e, _, tbl = openDurable(t, fsys, Options{})
	defer e.Close()
	require.Len(t, e.SSTables("ks", "t"), 1)
	_, rows = readAll(t, e, tbl, "k", ReadOptions{})
	require.Len(t, rows, 1)
}
