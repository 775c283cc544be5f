package cql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
)

// The conformance harness's loops, for the Java tests whose assertions come
// from loops over thousands of generated rows (KeyCacheCqlTest's
// insertData, JsonTest.testJsonThreadSafety), which written out would make
// scripts of megabytes.
//
// A directive with each=(v:from:to, w:from:to, ...) runs once for every
// binding of the variables, nested in the order given, each over the
// half-open range [from, to) (from and to may be expressions of the outer
// variables). Each run is the directive as if written out with $(expr)
// replaced by the expression's value, in the input, its "? " values and the
// expected output; an assertion counts once per run, as the Java's loop
// calls its assert once per iteration. An expected line that starts with
// $each(v:from:to, ...) followed by a space stands for that line once per
// binding of its own variables (assertClusterRows' expected rows).
//
// Expressions are integers, variables, + - * / % on integers (Java's int
// arithmetic: / and % truncate), parentheses, 'quoted' strings, and three
// functions: oct(n) is Integer.toOctalString(n); rep(s, n) is s n times;
// strs(s, n) is the CQL list body 's0', 's1', ..., 's<n-1>' (KeyCacheCqlTest's
// makeList). An expression's value is written as decimal digits or as the
// string itself.
//
// threads=v (on rows, with each) runs the iterations of v, the first
// variable, at the same time, each on a session of its own, as the Java's
// threads do; the other variables' iterations run in order within each.

// runEach runs a directive with an each argument once per binding.
func (h *conformanceHarness) runEach(t *testing.T, d *datadriven.TestData) string {
	var specs []string
	for _, a := range d.CmdArgs {
		if a.Key == "each" {
			specs = a.Vals
		}
	}
	require.NotEmpty(t, specs, "%s: each=(v:from:to, ...)", d.Pos)
	inner := *d
	inner.CmdArgs = nil
	for _, a := range d.CmdArgs {
		if a.Key != "each" && a.Key != "threads" {
			inner.CmdArgs = append(inner.CmdArgs, a)
		}
	}
	if d.HasArg("threads") {
		require.Equal(t, "rows", d.Cmd, "%s: threads is for rows", d.Pos)
		h.runThreads(t, d, &inner, specs)
		return d.Expected
	}
	forEachBinding(t, specs, map[string]int64{}, func(env map[string]int64) {
		run := inner
		run.Input = expandTemplate(t, d.Input, env)
		run.Expected = expandExpected(t, d.Expected, env)
		h.run(t, &run)
	})
	return d.Expected
}

// runThreads runs a rows directive's iterations of its first variable at
// the same time, each on a session of its own, and tallies every run.
func (h *conformanceHarness) runThreads(t *testing.T, d, inner *datadriven.TestData, specs []string) {
	v, from, to := parseEachSpec(t, specs[0], map[string]int64{})
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failures []string
	runs, passed := 0, 0
	for n := from; n < to; n++ {
		sess := h.s.x.NewSession()
		sess.SetKeyspace(conformanceKeyspace)
		wg.Add(1)
		go func(n int64) {
			defer wg.Done()
			ctx := context.Background()
			forEachBinding(t, specs[1:], map[string]int64{v: n}, func(env map[string]int64) {
				sts := splitConformanceInput(expandTemplate(t, inner.Input, env))
				want := strings.TrimRight(expandExpected(t, inner.Expected, env), "\n")
				got := ""
				if len(sts) != 1 {
					got = "error: an assertion has one statement"
				} else if res, err := h.threadQuery(ctx, sess, sts[0]); err != nil {
					got = "error: " + errorText(err)
				} else {
					got = strings.Join(rowLines(res), "\n")
				}
				mu.Lock()
				defer mu.Unlock()
				runs++
				if got == want {
					passed++
				} else if len(failures) < 10 {
					failures = append(failures, fmt.Sprintf("%s=%d %v: expected:\n%s\ngot:\n%s", v, n, env, want, got))
				}
			})
		}(n)
	}
	wg.Wait()
	h.tally.assertions += runs
	h.tally.passed += passed
	for _, f := range failures {
		h.fail(t, "MISMATCH %s: %s: %s (threads)\n%s", d.Pos, h.method, d.Cmd, f)
	}
}

// threadQuery runs one statement on sess, preparing it when it has bind
// values, as runStatement does on the harness's session.
func (h *conformanceHarness) threadQuery(ctx context.Context, sess *Session, st conformanceStatement) (*query.Result, error) {
	text := h.substitute(strings.TrimSuffix(strings.TrimSpace(st.text), ";"))
	if !st.hasQ {
		return sess.Query(ctx, text, nil)
	}
	prep, err := sess.Prepare(ctx, text)
	if err != nil {
		return nil, err
	}
	if len(st.binds) != len(prep.Bind) {
		return nil, fmt.Errorf("%d bind values for %d markers", len(st.binds), len(prep.Bind))
	}
	values := make([]query.Value, len(st.binds))
	for i, lit := range st.binds {
		values[i] = h.bindLiteral(prep.Bind[i].Type, lit)
	}
	return sess.ExecutePrepared(ctx, prep, &query.Params{Values: values})
}

