package minicasstest

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGocqlConsistencyOnOneNode checks that the consistency levels a driver
// sends are counted against the keyspace's replication factor as a
// one-node Cassandra 4.1 counts them (ReplicaPlans.assureSufficientLiveReplicas):
// QUORUM of RF 3 needs 2 replicas where 1 is alive, and the Unavailable
// error carries the level, required and alive replicas on the wire; ONE and
// LOCAL_ONE work, and QUORUM of RF 1 is 1.
func TestGocqlConsistencyOnOneNode(t *testing.T) {
	srv := Start(t)
	srv.MustExec(t, "CREATE KEYSPACE rf3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	srv.MustExec(t, "CREATE TABLE rf3.t (k int PRIMARY KEY, v int)")
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.t (k int PRIMARY KEY, v int)")
	sess := newSession(t, srv, "")

	unavailable := func(t *testing.T, err error, cl gocql.Consistency, required, alive int) {
		t.Helper()
		var e *gocql.RequestErrUnavailable
		require.ErrorAs(t, err, &e)
		assert.Equal(t, cl, e.Consistency)
		assert.Equal(t, required, e.Required)
		assert.Equal(t, alive, e.Alive)
		assert.Equal(t, "Cannot achieve consistency level "+cl.String(), e.Message())
	}
	unavailable(t, sess.Query("INSERT INTO rf3.t (k, v) VALUES (1, 1)").Consistency(gocql.Quorum).Exec(), gocql.Quorum, 2, 1)
	unavailable(t, sess.Query("SELECT v FROM rf3.t WHERE k = 1").Consistency(gocql.Quorum).Exec(), gocql.Quorum, 2, 1)
	unavailable(t, sess.Query("SELECT v FROM rf3.t").Consistency(gocql.All).Exec(), gocql.All, 3, 1)
	unavailable(t, sess.Query("SELECT v FROM rf3.t WHERE k = 1").Consistency(gocql.LocalQuorum).Exec(), gocql.LocalQuorum, 2, 1)
	// A conditional statement reads the current values at QUORUM
	// (StorageProxy.cas), whatever its own level.
	unavailable(t, sess.Query("INSERT INTO rf3.t (k, v) VALUES (2, 2) IF NOT EXISTS").Consistency(gocql.One).Exec(), gocql.Quorum, 2, 1)
	// TWO needs two replicas at any replication factor.
	unavailable(t, sess.Query("SELECT v FROM app.t WHERE k = 1").Consistency(gocql.Two).Exec(), gocql.Two, 2, 1)

	for _, cl := range []gocql.Consistency{gocql.One, gocql.LocalOne} {
		require.NoError(t, sess.Query("INSERT INTO rf3.t (k, v) VALUES (1, 1)").Consistency(cl).Exec())
		var v int
		require.NoError(t, sess.Query("SELECT v FROM rf3.t WHERE k = 1").Consistency(cl).Scan(&v))
		assert.Equal(t, 1, v)
	}
	require.NoError(t, sess.Query("INSERT INTO rf3.t (k, v) VALUES (3, 3)").Consistency(gocql.Any).Exec())
	for _, cl := range []gocql.Consistency{gocql.Quorum, gocql.All, gocql.LocalQuorum, gocql.EachQuorum} {
		require.NoError(t, sess.Query("INSERT INTO app.t (k, v) VALUES (1, 1)").Consistency(cl).Exec(), cl)
		var v int
		require.NoError(t, sess.Query("SELECT v FROM app.t WHERE k = 1").Consistency(cl).Scan(&v), cl)
		assert.Equal(t, 1, v)
	}
	applied, err := sess.Query("INSERT INTO app.t (k, v) VALUES (2, 2) IF NOT EXISTS").Consistency(gocql.Quorum).SerialConsistency(gocql.Serial).ScanCAS()
	require.NoError(t, err)
	assert.True(t, applied)

	// A SERIAL read is a Paxos read of one partition
	// (StorageProxy.readWithPaxos); on RF 1 it works.
	var one int
	require.NoError(t, sess.Query("SELECT v FROM app.t WHERE k = 1").Consistency(gocql.Consistency(gocql.Serial)).Scan(&one))
	assert.Equal(t, 1, one)
	err = sess.Query("SELECT v FROM app.t WHERE k IN (1, 2)").Consistency(gocql.Consistency(gocql.Serial)).Exec()
	var se gocql.RequestError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time", se.Message())
	unavailable(t, sess.Query("SELECT v FROM rf3.t WHERE k = 1").Consistency(gocql.Consistency(gocql.Serial)).Exec(), gocql.Quorum, 2, 1)

	// ConsistencyLevel.validateForRead and validateForWrite.
	err = sess.Query("SELECT v FROM app.t WHERE k = 1").Consistency(gocql.Any).Exec()
	var re gocql.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "ANY ConsistencyLevel is only supported for writes", re.Message())
}
