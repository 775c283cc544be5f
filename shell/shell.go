// Package shell is minicass's cqlsh: it reads CQL statements and shell
// commands, runs them on a minicass.DB and prints the results the way cqlsh
// (Cassandra 4.x) does.
//
// A Shell reads lines from an io.Reader and writes results to one
// io.Writer and errors to another, so it runs the same way on a terminal,
// on a pipe, on a file (-f) or on a string (-e), and is tested with golden
// scripts. Statements end with ';' (a BATCH at APPLY BATCH;); the cqlsh
// commands (EXPAND, PAGING, TRACING, CONSISTENCY, SERIAL CONSISTENCY,
// SOURCE, DESCRIBE, HELP, EXIT, QUIT, CLEAR, plus minicass's FLUSH and
// COMPACT) may also end at the end of their line.
//
// Errors are printed as cqlsh prints them, e.g.
//
//	InvalidRequest: Error from server: code=2200 [Invalid query] message="..."
//
// prefixed, when the input is not a terminal, by the input name and line
// ("<stdin>:1:"). As in cqlsh, an error does not stop the input: the
// remaining statements run and Failed reports that one failed, so -e and
// -f exit with status 2.
package shell

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/wire"
)

// Versions printed in the banner and by SHOW VERSION. minicass answers as a
// Cassandra 4.1 node does.
const (
	CassandraVersion = cql.ReleaseVersion
	CQLVersion       = cql.CQLVersion
	ProtocolVersion  = 4
)

// DefaultPageSize is cqlsh's default page size.
const DefaultPageSize = 100

// Config configures a Shell.
type Config struct {
	// DB is the database to run statements on. Required.
	DB *minicass.DB
	// Out receives results; Err receives errors and warnings of shell
	// commands. Err defaults to Out.
	Out, Err io.Writer
	// Format is the output format (default FormatTable).
	Format Format
	// Keyspace is the initial keyspace (USE'd at start), if not empty.
	Keyspace string
	// Name names the input in error lines when TTY is false ("<stdin>" by
	// default, the file name for -f).
	Name string
	// TTY is set when a person types at a terminal: prompts are printed,
	// paging pauses at ---MORE--- and errors carry no line prefix.
	TTY bool
	// Version is the minicass version shown in the banner.
	Version string
	// Clock is the time COPY measures its rates and durations with;
	// time.Now if nil.
	Clock func() time.Time
	// ManualClock, if not nil, is DB's clock, which the CLOCK command
	// moves (a shell started with --clock).
	ManualClock *minicass.ManualClock
	// StudioURL, when a studio serves DB (--ui), is its address: a traced
	// SELECT is then followed by a link to the studio's drawing of it.
	StudioURL string
}

// Shell runs shell input on a database. A Shell is not safe for concurrent
// use.
type Shell struct {
	cfg  Config
	sess *minicass.Session
	out  io.Writer
	errw io.Writer

	expand, tracing, paging bool
	pageSize                int
	consistency, serial     string

	lineno int  // cqlsh's line counter: lines read + 1
	failed bool // an error was printed
	stop   bool // EXIT or QUIT
	depth  int  // SOURCE nesting

	// more reads the answer to ---MORE--- on a terminal; nil elsewhere.
	more func() bool
}

