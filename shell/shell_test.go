package shell

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chzyer/readline"
	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/studio"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// parseResult reads a result written as a header line of "name type"
// columns separated by " | " and one line per row of CQL literals separated
// by " | " (null for null).
func parseResult(t *testing.T, input string) ([]cql.ColumnSpec, [][][]byte) {
	t.Helper()
	lines := strings.Split(input, "\n")
	var cols []cql.ColumnSpec
	for _, c := range strings.Split(lines[0], " | ") {
		name, typ, ok := strings.Cut(strings.TrimSpace(c), " ")
		require.True(t, ok, "column %q", c)
		ty, err := types.ParseType(typ)
		require.NoError(t, err)
		cols = append(cols, cql.ColumnSpec{Name: name, Type: ty})
	}
	var rows [][][]byte
	for _, l := range lines[1:] {
		vals := strings.Split(l, " | ")
		require.Len(t, vals, len(cols), "row %q", l)
		row := make([][]byte, len(cols))
		for i, v := range vals {
			if v == "null" {
				continue
			}
			b, err := types.ParseLiteral(cols[i].Type, v)
			require.NoError(t, err, "literal %q", v)
			row[i] = b
		}
		rows = append(rows, row)
	}
	return cols, rows
}

// TestFormat draws results in every output format from literal rows, without
// a database.
func TestFormat(t *testing.T) {
	datadriven.RunTest(t, "testdata/format", func(t *testing.T, d *datadriven.TestData) string {
		cols, rows := parseResult(t, d.Input)
		var out bytes.Buffer
		switch d.Cmd {
		case "table":
			writeTable(&out, cols, formatRows(cols, rows), true, d.HasArg("tty"))
		case "expand":
			writeVertical(&out, cols, formatRows(cols, rows), 0)
		case "json":
			out.Write(appendJSONRows([]byte{'['}, cols, rows, 0))
			out.WriteString("]\n")
		case "csv":
			require.NoError(t, writeCSV(csv.NewWriter(&out), cols, rows))
		default:
			t.Fatalf("unknown command %s", d.Cmd)
		}
		return out.String()
	})
}

// TestScripts runs shell scripts on an in-memory database and compares the
// output (results and errors interleaved) with the golden files.
//
//	run [format=json|csv] [execute] [expect-fail]
//	<shell input>
//
// Each file starts from a fresh database; the runs of one file share it.
// execute runs the input as -e does instead of line by line.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		// A stopped clock makes traces' times and elapsed times fixed.
		clock := minicass.NewManualClock(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC))
		db, err := minicass.Open(minicass.Options{Clock: clock})
		require.NoError(t, err)
		defer db.Close()
		dir := t.TempDir()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "file":
				// file name=x.cql writes a file for SOURCE.
				var name string
				d.ScanArgs(t, "name", &name)
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(d.Input+"\n"), 0o644))
				return ""
			case "run":
			default:
				t.Fatalf("unknown command %s", d.Cmd)
			}
			format := "table"
			d.MaybeScanArgs(t, "format", &format)
			f, err := ParseFormat(format)
			require.NoError(t, err)
			var out bytes.Buffer
			// COPY's rates and times read a clock that does not move.
			sh, err := New(Config{DB: db, Out: &out, Format: f, Version: "test", Clock: func() time.Time { return time.Unix(0, 0) }, ManualClock: clock})
			require.NoError(t, err)
			input := strings.ReplaceAll(d.Input, "$DIR", dir)
			if d.HasArg("execute") {
				sh.Execute(context.Background(), input)
			} else {
				require.NoError(t, sh.Run(context.Background(), strings.NewReader(input)))
			}
			assert.Equal(t, d.HasArg("expect-fail"), sh.Failed(), "Failed()")
			// A trace's session id is a timeuuid with a random node.
			text := traceID.ReplaceAllString(out.String(), "Tracing session: <id>")
			return strings.ReplaceAll(text, dir, "$DIR")
		})
	})
}

