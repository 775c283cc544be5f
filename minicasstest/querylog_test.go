package minicasstest

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/wire"
)

// TestQueryLogFromGocql: the log shows the driver's requests with their
// decoded values, consistency levels, page size and paging state, keeps the
// test's own direct calls apart, and its assertions fail on a request that
// breaks them.
func TestQueryLogFromGocql(t *testing.T) {
	srv := Start(t)
	srv.MustExec(t, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.kv (k int, c int, v text, PRIMARY KEY (k, c))")
	log := srv.StartQueryLog()
	sess := session(t, srv, "app", gocql.LocalQuorum)
	require.NoError(t, sess.Query("INSERT INTO kv (k, c, v) VALUES (?, ?, ?)", 1, 2, "x").SerialConsistency(gocql.LocalSerial).Exec())
	require.NoError(t, sess.Query("INSERT INTO kv (k, c, v) VALUES (1, 3, 'y')").Consistency(gocql.One).Exec())
	iter := sess.Query("SELECT v FROM kv WHERE k = ?", 1).PageSize(1).Iter()
	var n int
	for iter.Scan(new(string)) {
		n++
	}
	require.NoError(t, iter.Close())
	require.Equal(t, 2, n)
	srv.CheckCount(t, "SELECT * FROM app.kv", nil, 2) // the Go API: not a client request

	var ins, sel []LogEntry
	for _, e := range log.Client() {
		if systemRead(&e) {
			continue
		}
		switch e.Kind() {
		case "INSERT":
			ins = append(ins, e)
		case "SELECT":
			sel = append(sel, e)
		}
	}
	require.Len(t, ins, 2)
	require.Equal(t, []any{int32(1), int32(2), "x"}, ins[0].DecodedValues())
	require.True(t, ins[0].Prepared)
	require.Equal(t, wire.LocalQuorum, ins[0].Consistency)
	require.Equal(t, wire.LocalSerial, ins[0].SerialConsistency)
	require.Equal(t, "app", ins[0].Keyspace)
	require.True(t, ins[0].HasTimestamp, "gocql sends client timestamps")
	require.GreaterOrEqual(t, len(sel), 2, "one request per page")
	require.Equal(t, 1, sel[0].PageSize)
	require.Nil(t, sel[0].PagingState)
	require.NotNil(t, sel[1].PagingState)
	var goAPI int
	for _, e := range log.Entries() {
		if e.Source == cql.SourceGo {
			goAPI++
		}
	}
	require.Equal(t, 1, goAPI)

	rec := &recorder{TB: t}
	log.CheckWrites(rec, gocql.LocalQuorum)
	require.Len(t, rec.errors, 1)
	require.Contains(t, rec.errors[0], "1 requests not written at LOCAL_QUORUM")
	require.Contains(t, rec.errors[0], "VALUES (1, 3, 'y') at ONE")
	log.CheckReads(rec, gocql.LocalQuorum)
	require.Len(t, rec.errors, 1)

	srv.StopQueryLog()
	require.NoError(t, sess.Query("SELECT v FROM kv WHERE k = 1").Exec())
	before := len(log.Entries())
	require.NoError(t, sess.Query("SELECT v FROM kv WHERE k = 1").Exec())
	require.Equal(t, before, len(log.Entries()), "nothing logged once stopped")
}

// BenchmarkPreparedInsertQueryLog measures a gocql prepared INSERT (one
// goroutine, no write coalescing) with the query log off and on; compare
// with benchstat (log=off vs log=on).
func BenchmarkPreparedInsertQueryLog(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "log=off"
		if on {
			name = "log=on"
		}
		b.Run(name, func(b *testing.B) {
			srv, sess := benchSession(b, false)
			if on {
				srv.db.Executor().EnableQueryLog(cql.NewQueryLog(10_000))
			}
			b.ResetTimer()
			defer reportCPU(b, cpuTime())
			for i := 0; i < b.N; i++ {
				if err := insert(sess, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
