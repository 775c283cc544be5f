package tour

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/nodetool"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/studio"
	"github.com/minicass/minicass/types"
)

// Start is the time every lesson's clock starts at.
var Start = time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)

// Options configure a run of lessons. The zero value runs them in English,
// printing to nowhere, without pausing.
type Options struct {
	// Lang is the language of the text, "en" (the default) or "zh".
	Lang string
	// Out receives the lessons' text and output.
	Out io.Writer
	// UI, when set, is the loopback address (127.0.0.1:PORT) a studio
	// serves each lesson's DB on while the lesson runs; the steps then
	// link to its pages.
	UI string
	// Pause, when set, is called after each step; returning false stops
	// the tour (an interactive terminal waits for Enter there).
	Pause func() bool
}

// phrases are the tour's own words (not the lessons'), by language.
var phrases = map[string]map[string]string{
	"en": {
		"following": "Following: %s",
		"traced":    "(with TRACING ON)",
		"trace":     "Trace:",
		"repeat":    "  ... %d statements like it, for i = 0 to %d",
		"studio":    "In the studio: %s",
		"no-studio": "(with --ui, the studio draws this: page %s)",
		"pause":     "[Enter: next step, q: quit] ",
	},
	"zh": {
		"following": "对应文章：%s",
		"traced":    "（打开 TRACING）",
		"trace":     "跟踪（trace）：",
		"repeat":    "  …… 共 %d 条这样的语句，i 从 0 到 %d",
		"studio":    "在 studio 里看：%s",
		"no-studio": "（加上 --ui，studio 会画出这一步：页面 %s）",
		"pause":     "[回车：下一步，q：退出] ",
	},
}

// Phrase returns the tour's phrase key in lang (English when lang has
// none): "pause" is what an interactive tour asks between steps.
func Phrase(lang, key string) string {
	if p, ok := phrases[lang][key]; ok {
		return p
	}
	return phrases["en"][key]
}

// ErrStopped is returned when Pause stopped the tour.
var ErrStopped = errors.New("tour: stopped")

// ErrCheck marks a step whose claim did not hold (an expect line).
var ErrCheck = errors.New("tour: a step's check failed")

