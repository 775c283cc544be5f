package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/schema"
)

func writeYAML(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cassandra.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// TestLoadYAML reads the settings of a cassandra.yaml in 4.1's new-style
// names and values, and in the pre-4.1 names 4.1 still accepts.
func TestLoadYAML(t *testing.T) {
	cfg := defaultServeConfig()
	ignored, err := cfg.loadYAML(writeYAML(t, `
cluster_name: 'Prod Cluster'
num_tokens: 16
commitlog_sync: batch
commitlog_sync_period: 2s
commitlog_segment_size: 8MiB
commitlog_total_space_in_mb: 1024
memtable_heap_space: 2048MiB
read_request_timeout: 7000ms
range_request_timeout_in_ms: 12000
write_request_timeout: 3s
counter_write_request_timeout: 1m
cas_contention_timeout_in_ms: 1500
truncate_request_timeout: 2h
request_timeout: 20000ms
rpc_address: 0.0.0.0
native_transport_port: 9142
native_transport_max_frame_size: 32MiB
native_transport_max_concurrent_connections: 500
native_transport_max_concurrent_connections_per_ip: -1
native_transport_max_request_data_in_flight: 64MiB
native_transport_max_concurrent_requests_in_bytes_per_ip: 1048576
native_transport_idle_timeout: 60s
authenticator: org.apache.cassandra.auth.PasswordAuthenticator
authorizer: AllowAllAuthorizer
prepared_statements_cache_size:
column_index_size_in_kb: 16
compaction_throughput: 16MiB/s
materialized_views_enabled: true
compact_tables_enabled: false
drop_compact_storage_enabled: true
user_defined_functions_enabled: true
scripted_user_defined_functions_enabled: true
partitioner: org.apache.cassandra.dht.ByteOrderedPartitioner
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"num_tokens", "seed_provider"}, ignored)
	assert.Equal(t, "Prod Cluster", cfg.db.ClusterName)
	assert.True(t, cfg.db.MaterializedViewsEnabled)
	assert.True(t, cfg.db.CompactTablesDisabled)
	assert.True(t, cfg.db.DropCompactStorageEnabled)
	assert.True(t, cfg.db.UserDefinedFunctionsEnabled)
	assert.True(t, cfg.db.ScriptedUserDefinedFunctionsEnabled)
	assert.Equal(t, minicass.ByteOrderedPartitioner, cfg.db.Partitioner)
	assert.Equal(t, minicass.SyncBatch, cfg.db.CommitLogSync)
	assert.Equal(t, 2*time.Second, cfg.db.CommitLogSyncPeriod)
	assert.Equal(t, int64(8<<20), cfg.db.CommitLogSegmentSize)
	assert.Equal(t, int64(1024<<20), cfg.db.CommitLogTotalSpace)
	assert.Equal(t, int64(2048<<20), cfg.db.MemtableHardLimit)
	assert.Equal(t, int64(64<<20), cfg.db.MemtableSize)
	assert.Equal(t, 7*time.Second, cfg.srv.Timeouts.Read)
	assert.Equal(t, 12*time.Second, cfg.srv.Timeouts.Range)
	assert.Equal(t, 3*time.Second, cfg.srv.Timeouts.Write)
	assert.Equal(t, time.Minute, cfg.srv.Timeouts.CounterWrite)
	assert.Equal(t, 1500*time.Millisecond, cfg.srv.Timeouts.CASContention)
	assert.Equal(t, 2*time.Hour, cfg.srv.Timeouts.Truncate)
	assert.Equal(t, 20*time.Second, cfg.srv.Timeouts.Other)
	assert.Equal(t, "0.0.0.0:9142", cfg.listenAddr())
	assert.Equal(t, 32<<20, cfg.srv.MaxFrameSize)
	assert.Equal(t, 500, cfg.srv.MaxConnections)
	assert.Equal(t, 0, cfg.srv.MaxConnectionsPerIP)
	assert.Equal(t, int64(64<<20), cfg.srv.MaxRequestDataInFlight)
	assert.Equal(t, int64(1<<20), cfg.srv.MaxRequestDataInFlightPerIP)
	assert.Equal(t, time.Minute, cfg.srv.IdleTimeout)
	assert.Equal(t, "PasswordAuthenticator", cfg.authenticator)
	assert.Equal(t, int64(0), cfg.db.PreparedStatementsCacheSize, "null keeps the default")
	assert.Equal(t, 16<<10, cfg.db.ColumnIndexSize)
	assert.Equal(t, int64(16<<20), cfg.db.CompactionThroughput)

	cfg = defaultServeConfig()
	_, err = cfg.loadYAML(writeYAML(t, "compaction_throughput_mb_per_sec: 0\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(-1), cfg.db.CompactionThroughput, "0 does not throttle, as in cassandra.yaml")
}

// TestLoadYAMLRefusesBadValues: each bad value is refused with the name of
// its setting.
func TestLoadYAMLRefusesBadValues(t *testing.T) {
	for text, want := range map[string]string{
		"commitlog_sync: sometimes":                                  "invalid value for commitlog_sync: \"sometimes\" is not one of periodic, batch",
		"partitioner: RandomPartitioner":                             "invalid value for partitioner: Invalid partitioner class RandomPartitioner",
		"commitlog_sync: group":                                      "invalid value for commitlog_sync: group is not supported",
		"read_request_timeout: 5000":                                 "invalid value for read_request_timeout: invalid duration \"5000\"",
		"read_request_timeout: 5000MS":                               "invalid value for read_request_timeout: invalid duration",
		"read_request_timeout: 5us":                                  "the smallest unit accepted is ms",
		"write_request_timeout: 0ms":                                 "invalid value for write_request_timeout: invalid duration \"0ms\": must be positive",
		"read_request_timeout_in_ms: 5s":                             "invalid value for read_request_timeout_in_ms: \"5s\" is not an integer (in ms)",
		"read_request_timeout_in_ms: -1":                             "invalid value for read_request_timeout_in_ms",
		"memtable_heap_space: 100KiB":                                "invalid value for memtable_heap_space: invalid data size \"100KiB\": the smallest unit accepted is MiB",
		"memtable_heap_space: lots":                                  "invalid value for memtable_heap_space",
		"native_transport_port: 70000":                               "invalid value for native_transport_port",
		"native_transport_max_concurrent_connections: -2":            "invalid value for native_transport_max_concurrent_connections",
		"native_transport_max_frame_size: 512MiB":                    "",
		"authenticator: LdapAuthenticator":                           "invalid value for authenticator",
		"compaction_throughput: 64MiB":                               "invalid value for compaction_throughput: invalid data rate \"64MiB\"",
		"authorizer: LdapAuthorizer":                                 "invalid value for authorizer: \"LdapAuthorizer\" is not one of AllowAllAuthorizer, CassandraAuthorizer",
		"read_request_timeout: [1, 2]":                               "invalid value for read_request_timeout (line 1): not a single value",
		"read_request_timeout: 1s\nread_request_timeout_in_ms: 1000": "read_request_timeout and read_request_timeout_in_ms are the same setting",
		"materialized_views_enabled: maybe":                          "invalid value for materialized_views_enabled: \"maybe\" is not true or false",
		"user_defined_functions_enabled: maybe":                      "invalid value for user_defined_functions_enabled: \"maybe\" is not true or false",
		"scripted_user_defined_functions_enabled: maybe":             "invalid value for scripted_user_defined_functions_enabled: \"maybe\" is not true or false",
		"- a list": "not a mapping of settings",
		"a: [":     "yaml",
	} {
		cfg := defaultServeConfig()
		_, err := cfg.loadYAML(writeYAML(t, text))
		if want == "" {
			// Accepted by the file; refused by the server's own checks.
			require.NoError(t, err, text)
			continue
		}
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}

// TestServeConfigAndFlags: serve reads --config, lets flags override it,
// logs to stderr at the level asked, warns about ignored settings, and
// applies the authenticator.
func TestServeConfigAndFlags(t *testing.T) {
	path := writeYAML(t, `
commitlog_sync: periodic
rpc_address: 127.0.0.1
native_transport_port: 0
authenticator: PasswordAuthenticator
hinted_handoff_enabled: true
`)
	var out, errw syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	code := make(chan int, 1)
	dir := t.TempDir()
	go func() {
		code <- serveMain(ctx, []string{"--config", path, "--data", dir, "--commitlog_sync", "batch", "--read_request_timeout_in_ms", "4000",
			"--log-level", "debug", "-Dcassandra.commitlog.ignorereplayerrors=true"},
			stdio{in: strings.NewReader(""), out: &out, err: &errw}, ready)
	}()
	var addr *net.TCPAddr
	select {
	case a := <-ready:
		addr = a.(*net.TCPAddr)
	case c := <-code:
		t.Fatalf("serve exited with %d: %s", c, errw.String())
	}
	cluster := gocql.NewCluster(addr.IP.String())
	cluster.Port = addr.Port
	cluster.Timeout = 5 * time.Second
	cluster.Authenticator = gocql.PasswordAuthenticator{Username: "cassandra", Password: "cassandra"}
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	var name string
	require.NoError(t, sess.Query("SELECT role FROM system_auth.roles WHERE role = 'cassandra'").Scan(&name))
	assert.Equal(t, "cassandra", name)
	sess.Close()
	cancel()
	assert.Equal(t, 0, <-code, errw.String())
	logs := errw.String()
	assert.Contains(t, logs, "level=WARN msg=\"ignoring cassandra.yaml settings minicass does not have\"")
	assert.Contains(t, logs, "settings=hinted_handoff_enabled")
	assert.Contains(t, logs, "commitlog_sync=batch", "the flag overrides the file")
	assert.Contains(t, logs, "authenticator=PasswordAuthenticator")
	assert.Contains(t, logs, "level=DEBUG")
}

func TestServeBadSettings(t *testing.T) {
	code, _, errs := runArgs("serve", "--memory", "--commitlog_sync", "never")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `invalid value "never" for flag -commitlog_sync: "never" is not one of periodic, batch`)
	code, _, errs = runArgs("serve", "--memory", "--config", writeYAML(t, "write_request_timeout: soon"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "invalid value for write_request_timeout")
	code, _, errs = runArgs("serve", "--memory", "--log-level", "loud")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--log-level")
	code, _, errs = runArgs("serve", "--memory", "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "no such file")
	code, _, errs = runArgs("serve", "--memory", "--listen", "127.0.0.1:0", "--native_transport_max_frame_size", "512MiB")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "MaxFrameSize")
}

// TestServeSIGTERM runs the real binary, holds a connection in the middle
// of a frame and another idle one, and stops it with SIGTERM: it shuts down
// cleanly, logging to stderr.
func TestServeSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	cmd := exec.Command(bin, "serve", "--memory", "--listen", "127.0.0.1:0", "--log-level", "debug")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	_, rest, ok := strings.Cut(line, "listening on ")
	require.True(t, ok, line)
	addr, _, _ := strings.Cut(rest, " ")
	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	partial, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer partial.Close()
	_, err = partial.Write([]byte{4, 0, 0, 0, 1, 0, 0, 0, 100, 0, 1}) // STARTUP declaring 100 bytes, 2 sent
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s of SIGTERM; stderr:\n%s", stderr.String())
	}
	assert.Contains(t, stderr.String(), "msg=\"shutting down\"")
}

// FuzzParseYAML: any file is either applied or refused with an error;
// nothing panics.
func FuzzParseYAML(f *testing.F) {
	f.Add([]byte("commitlog_sync: batch\nread_request_timeout: 5000ms\n"))
	f.Add([]byte("read_request_timeout_in_ms: 5000\nmemtable_heap_space: 2048MiB\n"))
	f.Add([]byte("native_transport_max_concurrent_requests_in_bytes: -1\nauthenticator: PasswordAuthenticator\n"))
	f.Add([]byte("seed_provider:\n  - class_name: x\n    parameters:\n      - seeds: \"127.0.0.1\"\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := defaultServeConfig()
		if _, err := cfg.parseYAML(data, "fuzz.yaml"); err != nil {
			assert.NotEmpty(t, err.Error())
		}
	})
}

// TestLoadYAMLMemtableConfigurations reads cassandra.yaml's memtable
// section into the database's memtable configurations, which a table's
// memtable option is then checked against.
func TestLoadYAMLMemtableConfigurations(t *testing.T) {
	cfg := defaultServeConfig()
	ignored, err := cfg.loadYAML(writeYAML(t, `
memtable:
    configurations:
        skiplist:
            class_name: SkipListMemtable
        trie:
            class_name: TrieMemtable
            parameters:
                shards: 4
        more_shards:
            inherits: trie
            parameters:
                shards: 8
`))
	require.NoError(t, err)
	require.Empty(t, ignored)
	require.Len(t, cfg.db.MemtableConfigurations, 3)
	more := cfg.db.MemtableConfigurations["more_shards"]
	require.Equal(t, "trie", more.Inherits)
	require.Nil(t, more.ClassName)
	require.Equal(t, map[string]string{"shards": "8"}, more.Parameters)
	for _, name := range []string{"default", "skiplist", "trie", "more_shards"} {
		require.NoError(t, schema.CheckMemtableConfiguration(cfg.db.MemtableConfigurations, nil, name), name)
	}
	require.EqualError(t, schema.CheckMemtableConfiguration(cfg.db.MemtableConfigurations, nil, "unknown"), `Memtable configuration "unknown" not found.`)
}

// TestLoadYAMLDefaultKeyspaceRF reads default_keyspace_rf and refuses one
// below 1, as DatabaseDescriptor does.
func TestLoadYAMLDefaultKeyspaceRF(t *testing.T) {
	cfg := defaultServeConfig()
	_, err := cfg.loadYAML(writeYAML(t, "default_keyspace_rf: 3\n"))
	require.NoError(t, err)
	require.Equal(t, 3, cfg.db.DefaultKeyspaceRF)
	cfg = defaultServeConfig()
	_, err = cfg.loadYAML(writeYAML(t, "default_keyspace_rf: 0\n"))
	require.ErrorContains(t, err, "default_keyspace_rf cannot be less than 1")
}

// TestLoadYAMLAutoSnapshot: auto_snapshot and auto_snapshot_ttl, 4.1's
// DurationSpec.IntSecondsBound (whole seconds or more).
func TestLoadYAMLAutoSnapshot(t *testing.T) {
	cfg := defaultServeConfig()
	ignored, err := cfg.loadYAML(writeYAML(t, "auto_snapshot: false\nauto_snapshot_ttl: 30d\n"))
	require.NoError(t, err)
	assert.Empty(t, ignored)
	assert.True(t, cfg.db.AutoSnapshotDisabled)
	assert.Equal(t, 30*24*time.Hour, cfg.db.AutoSnapshotTTL)

	cfg = defaultServeConfig()
	_, err = cfg.loadYAML(writeYAML(t, "auto_snapshot: true\n"))
	require.NoError(t, err)
	assert.False(t, cfg.db.AutoSnapshotDisabled)
	assert.Zero(t, cfg.db.AutoSnapshotTTL, "no TTL by default")

	for text, want := range map[string]string{
		"auto_snapshot: sometimes":  "invalid value for auto_snapshot: \"sometimes\" is not true or false",
		"auto_snapshot_ttl: 1500ms": "invalid value for auto_snapshot_ttl: invalid duration \"1500ms\": the smallest unit accepted is s",
		"auto_snapshot_ttl: 30":     "invalid value for auto_snapshot_ttl: invalid duration \"30\"",
		"auto_snapshot_ttl: 2000ms": "invalid value for auto_snapshot_ttl: invalid duration \"2000ms\": the smallest unit accepted is s",
	} {
		cfg := defaultServeConfig()
		_, err := cfg.loadYAML(writeYAML(t, text))
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}
