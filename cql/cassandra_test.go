package cql

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// The scripts under testdata/cassandra port Apache Cassandra 4.1's own CQL
// tests (test/unit/org/apache/cassandra/cql3/...), one folder per Java test
// class and one file per class, the method's blocks after a "method" line. The
// directives mirror CQLTester's helpers, so each block is one assertion of the
// Java test and its expected output is what the Java test expects, never what
// minicass printed:
//
//	method name=testX   starts the Java test method testX (counted by the tally)
//	table               createTable: the input is a CREATE TABLE with %s, which
//	                    becomes a fresh name (table_00, table_01, ...) in the
//	                    keyspace cql_test_keyspace; later %s (and %1$s) name it,
//	                    and %n is its bare name
//	execute             execute: runs each statement; prints nothing unless one
//	                    fails (which then fails the script)
//	prepare name=P      sessionNet().prepare: prepares the input's statement as
//	                    P, which "execute prepared=P" (no input) runs later,
//	                    as sessionNet().execute(prepared.bind()) does
//	rows                assertRows: the rows, in order, one a line, values
//	                    separated by " | " as types.Format prints them
//	rows-any-order      assertRowsIgnoringOrder
//	rows-include        assertRowsIgnoringOrderAndExtra: each expected row is
//	                    among the result's, which may hold others
//	empty               assertEmpty
//	row-count           assertRowCount: the expected output is the count
//	rows page-size=N    assertRowsNet(executeNetWithPaging(query, N)): the
//	                    rows of every page, fetched N at a time (also for
//	                    empty and row-count)
//	columns             assertColumnNames: the result's column names, one a line
//	column-types        the result metadata's column types, one a line (the
//	                    Java tests read them from result.metadata())
//	warnings            ClientWarn's captured warnings: runs the statement and
//	                    prints its client warnings, one a line (nothing for
//	                    none, as the Java's assertNull)
//	error [kind=K]      assertInvalidMessage / assertInvalidThrowMessage /
//	                    assertInvalid: the statement fails, with an error of
//	                    kind K (InvalidRequest by default; Syntax,
//	                    Configuration, AlreadyExists, FunctionFailure, Any)
//	                    whose message contains the expected text (any message
//	                    when it is empty)
//	parses              assertValidSyntax: the statement parses (it is not
//	                    executed); the expected output is empty
//	flush               flush(): every table's memtables become SSTables
//	compact             compact(): every table is compacted
//	clock advance=D     advances the clock, where the Java test sleeps
//	node [tombstone-failure-threshold=N] [materialized-views=false]
//	                    goes on on a fresh node (no table or view of the
//	                    script's earlier blocks, as after CQLTester's cleanup)
//	                    with those settings, where the Java sets them
//	                    (DatabaseDescriptor, in its @BeforeClass or a test)
//
// A statement's bind values (execute(query, values...)) follow it on a line
// that starts with "? ": CQL literals separated by commas, with the words
// unset and null. An assertion that minicass answers differently on purpose
// carries diff=ANCHOR, naming its entry in docs/compatibility.md: the harness
// then checks that the answer still differs, and counts it as a difference.
// An assertion minicass does not pass yet, and that is no deliberate
// difference, carries fails=REASON, listed under "Known failures" in
// docs/conformance.md: the harness checks that it still fails and counts it
// as failing, so the table never shows it as passing.
//
// The harness's now() makes fixed time UUIDs (conformanceUUIDNode): the
// clock's time, each call one 100ns tick after the previous.
//
// repeat(N,XX) stands for N bytes 0xXX, in statements, bind values and the
// expected rows (as types.Format prints them in a text value), for the large values the Java test builds in code
// (CollectionsTest's 65,545-byte strings, new String(bytes) of a filled
// array).
//
// zeros(N) binds N zero bytes (CQLTester's TOO_BIG; inside a collection
// literal, a blob of N zero bytes), and a 0x literal bound
// to a type other than blob binds those bytes as they are.
//
// With MINICASS_CONFORMANCE_REPORT=1 a failed assertion is logged rather than
// failing the test, and each script's tally is logged: that is how the
// figures in docs/conformance.md are measured.
func TestCassandraConformance(t *testing.T) {
	tallies := runConformance(t, "testdata/cassandra")
	checkConformanceTable(t, tallies)
}

