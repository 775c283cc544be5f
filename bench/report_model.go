package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of a profile's run: what ran, every timed phase,
// the shape of each model's data, the ratios between models in words, and
// the sweeps. It is what `minicass bench --profile --json` prints and what
// the HTML report draws.
type Report struct {
	// Profile, Description and File name the profile.
	Profile     string `json:"profile"`
	Description string `json:"description,omitempty"`
	File        string `json:"file,omitempty"`
	// Started is when the run began; Machine where it ran.
	Started time.Time `json:"started"`
	Machine Machine   `json:"machine"`
	// Data and Run are the sizes the run used (the profile's, adjusted
	// by the command line).
	Data DataSpec `json:"data"`
	Run  RunInfo  `json:"run"`
	// Models and Queries describe what was compared.
	Models  []ModelInfo `json:"models"`
	Queries []QueryInfo `json:"queries"`
	// Targets are minicass and the peers, in the order run.
	Targets []string `json:"targets"`
	// Phases are the timed phases, Shapes the data of each model in each
	// state, Ratios the comparisons in words.
	Phases []Phase       `json:"phases"`
	Shapes []Shape       `json:"shapes"`
	Ratios []Ratio       `json:"ratios"`
	Sweeps []SweepResult `json:"sweeps,omitempty"`
}

// Machine describes where a report was measured.
type Machine struct {
	GoVersion  string `json:"go"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
}

// RunInfo is the RunSpec as reported.
type RunInfo struct {
	Ops         int      `json:"ops"`
	DurationNS  int64    `json:"duration_ns,omitempty"`
	Concurrency int      `json:"concurrency"`
	States      []string `json:"states"`
	Flushes     int      `json:"flushes"`
	IntervalNS  int64    `json:"interval_ns"`
	Baseline    string   `json:"baseline"`
}

// ModelInfo describes a model.
type ModelInfo struct {
	Name    string `json:"name"`
	Summary string `json:"summary,omitempty"`
	Table   string `json:"table"`
}

// QueryInfo describes a query.
type QueryInfo struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Rows    int    `json:"rows"`
}

// Phase is one timed phase: a model's inserts or one query, on one target,
// in one storage state.
type Phase struct {
	Target string `json:"target"`
	Model  string `json:"model"`
	// Op is "insert" or a query's name.
	Op          string `json:"op"`
	State       string `json:"state"`
	Concurrency int    `json:"concurrency"`
	// Ops operations took ElapsedNS of wall time: OpsPerSec, and
	// TimePerOpNS = ElapsedNS/Ops (the figure the ratios compare).
	Ops         int64   `json:"ops"`
	ElapsedNS   int64   `json:"elapsed_ns"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	TimePerOpNS float64 `json:"time_per_op_ns"`
	// Latency summarizes the latencies of single operations (HDR
	// histogram, three significant digits); Percentiles are its curve.
	Latency     Latency           `json:"latency"`
	Percentiles []PercentilePoint `json:"percentiles"`
	// Timeline is the throughput over time, one point per interval.
	Timeline []TimelinePoint `json:"timeline"`
	// Rows, Bytes and Statements are per operation: rows returned, bytes
	// of the values returned (0 over gocql, which does not say) and
	// statements run (a model answering from several partitions runs
	// several). SSTables is the SSTables a query touched, from traced
	// samples; -1 where the target cannot tell.
	Rows       float64 `json:"rows_per_op"`
	Bytes      float64 `json:"bytes_per_op"`
	Statements float64 `json:"statements_per_op"`
	SSTables   float64 `json:"sstables_per_op"`
}

// Latency is a latency summary in nanoseconds.
type Latency struct {
	Mean int64 `json:"mean_ns"`
	P50  int64 `json:"p50_ns"`
	P90  int64 `json:"p90_ns"`
	P99  int64 `json:"p99_ns"`
	P999 int64 `json:"p999_ns"`
	Max  int64 `json:"max_ns"`
}

// PercentilePoint is one point of a latency curve.
type PercentilePoint struct {
	Percentile float64 `json:"percentile"`
	NS         int64   `json:"ns"`
}

// TimelinePoint is the throughput of the interval ending at Seconds.
type TimelinePoint struct {
	Seconds   float64 `json:"s"`
	OpsPerSec float64 `json:"ops_per_sec"`
}

// Shape is the data of one model on one target in one state.
type Shape struct {
	Target string `json:"target"`
	Model  string `json:"model"`
	State  string `json:"state"`
	// Rows is the logical rows written; Partitions the partitions
	// (estimated from SSTable metadata when several SSTables hold one).
	Rows       int64 `json:"rows"`
	Partitions int64 `json:"partitions"`
	SSTables   int   `json:"sstables"`
	// PartitionBytes and PartitionCells are the spread of the size of a
	// partition in bytes and cells, from the SSTables (per SSTable: a
	// partition spread over several counts once in each).
	PartitionBytes Spread `json:"partition_bytes"`
	PartitionCells Spread `json:"partition_cells"`
	// MemtableBytes is the memtable's size when nothing is flushed.
	MemtableBytes int64 `json:"memtable_bytes,omitempty"`
	// BytesOnDisk are the live SSTables' files, per logical row too.
	BytesOnDisk       int64   `json:"bytes_on_disk"`
	BytesOnDiskPerRow float64 `json:"bytes_on_disk_per_row"`
	// WriteAmplification is the bytes flushes and compactions wrote over
	// the live data's size.
	WriteAmplification float64 `json:"write_amplification,omitempty"`
}

