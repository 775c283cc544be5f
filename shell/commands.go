package shell

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/nodetool"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// consistencyLevels are the levels CONSISTENCY accepts (cassandra.ConsistencyLevel).
var consistencyLevels = map[string]bool{
	"ANY": true, "ONE": true, "TWO": true, "THREE": true, "QUORUM": true, "ALL": true,
	"LOCAL_ONE": true, "LOCAL_QUORUM": true, "EACH_QUORUM": true, "SERIAL": true, "LOCAL_SERIAL": true,
}

// consistencyLevel returns the protocol level named name (one of
// consistencyLevels).
func consistencyLevel(name string) wire.Consistency {
	for c := wire.Any; c <= wire.LocalOne; c++ {
		if c.String() == name {
			return c
		}
	}
	return wire.One
}

// command runs a shell command: text is the command without its ';'.
func (sh *Shell) command(ctx context.Context, text string) {
	fields := strings.Fields(text)
	word := firstWord(text)
	args := fields[1:]
	switch word {
	case "exit", "quit":
		if len(args) > 0 {
			sh.improper(word, args[0])
			return
		}
		sh.stop = true
	case "expand":
		if v, ok := sh.switchArg(word, args); ok {
			sh.expand = sh.onOff("EXPAND", "Expanded output", sh.expand, v)
		}
	case "tracing":
		if v, ok := sh.switchArg(word, args); ok {
			sh.tracing = sh.onOff("TRACING", "Tracing", sh.tracing, v)
		}
	case "paging":
		sh.pagingCommand(args)
	case "consistency":
		sh.consistencyCommand(args)
	case "serial":
		if len(args) == 0 || !strings.EqualFold(args[0], "consistency") {
			sh.printErr("Improper serial command.")
			return
		}
		args = args[1:]
		switch {
		case len(args) == 0:
			fmt.Fprintf(sh.out, "Current serial consistency level is %s.\n", sh.serial)
		case len(args) == 1 && (strings.EqualFold(args[0], "SERIAL") || strings.EqualFold(args[0], "LOCAL_SERIAL")):
			sh.serial = strings.ToUpper(args[0])
			fmt.Fprintf(sh.out, "Serial consistency level set to %s.\n", sh.serial)
		default:
			sh.improper("serial", args[0])
		}
	case "source":
		sh.source(ctx, strings.TrimSpace(text[len("source"):]))
	case "describe", "desc":
		sh.describe(ctx, text)
	case "show":
		sh.show(args)
	case "help", "?":
		sh.help(args)
	case "clear", "cls":
		if sh.cfg.TTY {
			fmt.Fprint(sh.out, "\x1b[H\x1b[2J")
		}
	case "flush", "compact":
		sh.maintenance(ctx, word, args)
	case "nodetool":
		sh.nodetool(ctx, args)
	case "clock":
		sh.clock(args)
	default:
		// capture, login, debug, history: cqlsh commands minicass lacks.
		sh.printErr(fmt.Sprintf("%s is not supported by minicass.", strings.ToUpper(word)))
	}
}

// improper reports a command cqlsh's grammar rejects.
func (sh *Shell) improper(word, at string) {
	sh.printErr(fmt.Sprintf("Improper %s command (problem at %s).", word, pyRepr(at)))
}

// switchArg parses the optional ON/OFF argument of EXPAND and TRACING.
func (sh *Shell) switchArg(word string, args []string) (string, bool) {
	switch {
	case len(args) == 0:
		return "", true
	case len(args) == 1 && (strings.EqualFold(args[0], "on") || strings.EqualFold(args[0], "off")):
		return strings.ToUpper(args[0]), true
	}
	sh.improper(word, args[0])
	return "", false
}

// onOff implements cqlsh's SwitchCommand.
func (sh *Shell) onOff(cmd, desc string, state bool, sw string) bool {
	switch sw {
	case "":
		if state {
			fmt.Fprintf(sh.out, "%s is currently enabled. Use %s OFF to disable\n", desc, cmd)
		} else {
			fmt.Fprintf(sh.out, "%s is currently disabled. Use %s ON to enable.\n", desc, cmd)
		}
		return state
	case "ON":
		if state {
			sh.printErr(fmt.Sprintf("%s is already enabled. Use %s OFF to disable.", desc, cmd))
			return state
		}
		fmt.Fprintf(sh.out, "Now %s is enabled\n", desc)
		return true
	}
	if !state {
		sh.printErr(fmt.Sprintf("%s is not enabled.", desc))
		return state
	}
	fmt.Fprintf(sh.out, "Disabled %s.\n", desc)
	return false
}