// conformanceTally counts one script's methods and assertions.
type conformanceTally struct {
	methods, assertions, passed, differences, failing int
}

const conformanceKeyspace = "cql_test_keyspace"

func runConformance(t *testing.T, dir string) map[string]conformanceTally {
	report := os.Getenv("MINICASS_CONFORMANCE_REPORT") != ""
	tallies := map[string]conformanceTally{}
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		h := &conformanceHarness{t: t, report: report}
		h.startNode(engine.Options{}, true)
		datadriven.RunTest(t, path, h.run)
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		tallies[name] = h.tally
		if report {
			t.Logf("%s: %d methods, %d assertions, %d passed, %d differences, %d failing", name, h.tally.methods, h.tally.assertions, h.tally.passed, h.tally.differences, h.tally.failing)
		}
	})
	return tallies
}

// startNode gives the harness a session on a fresh node with opts (and the
// harness's clock), in the keyspace cql_test_keyspace.
func (h *conformanceHarness) startNode(opts engine.Options, views bool) {
	h.s = newConformanceSession(h.t, opts, views)
	h.mustRun(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", conformanceKeyspace))
	h.s.SetKeyspace(conformanceKeyspace)
}

// newConformanceSession is a session on a fresh in-memory node with opts'
// settings and materialized views enabled if views is true, as CQLTester's
// node runs.
func newConformanceSession(t testing.TB, opts engine.Options, views bool) *Session {
	opts.Clock = engine.NewManualClock(testEpoch)
	eng, err := engine.Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	x := NewExecutor(eng, Options{MaterializedViewsEnabled: views})
	x.uuid = types.NewTimeUUIDGeneratorAt(conformanceUUIDNode)
	return x.NewSession()
}

// conformanceUUIDNode is the clock sequence and node of the harness's time
// UUIDs. With it and the harness's clock, which moves only by `clock`, each
// now() of a script is a fixed value, so a script can bind the time UUIDs
// that the Java test reads back from a result (TimeuuidTest's rows[i][1]).
const conformanceUUIDNode = 0x8123456789abcdef

type conformanceHarness struct {
	t      *testing.T
	s      *Session
	report bool
	tables int
	table  string
	method string
	tally  conformanceTally
	// prepared holds the statements of prepare directives, by name.
	prepared map[string]*Prepared
}

func (h *conformanceHarness) mustRun(q string) {
	_, err := h.s.Query(context.Background(), q, nil)
	require.NoError(h.t, err, q)
}

// run executes one directive and returns its expected output, having compared
// it itself: an assertion's expected text holds Cassandra's answer, which
// rewriting the file must never replace with minicass's.
func (h *conformanceHarness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "method":
		d.ScanArgs(t, "name", &h.method)
		h.tally.methods++
		return d.Expected
	case "node":
		var opts engine.Options
		if d.HasArg("tombstone-failure-threshold") {
			d.ScanArgs(t, "tombstone-failure-threshold", &opts.TombstoneFailureThreshold)
		}
		views := true
		if d.HasArg("materialized-views") {
			d.ScanArgs(t, "materialized-views", &views)
		}
		h.startNode(opts, views)
		return d.Expected
	case "table":
		h.table = fmt.Sprintf("%s.table_%02d", conformanceKeyspace, h.tables)
		h.tables++
		return h.check(t, d, h.execute(d.Input), "")
	case "prepare":
		var name string
		d.ScanArgs(t, "name", &name)
		prep, err := h.s.Prepare(context.Background(), h.substitute(strings.TrimSuffix(strings.TrimSpace(d.Input), ";")))
		got := ""
		if err != nil {
			got = "error: " + errorText(err)
		} else {
			if h.prepared == nil {
				h.prepared = map[string]*Prepared{}
			}
			h.prepared[name] = prep
		}
		return h.check(t, d, got, "")
	case "execute":
		if d.HasArg("prepared") {
			var name string
			d.ScanArgs(t, "prepared", &name)
			prep := h.prepared[name]
			require.NotNil(t, prep, "no statement prepared as %s", name)
			got := ""
			if _, err := h.s.ExecutePrepared(context.Background(), prep, &query.Params{}); err != nil {
				got = "error: " + errorText(err)
			}
			return h.check(t, d, got, "")
		}
		return h.check(t, d, h.execute(d.Input), "")
	case "flush":
		require.NoError(t, h.s.x.env.Engine.Flush(context.Background(), "", ""))
		return d.Expected
	case "compact":
		require.NoError(t, h.s.x.env.Engine.Flush(context.Background(), "", ""))
		require.NoError(t, h.s.x.env.Engine.Compact(context.Background(), "", ""))
		return d.Expected
	case "clock":
		var adv string
		d.ScanArgs(t, "advance", &adv)
		dur, err := time.ParseDuration(adv)
		require.NoError(t, err)
		advanceClock(h.s, dur)
		return d.Expected
	case "rows", "rows-any-order", "rows-include", "empty", "row-count", "columns", "column-types":
		h.tally.assertions++
		pageSize := 0
		if d.HasArg("page-size") {
			d.ScanArgs(t, "page-size", &pageSize)
		}
		res, err := h.queryPaged(d.Input, pageSize)
		if err != nil {
			return h.check(t, d, "error: "+errorText(err)+"\n", d.Expected)
		}
		var got string
		switch d.Cmd {
		case "rows":
			got = strings.Join(rowLines(res), "\n")
		case "rows-any-order":
			lines := rowLines(res)
			sort.Strings(lines)
			got = strings.Join(lines, "\n")
			exp := strings.Split(strings.TrimRight(expandExpectedRepeats(d.Expected), "\n"), "\n")
			sort.Strings(exp)
			return h.check(t, d, got, strings.Join(exp, "\n"))
		case "rows-include":
			// Every expected row is among the result's, each matched once;
			// the result may hold others.
			left := map[string]int{}
			for _, l := range rowLines(res) {
				left[l]++
			}
			exp := strings.Split(strings.TrimRight(expandExpectedRepeats(d.Expected), "\n"), "\n")
			var missing []string
			for _, l := range exp {
				if left[l] == 0 {
					missing = append(missing, l)
					continue
				}
				left[l]--
			}
			if len(missing) == 0 {
				return h.check(t, d, strings.Join(exp, "\n"), strings.Join(exp, "\n"))
			}
			return h.check(t, d, "missing:\n"+strings.Join(missing, "\n")+"\nin:\n"+strings.Join(rowLines(res), "\n"), strings.Join(exp, "\n"))
		case "empty":
			got = strings.Join(rowLines(res), "\n")
		case "row-count":
			got = fmt.Sprint(len(res.Rows))
		case "columns":
			names := make([]string, len(res.Columns))
			for i, c := range res.Columns {
				names[i] = c.Name
			}
			got = strings.Join(names, "\n")
		case "column-types":
			names := make([]string, len(res.Columns))
			for i, c := range res.Columns {
				names[i] = c.Type.String()
			}
			got = strings.Join(names, "\n")
		}
		return h.check(t, d, got, expandExpectedRepeats(d.Expected))
	case "warnings":
		h.tally.assertions++
		res, err := h.query(d.Input)
		if err != nil {
			return h.verdict(t, d, false, "error: "+errorText(err))
		}
		got := strings.Join(res.Warnings, "\n")
		return h.verdict(t, d, got == strings.TrimRight(d.Expected, "\n"), got)
	case "parses":
		h.tally.assertions++
		_, err := parse(h.substitute(strings.TrimSpace(d.Input)))
		got := ""
		if err != nil {
			got = errorText(err)
		}
		return h.verdict(t, d, err == nil, got)
	case "error":
		h.tally.assertions++
		kind := "InvalidRequest"
		if d.HasArg("kind") {
			d.ScanArgs(t, "kind", &kind)
		}
		_, err := h.query(d.Input)
		want := strings.TrimSpace(d.Expected)
		ok := false
		got := "no error"
		if err != nil {
			e := query.AsError(err)
			got = errorText(err)
			ok = (kind == "Any" || errorKind(e.Code) == kind) && strings.Contains(e.Message, want)
		}
		return h.verdict(t, d, ok, got)
	}
	t.Fatalf("unknown directive %s", d.Cmd)
	return ""
}

