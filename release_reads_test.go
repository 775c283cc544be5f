package minicass

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql"
	"github.com/stretchr/testify/require"
)

// TestScanEqualsPartitionReads checks that a query over many partitions
// answers what the same query restricted to each partition answers, in
// token order, with the rows, static values and groups of each partition
// spread over several SSTables and the memtable. The executor releases
// each partition read back to the engine once it is done with it
// (engine.Partition.Release), so a value kept from one partition past the
// read of the next would show here as another partition's value.
func TestScanEqualsPartitionReads(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, Options{})
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, s text static, v text, n int, PRIMARY KEY (k, c))`))
	const keys = 12
	for round := range 3 {
		for k := range keys {
			require.NoError(t, db.Exec(ctx, "UPDATE ks.t SET s = ? WHERE k = ?", fmt.Sprintf("s%d-%d", k, round), k))
			for c := round; c < 6; c += 2 {
				require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v, n) VALUES (?, ?, ?, ?)", k, c, fmt.Sprintf("v%d-%d-%d", k, c, round), k*100+c+round))
			}
		}
		if round < 2 {
			require.NoError(t, db.Flush(ctx, "ks", "t"))
		}
	}
	var order []int
	rows := db.Query(ctx, "SELECT DISTINCT k FROM ks.t")
	for rows.Next() {
		var k int
		require.NoError(t, rows.Scan(&k))
		order = append(order, k)
	}
	require.NoError(t, rows.Err())
	require.Len(t, order, keys)

	read := func(q string, pageSize int, args ...any) [][]any {
		var out [][]any
		var state []byte
		for {
			opts := append([]any{}, args...)
			if pageSize > 0 {
				opts = append(opts, PageSize(pageSize), PagingState(state))
			}
			rows := db.Query(ctx, q, opts...)
			require.NoError(t, rows.Err(), q)
			n := len(rows.Columns())
			for rows.Next() {
				vals := make([]any, n)
				ptrs := make([]any, n)
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				require.NoError(t, rows.Scan(ptrs...))
				out = append(out, vals)
			}
			if state = rows.PagingState(); pageSize == 0 || state == nil {
				return out
			}
		}
	}
	for _, q := range []string{
		"SELECT k, c, s, v, n FROM ks.t",
		"SELECT k, s, count(*), max(n), min(v) FROM ks.t GROUP BY k",
		"SELECT k, c, s, v FROM ks.t PER PARTITION LIMIT 2",
		"SELECT DISTINCT k, s FROM ks.t",
		"SELECT k, s, v FROM ks.t WHERE n > 400 ALLOW FILTERING",
	} {
		var want [][]any
		for _, k := range order {
			where := " WHERE k = ?"
			pq := q
			if i := strings.Index(q, " WHERE "); i >= 0 {
				pq = q[:i] + where + " AND " + q[i+len(" WHERE "):]
			} else if i := strings.Index(q, " GROUP BY"); i >= 0 {
				pq = q[:i] + where + q[i:]
			} else if i := strings.Index(q, " PER PARTITION"); i >= 0 {
				pq = q[:i] + where + q[i:]
			} else {
				pq = q + where
			}
			want = append(want, read(pq, 0, k)...)
		}
		require.NotEmpty(t, want, q)
		for _, pageSize := range []int{0, 1, 2, 5} {
			require.Equal(t, want, read(q, pageSize), "%s, page size %d", q, pageSize)
		}
	}
}

// TestRowsOutliveLaterCalls checks the contract of Rows against the
// executor's recycled memory: the rows of a call (its Row values, its
// Result) stay what they were while the same prepared statement, another
// one and unprepared queries run many times after it, and while the table
// changes under them.
func TestRowsOutliveLaterCalls(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, Options{})
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c text, v blob, PRIMARY KEY (k, c))`))
	for k := range 3 {
		for c := range 8 {
			require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", k, strings.Repeat(string(rune('a'+c)), c+1), []byte(fmt.Sprintf("v%d-%d", k, c))))
		}
	}
	latest, err := db.Prepare(ctx, "SELECT c, v FROM ks.t WHERE k = ? ORDER BY c DESC LIMIT ?")
	require.NoError(t, err)
	all, err := db.Prepare(ctx, "SELECT k, c, v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	type kept struct {
		rows []Row
		want []string
		res  *cql.Result
	}
	var keptRows []kept
	keep := func(r *Rows) {
		var k kept
		for r.Next() {
			row := r.Row()
			k.rows = append(k.rows, row)
			k.want = append(k.want, row.String())
		}
		require.NoError(t, r.Err())
		require.NotEmpty(t, k.rows)
		k.res = r.Result()
		keptRows = append(keptRows, k)
	}
	for k := range 3 {
		keep(latest.Query(ctx, k, 5))
		keep(all.Query(ctx, k))
		keep(db.Query(ctx, "SELECT c, v FROM ks.t WHERE k = ? LIMIT 4", k))
	}
	for i := range 50 {
		k := i % 3
		rows := latest.Query(ctx, k, 8)
		for rows.Next() {
			var c string
			var v []byte
			require.NoError(t, rows.Scan(&c, &v))
		}
		require.NoError(t, all.Query(ctx, k).Err())
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)", k, fmt.Sprintf("z%02d", i), []byte("new")))
	}
	for _, k := range keptRows {
		for i, row := range k.rows {
			require.Equal(t, k.want[i], row.String())
			require.Equal(t, k.want[i], (Row{cols: k.res.Columns, vals: k.res.Rows[i]}).String())
		}
	}
}

// TestStmtPreparedAgainKeepsRows checks a prepared SELECT that a schema
// change makes prepare itself again: the call that prepares it again
// returns the new columns, and the rows of the call before stay as they
// were.
func TestStmtPreparedAgainKeepsRows(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, Options{})
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')"))
	st, err := db.Prepare(ctx, "SELECT * FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	before := st.Query(ctx, 1)
	require.True(t, before.Next())
	row := before.Row()
	require.Equal(t, "k=1 c=1 v='a'", row.String())
	require.NoError(t, db.Exec(ctx, "ALTER TABLE ks.t ADD w int"))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, c, v, w) VALUES (1, 1, 'b', 7)"))
	after := st.Query(ctx, 1)
	require.True(t, after.Next())
	require.Equal(t, "k=1 c=1 v='b' w=7", after.Row().String())
	require.Equal(t, "k=1 c=1 v='a'", row.String())
}
