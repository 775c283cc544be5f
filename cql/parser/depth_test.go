package parser

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested returns open repeated n times, inner, then close repeated n times.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// chain returns first followed by n copies of op+operand.
func chain(first, opOperand string, n int) string {
	return first + strings.Repeat(opOperand, n)
}

// TestDepthLimit checks that expressions and types are refused, with a
// syntax error that names the limit, exactly when they nest deeper than
// MaxDepth, whatever makes them deep: parentheses, operator chains,
// function calls, collection literals, casts, negations, element accesses
// or nested types. The 300,000-deep case is the one that exhausted the
// stack before the limit existed.
func TestDepthLimit(t *testing.T) {
	const sel = "SELECT * FROM system.local WHERE key = "
	for _, tc := range []struct {
		name string
		stmt func(n int) string
		// levels is the depth of the statement's deepest expression for n.
		levels func(n int) int
	}{
		{"parentheses", func(n int) string { return sel + nested("(", "'local'", ")", n) }, func(n int) int { return n + 1 }},
		{"sum chain", func(n int) string { return sel + chain("1", " + 1", n) }, func(n int) int { return n + 1 }},
		{"product chain", func(n int) string { return sel + chain("1", "*2", n) }, func(n int) int { return n + 1 }},
		{"mixed chain", func(n int) string { return sel + chain("1", " + 2 * 3", n/2) }, func(n int) int { return n/2 + 2 }},
		{"function calls", func(n int) string { return sel + nested("blobasint(", "0x00000001", ")", n) }, func(n int) int { return n + 1 }},
		{"lists", func(n int) string { return "INSERT INTO t (k, l) VALUES (1, " + nested("[", "1", "]", n) + ")" }, func(n int) int { return n + 1 }},
		{"sets", func(n int) string { return "INSERT INTO t (k, l) VALUES (1, " + nested("{", "1", "}", n) + ")" }, func(n int) int { return n + 1 }},
		{"negations", func(n int) string { return "SELECT " + nested("-(", "v", ")", n) + " FROM t" }, func(n int) int { return 2*n + 1 }},
		{"casts", func(n int) string { return "SELECT " + nested("cast(", "v", " AS int)", n) + " FROM t" }, func(n int) int { return n + 1 }},
		{"element accesses", func(n int) string { return "SELECT m" + strings.Repeat("['a']", n) + " FROM t" }, func(n int) int { return n + 1 }},
		{"field accesses", func(n int) string { return "SELECT u" + strings.Repeat(".f", n) + " FROM t" }, func(n int) int { return n + 1 }},
		{"types", func(n int) string {
			return "CREATE TABLE t (k int PRIMARY KEY, v " + nested("frozen<list<", "int", ">>", n/2) + ")"
		}, func(n int) int { return 2*(n/2) + 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The largest n whose depth is within the limit parses.
			n := 0
			for tc.levels(n+1) <= MaxDepth {
				n++
			}
			_, err := Parse(tc.stmt(n))
			require.NoError(t, err, "depth %d", tc.levels(n))
			for _, m := range []int{n + 1, n + 2, 10 * MaxDepth, 300_000} {
				_, err := Parse(tc.stmt(m))
				require.Error(t, err, "depth %d", tc.levels(m))
				assert.True(t, errors.Is(err, ErrSyntax))
				assert.Contains(t, err.Error(), fmt.Sprintf("expression nested too deeply: more than %d levels", MaxDepth))
			}
		})
	}
}

// height is the depth of an expression tree, computed independently of the
// parser's counters.
func height(e Expr) int {
	hs := func(es ...Expr) int {
		m := 0
		for _, x := range es {
			if x != nil {
				m = max(m, height(x))
			}
		}
		return m + 1
	}
	switch e := e.(type) {
	case *BinaryExpr:
		return hs(e.Left, e.Right)
	case *Neg:
		return hs(e.Expr)
	case *TupleLit:
		return hs(e.Elems...)
	case *ListLit:
		return hs(e.Elems...)
	case *SetLit:
		return hs(e.Elems...)
	case *FuncCall:
		return hs(e.Args...)
	case *Cast:
		return hs(e.Expr)
	case *TypeHint:
		return hs(e.Expr)
	case *MapLit:
		var es []Expr
		for _, en := range e.Entries {
			es = append(es, en.Key, en.Value)
		}
		return hs(es...)
	case *ElementAccess:
		return hs(e.Expr, e.Key, e.From, e.To)
	case *FieldAccess:
		return hs(e.Expr)
	}
	return 1
}

// TestDepthMatchesTree generates random selector expressions of depths
// around MaxDepth, each with the depth of its tree as the generator built
// it, and checks that the parser accepts exactly those at most MaxDepth
// deep, and that the tree it returns has that depth. The seed is printed.
func TestDepthMatchesTree(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	// gen returns an expression of depth at most budget, and its depth;
	// only one operand of each node is deep, so the text stays small.
	var gen func(budget int) (string, int)
	gen = func(budget int) (string, int) {
		if budget <= 2 {
			return []string{"1", "?", "'a'", "2.5"}[rnd.Intn(4)], 1 // no names: (name) would read as a type hint
		}
		switch rnd.Intn(7) {
		case 0:
			s, h := gen(budget - 1)
			return "(" + s + ")", h + 1
		case 1:
			// A chain: each operator nests the ones before it.
			n := 1 + rnd.Intn(min(budget-1, 50))
			s, h := gen(budget - n)
			var b strings.Builder
			b.WriteString(s)
			for range n {
				b.WriteString([]string{" + ", " - "}[rnd.Intn(2)])
				// A leaf operand: a chain as operand would join this one.
				r, rh := gen(1)
				b.WriteString(r)
				h = max(h, rh) + 1
			}
			return b.String(), h
		case 2:
			a, ah := gen(budget - 1)
			b, bh := gen(rnd.Intn(min(budget-1, 4)) + 1)
			return "f(" + a + ", " + b + ")", max(ah, bh) + 1
		case 3:
			s, h := gen(budget - 1)
			return "[" + s + "]", h + 1
		case 4:
			// A leaf key: (x): y would read as a type hint on a marker.
			k, _ := gen(1)
			v, vh := gen(budget - 1)
			return "{" + k + ": " + v + "}", vh + 1
		case 5:
			s, h := gen(budget - 2)
			return "-(" + s + ")", h + 2
		default:
			// "+ 1" keeps AS, a valid name, from following a parenthesis:
			// ('a') AS would read as a type hint on a column named as.
			s, h := gen(budget - 2)
			return "cast(" + s + " + 1 AS int)", h + 2
		}
	}
	accepted, refused := 0, 0
	for range 200 {
		text, want := gen(MaxDepth - 20 + rnd.Intn(40))
		st, err := Parse("SELECT " + text + " FROM t")
		if want > MaxDepth {
			require.Error(t, err, "depth %d: %s", want, text)
			require.ErrorContains(t, err, "nested too deeply")
			refused++
			continue
		}
		require.NoError(t, err, "depth %d: %s", want, text)
		require.Equal(t, want, height(st.(*Select).Exprs[0].Expr))
		accepted++
	}
	t.Logf("accepted %d, refused %d", accepted, refused)
}