// check compares got with want (both without trailing newlines); the empty
// want of an execute block means success.
func (h *conformanceHarness) check(t *testing.T, d *datadriven.TestData, got, want string) string {
	got = strings.TrimRight(got, "\n")
	want = strings.TrimRight(want, "\n")
	if d.Cmd == "table" || d.Cmd == "execute" || d.Cmd == "prepare" {
		if got != "" {
			t.Fatalf("%s: %s %s: %s", d.Pos, h.method, d.Cmd, got)
		}
		return d.Expected
	}
	return h.verdict(t, d, got == want, got)
}

// verdict records an assertion's outcome: a pass, a documented difference
// (which must still differ), or a failure.
func (h *conformanceHarness) verdict(t *testing.T, d *datadriven.TestData, ok bool, got string) string {
	if d.HasArg("fails") {
		var reason string
		d.ScanArgs(t, "fails", &reason)
		if ok {
			h.fail(t, "%s: %s: passes now: drop fails=%s and its line in docs/conformance.md", d.Pos, h.method, reason)
		} else {
			h.tally.failing++
		}
		return d.Expected
	}
	if d.HasArg("diff") {
		var anchor string
		d.ScanArgs(t, "diff", &anchor)
		if ok {
			h.fail(t, "%s: %s: passes now: drop diff=%s and its docs/compatibility.md entry", d.Pos, h.method, anchor)
		} else {
			h.tally.differences++
		}
		return d.Expected
	}
	if ok {
		h.tally.passed++
	} else {
		h.fail(t, "MISMATCH %s: %s: %s\n%s\nexpected:\n%s\ngot:\n%s", d.Pos, h.method, d.Cmd, d.Input, strings.TrimRight(d.Expected, "\n"), got)
	}
	return d.Expected
}

