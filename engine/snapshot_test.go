package engine

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// clone returns a copy of the model that later applies to either leave
// the other alone (every slice is clipped, so an append copies it).
func (md *model) clone() *model {
	c := newModel()
	for k, v := range md.cells {
		c.cells[k] = slices.Clip(v)
	}
	for k, v := range md.cellRow {
		c.cellRow[k] = slices.Clip(v)
	}
	for k, v := range md.rts {
		c.rts[k] = slices.Clip(v)
	}
	for k, v := range md.pdels {
		c.pdels[k] = slices.Clip(v)
	}
	for k, m := range md.liveness {
		c.liveness[k] = map[string][]data.LivenessInfo{}
		for ck, v := range m {
			c.liveness[k][ck] = slices.Clip(v)
		}
	}
	for k, m := range md.rowDels {
		c.rowDels[k] = map[string][]data.DeletionTime{}
		for ck, v := range m {
			c.rowDels[k][ck] = slices.Clip(v)
		}
	}
	for k, m := range md.collDels {
		c.collDels[k] = map[string]map[string][]data.DeletionTime{}
		for ck, cols := range m {
			c.collDels[k][ck] = map[string][]data.DeletionTime{}
			for col, v := range cols {
				c.collDels[k][ck][col] = slices.Clip(v)
			}
		}
	}
	return c
}

// savedSnapshot is a snapshot with the model and the schema it froze.
type savedSnapshot struct {
	snap   *Snapshot
	md     *model
	tables []string
}

// TestSnapshotModel applies random mutations (deletions of every kind,
// TTLs, collections, clock advances, memtable switches, flushes,
// compactions, tables created and dropped) to an in-memory engine and to
// the reference model, takes snapshots along the way and restores random
// ones, into the same engine and into a second one, comparing every
// partition with the model of the snapshot after each restore and random
// reads in between. Timestamps are all distinct, so no tie depends on
// where two versions met. Rerun a failure with -seed.
func TestSnapshotModel(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	for round := 0; round < 10; round++ {
		runSnapshotRound(t, rng, seed, round)
	}
}