// pagingCommand implements PAGING [ON|OFF|N].
func (sh *Shell) pagingCommand(args []string) {
	if len(args) == 1 {
		if n, err := strconv.Atoi(args[0]); err == nil && n > 0 {
			sh.paging, sh.pageSize = true, n
			fmt.Fprintf(sh.out, "Page size: %d\n", n)
			return
		}
	}
	v, ok := sh.switchArg("paging", args)
	if !ok {
		return
	}
	sh.paging = sh.onOff("PAGING", "Query paging", sh.paging, v)
	if sh.paging {
		if v != "" {
			fmt.Fprintf(sh.out, "Page size: %d\n", sh.pageSize)
		}
	} else {
		sh.pageSize = DefaultPageSize
	}
}

// consistencyCommand implements CONSISTENCY [level]: the statements that
// follow run at that level (a level the one node cannot satisfy fails with
// Unavailable, as in cqlsh against a one-node Cassandra).
func (sh *Shell) consistencyCommand(args []string) {
	switch {
	case len(args) == 0:
		fmt.Fprintf(sh.out, "Current consistency level is %s.\n", sh.consistency)
	case len(args) == 1 && consistencyLevels[strings.ToUpper(args[0])]:
		sh.consistency = strings.ToUpper(args[0])
		fmt.Fprintf(sh.out, "Consistency level set to %s.\n", sh.consistency)
	default:
		sh.improper("consistency", args[0])
	}
}

// source runs a file as cqlsh's SOURCE does: through a non-terminal
// sub-shell whose errors name the file and line, sharing this shell's
// session and settings; errors do not stop the file.
func (sh *Shell) source(ctx context.Context, arg string) {
	name, ok := unquote(arg)
	if !ok {
		sh.printErr("Improper source command.")
		return
	}
	if strings.HasPrefix(name, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			name = filepath.Join(home, name[2:])
		}
	}
	if sh.depth >= 16 {
		sh.printErr(fmt.Sprintf("Could not open %s: SOURCE nested too deeply", pyRepr(name)))
		return
	}
	f, err := os.Open(name)
	if err != nil {
		sh.printErr(fmt.Sprintf("Could not open %s: %s", pyRepr(name), pyIOError(err)))
		return
	}
	defer f.Close()
	sub := *sh
	sub.cfg.TTY, sub.cfg.Name, sub.lineno, sub.depth, sub.failed, sub.more = false, name, 1, sh.depth+1, false, nil
	_ = sub.Run(ctx, f)
	sh.expand, sh.tracing, sh.paging, sh.pageSize = sub.expand, sub.tracing, sub.paging, sub.pageSize
	sh.consistency, sh.serial = sub.consistency, sub.serial
	sh.failed = sh.failed || sub.failed
}

// unquote parses a CQL string constant: quoted by single quotes, a quote
// inside doubled.
func unquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
}

