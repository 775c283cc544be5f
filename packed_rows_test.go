package minicass

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackedRows reads through Stmt.Query and Session.Query with bind
// values, whose SELECTs come back packed (cql.Result.Packed), and checks
// every way of reading Rows against the same statement run without bind
// values (not packed): Scan, Row, Len, Result, paging, nulls and empty
// values, rows wider than Scan's stack room, and a partition answered by
// its static row alone.
func TestPackedRows(t *testing.T) {
	db := openTest(t, Options{})
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c bigint, v blob, s text, n int, st int static, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)`))
	for c := range 5 {
		var v any = []byte{byte(c), 0xfe}
		if c == 1 {
			v = []byte{} // empty, not null
		}
		if c == 2 {
			v = nil // null
		}
		require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c, v, s) VALUES (1, ?, ?, ?)`, int64(c), v, fmt.Sprint("s", c)))
	}
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, st) VALUES (2, 7)`)) // a static row only
	cols := make([]string, 12)
	for i := range cols {
		cols[i] = []string{"k", "c", "v", "s", "n"}[i%5]
	}
	for _, tc := range []struct {
		sel, where string
		key        int
		packed     bool
	}{
		{"c, v", "k = %s", 1, true},
		{"k, c, v, s, n", "k = %s AND c >= 1", 1, true},
		{strings.Join(cols, ", "), "k = %s", 1, true}, // wider than Scan's room of 8
		{"k, c", "k = %s", 2, true},                   // the static row alone (selectRun.packSelRow)
		{"k, c, st", "k = %s", 2, false},              // a static column: not a direct read, not packed
		{"k, c, v, s, n, st", "k = %s", 1, false},
	} {
		plain := `SELECT ` + tc.sel + ` FROM ks.t WHERE ` + fmt.Sprintf(tc.where, fmt.Sprint(tc.key))
		want := db.Query(ctx, plain).Result()
		require.NotNil(t, want)
		require.Nil(t, want.Packed, "no bind values: not packed")
		require.NotEmpty(t, want.Rows, plain)
		bound := `SELECT ` + tc.sel + ` FROM ks.t WHERE ` + fmt.Sprintf(tc.where, "?")
		key := tc.key
		st, err := db.Prepare(ctx, bound)
		require.NoError(t, err)

		// Result() unpacks: the same rows as the plain statement.
		rows := st.Query(ctx, key)
		require.Equal(t, tc.packed, rows.res.Packed != nil, "%s: packed", bound)
		require.Equal(t, len(want.Rows), rows.Len())
		got := rows.Result()
		require.Nil(t, got.Packed)
		require.Equal(t, want.Rows, got.Rows, bound)

		// Scan on the odd rows, Row on the others: Row unpacks midway.
		rows = db.Session().Query(ctx, bound, key)
		require.Equal(t, tc.packed, rows.res.Packed != nil, "%s: packed", bound)
		n := 0
		for rows.Next() {
			if n%2 == 0 {
				gotVals, wantVals := make([]any, len(want.Columns)), make([]any, len(want.Columns))
				gotDest, wantDest := make([]any, len(want.Columns)), make([]any, len(want.Columns))
				for i := range gotDest {
					gotDest[i], wantDest[i] = &gotVals[i], &wantVals[i]
				}
				require.NoError(t, rows.Scan(gotDest...))
				require.NoError(t, Row{cols: want.Columns, vals: want.Rows[n]}.Scan(wantDest...))
				require.Equal(t, wantVals, gotVals)
			} else {
				require.Equal(t, Row{cols: want.Columns, vals: want.Rows[n]}.String(), rows.Row().String())
			}
			n++
		}
		require.NoError(t, rows.Err())
		require.Equal(t, len(want.Rows), n)
		require.False(t, rows.Next())
	}

	// Scan of every row of a packed result, with Next skipping some rows
	// unscanned.
	st, err := db.Prepare(ctx, `SELECT c, v, s FROM ks.t WHERE k = ?`)
	require.NoError(t, err)
	rows := st.Query(ctx, 1)
	var got []string
	for i := 0; rows.Next(); i++ {
		if i == 1 {
			continue
		}
		var (
			c int64
			v []byte
			s string
		)
		require.NoError(t, rows.Scan(&c, &v, &s))
		got = append(got, fmt.Sprintf("%d %x %v %s", c, v, v == nil, s))
	}
	require.NoError(t, rows.Close())
	require.Equal(t, []string{"4 04fe false s4", "2  true s2", "1  false s1", "0 00fe false s0"}, got)
	require.Error(t, rows.Scan(new(int64), new([]byte), new(string)), "Scan after the end")

	// Pages of two rows: each page packed, the paging state as before.
	var pages []int
	var state []byte
	for {
		rows := st.Query(ctx, 1, PageSize(2), PagingState(state))
		pages = append(pages, rows.Len())
		state = rows.PagingState()
		if state == nil {
			break
		}
	}
	require.Equal(t, []int{2, 2, 1}, pages)
}

// TestRowsOwnMemory checks the memory a Rows of Stmt.Query is given with
// its result: the bound values' bytes (callArgs.binds), which a result row
// may point into, stay those of its own call however many calls follow; and
// the blob copies Scan makes in the room past the packed rows
// (Rows.setResult) are the caller's: appending to or writing one changes
// neither another copy nor the rows Result and Row then give.
func TestRowsOwnMemory(t *testing.T) {
	db := openTest(t, Options{})
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k bigint, c bigint, v blob, st int static, PRIMARY KEY (k, c))`))
	for k := range int64(3) {
		for c := range int64(4) {
			require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c, v, st) VALUES (?, ?, ?, 7)`, k, c, []byte{byte(k), byte(c), 0xfe}))
		}
	}

	// k is selected with a static column: not a direct read, so the
	// result's key values are the bound value's bytes.
	st, err := db.Prepare(ctx, `SELECT k, c, st FROM ks.t WHERE k = ?`)
	require.NoError(t, err)
	first := st.Query(ctx, int64(1))
	require.Nil(t, first.res.Packed)
	for k := range int64(3) {
		require.NoError(t, st.Query(ctx, k).Err())
	}
	var ks []int64
	for first.Next() {
		var k, c int64
		var s int32
		require.NoError(t, first.Scan(&k, &c, &s))
		ks = append(ks, k)
	}
	require.Equal(t, []int64{1, 1, 1, 1}, ks)

	// Blob copies in the block's spare room.
	st, err = db.Prepare(ctx, `SELECT c, v FROM ks.t WHERE k = ? LIMIT ?`)
	require.NoError(t, err)
	rows := st.Query(ctx, int64(2), int32(3))
	require.NotNil(t, rows.res.Packed)
	require.Greater(t, cap(rows.blobs), 0, "the arena is the block's spare room")
	var vs [][]byte
	for rows.Next() {
		var c int64
		var v []byte
		require.NoError(t, rows.Scan(&c, &v))
		vs = append(vs, v)
	}
	require.Equal(t, [][]byte{{2, 0, 0xfe}, {2, 1, 0xfe}, {2, 2, 0xfe}}, vs)
	vs[0] = append(vs[0], 0xaa, 0xbb) // reallocates: the copy is capped
	vs[1][0] = 9
	require.Equal(t, [][]byte{{2, 0, 0xfe, 0xaa, 0xbb}, {9, 1, 0xfe}, {2, 2, 0xfe}}, vs)
	res := rows.Result()
	require.Equal(t, [][][]byte{
		{{0, 0, 0, 0, 0, 0, 0, 0}, {2, 0, 0xfe}},
		{{0, 0, 0, 0, 0, 0, 0, 1}, {2, 1, 0xfe}},
		{{0, 0, 0, 0, 0, 0, 0, 2}, {2, 2, 0xfe}},
	}, res.Rows)
}

// TestDirectCellGuess reads rows that lack some of their cells, where a
// direct read's guess of a cell's place (projection.cell) is another
// column's cell or past the row's cells, packed (bound) and not (plain),
// selecting every column and some (the others' cells are still in rows), in
// a table with a multi-cell column (after which no place is guessed).
func TestDirectCellGuess(t *testing.T) {
	db := openTest(t, Options{})
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, a int, b text, d blob, e int, l list<int>, PRIMARY KEY (k, c))`))
	for _, ins := range []string{
		`INSERT INTO ks.t (k, c, a, b, d, e, l) VALUES (1, 1, 10, 'x', 0x01, 100, [1, 2])`,
		`INSERT INTO ks.t (k, c, a, d) VALUES (1, 2, 20, 0x02)`,
		`INSERT INTO ks.t (k, c, b) VALUES (1, 3, 'z')`,
		`INSERT INTO ks.t (k, c, d) VALUES (1, 4, 0x04)`,
		`INSERT INTO ks.t (k, c) VALUES (1, 5)`,
	} {
		require.NoError(t, db.Exec(ctx, ins))
	}
	want := []string{
		"c=1 d=0x01 b='x' a=10",
		"c=2 d=0x02 b=null a=20",
		"c=3 d=null b='z' a=null",
		"c=4 d=0x04 b=null a=null",
		"c=5 d=null b=null a=null",
	}
	read := func(rows *Rows) []string {
		var got []string
		for row, err := range rows.All() {
			require.NoError(t, err)
			got = append(got, row.String())
		}
		return got
	}
	require.Equal(t, want, read(db.Query(ctx, `SELECT c, d, b, a FROM ks.t WHERE k = 1`)))
	bound := db.Query(ctx, `SELECT c, d, b, a FROM ks.t WHERE k = ?`, 1)
	require.NotNil(t, bound.res.Packed)
	require.Equal(t, want, read(bound))

	want = []string{"d=0x01 e=100 a=10", "d=0x02 e=null a=20", "d=null e=null a=null", "d=0x04 e=null a=null", "d=null e=null a=null"}
	require.Equal(t, want, read(db.Query(ctx, `SELECT d, e, a FROM ks.t WHERE k = 1`)))
	bound = db.Query(ctx, `SELECT d, e, a FROM ks.t WHERE k = ?`, 1)
	require.NotNil(t, bound.res.Packed)
	require.Equal(t, want, read(bound))
}