func runSnapshotRound(t *testing.T, rng *rand.Rand, seed int64, round int) {
	ctx := context.Background()
	e, clock, tbl := newTestEngine(t)
	other, err := Open(Options{Clock: clock})
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close()) }()
	md := newModel()
	keys := []string{"p1", "p2", "p3"}
	cks := []string{"a", "b", "c", "d", "e", "f"}
	randCK := func() []byte { return []byte(cks[rng.Intn(len(cks))]) }
	where := func(step int) string { return fmt.Sprintf("seed %d round %d step %d", seed, round, step) }
	check := func(eng *Engine, md *model, key string, msg string) {
		t.Helper()
		now := clock.Now().Unix()
		want := md.read(key, nil, false, 0, now)
		tb, ok := eng.Table("ks", "t")
		require.True(t, ok, msg)
		p, err := eng.ReadPartition(ctx, tb, []byte(key), ReadOptions{})
		require.NoError(t, err, msg)
		var got []string
		for {
			r, ok := p.Next()
			if !ok {
				break
			}
			got = append(got, formatModelRow(r))
		}
		require.NoError(t, p.Close())
		require.Equal(t, want, got, "%s: read %s", msg, key)
	}
	// extra tables come and go, so that restores change the schema too.
	extra := map[string]bool{}
	tableNames := func(eng *Engine) []string {
		var out []string
		for _, tb := range eng.Tables("ks") {
			out = append(out, tb.Name)
		}
		slices.Sort(out)
		return out
	}
	var saved []savedSnapshot
	ts := int64(0)
	for step := 0; step < 150; step++ {
		switch op := rng.Intn(30); {
		case op == 0:
			clock.Advance(time.Duration(rng.Intn(4)) * time.Second)
		case op == 1:
			_, err := e.SwitchMemtable(tbl)
			require.NoError(t, err)
		case op == 2:
			require.NoError(t, e.Flush(ctx, "ks", "t"))
		case op == 3:
			require.NoError(t, e.Flush(ctx, "ks", "t"))
			require.NoError(t, e.Compact(ctx, "ks", "t"), where(step))
			md.compacted(clock.Now().Unix())
		case op == 4:
			name := fmt.Sprintf("x%d", rng.Intn(3))
			if extra[name] {
				require.NoError(t, e.DropTable("ks", name))
				delete(extra, name)
			} else {
				require.NoError(t, e.CreateTable(testTable(name, data.TableID{byte(10 + step)})))
				extra[name] = true
			}
		case op < 8:
			snap, err := e.Snapshot()
			require.NoError(t, err)
			saved = append(saved, savedSnapshot{snap: snap, md: md.clone(), tables: tableNames(e)})
		case op < 10 && len(saved) > 0:
			i := rng.Intn(len(saved))
			sv := saved[i]
			target, name := e, "same engine"
			if rng.Intn(3) == 0 {
				target, name = other, "other engine"
			}
			require.NoError(t, target.Restore(sv.snap), where(step))
			require.Equal(t, sv.tables, tableNames(target), "%s: tables after restore into the %s", where(step), name)
			for _, k := range keys {
				check(target, sv.md, k, fmt.Sprintf("%s: restore of snapshot %d into the %s", where(step), i, name))
			}
			if target == e {
				md = sv.md.clone()
				tbl, _ = e.Table("ks", "t")
				extra = map[string]bool{}
				for _, n := range sv.tables {
					if n != "t" {
						extra[n] = true
					}
				}
			}
		case op == 10 && len(saved) > 0:
			i := rng.Intn(len(saved))
			saved[i].snap.Release()
			saved = slices.Delete(saved, i, i+1)
		case op < 14:
			check(e, md, keys[rng.Intn(len(keys))], where(step))
		default:
			ts++
			now := clock.Now().Unix()
			del := data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: now}
			m := &data.Mutation{Key: []byte(keys[rng.Intn(len(keys))]), PartitionDeletion: data.LiveDeletion}
			switch rng.Intn(12) {
			case 0:
				m.PartitionDeletion = del
			case 1:
				s, e := randCK(), randCK()
				if string(s) > string(e) {
					s, e = e, s
				}
				m.RangeTombstones = []data.RangeTombstone{{Start: s, End: append(e, 0), Deletion: del}}
			default:
				r := data.NewRow(randCK())
				ttl := int32(0)
				if rng.Intn(4) == 0 {
					ttl = int32(1 + rng.Intn(5))
				}
				switch rng.Intn(5) {
				case 0:
					r.Deletion = del
				case 1, 2:
					r.Liveness = data.LivenessInfo{Timestamp: ts, TTL: ttl, ExpiresAt: data.NoDeletionTime}
					if ttl > 0 {
						r.Liveness.ExpiresAt = now + int64(ttl)
					}
				case 3:
					r.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: del}}
				}
				for _, col := range []string{"m", "v", "w"} {
					if rng.Intn(2) == 0 {
						continue
					}
					c := data.Cell{Column: col, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte{byte('0' + rng.Intn(3))}}
					if col == "m" {
						c.Path = []byte{byte('x' + rng.Intn(3))}
					}
					if rng.Intn(4) == 0 {
						c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, now
					} else if ttl > 0 {
						c.TTL, c.LocalDeletionTime = ttl, now+int64(ttl)
					}
					r.Cells = append(r.Cells, c)
				}
				m.Rows = []data.Row{r}
			}
			md.apply(m)
			require.NoError(t, e.Apply(ctx, tbl, m))
		}
	}
	for _, k := range keys {
		check(e, md, k, fmt.Sprintf("seed %d round %d: end", seed, round))
	}
	// Once every snapshot is released, only the live SSTables' files are
	// left: the pinned ones went with their last reference.
	for _, sv := range saved {
		sv.snap.Release()
	}
	blank, err := Open(Options{})
	require.NoError(t, err)
	defer blank.Close()
	empty, err := blank.Snapshot()
	require.NoError(t, err)
	require.NoError(t, other.Restore(empty)) // other lets go of what it listed
	tb, _ := e.Table("ks", "t")
	// Background compactions (after flushes) of either engine may hold
	// references: wait for the running ones, keep new ones out.
	for _, eng := range []*Engine{e, other} {
		for range cap(eng.compactSem) {
			eng.compactSem <- struct{}{}
		}
	}
	defer func() {
		for _, eng := range []*Engine{e, other} {
			for range cap(eng.compactSem) {
				<-eng.compactSem
			}
		}
	}()
	live := map[string]bool{}
	for _, info := range e.SSTables("ks", "t") {
		for _, f := range info.Files {
			live[f] = true
		}
	}
	files, err := e.fs.List(e.tableDir(tb))
	require.NoError(t, err)
	var stray []string
	for _, f := range files {
		// A compaction's log stays while one of its inputs is listed
		// again (restored): only Open reads these logs, and an
		// in-memory engine is never opened again.
		if !live[f] && !strings.HasSuffix(f, ".txn") {
			stray = append(stray, f)
		}
	}
	require.Empty(t, stray, "seed %d round %d: files of SSTables no one holds", seed, round)
}

