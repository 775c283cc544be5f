package minicasstest

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of this file drive the server with gocql's successor,
// github.com/apache/cassandra-gocql-driver/v2, which negotiates the newest
// protocol the server accepts: v5, with its segments, with and without lz4
// compression. gocql_test.go keeps gocql v1 at v4.

// v2Modes are the compressions the v2 tests run with.
var v2Modes = []struct {
	name       string
	compressor gocql.Compressor
}{
	{"plain", nil},
	{"lz4", lz4.LZ4Compressor{}},
}

// newV2Session connects gocql v2 to srv without a fixed protocol version,
// so that the driver negotiates it (v5 first).
func newV2Session(t testing.TB, srv *Server, keyspace string, c gocql.Compressor) *gocql.Session {
	t.Helper()
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = keyspace
	cluster.Compressor = c
	cluster.Timeout = 5 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	cluster.Consistency = gocql.One
	cluster.WriteCoalesceWaitTime = 0
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(sess.Close)
	return sess
}

// forEachV2Mode runs f against a fresh server with keyspace app, once per
// compression mode.
func forEachV2Mode(t *testing.T, f func(t *testing.T, srv *Server, c gocql.Compressor)) {
	for _, m := range v2Modes {
		t.Run(m.name, func(t *testing.T) {
			srv := Start(t)
			setupKeyspace(t, srv)
			f(t, srv, m.compressor)
		})
	}
}

func TestGocqlV2NegotiatesV5(t *testing.T) {
	forEachV2Mode(t, func(t *testing.T, srv *Server, c gocql.Compressor) {
		sess := newV2Session(t, srv, "", c)
		var release string
		require.NoError(t, sess.Query("SELECT release_version FROM system.local").Scan(&release))
		assert.Equal(t, "4.1.6", release)
		// Every connection of the driver (control and pool) speaks v5, and
		// the STARTUP options say whether it compresses.
		iter := sess.Query("SELECT protocol_version, client_options FROM system_views.clients").Iter()
		var (
			version int
			opts    map[string]string
			n       int
		)
		for iter.Scan(&version, &opts) {
			assert.Equal(t, 5, version)
			if c != nil {
				assert.Equal(t, "lz4", opts["COMPRESSION"])
			} else {
				assert.NotContains(t, opts, "COMPRESSION")
			}
			n++
		}
		require.NoError(t, iter.Close())
		assert.GreaterOrEqual(t, n, 2, "control connection and pool")
	})
}

func TestGocqlV2SchemaAndErrors(t *testing.T) {
	forEachV2Mode(t, func(t *testing.T, srv *Server, c gocql.Compressor) {
		sess := newV2Session(t, srv, "", c)
		require.NoError(t, sess.Query("CREATE TABLE app.events (k text, c int, v text, d duration, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)").Exec())
		// A new session reads the schema at start (the first one refreshes
		// its cache from the schema event in the background).
		md, err := newV2Session(t, srv, "", c).KeyspaceMetadata("app")
		require.NoError(t, err)
		require.Contains(t, md.Tables, "events")
		ev := md.Tables["events"]
		require.Len(t, ev.PartitionKey, 1)
		assert.Equal(t, "k", ev.PartitionKey[0].Name)
		require.Len(t, ev.ClusteringColumns, 1)
		assert.Equal(t, gocql.DESC, ev.ClusteringColumns[0].Order)

		// A duration travels with v5's own type id.
		require.NoError(t, sess.Query("INSERT INTO app.events (k, c, v, d) VALUES ('a', 1, 'x', 1h2m)").Exec())
		var d gocql.Duration
		require.NoError(t, sess.Query("SELECT d FROM app.events WHERE k = 'a' AND c = 1").Scan(&d))
		assert.Equal(t, gocql.Duration{Nanoseconds: int64(time.Hour + 2*time.Minute)}, d)

		err = sess.Query("CREATE TABLE app.events (k text PRIMARY KEY)").Exec()
		var exists *gocql.RequestErrAlreadyExists
		require.True(t, errors.As(err, &exists), "%T %v", err, err)
		assert.Equal(t, "app", exists.Keyspace)
		assert.Equal(t, "events", exists.Table)
		var rerr gocql.RequestError
		err = sess.Query("SELECT * FROM app.nope").Exec()
		require.True(t, errors.As(err, &rerr), "%T %v", err, err)
		assert.Equal(t, gocql.ErrCodeInvalid, rerr.Code())
		err = sess.Query("SELEC * FROM app.events").Exec()
		require.True(t, errors.As(err, &rerr))
		assert.Equal(t, gocql.ErrCodeSyntax, rerr.Code())
		err = sess.Query("INSERT INTO system.local (key) VALUES ('x')").Exec()
		require.True(t, errors.As(err, &rerr))
		assert.Equal(t, gocql.ErrCodeUnauthorized, rerr.Code())
	})
}

