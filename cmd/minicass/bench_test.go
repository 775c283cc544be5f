package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/bench"
)

func discardIO() stdio { return stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard} }

func TestParseBenchArgsDefaults(t *testing.T) {
	o, err := parseBenchArgs(nil, discardIO())
	require.NoError(t, err)
	assert.Equal(t, bench.DefaultConfig(), o.cfg)
	assert.Equal(t, "table", o.format)
	assert.False(t, o.quiet)
}

func TestParseBenchArgs(t *testing.T) {
	o, err := parseBenchArgs([]string{
		"--store", "cql", "--peer", "engine", "--partitions", "10", "--wide-partitions", "2", "--rows", "3",
		"--width", "4", "--n", "5", "--ops", "6", "--duration", "1.5s", "--read-fraction", "0.25",
		"--value-size", "7", "--flush", "--data", "/tmp/x", "--seed", "9", "--json", "--quiet",
		"--workload", "mixed, point-read", "latest-n-reverse",
	}, discardIO())
	require.NoError(t, err)
	want := bench.Config{
		Workloads: []string{"mixed", "point-read", "latest-n-reverse"},
		Store:     "cql", Peer: "engine", Partitions: 10, WidePartitions: 2, Rows: 3, Width: 4, N: 5, Ops: 6,
		Duration: 1500 * time.Millisecond, ReadFraction: 0.25, ValueSize: 7, Flush: true, Dir: "/tmp/x", Seed: 9,
	}
	assert.Equal(t, want, o.cfg)
	assert.Equal(t, "json", o.format)
	assert.True(t, o.quiet)
}

func TestParseBenchArgsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want error
	}{
		{[]string{"--bogus"}, errBenchUsage},
		{[]string{"--ops", "many"}, errBenchUsage},
		{[]string{"--format", "xml"}, bench.ErrUnknownFormat},
		{[]string{"nope"}, bench.ErrUnknownWorkload},
		{[]string{"--store", "redis"}, bench.ErrUnknownStore},
		{[]string{"--ops", "0"}, bench.ErrInvalidConfig},
		{[]string{"-h"}, flag.ErrHelp},
	} {
		_, err := parseBenchArgs(c.args, discardIO())
		assert.ErrorIs(t, err, c.want, "%v", c.args)
	}
}

func TestBenchCommand(t *testing.T) {
	code, out, errs := runArgs("bench", "--partitions", "20", "--ops", "10", "--width", "30", "--n", "5",
		"--peer", "btree", "narrow-write", "latest-n-reverse")
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, 3, out)
	assert.Equal(t, []string{"workload", "params", "store", "ops", "ops/s", "p50", "p99", "peer", "peer", "ops/s",
		"peer", "p50", "peer", "p99", "ratio"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"narrow-write", "partitions=20", "engine", "20"}, strings.Fields(lines[1])[:4])
	assert.Equal(t, []string{"latest-n-reverse", "width=30", "n=5", "ops=10", "engine", "10"}, strings.Fields(lines[2])[:6])
	assert.Equal(t, "btree", strings.Fields(lines[2])[9])
	assert.Contains(t, errs, "running narrow-write on engine\nrunning narrow-write on btree (peer)\n")

	code, out, errs = runArgs("bench", "--json", "--quiet", "--peer", "none", "--partitions", "20", "--ops", "10", "point-read")
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)
	var res []bench.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res, 1)
	assert.Equal(t, "point-read", res[0].Workload)
	assert.Equal(t, 10, res[0].Subject.Ops)
	assert.Nil(t, res[0].Peer)
}

func TestBenchCommandUsage(t *testing.T) {
	code, _, errs := runArgs("bench", "--help")
	assert.Equal(t, 0, code)
	for _, w := range bench.WorkloadNames() {
		assert.Contains(t, errs, w)
	}
	assert.Contains(t, errs, "-read-fraction")

	code, _, errs = runArgs("bench", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `minicass bench: bench: unknown workload: "frobnicate"`)

	code, _, errs = runArgs("bench", "--bogus")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "flag provided but not defined: -bogus")
	assert.NotContains(t, errs, "minicass bench:")
}

func TestBenchProfileCommand(t *testing.T) {
	dir := t.TempDir()
	html := dir + "/report.html"
	code, out, errs := runArgs("bench", "--profile", "../../bench/profiles/iot-buckets.yaml", "--html", html, "--json",
		"--rows", "20", "--ops", "5", "--peers", "none", "--sweep", "width=12,24", "--states", "memtable,compacted")
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs, "not a terminal: no progress")
	var rep bench.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "iot-buckets", rep.Profile)
	assert.Equal(t, []string{"minicass"}, rep.Targets)
	assert.Len(t, rep.Phases, 3*(1+1+2))
	require.Len(t, rep.Sweeps, 1)
	assert.Equal(t, []int{12, 24}, rep.Sweeps[0].Values)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.Contains(t, string(page), "latest-10, compacted: time per operation against rows per entity")

	code, _, errs = runArgs("bench", "--profile", "nope.yaml")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "bench: bad profile")
	code, _, errs = runArgs("bench", "--html", "x.html")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--html needs --profile")
	code, _, errs = runArgs("bench", "--profile", "../../bench/profiles/iot-buckets.yaml", "--sweep", "depth=1")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `sweep param "depth"`)
}
