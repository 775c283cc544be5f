package minicass

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var snapshotSeed = flag.Int64("snapshot.seed", 0, "seed of TestSnapshotRoundTrips (0: time-based)")

// dumpKV returns every row of ks.t as "k/c=v", sorted.
func dumpKV(t *testing.T, db *DB) []string {
	t.Helper()
	rows := db.Query(context.Background(), "SELECT k, c, v FROM ks.t")
	var out []string
	for rows.Next() {
		var k, c int
		var v string
		require.NoError(t, rows.Scan(&k, &c, &v))
		out = append(out, fmt.Sprintf("%d/%d=%s", k, c, v))
	}
	require.NoError(t, rows.Err())
	slices.Sort(out)
	return out
}

// TestSnapshotRoundTrips writes random rows through CQL (inserts, updates,
// deletes of rows and partitions, flushes and compactions among them),
// snapshotting along the way, and restores random snapshots, into the same
// DB and a second one, comparing each with a map. Rerun with the printed
// seed to reproduce.
func TestSnapshotRoundTrips(t *testing.T) {
	seed := *snapshotSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -snapshot.seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	db := openTest(t, Options{})
	other := openTest(t, Options{})
	setupKV(t, db)
	live := map[string]string{}
	type saved struct {
		snap *Snapshot
		rows map[string]string
	}
	var snaps []saved
	want := func(m map[string]string) []string {
		var out []string
		for k, v := range m {
			out = append(out, k+"="+v)
		}
		slices.Sort(out)
		return out
	}
	ins, err := db.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	require.NoError(t, err)
	for step := 0; step < 400; step++ {
		k, c := rng.Intn(5), rng.Intn(5)
		key := fmt.Sprintf("%d/%d", k, c)
		switch op := rng.Intn(20); {
		case op < 8:
			v := fmt.Sprint(step)
			require.NoError(t, ins.Exec(ctx, k, c, v))
			live[key] = v
		case op == 8:
			require.NoError(t, db.Exec(ctx, "DELETE FROM ks.t WHERE k = ? AND c = ?", k, c))
			delete(live, key)
		case op == 9:
			require.NoError(t, db.Exec(ctx, "DELETE FROM ks.t WHERE k = ?", k))
			for kk := range live {
				if kk[:len(fmt.Sprint(k))+1] == fmt.Sprint(k)+"/" {
					delete(live, kk)
				}
			}
		case op == 10:
			require.NoError(t, db.Flush(ctx, "ks", "t"))
		case op == 11:
			require.NoError(t, db.Compact(ctx, "ks", "t"))
		case op < 15:
			s, err := db.Snapshot()
			require.NoError(t, err)
			m := map[string]string{}
			for k, v := range live {
				m[k] = v
			}
			snaps = append(snaps, saved{s, m})
		case op < 18 && len(snaps) > 0:
			sv := snaps[rng.Intn(len(snaps))]
			if rng.Intn(2) == 0 {
				require.NoError(t, other.Restore(sv.snap))
				require.Equal(t, want(sv.rows), dumpKV(t, other), "seed %d step %d: other DB", seed, step)
				continue
			}
			require.NoError(t, db.Restore(sv.snap))
			live = map[string]string{}
			for k, v := range sv.rows {
				live[k] = v
			}
		}
		if step%20 == 0 {
			require.Equal(t, want(live), dumpKV(t, db), "seed %d step %d", seed, step)
		}
	}
	require.Equal(t, want(live), dumpKV(t, db), "seed %d end", seed)
	for _, sv := range snaps {
		sv.snap.Release()
	}
}

// TestReset: Reset gives the state of a new DB (the system keyspaces
// only) whatever was created; a prepared statement on a dropped table is
// refused as after DROP TABLE; a DB with a data directory refuses.
func TestReset(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, Options{})
	fresh := openTest(t, Options{})
	setupKV(t, db)
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'x')"))
	snap, err := db.Snapshot()
	require.NoError(t, err)
	defer snap.Release()
	st := snap.Stats()
	require.Equal(t, 1, st.Partitions)
	ins, err := db.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	require.NoError(t, err)

	require.NoError(t, db.Reset())
	keyspaces := func(d *DB) []string {
		var out []string
		rows := d.Query(ctx, "SELECT keyspace_name FROM system_schema.keyspaces")
		for rows.Next() {
			var n string
			require.NoError(t, rows.Scan(&n))
			out = append(out, n)
		}
		require.NoError(t, rows.Err())
		return out
	}
	require.Equal(t, keyspaces(fresh), keyspaces(db))
	require.NotContains(t, keyspaces(db), "ks")
	require.ErrorIs(t, ins.Exec(ctx, 2, 2, "y"), ErrInvalid, "the table is gone")
	// The keyspace can be created again: no "already exists".
	setupKV(t, db)
	require.Empty(t, dumpKV(t, db))

	require.NoError(t, db.Restore(snap))
	require.Equal(t, []string{"1/1=x"}, dumpKV(t, db))
	require.NoError(t, ins.Exec(ctx, 2, 2, "y"), "prepared again on the restored table")
	require.Equal(t, []string{"1/1=x", "2/2=y"}, dumpKV(t, db))

	disk := openTest(t, Options{Dir: t.TempDir(), CommitLogSync: SyncNone})
	_, err = disk.Snapshot()
	require.ErrorIs(t, err, ErrSnapshotOnDisk)
	require.ErrorIs(t, disk.Reset(), ErrSnapshotOnDisk)
	require.NoError(t, db.Close())
	require.ErrorIs(t, db.Reset(), ErrClosed)
}

// benchRows returns a DB holding n rows of ks.t, in its memtable.
func benchRows(b *testing.B, n int) *DB {
	b.Helper()
	ctx := context.Background()
	db, err := Open(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for _, q := range []string{`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE ks.t (k int, c int, v text, n int, PRIMARY KEY (k, c))`} {
		if err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	ins, err := db.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := ins.Exec(ctx, i/10, i%10, "value"); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

// BenchmarkSnapshot measures Snapshot (and Release) of a DB holding n
// rows, each after one more write through the engine's Go API, so that
// there is a memtable to freeze; the write is in the time (a few µs).
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			db := benchRows(b, n)
			ctx := context.Background()
			ins, err := db.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'x')")
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := ins.Exec(ctx); err != nil {
					b.Fatal(err)
				}
				s, err := db.Snapshot()
				if err != nil {
					b.Fatal(err)
				}
				s.Release()
			}
		})
	}
}

// BenchmarkRestore measures Restore of a snapshot of n rows into another
// DB.
func BenchmarkRestore(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			src := benchRows(b, n)
			snap, err := src.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			db, err := Open(Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := db.Restore(snap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
