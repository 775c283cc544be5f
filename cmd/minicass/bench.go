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
