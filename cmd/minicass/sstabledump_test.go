package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// TestSSTableDump dumps a flushed SSTable of a data directory that a DB
// still has open (the command only reads), whole, by key (-k, -x, a
// composite key written "a:b"), keys only (-e), and its layout.
func TestSSTableDump(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{Dir: dir})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (a text, b int, c int, v text, PRIMARY KEY ((a, b), c))`))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (a, b, c, v) VALUES ('x:y', 1, 1, 'one') USING TIMESTAMP 1700000000000000`))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (a, b, c, v) VALUES ('z', 2, 1, 'two') USING TIMESTAMP 1700000000000000`))
	require.NoError(t, db.Exec(ctx, `DELETE FROM ks.t USING TIMESTAMP 1700000000000001 WHERE a = 'z' AND b = 2 AND c = 1`))
	require.NoError(t, db.Flush(ctx, "ks", "t"))
	files, err := filepath.Glob(filepath.Join(dir, "data", "ks", "t-*", "xa-*-big-Data.db"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	path := files[0]

	code, out, errs := runArgs("sstabledump", path, "-e")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "[ [ \"z\", \"2\" ], [ \"x:y\", \"1\" ]\n]\n", out)

	code, out, errs = runArgs("sstabledump", path, "-k", `x\:y:1`, "-t")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"key" : [ "x:y", "1" ]`)
	assert.Contains(t, out, `"liveness_info" : { "tstamp" : "1700000000000000" }`, "-t: raw, still a JSON string")
	assert.NotContains(t, out, `"z"`)

	code, out, errs = runArgs("sstabledump", path, "-x", `x\:y:1`)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"key" : [ "z", "2" ]`)
	assert.Contains(t, out, `"deletion_info" : { "marked_deleted" : "2023-11-14T22:13:20.000001Z"`)
	assert.NotContains(t, out, `"x:y"`)

	code, out, errs = runArgs("sstabledump", "-l", path)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2, out)
	assert.True(t, strings.HasPrefix(lines[0], `{"partition":{"key":["z","2"],"position":0},`), lines[0])

	code, out, errs = runArgs("sstabledump", "--layout", path)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "2 partitions")
	assert.Contains(t, out, "partition ('x:y', 1) token ", "keys decoded with the table's types")
	assert.Contains(t, out, "partition ('z', 2) token ")
	code, out, errs = runArgs("sstabledump", "--layout", "--hex", path)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "partition 0003783a790000040000000100 token ", "--hex: the bytes stored")

	code, _, errs = runArgs("sstabledump", path, "-k", "x:notanint")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `key "notanint" is not a int`)
	code, _, errs = runArgs("sstabledump", filepath.Join(dir, "nope.db"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "is not an SSTable component")
	code, _, _ = runArgs("sstabledump")
	assert.Equal(t, 2, code)
}

// TestSSTableLayoutWide prints the layout of a wide partition: its row index
// blocks' first and last clusterings decoded with the table's types.
func TestSSTableLayoutWide(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{Dir: dir})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.w (status text, at int, v text, PRIMARY KEY (status, at)) WITH CLUSTERING ORDER BY (at DESC)`))
	pad := strings.Repeat("p", 200)
	for i := 0; i < 2000; i++ {
		require.NoError(t, db.Exec(ctx, `INSERT INTO ks.w (status, at, v) VALUES ('ACTIVE', ?, ?)`, i, pad))
	}
	require.NoError(t, db.Flush(ctx, "ks", "w"))
	files, err := filepath.Glob(filepath.Join(dir, "data", "ks", "w-*", "xa-*-big-Data.db"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	code, out, errs := runArgs("sstabledump", "--layout", files[0])
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "partition 'ACTIVE' token ")
	assert.Contains(t, out, "  block 0: [(1999) .. (", "DESC: the first block holds the latest rows")
	assert.NotRegexp(t, `block \d+: \[[0-9a-f]{4}`, out, "no hex bounds")
}
