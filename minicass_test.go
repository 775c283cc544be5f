package minicass

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openTest(t *testing.T, opts Options) *DB {
	t.Helper()
	db, err := Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func setupKV(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, v text, n int, PRIMARY KEY (k, c))`))
}

func TestOpenClose(t *testing.T) {
	db, err := Open(Options{})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	assert.ErrorIs(t, db.Close(), ErrClosed)
	assert.ErrorIs(t, db.Exec(context.Background(), "SELECT * FROM system.local"), ErrClosed)
	_, err = db.Prepare(context.Background(), "SELECT * FROM system.local")
	assert.ErrorIs(t, err, ErrClosed)
	_, err = Open(Options{MemtableSize: -1})
	assert.ErrorIs(t, err, ErrArgument)
}

func TestErrorsAreClassified(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	err := db.Exec(ctx, "SELEC 1")
	assert.ErrorIs(t, err, ErrSyntax)
	var e *Error
	require.True(t, errors.As(err, &e))
	err = db.Exec(ctx, "SELECT * FROM ks.nosuch")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "table nosuch does not exist")
	err = db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
	assert.ErrorIs(t, err, ErrAlreadyExists)
	err = db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", "x", 1, "a")
	assert.ErrorIs(t, err, ErrArgument)
	err = db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", 1, 2)
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "There were 3 markers(?) in CQL but 2 bound variables")
}

func TestSessionsHaveOwnKeyspace(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	s1, s2 := db.Session(), db.Session()
	require.NoError(t, s1.Exec(ctx, "USE ks"))
	assert.Equal(t, "ks", s1.Keyspace())
	assert.Equal(t, "", s2.Keyspace())
	require.NoError(t, s1.Exec(ctx, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", 1, 1, "a"))
	err := s2.Exec(ctx, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", 1, 1, "a")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
}

func TestWriteAndScan(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	for c := 3; c >= 1; c-- {
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v, n) VALUES (?, ?, ?, ?)", 1, c, "v", c*10))
	}
	rows := db.Query(ctx, "SELECT c, v, n FROM ks.t WHERE k = ?", 1)
	require.NoError(t, rows.Err())
	assert.Equal(t, []string{"c", "v", "n"}, []string{rows.Columns()[0].Name, rows.Columns()[1].Name, rows.Columns()[2].Name})
	var got []int
	for rows.Next() {
		var c, n int
		var v string
		require.NoError(t, rows.Scan(&c, &v, &n))
		assert.Equal(t, c*10, n)
		got = append(got, c)
	}
	assert.Equal(t, []int{1, 2, 3}, got, "clustering order")

	// Unset leaves a column as it is; nil writes null.
	require.NoError(t, db.Exec(ctx, "UPDATE ks.t SET v = ?, n = ? WHERE k = ? AND c = ?", Unset, nil, 1, 1))
	var v string
	var n *int
	require.NoError(t, db.Query(ctx, "SELECT v, n FROM ks.t WHERE k = 1 AND c = 1").ScanOne(&v, &n))
	assert.Equal(t, "v", v)
	assert.Nil(t, n)
	assert.ErrorIs(t, db.Query(ctx, "SELECT v FROM ks.t WHERE k = 9").ScanOne(&v), ErrNoRows)
}

func TestWithTimestampAndClock(t *testing.T) {
	clock := NewManualClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	db := openTest(t, Options{Clock: clock})
	setupKV(t, db)
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'new')", WithTimestamp(2000)))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'old')", WithTimestamp(1000)))
	var v string
	var wt int64
	require.NoError(t, db.Query(ctx, "SELECT v, writetime(v) FROM ks.t WHERE k = 1 AND c = 1").ScanOne(&v, &wt))
	assert.Equal(t, "new", v, "the higher timestamp wins")
	assert.Equal(t, int64(2000), wt)

	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (2, 1, 'x') USING TTL 10"))
	require.NoError(t, db.Query(ctx, "SELECT writetime(v) FROM ks.t WHERE k = 2 AND c = 1").ScanOne(&wt))
	// The engine clock gives write timestamps, made strictly increasing
	// (Cassandra's ClientState.getTimestamp) while the clock stands still.
	assert.GreaterOrEqual(t, wt, clock.Now().UnixMicro())
	assert.Less(t, wt, clock.Now().UnixMicro()+100)
	clock.Advance(10 * time.Second)
	assert.ErrorIs(t, db.Query(ctx, "SELECT v FROM ks.t WHERE k = 2 AND c = 1").ScanOne(&v), ErrNoRows)
}

func TestPagingThroughAPI(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	stmt, err := db.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	require.NoError(t, err)
	assert.Equal(t, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", stmt.Text())
	for k := range 3 {
		for c := range 4 {
			require.NoError(t, stmt.Exec(ctx, k, c, "v"))
		}
	}
	var state []byte
	total, pages := 0, 0
	for {
		rows := db.Query(ctx, "SELECT k, c FROM ks.t", PageSize(5), PagingState(state))
		require.NoError(t, rows.Err())
		assert.LessOrEqual(t, rows.Len(), 5)
		total += rows.Len()
		pages++
		if state = rows.PagingState(); state == nil {
			break
		}
		require.Less(t, pages, 10, "paging must end")
	}
	assert.Equal(t, 12, total)
	assert.Equal(t, 3, pages)
}

func TestConcurrentUse(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := db.Session()
			for i := range 50 {
				assert.NoError(t, s.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", g, i, "x"))
			}
		}()
	}
	wg.Wait()
	var n int64
	require.NoError(t, db.Query(ctx, "SELECT count(*) FROM ks.t").ScanOne(&n))
	assert.Equal(t, int64(200), n)
}

// benchTable opens an in-memory DB with table ks.t (k int, c int, v text,
// PRIMARY KEY (k, c)), closed when the benchmark ends.
func benchTable(b *testing.B) (*DB, context.Context) {
	b.Helper()
	db, err := Open(Options{})
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	require.NoError(b, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(b, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`))
	return db, ctx
}