// forEachBinding calls f for every binding of specs' variables, nested in
// order, the outer bindings in env.
func forEachBinding(t *testing.T, specs []string, env map[string]int64, f func(map[string]int64)) {
	if len(specs) == 0 {
		f(env)
		return
	}
	v, from, to := parseEachSpec(t, specs[0], env)
	for n := from; n < to; n++ {
		inner := make(map[string]int64, len(env)+1)
		for k, x := range env {
			inner[k] = x
		}
		inner[v] = n
		forEachBinding(t, specs[1:], inner, f)
	}
}

// parseEachSpec reads "v:from:to", from and to being expressions of env.
func parseEachSpec(t *testing.T, spec string, env map[string]int64) (string, int64, int64) {
	parts := splitTopLevel(spec, ':')
	require.Len(t, parts, 3, "each: want v:from:to, got %q", spec)
	v := strings.TrimSpace(parts[0])
	from, err := evalInt(parts[1], env)
	require.NoError(t, err, "each %q", spec)
	to, err := evalInt(parts[2], env)
	require.NoError(t, err, "each %q", spec)
	return v, from, to
}

// expandExpected expands an expected output: its $each(...) lines, then its
// $(expr)s.
func expandExpected(t *testing.T, s string, env map[string]int64) string {
	if !strings.Contains(s, "$each(") {
		return expandTemplate(t, s, env)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if !strings.HasPrefix(line, "$each(") {
			out = append(out, expandTemplate(t, line, env))
			continue
		}
		end := matchingParen(line, len("$each"))
		require.Positive(t, end, "unbalanced %q", line)
		specs := splitTopLevel(line[len("$each("):end], ',')
		rest := strings.TrimPrefix(line[end+1:], " ")
		forEachBinding(t, specs, env, func(e map[string]int64) {
			out = append(out, expandTemplate(t, rest, e))
		})
	}
	return strings.Join(out, "\n") + "\n"
}

// expandTemplate replaces each $(expr) of s by its value in env.
func expandTemplate(t *testing.T, s string, env map[string]int64) string {
	if !strings.Contains(s, "$(") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "$(")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := matchingParen(s, i+1)
		require.Positive(t, end, "unbalanced $( in %q", s)
		v, err := evalTemplate(s[i+2:end], env)
		require.NoError(t, err, "$(%s)", s[i+2:end])
		b.WriteString(s[:i])
		b.WriteString(v.String())
		s = s[end+1:]
	}
}

