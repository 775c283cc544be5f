package minicasstest

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/wire"
)

func faultSession(t *testing.T) (*Server, *gocql.Session) {
	t.Helper()
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.kv (k int PRIMARY KEY, v text)")
	return srv, newSession(t, srv, "app")
}

// TestFaultsReachGocqlTyped checks that each error a fault answers with
// reaches gocql as its typed error with every field.
func TestFaultsReachGocqlTyped(t *testing.T) {
	srv, sess := faultSession(t)
	const insert = "INSERT INTO kv (k, v) VALUES (?, ?)"
	const sel = "SELECT v FROM kv WHERE k = ?"
	for _, tc := range []struct {
		name  string
		query string
		err   *Error
		check func(t *testing.T, err error)
	}{
		{"write timeout", insert, &Error{Code: wire.CodeWriteTimeout, Consistency: wire.LocalQuorum, Received: 1, BlockFor: 2, WriteType: "BATCH_LOG"},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrWriteTimeout
				require.ErrorAs(t, err, &e)
				assert.Equal(t, gocql.LocalQuorum, e.Consistency)
				assert.Equal(t, 1, e.Received)
				assert.Equal(t, 2, e.BlockFor)
				assert.Equal(t, "BATCH_LOG", e.WriteType)
				assert.Equal(t, "Operation timed out - received only 1 responses.", e.Message())
			}},
		{"read timeout", sel, &Error{Code: wire.CodeReadTimeout, Consistency: wire.Quorum, Received: 2, BlockFor: 2, DataPresent: false, Message: "slow replica"},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrReadTimeout
				require.ErrorAs(t, err, &e)
				assert.Equal(t, gocql.Quorum, e.Consistency)
				assert.Equal(t, 2, e.Received)
				assert.Equal(t, 2, e.BlockFor)
				assert.Equal(t, byte(0), e.DataPresent)
				assert.Equal(t, "slow replica", e.Message())
			}},
		{"read timeout with data", sel, &Error{Code: wire.CodeReadTimeout, Consistency: wire.One, BlockFor: 1, DataPresent: true},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrReadTimeout
				require.ErrorAs(t, err, &e)
				assert.Equal(t, byte(1), e.DataPresent)
			}},
		{"unavailable", insert, &Error{Code: wire.CodeUnavailable, Consistency: wire.All, Required: 3, Alive: 1},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrUnavailable
				require.ErrorAs(t, err, &e)
				assert.Equal(t, gocql.All, e.Consistency)
				assert.Equal(t, 3, e.Required)
				assert.Equal(t, 1, e.Alive)
				assert.Equal(t, "Cannot achieve consistency level ALL", e.Message())
			}},
		{"read failure", sel, &Error{Code: wire.CodeReadFailure, Consistency: wire.Quorum, Received: 1, BlockFor: 2, NumFailures: 1, DataPresent: true},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrReadFailure
				require.ErrorAs(t, err, &e)
				assert.Equal(t, gocql.Quorum, e.Consistency)
				assert.Equal(t, 1, e.Received)
				assert.Equal(t, 2, e.BlockFor)
				assert.Equal(t, 1, e.NumFailures)
				assert.True(t, e.DataPresent)
			}},
		{"write failure", insert, &Error{Code: wire.CodeWriteFailure, Consistency: wire.EachQuorum, Received: 2, BlockFor: 3, NumFailures: 1, WriteType: "SIMPLE"},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrWriteFailure
				require.ErrorAs(t, err, &e)
				assert.Equal(t, gocql.EachQuorum, e.Consistency)
				assert.Equal(t, 2, e.Received)
				assert.Equal(t, 3, e.BlockFor)
				assert.Equal(t, 1, e.NumFailures)
				assert.Equal(t, "SIMPLE", e.WriteType)
			}},
		{"function failure", sel, &Error{Code: wire.CodeFunctionFailure, Keyspace: "app", Function: "parse", ArgTypes: []string{"text", "int"}},
			func(t *testing.T, err error) {
				var e *gocql.RequestErrFunctionFailure
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "app", e.Keyspace)
				assert.Equal(t, "parse", e.Function)
				assert.Equal(t, []string{"text", "int"}, e.ArgTypes)
			}},
		{"overloaded", insert, &Error{Code: wire.CodeOverloaded}, codeCheck(gocql.ErrCodeOverloaded)},
		{"is bootstrapping", sel, &Error{Code: wire.CodeIsBootstrapping}, codeCheck(gocql.ErrCodeBootstrapping)},
		{"server error", insert, &Error{Code: wire.CodeServer, Message: "java.lang.NullPointerException"}, func(t *testing.T, err error) {
			codeCheck(gocql.ErrCodeServer)(t, err)
			assert.Equal(t, "java.lang.NullPointerException", err.Error())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := srv.MustFault(t, FaultRule{Query: tc.query, Times: 1, Error: tc.err})
			var err error
			if tc.query == insert {
				err = sess.Query(insert, 1, "a").Exec()
			} else {
				var v string
				err = sess.Query(sel, 1).Scan(&v)
			}
			require.Error(t, err)
			tc.check(t, err)
			assert.Equal(t, int64(1), f.Hits())
			assert.False(t, f.Active(), "a one-shot fault is gone once used")
		})
	}
}

