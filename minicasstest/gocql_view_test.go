package minicasstest

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGocqlMaterializedViewMetadata is gocql's TestMaterializedViewMetadata
// (cassandra_test.go, with createMaterializedViews of common_test.go) against
// a server with views enabled: the views created over gocql are in the
// driver's keyspace metadata with 4.x's defaults, their base table resolved,
// and the view answers reads of what the base table was given.
func TestGocqlMaterializedViewMetadata(t *testing.T) {
	srv, err := RunOptions(Options{MaterializedViewsEnabled: true})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	sess := newSession(t, srv, "")
	require.NoError(t, sess.Query("CREATE KEYSPACE gocql_test WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec())
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS gocql_test.view_table (userid text, year int, month int, PRIMARY KEY (userid))`,
		`CREATE TABLE IF NOT EXISTS gocql_test.view_table2 (userid text, year int, month int, PRIMARY KEY (userid))`,
		`CREATE MATERIALIZED VIEW IF NOT EXISTS gocql_test.view_view AS SELECT year, month, userid FROM gocql_test.view_table
		   WHERE year IS NOT NULL AND month IS NOT NULL AND userid IS NOT NULL PRIMARY KEY (userid, year)`,
		`CREATE MATERIALIZED VIEW IF NOT EXISTS gocql_test.view_view2 AS SELECT year, month, userid FROM gocql_test.view_table2
		   WHERE year IS NOT NULL AND month IS NOT NULL AND userid IS NOT NULL PRIMARY KEY (userid, year)`,
	} {
		require.NoError(t, sess.Query(q).Exec(), q)
	}
	md, err := sess.KeyspaceMetadata("gocql_test")
	require.NoError(t, err)
	require.Len(t, md.MaterializedViews, 2)
	for _, pair := range [][2]string{{"view_view", "view_table"}, {"view_view2", "view_table2"}} {
		v := md.MaterializedViews[pair[0]]
		require.NotNil(t, v, pair[0])
		assert.Equal(t, "gocql_test", v.Keyspace)
		require.NotNil(t, v.BaseTable, "base table of %s", pair[0])
		assert.Equal(t, pair[1], v.BaseTable.Name)
		assert.Equal(t, md.Tables[pair[1]], v.BaseTable)
		assert.Equal(t, 0.01, v.BloomFilterFpChance)
		assert.Equal(t, map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}, v.Caching)
		assert.Equal(t, "", v.Comment)
		assert.Equal(t, map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy", "max_threshold": "32", "min_threshold": "4"}, v.Compaction)
		assert.Equal(t, map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"}, v.Compression)
		assert.Equal(t, float64(1), v.CrcCheckChance)
		assert.Equal(t, float64(0), v.DcLocalReadRepairChance)
		assert.Equal(t, 0, v.DefaultTimeToLive)
		assert.Equal(t, map[string]string{}, v.Extensions)
		assert.Equal(t, 864000, v.GcGraceSeconds)
		assert.False(t, v.IncludeAllColumns)
		assert.Equal(t, 2048, v.MaxIndexInterval)
		assert.Equal(t, 0, v.MemtableFlushPeriodInMs)
		assert.Equal(t, 128, v.MinIndexInterval)
		assert.Equal(t, float64(0), v.ReadRepairChance)
		assert.Equal(t, "99p", v.SpeculativeRetry)
		assert.NotEqual(t, v.BaseTableId, v.Id)
	}
	// gocql builds Tables from system_schema.columns, where a view's columns
	// are listed as a table's are (SchemaKeyspace): the view's key is there.
	require.Contains(t, md.Tables, "view_view")
	assert.Equal(t, "userid", md.Tables["view_view"].PartitionKey[0].Name)
	assert.Equal(t, "year", md.Tables["view_view"].ClusteringColumns[0].Name)

	require.NoError(t, sess.Query("INSERT INTO gocql_test.view_table (userid, year, month) VALUES ('ada', 2026, 12)").Exec())
	var year, month int
	require.NoError(t, sess.Query("SELECT year, month FROM gocql_test.view_view WHERE userid = 'ada'").Scan(&year, &month))
	assert.Equal(t, [2]int{2026, 12}, [2]int{year, month})
	err = sess.Query("INSERT INTO gocql_test.view_view (userid, year, month) VALUES ('bob', 1, 1)").Exec()
	var rerr gocql.RequestError
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, gocql.ErrCodeInvalid, rerr.Code())
	assert.Equal(t, "Cannot directly modify a materialized view", rerr.Message())

	// Without the option CREATE is refused with Cassandra's text.
	off := Start(t)
	sess2 := newSession(t, off, "")
	require.NoError(t, sess2.Query("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec())
	require.NoError(t, sess2.Query("CREATE TABLE k.t (a int PRIMARY KEY, b int)").Exec())
	err = sess2.Query("CREATE MATERIALIZED VIEW k.v AS SELECT * FROM k.t WHERE a IS NOT NULL AND b IS NOT NULL PRIMARY KEY (b, a)").Exec()
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, "Materialized views are disabled. Enable in cassandra.yaml to use.", rerr.Message())
}