// matchingParen returns the index of the ')' that closes the '(' at open,
// skipping quoted strings, or -1.
func matchingParen(s string, open int) int {
	depth, quoted := 0, false
	for i := open; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTopLevel splits s at the seps outside parentheses and quotes.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// templateValue is an expression's value: an integer or a string.
type templateValue struct {
	n     int64
	s     string
	isStr bool
}

func (v templateValue) String() string {
	if v.isStr {
		return v.s
	}
	return strconv.FormatInt(v.n, 10)
}

func evalInt(src string, env map[string]int64) (int64, error) {
	v, err := evalTemplate(src, env)
	if err != nil {
		return 0, err
	}
	if v.isStr {
		return 0, fmt.Errorf("%q is a string, not an integer", src)
	}
	return v.n, nil
}

// evalTemplate evaluates an expression of the template language.
func evalTemplate(src string, env map[string]int64) (templateValue, error) {
	e := &templateExpr{src: src, env: env}
	v, err := e.sum()
	if err != nil {
		return v, err
	}
	if e.skip(); e.i != len(e.src) {
		return v, fmt.Errorf("unexpected %q in %q", e.src[e.i:], src)
	}
	return v, nil
}

// templateExpr is a recursive-descent evaluator over src.
type templateExpr struct {
	src string
	i   int
	env map[string]int64
}

func (e *templateExpr) skip() {
	for e.i < len(e.src) && e.src[e.i] == ' ' {
		e.i++
	}
}

func (e *templateExpr) peek() byte {
	if e.skip(); e.i < len(e.src) {
		return e.src[e.i]
	}
	return 0
}

func (e *templateExpr) sum() (templateValue, error) {
	return e.binary("+-", e.product)
}

func (e *templateExpr) product() (templateValue, error) {
	return e.binary("*/%", e.operand)
}

// binary evaluates operand (op operand)* for the operators in ops, left to
// right, on integers.
func (e *templateExpr) binary(ops string, operand func() (templateValue, error)) (templateValue, error) {
	l, err := operand()
	if err != nil {
		return l, err
	}
	for {
		op := e.peek()
		if op == 0 || !strings.ContainsRune(ops, rune(op)) {
			return l, nil
		}
		e.i++
		r, err := operand()
		if err != nil {
			return r, err
		}
		if l.isStr || r.isStr {
			return l, fmt.Errorf("%c on a string in %q", op, e.src)
		}
		switch op {
		case '+':
			l.n += r.n
		case '-':
			l.n -= r.n
		case '*':
			l.n *= r.n
		case '/', '%':
			if r.n == 0 {
				return l, fmt.Errorf("division by zero in %q", e.src)
			}
			if op == '/' {
				l.n /= r.n
			} else {
				l.n %= r.n
			}
		}
	}
}

func (e *templateExpr) operand() (templateValue, error) {
	c := e.peek()
	switch {
	case c == '(':
		e.i++
		v, err := e.sum()
		if err != nil {
			return v, err
		}
		if e.peek() != ')' {
			return v, fmt.Errorf("missing ) in %q", e.src)
		}
		e.i++
		return v, nil
	case c == '\'':
		end := strings.IndexByte(e.src[e.i+1:], '\'')
		if end < 0 {
			return templateValue{}, fmt.Errorf("unterminated string in %q", e.src)
		}
		s := e.src[e.i+1 : e.i+1+end]
		e.i += end + 2
		return templateValue{s: s, isStr: true}, nil
	case c >= '0' && c <= '9':
		start := e.i
		for e.i < len(e.src) && e.src[e.i] >= '0' && e.src[e.i] <= '9' {
			e.i++
		}
		n, err := strconv.ParseInt(e.src[start:e.i], 10, 64)
		return templateValue{n: n}, err
	case c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		start := e.i
		for e.i < len(e.src) && (e.src[e.i] == '_' || (e.src[e.i]|0x20 >= 'a' && e.src[e.i]|0x20 <= 'z') || (e.src[e.i] >= '0' && e.src[e.i] <= '9')) {
			e.i++
		}
		name := e.src[start:e.i]
		if e.peek() == '(' {
			return e.call(name)
		}
		n, ok := e.env[name]
		if !ok {
			return templateValue{}, fmt.Errorf("unknown variable %s in %q", name, e.src)
		}
		return templateValue{n: n}, nil
	}
	return templateValue{}, fmt.Errorf("unexpected %q in %q", e.src[e.i:], e.src)
}

// call evaluates a function call, its '(' next.
func (e *templateExpr) call(name string) (templateValue, error) {
	e.i++
	var args []templateValue
	for e.peek() != ')' {
		a, err := e.sum()
		if err != nil {
			return a, err
		}
		args = append(args, a)
		if e.peek() == ',' {
			e.i++
		} else if e.peek() != ')' {
			return a, fmt.Errorf("missing ) in %q", e.src)
		}
	}
	e.i++
	argErr := fmt.Errorf("bad arguments to %s in %q", name, e.src)
	switch name {
	case "oct":
		if len(args) != 1 || args[0].isStr || args[0].n < 0 {
			return templateValue{}, argErr
		}
		return templateValue{s: strconv.FormatInt(args[0].n, 8), isStr: true}, nil
	case "rep":
		if len(args) != 2 || !args[0].isStr || args[1].isStr || args[1].n < 0 {
			return templateValue{}, argErr
		}
		return templateValue{s: strings.Repeat(args[0].s, int(args[1].n)), isStr: true}, nil
	case "strs":
		if len(args) != 2 || args[1].isStr || args[1].n < 0 {
			return templateValue{}, argErr
		}
		elems := make([]string, args[1].n)
		for k := range elems {
			elems[k] = "'" + args[0].String() + strconv.Itoa(k) + "'"
		}
		return templateValue{s: strings.Join(elems, ", "), isStr: true}, nil
	}
	return templateValue{}, fmt.Errorf("unknown function %s in %q", name, e.src)
}

// TestConformanceTemplates checks the loop templates' expressions.
func TestConformanceTemplates(t *testing.T) {
	env := map[string]int64{"i": 9, "c": 3}
	for src, want := range map[string]string{
		"i":               "9",
		"i+1":             "10",
		"2+i*c":           "29",
		"(2+i)*c":         "33",
		"i/2 - i%2":       "3",
		"oct(i)":          "11",
		"rep('ab', 3)":    "ababab",
		"strs(oct(i), 3)": "'110', '111', '112'",
	} {
		v, err := evalTemplate(src, env)
		require.NoError(t, err, src)
		require.Equal(t, want, v.String(), src)
	}
	require.Equal(t, "k = 9-3 {'a': 1}", expandTemplate(t, "k = $(i)-$(c) {'a': 1}", env))
	require.Equal(t, "0 | 9\n1 | 9\nend\n", expandExpected(t, "$each(j:0:c-1) $(j) | $(i)\nend\n", env))
	var got []string
	forEachBinding(t, []string{"a:0:2", "b:a:2"}, map[string]int64{}, func(e map[string]int64) {
		got = append(got, fmt.Sprintf("%d%d", e["a"], e["b"]))
	})
	require.Equal(t, []string{"00", "01", "11"}, got)
	for _, bad := range []string{"x", "1/0", "oct('a')", "(1", "1 2", "nope(1)"} {
		_, err := evalTemplate(bad, env)
		require.Error(t, err, bad)
	}
}
