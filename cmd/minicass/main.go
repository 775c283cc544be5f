// Command minicass is the minicass command line: the cqlsh-like shell, the
// CQL native protocol server and nodetool-style tools.
//
//	minicass                      the interactive shell on the default data directory
//	minicass shell [flags]        the shell (--data DIR | --memory, -e STMTS, -f FILE,
//	                              --format table|json|csv, -k KEYSPACE)
//	minicass serve [flags]        the CQL native protocol server (cassandra.yaml settings as flags or --config)
//	minicass nodetool [flags] ... flush, compact and the teaching views
//	minicass sstabledump PATH     an SSTable as Cassandra's sstabledump prints it
//	minicass ring [flags] [KEY]   a simulated token ring: ownership and replicas
//	minicass version              print the version
//
// Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"flag"
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

// parseArgs parses the flags of fs wherever they stand among args (package
// flag alone stops at the first other argument) and returns the other
// arguments in order. After "--" everything is an argument, so a value
// that starts with '-' (a negative number) can follow it.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if consumed := len(args) - len(left); consumed > 0 && args[consumed-1] == "--" {
			return append(rest, left...), nil
		}
		if len(left) == 0 {
			return rest, nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}
