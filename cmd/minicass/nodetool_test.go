package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/nodetool"
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

// TestNodetoolHelp lists the subcommands, for --help, help and a bad one.
func TestNodetoolHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}} {
		code, out, errs := runArgs(append([]string{"nodetool"}, args...)...)
		require.Equal(t, 0, code, errs)
		text := out + errs
		for _, c := range []string{"flush", "compact", "tablestats", "tablehistograms", "compactionhistory"} {
			assert.Contains(t, text, "\n    "+c+" ", args)
		}
	}
	code, _, errs := runArgs("nodetool", "--data", t.TempDir(), "repair")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "repair"`)
	assert.Contains(t, errs, "tablestats")
}

// TestNodetoolLive runs nodetool on a data directory another process holds:
// through that process's endpoint when it serves one (as the shell does),
// with a clear error when it does not.
func TestNodetoolLive(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{Dir: dir})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int PRIMARY KEY, v text)`))
	require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, v) VALUES (1, 'a')`))

	code, _, errs := runArgs("nodetool", "--data", dir, "tablestats")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "lock held by another owner")
	assert.Contains(t, errs, "serves no nodetool endpoint")

	ep, err := nodetool.Serve(db, dir)
	require.NoError(t, err)
	defer ep.Close()
	code, out, errs := runArgs("nodetool", "--data", dir, "tablestats", "ks.t")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "\t\tMemtable cell count: 1\n", "the live memtable, which a fresh open would not show before replay")
	code, _, errs = runArgs("nodetool", "--data", dir, "flush")
	require.Equal(t, 0, code, errs)
	assert.Len(t, db.Engine().SSTables("ks", "t"), 1, "flushed by the process holding the directory")
	code, _, errs = runArgs("nodetool", "--data", dir, "tablehistograms", "ks", "nosuch")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "nodetool: ")
}

// TestNodetoolBesideShell runs nodetool beside a shell that holds the data
// directory: the shell serves the endpoint while it runs, and removes its
// address file when it exits.
func TestNodetoolBesideShell(t *testing.T) {
	dir := t.TempDir()
	pr, pw := io.Pipe()
	var out, errw bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"shell", "--data", dir}, stdio{in: pr, out: &out, err: &errw})
	}()
	_, err := io.WriteString(pw, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE ks.t (k int PRIMARY KEY, v text);\nINSERT INTO ks.t (k, v) VALUES (1, 'a');\n")
	require.NoError(t, err)
	// The shell has read the statements once it asks for more input; a
	// statement that waits for the next write is the simplest barrier.
	_, err = io.WriteString(pw, "SELECT * FROM ks.t;\n")
	require.NoError(t, err)
	code := 1
	var nout, nerr string
	for range 1000 {
		if code, nout, nerr = runArgs("nodetool", "--data", dir, "tablestats", "ks.t"); code == 0 && strings.Contains(nout, "Memtable cell count: 1\n") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, 0, code, nerr)
	assert.Contains(t, nout, "\t\tTable: t\n")
	require.NoError(t, pw.Close())
	assert.Equal(t, 0, <-done, errw.String())
	_, err = os.Stat(filepath.Join(dir, nodetool.AddrFile))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
