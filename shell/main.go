package shell

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chzyer/readline"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/nodetool"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/studio"
)

// Exit statuses of Main, as cqlsh uses them.
const (
	ExitOK = 0
	// ExitStartup reports a database that cannot be opened or a file that
	// cannot be read (cqlsh's sys.exit(message)).
	ExitStartup = 1
	// ExitError reports bad flags, or, with -e, -f or piped input, that a
	// statement failed (cqlsh exits 2 when batch_mode and statement_error).
	ExitError = 2
)

// BaseDir returns the directory minicass keeps its state in:
// $XDG_DATA_HOME/minicass when XDG_DATA_HOME is set, else ~/.minicass. The
// default data directory is BaseDir/data and the shell history is
// BaseDir/history.
func BaseDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "minicass")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".minicass")
	}
	return ".minicass"
}

// DefaultDataDir returns the data directory used when neither --data nor
// --memory is given.
func DefaultDataDir() string { return filepath.Join(BaseDir(), "data") }

// Main runs the shell command line. args are the arguments after "shell"
// (or all of them for a bare "minicass"):
//
//	--data DIR      data directory (default DefaultDataDir())
//	--memory        an in-memory database; nothing is written to disk
//	-e STATEMENTS   run the statements and exit
//	-f FILE         run the statements of FILE and exit
//	--format F      table (default), json or csv
//	--clock T       a manual clock starting at T (now, or an RFC 3339 time),
//	                which the CLOCK command moves (minicass only)
//	--ui ADDR       serve the studio (package studio) on loopback ADDR; a traced
//	                SELECT is followed by the address of its read page
//	-k KEYSPACE     start in KEYSPACE
//	--materialized_views_enabled
//	                allow CREATE MATERIALIZED VIEW (off by default, as in
//	                Cassandra 4.1's cassandra.yaml)
//	--user_defined_functions_enabled
//	                allow CREATE FUNCTION (off by default, as in Cassandra
//	                4.1's cassandra.yaml)
//	--scripted_user_defined_functions_enabled
//	                allow LANGUAGE javascript functions too (off by
//	                default, as in Cassandra 4.1's cassandra.yaml)
//	--partitioner P Murmur3Partitioner (the default) or
//	                ByteOrderedPartitioner, cassandra.yaml's partitioner; a
//	                data directory keeps the one it was created with
//
// Without -e and -f it reads stdin: interactively with prompts, line
// editing and history when stdin is a terminal, as a script otherwise. As in
// cqlsh, a failed statement does not stop -e, -f or a script: the others
// run, and Main returns ExitError at the end.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	fs := flag.NewFlagSet("minicass shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data `directory` (default "+DefaultDataDir()+")")
	memory := fs.Bool("memory", false, "use an in-memory database; nothing is written to disk")
	execute := fs.String("e", "", "execute the `statements` and exit")
	file := fs.String("f", "", "execute the statements of `file` and exit")
	format := fs.String("format", "table", "output `format`: table, json or csv")
	keyspace := fs.String("k", "", "start in `keyspace`")
	clockArg := fs.String("clock", "", "run on a manual clock starting at `time` (now, or e.g. 2024-01-15T10:00:00Z), which the CLOCK command moves")
	udfs := fs.Bool("user_defined_functions_enabled", false, "allow CREATE FUNCTION (cassandra.yaml's user_defined_functions_enabled; off by default, as in Cassandra 4.1)")
	scripted := fs.Bool("scripted_user_defined_functions_enabled", false, "allow LANGUAGE javascript functions too (cassandra.yaml's scripted_user_defined_functions_enabled; off by default, as in Cassandra 4.1)")
	views := fs.Bool("materialized_views_enabled", false, "allow CREATE MATERIALIZED VIEW (cassandra.yaml's materialized_views_enabled; off by default, as in Cassandra 4.1)")
	partitionerName := fs.String("partitioner", "Murmur3Partitioner", "the `partitioner`, Murmur3Partitioner or ByteOrderedPartitioner (cassandra.yaml's partitioner); a data directory keeps the one it was created with")
	ui := fs.String("ui", "", "serve the studio, the web view of the database, on the loopback `address` (e.g. 127.0.0.1:7070)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "minicass shell: unexpected argument %q\n", fs.Arg(0))
		return ExitError
	}
	part, ok := partitioner.Parse(*partitionerName)
	if !ok {
		fmt.Fprintf(stderr, "minicass shell: Invalid partitioner class %s (minicass has Murmur3Partitioner and ByteOrderedPartitioner)\n", *partitionerName)
		return ExitError
	}
	f, err := ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "minicass shell: %v\n", err)
		return ExitError
	}
	if *memory && *dataDir != "" {
		fmt.Fprintln(stderr, "minicass shell: --data and --memory exclude each other")
		return ExitError
	}
	if *execute != "" && *file != "" {
		fmt.Fprintln(stderr, "minicass shell: -e and -f exclude each other")
		return ExitError
	}
	dir := *dataDir
	if !*memory && dir == "" {
		dir = DefaultDataDir()
	}
	var in io.Reader = stdin
	name := "<stdin>"
	if *file != "" {
		fh, err := os.Open(*file)
		if err != nil {
			fmt.Fprintf(stderr, "Can't open %s: %s\n", pyRepr(*file), pyIOError(err))
			return ExitStartup
		}
		defer fh.Close()
		in, name = fh, *file
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(stderr, "Connection error: %v\n", err)
			return ExitStartup
		}
	}
	opts := minicass.Options{Dir: dir, Partitioner: part, MaterializedViewsEnabled: *views, UserDefinedFunctionsEnabled: *udfs, ScriptedUserDefinedFunctionsEnabled: *scripted}
	var manual *minicass.ManualClock
	if *clockArg != "" {
		start := time.Now()
		if *clockArg != "now" {
			if start, err = parseClockTime(*clockArg); err != nil {
				fmt.Fprintf(stderr, "minicass shell: --clock: %v\n", err)
				return ExitError
			}
		}
		manual = minicass.NewManualClock(start)
		opts.Clock = manual
	}
	db, err := minicass.Open(opts)
	if err != nil {
		fmt.Fprintf(stderr, "Connection error: %v\n", err)
		return ExitStartup
	}
	defer db.Close()
	studioURL := ""
	if *ui != "" {
		st, err := studio.Serve(db, *ui, studio.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "minicass shell: --ui: %v\n", err)
			return ExitStartup
		}
		defer st.Close()
		studioURL = st.URL()
		fmt.Fprintf(stderr, "Studio: %s\n", studioURL)
	}
	if dir != "" {
		// minicass nodetool --data DIR reaches this shell's database
		// while the shell holds DIR.
		ep, err := nodetool.Serve(db, dir)
		if err != nil {
			fmt.Fprintf(stderr, "minicass shell: %v (minicass nodetool cannot reach this shell)\n", err)
		} else {
			defer ep.Close()
		}
	}

	tty := false
	var term *os.File
	if osf, ok := stdin.(*os.File); ok && *execute == "" && *file == "" && readline.IsTerminal(int(osf.Fd())) {
		tty, term = true, osf
	}
	sh, err := New(Config{DB: db, Out: stdout, Err: stderr, Format: f, Keyspace: *keyspace, Name: name, TTY: tty, Version: version, ManualClock: manual, StudioURL: studioURL})
	if err != nil {
		fmt.Fprintf(stderr, "Connection error: %s\n", errorText(err))
		return ExitStartup
	}
	ctx := context.Background()
	switch {
	case *execute != "":
		sh.Execute(ctx, *execute)
	case tty:
		if err := sh.interactive(ctx, term, stdout, stderr, nil); err != nil {
			fmt.Fprintf(stderr, "minicass shell: %v\n", err)
			return ExitStartup
		}
		return ExitOK
	default:
		if err := sh.Run(ctx, in); err != nil {
			fmt.Fprintf(stderr, "minicass shell: %v\n", err)
			return ExitStartup
		}
	}
	if sh.Failed() {
		return ExitError
	}
	return ExitOK
}

