package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildBinary compiles the minicass command into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "minicass")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

func shellRun(t *testing.T, bin, dir, statements string) string {
	t.Helper()
	cmd := exec.Command(bin, "shell", "--data", dir, "--format", "csv", "-e", statements)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	return stdout.String()
}

// TestRestartAcrossProcesses writes through one shell process (with a FLUSH
// in the middle, so the data is split between an SSTable and the commit log),
// exits, and reads everything back from a new process.
func TestRestartAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	shellRun(t, bin, dir, `
		CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC);
		CREATE TABLE ks.n (k int PRIMARY KEY, hits counter);
		INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'flushed');
		UPDATE ks.n SET hits = hits + 5 WHERE k = 1;
		FLUSH
		INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'in the log');
		DELETE FROM ks.t WHERE k = 1 AND c = 1;
		UPDATE ks.n SET hits = hits + 2 WHERE k = 1;`)
	out := shellRun(t, bin, dir, "SELECT * FROM ks.t; SELECT hits FROM ks.n WHERE k = 1")
	assert.Equal(t, "k,c,v\n1,2,in the log\nhits\n7\n", out)
	// Opening again replays nothing twice: the counter stays 7.
	out = shellRun(t, bin, dir, "SELECT hits FROM ks.n WHERE k = 1")
	assert.Equal(t, "hits\n7\n", out)

	// User-defined types (nested, altered) and secondary indexes are kept
	// in the schema file.
	shellRun(t, bin, dir, `
		CREATE TYPE ks.address (street text);
		CREATE TYPE ks.person (name text, addr frozen<address>);
		ALTER TYPE ks.address ADD zip int;
		CREATE TABLE ks.p (id int PRIMARY KEY, who person, city text);
		CREATE INDEX ON ks.p (city);
		INSERT INTO ks.p (id, who, city) VALUES (1, {name: 'ann', addr: {street: 'main', zip: 9}}, 'oslo');
		FLUSH`)
	out = shellRun(t, bin, dir, "SELECT who.addr.zip, who FROM ks.p WHERE city = 'oslo'")
	assert.Equal(t, "who.addr.zip,who\n9,\"{name: 'ann', addr: {street: 'main', zip: 9}}\"\n", out)
}

// TestKilledProcessKeepsAcknowledgedWrites feeds statements to an interactive
// shell one at a time, waits for each to be acknowledged, then kills the
// process with SIGKILL. A new process must find every acknowledged write.
func TestKilledProcessKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	shellRun(t, bin, dir, `
		CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (k int PRIMARY KEY, v text);`)

	cmd := exec.Command(bin, "shell", "--data", dir, "--format", "csv")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewReader(stdout)
	const n = 50
	for i := 0; i < n; i++ {
		// Each write is followed by a SELECT whose output proves the write
		// was applied (acknowledged) before we go on.
		_, err := fmt.Fprintf(stdin, "INSERT INTO ks.t (k, v) VALUES (%d, 'v%d');\nSELECT count(*) FROM ks.t;\n", i, i)
		require.NoError(t, err)
		want := fmt.Sprintf("%d", i+1)
		deadline := time.Now().Add(30 * time.Second)
		for {
			line, err := lines.ReadString('\n')
			require.NoError(t, err)
			if strings.TrimSpace(line) == want {
				break
			}
			require.True(t, time.Now().Before(deadline), "write %d not acknowledged", i)
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait() // killed: the exit error is expected
	_, _ = io.Copy(io.Discard, lines)

	out := shellRun(t, bin, dir, "SELECT count(*) FROM ks.t; SELECT v FROM ks.t WHERE k = 49")
	assert.Equal(t, fmt.Sprintf("count\n%d\nv\nv49\n", n), out)
}

// TestTWCSExpiryThroughTheShell is the acceptance scenario driven
// through the command line: a TimeWindowCompactionStrategy table with a
// default TTL; once the data has expired and gc_grace_seconds (0 here) has
// passed, COMPACT removes its data files from disk. The real clock is used,
// so the TTL is 1 s instead of 60 s (the Go API test
// TestTWCSExpiredWindowsLeaveDisk uses 60 s with a manual clock).
func TestTWCSExpiryThroughTheShell(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and waits for a TTL")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	shellRun(t, bin, dir, `
		CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.logs (app text, id int, msg text, PRIMARY KEY (app, id))
		  WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'MINUTES', 'compaction_window_size': 1}
		  AND default_time_to_live = 1 AND gc_grace_seconds = 0;
		INSERT INTO ks.logs (app, id, msg) VALUES ('a', 1, 'x');
		INSERT INTO ks.logs (app, id, msg) VALUES ('a', 2, 'y');
		FLUSH ks.logs`)
	dataFiles := func() []string {
		files, err := filepath.Glob(filepath.Join(dir, "data", "ks", "logs-*", "*-Data.db"))
		require.NoError(t, err)
		return files
	}
	require.Len(t, dataFiles(), 1, "the flush wrote one SSTable")
	nodetool := func() string {
		out, err := exec.Command(bin, "nodetool", "--data", dir, "tablestats", "ks.logs").CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	assert.Contains(t, nodetool(), "SSTable count: 1")

	time.Sleep(2200 * time.Millisecond) // past the TTL (1 s) and gc_grace_seconds (0)
	out := shellRun(t, bin, dir, "SELECT * FROM ks.logs; COMPACT ks.logs")
	assert.Equal(t, "app,id,msg\n", out, "expired rows read as absent")
	assert.Empty(t, dataFiles(), "compaction removed the expired window's data file")
	assert.Contains(t, nodetool(), "SSTable count: 0")
}