// RunLesson runs lesson l on a new in-memory DB; n and of number it in the
// tour (for its heading).
func RunLesson(ctx context.Context, l *Lesson, n, of int, opts Options) error {
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	clock := minicass.NewManualClock(Start)
	db, err := minicass.Open(minicass.Options{Clock: clock})
	if err != nil {
		return err
	}
	defer db.Close()
	r := &runner{l: l, opts: opts, db: db, clock: clock, sess: db.Session()}
	for _, q := range []string{
		`CREATE KEYSPACE tour WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`USE tour`,
	} {
		if err := r.sess.Exec(ctx, q); err != nil {
			return err
		}
	}
	if opts.UI != "" {
		srv, err := studio.Serve(db, opts.UI, studio.Options{})
		if err != nil {
			return err
		}
		defer srv.Close()
		r.ui = strings.TrimSuffix(srv.URL(), "/")
	}
	w := opts.Out
	fmt.Fprintf(w, "\n=== %d/%d %s (%s) ===\n", n, of, l.Title(opts.Lang), l.Name)
	if l.Source != "" {
		fmt.Fprintf(w, Phrase(opts.Lang, "following")+"\n", l.Source)
	}
	for i := range l.Steps {
		s := &l.Steps[i]
		fmt.Fprintf(w, "\n--- %d.%d ---\n", n, i+1)
		for _, p := range s.Text[opts.Lang] {
			fmt.Fprintf(w, "%s\n", p)
		}
		for _, a := range s.Actions {
			if err := r.action(ctx, a); err != nil {
				return fmt.Errorf("%s:%d: %s %s: %w", l.Name, a.Line, a.Verb, firstLine(a.Arg), err)
			}
		}
		if err := r.unexpected; err != nil {
			return fmt.Errorf("%s:%d: the step's last statement failed: %w", l.Name, s.Line, err)
		}
		if opts.Pause != nil && !opts.Pause() {
			return ErrStopped
		}
	}
	return nil
}

// runner is one lesson's run: its DB and what the last action left for the
// checks.
type runner struct {
	l     *Lesson
	opts  Options
	db    *minicass.DB
	clock *minicass.ManualClock
	sess  *minicass.Session
	ui    string

	// res and err are the last statement's result and error; out is the
	// last action's output.
	res *query.Result
	err error
	out string
	// unexpected is the last statement's error until an expect error line
	// says it was meant.
	unexpected error
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (r *runner) action(ctx context.Context, a Action) error {
	if a.Verb == "expect" {
		return r.expect(a.Arg)
	}
	if err := r.unexpected; err != nil {
		return fmt.Errorf("the statement before failed: %w", err)
	}
	var b bytes.Buffer
	err := r.do(ctx, &b, a)
	r.out = b.String()
	_, _ = r.opts.Out.Write(b.Bytes())
	return err
}

// do runs one action, printing its output to w.
func (r *runner) do(ctx context.Context, w io.Writer, a Action) error {
	switch a.Verb {
	case "cql", "trace":
		stmt := a.Arg
		fmt.Fprintf(w, "\ncqlsh:tour> %s\n", indentRest(stmt))
		if a.Verb == "trace" {
			fmt.Fprintf(w, "  %s\n", Phrase(r.opts.Lang, "traced"))
		}
		return r.statement(ctx, w, stmt, a.Verb == "trace")
	case "quiet":
		r.res, r.err = nil, nil
		rows := r.sess.Query(ctx, a.Arg)
		if err := rows.Err(); err != nil {
			return err
		}
		r.res = rows.Result()
		return nil
	case "repeat":
		ns, stmt, _ := strings.Cut(a.Arg, " ")
		n, err := strconv.Atoi(ns)
		if err != nil || n < 1 {
			return fmt.Errorf("repeat N STATEMENT, with N a count")
		}
		for i := 0; i < n; i++ {
			if err := r.sess.Exec(ctx, substitute(stmt, i)); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "\ncqlsh:tour> %s\n", indentRest(substitute(stmt, 0)))
		fmt.Fprintf(w, Phrase(r.opts.Lang, "repeat")+"\n", n, n-1)
		return nil
	case "flush", "compact":
		ks, t := r.tableName(a.Arg)
		fmt.Fprintf(w, "\n$ nodetool %s %s %s\n", a.Verb, ks, t)
		if a.Verb == "flush" {
			return r.db.Flush(ctx, ks, t)
		}
		return r.db.Compact(ctx, ks, t)
	case "nodetool":
		fmt.Fprintf(w, "\n$ nodetool %s\n", a.Arg)
		args := strings.Fields(a.Arg)
		return nodetool.Run(ctx, r.db, args[0], args[1:], w)
	case "clock":
		d, err := parseDuration(a.Arg)
		if err != nil {
			return err
		}
		r.clock.Set(r.clock.Now().Add(d))
		fmt.Fprintf(w, "\ncqlsh:tour> CLOCK %s\n", a.Arg)
		fmt.Fprintf(w, "Clock: %s\n", r.clock.Now().UTC().Format("2006-01-02 15:04:05+0000"))
		return nil
	case "dump":
		return r.dump(w, a.Arg)
	case "ring":
		return r.ring(w, a.Arg)
	case "studio":
		if r.ui != "" {
			fmt.Fprintf(w, "\n"+Phrase(r.opts.Lang, "studio")+"\n", r.ui+a.Arg)
		} else {
			fmt.Fprintf(w, "\n"+Phrase(r.opts.Lang, "no-studio")+"\n", studioPath(a.Arg))
		}
		return nil
	}
	return fmt.Errorf("unknown action %q", a.Verb)
}

// studioPath shortens a studio address for the plain text: the path and
// the table, without the statement.
func studioPath(p string) string {
	u, err := url.Parse(p)
	if err != nil {
		return p
	}
	if t := u.Query().Get("table"); t != "" {
		return u.Path + "?table=" + t
	}
	return u.Path
}

// indentRest indents the continuation lines of a statement as cqlsh's
// prompt does.
func indentRest(s string) string { return strings.ReplaceAll(s, "\n", "\n        ... ") }

var (
	substRE = regexp.MustCompile(`\{i((?:[%/+]\d+)*)(?::0(\d))?\}`)
	opRE    = regexp.MustCompile(`([%/+])(\d+)`)
)

// substitute replaces {i} in stmt, and {i} followed by operations applied
// left to right, {i%M}, {i/M}, {i+M} ({i/300+1}), zero-padded to N digits
// with :0N ({i%60:02}).
func substitute(stmt string, i int) string {
	return substRE.ReplaceAllStringFunc(stmt, func(m string) string {
		sub := substRE.FindStringSubmatch(m)
		v := i
		for _, op := range opRE.FindAllStringSubmatch(sub[1], -1) {
			n, _ := strconv.Atoi(op[2])
			switch {
			case op[1] == "%" && n > 0:
				v %= n
			case op[1] == "/" && n > 0:
				v /= n
			case op[1] == "+":
				v += n
			}
		}
		width, _ := strconv.Atoi(sub[2])
		return fmt.Sprintf("%0*d", width, v)
	})
}

// parseDuration reads +D (Go's units and d for days).
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimPrefix(s, "+")
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil {
			return 0, fmt.Errorf("clock +Nd or +DURATION: %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// statement runs stmt and prints its result as cqlsh does, and its trace.
func (r *runner) statement(ctx context.Context, w io.Writer, stmt string, traced bool) error {
	var opts []any
	if traced {
		opts = append(opts, minicass.Tracing())
	}
	rows := r.sess.Query(ctx, stmt, opts...)
	r.res, r.err = rows.Result(), rows.Err()
	r.unexpected = r.err
	if r.err != nil {
		fmt.Fprintf(w, "Error: %s\n", r.err)
		return nil // the next line must expect it (checked at the next action)
	}
	res := r.res
	if len(res.Columns) > 0 {
		writeTable(w, res.Columns, res.Rows)
	}
	for _, warn := range rows.Warnings() {
		fmt.Fprintf(w, "Warnings :\n%s\n", warn)
	}
	if traced && res.Trace != nil {
		fmt.Fprintf(w, "\n%s\n", Phrase(r.opts.Lang, "trace"))
		for _, line := range res.Trace.Activities() {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return nil
}

// writeTable prints rows as cqlsh does.
func writeTable(w io.Writer, cols []query.ColumnSpec, rows [][][]byte) {
	vals := make([][]string, len(rows))
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = textWidth(c.Name)
	}
	for i, row := range rows {
		vals[i] = make([]string, len(row))
		for j, v := range row {
			s := "null"
			if v != nil {
				s = types.Format(cols[j].Type, v)
			}
			vals[i][j] = s
			widths[j] = max(widths[j], textWidth(s))
		}
	}
	fmt.Fprintln(w)
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = strings.Repeat(" ", widths[i]-textWidth(c.Name)) + c.Name
	}
	fmt.Fprintln(w, strings.TrimRight(" "+strings.Join(parts, " | "), " "))
	for i := range cols {
		parts[i] = strings.Repeat("-", widths[i])
	}
	fmt.Fprintln(w, "-"+strings.Join(parts, "-+-")+"-")
	for _, row := range vals {
		for i, v := range row {
			parts[i] = strings.Repeat(" ", widths[i]-textWidth(v)) + v
		}
		fmt.Fprintln(w, " "+strings.Join(parts, " | "))
	}
	fmt.Fprintf(w, "\n(%d rows)\n", len(rows))
}

// textWidth is the width of s on a terminal: two columns for the wide
// characters of Chinese, one for the others.
func textWidth(s string) int {
	n := 0
	for _, c := range s {
		if c >= 0x1100 && (c <= 0x115f || c >= 0x2e80 && c <= 0xa4cf || c >= 0xac00 && c <= 0xd7a3 || c >= 0xf900 && c <= 0xfaff || c >= 0xff00 && c <= 0xff60 || c >= 0xffe0 && c <= 0xffe6) {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// tableName resolves t or ks.t (keyspace tour by default).
func (r *runner) tableName(s string) (string, string) {
	if ks, t, ok := strings.Cut(s, "."); ok {
		return ks, t
	}
	return "tour", s
}

func (r *runner) table(s string) (*schema.Table, error) {
	ks, name := r.tableName(s)
	t, ok := r.db.Engine().Table(ks, name)
	if !ok {
		return nil, fmt.Errorf("no table %s.%s", ks, name)
	}
	return t, nil
}

// dump prints a table's SSTables as sstabledump does: with a key, that
// partition in every SSTable holding it (oldest first); else the newest
// SSTable whole, or its layout.
func (r *runner) dump(w io.Writer, arg string) error {
	name, rest, _ := strings.Cut(arg, " ")
	t, err := r.table(name)
	if err != nil {
		return err
	}
	ssts := r.db.Engine().SSTables(t.Keyspace, t.Name) // newest first
	if len(ssts) == 0 {
		return fmt.Errorf("%s has no SSTable: flush it first", t.QualifiedName())
	}
	opts := sstable.DumpOptions{Now: r.clock.Now()}
	var key []byte
	flag := ""
	switch rest {
	case "":
		ssts = ssts[:1]
	case "layout":
		ssts, flag = ssts[:1], " --layout"
	default:
		if key, err = t.ParsePartitionKey(rest); err != nil {
			return err
		}
		opts.Keep = func(k []byte) bool { return bytes.Equal(k, key) }
		flag = " -k " + rest
		if strings.ContainsAny(rest, " \\'") {
			flag = " -k '" + strings.ReplaceAll(rest, "'", `'\''`) + "'"
		}
	}
	found := false
	for i := len(ssts) - 1; i >= 0; i-- {
		sst := ssts[i]
		err := r.db.Engine().InspectSSTable(t.Keyspace, t.Name, sst.Name, func(rd *sstable.Reader) error {
			if key != nil {
				if _, ok, err := rd.Get(int64(partitioner.Murmur3(key)), key); err != nil || !ok {
					return err
				}
			}
			found = true
			fmt.Fprintf(w, "\n$ sstabledump%s .../%s-<id>/%s\n", flag, t.Name, sst.Name)
			if rest == "layout" {
				return sstable.LayoutTable(w, rd, t)
			}
			err := sstable.Dump(w, rd, t, opts)
			fmt.Fprintln(w)
			return err
		})
		if err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("no SSTable of %s holds the partition %s", t.QualifiedName(), rest)
	}
	return nil
}

// The simulated ring of the ring action: 4 nodes of 8 vnodes (seed 1), as
// minicass ring --nodes 4 --vnodes 8 --rf 3 draws it.
const ringNodes, ringVnodes, ringRF = 4, 8, 3

func (r *runner) ring(w io.Writer, arg string) error {
	fields := strings.Fields(arg)
	t, err := r.table(fields[0])
	if err != nil {
		return err
	}
	var members []partitioner.Node
	for n := 0; n < ringNodes; n++ {
		members = append(members, partitioner.Node{Name: fmt.Sprintf("127.0.0.%d", n+1), DC: "datacenter1", Rack: "rack1"})
	}
	ring := partitioner.NewRing(members, ringVnodes, 1)
	// The command that draws the same ring prints these keys' lines
	// (after each node's share), given the key's types.
	var kinds []string
	for _, c := range t.PartitionKey() {
		kinds = append(kinds, c.Type.String())
	}
	keyType := ""
	if k := strings.Join(kinds, ","); k != "text" {
		keyType = " --key-type " + k
	}
	fmt.Fprintf(w, "\n$ minicass ring --nodes %d --vnodes %d --rf %d%s %s\n", ringNodes, ringVnodes, ringRF, keyType, strings.Join(fields[1:], " "))
	for _, k := range fields[1:] {
		key, err := t.ParsePartitionKey(k)
		if err != nil {
			return err
		}
		tok := partitioner.Murmur3(key)
		var names []string
		for _, n := range ring.Replicas(tok, partitioner.SimpleStrategy{RF: ringRF}) {
			names = append(names, n.Name)
		}
		fmt.Fprintf(w, "Key %s: token %d, replicas %s\n", k, int64(tok), strings.Join(names, ", "))
	}
	return nil
}
