package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runArgs(args ...string) (int, string, string) {
	var out, errw bytes.Buffer
	code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errw})
	return code, out.String(), errw.String()
}

func TestVersionAndUsage(t *testing.T) {
	code, out, _ := runArgs("version")
	assert.Equal(t, 0, code)
	assert.Equal(t, "minicass "+version+" (Cassandra 4.1.6, CQL spec 3.4.6, native protocol v4)\n", out)
	code, out, _ = runArgs("--help")
	assert.Equal(t, 0, code)
	for _, c := range []string{"shell", "serve", "nodetool", "version"} {
		assert.Contains(t, out, "minicass "+c)
	}
	code, _, errs := runArgs("frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "frobnicate"`)
	code, _, errs = runArgs("serve", "--bogus")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "flag provided but not defined")
}

func TestShellInProcess(t *testing.T) {
	code, out, errs := runArgs("shell", "--memory", "-e", "CONSISTENCY; SELECT cluster_name FROM system.local")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Current consistency level is ONE.")
	code, _, errs = runArgs("shell", "--memory", "-e", "SELECT * FROM nosuch.t")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query]")
	code, _, errs = runArgs("shell", "--memory", "--data", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "exclude each other")
	code, _, errs = runArgs("shell", "--memory", "-f", filepath.Join(t.TempDir(), "missing.cql"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "Can't open")
}

// TestCompiledCommand builds the binary and runs it with --memory -e, end
// to end, checking output and exit statuses.
func TestCompiledCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)

	cmd := exec.Command(bin, "shell", "--memory", "-e", `
		CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (k int PRIMARY KEY, v text);
		EXPAND ON
		SELECT * FROM ks.t;`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	// With no rows cqlsh prints the header even under EXPAND.
	assert.Equal(t, "Now Expanded output is enabled\n\n k | v\n---+---\n\n\n(0 rows)\n", stdout.String())
	assert.Empty(t, stderr.String())

	cmd = exec.Command(bin, "shell", "--memory", "--format", "json", "-e", "SELECT key FROM system.local; SELEC x; SELECT key FROM system.local")
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode(), "cqlsh exits 2 after a failed statement")
	assert.Equal(t, "[{\"key\": \"local\"}]\n[{\"key\": \"local\"}]\n", stdout.String(), "the statements after the error still run")
	assert.Contains(t, stderr.String(), "<stdin>:1:SyntaxException: line 1:")
}

func TestShellDataDirPersists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	code, _, errs := runArgs("shell", "--data", dir, "-e", `
		CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (k int PRIMARY KEY, v text);
		INSERT INTO ks.t (k, v) VALUES (1, 'kept');`)
	require.Equal(t, 0, code, errs)
	code, out, errs := runArgs("shell", "--data", dir, "-k", "ks", "--format", "csv", "-e", "SELECT * FROM t")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "k,v\n1,kept\n", out)
	code, _, errs = runArgs("shell", "--data", dir, "-k", "nosuch", "-e", "SELECT * FROM t")
	assert.Equal(t, 1, code)
	assert.Equal(t, "Connection error: InvalidRequest: Error from server: code=2200 [Invalid query] message=\"Keyspace 'nosuch' does not exist\"\n", errs)
}