var traceID = regexp.MustCompile(`Tracing session: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestPrompt(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	sh, err := New(Config{DB: db})
	require.NoError(t, err)
	assert.Equal(t, "cqlsh> ", sh.Prompt(false))
	assert.Equal(t, "   ... ", sh.Prompt(true))
	require.NoError(t, db.Exec(context.Background(), "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	sh.Execute(context.Background(), "USE ks")
	assert.Equal(t, "cqlsh:ks> ", sh.Prompt(false))
	assert.Equal(t, "      ... ", sh.Prompt(true), "cqlsh's keyspace_continue_prompt")
	assert.Equal(t, len(sh.Prompt(false)), len(sh.Prompt(true)))
}

func TestStderrSeparate(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	var out, errw bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, Err: &errw})
	require.NoError(t, err)
	sh.Execute(context.Background(), "EXPAND ON; SELEC 1")
	assert.Equal(t, "Now Expanded output is enabled\n", out.String())
	assert.True(t, strings.HasPrefix(errw.String(), "<stdin>:1:SyntaxException: line 1:"), errw.String())
	assert.True(t, sh.Failed())
}

func TestColumnize(t *testing.T) {
	var b bytes.Buffer
	columnize(&b, []string{"alpha", "beta", "gamma"}, 80)
	assert.Equal(t, "alpha  beta  gamma\n", b.String())
	b.Reset()
	var names []string
	for _, s := range strings.Fields("system_auth system_schema system_distributed system system_traces system_views system_virtual_schema ks1 ks2") {
		names = append(names, s)
	}
	columnize(&b, names, 40)
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		assert.LessOrEqual(t, len(l), 40, "line %q", l)
	}
	assert.Equal(t, len(names), len(strings.Fields(b.String())))
	b.Reset()
	columnize(&b, nil, 80)
	assert.Equal(t, "<empty>\n", b.String())
}

func TestParseFormat(t *testing.T) {
	for _, f := range []Format{FormatTable, FormatJSON, FormatCSV} {
		g, err := ParseFormat(f.String())
		require.NoError(t, err)
		assert.Equal(t, f, g)
	}
	_, err := ParseFormat("xml")
	assert.ErrorIs(t, err, ErrUsage)
}

func BenchmarkTable(b *testing.B) {
	cols := []cql.ColumnSpec{{Name: "k", Type: types.MustParseType("int")}, {Name: "v", Type: types.MustParseType("text")}, {Name: "m", Type: types.MustParseType("map<text, int>")}}
	m, _ := types.Encode(cols[2].Type, map[string]int{"a": 1, "b": 2})
	rows := make([][][]byte, 100)
	for i := range rows {
		k, _ := types.Encode(cols[0].Type, i)
		rows[i] = [][]byte{k, []byte("hello world"), m}
	}
	var out bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		writeTable(&out, cols, formatRows(cols, rows), true, false)
	}
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&cql.Error{Code: wire.CodeInvalid, Message: "bad"}, `InvalidRequest: Error from server: code=2200 [Invalid query] message="bad"`},
		{&cql.Error{Code: wire.CodeUnauthorized, Message: "no"}, `Unauthorized: Error from server: code=2100 [Unauthorized] message="no"`},
		{&cql.Error{Code: wire.CodeSyntax, Message: "line 1:0 x"}, `SyntaxException: line 1:0 x`},
		{&cql.Error{Code: wire.CodeConfig, Message: "Keyspace 'x' doesn't exist"}, `ConfigurationException: Keyspace 'x' doesn't exist`},
		{&cql.Error{Code: wire.CodeAlreadyExists, Keyspace: "ks", Table: "t"}, `AlreadyExists: Table 'ks.t' already exists`},
		{&cql.Error{Code: wire.CodeAlreadyExists, Keyspace: "ks"}, `AlreadyExists: Keyspace 'ks' already exists`},
		{&cql.Error{Code: wire.CodeServer, Message: "boom"}, `ServerError: boom`},
		{minicass.ErrClosed, minicass.ErrClosed.Error()},
	} {
		assert.Equal(t, tc.want, errorText(tc.err))
	}
}

func TestPyRepr(t *testing.T) {
	assert.Equal(t, `'abc'`, pyRepr("abc"))
	assert.Equal(t, `"it's"`, pyRepr("it's"))
	assert.Equal(t, `'a\'b"c'`, pyRepr(`a'b"c`))
	assert.Equal(t, `'a\nb\\'`, pyRepr("a\nb\\"))
	_, err := os.Open("/nonexistent/x.cql")
	assert.Equal(t, `[Errno 2] No such file or directory: '/nonexistent/x.cql'`, pyIOError(err))
}