func codeCheck(code int) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		var re gocql.RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, code, re.Code())
	}
}

// retrySame retries a query on the same host up to n times.
type retrySame struct{ n int }

func (r retrySame) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= r.n }
func (r retrySame) GetRetryType(error) gocql.RetryType  { return gocql.Retry }

// TestFaultRetryPolicyRecovers checks that a retry policy gets past a
// one-shot fault and that the write then lands; without one, the error
// reaches the application.
func TestFaultRetryPolicyRecovers(t *testing.T) {
	srv, sess := faultSession(t)
	const insert = "INSERT INTO kv (k, v) VALUES (?, ?)"
	wt := &Error{Code: wire.CodeWriteTimeout, Consistency: wire.One, BlockFor: 1, WriteType: "SIMPLE"}

	srv.MustFault(t, FaultRule{Prefix: "INSERT INTO kv", Requests: FaultExecute, Times: 1, Error: wt})
	var e *gocql.RequestErrWriteTimeout
	require.ErrorAs(t, sess.Query(insert, 1, "lost").Exec(), &e)

	f := srv.MustFault(t, FaultRule{Prefix: "INSERT INTO kv", Requests: FaultExecute, Times: 1, Error: wt})
	require.NoError(t, sess.Query(insert, 2, "kept").RetryPolicy(retrySame{n: 1}).Exec())
	assert.Equal(t, int64(1), f.Hits())
	srv.CheckRow(t, "SELECT v FROM app.kv WHERE k = ?", []any{2}, "kept")
	srv.CheckCount(t, "SELECT * FROM app.kv WHERE k = ?", []any{1}, 0)
}

// TestFaultDelayTripsDriverTimeout checks that a delay longer than the
// driver's timeout reaches it as gocql's timeout, and that a request that
// never gets an answer does too; the connection stays usable.
func TestFaultDelayTripsDriverTimeout(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.kv (k int PRIMARY KEY, v text)")
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = "app"
	cluster.ProtoVersion = 4
	cluster.ConnectTimeout = 5 * time.Second
	cluster.Timeout = 50 * time.Millisecond
	cluster.Consistency = gocql.One
	cluster.NumConns = 1
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(sess.Close)

	srv.MustFault(t, FaultRule{Query: "SELECT v FROM kv WHERE k = ?", Delay: time.Minute, Times: 1})
	var v string
	err = sess.Query("SELECT v FROM kv WHERE k = ?", 1).Scan(&v)
	assert.ErrorIs(t, err, gocql.ErrTimeoutNoResponse)

	srv.MustFault(t, FaultRule{Query: "SELECT v FROM kv WHERE k = ?", Action: FaultNoAnswer, Times: 1})
	err = sess.Query("SELECT v FROM kv WHERE k = ?", 1).Scan(&v)
	assert.ErrorIs(t, err, gocql.ErrTimeoutNoResponse)

	require.NoError(t, srv.Exec("INSERT INTO app.kv (k, v) VALUES (1, 'a')"))
	require.NoError(t, sess.Query("SELECT v FROM kv WHERE k = ?", 1).Scan(&v))
	assert.Equal(t, "a", v)
}

// TestFaultCloseConnection checks that a close fault ends the driver's
// connection under the request, and that the driver reconnects.
func TestFaultCloseConnection(t *testing.T) {
	srv, sess := faultSession(t)
	srv.MustFault(t, FaultRule{Query: "SELECT v FROM kv WHERE k = ?", Action: FaultClose, Times: 1})
	var v string
	err := sess.Query("SELECT v FROM kv WHERE k = ?", 1).Scan(&v)
	require.Error(t, err)
	// gocql reports the closed socket as it saw it: EOF, or the closed
	// connection once its reader noticed first.
	assert.True(t, errors.Is(err, io.EOF) || errors.Is(err, gocql.ErrConnectionClosed) || errors.Is(err, gocql.ErrNoConnections), "%v", err)
	require.NoError(t, srv.Exec("INSERT INTO app.kv (k, v) VALUES (1, 'back')"))
	require.Eventually(t, func() bool {
		return sess.Query("SELECT v FROM kv WHERE k = ?", 1).Scan(&v) == nil && v == "back"
	}, 10*time.Second, 10*time.Millisecond)
}
