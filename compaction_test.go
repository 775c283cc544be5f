package minicass_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/vfs"
)

// dataFiles lists the Data.db files of a table directory on fsys.
func dataFiles(t *testing.T, fsys vfs.FS, dir string) []string {
	t.Helper()
	var out []string
	ks := fsys.PathJoin(dir, "data", "metrics")
	tables, err := fsys.List(ks)
	require.NoError(t, err)
	for _, td := range tables {
		names, err := fsys.List(fsys.PathJoin(ks, td))
		require.NoError(t, err)
		for _, n := range names {
			if strings.HasSuffix(n, "-Data.db") {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestTWCSExpiredWindowsLeaveDisk is issue 6's acceptance test: a table
// with default_time_to_live = 60 and TimeWindowCompactionStrategy; once
// the clock passes expiry plus gc_grace_seconds, background compaction
// (started by the next flush) removes the data files of the expired
// windows from disk, whole, and keeps the live window's.
func TestTWCSExpiredWindowsLeaveDisk(t *testing.T) {
	ctx := context.Background()
	fsys := vfs.NewMem()
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := minicass.NewManualClock(t0)
	db, err := minicass.Open(minicass.Options{Dir: "db", FS: fsys, Clock: clock})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()

	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE metrics WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE metrics.readings (sensor text, at int, v double, PRIMARY KEY (sensor, at))
		WITH default_time_to_live = 60 AND gc_grace_seconds = 30
		AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'MINUTES', 'compaction_window_size': 1}`))

	write := func(at int) {
		require.NoError(t, db.Exec(ctx, `INSERT INTO metrics.readings (sensor, at, v) VALUES (?, ?, ?)`, "s1", at, 1.5))
	}
	// Three one-minute windows (t0, t0+60s, t0+120s), two flushes each.
	for w := 0; w < 3; w++ {
		clock.Set(t0.Add(time.Duration(w) * time.Minute))
		for f := 0; f < 2; f++ {
			for i := 0; i < 10; i++ {
				write(w*100 + f*10 + i)
			}
			require.NoError(t, db.Flush(ctx, "metrics", "readings"))
			clock.Advance(20 * time.Second)
		}
	}
	waitIdle := func() []string {
		// Background compactions run after flushes; wait until the file
		// set stops changing.
		var last []string
		for i := 0; i < 200; i++ {
			cur := dataFiles(t, fsys, "db")
			if i > 0 && slices.Equal(cur, last) && len(db.Engine().SSTables("metrics", "readings")) == len(cur) {
				return cur
			}
			last = cur
			time.Sleep(10 * time.Millisecond)
		}
		return last
	}
	before := waitIdle()
	require.NotEmpty(t, before)

	// At t0+175s the first two windows' data (written by t0+80s, expired
	// by t0+140s) is past expiry plus gc grace (30 s); the third window's
	// (written from t0+120s) lives until t0+180s.
	clock.Set(t0.Add(175 * time.Second))
	write(999) // a new window, and a flush that starts background compaction
	require.NoError(t, db.Flush(ctx, "metrics", "readings"))
	expiredLeft := func() bool {
		for _, info := range db.Engine().SSTables("metrics", "readings") {
			if info.Stats.MinTimestamp < t0.Add(2*time.Minute).UnixMicro() {
				return true
			}
		}
		return false
	}
	for i := 0; i < 500 && expiredLeft(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	after := waitIdle()
	t.Logf("before: %v after: %v", before, after)
	for _, info := range db.Engine().SSTables("metrics", "readings") {
		require.GreaterOrEqual(t, info.Stats.MinTimestamp, t0.Add(2*time.Minute).UnixMicro(),
			"an SSTable of an expired window is still live: %s", info.Name)
	}
	require.Len(t, after, len(db.Engine().SSTables("metrics", "readings")), "no file left behind")
	var n int
	rows := db.Query(ctx, `SELECT at FROM metrics.readings WHERE sensor = 's1'`)
	for rows.Next() {
		n++
	}
	require.NoError(t, rows.Err())
	require.Equal(t, 21, n, "the third window's 20 rows and the new one")
	var expired int
	for _, r := range db.Engine().CompactionHistory() {
		expired += len(r.Expired)
	}
	require.Positive(t, expired, "expired SSTables were dropped whole")
}

// TestTombstoneWarningReachesClient checks that a SELECT meeting more than
// tombstone_warn_threshold (1,000) tombstones carries Cassandra's warning
// in its result.
func TestTombstoneWarningReachesClient(t *testing.T) {
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.q (k text, c int, v text, PRIMARY KEY (k, c))`))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.q (k, c, v) VALUES ('a', 5000, 'live')`))
	for i := 0; i < 1001; i++ {
		require.NoError(t, db.Exec(ctx, `DELETE FROM ks.q WHERE k = 'a' AND c = ?`, i))
	}
	rows := db.Query(ctx, `SELECT * FROM ks.q WHERE k = 'a'`)
	n := 0
	for rows.Next() {
		n++
	}
	require.NoError(t, rows.Err())
	require.Equal(t, 1, n)
	require.Equal(t, []string{"Read 1 live rows and 1001 tombstone cells for query SELECT * FROM ks.q WHERE k = 'a' LIMIT 5000 (see tombstone_warn_threshold)"}, rows.Warnings())

	rows = db.Query(ctx, `SELECT * FROM ks.q WHERE k = 'b'`)
	for rows.Next() {
	}
	require.NoError(t, rows.Err())
	require.Empty(t, rows.Warnings())
}