func TestBannerAndWarnings(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	var out, errw bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, Err: &errw, Version: "1.2.3"})
	require.NoError(t, err)
	sh.Banner(where(db))
	assert.Equal(t, "Connected to minicass at memory\n[minicass 1.2.3 | Cassandra 4.1.6 | CQL spec 3.4.6 | Native protocol v4]\nUse HELP for help.\n", out.String())

	out.Reset()
	sh.printWarnings([]string{"Aggregation query used without partition key", "second"})
	assert.Equal(t, "\nWarnings :\nAggregation query used without partition key\n\nsecond\n\n", out.String())
	sh.printWarnings(nil)
	assert.Equal(t, "\nWarnings :\nAggregation query used without partition key\n\nsecond\n\n", out.String(), "no block without warnings")

	// In JSON and CSV, stdout carries only rows: warnings go to stderr.
	out.Reset()
	sh.cfg.Format = FormatJSON
	sh.printWarnings([]string{"w"})
	assert.Empty(t, out.String())
	assert.Equal(t, "\nWarnings :\nw\n\n", errw.String())
}

// TestTerminalPaging checks paging on a terminal: every page has its header
// and trailing blank line, ---MORE--- is asked between pages, and
// answering it with end of input stops the listing.
func TestTerminalPaging(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))`))
	for c := range 5 {
		require.NoError(t, db.Exec(ctx, `INSERT INTO ks.t (k, c) VALUES (1, ?)`, c))
	}
	var out bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, TTY: true})
	require.NoError(t, err)
	asked := 0
	sh.more = func() bool { asked++; return true }
	sh.Line(ctx, "", "PAGING 2")
	out.Reset()
	sh.Line(ctx, "", "SELECT c FROM ks.t WHERE k = 1;")
	assert.Equal(t, 2, asked)
	assert.Equal(t, "\n c\n---\n 0\n 1\n\n c\n---\n 2\n 3\n\n c\n---\n 4\n\n(5 rows)\n", out.String())

	out.Reset()
	sh.more = func() bool { return false }
	sh.Line(ctx, "", "SELECT c FROM ks.t WHERE k = 1;")
	assert.Equal(t, "\n c\n---\n 0\n 1\n\n(2 rows)\n", out.String())
}

// TestInteractiveReadline runs the readline loop on a pipe: banner, a
// multi-line statement, a shell command and EXIT.
func TestInteractiveReadline(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	var out, errw bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, Err: &errw, TTY: true, Version: "x"})
	require.NoError(t, err)
	hist := filepath.Join(t.TempDir(), "history")
	in := io.NopCloser(strings.NewReader("SELECT key\nFROM system.local;\nCONSISTENCY\nSELEC;\nEXIT\nCONSISTENCY\n"))
	cfg := &readline.Config{Stdin: in, Stdout: &out, Stderr: &errw, HistoryFile: hist,
		FuncIsTerminal: func() bool { return false }}
	require.NoError(t, sh.interactive(context.Background(), in, &out, &errw, cfg))
	o := out.String()
	assert.True(t, strings.HasPrefix(o, "Connected to minicass at memory\n"), o)
	assert.Contains(t, o, " key\n-------\n local\n")
	assert.Contains(t, o, "(1 rows)\n")
	assert.Equal(t, 1, strings.Count(o, "Current consistency level is ONE."), "EXIT stops reading")
	assert.Contains(t, errw.String(), "SyntaxException: line 1:0")
	assert.NotContains(t, errw.String(), "<stdin>:", "no line prefix on a terminal")
	h, err := os.ReadFile(hist)
	require.NoError(t, err)
	assert.Contains(t, string(h), "CONSISTENCY", "history is saved")
}

func TestWidth(t *testing.T) {
	assert.Equal(t, 5, width("hello"))
	assert.Equal(t, 5, width("héllo"))
	assert.Equal(t, 4, width("日本"), "wide characters take two columns")
	assert.Equal(t, 1, width("e\u0301"), "combining accent takes none")
	var b bytes.Buffer
	cols := []cql.ColumnSpec{{Name: "k", Type: types.MustParseType("text")}}
	writeTable(&b, cols, [][]string{{"日本"}, {"abc"}}, true, false)
	assert.Equal(t, " k\n------\n 日本\n  abc\n", b.String())
}

// TestTraceFilteredScanIsShort traces an ALLOW FILTERING query over 100,000
// partitions in the shell: the trace is recorded in system_traces and
// printed in under 20 lines that say how many partitions and rows the scan
// read, where a line per partition once made it too large to record.
func TestTraceFilteredScanIsShort(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(t, db.Exec(ctx, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)"))
	const n = 100_000
	for i := 0; i < n; i++ {
		v := "y"
		if i == 4242 {
			v = "x"
		}
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)", i, v))
	}
	var out, errw bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, Err: &errw})
	require.NoError(t, err)
	sh.Execute(ctx, "TRACING ON; SELECT k FROM ks.t WHERE v = 'x' ALLOW FILTERING")
	require.False(t, sh.Failed(), errw.String())
	text := out.String()
	_, trace, ok := strings.Cut(text, "Tracing session: ")
	require.True(t, ok, text)
	lines := strings.Split(strings.TrimSpace(trace), "\n")
	assert.Less(t, len(lines), 20, trace)
	assert.Contains(t, trace, "Scanned 100000 partitions of ks.t")
	assert.Contains(t, trace, "Read 100000 live rows and 0 tombstone cells")
	assert.Contains(t, trace, "Filtered 100000 rows of 100000 partitions (ALLOW FILTERING): 1 matched, 99999 discarded")
	assert.Contains(t, text, " 4242\n")
}

// TestMainUIAndClock starts the shell with the studio and a manual clock:
// it says where the studio is, refuses a studio address other machines
// could reach, and moves the clock with CLOCK.
func TestMainUIAndClock(t *testing.T) {
	var out, errw bytes.Buffer
	code := Main([]string{"--memory", "--ui", "127.0.0.1:0", "--clock", "2024-01-15T10:00:00Z", "-e", "CLOCK +1d; CLOCK"}, strings.NewReader(""), &out, &errw, "test")
	require.Equal(t, ExitOK, code, errw.String())
	assert.Regexp(t, `^Studio: http://127\.0\.0\.1:\d+/\n$`, errw.String())
	assert.Equal(t, "Clock set to 2024-01-16 10:00:00.000000+0000\nClock: 2024-01-16 10:00:00.000000+0000 (manual clock)\n", out.String())

	out.Reset()
	errw.Reset()
	code = Main([]string{"--memory", "--ui", "0.0.0.0:7070", "-e", "CLOCK"}, strings.NewReader(""), &out, &errw, "test")
	assert.Equal(t, ExitStartup, code)
	assert.Contains(t, errw.String(), "not a loopback address")

	out.Reset()
	errw.Reset()
	code = Main([]string{"--memory", "-e", "CLOCK +1d"}, strings.NewReader(""), &out, &errw, "test")
	assert.Equal(t, ExitError, code)
	assert.Contains(t, errw.String(), "CLOCK can only move a manual clock: start the shell with --clock")
}

// TestStudioLink checks that a traced SELECT in a shell with a studio is
// followed by the address of the studio's read page, which draws it.
func TestStudioLink(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	st, err := studio.Serve(db, "127.0.0.1:0", studio.Options{})
	require.NoError(t, err)
	defer st.Close()
	var out, errw bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, Err: &errw, TTY: true, StudioURL: st.URL()})
	require.NoError(t, err)
	require.NoError(t, sh.Run(context.Background(), strings.NewReader(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE ks;
CREATE TABLE t (k int PRIMARY KEY, v text);
INSERT INTO t (k, v) VALUES (1, 'a');
SELECT * FROM t WHERE k = 1;
TRACING ON
SELECT * FROM t WHERE k = 1;
INSERT INTO t (k, v) VALUES (2, 'b');
`)))
	links := regexp.MustCompile(`Studio: (\S+)`).FindAllStringSubmatch(errw.String(), -1)
	require.Len(t, links, 1, "one link, after the traced SELECT: %s", errw.String())
	assert.Equal(t, st.URL()+"read?q=SELECT+%2A+FROM+t+WHERE+k+%3D+1%3B&table=ks.t", links[0][1])
	resp, err := http.Get(links[0][1])
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, 200, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "partition read of ks.t: k = 1")
}
