package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syntheticReport is a report with fixed figures, as RunProfile would
// build it, for the golden files.
func syntheticReport() *Report {
	r := &Report{Profile: "tiny", Description: "wide against narrow", File: "tiny.yaml",
		Started: time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC),
		Machine: Machine{GoVersion: "go1.26", OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2},
		Data:    DataSpec{Entities: 3, Rows: 50, Order: "interleaved"},
		Run: RunInfo{Ops: 20, Concurrency: 1, States: []string{StateMemtable, StateCompacted}, Flushes: 2,
			IntervalNS: int64(100 * time.Millisecond), Baseline: "wide"},
		Models:  []ModelInfo{{Name: "wide", Summary: "one partition per entity", Table: "CREATE TABLE wide ..."}, {Name: "narrow", Summary: "one per row", Table: "CREATE TABLE narrow ..."}},
		Queries: []QueryInfo{{Name: "latest-5", Summary: "the 5 latest rows of one entity", Rows: 5}},
		Targets: []string{TargetMinicass, TargetPebble},
	}
	phase := func(target, model, op, state string, perOp float64) Phase {
		return Phase{Target: target, Model: model, Op: op, State: state, Concurrency: 1, Ops: 100, ElapsedNS: int64(perOp * 100),
			OpsPerSec: 1e9 / perOp, TimePerOpNS: perOp, Latency: Latency{Mean: int64(perOp), P50: int64(perOp * 0.9), P90: int64(perOp * 1.5),
				P99: int64(perOp * 3), P999: int64(perOp * 5), Max: int64(perOp * 10)},
			Percentiles: []PercentilePoint{{0, int64(perOp / 2)}, {50, int64(perOp * 0.9)}, {99, int64(perOp * 3)}, {100, int64(perOp * 10)}},
			Timeline:    []TimelinePoint{{0.1, 1e9 / perOp}, {0.2, 0.9e9 / perOp}}, Rows: 5, Bytes: 60, Statements: 1, SSTables: -1}
	}
	for _, state := range r.Run.States {
		r.Phases = append(r.Phases,
			phase(TargetMinicass, "wide", OpInsert, state, 2000), phase(TargetMinicass, "wide", "latest-5", state, 10000),
			phase(TargetMinicass, "narrow", OpInsert, state, 1500), phase(TargetMinicass, "narrow", "latest-5", state, 32000),
			phase(TargetPebble, "wide", "latest-5", state, 2500))
	}
	r.Shapes = []Shape{{Target: TargetMinicass, Model: "wide", State: StateCompacted, Rows: 150, Partitions: 3, SSTables: 1,
		PartitionBytes: Spread{P50: 2000, P99: 2300, Max: 2300}, PartitionCells: Spread{P50: 150, P99: 150, Max: 150},
		BytesOnDisk: 6000, BytesOnDiskPerRow: 40, WriteAmplification: 2}}
	sw := SweepResult{Param: SweepWidth, Values: []int{10, 100}}
	for _, x := range sw.Values {
		sw.add(x, []Phase{phase(TargetMinicass, "wide", "latest-5", StateCompacted, 1000*float64(x)),
			phase(TargetMinicass, "narrow", "latest-5", StateCompacted, 30000)}, r.Shapes)
	}
	r.Sweeps = []SweepResult{sw}
	r.finish()
	return r
}

func TestReportGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteReport(&b, "json", syntheticReport()))
	golden(t, "report.golden.json", b.Bytes())
	var back Report
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	assert.Equal(t, "tiny", back.Profile)
}

func TestReportRatiosInWords(t *testing.T) {
	r := syntheticReport()
	var texts []string
	for _, ra := range r.Ratios {
		texts = append(texts, ra.Text)
	}
	assert.Contains(t, texts, "narrow reads the 5 latest rows of one entity 3.2x slower than wide (32.0µs against 10.0µs per operation, compacted to one SSTable)")
	assert.Contains(t, texts, "narrow writes a row 1.3x faster than wide (1.50µs against 2.00µs per operation, all in the memtable)")
	assert.Contains(t, texts, "wide: pebble, as raw keys and values, reads the 5 latest rows of one entity 4.0x faster than the Go API (2.50µs against 10.0µs per operation, model wide, all in the memtable)")
	var text bytes.Buffer
	require.NoError(t, WriteReport(&text, "table", r))
	golden(t, "report.golden.txt", text.Bytes())
	assert.ErrorIs(t, WriteReport(io.Discard, "xml", r), ErrUnknownFormat)
}

