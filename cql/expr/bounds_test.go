package expr

import (
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// termOf parses text as the value of a WHERE relation.
func termOf(t *testing.T, text string) parser.Expr {
	st, err := parser.Parse("SELECT * FROM t WHERE k = " + text)
	require.NoError(t, err)
	return st.(*parser.Select).Where[0].(*parser.ColumnRelation).Value
}

// TestOverloadResolutionIsLinear compiles operator chains and nested
// operations of growing length and checks that the work of overload
// resolution (overloads weighed and operand text written, CompileCtx.work)
// grows linearly with the expression: no more per operator at 900
// operators than at 100. Before the fix every operand's text was written
// at every level, and a chain of 1,000 took seconds; the count is what
// the test checks, not the time.
func TestOverloadResolutionIsLinear(t *testing.T) {
	for _, tc := range []struct {
		name string
		expr func(n int) string
	}{
		{"sum chain", func(n int) string { return "1" + strings.Repeat(" + 1", n) }},
		{"mixed chain", func(n int) string { return "1" + strings.Repeat(" * 2 - 1", n/2) }},
		{"marker chain", func(n int) string { return "(int)?" + strings.Repeat(" + (int)?", n) }},
		{"nested right", func(n int) string { return strings.Repeat("1 + (", n/2) + "1" + strings.Repeat(")", n/2) }},
		{"negations", func(n int) string { return strings.Repeat("-(", n/2) + "?" + strings.Repeat(")", n/2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perOp := func(n int) float64 {
				c := NewCompileCtx(0)
				_, err := c.CompileTerm(termOf(t, tc.expr(n)), Receiver{Name: "k", Typ: types.IntType})
				require.NoError(t, err)
				require.Positive(t, c.work)
				return float64(c.work) / float64(n)
			}
			small, large := perOp(100), perOp(900)
			assert.LessOrEqual(t, large, small*1.1, "work per operator: %.1f at 100, %.1f at 900", small, large)
		})
	}
}

// TestCompileDepthLimit checks that the compiler refuses an expression
// deeper than parser.MaxDepth that was built without the parser, as a Go
// caller of QueryStatement may build one, with an Invalid error rather
// than a stack overflow.
func TestCompileDepthLimit(t *testing.T) {
	var e parser.Expr = &parser.Constant{Kind: parser.ConstInteger, Raw: "1"}
	for range 300_000 {
		e = &parser.TupleLit{Elems: []parser.Expr{e}}
	}
	_, err := NewCompileCtx(0).CompileTerm(e, Receiver{Name: "k", Typ: types.IntType})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expression nested too deeply: more than 1000 levels")

	var sum parser.Expr = &parser.Constant{Kind: parser.ConstInteger, Raw: "1"}
	for range 300_000 {
		sum = &parser.BinaryExpr{Op: parser.OpAdd, Left: sum, Right: &parser.Constant{Kind: parser.ConstInteger, Raw: "1"}}
	}
	_, err = NewCompileCtx(0).CompileTerm(sum, Receiver{Name: "k", Typ: types.IntType})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expression nested too deeply")
}