// TestSnapshotPinsCompactedSSTables restores a snapshot whose SSTables a
// compaction replaced, and one whose table was dropped, after the engine
// that took it closed: the snapshot keeps them readable.
func TestSnapshotPinsCompactedSSTables(t *testing.T) {
	ctx := context.Background()
	e, _, tbl := newTestEngine(t)
	write := func(key, ck, v string, ts int64) {
		r := data.NewRow([]byte(ck))
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(v)}}
		require.NoError(t, e.Apply(ctx, tbl, &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
	}
	read := func(eng *Engine, key string) string {
		tb, ok := eng.Table("ks", "t")
		require.True(t, ok)
		var b strings.Builder
		p, err := eng.ReadPartition(ctx, tb, []byte(key), ReadOptions{})
		require.NoError(t, err)
		drain(t, &b, p, 0)
		return b.String()
	}
	write("k", "a", "1", 1)
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	write("k", "b", "2", 2)
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	write("k", "c", "3", 3) // stays in the memtable
	snap, err := e.Snapshot()
	require.NoError(t, err)
	defer snap.Release()
	require.Equal(t, SnapshotStats{Keyspaces: 1, Tables: 1, Memtables: 1, SSTables: 2, Partitions: 1,
		MemtableBytes: snap.Stats().MemtableBytes}, snap.Stats())
	want := read(e, "k")
	require.Equal(t, "a: [pk@1] v=1@1\nb: [pk@2] v=2@2\nc: [pk@3] v=3@3\n", want)

	write("k", "a", "changed", 4)
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	require.Len(t, e.SSTables("ks", "t"), 1)
	require.NoError(t, e.Restore(snap))
	require.Equal(t, want, read(e, "k"), "after a compaction of the snapshot's SSTables")
	require.Len(t, e.SSTables("ks", "t"), 2)

	// The restored table compacts, flushes and drops like any other;
	// the snapshot still holds its state.
	write("k", "d", "4", 5)
	require.NoError(t, e.Flush(ctx, "ks", "t"))
	require.NoError(t, e.Compact(ctx, "ks", "t"))
	require.NoError(t, e.DropTable("ks", "t"))
	_, ok := e.Table("ks", "t")
	require.False(t, ok)

	// Closing the engine leaves the snapshot readable elsewhere.
	require.NoError(t, e.Close())
	other, err := Open(Options{})
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, other.Restore(snap))
	require.Equal(t, want, read(other, "k"), "in another engine after the first closed")
	write2 := func(v string, ts int64) {
		tb, _ := other.Table("ks", "t")
		r := data.NewRow([]byte("z"))
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(v)}}
		require.NoError(t, other.Apply(ctx, tb, &data.Mutation{Key: []byte("k"), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}))
	}
	write2("9", 9)
	require.NoError(t, other.Flush(ctx, "ks", "t"))
	require.NoError(t, other.Compact(ctx, "ks", "t"))
	require.Equal(t, want+"z: [pk@9] v=9@9\n", read(other, "k"))
	require.NoError(t, other.Restore(snap))
	require.Equal(t, want, read(other, "k"), "a second restore into the other engine")
}

// TestSnapshotErrors: an engine with a data directory refuses snapshots,
// a released snapshot cannot be restored, and a restore announces the
// keyspaces it changes.
func TestSnapshotErrors(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(Options{Dir: dir, CommitLogSync: SyncNone})
	require.NoError(t, err)
	defer d.Close()
	_, err = d.Snapshot()
	require.ErrorIs(t, err, ErrSnapshotOnDisk)

	e, _, _ := newTestEngine(t)
	empty, err := Open(Options{})
	require.NoError(t, err)
	defer empty.Close()
	blank, err := empty.Snapshot()
	require.NoError(t, err)
	snap, err := e.Snapshot()
	require.NoError(t, err)
	require.ErrorIs(t, d.Restore(snap), ErrSnapshotOnDisk)

	var changes []string
	cancel := e.Subscribe(func(ch SchemaChange) {
		changes = append(changes, fmt.Sprintf("%s %s %s", ch.Kind, ch.Target, ch.Keyspace))
		require.Equal(t, e.SchemaVersion(), ch.Version)
	})
	defer cancel()
	require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks2", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
	require.NoError(t, e.CreateTable(schema.NewTable("ks", "u", data.TableID{7}, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey, Position: 0}}, schema.DefaultOptions())))
	changes = nil
	version := snap.state.version
	require.NoError(t, e.Restore(snap))
	require.Equal(t, version, e.SchemaVersion())
	require.Equal(t, []string{"UPDATED KEYSPACE ks", "DROPPED KEYSPACE ks2"}, changes)
	changes = nil
	require.NoError(t, e.Restore(blank))
	require.Equal(t, []string{"DROPPED KEYSPACE ks"}, changes)
	require.Empty(t, e.Keyspaces())

	snap.Release()
	snap.Release()
	require.ErrorIs(t, e.Restore(snap), ErrSnapshotReleased)
	require.Empty(t, e.Keyspaces(), "a refused restore changes nothing")
}

// TestRestoreMovesTimestamps: after a restore into an engine whose clock
// is behind the snapshot's, new write timestamps still follow every one
// the snapshot's engine handed out.
func TestRestoreMovesTimestamps(t *testing.T) {
	ahead, _, _ := newTestEngine(t)
	ahead.opts.Clock.(*ManualClock).Advance(time.Hour)
	last := ahead.NewTimestamp()
	snap, err := ahead.Snapshot()
	require.NoError(t, err)
	behind, err := Open(Options{Clock: NewManualClock(testStart)})
	require.NoError(t, err)
	defer behind.Close()
	require.Less(t, behind.NewTimestamp(), last)
	require.NoError(t, behind.Restore(snap))
	require.Greater(t, behind.NewTimestamp(), last)
}