// New returns a shell over cfg.DB, with its own session.
func New(cfg Config) (*Shell, error) {
	if cfg.DB == nil {
		return nil, fmt.Errorf("%w: Config.DB is nil", ErrUsage)
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Err == nil {
		cfg.Err = cfg.Out
	}
	if cfg.Name == "" {
		cfg.Name = "<stdin>"
	}
	sh := &Shell{cfg: cfg, sess: cfg.DB.Session(), out: cfg.Out, errw: cfg.Err,
		paging: true, pageSize: DefaultPageSize, consistency: "ONE", serial: "SERIAL", lineno: 1}
	if cfg.Keyspace != "" {
		if err := sh.sess.Exec(context.Background(), "USE "+quoteIdent(cfg.Keyspace)); err != nil {
			return nil, err
		}
	}
	return sh, nil
}

// Failed reports whether any statement or command printed an error.
func (sh *Shell) Failed() bool { return sh.failed }

// Stopped reports whether EXIT or QUIT was given.
func (sh *Shell) Stopped() bool { return sh.stop }

// Keyspace returns the session's current keyspace.
func (sh *Shell) Keyspace() string { return sh.sess.Keyspace() }

// Prompt returns the prompt for the next line: "cqlsh> " or "cqlsh:ks> ",
// and the continuation prompt "   ... " (indented under a keyspace) when a
// statement is unfinished.
func (sh *Shell) Prompt(continuation bool) string {
	ks := sh.Keyspace()
	switch {
	case continuation && ks == "":
		return "   ... "
	case continuation:
		return strings.Repeat(" ", len(ks)) + "    ... "
	case ks == "":
		return "cqlsh> "
	}
	return "cqlsh:" + ks + "> "
}

// Banner prints cqlsh's connection banner for a database at where (the
// data directory, or "memory"): "Connected to minicass at DIR", the
// versions line and "Use HELP for help.".
func (sh *Shell) Banner(where string) {
	fmt.Fprintf(sh.out, "Connected to minicass at %s\n", where)
	fmt.Fprintf(sh.out, "[minicass %s | Cassandra %s | CQL spec %s | Native protocol v%d]\n", sh.cfg.Version, CassandraVersion, CQLVersion, ProtocolVersion)
	fmt.Fprintln(sh.out, "Use HELP for help.")
}

// Run reads r line by line until EOF or EXIT, running each complete
// statement as soon as its last line is read. An unfinished statement at
// EOF is reported as cqlsh does ("Incomplete statement at end of file").
func (sh *Shell) Run(ctx context.Context, r io.Reader) error {
	br := bufio.NewReader(r)
	var buf strings.Builder
	for !sh.stop {
		line, err := br.ReadString('\n')
		if line != "" {
			sh.lineno++
			buf.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				buf.WriteByte('\n')
			}
			rest := sh.feed(ctx, buf.String(), false)
			buf.Reset()
			buf.WriteString(rest)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if !sh.stop {
		sh.feed(ctx, buf.String(), true)
	}
	return ctx.Err()
}

// Execute runs text as cqlsh -e does: the whole text at once, with a ';'
// added at the end if missing.
func (sh *Shell) Execute(ctx context.Context, text string) {
	if !strings.HasSuffix(strings.TrimSpace(text), ";") {
		text += ";"
	}
	sh.feed(ctx, text, true)
}

// Line handles one line typed at a terminal, with pending the unfinished
// statement so far, and returns the new unfinished statement ("" when
// everything ran).
func (sh *Shell) Line(ctx context.Context, pending, line string) string {
	sh.lineno++
	return sh.feed(ctx, pending+line+"\n", false)
}

// newlineCommands end at the end of their line as well as at ';'
// (cqlshlib's commands_end_with_newline), plus minicass's FLUSH, COMPACT,
// NODETOOL and CLOCK.
var newlineCommands = map[string]bool{
	"help": true, "?": true, "consistency": true, "serial": true, "describe": true, "desc": true,
	"show": true, "source": true, "capture": true, "login": true, "debug": true, "tracing": true,
	"expand": true, "paging": true, "exit": true, "quit": true, "clear": true, "cls": true,
	"history": true, "flush": true, "compact": true, "nodetool": true, "clock": true,
}

// feed runs every complete statement of input and returns the unfinished
// rest. At EOF the rest is reported as incomplete.
func (sh *Shell) feed(ctx context.Context, input string, eof bool) string {
again:
	for !sh.stop {
		s := skipComments(input)
		if s == "" {
			return ""
		}
		if w := firstWord(s); newlineCommands[w] {
			i := strings.IndexAny(s, ";\n")
			if i < 0 {
				if !eof {
					return input
				}
				i = len(s)
			}
			sh.command(ctx, strings.TrimSpace(s[:i]))
			if i == len(s) {
				return ""
			}
			input = s[i+1:]
			continue
		}
		complete, rest := parser.SplitStatements(s)
		for i, st := range complete {
			if sh.stop {
				return ""
			}
			body := skipComments(st)
			if newlineCommands[firstWord(body)] {
				if nl := strings.IndexByte(body, '\n'); nl >= 0 {
					sh.command(ctx, strings.TrimSpace(body[:nl]))
					input = body[nl+1:] + "\n" + strings.Join(complete[i+1:], "\n") + "\n" + rest
					goto again
				}
				sh.command(ctx, strings.TrimSpace(strings.TrimSuffix(body, ";")))
				continue
			}
			sh.statement(ctx, st)
		}
		if rest == "" {
			return ""
		}
		if eof {
			sh.printErr("Incomplete statement at end of file")
			return ""
		}
		// rest is trimmed: keep a line break between it and the next line.
		return rest + "\n"
	}
	return ""
}

// skipComments drops leading whitespace and comments.
func skipComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "--") || strings.HasPrefix(s, "//"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return s
			}
			s = s[2+i+2:]
		default:
			return s
		}
	}
}