// Spread is a distribution's median, 99th percentile and maximum.
type Spread struct {
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// Ratio compares two phases of the same question, in words.
type Ratio struct {
	Op     string `json:"op"`
	State  string `json:"state"`
	Target string `json:"target"`
	// Subject and Against are models (Target the target of both), or
	// for a peer ratio the same model on two targets (Subject is then
	// the peer, Against minicass).
	Subject string `json:"subject"`
	Against string `json:"against"`
	// Factor is Against's time per operation over Subject's: 3 means the
	// subject does the same work three times as fast.
	Factor float64 `json:"factor"`
	Text   string  `json:"text"`
}

// SweepResult is one sweep: each model's phases at each value.
type SweepResult struct {
	Param  string        `json:"param"`
	Values []int         `json:"values"`
	Series []SweepSeries `json:"series"`
}

// SweepSeries is one curve of a sweep: a model's op in a state.
type SweepSeries struct {
	Model  string       `json:"model"`
	Op     string       `json:"op"`
	State  string       `json:"state"`
	Points []SweepPoint `json:"points"`
}

// SweepPoint is the figure of a series at one value.
type SweepPoint struct {
	X              int     `json:"x"`
	OpsPerSec      float64 `json:"ops_per_sec"`
	TimePerOpNS    float64 `json:"time_per_op_ns"`
	P50            int64   `json:"p50_ns"`
	P99            int64   `json:"p99_ns"`
	SSTables       float64 `json:"sstables_per_op"`
	PartitionBytes int64   `json:"partition_bytes_max,omitempty"`
}

func (s *SweepResult) add(x int, phases []Phase, shapes []Shape) {
	for _, ph := range phases {
		i := slices.IndexFunc(s.Series, func(se SweepSeries) bool {
			return se.Model == ph.Model && se.Op == ph.Op && se.State == ph.State
		})
		if i < 0 {
			s.Series = append(s.Series, SweepSeries{Model: ph.Model, Op: ph.Op, State: ph.State})
			i = len(s.Series) - 1
		}
		pt := SweepPoint{X: x, OpsPerSec: ph.OpsPerSec, TimePerOpNS: ph.TimePerOpNS, P50: ph.Latency.P50, P99: ph.Latency.P99, SSTables: ph.SSTables}
		for _, sh := range shapes {
			if sh.Model == ph.Model && sh.State == ph.State {
				pt.PartitionBytes = sh.PartitionBytes.Max
			}
		}
		s.Series[i].Points = append(s.Series[i].Points, pt)
	}
}

func newReport(pl *plan, started time.Time) *Report {
	p := pl.prof
	r := &Report{Profile: p.Name, Description: p.Description, File: p.File, Started: started, Machine: machine(),
		Data: pl.data, Targets: append([]string{TargetMinicass}, pl.peers...),
		Run: RunInfo{Ops: pl.run.Ops, DurationNS: int64(pl.run.Duration), Concurrency: pl.run.Concurrency,
			States: pl.run.States, Flushes: pl.run.Flushes, IntervalNS: int64(pl.run.Interval), Baseline: pl.run.Baseline}}
	for _, m := range p.Models {
		r.Models = append(r.Models, ModelInfo{Name: m.Name, Summary: m.Summary, Table: m.Table})
	}
	for _, q := range p.Queries {
		r.Queries = append(r.Queries, QueryInfo{Name: q.Name, Summary: q.Summary, Rows: q.Rows})
	}
	return r
}

// phase returns the phase of target, model, op and state, or nil.
func (r *Report) phase(target, model, op, state string) *Phase {
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Target == target && p.Model == model && p.Op == op && p.State == state {
			return p
		}
	}
	return nil
}

// ops returns the ops in report order: insert, then the queries.
func (r *Report) ops() []string {
	ops := []string{OpInsert}
	for _, q := range r.Queries {
		ops = append(ops, q.Name)
	}
	return ops
}

// opSummary says what an op does, in words.
func (r *Report) opSummary(op string) string {
	if op == OpInsert {
		return "writes a row"
	}
	for _, q := range r.Queries {
		if q.Name == op {
			return "reads " + q.Summary
		}
	}
	return op
}