func (h *conformanceHarness) fail(t *testing.T, format string, args ...any) {
	if h.report {
		t.Logf(format, args...)
		return
	}
	t.Errorf(format, args...)
}

// execute runs each statement of input (one a line, or a multi-line statement
// ending with ';'), returning the first error's text.
func (h *conformanceHarness) execute(input string) string {
	for _, st := range splitConformanceInput(input) {
		if _, err := h.runStatement(st, nil); err != nil {
			return "error: " + errorText(err)
		}
	}
	return ""
}

// query runs the one statement of an assertion.
func (h *conformanceHarness) query(input string) (*query.Result, error) {
	return h.queryPaged(input, 0)
}

// queryPaged runs the one statement of an assertion; with a page size above
// 0 it fetches every page, pageSize rows at a time, as the driver does for
// CQLTester's executeNetWithPaging, and returns their rows as one result.
func (h *conformanceHarness) queryPaged(input string, pageSize int) (*query.Result, error) {
	sts := splitConformanceInput(input)
	require.Len(h.t, sts, 1, "an assertion has one statement: %s", input)
	if pageSize <= 0 {
		return h.runStatement(sts[0], nil)
	}
	p := &query.Params{PageSize: pageSize}
	var all *query.Result
	for page := 0; ; page++ {
		require.Less(h.t, page, 10000, "paging does not end: %s", input)
		res, err := h.runStatement(sts[0], p)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = res
		} else {
			all.Rows = append(all.Rows, res.Rows...)
		}
		if res.PagingState == nil {
			all.PagingState = nil
			return all, nil
		}
		p = &query.Params{PageSize: pageSize, PagingState: res.PagingState}
	}
}

type conformanceStatement struct {
	text  string
	binds []string
	hasQ  bool
}

