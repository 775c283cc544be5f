package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/minicass/minicass/bench"
)

// bench runs the data-model workloads of package bench and prints a table
// (or JSON) of their figures, each with a peer measured in the same run:
//
//	minicass bench [flags] [WORKLOAD ...]
//
// With no workload named it runs them all. `minicass bench --help` lists the
// flags and workloads.
func init() {
	commands["bench"] = command{
		summary: "data-model workloads with a peer measured in the same run (--help for flags)",
		run: func(args []string, io stdio) int {
			stop := make(chan os.Signal, 1)
			signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(stop)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				select {
				case <-stop:
					cancel()
				case <-ctx.Done():
				}
			}()
			return benchMain(ctx, args, io)
		},
	}
}

// errBenchUsage wraps the command-line errors the flag package has already
// printed.
var errBenchUsage = errors.New("bench: bad flags")

// benchOptions are the parsed command line of minicass bench.
type benchOptions struct {
	cfg    bench.Config
	format string
	quiet  bool
	// The data-model profile run (--profile) and its adjustments.
	profile string
	html    string
	model   bench.ModelOptions
}

// parseBenchArgs parses the command line of minicass bench. Errors are
// printed to io.err by the flag package or returned; flag.ErrHelp is returned
// for -h/--help after the usage is printed.
func parseBenchArgs(args []string, io stdio) (benchOptions, error) {
	o := benchOptions{cfg: bench.DefaultConfig()}
	c := &o.cfg
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "usage: minicass bench [flags] [WORKLOAD ...]")
		fmt.Fprintln(io.err, "       minicass bench --profile FILE.yaml [--html report.html] [--sweep width=1k,10k] [flags]")
		fmt.Fprintln(io.err, "\nworkloads (all by default):")
		for _, w := range bench.Workloads {
			fmt.Fprintf(io.err, "  %-18s %s\n", w.Name, w.Summary)
		}
		fmt.Fprintln(io.err, "\nflags:")
		fs.PrintDefaults()
	}
	workloads := fs.String("workload", "", "comma-separated workloads to run (same as naming them as arguments)")
	fs.StringVar(&c.Store, "store", c.Store, "the store measured: engine (raw mutations and reads) or cql (prepared statements through the Go API)")
	fs.StringVar(&c.Peer, "peer", c.Peer, "the store measured in the same run for the ratio: btree, engine, cql or none")
	fs.IntVar(&c.Partitions, "partitions", c.Partitions, "narrow partitions of narrow-write, point-read and mixed")
	fs.IntVar(&c.WidePartitions, "wide-partitions", c.WidePartitions, "partitions of wide-write")
	fs.IntVar(&c.Rows, "rows", c.Rows, "rows per partition of wide-write")
	fs.IntVar(&c.Width, "width", c.Width, "rows of the partition latest-n reads")
	fs.IntVar(&c.N, "n", c.N, "rows each latest-n read returns")
	fs.IntVar(&c.Ops, "ops", c.Ops, "timed operations of point-read, latest-n and mixed")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "end each timed phase after this long (0: run every operation)")
	fs.Float64Var(&c.ReadFraction, "read-fraction", c.ReadFraction, "share of reads in mixed (0..1)")
	fs.IntVar(&c.ValueSize, "value-size", c.ValueSize, "bytes per value written")
	fs.BoolVar(&c.Flush, "flush", c.Flush, "flush the loaded data to SSTables before timed reads")
	fs.StringVar(&c.Dir, "data", c.Dir, "make the stores durable in fresh directories under DIR (removed afterwards; default: in memory)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the random keys")
	fs.StringVar(&o.format, "format", "table", "output format: table or json")
	jsonOut := fs.Bool("json", false, "same as --format json")
	fs.BoolVar(&o.quiet, "quiet", false, "do not print progress to stderr")
	fs.StringVar(&o.profile, "profile", "", "run the data-model experiment of a YAML profile (see bench/profiles) instead of the workloads")
	fs.StringVar(&o.html, "html", "", "with --profile: also write a self-contained HTML report with plots to this file")
	var sweeps, peers, states string
	fs.StringVar(&sweeps, "sweep", "", "with --profile: sweeps to run instead of the profile's, e.g. width=1k,10k,100k,1M;concurrency=1,2,4 (none: no sweep)")
	fs.StringVar(&peers, "peers", "", "with --profile: peers to run instead of the profile's: pebble,gocql or none")
	fs.StringVar(&states, "states", "", "with --profile: storage states instead of the profile's: memtable,flushed,compacted")
	fs.IntVar(&o.model.Concurrency, "concurrency", 0, "with --profile: goroutines per phase (default: the profile's)")
	fs.IntVar(&o.model.Entities, "entities", 0, "with --profile: entities of the data set (default: the profile's)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %v", errBenchUsage, err)
	}
	if *jsonOut {
		o.format = "json"
	}
	if o.format != "table" && o.format != "json" {
		return o, fmt.Errorf("%w: %q (want table or json)", bench.ErrUnknownFormat, o.format)
	}
	if o.profile != "" {
		return o, o.profileOptions(fs, sweeps, peers, states)
	}
	if o.html != "" {
		return o, fmt.Errorf("%w: --html needs --profile", bench.ErrInvalidConfig)
	}
	if *workloads != "" {
		for _, w := range strings.Split(*workloads, ",") {
			if w = strings.TrimSpace(w); w != "" {
				c.Workloads = append(c.Workloads, w)
			}
		}
	}
	c.Workloads = append(c.Workloads, fs.Args()...)
	return o, c.Validate()
}

