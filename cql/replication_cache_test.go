package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/wire"
)

// TestReplicationFollowsAlterKeyspace checks that the replica count of a
// read and a write follows the keyspace's current replication after ALTER
// KEYSPACE, although the executor caches the replication of each keyspace
// definition it has read (plan.Execution.replication): QUORUM works at
// RF 1, is Unavailable at RF 3 (required 2, alive 1), and works again at
// RF 1; a second keyspace read in between keeps its own factor.
func TestReplicationFollowsAlterKeyspace(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	quorum := &query.Params{Consistency: wire.Quorum, HasConsistency: true}
	read := func(ks string) error {
		_, err := s.Query(ctx, "SELECT v FROM "+ks+".t WHERE k = 1", quorum)
		return err
	}
	write := func(ks string) error {
		_, err := s.Query(ctx, "INSERT INTO "+ks+".t (k, v) VALUES (1, 3)", quorum)
		return err
	}
	unavailable := func(err error) {
		t.Helper()
		requireCode(t, err, wire.CodeUnavailable, "Cannot achieve consistency level QUORUM")
		qe := err.(*query.Error)
		require.Equal(t, int32(2), qe.Required)
		require.Equal(t, int32(1), qe.Alive)
	}
	mustQuery(t, s, "CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	mustQuery(t, s, "CREATE TABLE other.t (k int PRIMARY KEY, v int)")

	require.NoError(t, read("ks"))
	require.NoError(t, write("ks"))
	unavailable(read("other"))

	mustQuery(t, s, "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	unavailable(read("ks"))
	unavailable(write("ks"))
	unavailable(read("other"))

	mustQuery(t, s, "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, s, "ALTER KEYSPACE other WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1}")
	require.NoError(t, read("ks"))
	require.NoError(t, write("ks"))
	require.NoError(t, read("other"))
}

// TestPreparedReadFollowsAlterKeyspace checks that a prepared SELECT, whose
// plan keeps its keyspace's replication (plan.Replicas), counts the
// replicas of the keyspace's current replication after ALTER KEYSPACE: the
// schema change makes the statement compile again. QUORUM works at RF 1,
// is Unavailable at RF 3 (required 2, alive 1), and works again at RF 1.
func TestPreparedReadFollowsAlterKeyspace(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	prep, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	read := func() error {
		p := &query.Params{Consistency: wire.Quorum, HasConsistency: true, Values: []query.Value{{Bytes: []byte{0, 0, 0, 1}}}}
		_, err := s.ExecutePrepared(ctx, prep, p)
		return err
	}
	require.NoError(t, read())
	mustQuery(t, s, "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	err = read()
	requireCode(t, err, wire.CodeUnavailable, "Cannot achieve consistency level QUORUM")
	qe := err.(*query.Error)
	require.Equal(t, int32(2), qe.Required)
	require.Equal(t, int32(1), qe.Alive)
	mustQuery(t, s, "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	require.NoError(t, read())
}

// TestDefaultLevelReadWithoutLocalReplica checks the read at the default
// level (ONE, no consistency given) of a keyspace of replication factor 0,
// which places no replica on the node: Unavailable (required 1, alive 0),
// for a query and a prepared statement (whose plan keeps the keyspace's
// replication, plan.Replicas); a keyspace with a replica on the node reads.
func TestDefaultLevelReadWithoutLocalReplica(t *testing.T) {
	s := boundsSession(t)
	ctx := context.Background()
	mustQuery(t, s, "CREATE KEYSPACE far WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 0}")
	mustQuery(t, s, "CREATE TABLE far.t (k int PRIMARY KEY, v int)")
	unavailable := func(err error) {
		t.Helper()
		requireCode(t, err, wire.CodeUnavailable, "Cannot achieve consistency level ONE")
		qe := err.(*query.Error)
		require.Equal(t, int32(1), qe.Required)
		require.Equal(t, int32(0), qe.Alive)
	}
	_, err := s.Query(ctx, "SELECT v FROM far.t WHERE k = 1", nil)
	unavailable(err)
	prep, err := s.Prepare(ctx, "SELECT v FROM far.t WHERE k = ?")
	require.NoError(t, err)
	_, err = s.ExecutePrepared(ctx, prep, &query.Params{Values: []query.Value{{Bytes: []byte{0, 0, 0, 1}}}})
	unavailable(err)
	_, err = s.Query(ctx, "SELECT v FROM ks.t WHERE k = 1", nil)
	require.NoError(t, err)
}
