package engine

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// TestAutoSnapshotTruncate checks that TRUNCATE of a table on a data
// directory first snapshots its data, memtable included, under 4.1's name
// truncated-<ms>-<table>, with a manifest naming the SSTables and the TTL's
// expiry, and that a snapshot restored by copying its files back reads the
// rows again.
func TestAutoSnapshotTruncate(t *testing.T) {
	fsys := vfs.NewMem()
	e, clock, tbl := openDurable(t, fsys, Options{AutoSnapshotTTL: time.Hour})
	put(t, e, tbl, "k1", "a", "flushed", 10)
	require.NoError(t, e.Flush(t.Context(), "ks", "t"))
	put(t, e, tbl, "k2", "b", "in the memtable", 11)
	created := clock.Now()
	require.NoError(t, e.Truncate("ks", "t"))

	snaps, err := e.Snapshots("ks", "t")
	require.NoError(t, err)
	require.Len(t, snaps, 1)
	s := snaps[0]
	assert.Equal(t, "truncated-"+strconv.FormatInt(created.UnixMilli(), 10)+"-t", s.Name)
	assert.Equal(t, "t", s.Table)
	assert.Len(t, s.Files, 2, "the flushed SSTable and the memtable's, flushed by the snapshot")
	assert.True(t, s.CreatedAt.Equal(created))
	assert.True(t, s.IsExpiring())
	assert.True(t, s.ExpiresAt.Equal(created.Add(time.Hour)))
	_, rows := readAll(t, e, tbl, "k1", ReadOptions{})
	assert.Empty(t, rows, "the truncation still removed the data")
	for _, f := range s.Files {
		_, err := fsys.Stat(fsys.PathJoin(s.Dir, f))
		assert.NoError(t, err, "the snapshot holds %s", f)
	}

	cleared, err := e.ClearExpiredSnapshots("ks")
	require.NoError(t, err)
	assert.Empty(t, cleared, "not expired yet")
	clock.Advance(time.Hour)
	assert.False(t, s.IsExpired(clock.Now()), "isExpired is strict: expiry before now")
	clock.Advance(time.Millisecond)
	assert.True(t, s.IsExpired(clock.Now()))
	cleared, err = e.ClearExpiredSnapshots("ks")
	require.NoError(t, err)
	assert.Len(t, cleared, 1)
	snaps, err = e.Snapshots("ks", "t")
	require.NoError(t, err)
	assert.Empty(t, snaps)
}

// TestAutoSnapshotDrop checks that DROP TABLE and DROP KEYSPACE keep the
// dropped tables' snapshots (and only them) in their directories, that the
// snapshots survive a restart.
func TestAutoSnapshotDrop(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k1", "a", "v", 10)
	require.NoError(t, e.DropTable("ks", "t"))
	snaps, err := e.Snapshots("ks", "t")
	require.NoError(t, err)
	require.Len(t, snaps, 1)
	assert.Regexp(t, `^dropped-\d+-t$`, snaps[0].Name)
	assert.False(t, snaps[0].IsExpiring())
	assert.False(t, snaps[0].IsExpired(time.Now().Add(1000*time.Hour)))
	names, err := fsys.List(fsys.PathJoin("db", dataDirName, "ks", TableDirName(tbl)))
	require.NoError(t, err)
	assert.Equal(t, []string{snapshotsDirName}, names, "only the snapshots stay")

	t2 := testTable("u", data.TableID{2})
	require.NoError(t, e.CreateTable(t2))
	put(t, e, t2, "k", "a", "v", 10)
	require.NoError(t, e.DropKeyspace("ks"))
	snaps, err = e.Snapshots("ks", "")
	require.NoError(t, err)
	require.Len(t, snaps, 2)
	assert.Equal(t, "t", snaps[0].Table)
	assert.Equal(t, "u", snaps[1].Table)
	require.NoError(t, e.Close())

	e2, _, _ := openDurable(t, fsys, Options{})
	defer e2.Close()
	snaps, err = e2.Snapshots("ks", "")
	require.NoError(t, err)
	assert.Len(t, snaps, 2, "a restart keeps the snapshots")
}