// benchMain runs minicass bench and returns the exit status: 0, 1 when a
// workload fails, 2 for a bad command line.
func benchMain(ctx context.Context, args []string, io stdio) int {
	o, err := parseBenchArgs(args, io)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		// The flag package has printed its own errors.
		if !errors.Is(err, errBenchUsage) {
			fmt.Fprintf(io.err, "minicass bench: %v\n", err)
		}
		return 2
	}
	if o.profile != "" {
		return runProfile(ctx, o, io)
	}
	var progress func(string)
	if !o.quiet {
		progress = func(s string) { fmt.Fprintf(io.err, "running %s\n", s) }
	}
	results, err := bench.Run(ctx, o.cfg, progress)
	if werr := bench.Write(io.out, o.format, results); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		fmt.Fprintf(io.err, "minicass bench: %v\n", err)
		return 1
	}
	return 0
}

// profileOptions fills the model options of a --profile run from the flags
// given: --ops, --duration, --rows, --data and the profile-only flags.
func (o *benchOptions) profileOptions(fs *flag.FlagSet, sweeps, peers, states string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["ops"] {
		o.model.Ops = o.cfg.Ops
	}
	if set["duration"] {
		o.model.Duration = o.cfg.Duration
	}
	if set["rows"] {
		o.model.Rows = o.cfg.Rows
	}
	o.model.Dir = o.cfg.Dir
	if set["sweep"] {
		o.model.Sweeps = []bench.SweepSpec{}
		if sweeps != "none" {
			for _, s := range strings.Split(sweeps, ";") {
				sw, err := bench.ParseSweep(s)
				if err != nil {
					return err
				}
				o.model.Sweeps = append(o.model.Sweeps, sw)
			}
		}
	}
	if set["peers"] {
		o.model.Peers = []string{}
		if peers != "none" {
			o.model.Peers = splitList(peers)
		}
	}
	if set["states"] {
		o.model.States = splitList(states)
	}
	if fs.NArg() > 0 || set["workload"] {
		return fmt.Errorf("%w: --profile runs the profile's models, not workloads", bench.ErrInvalidConfig)
	}
	for _, n := range []string{"concurrency", "entities"} {
		if f := fs.Lookup(n); set[n] && f.Value.String() == "0" {
			return fmt.Errorf("%w: --%s must be positive", bench.ErrInvalidConfig, n)
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// runProfile runs minicass bench --profile.
func runProfile(ctx context.Context, o benchOptions, io stdio) int {
	prof, err := bench.LoadProfile(o.profile)
	if err != nil {
		fmt.Fprintf(io.err, "minicass bench: %v\n", err)
		return 2
	}
	var progress bench.Progress
	if !o.quiet {
		progress = newProgress(io.err)
		o.model.Progress = progress
	}
	rep, err := bench.RunProfile(ctx, prof, o.model)
	if err != nil {
		fmt.Fprintf(io.err, "minicass bench: %v\n", err)
		return 1
	}
	if err := bench.WriteReport(io.out, o.format, rep); err != nil {
		fmt.Fprintf(io.err, "minicass bench: %v\n", err)
		return 1
	}
	if o.html != "" {
		f, err := os.Create(o.html)
		if err == nil {
			err = bench.WriteHTML(f, rep)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(io.err, "minicass bench: %v\n", err)
			return 1
		}
		if progress != nil {
			fmt.Fprintf(io.err, "report written to %s\n", o.html)
		}
	}
	return 0
}
