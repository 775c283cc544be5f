package minicass

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestByteOrderedPartitioner runs a node on the ByteOrderedPartitioner, as
// cassandra.yaml's partitioner selects it: system.local names it, token()
// is the key as a blob, partitions come in key-byte order and token()
// relations bound key bytes.
func TestByteOrderedPartitioner(t *testing.T) {
	db := openTest(t, Options{Partitioner: ByteOrderedPartitioner})
	ctx := context.Background()
	var name string
	require.NoError(t, db.Query(ctx, "SELECT partitioner FROM system.local").ScanOne(&name))
	assert.Equal(t, "org.apache.cassandra.dht.ByteOrderedPartitioner", name)

	require.NoError(t, db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(t, db.Exec(ctx, "CREATE TABLE ks.t (k text PRIMARY KEY, v int)"))
	for i, k := range []string{"b", "ab", "a", "c"} {
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)", k, i))
	}
	keys := func(q string, args ...any) []string {
		rows := db.Query(ctx, q, args...)
		var out []string
		for rows.Next() {
			var k string
			require.NoError(t, rows.Scan(&k))
			out = append(out, k)
		}
		require.NoError(t, rows.Err())
		return out
	}
	assert.Equal(t, []string{"a", "ab", "b", "c"}, keys("SELECT k FROM ks.t"))
	assert.Equal(t, []string{"b", "c"}, keys("SELECT k FROM ks.t WHERE token(k) > token('ab')"))
	assert.Equal(t, []string{"ab", "b"}, keys("SELECT k FROM ks.t WHERE token(k) >= 0x6162 AND token(k) <= 0x62"))
	// The minimum token (the empty blob) as an upper bound bounds nothing,
	// as Range(start, MIN's key bound) runs to the end of the ring in
	// Cassandra (see the Murmur3 cases in cql/testdata/scripts/token-filter).
	assert.Equal(t, []string{"a", "ab", "b", "c"}, keys("SELECT k FROM ks.t WHERE token(k) < 0x"))
	assert.Equal(t, []string{"a", "ab", "b", "c"}, keys("SELECT k FROM ks.t WHERE token(k) = 0x"))
	assert.Equal(t, []string{"b", "c"}, keys("SELECT k FROM ks.t WHERE token(k) > 0x6162 AND token(k) <= 0x"))
	assert.Empty(t, keys("SELECT k FROM ks.t WHERE token(k) > 0x63"))

	var tok []byte
	require.NoError(t, db.Query(ctx, "SELECT token(k) FROM ks.t WHERE k = 'ab'").ScanOne(&tok))
	assert.Equal(t, []byte("ab"), tok)
	rows := db.Query(ctx, "SELECT token(k) FROM ks.t LIMIT 1")
	require.NoError(t, rows.Err())
	assert.Equal(t, "blob", rows.Columns()[0].Type.String())
}

// TestByteOrderedPartitionerOnDisk writes keys that share their first 7
// bytes (and so the engine's prefix token) over two SSTables, compacts
// them and reopens the directory: the rows come back in key-byte order
// from the SSTables, as from the memtable, and after a compaction, which
// reads its inputs from their partition streams.
func TestByteOrderedPartitionerOnDisk(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := openTest(t, Options{Dir: dir, Partitioner: ByteOrderedPartitioner})
	require.NoError(t, db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(t, db.Exec(ctx, "CREATE TABLE ks.t (k text PRIMARY KEY, v int)"))
	first := []string{"prefix_z", "prefix_b", "a", "prefix_"}
	second := []string{"prefix_a", "prefix_zz", "b", "prefix_b"}
	for i, k := range first {
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)", k, i))
	}
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	for i, k := range second {
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)", k, 10+i))
	}
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	want := []string{"a", "b", "prefix_", "prefix_a", "prefix_b", "prefix_z", "prefix_zz"}
	keys := func(db *DB) []string {
		rows := db.Query(ctx, "SELECT k FROM ks.t")
		var out []string
		for rows.Next() {
			var k string
			require.NoError(t, rows.Scan(&k))
			out = append(out, k)
		}
		require.NoError(t, rows.Err())
		return out
	}
	assert.Equal(t, want, keys(db), "two SSTables")
	require.NoError(t, db.Compact(ctx, "ks", "t"))
	assert.Equal(t, want, keys(db), "compacted")
	var v int
	require.NoError(t, db.Query(ctx, "SELECT v FROM ks.t WHERE k = 'prefix_b'").ScanOne(&v))
	assert.Equal(t, 13, v, "the later write wins")
	require.NoError(t, db.Close())

	db = openTest(t, Options{Dir: dir, Partitioner: ByteOrderedPartitioner})
	assert.Equal(t, want, keys(db), "reopened")
}