// checkHTML checks that a report page is well-formed, self-contained and
// holds the charts.
func checkHTML(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(page, "<!DOCTYPE html>\n")))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the report must be well-formed")
	}
	// Self-contained: no link, image or script from elsewhere.
	for _, ref := range []string{"src=", "href=", "@import", "url("} {
		assert.NotContains(t, page, ref)
	}
	assert.NotContains(t, strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), "http",
		"only the SVG namespace names a URL")
}

func TestReportHTML(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, syntheticReport()))
	page := b.String()
	checkHTML(t, page)
	assert.Contains(t, page, "latest-5, compacted: time per operation against rows per entity")
	assert.Contains(t, page, "latest-5, memtable: latency by percentile")
	assert.Contains(t, page, "insert, compacted: operations per second")
	assert.Contains(t, page, "narrow reads the 5 latest rows of one entity 3.2x slower than wide")
}

// TestRunProfile runs the tiny profile for real, on minicass and both
// peers, in every state, with a sweep, and checks what the report holds
// (not how fast anything was).
func TestRunProfile(t *testing.T) {
	p, err := ParseProfile("tiny.yaml", []byte(tinyProfile))
	require.NoError(t, err)
	rep, err := RunProfile(context.Background(), p, ModelOptions{Peers: []string{PeerPebble, PeerGocql},
		Sweeps: []SweepSpec{{Param: SweepWidth, Values: []int{20, 40}}}})
	require.NoError(t, err)
	// 3 targets x 2 models x (2 insert phases + 3 query phases); the
	// sweep's phases go to the sweep.
	require.Len(t, rep.Phases, 3*2*5)
	for _, ph := range rep.Phases {
		assert.Positive(t, ph.Ops, "%+v", ph)
		if ph.Op == OpInsert {
			assert.Equal(t, int64(150), ph.Ops)
			continue
		}
		assert.Equal(t, int64(20), ph.Ops)
		assert.Equal(t, 5.0, ph.Rows, "%s %s %s", ph.Target, ph.Model, ph.State)
		wantStmts := 1.0
		if ph.Model == "narrow" {
			wantStmts = 5
		}
		assert.Equal(t, wantStmts, ph.Statements, "%s %s", ph.Target, ph.Model)
		if ph.Target == TargetMinicass {
			// SSTables touched per question: none in the memtable, at
			// most the statements times the SSTables otherwise.
			switch ph.State {
			case StateMemtable:
				assert.Equal(t, 0.0, ph.SSTables)
			case StateFlushed:
				assert.LessOrEqual(t, ph.SSTables, 2*wantStmts)
				if ph.Model == "wide" {
					// An entity's rows are in both SSTables, but its 5
					// latest are all in the newer one: the older waits at
					// its lower bound and is never opened.
					assert.Equal(t, 1.0, ph.SSTables, "the latest rows are in the newer SSTable")
				}
			case StateCompacted:
				assert.Equal(t, wantStmts, ph.SSTables)
			}
		} else {
			assert.Equal(t, -1.0, ph.SSTables)
		}
	}
	var wide, narrow *Shape
	for i, s := range rep.Shapes {
		if s.Target == TargetMinicass && s.State == StateCompacted {
			if s.Model == "wide" {
				wide = &rep.Shapes[i]
			} else {
				narrow = &rep.Shapes[i]
			}
		}
	}
	require.NotNil(t, wide)
	require.NotNil(t, narrow)
	assert.Equal(t, int64(3), wide.Partitions)
	assert.Equal(t, int64(150), narrow.Partitions)
	assert.Greater(t, wide.PartitionBytes.Max, narrow.PartitionBytes.Max)
	assert.InDelta(t, 2.0, wide.WriteAmplification, 0.1, "one flush and one compaction of the same bytes")
	require.Len(t, rep.Sweeps, 1)
	for _, se := range rep.Sweeps[0].Series {
		require.Len(t, se.Points, 2)
		assert.Equal(t, []int{20, 40}, []int{se.Points[0].X, se.Points[1].X})
	}
	assert.NotEmpty(t, rep.Ratios)
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, rep))
	checkHTML(t, b.String())
}

func TestRunProfileShortRead(t *testing.T) {
	// A model that cannot answer: one row per partition and no repeat.
	src := strings.Replace(tinyProfile, "repeat: 5, step: -1", "repeat: 1", 1)
	p, err := ParseProfile("tiny.yaml", []byte(src))
	require.NoError(t, err)
	_, err = RunProfile(context.Background(), p, ModelOptions{Peers: []string{}, Sweeps: []SweepSpec{}, States: []string{StateMemtable}})
	require.ErrorIs(t, err, ErrShortRead)
	assert.Contains(t, err.Error(), `model "narrow"`)
	assert.Contains(t, err.Error(), "1 rows for entity")
}