// describe sends DESCRIBE to the executor (Cassandra 4.0 runs it on the
// server) and prints its rows as cqlsh does.
func (sh *Shell) describe(ctx context.Context, text string) {
	stmt, err := parser.Parse(text)
	if err != nil {
		sh.printErr(errorText(&cql.Error{Code: wire.CodeSyntax, Message: err.Error()}))
		return
	}
	d, ok := stmt.(*parser.Describe)
	if !ok {
		sh.printErr("Improper describe command.")
		return
	}
	rows := sh.sess.Query(ctx, text)
	if err := rows.Err(); err != nil {
		// cqlsh prints only the message of DESCRIBE errors.
		var e *cql.Error
		if errors.As(err, &e) {
			sh.printErr(e.Message)
		} else {
			sh.printErr(err.Error())
		}
		return
	}
	res := rows.Result()
	if res.Kind != wire.ResultRows {
		return
	}
	if sh.cfg.Format != FormatTable {
		sh.printRows(ctx, text, nil, rows)
		return
	}
	get := func(row minicass.Row, name string) string {
		v, _ := row.Value(name)
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	}
	var all []minicass.Row
	for rows.Next() {
		all = append(all, rows.Row())
	}
	switch d.Kind {
	case parser.DescribeKeyspaces:
		names := make([]string, len(all))
		for i, r := range all {
			names[i] = get(r, "name")
		}
		fmt.Fprintln(sh.out)
		columnize(sh.out, names, 80)
		fmt.Fprintln(sh.out)
	case parser.DescribeTables, parser.DescribeTypes, parser.DescribeFunctions, parser.DescribeAggregates:
		ks, start := "", 0
		flush := func(end int) {
			names := make([]string, 0, end-start)
			for _, r := range all[start:end] {
				names = append(names, get(r, "name"))
			}
			fmt.Fprintln(sh.out)
			if sh.Keyspace() == "" {
				fmt.Fprintf(sh.out, "Keyspace %s\n---------%s\n", ks, strings.Repeat("-", len(ks)))
			}
			columnize(sh.out, names, 80)
		}
		for i, r := range all {
			if k := get(r, "keyspace_name"); i == 0 || k != ks {
				if i > 0 {
					flush(i)
				}
				ks, start = k, i
			}
		}
		if len(all) > 0 {
			flush(len(all))
			fmt.Fprintln(sh.out)
		}
	case parser.DescribeCluster:
		for _, r := range all {
			fmt.Fprintf(sh.out, "\nCluster: %s\nPartitioner: %s\nSnitch: %s\n\n", get(r, "cluster"), get(r, "partitioner"), get(r, "snitch"))
		}
	default:
		for _, r := range all {
			fmt.Fprintln(sh.out)
			fmt.Fprint(sh.out, get(r, "create_statement"))
			fmt.Fprintln(sh.out)
		}
	}
	sh.printWarnings(rows.Warnings())
}

// columnize lays names out in columns as Python's cmd.Cmd.columnize does:
// the fewest rows whose columns, two spaces apart, fit in width.
func columnize(w interface{ Write([]byte) (int, error) }, names []string, width int) {
	if len(names) == 0 {
		fmt.Fprintln(w, "<empty>")
		return
	}
	if len(names) == 1 {
		fmt.Fprintln(w, names[0])
		return
	}
	var nrows, ncols int
	var colw []int
	for nrows = 1; nrows < len(names); nrows++ {
		ncols = (len(names) + nrows - 1) / nrows
		colw = colw[:0]
		total := -2
		for c := range ncols {
			cw := 0
			for r := range nrows {
				if i := r + nrows*c; i < len(names) {
					cw = max(cw, len(names[i]))
				}
			}
			colw = append(colw, cw)
			total += cw + 2
			if total > width {
				break
			}
		}
		if total <= width {
			break
		}
	}
	if nrows >= len(names) {
		nrows, ncols = len(names), 1
		colw = []int{0}
	}
	for r := range nrows {
		var parts []string
		for c := range ncols {
			if i := r + nrows*c; i < len(names) {
				parts = append(parts, names[i])
			}
		}
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		for i := range parts {
			if i < len(parts)-1 {
				parts[i] = pad(parts[i], colw[i])
			}
		}
		fmt.Fprintln(w, strings.Join(parts, "  "))
	}
}

// show implements SHOW VERSION and SHOW HOST.
func (sh *Shell) show(args []string) {
	if len(args) != 1 {
		sh.printErr("Improper show command.")
		return
	}
	switch strings.ToLower(args[0]) {
	case "version":
		fmt.Fprintf(sh.out, "[minicass %s | Cassandra %s | CQL spec %s | Native protocol v%d]\n", sh.cfg.Version, CassandraVersion, CQLVersion, ProtocolVersion)
	case "host":
		fmt.Fprintf(sh.out, "Connected to minicass at %s\n", where(sh.cfg.DB))
	default:
		sh.printErr(fmt.Sprintf("Wait, how do I show %s?", pyRepr(strings.ToLower(args[0]))))
	}
}

// where names the database for the banner.
func where(db *minicass.DB) string {
	if db.Dir() == "" {
		return "memory"
	}
	return db.Dir()
}

