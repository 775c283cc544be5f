package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Config configures a run of the workload runner. DefaultConfig gives the
// defaults; Validate checks a configuration.
type Config struct {
	// Workloads are the names of the workloads to run, in order (see
	// Workloads); empty runs all of them.
	Workloads []string
	// Store is the subject store kind: "engine" (default) or "cql".
	Store string
	// Peer is the store run in the same process for the ratio: "btree"
	// (default), "engine", "cql" or "none".
	Peer string
	// Partitions is the number of narrow partitions of narrow-write,
	// point-read and mixed (default 100,000).
	Partitions int
	// WidePartitions and Rows shape wide-write: WidePartitions partitions
	// of Rows rows (defaults 100 and 1,000).
	WidePartitions, Rows int
	// Width is the row count of the partition latest-n reads (default
	// 100,000) and N the rows each read returns (default 10).
	Width, N int
	// Ops is the number of timed operations of the read and mixed
	// workloads (default 100,000).
	Ops int
	// Duration, when positive, ends each timed phase early once it has run
	// that long (the result reports the operations done).
	Duration time.Duration
	// ReadFraction is the share of reads in mixed (default 0.5).
	ReadFraction float64
	// ValueSize is the size in bytes of every value written (default 16).
	ValueSize int
	// Flush flushes the loaded data to SSTables before a read workload's
	// timed phase, so reads come from SSTables instead of the memtable.
	Flush bool
	// Dir, when set, makes the engine and cql stores durable: each opens a
	// fresh data directory under Dir (commit log and SSTables on disk) and
	// removes it when done.
	Dir string
	// Seed seeds the random keys of point-read and mixed; subject and peer
	// get the same sequence.
	Seed uint64
}

// DefaultConfig returns the default configuration: every workload on the
// engine with the btree as peer, sizes that run in seconds.
func DefaultConfig() Config {
	return Config{
		Store: StoreEngine, Peer: StoreBTree,
		Partitions: 100_000, WidePartitions: 100, Rows: 1_000,
		Width: 100_000, N: 10, Ops: 100_000,
		ReadFraction: 0.5, ValueSize: 16, Seed: 1,
	}
}

// Validate reports an error wrapping ErrInvalidConfig, ErrUnknownStore or
// ErrUnknownWorkload for a configuration Run cannot use.
func (c *Config) Validate() error {
	for _, name := range c.Workloads {
		if _, ok := workloadByName(name); !ok {
			return fmt.Errorf("%w: %q (want one of %s)", ErrUnknownWorkload, name, strings.Join(WorkloadNames(), ", "))
		}
	}
	switch c.Store {
	case StoreEngine, StoreCQL, StoreBTree:
	default:
		return fmt.Errorf("%w: store %q (want engine, cql or btree)", ErrUnknownStore, c.Store)
	}
	switch c.Peer {
	case StoreEngine, StoreCQL, StoreBTree, StoreNone:
	default:
		return fmt.Errorf("%w: peer %q (want btree, engine, cql or none)", ErrUnknownStore, c.Peer)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"partitions", c.Partitions}, {"wide-partitions", c.WidePartitions}, {"rows", c.Rows},
		{"width", c.Width}, {"n", c.N}, {"ops", c.Ops}} {
		if f.v <= 0 {
			return fmt.Errorf("%w: %s must be positive, got %d", ErrInvalidConfig, f.name, f.v)
		}
	}
	if c.ValueSize < 0 {
		return fmt.Errorf("%w: value size must not be negative, got %d", ErrInvalidConfig, c.ValueSize)
	}
	if c.Duration < 0 {
		return fmt.Errorf("%w: duration must not be negative, got %s", ErrInvalidConfig, c.Duration)
	}
	if !(c.ReadFraction >= 0 && c.ReadFraction <= 1) {
		return fmt.Errorf("%w: read fraction must be between 0 and 1, got %g", ErrInvalidConfig, c.ReadFraction)
	}
	return nil
}

// Workload is one named workload.
type Workload struct {
	// Name is the workload's name on the command line.
	Name string
	// Summary says what it does, in a few words.
	Summary string
	// params describes the sizes the workload uses, for the report.
	params func(c *Config) string
	// load writes the data the timed phase needs (untimed).
	load func(ctx context.Context, s Store, c *Config, v []byte) error
	// run performs the timed operations, recording each one's latency.
	run func(ctx context.Context, s Store, c *Config, v []byte, t *timer) error
	// reads reports whether the timed phase reads (Config.Flush applies).
	reads bool
}