// firstWord returns the lower-cased first word of s.
func firstWord(s string) string {
	if strings.HasPrefix(s, "?") {
		return "?"
	}
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return strings.ToLower(s[:i])
}

// printErr prints an error line as cqlsh's printerr does.
func (sh *Shell) printErr(text string) {
	sh.failed = true
	if !sh.cfg.TTY {
		text = fmt.Sprintf("%s:%d:%s", sh.cfg.Name, sh.lineno, text)
	}
	fmt.Fprintln(sh.errw, text)
}

// statement runs one CQL statement and prints its result.
func (sh *Shell) statement(ctx context.Context, stmt string) {
	switch w := firstWord(skipComments(stmt)); w {
	case "copy":
		sh.copy(ctx, skipComments(stmt))
		return
	case "capture", "login":
		sh.printErr(fmt.Sprintf("%s is not supported by minicass.", strings.ToUpper(w)))
		return
	}
	opts := []any{minicass.WithConsistency(consistencyLevel(sh.consistency)), minicass.WithSerialConsistency(consistencyLevel(sh.serial))}
	if sh.tracing {
		opts = append(opts, minicass.Tracing())
	}
	paged := sh.paging && sh.cfg.Format == FormatTable
	if paged {
		opts = append(opts, minicass.PageSize(sh.pageSize))
	}
	rows := sh.sess.Query(ctx, stmt, opts...)
	if err := rows.Err(); err != nil {
		sh.printErr(errorText(err))
		return
	}
	res := rows.Result()
	switch {
	case res.Kind != wire.ResultRows:
	case firstWord(skipComments(stmt)) == "select" || sh.cfg.Format != FormatTable:
		sh.printRows(ctx, stmt, opts, rows)
	default:
		// A conditional (LWT) INSERT, UPDATE, DELETE or BATCH: cqlsh prints
		// its [applied] row as a bare table, without "(N rows)".
		fmt.Fprintln(sh.out)
		vals := formatRows(res.Columns, res.Rows)
		if sh.expand && len(vals) > 0 {
			writeVertical(sh.out, res.Columns, vals, 0)
		} else {
			writeTable(sh.out, res.Columns, vals, true, sh.cfg.TTY)
		}
	}
	sh.printWarnings(rows.Warnings())
	if sh.tracing && res.Trace != nil {
		sh.printTrace(ctx, stmt, res.Trace)
		sh.studioLink(stmt, res.Trace)
	}
}

// studioLink prints, after a traced read, the address of the studio's page
// that draws it (the read view runs the statement again, in the table's
// keyspace).
func (sh *Shell) studioLink(stmt string, t *cql.Trace) {
	if sh.cfg.StudioURL == "" || len(t.Reads) == 0 || firstWord(skipComments(stmt)) != "select" {
		return
	}
	q := url.Values{"table": {t.Reads[0].Table}, "q": {strings.TrimSpace(stmt)}}
	fmt.Fprintf(sh.errw, "Studio: %sread?%s\n\n", sh.cfg.StudioURL, q.Encode())
}