// splitConformanceInput splits input into statements: a line ending a
// statement unless it ends with a BEGIN BATCH group still open; a "? " line
// gives the preceding statement's bind values.
func splitConformanceInput(input string) []conformanceStatement {
	var out []conformanceStatement
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, conformanceStatement{text: strings.Join(cur, "\n")})
			cur = nil
		}
	}
	for _, line := range strings.Split(input, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if strings.HasPrefix(trimmed, "? ") || trimmed == "?" {
			flush()
			last := &out[len(out)-1]
			last.hasQ = true
			last.binds = splitBindValues(strings.TrimSpace(strings.TrimPrefix(trimmed, "?")))
			continue
		}
		cur = append(cur, line)
		joined := strings.ToUpper(strings.Join(cur, " "))
		if strings.HasPrefix(strings.TrimSpace(joined), "BEGIN") && !strings.Contains(joined, "APPLY BATCH") {
			continue
		}
		flush()
	}
	flush()
	return out
}

// splitBindValues splits a list of CQL literals at the commas outside quotes,
// brackets and parentheses.
func splitBindValues(s string) []string {
	var out []string
	depth, start := 0, 0
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// runStatement runs one statement with its bind values; paging, when not
// nil, gives the page size and state (its Values are replaced).
func (h *conformanceHarness) runStatement(st conformanceStatement, paging *query.Params) (*query.Result, error) {
	ctx := context.Background()
	text := h.substitute(strings.TrimSuffix(strings.TrimSpace(st.text), ";"))
	if !st.hasQ {
		return h.s.Query(ctx, text, paging)
	}
	prep, err := h.s.Prepare(ctx, text)
	if err != nil {
		return nil, err
	}
	require.Len(h.t, st.binds, len(prep.Bind), "bind values for %s", text)
	values := make([]query.Value, len(st.binds))
	for i, lit := range st.binds {
		lit = h.substitute(lit)
		switch strings.ToLower(lit) {
		case "unset":
			values[i] = query.Value{Unset: true}
		case "null":
		default:
			values[i] = query.Value{Bytes: h.bindValue(prep.Bind[i].Type, lit)}
		}
	}
	p := &query.Params{Values: values}
	if paging != nil {
		p.PageSize, p.PagingState = paging.PageSize, paging.PagingState
	}
	return h.s.ExecutePrepared(ctx, prep, p)
}

var zerosInLiteral = regexp.MustCompile(`zeros\(\d+\)`)

// bindValue serializes a bind value. A list literal may hold null elements,
// which no CQL literal can but a driver sends (CQLTester's list(1, null, 3)).
func (h *conformanceHarness) bindValue(t types.Type, lit string) []byte {
	// zeros(N) is N zero bytes (CQLTester's TOO_BIG buffer), and a 0x literal
	// for a type other than blob is the value's raw bytes (a ByteBuffer the
	// Java test binds as it is).
	if n, ok := strings.CutPrefix(lit, "zeros("); ok {
		size, err := strconv.Atoi(strings.TrimSuffix(n, ")"))
		require.NoError(h.t, err, "bind value %s", lit)
		return make([]byte, size)
	}
	// Inside a collection literal, zeros(N) is a blob literal of N zero
	// bytes ({0: zeros(66560)}, a map the Java test fills with a buffer).
	lit = zerosInLiteral.ReplaceAllStringFunc(lit, func(z string) string {
		n, err := strconv.Atoi(z[len("zeros(") : len(z)-1])
		require.NoError(h.t, err, "bind value %s", z)
		return "0x" + strings.Repeat("00", n)
	})
	if t.Kind != types.Blob && strings.HasPrefix(lit, "0x") {
		b, err := hex.DecodeString(lit[2:])
		require.NoError(h.t, err, "bind value %s", lit)
		return b
	}
	if t.Kind == types.List && strings.HasPrefix(lit, "[") && strings.HasSuffix(lit, "]") {
		var elems [][]byte
		for _, e := range splitBindValues(lit[1 : len(lit)-1]) {
			var b []byte
			if !strings.EqualFold(e, "null") {
				b = h.bindValue(t.Params[0], e)
			}
			elems = append(elems, b)
		}
		return types.EncodeList(elems)
	}
	b, err := types.ParseLiteral(t, lit)
	require.NoError(h.t, err, "bind value %s of type %s", lit, t)
	return b
}

var repeatMacro = regexp.MustCompile(`repeat\((\d+),([0-9a-fA-F]{2})\)`)

// expandRepeats replaces each repeat(N,XX) of s by N bytes 0xXX.
func expandRepeats(s string) string { return replaceRepeats(s, func(r string) string { return r }) }

// expandExpectedRepeats replaces each repeat(N,XX) of an expected output by
// the N bytes as types.Format prints them in a text value (cqlsh's \xNN for a
// control character).
func expandExpectedRepeats(s string) string {
	return replaceRepeats(s, func(r string) string { return types.Format(types.TextType, []byte(r)) })
}

func replaceRepeats(s string, out func(string) string) string {
	if !strings.Contains(s, "repeat(") {
		return s
	}
	return repeatMacro.ReplaceAllStringFunc(s, func(m string) string {
		sub := repeatMacro.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		b, _ := hex.DecodeString(sub[2])
		return out(strings.Repeat(string(b), n))
	})
}

// substitute names the current table: %s and %1$s as keyspace.table, %n as
// the bare table name (currentTable()); it expands repeat(N,XX).
func (h *conformanceHarness) substitute(s string) string {
	s = expandRepeats(s)
	s = strings.ReplaceAll(s, "%1$s", h.table)
	s = strings.ReplaceAll(s, "%s", h.table)
	return strings.ReplaceAll(s, "%n", strings.TrimPrefix(h.table, conformanceKeyspace+"."))
}

func rowLines(res *query.Result) []string {
	if res.Kind != wire.ResultRows {
		return nil
	}
	lines := make([]string, len(res.Rows))
	for r, row := range res.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = types.Format(res.Columns[i].Type, v)
		}
		lines[r] = strings.Join(vals, " | ")
	}
	return lines
}

