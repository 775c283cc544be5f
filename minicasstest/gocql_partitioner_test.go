package minicasstest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// TestGocqlByteOrderedPartitioner connects gocql, with its token-aware
// routing, to a server on the ByteOrderedPartitioner: the driver reads the
// partitioner and the node's hex tokens from system.local, and a range read
// returns the partitions in key order, token(k) the key as a blob.
func TestGocqlByteOrderedPartitioner(t *testing.T) {
	srv, err := RunOptions(Options{Partitioner: minicass.ByteOrderedPartitioner})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	sess := newSession(t, srv, "")
	require.NoError(t, sess.Query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec())
	require.NoError(t, sess.Query("CREATE TABLE ks.t (k text PRIMARY KEY, v int)").Exec())
	for i, k := range []string{"pear", "apple", "fig"} {
		require.NoError(t, sess.Query("INSERT INTO ks.t (k, v) VALUES (?, ?)", k, i).Exec())
	}
	var partitioner string
	require.NoError(t, sess.Query("SELECT partitioner FROM system.local").Scan(&partitioner))
	assert.Equal(t, "org.apache.cassandra.dht.ByteOrderedPartitioner", partitioner)

	iter := sess.Query("SELECT k, token(k) FROM ks.t").Iter()
	var k string
	var tok []byte
	var keys []string
	for iter.Scan(&k, &tok) {
		keys = append(keys, k)
		assert.Equal(t, []byte(k), tok)
	}
	require.NoError(t, iter.Close())
	assert.Equal(t, []string{"apple", "fig", "pear"}, keys)
}
