package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Targets: what runs a model. minicass is the subject (the Go API, in
// process); the peers are run beside it with the same rows and questions.
const (
	TargetMinicass = "minicass"
	TargetGocql    = "gocql"
	TargetPebble   = "pebble"
)

// Progress is told what the model runner is doing, so that a terminal can
// show a bar. Implementations need not be safe for concurrent use: the
// runner calls them from one goroutine.
type Progress interface {
	// Start begins a phase of total units (operations or rows); label
	// says what it is, counter which of how many.
	Start(label string, total int64)
	// Set reports the units done so far.
	Set(done int64)
	// Finish ends the phase.
	Finish()
}

// ModelOptions adjust a profile's run; their zero value runs the profile
// as written.
type ModelOptions struct {
	// Ops, Duration and Concurrency, when set, replace the profile's.
	Ops         int
	Duration    time.Duration
	Concurrency int
	// Entities and Rows, when set, replace the profile's data shape.
	Entities, Rows int
	// States, when not nil, replaces the profile's states.
	States []string
	// Peers, when not nil, replaces the profile's peers (empty: none).
	Peers []string
	// Sweeps, when not nil, replaces the profile's sweeps (empty: none).
	Sweeps []SweepSpec
	// Dir, when set, keeps the stores' data under fresh directories in
	// Dir (removed afterwards) instead of in memory.
	Dir string
	// Progress, when not nil, follows the run.
	Progress Progress
	// Now gives the report's start time (default time.Now).
	Now func() time.Time
}

// plan is a profile with the options applied.
type plan struct {
	prof     *Profile
	data     DataSpec
	run      RunSpec
	peers    []string
	sweeps   []SweepSpec
	dir      string
	progress Progress
	steps    int // phases done, for progress labels
}

func newPlan(prof *Profile, o ModelOptions) (*plan, error) {
	pl := &plan{prof: prof, data: prof.Data, run: prof.Run, peers: prof.Peers, sweeps: prof.Sweeps, dir: o.Dir, progress: o.Progress}
	if o.Ops > 0 {
		pl.run.Ops = o.Ops
	}
	if o.Duration > 0 {
		pl.run.Duration = o.Duration
	}
	if o.Concurrency > 0 {
		pl.run.Concurrency = o.Concurrency
	}
	if o.Entities > 0 {
		pl.data.Entities = o.Entities
	}
	if o.Rows > 0 {
		pl.data.Rows = o.Rows
	}
	if o.States != nil {
		if err := CheckStates(o.States); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
		}
		pl.run.States = o.States
	}
	if o.Peers != nil {
		for _, p := range o.Peers {
			if p != PeerPebble && p != PeerGocql {
				return nil, fmt.Errorf("%w: peer %q (want pebble or gocql)", ErrUnknownStore, p)
			}
		}
		pl.peers = o.Peers
	}
	if o.Sweeps != nil {
		pl.sweeps = o.Sweeps
	}
	if pl.progress == nil {
		pl.progress = nopProgress{}
	}
	return pl, nil
}

type nopProgress struct{}

func (nopProgress) Start(string, int64) {}
func (nopProgress) Set(int64)           {}
func (nopProgress) Finish()             {}

// RunProfile runs every model of the profile on minicass and on the peers,
// in every state, then the sweeps, and returns the report. The first error
// stops the run.
func RunProfile(ctx context.Context, prof *Profile, o ModelOptions) (*Report, error) {
	pl, err := newPlan(prof, o)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	rep := newReport(pl, now())
	targets := append([]string{TargetMinicass}, pl.peers...)
	for _, target := range targets {
		for i := range prof.Models {
			phases, shapes, err := pl.runModel(ctx, target, &prof.Models[i], pl.data, pl.run)
			if err != nil {
				return nil, err
			}
			rep.Phases = append(rep.Phases, phases...)
			rep.Shapes = append(rep.Shapes, shapes...)
		}
	}
	for _, sw := range pl.sweeps {
		res := SweepResult{Param: sw.Param, Values: sw.Values}
		for _, v := range sw.Values {
			data, run := pl.data, pl.run
			switch sw.Param {
			case SweepWidth:
				data.Rows = v
			case SweepPartitions:
				data.Entities = v
			case SweepConcurrency:
				run.Concurrency = v
			}
			for i := range prof.Models {
				phases, shapes, err := pl.runModel(ctx, TargetMinicass, &prof.Models[i], data, run)
				if err != nil {
					return nil, fmt.Errorf("sweep %s=%d: %w", sw.Param, v, err)
				}
				res.add(v, phases, shapes)
			}
		}
		rep.Sweeps = append(rep.Sweeps, res)
	}
	rep.finish()
	return rep, nil
}

