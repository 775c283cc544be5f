package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// TestNodetool drives flush, compact, tablestats, tablehistograms and
// compactionhistory on a data directory, one process run per command as
// from the command line.
func TestNodetool(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`))
	for i := 0; i < 20; i++ {
		require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c, v) VALUES (?, ?, 'x')`, i%5, i))
	}
	require.NoError(t, db.Close())

	code, _, errs := runArgs("nodetool", "--data", dir, "flush", "ks", "t")
	require.Equal(t, 0, code, errs)
	db, err = minicass.Open(minicass.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, db.Exec(ctx, `DELETE FROM ks.t WHERE k = 1`))
	require.NoError(t, db.Close())
	code, _, errs = runArgs("nodetool", "--data", dir, "flush")
	require.Equal(t, 0, code, errs)

	code, out, errs := runArgs("nodetool", "--data", dir, "tablestats", "ks.t")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Total number of tables: 1\n----------------\nKeyspace : ks\n")
	assert.Contains(t, out, "\t\tTable: t\n\t\tSSTable count: 2\n")
	assert.Contains(t, out, "\t\tNumber of partitions (estimate): 6\n")
	// nodetool opens the data directory afresh: no read yet.
	assert.Contains(t, out, "\t\tAverage live cells per slice (last five minutes): NaN\n\t\tMaximum live cells per slice (last five minutes): 0\n")

	code, _, errs = runArgs("nodetool", "--data", dir, "compact", "ks")
	require.Equal(t, 0, code, errs)
	code, out, _ = runArgs("nodetool", "--data", dir, "tablestats", "ks")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "\t\tSSTable count: 1\n")
	assert.Contains(t, out, "\t\tCompactions completed: 1\n")

	code, out, errs = runArgs("nodetool", "--data", dir, "tablehistograms", "ks", "t")
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 10, out)
	assert.Equal(t, "ks/t histograms", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "Percentile      Read Latency     Write Latency          SSTables    Partition Size        Cell Count"), lines[1])
	assert.True(t, strings.HasPrefix(lines[3], "50%"), lines[3])
	assert.True(t, strings.HasPrefix(lines[9], "Max"), lines[9])

	code, out, errs = runArgs("nodetool", "--data", dir, "compactionhistory")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Compaction History: \nid")
	assert.Contains(t, out, "keyspace_name columnfamily_name compacted_at")
	assert.Contains(t, out, " ks            t                 ")
	assert.Contains(t, out, "{1:4, 2:1}") // four partitions from one SSTable, k = 1 from both

	code, _, errs = runArgs("nodetool", "--data", dir, "tablehistograms", "ks", "nosuch")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "does not exist")
	code, _, errs = runArgs("nodetool", "--data", dir, "compact", "nosuch")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "Keyspace 'nosuch' does not exist")
	code, _, _ = runArgs("nodetool", "flush")
	assert.Equal(t, 2, code)
}