func errorText(err error) string {
	e := query.AsError(err)
	return errorKind(e.Code) + ": " + e.Message
}

// errorKind names an error code by the Java exception CQLTester's assertions
// name.
func errorKind(c wire.ErrorCode) string {
	switch c {
	case wire.CodeInvalid:
		return "InvalidRequest"
	case wire.CodeSyntax:
		return "Syntax"
	case wire.CodeConfig:
		return "Configuration"
	case wire.CodeAlreadyExists:
		return "AlreadyExists"
	case wire.CodeFunctionFailure:
		return "FunctionFailure"
	case wire.CodeUnauthorized:
		return "Unauthorized"
	case wire.CodeUnavailable:
		return "Unavailable"
	}
	return c.ExceptionName()
}

// checkConformanceTable compares each script's tally with its row of
// docs/conformance.md.
func checkConformanceTable(t *testing.T, tallies map[string]conformanceTally) {
	if os.Getenv("MINICASS_CONFORMANCE_REPORT") != "" {
		return
	}
	doc, err := os.ReadFile("../docs/conformance.md")
	require.NoError(t, err)
	rows := map[string][]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 7 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[strings.Trim(cells[0], "`")] = cells
	}
	for name, tl := range tallies {
		cells, ok := rows[name]
		if !assertRow(t, ok, "docs/conformance.md has no row for %s", name) {
			continue
		}
		// | class | directory | methods | ported | assertions | passing | differences | failing | ...
		if !assertRow(t, len(cells) >= 9, "docs/conformance.md row %s has too few cells", name) {
			continue
		}
		want := []string{fmt.Sprint(tl.methods), fmt.Sprint(tl.assertions), fmt.Sprint(tl.passed), fmt.Sprint(tl.differences), fmt.Sprint(tl.failing)}
		got := []string{cells[3], cells[4], cells[5], cells[6], cells[7]}
		require.Equal(t, want, got, "docs/conformance.md row %s: ported methods, assertions, passing, differences, failing", name)
	}
}

func assertRow(t *testing.T, ok bool, format string, args ...any) bool {
	if !ok {
		t.Errorf(format, args...)
	}
	return ok
}