// modelTarget runs one model on one store.
type modelTarget interface {
	// insert writes one logical row.
	insert(ctx context.Context, vals []any) error
	// query runs query q's statement with the given field values and
	// returns the rows and bytes it returned.
	query(ctx context.Context, q int, vals []any) (rows, bytes int, err error)
	// sstables runs the statement once more, traced, and returns the
	// SSTables it touched (-1 when the target cannot tell) and its rows.
	sstables(ctx context.Context, q int, vals []any) (touched, rows int, err error)
	flush(ctx context.Context) error
	compact(ctx context.Context) error
	// shape describes the stored data; rows is the logical row count.
	shape(ctx context.Context, rows int64) (Shape, error)
	close() error
}

func (pl *plan) openTarget(ctx context.Context, target string, m *ModelSpec) (modelTarget, error) {
	switch target {
	case TargetMinicass:
		return openMinicassTarget(ctx, pl, m, false)
	case TargetGocql:
		return openMinicassTarget(ctx, pl, m, true)
	case TargetPebble:
		return openPebbleTarget(ctx, pl, m)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownStore, target)
}

// runModel loads model m on target and times its inserts and queries in
// each state of run.
func (pl *plan) runModel(ctx context.Context, target string, m *ModelSpec, data DataSpec, run RunSpec) (phases []Phase, shapes []Shape, err error) {
	want := func(s string) bool { return slices.Contains(run.States, s) }
	label := func(op, state string) string { return fmt.Sprintf("%s %s: %s (%s)", target, m.Name, op, state) }
	wrap := func(err error) error { return fmt.Errorf("%s, model %q: %w", target, m.Name, err) }
	type stage struct {
		state   string
		flushes int
		states  []string
	}
	var stages []stage
	if want(StateMemtable) {
		stages = append(stages, stage{StateMemtable, 0, []string{StateMemtable}})
	}
	if want(StateFlushed) || want(StateCompacted) {
		var after []string
		for _, s := range []string{StateFlushed, StateCompacted} {
			if want(s) {
				after = append(after, s)
			}
		}
		stages = append(stages, stage{StateFlushed, max(run.Flushes, 1), after})
	}
	for _, st := range stages {
		t, err := pl.openTarget(ctx, target, m)
		if err != nil {
			return nil, nil, wrap(err)
		}
		ph, sh, err := pl.runStage(ctx, t, target, m, data, run, st.flushes, st.states, label)
		if cerr := t.close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return nil, nil, wrap(err)
		}
		phases = append(phases, ph...)
		shapes = append(shapes, sh...)
	}
	return phases, shapes, nil
}

func (pl *plan) runStage(ctx context.Context, t modelTarget, target string, m *ModelSpec, data DataSpec, run RunSpec,
	flushes int, states []string, label func(op, state string) string) ([]Phase, []Shape, error) {
	var phases []Phase
	var shapes []Shape
	total := int64(data.Entities) * int64(data.Rows)
	loadState := StateMemtable
	if flushes > 0 {
		loadState = StateFlushed
	}
	ins, err := pl.insertPhase(ctx, t, m, data, run, flushes, label("insert", loadState))
	if err != nil {
		return nil, nil, err
	}
	ins.Target, ins.Model, ins.Op, ins.State = target, m.Name, OpInsert, loadState
	phases = append(phases, ins)
	for _, state := range states {
		if state == StateCompacted {
			if err := t.compact(ctx); err != nil {
				return nil, nil, err
			}
		}
		for qi := range pl.prof.Queries {
			q := &pl.prof.Queries[qi]
			ph, err := pl.queryPhase(ctx, t, m, qi, data, run, label(q.Name, state))
			if err != nil {
				return nil, nil, fmt.Errorf("query %q (%s): %w", q.Name, state, err)
			}
			ph.Target, ph.Model, ph.Op, ph.State = target, m.Name, q.Name, state
			phases = append(phases, ph)
		}
		sh, err := t.shape(ctx, total)
		if err != nil {
			return nil, nil, err
		}
		if sh.Target != "" {
			sh.Model, sh.State = m.Name, state
			shapes = append(shapes, sh)
		}
	}
	return phases, shapes, nil
}

