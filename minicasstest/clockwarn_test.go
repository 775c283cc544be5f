package minicasstest

import (
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClockTrapIsWarned walks into the client-timestamp trap: after
// FastForward, a DELETE run by the server is stamped an hour ahead, so
// gocql's next INSERT (stamped with the real clock) is shadowed. The
// driver's response carries the warning, and the server keeps it; with
// DefaultTimestamp off the server stamps the write, it is visible, and no
// warning is given.
func TestClockTrapIsWarned(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.kv (k int PRIMARY KEY, v text)")
	sess := newSession(t, srv, "app")
	srv.FastForward(time.Hour)
	srv.MustExec(t, "DELETE FROM app.kv WHERE k = 1")

	iter := sess.Query("INSERT INTO app.kv (k, v) VALUES (1, 'a')").Iter()
	warnings := iter.Warnings()
	require.NoError(t, iter.Close())
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "behind the server's clock")
	assert.Contains(t, warnings[0], "cluster.DefaultTimestamp = false")
	srv.CheckCount(t, "SELECT * FROM app.kv WHERE k = 1", nil, 0) // the trap: the row is shadowed
	require.Len(t, srv.ClockWarnings(), 1)

	q := sess.Query("SELECT * FROM app.kv WHERE k = 1").Iter()
	assert.Empty(t, q.Warnings(), "reads are not warned about")
	require.NoError(t, q.Close())

	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.ProtoVersion = 4
	cluster.DefaultTimestamp = false
	cluster.Timeout = 5 * time.Second
	safe, err := cluster.CreateSession()
	require.NoError(t, err)
	defer safe.Close()
	iter = safe.Query("INSERT INTO app.kv (k, v) VALUES (1, 'b')").Iter()
	assert.Empty(t, iter.Warnings())
	require.NoError(t, iter.Close())
	srv.CheckRow(t, "SELECT v FROM app.kv WHERE k = 1", nil, "b")
	assert.Len(t, srv.ClockWarnings(), 1)
}