func BenchmarkInsertPrepared(b *testing.B) {
	db, ctx := benchTable(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", i%100, i, "value"); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkQueryScan(b *testing.B) {
	db, ctx := benchTable(b)
	for c := range 100 {
		require.NoError(b, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", 1, c, "value"))
	}
	b.ReportAllocs()
	for b.Loop() {
		rows := db.Query(ctx, "SELECT c, v FROM ks.t WHERE k = ?", 1)
		var c int
		var v string
		for rows.Next() {
			if err := rows.Scan(&c, &v); err != nil {
				b.Fatal(err)
			}
		}
		if rows.Err() != nil {
			b.Fatal(rows.Err())
		}
	}
}

func TestFlush(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')"))
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	require.NoError(t, db.Flush(ctx, "", ""))
	var v string
	require.NoError(t, db.Query(ctx, "SELECT v FROM ks.t WHERE k = 1 AND c = 1").ScanOne(&v))
	assert.Equal(t, "a", v, "rows survive a flush")
	err := db.Flush(ctx, "nosuch", "")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "Keyspace 'nosuch' does not exist")
	err = db.Flush(ctx, "ks", "nosuch")
	assert.EqualError(t, err, "Table 'ks.nosuch' doesn't exist")
	// Virtual keyspaces have nothing to flush or compact
	// (StorageService.getValidKeyspace; VirtualTableTest.testMBeansMethods's
	// forceKeyspaceFlush and forceKeyspaceCompaction).
	err = db.Flush(ctx, "system_views", "")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "Cannot perform any operations against virtual keyspace system_views")
	err = db.Compact(ctx, "system_virtual_schema", "tables")
	assert.EqualError(t, err, "Cannot perform any operations against virtual keyspace system_virtual_schema")
}

func TestDurableDir(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(Options{Dir: dir, CommitLogSync: SyncBatch})
	require.NoError(t, err)
	setupKV(t, db)
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'logged')"))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'flushed')"))
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 3, 'after flush')"))
	assert.Equal(t, dir, db.Dir())

	_, err = Open(Options{Dir: dir})
	assert.ErrorIs(t, err, ErrLocked, "the data directory is locked while open")
	require.NoError(t, db.Close())

	db, err = Open(Options{Dir: dir})
	require.NoError(t, err)
	defer db.Close()
	var got []string
	for row, err := range db.Query(ctx, "SELECT v FROM ks.t WHERE k = 1").All() {
		require.NoError(t, err)
		var v string
		require.NoError(t, row.Scan(&v))
		got = append(got, v)
	}
	assert.Equal(t, []string{"logged", "flushed", "after flush"}, got, "schema and rows survive a restart")
}

func TestOptionsValidate(t *testing.T) {
	_, err := Open(Options{CommitLogSync: CommitLogSync(42)})
	assert.ErrorIs(t, err, ErrArgument)
	_, err = Open(Options{FlushWorkers: -1})
	assert.ErrorIs(t, err, ErrArgument)
}

