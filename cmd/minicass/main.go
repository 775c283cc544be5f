// Command minicass is the minicass command line: the cqlsh-like shell, the
// CQL native protocol server and nodetool-style tools.
//
//	minicass                      the interactive shell on the default data directory
//	minicass shell [flags]        the shell (--data DIR | --memory, -e STMTS, -f FILE,
//	                              --format table|json|csv, -k KEYSPACE)
//	minicass serve [flags]        the CQL native protocol v4 server
//	minicass nodetool [flags] ... flush, compact and the teaching views
//	minicass sstabledump PATH     an SSTable as Cassandra's sstabledump prints it
//	minicass version              print the version
//
// Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// version is the minicass release.
const version = "0.1.0-dev"

// stdio is what a subcommand reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand: run gets the arguments after its name and
// returns the exit status.
type command struct {
	summary string
	run     func(args []string, io stdio) int
}

// commands holds the subcommands by name; each file adds its own in init.
var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

func run(args []string, io stdio) int {
	if len(args) == 0 {
		return commands["shell"].run(nil, io)
	}
	name := args[0]
	switch name {
	case "--version", "-version":
		name = "version"
	case "help", "-h", "--help", "-help":
		usage(io.out)
		return 0
	}
	if c, ok := commands[name]; ok {
		return c.run(args[1:], io)
	}
	if strings.HasPrefix(name, "-") {
		// Flags without a subcommand go to the shell, as for cqlsh.
		return commands["shell"].run(args, io)
	}
	fmt.Fprintf(io.err, "minicass: unknown command %q\n\n", name)
	usage(io.err)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "minicass %s: an embedded Cassandra-style storage engine\n\nusage:\n", version)
	fmt.Fprintf(w, "  %-28s %s\n", "minicass", "the interactive shell on the default data directory")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-28s %s\n", "minicass "+n, commands[n].summary)
	}
}