// Workloads lists the workloads in the order Run runs them by default.
var Workloads = []Workload{
	{Name: "narrow-write", Summary: "INSERT one row into each of many partitions",
		params: func(c *Config) string { return fmt.Sprintf("partitions=%d", c.Partitions) },
		run: func(ctx context.Context, s Store, c *Config, v []byte, t *timer) error {
			for i := 0; i < c.Partitions && t.more(); i++ {
				start := t.start()
				if err := s.Write(ctx, int64(i), 0, v); err != nil {
					return err
				}
				t.stop(start)
			}
			return nil
		}},
	{Name: "wide-write", Summary: "INSERT rows round-robin into a few wide partitions",
		params: func(c *Config) string { return fmt.Sprintf("partitions=%d rows=%d", c.WidePartitions, c.Rows) },
		run: func(ctx context.Context, s Store, c *Config, v []byte, t *timer) error {
			total := c.WidePartitions * c.Rows
			for i := 0; i < total && t.more(); i++ {
				start := t.start()
				if err := s.Write(ctx, int64(i%c.WidePartitions), int64(i/c.WidePartitions), v); err != nil {
					return err
				}
				t.stop(start)
			}
			return nil
		}},
	{Name: "point-read", Summary: "SELECT one random narrow partition", reads: true,
		params: func(c *Config) string { return fmt.Sprintf("partitions=%d ops=%d", c.Partitions, c.Ops) },
		load:   loadNarrow,
		run: func(ctx context.Context, s Store, c *Config, _ []byte, t *timer) error {
			rng := rand.New(rand.NewPCG(c.Seed, 1))
			for i := 0; i < c.Ops && t.more(); i++ {
				k := rng.Int64N(int64(c.Partitions))
				start := t.start()
				n, err := s.Read(ctx, k, 0, false)
				if err != nil {
					return err
				}
				t.stop(start)
				if n != 1 {
					return fmt.Errorf("%w: partition %d: %d rows, want 1", ErrShortRead, k, n)
				}
			}
			return nil
		}},
	latestN("latest-n", false),
	latestN("latest-n-reverse", true),
	{Name: "mixed", Summary: "random point reads and overwrites of narrow partitions", reads: true,
		params: func(c *Config) string {
			return fmt.Sprintf("partitions=%d ops=%d reads=%g", c.Partitions, c.Ops, c.ReadFraction)
		},
		load: loadNarrow,
		run: func(ctx context.Context, s Store, c *Config, v []byte, t *timer) error {
			rng := rand.New(rand.NewPCG(c.Seed, 2))
			for i := 0; i < c.Ops && t.more(); i++ {
				k := rng.Int64N(int64(c.Partitions))
				read := rng.Float64() < c.ReadFraction
				start := t.start()
				if read {
					n, err := s.Read(ctx, k, 0, false)
					if err != nil {
						return err
					}
					if n != 1 {
						return fmt.Errorf("%w: partition %d: %d rows, want 1", ErrShortRead, k, n)
					}
				} else if err := s.Write(ctx, k, 0, v); err != nil {
					return err
				}
				t.stop(start)
			}
			return nil
		}},
}

// latestN returns the workload reading N rows at one end of a wide partition.
func latestN(name string, reverse bool) Workload {
	end := "first"
	if reverse {
		end = "last"
	}
	return Workload{Name: name, Summary: fmt.Sprintf("SELECT the %s N rows of one partition of Width rows", end), reads: true,
		params: func(c *Config) string { return fmt.Sprintf("width=%d n=%d ops=%d", c.Width, c.N, c.Ops) },
		load: func(ctx context.Context, s Store, c *Config, v []byte) error {
			for i := 0; i < c.Width; i++ {
				if err := s.Write(ctx, 0, int64(i), v); err != nil {
					return err
				}
			}
			return nil
		},
		run: func(ctx context.Context, s Store, c *Config, _ []byte, t *timer) error {
			want := min(c.N, c.Width)
			for i := 0; i < c.Ops && t.more(); i++ {
				start := t.start()
				n, err := s.Read(ctx, 0, c.N, reverse)
				if err != nil {
					return err
				}
				t.stop(start)
				if n != want {
					return fmt.Errorf("%w: %d rows, want %d", ErrShortRead, n, want)
				}
			}
			return nil
		}}
}

func loadNarrow(ctx context.Context, s Store, c *Config, v []byte) error {
	for i := 0; i < c.Partitions; i++ {
		if err := s.Write(ctx, int64(i), 0, v); err != nil {
			return err
		}
	}
	return nil
}

// WorkloadNames returns the names of Workloads.
func WorkloadNames() []string {
	names := make([]string, len(Workloads))
	for i, w := range Workloads {
		names[i] = w.Name
	}
	return names
}

