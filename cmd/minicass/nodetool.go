package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/nodetool"
	"github.com/minicass/minicass/vfs"
)

// nodetool runs Cassandra's nodetool maintenance commands and teaching
// views (package nodetool) on a data directory, printed as nodetool prints
// them:
//
//	minicass nodetool --data DIR flush [ks [table...]]
//	minicass nodetool --data DIR compact [ks [table...]]
//	minicass nodetool --data DIR tablestats [ks[.table]...]
//	minicass nodetool --data DIR tablehistograms ks table   (or ks.table)
//	minicass nodetool --data DIR compactionhistory
//	minicass nodetool --help
//
// The directory is opened (its commit log replayed) for the command and
// closed afterwards. When another process holds it (a shell or a server),
// the command goes to that process instead, as nodetool talks to a live
// node: over the endpoint whose address the process wrote in
// DIR/nodetool.addr (see nodetoolremote.go).
func init() {
	commands["nodetool"] = command{
		summary: "flush, compact, tablestats, tablehistograms, compactionhistory on --data DIR (--help lists them)",
		run:     nodetoolMain,
	}
}

const nodetoolUsage = "minicass nodetool --data DIR"

func nodetoolMain(args []string, io stdio) int {
	fs := flag.NewFlagSet("nodetool", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() { nodetool.Help(io.err, nodetoolUsage) }
	dir := fs.String("data", "", "data directory (required)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	rest := fs.Args()
	if len(rest) > 0 && rest[0] == "help" {
		nodetool.Help(io.out, nodetoolUsage)
		return 0
	}
	if *dir == "" || len(rest) == 0 {
		nodetool.Help(io.err, nodetoolUsage)
		return 2
	}
	if _, ok := nodetool.Lookup(rest[0]); !ok {
		fmt.Fprintf(io.err, "nodetool: unknown command %q\n\n", rest[0])
		nodetool.Help(io.err, nodetoolUsage)
		return 2
	}
	db, err := minicass.Open(minicass.Options{Dir: *dir})
	if errors.Is(err, vfs.ErrLocked) {
		return nodetoolRemote(*dir, rest, io, err)
	}
	if err != nil {
		fmt.Fprintf(io.err, "minicass nodetool: %v\n", err)
		return 1
	}
	defer db.Close()
	if err := nodetool.Run(context.Background(), db, rest[0], rest[1:], io.out); err != nil {
		fmt.Fprintf(io.err, "nodetool: %v\n", err)
		return 1
	}
	return 0
}

// nodetoolRemote runs the command on the process that holds dir (lockErr
// is why dir could not be opened).
func nodetoolRemote(dir string, rest []string, io stdio, lockErr error) int {
	err := nodetool.Remote(context.Background(), dir, rest[0], rest[1:], io.out)
	if errors.Is(err, nodetool.ErrNoEndpoint) {
		fmt.Fprintf(io.err, "minicass nodetool: %v, and it serves no nodetool endpoint (%s): run NODETOOL in its shell, or stop it\n", lockErr, nodetool.AddrFile)
		return 1
	}
	if err != nil {
		fmt.Fprintf(io.err, "nodetool: %v\n", err)
		return 1
	}
	return 0
}