// finish computes the ratios.
func (r *Report) finish() {
	r.Ratios = nil
	states := []string{StateMemtable, StateFlushed, StateCompacted}
	for _, op := range r.ops() {
		for _, state := range states {
			base := r.phase(TargetMinicass, r.Run.Baseline, op, state)
			if base == nil || base.TimePerOpNS == 0 {
				continue
			}
			for _, m := range r.Models {
				if m.Name == r.Run.Baseline {
					continue
				}
				p := r.phase(TargetMinicass, m.Name, op, state)
				if p == nil || p.TimePerOpNS == 0 {
					continue
				}
				f := base.TimePerOpNS / p.TimePerOpNS
				r.Ratios = append(r.Ratios, Ratio{Op: op, State: state, Target: TargetMinicass, Subject: m.Name, Against: base.Model,
					Factor: f, Text: fmt.Sprintf("%s %s %s %s (%s against %s per operation, %s)", m.Name, r.opSummary(op),
						faster(f), base.Model, FormatNS(p.TimePerOpNS), FormatNS(base.TimePerOpNS), stateWords(state))})
			}
			for _, peer := range r.Targets[1:] {
				for _, m := range r.Models {
					own := r.phase(TargetMinicass, m.Name, op, state)
					p := r.phase(peer, m.Name, op, state)
					if own == nil || p == nil || p.TimePerOpNS == 0 || own.TimePerOpNS == 0 {
						continue
					}
					f := own.TimePerOpNS / p.TimePerOpNS
					r.Ratios = append(r.Ratios, Ratio{Op: op, State: state, Target: peer, Subject: peer, Against: TargetMinicass,
						Factor: f, Text: fmt.Sprintf("%s: %s %s %s the Go API (%s against %s per operation, model %s, %s)",
							m.Name, peerWords(peer), r.opSummary(op), faster(f), FormatNS(p.TimePerOpNS), FormatNS(own.TimePerOpNS), m.Name, stateWords(state))})
				}
			}
		}
	}
}

func peerWords(peer string) string {
	switch peer {
	case TargetGocql:
		return "over gocql to minicass serve, minicass"
	case TargetPebble:
		return "pebble, as raw keys and values,"
	}
	return peer
}

func stateWords(state string) string {
	switch state {
	case StateMemtable:
		return "all in the memtable"
	case StateFlushed:
		return "flushed to several SSTables"
	case StateCompacted:
		return "compacted to one SSTable"
	}
	return state
}

// faster says how a factor compares: "3.2x faster than", "2.0x slower
// than", "about as fast as" within 5%.
func faster(f float64) string {
	switch {
	case f >= 1.05:
		return strconv.FormatFloat(f, 'f', 1, 64) + "x faster than"
	case f <= 1/1.05:
		return strconv.FormatFloat(1/f, 'f', 1, 64) + "x slower than"
	}
	return "about as fast as"
}

// FormatNS prints nanoseconds with three significant digits.
func FormatNS(ns float64) string { return formatLatency(time.Duration(math.Round(ns))) }

// WriteReport prints a report as text (format "table") or as indented
// JSON (format "json").
func WriteReport(w io.Writer, format string, r *Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "table", "":
		return writeReportText(w, r)
	}
	return fmt.Errorf("%w: %q (want table or json)", ErrUnknownFormat, format)
}

func writeReportText(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "profile %s: %s\n", r.Profile, r.Description)
	fmt.Fprintf(w, "data: %d entities x %d rows (%s); %d ops per query phase, concurrency %d\n\n",
		r.Data.Entities, r.Data.Rows, r.Data.Order, r.Run.Ops, r.Run.Concurrency)
	for _, m := range r.Models {
		fmt.Fprintf(w, "model %s: %s\n", m.Name, m.Summary)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tmodel\top\tstate\tops\tops/s\ttime/op\tp50\tp99\tp99.9\trows/op\tbytes/op\tstmts/op\tsstables/op\t")
	for _, p := range r.Phases {
		sst := "-"
		if p.SSTables >= 0 {
			sst = strconv.FormatFloat(p.SSTables, 'f', 1, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.0f\t%.1f\t%s\t\n", p.Target, p.Model, p.Op, p.State, p.Ops,
			formatRate(p.OpsPerSec), FormatNS(p.TimePerOpNS), FormatNS(float64(p.Latency.P50)), FormatNS(float64(p.Latency.P99)),
			FormatNS(float64(p.Latency.P999)), p.Rows, p.Bytes, p.Statements, sst)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tmodel\tstate\trows\tpartitions\tsstables\tpartition bytes p50\tp99\tmax\tcells max\tdisk bytes/row\twrite amp\t")
	for _, s := range r.Shapes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.2f\t\n", s.Target, s.Model, s.State, s.Rows, s.Partitions,
			s.SSTables, s.PartitionBytes.P50, s.PartitionBytes.P99, s.PartitionBytes.Max, s.PartitionCells.Max,
			s.BytesOnDiskPerRow, s.WriteAmplification)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, ra := range r.Ratios {
		fmt.Fprintln(w, "- "+ra.Text)
	}
	for _, sw := range r.Sweeps {
		fmt.Fprintf(w, "\nsweep of %s (time per operation):\n", sw.Param)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := []string{"model", "op", "state"}
		for _, v := range sw.Values {
			head = append(head, sweepParamName(sw.Param)+"="+strconv.Itoa(v))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for _, se := range sw.Series {
			cells := []string{se.Model, se.Op, se.State}
			for _, pt := range se.Points {
				cells = append(cells, FormatNS(pt.TimePerOpNS))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func sweepParamName(p string) string {
	switch p {
	case SweepWidth:
		return "rows"
	case SweepPartitions:
		return "entities"
	}
	return p
}
