package nodetool

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

func openDB(t *testing.T, dir string) *minicass.DB {
	t.Helper()
	db, err := minicass.Open(minicass.Options{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`))
	return db
}

// TestMemtableCellCount checks tablestats' "Memtable cell count" against
// Cassandra's count of memtable operations (PartitionUpdate.operationCount
// summed over the updates): a row each for two INSERTs, two rows for a
// BATCH of one partition, one for a partition deletion, one for a range
// deletion; the partitions are counted apart, in the estimate.
func TestMemtableCellCount(t *testing.T) {
	db := openDB(t, "")
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')`,
		`INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'b')`,
		`BEGIN BATCH INSERT INTO ks.t (k, c, v) VALUES (2, 1, 'a'); INSERT INTO ks.t (k, c, v) VALUES (2, 2, 'b'); APPLY BATCH`,
		`DELETE FROM ks.t WHERE k = 3`,
		`DELETE FROM ks.t WHERE k = 1 AND c > 5`,
	} {
		require.NoError(t, db.Exec(ctx, q), q)
	}
	var out bytes.Buffer
	require.NoError(t, Run(ctx, db, "tablestats", []string{"ks.t"}, &out))
	assert.Contains(t, out.String(), "\t\tNumber of partitions (estimate): 3\n\t\tMemtable cell count: 6\n")
	out.Reset()
	require.NoError(t, Run(ctx, db, "flush", nil, &out))
	require.NoError(t, Run(ctx, db, "cfstats", []string{"ks"}, &out))
	assert.Contains(t, out.String(), "\t\tMemtable cell count: 0\n", "a new memtable after the flush")
	assert.Contains(t, out.String(), "\t\tSSTable count: 1\n")
}

// TestTablestatsIndexes checks that a table's secondary indexes are listed
// after it, as Cassandra lists its index tables ("Table (index): t.i"),
// with their own counts: two entries written, flushed with the table.
func TestTablestatsIndexes(t *testing.T) {
	db := openDB(t, "")
	ctx := context.Background()
	for _, q := range []string{
		`CREATE INDEX t_v ON ks.t (v)`,
		`INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')`,
		`INSERT INTO ks.t (k, c, v) VALUES (2, 1, 'b')`,
	} {
		require.NoError(t, db.Exec(ctx, q), q)
	}
	var out bytes.Buffer
	require.NoError(t, Run(ctx, db, "flush", []string{"ks", "t"}, &out))
	require.NoError(t, Run(ctx, db, "tablestats", []string{"ks.t"}, &out))
	s := out.String()
	assert.Contains(t, s, "Total number of tables: 2\n")
	i, j := strings.Index(s, "\t\tTable: t\n"), strings.Index(s, "\t\tTable (index): t.t_v\n")
	require.True(t, i >= 0 && j > i, "the index table follows its table:\n%s", s)
	assert.Contains(t, s[j:], "\t\tSSTable count: 1\n\t\tOld SSTable count: 0\n")
	assert.Contains(t, s[j:], "\t\tNumber of partitions (estimate): 2\n")
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), openDB(t, ""), "help", nil, &out))
	for _, c := range Commands {
		assert.Contains(t, out.String(), "\n    "+c.Name+" ")
	}
	err := Run(context.Background(), openDB(t, ""), "repair", nil, &out)
	assert.EqualError(t, err, `unknown command "repair" (compact, compactionhistory, flush, help, tablehistograms, tablestats)`)
}

// TestRemote runs nodetool on the process holding a data directory over
// its endpoint: the address file is written with the endpoint and removed
// with it; a wrong token is refused; a command's error comes back as text.
func TestRemote(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')`))
	assert.ErrorIs(t, Remote(ctx, dir, "tablestats", nil, &bytes.Buffer{}), ErrNoEndpoint)

	ep, err := Serve(db, dir)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, AddrFile))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), ep.Addr()+" "), string(b))
	fi, err := os.Stat(filepath.Join(dir, AddrFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	var out bytes.Buffer
	require.NoError(t, Remote(ctx, dir, "tablestats", []string{"ks.t"}, &out))
	assert.Contains(t, out.String(), "\t\tMemtable cell count: 1\n")
	out.Reset()
	require.NoError(t, Remote(ctx, dir, "flush", []string{"ks"}, &out))
	require.NoError(t, Remote(ctx, dir, "tablestats", []string{"ks.t"}, &out))
	assert.Contains(t, out.String(), "\t\tSSTable count: 1\n", "the flush ran in the process holding the directory")
	err = Remote(ctx, dir, "tablestats", []string{"nosuch"}, &out)
	assert.EqualError(t, err, "Unknown keyspace: nosuch")

	resp, err := http.Post("http://"+ep.Addr()+"/nodetool", "application/json", strings.NewReader(`{"command":"flush"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	require.NoError(t, ep.Close())
	_, err = os.Stat(filepath.Join(dir, AddrFile))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorIs(t, Remote(ctx, dir, "tablestats", nil, &bytes.Buffer{}), ErrNoEndpoint)
}

// TestRemoteRefusesNonLoopback refuses an address file that names another
// host: nodetool never sends its token off the machine.
func TestRemoteRefusesNonLoopback(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, AddrFile), []byte("10.1.2.3:7199 abc\n"), 0o600))
	err := Remote(context.Background(), dir, "tablestats", nil, &bytes.Buffer{})
	assert.ErrorContains(t, err, "not a loopback address")
	require.NoError(t, os.WriteFile(filepath.Join(dir, AddrFile), []byte("garbage"), 0o600))
	assert.ErrorContains(t, Remote(context.Background(), dir, "tablestats", nil, &bytes.Buffer{}), "malformed")
}