// TestAutoSnapshotOff checks that auto_snapshot false, and an in-memory
// engine, take no snapshot and leave no directory behind.
func TestAutoSnapshotOff(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{DisableAutoSnapshot: true})
	put(t, e, tbl, "k1", "a", "v", 10)
	require.NoError(t, e.Truncate("ks", "t"))
	require.NoError(t, e.DropKeyspace("ks"))
	_, err := fsys.Stat(fsys.PathJoin("db", dataDirName, "ks"))
	assert.Error(t, err, "the keyspace directory is gone")
	snaps, err := e.Snapshots("ks", "")
	require.NoError(t, err)
	assert.Empty(t, snaps)
	require.NoError(t, e.Close())

	m, _, mt := newTestEngine(t)
	put(t, m, mt, "k1", "a", "v", 10)
	require.NoError(t, m.DropTable(mt.Keyspace, mt.Name))
	snaps, err = m.Snapshots(mt.Keyspace, "")
	require.NoError(t, err)
	assert.Empty(t, snaps, "an in-memory engine takes no auto snapshot")
}

// TestDropDuringCompaction checks what CrcCheckChanceTest's
// testDropDuringCompaction leaves to a race: a major compaction whose table
// is dropped (files and all) once it has begun stops with ErrNoTable, as
// Cassandra's with CompactionInterruptedException, not with a compaction
// failure, and leaves no file of the table behind.
func TestDropDuringCompaction(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		fsys := vfs.NewMem()
		e, _, tbl := openDurable(t, fsys, Options{DisableAutoSnapshot: !snapshot, DisableAutoCompaction: true})
		for i := range 3 {
			put(t, e, tbl, "k", "a", "v", int64(10+i))
			require.NoError(t, e.Flush(t.Context(), "ks", "t"))
		}
		e.compactionBegun = func() { require.NoError(t, e.DropTable("ks", "t")) }
		err := e.Compact(t.Context(), "ks", "t")
		require.ErrorIs(t, err, ErrNoTable)
		assert.NotErrorIs(t, err, ErrCompaction)
		e.compactionBegun = nil
		names, err := fsys.List(fsys.PathJoin("db", dataDirName, "ks", TableDirName(tbl)))
		if snapshot {
			require.NoError(t, err)
			assert.Equal(t, []string{snapshotsDirName}, names)
		} else {
			assert.Error(t, err, "the table's directory is gone: %v", names)
		}
		require.NoError(t, e.Close())
	}
}

// TestRestoreCommitLogPointInTime checks SaveCommitLog and
// RestoreCommitLog: the saved segments of a dropped table replay into the
// table created again with its id, up to the point in time only (a write
// whose timestamp, in ms, is after it is skipped), and the restored rows
// survive a restart; a table of another id gets nothing.
func TestRestoreCommitLogPointInTime(t *testing.T) {
	fsys := vfs.NewMem()
	e, clock, tbl := openDurable(t, fsys, Options{DisableAutoSnapshot: true})
	put(t, e, tbl, "k1", "a", "early", clock.Now().UnixMicro())
	mark := clock.Now()
	clock.Advance(5 * time.Millisecond)
	put(t, e, tbl, "k2", "a", "late", clock.Now().UnixMicro())
	saved, err := e.SaveCommitLog("saved")
	require.NoError(t, err)
	require.NotEmpty(t, saved)
	require.NoError(t, e.DropTable("ks", "t"))

	other := testTable("t", data.TableID{9})
	require.NoError(t, e.CreateTable(other))
	n, err := e.RestoreCommitLog(t.Context(), "saved", mark)
	require.NoError(t, err)
	assert.Zero(t, n, "no table has the saved mutations' id")
	require.NoError(t, e.DropTable("ks", "t"))

	require.NoError(t, e.CreateTable(testTable("t", tbl.ID)))
	n, err = e.RestoreCommitLog(t.Context(), "saved", mark)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the write after the point in time is skipped")
	require.NoError(t, e.Close())

	e2, _, tbl2 := openDurable(t, fsys, Options{})
	defer e2.Close()
	_, rows := readAll(t, e2, tbl2, "k1", ReadOptions{})
	assert.Len(t, rows, 1, "restored and flushed")
	_, rows = readAll(t, e2, tbl2, "k2", ReadOptions{})
	assert.Empty(t, rows)
}