// OpInsert is the Op of a phase of inserts.
const OpInsert = "insert"

// worker is the state of one goroutine of a phase.
type worker struct {
	h        *hdrhistogram.Histogram
	timeline []int64 // operations completed per interval
	rows     int64
	bytes    int64
	stmts    int64
	gen      *rowGen
}

// newHistogram returns an HDR histogram of latencies from 1 ns to 100 s
// with three significant digits (0.1%).
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(100*time.Second), 3) }

// phaseRun runs op n times (or until the deadline) on run.Concurrency
// goroutines, each op numbered by a shared counter, and merges what the
// workers recorded into a Phase.
func (pl *plan) phaseRun(ctx context.Context, run RunSpec, n int64, label string, op func(w *worker, i int64) error) (Phase, error) {
	conc := max(run.Concurrency, 1)
	var next, done atomic.Int64
	workers := make([]*worker, conc)
	errs := make([]error, conc)
	interval := run.Interval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	pl.steps++
	pl.progress.Start(label, n)
	stop := make(chan struct{})
	var tick sync.WaitGroup
	tick.Add(1)
	go func() {
		defer tick.Done()
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				pl.progress.Set(done.Load())
			}
		}
	}()
	began := time.Now()
	var wg sync.WaitGroup
	for wi := range conc {
		w := &worker{h: newHistogram(), gen: newRowGen(pl.prof)}
		workers[wi] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				start := time.Now()
				if err := op(w, i); err != nil {
					errs[wi] = err
					next.Store(n)
					return
				}
				end := time.Since(began)
				w.h.RecordValue(int64(time.Since(start)))
				slot := int(end / interval)
				for len(w.timeline) <= slot {
					w.timeline = append(w.timeline, 0)
				}
				w.timeline[slot]++
				done.Add(1)
				if run.Duration > 0 && end > run.Duration {
					next.Store(n)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	close(stop)
	tick.Wait()
	pl.progress.Set(done.Load())
	pl.progress.Finish()
	for _, err := range errs {
		if err != nil {
			return Phase{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Phase{}, err
	}
	return mergeWorkers(workers, elapsed, interval, conc), nil
}

func mergeWorkers(workers []*worker, elapsed, interval time.Duration, conc int) Phase {
	h := newHistogram()
	var timeline []int64
	var rows, bytes, stmts int64
	for _, w := range workers {
		h.Merge(w.h)
		for i, c := range w.timeline {
			for len(timeline) <= i {
				timeline = append(timeline, 0)
			}
			timeline[i] += c
		}
		rows += w.rows
		bytes += w.bytes
		stmts += w.stmts
	}
	ph := Phase{Concurrency: conc, Ops: h.TotalCount(), ElapsedNS: int64(elapsed), SSTables: -1}
	if elapsed > 0 {
		ph.OpsPerSec = float64(ph.Ops) / elapsed.Seconds()
	}
	if ph.Ops > 0 {
		ph.TimePerOpNS = float64(elapsed) / float64(ph.Ops)
		ph.Rows = float64(rows) / float64(ph.Ops)
		ph.Bytes = float64(bytes) / float64(ph.Ops)
		ph.Statements = float64(stmts) / float64(ph.Ops)
	}
	ph.Latency = Latency{Mean: int64(h.Mean()), P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90),
		P99: h.ValueAtQuantile(99), P999: h.ValueAtQuantile(99.9), Max: h.Max()}
	for _, q := range percentilesPlotted {
		ph.Percentiles = append(ph.Percentiles, PercentilePoint{Percentile: q, NS: h.ValueAtQuantile(q)})
	}
	for i, c := range timeline {
		// The last interval is cut short by the phase's end.
		width := interval
		if end := time.Duration(i+1) * interval; end > elapsed {
			width = elapsed - time.Duration(i)*interval
		}
		if width <= 0 {
			continue
		}
		ph.Timeline = append(ph.Timeline, TimelinePoint{
			Seconds:   (time.Duration(i)*interval + width).Seconds(),
			OpsPerSec: float64(c) / width.Seconds(),
		})
	}
	return ph
}

// percentilesPlotted are the percentiles of a latency plot.
var percentilesPlotted = []float64{0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100}

// position maps the i-th write to its (entity, row).
func (d DataSpec) position(i int64) (entity, row int64) {
	if d.Order == "sequential" {
		return i / int64(d.Rows), i % int64(d.Rows)
	}
	return i % int64(d.Entities), i / int64(d.Entities)
}

func (pl *plan) insertPhase(ctx context.Context, t modelTarget, m *ModelSpec, data DataSpec, run RunSpec, flushes int, label string) (Phase, error) {
	idx := pl.fieldIndexes(m.Insert.Args)
	total := int64(data.Entities) * int64(data.Rows)
	chunks := max(flushes, 1)
	args := func(w *worker, i int64) []any {
		e, r := data.position(i)
		vals := w.gen.row(e, r)
		out := make([]any, len(idx))
		for j, k := range idx {
			out[j] = vals[k]
		}
		return out
	}
	// Inserts are not ended early by run.Duration: every query needs
	// every row.
	run.Duration = 0
	var parts []Phase
	for c := range chunks {
		lo, hi := total*int64(c)/int64(chunks), total*int64(c+1)/int64(chunks)
		ph, err := pl.phaseRun(ctx, run, hi-lo, label, func(w *worker, i int64) error {
			return t.insert(ctx, args(w, lo+i))
		})
		if err != nil {
			return Phase{}, err
		}
		parts = append(parts, ph)
		if flushes > 0 {
			if err := t.flush(ctx); err != nil {
				return Phase{}, err
			}
		}
	}
	return joinPhases(parts), nil
}

// joinPhases joins the phases of consecutive chunks into one: latencies
// merged by weighting the chunk's percentiles (an approximation kept exact
// for one chunk), timelines concatenated.
func joinPhases(parts []Phase) Phase {
	if len(parts) == 1 {
		return parts[0]
	}
	out := parts[0]
	var offset float64
	out.Timeline = nil
	out.Ops, out.ElapsedNS = 0, 0
	for _, p := range parts {
		out.Ops += p.Ops
		out.ElapsedNS += p.ElapsedNS
		for _, tp := range p.Timeline {
			out.Timeline = append(out.Timeline, TimelinePoint{Seconds: offset + tp.Seconds, OpsPerSec: tp.OpsPerSec})
		}
		offset += float64(p.ElapsedNS) / 1e9
	}
	if out.ElapsedNS > 0 {
		out.OpsPerSec = float64(out.Ops) / (float64(out.ElapsedNS) / 1e9)
		out.TimePerOpNS = float64(out.ElapsedNS) / float64(out.Ops)
	}
	// Latencies: the percentiles of the chunk with the median p50 would
	// hide the tail; take the worst chunk's percentiles and the mean of
	// the means, which overstates rather than understates.
	var mean float64
	for _, p := range parts {
		mean += float64(p.Latency.Mean) * float64(p.Ops)
		if p.Latency.P99 > out.Latency.P99 {
			out.Latency, out.Percentiles = p.Latency, p.Percentiles
		}
	}
	out.Latency.Mean = int64(mean / float64(max(out.Ops, 1)))
	return out
}

func (pl *plan) fieldIndexes(names []string) []int {
	idx := make([]int, len(names))
	for i, a := range names {
		idx[i] = slices.IndexFunc(pl.prof.Fields, func(f FieldSpec) bool { return f.Name == a })
	}
	return idx
}

// queryTarget picks the entity and row a query asks about.
type queryTarget struct {
	entity, row Dist
	rowAt       string
	rows        int64
}

func newQueryTarget(q *QuerySpec, data DataSpec) (queryTarget, error) {
	qt := queryTarget{rowAt: q.rowAt, rows: int64(data.Rows)}
	var err error
	if qt.entity, err = ParseDist(q.Entity, true, 0, float64(data.Entities-1)); err != nil {
		return qt, err
	}
	if qt.rowAt == "" {
		if qt.row, err = ParseDist(q.Row, true, 0, float64(data.Rows-1)); err != nil {
			return qt, err
		}
	}
	return qt, nil
}

func (qt *queryTarget) pick(r *rand.Rand) (entity, row int64) {
	entity = qt.entity.SampleInt(r)
	switch qt.rowAt {
	case "last":
		row = qt.rows - 1
	case "first":
		row = 0
	default:
		row = qt.row.SampleInt(r)
	}
	return entity, row
}

// ask runs query qi once for (entity, row) on t: the statement, repeated
// with its step until the answer has the query's rows.
func (pl *plan) ask(ctx context.Context, t modelTarget, st *StatementSpec, idx []int, qi int, w *worker, data DataSpec, entity, row int64) (rows int, err error) {
	q := &pl.prof.Queries[qi]
	args := make([]any, len(idx))
	for rep := 0; rep < st.Repeat && rows < q.Rows; rep++ {
		r := row + int64(rep)*st.Step
		if r < 0 || r >= int64(data.Rows) {
			break
		}
		vals := w.gen.row(entity, r)
		for j, k := range idx {
			args[j] = vals[k]
		}
		n, b, err := t.query(ctx, qi, args)
		if err != nil {
			return rows, err
		}
		rows += n
		w.rows += int64(n)
		w.bytes += int64(b)
		w.stmts++
	}
	if rows < q.Rows {
		return rows, fmt.Errorf("%w: %d rows for entity %d at row %d, want %d: the model does not answer %q",
			ErrShortRead, rows, entity, row, q.Rows, q.Summary)
	}
	return rows, nil
}

func (pl *plan) queryPhase(ctx context.Context, t modelTarget, m *ModelSpec, qi int, data DataSpec, run RunSpec, label string) (Phase, error) {
	q := &pl.prof.Queries[qi]
	st := m.Queries[q.Name]
	idx := pl.fieldIndexes(st.Args)
	qt, err := newQueryTarget(q, data)
	if err != nil {
		return Phase{}, err
	}
	// Each operation draws its entity from a generator of its own index,
	// so the sequence of questions is the same whatever the concurrency.
	seed := pl.prof.Seed ^ uint64(qi+1)*0x51_7c_c1_b7_27_22_0a_95
	// Warm up (untimed): a tenth of the operations, at most 200, so the
	// first timed reads do not pay for cold caches alone.
	warm := &worker{gen: newRowGen(pl.prof)}
	for i := range min(run.Ops/10, 200) {
		e, row := qt.pick(rand.New(rand.NewPCG(seed, 1<<61|uint64(i))))
		if _, err := pl.ask(ctx, t, &st, idx, qi, warm, data, e, row); err != nil {
			return Phase{}, err
		}
	}
	ph, err := pl.phaseRun(ctx, run, int64(run.Ops), label, func(w *worker, i int64) error {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		e, row := qt.pick(r)
		_, err := pl.ask(ctx, t, &st, idx, qi, w, data, e, row)
		return err
	})
	if err != nil {
		return ph, err
	}
	// SSTables touched: a sample of the same questions, traced.
	const samples = 16
	r := rand.New(rand.NewPCG(seed, 1<<62))
	w := &worker{gen: newRowGen(pl.prof)}
	var touched, asked int
	for range min(samples, run.Ops) {
		e, row := qt.pick(r)
		args := make([]any, len(idx))
		got := 0
		for rep := 0; rep < st.Repeat && got < q.Rows; rep++ {
			rr := row + int64(rep)*st.Step
			if rr < 0 || rr >= int64(data.Rows) {
				break
			}
			vals := w.gen.row(e, rr)
			for j, k := range idx {
				args[j] = vals[k]
			}
			n, rows, err := t.sstables(ctx, qi, args)
			if err != nil {
				return ph, err
			}
			if n < 0 {
				return ph, nil
			}
			touched += n
			got += rows
		}
		asked++
	}
	if asked > 0 {
		ph.SSTables = float64(touched) / float64(asked)
	}
	return ph, nil
}

// machine describes where a report was measured.
func machine() Machine {
	return Machine{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
}