// interactive reads lines with readline (history in BaseDir()/history),
// printing the banner, prompts and ---MORE--- between pages. cfg, if not
// nil, overrides the readline configuration (tests run it on a pipe).
func (sh *Shell) interactive(ctx context.Context, stdin io.ReadCloser, stdout, stderr io.Writer, cfg *readline.Config) error {
	if cfg == nil {
		hist := ""
		if err := os.MkdirAll(BaseDir(), 0o755); err == nil {
			hist = filepath.Join(BaseDir(), "history")
		}
		cfg = &readline.Config{HistoryFile: hist, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	}
	cfg.Prompt = sh.Prompt(false)
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return err
	}
	defer rl.Close()
	sh.Banner(where(sh.cfg.DB))
	sh.more = func() bool {
		rl.SetPrompt("---MORE---")
		_, err := rl.Readline()
		return err == nil
	}
	pending := ""
	for !sh.stop {
		rl.SetPrompt(sh.Prompt(pending != ""))
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			pending = ""
			fmt.Fprintln(stdout)
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(stdout)
			if strings.TrimSpace(pending) != "" {
				sh.feed(ctx, pending, true)
			}
			return nil
		case err != nil:
			return err
		}
		pending = sh.Line(ctx, pending, line)
	}
	return nil
}