// TestGocqlV2PreparedAcrossAlter re-uses a prepared SELECT * across ALTER
// TABLE ADD. The first session's statement was prepared before the change;
// a second session re-prepares it after, so that the first one's EXECUTE
// names a statement id the server knows again but an outdated result
// metadata id: the server answers with METADATA_CHANGED and the new
// metadata, and the rows decode with the new column.
func TestGocqlV2PreparedAcrossAlter(t *testing.T) {
	forEachV2Mode(t, func(t *testing.T, srv *Server, c gocql.Compressor) {
		srv.MustExec(t, "CREATE TABLE app.t (k int PRIMARY KEY, a text)")
		srv.MustExec(t, "INSERT INTO app.t (k, a) VALUES (1, 'one')")
		s1 := newV2Session(t, srv, "app", c)
		s2 := newV2Session(t, srv, "app", c)
		const q = "SELECT * FROM t WHERE k = ?"
		row := map[string]any{}
		require.NoError(t, s1.Query(q, 1).MapScan(row))
		assert.Equal(t, map[string]any{"k": 1, "a": "one"}, row)

		srv.MustExec(t, "ALTER TABLE app.t ADD b int")
		srv.MustExec(t, "UPDATE app.t SET b = 7 WHERE k = 1")

		row = map[string]any{}
		require.NoError(t, s2.Query(q, 1).MapScan(row))
		assert.Equal(t, map[string]any{"k": 1, "a": "one", "b": 7}, row)
		row = map[string]any{}
		require.NoError(t, s1.Query(q, 1).MapScan(row))
		assert.Equal(t, map[string]any{"k": 1, "a": "one", "b": 7}, row)

		// Once more after a second change, now with the statement re-used
		// by the same session only (Unprepared, then re-prepared).
		srv.MustExec(t, "ALTER TABLE app.t ADD c text")
		row = map[string]any{}
		require.NoError(t, s1.Query(q, 1).MapScan(row))
		assert.Equal(t, map[string]any{"k": 1, "a": "one", "b": 7, "c": ""}, row)
	})
}

func TestGocqlV2PagingBatchLWTKeyspace(t *testing.T) {
	forEachV2Mode(t, func(t *testing.T, srv *Server, c gocql.Compressor) {
		srv.MustExec(t, "CREATE TABLE app.p (k int, c int, v text, PRIMARY KEY (k, c))")
		sess := newV2Session(t, srv, "", c)

		// A logged batch of prepared inserts, and a large value that takes
		// several segments each way.
		b := sess.Batch(gocql.LoggedBatch)
		for i := range 25 {
			b.Query("INSERT INTO app.p (k, c, v) VALUES (?, ?, ?)", 1, i, fmt.Sprint("v", i))
		}
		require.NoError(t, b.Exec())
		big := make([]byte, 300<<10)
		for i := range big {
			big[i] = byte('a' + i%26)
		}
		require.NoError(t, sess.Query("INSERT INTO app.p (k, c, v) VALUES (2, 0, ?)", string(big)).Exec())
		var got string
		require.NoError(t, sess.Query("SELECT v FROM app.p WHERE k = 2 AND c = 0").Scan(&got))
		assert.Equal(t, string(big), got)

		// Paging: 25 rows in pages of 10.
		iter := sess.Query("SELECT c FROM app.p WHERE k = 1").PageSize(10).Iter()
		var cs []int
		var ci int
		for iter.Scan(&ci) {
			cs = append(cs, ci)
		}
		require.NoError(t, iter.Close())
		require.Len(t, cs, 25)
		assert.True(t, sort.IntsAreSorted(cs))

		// LWT: applied, then not applied with the existing row.
		applied, err := sess.Query("INSERT INTO app.p (k, c, v) VALUES (3, 0, 'first') IF NOT EXISTS").MapScanCAS(map[string]any{})
		require.NoError(t, err)
		assert.True(t, applied)
		existing := map[string]any{}
		applied, err = sess.Query("INSERT INTO app.p (k, c, v) VALUES (3, 0, 'second') IF NOT EXISTS").MapScanCAS(existing)
		require.NoError(t, err)
		assert.False(t, applied)
		assert.Equal(t, "first", existing["v"])

		// Per-query keyspace (v5): the session has no keyspace.
		var v string
		require.NoError(t, sess.Query("SELECT v FROM p WHERE k = 3 AND c = 0").SetKeyspace("app").Scan(&v))
		assert.Equal(t, "first", v)
		require.NoError(t, sess.Query("INSERT INTO p (k, c, v) VALUES (4, 0, 'ks')").SetKeyspace("app").Exec())
		kb := sess.Batch(gocql.UnloggedBatch).SetKeyspace("app")
		kb.Query("INSERT INTO p (k, c, v) VALUES (4, 1, 'kb')")
		require.NoError(t, kb.Exec())
		srv.CheckRow(t, "SELECT v FROM app.p WHERE k = 4 AND c = 1", nil, "kb")
		err = sess.Query("SELECT v FROM p WHERE k = 3").Exec()
		var rerr gocql.RequestError
		require.True(t, errors.As(err, &rerr), "%T %v", err, err)
		assert.Equal(t, gocql.ErrCodeInvalid, rerr.Code(), "no keyspace without the flag")

		// Tracing: the trace session is recorded and readable.
		var tr traceIDs
		require.NoError(t, sess.Query("SELECT v FROM app.p WHERE k = 3 AND c = 0").Trace(&tr).Exec())
		require.Len(t, tr, 1)
		var request string
		require.NoError(t, sess.Query("SELECT request FROM system_traces.sessions WHERE session_id = ?", gocql.UUID(tr[0])).Scan(&request))
		assert.Equal(t, "Execute CQL3 prepared query", request, "gocql prepares a query before executing it")
	})
}

// traceIDs is a gocql Tracer collecting trace session ids.
type traceIDs [][16]byte

func (t *traceIDs) Trace(id []byte) { *t = append(*t, [16]byte(id)) }
