package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyProfile is a small profile the tests run: two models of one
// question, sizes that run in milliseconds.
const tinyProfile = `name: tiny
description: wide against narrow
seed: 7
data:
  entities: 3
  rows: 50
fields:
  id: {type: text, from: entity, format: "e%d"}
  seq: {type: bigint, from: row}
  v: {type: double, dist: "uniform(0..1)"}
queries:
  - name: latest-5
    summary: the 5 latest rows of one entity
    rows: 5
models:
  - name: wide
    summary: one partition per entity
    table: CREATE TABLE wide (id text, seq bigint, v double, PRIMARY KEY (id, seq)) WITH CLUSTERING ORDER BY (seq DESC)
    insert: {cql: "INSERT INTO wide (id, seq, v) VALUES (?, ?, ?)", args: [id, seq, v]}
    queries:
      latest-5: {cql: "SELECT seq, v FROM wide WHERE id = ? LIMIT 5", args: [id]}
  - name: narrow
    summary: one partition per row
    table: CREATE TABLE narrow (id text, seq bigint, v double, PRIMARY KEY ((id, seq)))
    insert: {cql: "INSERT INTO narrow (id, seq, v) VALUES (?, ?, ?)", args: [id, seq, v]}
    queries:
      latest-5: {cql: "SELECT seq, v FROM narrow WHERE id = ? AND seq = ?", args: [id, seq], repeat: 5, step: -1}
run:
  ops: 20
  flushes: 2
`

func TestShippedProfilesParse(t *testing.T) {
	files, err := filepath.Glob("profiles/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		p, err := LoadProfile(f)
		require.NoError(t, err, f)
		assert.NotEmpty(t, p.Models, f)
		assert.NotEmpty(t, p.Queries, f)
	}
	p, err := LoadProfile("profiles/iot-buckets.yaml")
	require.NoError(t, err)
	var names []string
	for _, m := range p.Models {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"per-device", "bucketed", "per-reading"}, names)
	assert.Equal(t, []SweepSpec{{Param: "width", Values: []int{1000, 10000, 100000}, line: p.Sweeps[0].line}}, p.Sweeps)
}

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile("tiny.yaml", []byte(tinyProfile))
	require.NoError(t, err)
	assert.Equal(t, "tiny", p.Name)
	assert.Equal(t, "bench", p.Keyspace)
	assert.Equal(t, uint64(7), p.Seed)
	assert.Equal(t, DataSpec{Entities: 3, Rows: 50, Order: "interleaved"}, p.Data)
	require.Len(t, p.Fields, 3)
	assert.Equal(t, []string{"id", "seq", "v"}, []string{p.Fields[0].Name, p.Fields[1].Name, p.Fields[2].Name})
	assert.Equal(t, 5, p.Models[1].Queries["latest-5"].Repeat)
	assert.Equal(t, int64(-1), p.Models[1].Queries["latest-5"].Step)
	assert.Equal(t, RunSpec{Ops: 20, Concurrency: 1, Flushes: 2, Interval: p.Run.Interval,
		States: []string{StateMemtable, StateFlushed, StateCompacted}, Baseline: "wide"}, p.Run)
}