func workloadByName(name string) (Workload, bool) {
	for _, w := range Workloads {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// timer times the operations of one phase into a histogram and ends the
// phase once its deadline has passed. It reads only the monotonic clock
// (time.Since, about 30 ns here, against 55 ns for time.Now, which also
// reads the wall clock), so that less of each recorded latency is the
// timer's own.
type timer struct {
	h        Histogram
	deadline time.Duration // since began; zero: none
	began    time.Time
	over     bool // the deadline has passed or ctx is done
	ctx      context.Context
	n        int
}

// start returns the time an operation starts, as an offset from began.
func (t *timer) start() time.Duration { return time.Since(t.began) }

// stop records the operation that started at start.
func (t *timer) stop(start time.Duration) {
	now := time.Since(t.began)
	t.h.Record(now - start)
	if t.deadline != 0 && now > t.deadline {
		t.over = true
	}
}

// more reports whether the phase may do another operation: not once the
// deadline has passed or the context is done (checked every 256 operations).
func (t *timer) more() bool {
	if t.n++; t.n&255 == 0 && t.ctx.Err() != nil {
		t.over = true
	}
	return !t.over
}

// Measurement is the outcome of one workload's timed phase on one store.
type Measurement struct {
	// Store is the store kind.
	Store string `json:"store"`
	// Ops is the number of operations timed.
	Ops int `json:"ops"`
	// Elapsed is the wall time of the timed phase, including the loop.
	Elapsed time.Duration `json:"elapsed_ns"`
	// OpsPerSec is Ops / Elapsed.
	OpsPerSec float64 `json:"ops_per_sec"`
	// Mean, P50, P99 and Max are latencies of single operations.
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Result is the outcome of one workload: the subject, the peer measured in
// the same run and their ratio.
type Result struct {
	// Workload is the workload's name and Params the sizes it ran with.
	Workload string `json:"workload"`
	Params   string `json:"params"`
	// Flushed says the reads came from SSTables (Config.Flush).
	Flushed bool `json:"flushed"`
	// Subject is the measurement of Config.Store.
	Subject Measurement `json:"subject"`
	// Peer is the measurement of Config.Peer; nil with peer "none".
	Peer *Measurement `json:"peer,omitempty"`
	// Ratio is the subject's time per operation over the peer's (Elapsed
	// per op): 3 means the subject is three times slower. 0 without a peer.
	Ratio float64 `json:"ratio,omitempty"`
}

// Run runs the configured workloads (all of them if c.Workloads is empty),
// each on the subject store and then on the peer, and returns one Result
// per workload. progress, when not nil, gets a line as each phase starts.
// The first error stops the run; the results so far are returned with it.
func Run(ctx context.Context, c Config, progress func(string)) ([]Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	names := c.Workloads
	if len(names) == 0 {
		names = WorkloadNames()
	}
	if progress == nil {
		progress = func(string) {}
	}
	value := make([]byte, c.ValueSize)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	var results []Result
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		w, _ := workloadByName(name)
		r := Result{Workload: w.Name, Params: w.params(&c), Flushed: c.Flush && w.reads}
		progress(fmt.Sprintf("%s on %s", w.Name, c.Store))
		m, err := measure(ctx, w, c.Store, &c, value)
		if err != nil {
			return results, fmt.Errorf("bench: %s on %s: %w", w.Name, c.Store, err)
		}
		r.Subject = m
		if c.Peer != StoreNone {
			progress(fmt.Sprintf("%s on %s (peer)", w.Name, c.Peer))
			pm, err := measure(ctx, w, c.Peer, &c, value)
			if err != nil {
				return results, fmt.Errorf("bench: %s on %s: %w", w.Name, c.Peer, err)
			}
			r.Peer = &pm
			if pm.Ops > 0 && m.Ops > 0 && pm.Elapsed > 0 {
				r.Ratio = (float64(m.Elapsed) / float64(m.Ops)) / (float64(pm.Elapsed) / float64(pm.Ops))
			}
		}
		results = append(results, r)
	}
	return results, nil
}

// measure opens a fresh store, loads it, flushes it if asked and times the
// workload's operations.
func measure(ctx context.Context, w Workload, kind string, c *Config, value []byte) (m Measurement, err error) {
	// Reads of a memtable need the whole load in the memtable: raise the
	// flush threshold unless the run flushes anyway.
	opts := StoreOptions{Dir: c.Dir}
	if w.reads && !c.Flush {
		opts.MemtableSize = 1 << 40
	}
	s, err := OpenStore(kind, opts)
	if err != nil {
		return m, err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	if w.load != nil {
		if err := w.load(ctx, s, c, value); err != nil {
			return m, err
		}
	}
	if c.Flush && w.reads {
		if err := s.Flush(ctx); err != nil {
			return m, err
		}
	}
	t := &timer{ctx: ctx}
	t.began = time.Now()
	if c.Duration > 0 {
		t.deadline = c.Duration
	}
	if err := w.run(ctx, s, c, value, t); err != nil {
		return m, err
	}
	if err := ctx.Err(); err != nil {
		return m, err
	}
	return newMeasurement(s.Name(), &t.h, time.Since(t.began)), nil
}

// newMeasurement summarizes the histogram of a phase that took elapsed.
func newMeasurement(store string, h *Histogram, elapsed time.Duration) Measurement {
	m := Measurement{Store: store, Ops: h.Count(), Elapsed: elapsed,
		Mean: h.Mean(), P50: h.Quantile(0.5), P99: h.Quantile(0.99), Max: h.Max()}
	if elapsed > 0 {
		m.OpsPerSec = float64(m.Ops) / elapsed.Seconds()
	}
	return m
}