// printRows prints a rows result, fetching the following pages.
func (sh *Shell) printRows(ctx context.Context, stmt string, opts []any, rows *minicass.Rows) {
	res := rows.Result()
	cols := res.Columns
	switch sh.cfg.Format {
	case FormatJSON:
		b := appendJSONRows([]byte{'['}, cols, res.Rows, 0)
		b = append(b, "]\n"...)
		sh.out.Write(b)
		return
	case FormatCSV:
		cw := csv.NewWriter(sh.out)
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		cw.Write(names)
		if err := writeCSV(cw, cols, res.Rows); err != nil {
			sh.printErr(err.Error())
		}
		return
	}
	fmt.Fprintln(sh.out)
	n := 0
	for first := true; ; first = false {
		if len(res.Rows) > 0 || first {
			vals := formatRows(cols, res.Rows)
			if sh.expand && len(vals) > 0 {
				writeVertical(sh.out, cols, vals, n)
			} else {
				writeTable(sh.out, cols, vals, first || sh.cfg.TTY, sh.cfg.TTY)
			}
			n += len(res.Rows)
		}
		state := rows.PagingState()
		if state == nil {
			if !sh.cfg.TTY {
				fmt.Fprintln(sh.out)
			}
			break
		}
		if sh.cfg.TTY && sh.more != nil && !sh.more() {
			break
		}
		rows = sh.sess.Query(ctx, stmt, append(opts[:len(opts):len(opts)], minicass.PagingState(state))...)
		if err := rows.Err(); err != nil {
			sh.printErr(errorText(err))
			return
		}
		res = rows.Result()
	}
	fmt.Fprintf(sh.out, "(%d rows)\n", n)
}

// printWarnings prints server warnings as cqlsh's print_warnings does.
func (sh *Shell) printWarnings(ws []string) {
	if len(ws) == 0 {
		return
	}
	w := sh.out
	if sh.cfg.Format != FormatTable {
		w = sh.errw
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Warnings :")
	for _, s := range ws {
		fmt.Fprintln(w, s)
		fmt.Fprintln(w)
	}
}

// printTrace records the trace of statement stmt under TRACING ON in
// system_traces, as a traced request is recorded, and prints it as cqlsh's
// print_trace does (cqlshlib/tracing.py): a blank line, "Tracing session:
// <id>", a blank line and a table of activity, timestamp, source,
// source_elapsed and client, whose first row is the request and last row
// "Request complete" (left out, as by cqlsh, when the duration is zero).
// Times are shown in UTC, where cqlsh shows local time.
func (sh *Shell) printTrace(ctx context.Context, stmt string, t *cql.Trace) {
	w := sh.out
	if sh.cfg.Format != FormatTable {
		w = sh.errw
	}
	x := sh.cfg.DB.Executor()
	ip, _ := x.NodeAddress()
	node := ip.String()
	params := map[string]string{"query": stmt, "consistency_level": sh.consistency, "serial_consistency_level": sh.serial}
	if sh.paging && sh.cfg.Format == FormatTable {
		params["page_size"] = strconv.Itoa(sh.pageSize)
	}
	req := cql.TraceRequest{Client: ip, Command: "QUERY", Request: "Execute CQL3 query", Thread: "shell", Parameters: params}
	id, err := x.RecordTrace(ctx, req, t)
	if err != nil {
		sh.printErr(errorText(err))
		return
	}
	started := t.Started.Truncate(time.Millisecond) // system_traces.sessions.started_at
	micros := func(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) }
	vals := [][]string{{req.Request, pyDatetime(started), node, "0", node}}
	for _, e := range t.Events {
		vals = append(vals, []string{e.Activity + " [" + req.Thread + "]", pyDatetime(t.Started.Add(e.Elapsed)), node, micros(e.Elapsed), node})
	}
	if t.Duration > 0 {
		vals = append(vals, []string{"Request complete", pyDatetime(started.Add(t.Duration)), node, micros(t.Duration), node})
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Tracing session: %s\n", id)
	fmt.Fprintln(w)
	cols := []cql.ColumnSpec{{Name: "activity"}, {Name: "timestamp"}, {Name: "source"}, {Name: "source_elapsed"}, {Name: "client"}}
	writeTable(w, cols, vals, true, sh.cfg.TTY)
	fmt.Fprintln(w)
}

// pyDatetime formats t in UTC as Python's str(datetime) does, which cqlsh
// prints in traces: microseconds shown unless they are zero.
func pyDatetime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("2006-01-02 15:04:05.000000")
}

func quoteIdent(s string) string {
	lower := strings.ToLower(s) == s
	ok := s != "" && lower && !(s[0] >= '0' && s[0] <= '9')
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