// TestParseProfileErrors checks that each bad profile is refused with the
// line of the mistake and a message saying what is wrong.
func TestParseProfileErrors(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		want           string
	}{
		{"unknown key", "seed: 7", "seed: 7\nsede: 8", "tiny.yaml:4: the profile: unknown key \"sede\""},
		{"bad yaml", "seed: 7", "seed: [7", "yaml: line"},
		{"no name", "name: tiny\n", "", "the profile needs a name"},
		{"bad count", "rows: 50", "rows: lots", "tiny.yaml:6: data.rows: \"lots\" is not a positive count"},
		{"bad type", "seq: {type: bigint", "seq: {type: bignum", "tiny.yaml:9: field \"seq\": type \"bignum\" is not supported"},
		{"bad dist", `dist: "uniform(0..1)"`, `dist: "uniform(1..0)"`, "tiny.yaml:10: field \"v\": distribution \"uniform(1..0)\": the range 1..0 is empty"},
		{"unknown dist", `dist: "uniform(0..1)"`, `dist: "pareto(0..1)"`, "unknown kind \"pareto\""},
		{"random without dist", `v: {type: double, dist: "uniform(0..1)"}`, `v: {type: double}`, "tiny.yaml:10: field \"v\": random double needs a dist"},
		{"no query rows", "    rows: 5\n", "", "tiny.yaml:12: query \"latest-5\" needs rows"},
		{"unknown field", "args: [id, seq, v]}\n    queries:\n      latest-5: {cql: \"SELECT seq, v FROM wide",
			"args: [id, seq, w]}\n    queries:\n      latest-5: {cql: \"SELECT seq, v FROM wide", "tiny.yaml:19: model \"wide\".insert: no field \"w\""},
		{"markers", `WHERE id = ? LIMIT 5", args: [id]}`, `WHERE id = ? LIMIT 5", args: []}`, "tiny.yaml:21: model \"wide\" query \"latest-5\": the cql has 1 ? markers but 0 args"},
		{"missing query", "    queries:\n      latest-5: {cql: \"SELECT seq, v FROM narrow", "    queries:\n      latest-6: {cql: \"SELECT seq, v FROM narrow",
			"tiny.yaml:27: model \"narrow\": no query \"latest-6\" in the profile's queries (latest-5)"},
		{"not a table", "table: CREATE TABLE narrow", "table: CREATE INDEX narrow", "tiny.yaml:24: model \"narrow\": table must be a CREATE TABLE statement"},
		{"bad state", "  flushes: 2", "  flushes: 2\n  states: [memtable, disk]", "tiny.yaml:31: run.states: unknown state \"disk\""},
		{"bad sweep", "  flushes: 2", "  flushes: 2\nsweeps:\n  - {param: depth, values: [1]}", "tiny.yaml:32: sweep param \"depth\" is not one of width, partitions, concurrency"},
		{"bad peer", "  flushes: 2", "  flushes: 2\npeers: [redis]", "tiny.yaml:31: unknown peer \"redis\""},
		{"bad baseline", "  flushes: 2", "  flushes: 2\n  baseline: deep", "tiny.yaml:31: run.baseline: no model \"deep\""},
		{"duplicate model", "  - name: narrow", "  - name: wide", "model \"wide\" given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(tinyProfile, c.old, c.new, 1)
			require.NotEqual(t, tinyProfile, src, "the replacement must apply")
			_, err := ParseProfile("tiny.yaml", []byte(src))
			require.ErrorIs(t, err, ErrBadProfile)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := ParseProfile("empty.yaml", nil)
	assert.ErrorIs(t, err, ErrBadProfile)
	_, err = LoadProfile(filepath.Join(t.TempDir(), "missing.yaml"))
	assert.ErrorIs(t, err, ErrBadProfile)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestParseSweep(t *testing.T) {
	sw, err := ParseSweep("width=1k,10k,100k,1M")
	require.NoError(t, err)
	assert.Equal(t, SweepSpec{Param: "width", Values: []int{1000, 10000, 100000, 1000000}}, sw)
	for _, bad := range []string{"width", "depth=1", "width=0", "width=1,x"} {
		_, err := ParseSweep(bad)
		assert.ErrorIs(t, err, ErrInvalidConfig, bad)
	}
}

func TestRowGenIsReproducible(t *testing.T) {
	p, err := ParseProfile("tiny.yaml", []byte(tinyProfile))
	require.NoError(t, err)
	a, b := newRowGen(p), newRowGen(p)
	// Any order gives the same values: each row is seeded by its position.
	want := append([]any(nil), a.row(2, 40)...)
	b.row(0, 0)
	b.row(1, 3)
	assert.Equal(t, want, b.row(2, 40))
	assert.Equal(t, "e2", want[0])
	assert.Equal(t, int64(40), want[1])
	v := want[2].(float64)
	assert.True(t, v >= 0 && v <= 1, "%v", v)
	assert.NotEqual(t, want, a.row(2, 41))
}