// helpTopics are the documented shell commands, as HELP lists them.
var helpTopics = map[string]string{
	"CONSISTENCY":        "CONSISTENCY [level]\n\n  Shows or sets the consistency level (ANY, ONE, TWO, THREE, QUORUM, ALL,\n  LOCAL_ONE, LOCAL_QUORUM, EACH_QUORUM, SERIAL, LOCAL_SERIAL). minicass is a\n  single node: a level that needs more replicas than the node (QUORUM on a\n  keyspace of replication factor 3) fails with Unavailable.",
	"SERIAL":             "SERIAL CONSISTENCY [SERIAL|LOCAL_SERIAL]\n\n  Shows or sets the serial consistency level of conditional updates.",
	"DESCRIBE":           "DESCRIBE KEYSPACES | KEYSPACE [ks] | TABLES | TABLE [ks.]t | CLUSTER | [FULL] SCHEMA | <name>\n\n  Prints schema as CQL, run by the executor as Cassandra 4.0 does (DESC works too).",
	"EXPAND":             "EXPAND [ON|OFF]\n\n  Enables or disables vertical output: one \"@ Row N\" block per row.",
	"PAGING":             "PAGING [ON|OFF|N]\n\n  Enables or disables paging, or sets the page size (default 100). On a\n  terminal each page waits at ---MORE---; elsewhere all pages are printed.",
	"TRACING":            "TRACING [ON|OFF]\n\n  Enables or disables tracing: what each statement touched is printed after it.",
	"SOURCE":             "SOURCE '<file>'\n\n  Runs the statements of a file. Errors do not stop it.",
	"SHOW":               "SHOW VERSION | HOST\n\n  Shows the versions or the data directory.",
	"COPY":               "COPY [ks.]table [(col, ...)] TO 'file' | STDOUT [WITH option = value [AND ...]]\nCOPY [ks.]table [(col, ...)] FROM 'file' [WITH option = value [AND ...]]\n\n  Exports rows to CSV or imports them. Options: HEADER, DELIMITER, QUOTE, ESCAPE,\n  NULL, MAXROWS, SKIPROWS (FROM), PAGESIZE (TO); cqlsh's others are accepted.",
	"EXIT":               "EXIT | QUIT\n\n  Leaves the shell.",
	"CLEAR":              "CLEAR | CLS\n\n  Clears the terminal.",
	"HELP":               "HELP [topic]\n\n  Lists the shell commands, or explains one.",
	"FLUSH":              "FLUSH [ks[.table]]\n\n  minicass only: flushes memtables to SSTables (all tables, a keyspace's or one table).",
	"COMPACT":            "COMPACT [ks[.table]]\n\n  minicass only: compacts SSTables (all tables, a keyspace's or one table).",
	"NODETOOL":           "NODETOOL <command> [args]\n\n  minicass only: runs a nodetool command on this shell's database (NODETOOL help lists them):\n  tablestats [ks[.table]], tablehistograms ks.table, compactionhistory, flush, compact.",
	"CLOCK":              "CLOCK [+DURATION | -DURATION | 'TIMESTAMP']\n\n  minicass only: shows the database's clock, or moves it, for a shell started with --clock:\n  CLOCK +1d makes a default_time_to_live of 86400 expire (units: d, h, m, s, ms).",
	"CQL_STATEMENTS_END": "",
}