// TestPreparedCacheBounded runs more distinct statements with bind values
// than the executor's statement cache holds: the cache stays within its
// bound, and every statement still runs.
func TestPreparedCacheBounded(t *testing.T) {
	const limit = 64 << 10 // a few dozen statements
	db := openTest(t, Options{PreparedStatementsCacheSize: limit})
	setupKV(t, db)
	ctx := context.Background()
	s := db.Session()
	const n = 1000
	for i := range n {
		require.NoError(t, s.Exec(ctx, fmt.Sprintf("INSERT INTO ks.t (k, c, v) VALUES (?, %d, 'x')", i), 1))
	}
	cached := db.Executor().PreparedStatements()
	assert.Positive(t, cached)
	assert.Less(t, cached, n/10, "the cache evicts to stay within %d bytes", limit)
	var count int64
	require.NoError(t, db.Query(ctx, "SELECT count(*) FROM ks.t WHERE k = 1").ScanOne(&count))
	assert.Equal(t, int64(n), count)
}

func TestApplied(t *testing.T) {
	db := openTest(t, Options{})
	setupKV(t, db)
	ctx := context.Background()
	ok, err := db.Query(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a') IF NOT EXISTS").Applied()
	require.NoError(t, err)
	assert.True(t, ok)
	rows := db.Query(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'b') IF NOT EXISTS")
	ok, err = rows.Applied()
	require.NoError(t, err)
	assert.False(t, ok)
	v, found := rows.Row().Value("v")
	assert.True(t, found)
	assert.Equal(t, "a", v, "a failed condition returns the current values")

	_, err = db.Query(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'a')").Applied()
	assert.ErrorIs(t, err, ErrScan)
	_, err = db.Query(ctx, "INSERT INTO ks.nosuch (k) VALUES (1) IF NOT EXISTS").Applied()
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestUserTypeValues binds a user type from a struct (fields by `cql` tag or
// lower-cased name) and scans it back into a struct, a map and an any.
func TestUserTypeValues(t *testing.T) {
	db := openTest(t, Options{})
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(t, db.Exec(ctx, "CREATE TYPE ks.address (street text, zip int, tags frozen<set<text>>)"))
	require.NoError(t, db.Exec(ctx, "CREATE TABLE ks.p (id int PRIMARY KEY, home frozen<address>, work address)"))
	type address struct {
		Street string   `cql:"street"`
		Zip    int      // zip
		Tags   []string `cql:"tags"`
		skip   int
	}
	in := address{Street: "main", Zip: 7, Tags: []string{"a"}}
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.p (id, home, work) VALUES (?, ?, ?)", 1, in, &address{Street: "office"}))
	var home, work address
	var asMap map[string]any
	var asAny any
	require.NoError(t, db.Query(ctx, "SELECT home, work, home, home FROM ks.p WHERE id = 1").ScanOne(&home, &work, &asMap, &asAny))
	assert.Equal(t, in, home)
	assert.Equal(t, address{Street: "office"}, work, "null fields scan as zero values")
	assert.Equal(t, map[string]any{"street": "main", "zip": int32(7), "tags": []any{"a"}}, asMap)
	assert.Equal(t, asMap, asAny)
	var street string
	require.NoError(t, db.Query(ctx, "SELECT home.street FROM ks.p WHERE id = 1").ScanOne(&street))
	assert.Equal(t, "main", street)
}

// BenchmarkQueryPoint reads one row by its primary key with bind values,
// the Go API's prepared point SELECT.
func BenchmarkQueryPoint(b *testing.B) {
	db, ctx := benchTable(b)
	for k := range 100 {
		require.NoError(b, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", k, 1, "value"))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		var v string
		if err := db.Query(ctx, "SELECT v FROM ks.t WHERE k = ? AND c = ?", i%100, 1).ScanOne(&v); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkOpenToFirstWrite measures what a test pays to start: an in-memory
// DB opened, a keyspace and a table created, one row written, the DB closed
// (issue 19's start-up figure).
func BenchmarkOpenToFirstWrite(b *testing.B) {
	benchOpenToFirstWrite(b, func() Options { return Options{} })
}

// BenchmarkOpenDirToFirstWrite is BenchmarkOpenToFirstWrite with a data
// directory: a fresh one each time (schema file, commit log, system tables on
// disk), the DB closed at the end.
func BenchmarkOpenDirToFirstWrite(b *testing.B) {
	benchOpenToFirstWrite(b, func() Options { return Options{Dir: b.TempDir()} })
}

func benchOpenToFirstWrite(b *testing.B, opts func() Options) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		db, err := Open(opts())
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range []string{
			`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
			`CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`,
		} {
			if err := db.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		if err := db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", 1, 2, "value"); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