// help implements HELP [topic].
func (sh *Shell) help(args []string) {
	if len(args) == 0 {
		var names []string
		for k := range helpTopics {
			if k != "CQL_STATEMENTS_END" {
				names = append(names, k)
			}
		}
		sortStrings(names)
		fmt.Fprintln(sh.out)
		fmt.Fprintln(sh.out, "Documented shell commands:")
		fmt.Fprintln(sh.out, "===========================")
		columnize(sh.out, names, 80)
		fmt.Fprintln(sh.out)
		fmt.Fprintln(sh.out, "CQL statements (SELECT, INSERT, UPDATE, DELETE, BATCH, CREATE, ALTER, DROP, TRUNCATE, USE)")
		fmt.Fprintln(sh.out, "end with ';'. See https://cassandra.apache.org/doc/latest/cassandra/cql/")
		fmt.Fprintln(sh.out)
		return
	}
	for _, t := range args {
		doc, ok := helpTopics[strings.ToUpper(t)]
		if !ok || doc == "" {
			sh.printErr(fmt.Sprintf("*** No help on %s", t))
			continue
		}
		fmt.Fprintln(sh.out, doc)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// maintenance implements FLUSH and COMPACT [ks[.table]].
func (sh *Shell) maintenance(ctx context.Context, word string, args []string) {
	if len(args) > 1 {
		sh.improper(word, args[1])
		return
	}
	var ks, table string
	if len(args) == 1 {
		ks, table, _ = strings.Cut(args[0], ".")
	}
	var err error
	if word == "flush" {
		err = sh.cfg.DB.Flush(ctx, ks, table)
	} else {
		err = sh.cfg.DB.Compact(ctx, ks, table)
	}
	if err != nil {
		sh.printErr(errorText(err))
	}
}

// pyRepr quotes s as Python's repr does for the messages cqlsh formats
// with %r: single quotes, unless s holds a single quote and no double one.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyIOError renders a file error as Python's IOError prints:
// "[Errno 2] No such file or directory: '/x'".
func pyIOError(err error) string {
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(pe.Err, &errno) {
		msg := errno.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return fmt.Sprintf("[Errno %d] %s: %s", int(errno), msg, pyRepr(pe.Path))
	}
	return err.Error()
}

// nodetool implements NODETOOL <command> [args]: the nodetool view or
// maintenance command on the shell's own database.
func (sh *Shell) nodetool(ctx context.Context, args []string) {
	if len(args) == 0 {
		nodetool.Help(sh.out, "NODETOOL")
		return
	}
	var out bytes.Buffer
	if err := nodetool.Run(ctx, sh.cfg.DB, strings.ToLower(args[0]), args[1:], &out); err != nil {
		sh.printErr("nodetool: " + errorText(err))
		return
	}
	_, _ = sh.out.Write(out.Bytes())
}

// clock implements CLOCK [+D | -D | 'TIMESTAMP']: without an argument it
// prints the database's time; with one it moves a manual clock by a
// duration (Go's units plus d for days: +1d, +90m, -30s) or sets it to a
// timestamp ('2024-01-15T10:00:00Z', or a CQL timestamp literal).
func (sh *Shell) clock(args []string) {
	mc := sh.cfg.ManualClock
	if len(args) == 0 {
		now := sh.cfg.DB.Engine().Clock().Now()
		kind := "the system clock; start the shell with --clock to move it"
		if mc != nil {
			kind = "manual clock"
		}
		fmt.Fprintf(sh.out, "Clock: %s (%s)\n", now.UTC().Format("2006-01-02 15:04:05.000000+0000"), kind)
		return
	}
	if mc == nil {
		sh.printErr("CLOCK can only move a manual clock: start the shell with --clock (e.g. minicass shell --memory --clock now).")
		return
	}
	arg := strings.Join(args, " ")
	if arg[0] == '+' || arg[0] == '-' {
		d, err := parseClockDuration(arg[1:])
		if err != nil {
			sh.printErr(fmt.Sprintf("Improper clock command: %v", err))
			return
		}
		if arg[0] == '-' {
			d = -d
		}
		mc.Set(mc.Now().Add(d))
	} else {
		t, err := parseClockTime(strings.Trim(arg, "'"))
		if err != nil {
			sh.printErr(fmt.Sprintf("Improper clock command: %v", err))
			return
		}
		mc.Set(t)
	}
	fmt.Fprintf(sh.out, "Clock set to %s\n", mc.Now().UTC().Format("2006-01-02 15:04:05.000000+0000"))
}

// parseClockDuration parses a duration as time.ParseDuration does, with d
// (24h) allowed as well: "1d", "1d12h", "90m".
func parseClockDuration(s string) (time.Duration, error) {
	var total time.Duration
	if days, rest, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("bad duration %q (e.g. +1d, +2h30m, -10s)", s)
		}
		total = time.Duration(n) * 24 * time.Hour
		s = rest
	}
	if s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("bad duration %q (e.g. +1d, +2h30m, -10s)", s)
		}
		total += d
	}
	return total, nil
}

// parseClockTime parses the time CLOCK sets: RFC 3339 or a CQL timestamp
// literal.
func parseClockTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	b, err := types.ParseLiteral(types.TimestampType, "'"+strings.ReplaceAll(s, "'", "''")+"'")
	if err != nil {
		return time.Time{}, fmt.Errorf("bad timestamp %q (e.g. '2024-01-15T10:00:00Z')", s)
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC(), nil
}
