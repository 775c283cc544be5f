package lexer_test

import (
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/lexer"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tokens lexes src to its end and returns the tokens before EOF and the
// errors, keeping going after errors as Next allows.
func tokens(src string) (toks []lexer.Token, errs []*lexer.Error) {
	l := lexer.New(src)
	for {
		tok, err := l.Next()
		if err != nil {
			errs = append(errs, err)
		}
		if tok.Kind == lexer.EOF {
			return toks, errs
		}
		toks = append(toks, tok)
		if err != nil && err.Incomplete {
			return toks, errs
		}
	}
}

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // kind:text, space separated
	}{
		{`SELECT "a""b" FROM t`, `IDENT:SELECT QUOTED_NAME:"a""b" IDENT:FROM IDENT:t`},
		{`'it''s' $$a;'b$$`, `STRING_LITERAL:'it''s' STRING_LITERAL:$$a;'b$$`},
		{"1e5 -1.5E-3 1. 12 -7", "FLOAT:1e5 FLOAT:-1.5E-3 FLOAT:1. INTEGER:12 INTEGER:-7"},
		{"-NaN -Infinity", "'-':- IDENT:NaN '-':- IDENT:Infinity"},
		{"0xCAFE 0x", "HEXNUMBER:0xCAFE HEXNUMBER:0x"},
		{"550e8400-e29b-41d4-a716-446655440000 deadbeef-dead-beef-dead-beefdeadbeef",
			"UUID:550e8400-e29b-41d4-a716-446655440000 UUID:deadbeef-dead-beef-dead-beefdeadbeef"},
		{"1h30m -P2W P1Y2M3DT4H5M6S P0001-02-03T04:05:06 3µs p1d", "DURATION:1h30m DURATION:-P2W DURATION:P1Y2M3DT4H5M6S DURATION:P0001-02-03T04:05:06 DURATION:3µs IDENT:p1d"},
		{"a -- c\nb // c\n/* c\n */ c", "IDENT:a IDENT:b IDENT:c"},
		{"TRUE false", "BOOLEAN:TRUE BOOLEAN:false"},
		{"a<=b!=c+=1-=2 ..", "IDENT:a '<=':<= IDENT:b '!=':!= IDENT:c '+=':+= INTEGER:1 '-=':-= INTEGER:2 '.':. '.':."},
	} {
		toks, errs := tokens(c.in)
		require.Empty(t, errs, c.in)
		var got []string
		for _, tok := range toks {
			require.Equal(t, c.in[tok.Pos:tok.End()], tok.Text, c.in)
			got = append(got, tok.Kind.String()+":"+tok.Text)
		}
		assert.Equal(t, c.want, strings.Join(got, " "), c.in)
	}
}

func TestValuesAndNames(t *testing.T) {
	toks, _ := tokens(`"Mixed""Case" MixedCase 'it''s' $$raw ''$$`)
	require.Len(t, toks, 4)
	assert.Equal(t, `Mixed"Case`, toks[0].Name())
	assert.Equal(t, "mixedcase", toks[1].Name())
	assert.Equal(t, "MixedCase", toks[1].Val)
	assert.Equal(t, "it's", toks[2].Val)
	assert.Equal(t, "raw ''", toks[3].Val)
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in, msg    string
		line, col  int
		incomplete bool
		rest       string // the text of the last token
	}{
		{"a @ b", "no viable alternative at character '@'", 1, 2, false, "b"},
		{`a "" b`, "Invalid empty quoted identifier", 1, 2, false, "b"},
		{"a 'open", "mismatched character '<EOF>' expecting '''", 1, 7, true, "'open"},
		{"a\n\"open", "mismatched character '<EOF>' expecting '\"'", 2, 5, true, `"open`},
		{"a $$open", "mismatched character '<EOF>' expecting '$'", 1, 8, true, "$$open"},
		{"a /* open", "mismatched character '<EOF>' expecting '*'", 1, 9, true, "/* open"},
	} {
		toks, errs := tokens(c.in)
		require.Len(t, errs, 1, c.in)
		assert.Equal(t, c.msg, errs[0].Msg, c.in)
		assert.Equal(t, [2]int{c.line, c.col}, [2]int{errs[0].Line, errs[0].Col}, c.in)
		assert.Equal(t, c.incomplete, errs[0].Incomplete, c.in)
		assert.Equal(t, c.rest, toks[len(toks)-1].Text, c.in)
	}
}

// TestReadersAgree checks that the parser, statement splitting and literal
// parsing, which all read with this lexer, agree on where tricky tokens
// end: a ';' or a comment marker inside a string or a quoted name is no
// statement end and no comment, and a literal reads the same text as the
// statement holding it.
func TestReadersAgree(t *testing.T) {
	for _, c := range []struct {
		typ, lit string
	}{
		{"text", `'a;b -- not a comment'`},
		{"text", `$$x; /* y */ 'z'$$`},
		{"text", `'it''s; //'`},
		{"list<text>", `['a;', $$b;$$, '--']`},
		{"map<text, int>", `{'k;': 1, 'j': -2}`},
		{"double", `1e5`},
		{"blob", `0xCAFE`},
		{"uuid", `550e8400-e29b-41d4-a716-446655440000`},
		{"duration", `-P1DT2H`},
		{"duration", `1h30m`},
		{"frozen<tuple<int, text>>", `(1, 'a;b')`},
		// -NaN and -Infinity are left out: the parser prints them as a
		// negation, "- NaN", which is no literal.
	} {
		stmt := "INSERT INTO t (k, v) VALUES (0, " + c.lit + ");"
		script := stmt + " -- ';'\n/* ; */ " + stmt + " SELECT \"a;b\" FROM t;"
		complete, rest := parser.SplitStatements(script)
		// A piece keeps the comments before its statement.
		require.Equal(t, []string{stmt, "-- ';'\n/* ; */ " + stmt, `SELECT "a;b" FROM t;`}, complete, c.lit)
		assert.Empty(t, rest, c.lit)

		st, err := parser.Parse(stmt)
		require.NoError(t, err, stmt)
		printed := st.(*parser.Insert).Values[1].String()

		ty, err := types.ParseType(c.typ)
		require.NoError(t, err, c.typ)
		want, err := types.ParseLiteral(ty, c.lit)
		require.NoError(t, err, c.lit)
		got, err := types.ParseLiteral(ty, printed)
		require.NoError(t, err, "%s printed by the parser as %s", c.lit, printed)
		assert.Equal(t, want, got, "%s printed by the parser as %s", c.lit, printed)
	}
}

// FuzzLexer checks that Next never panics, that every token's Text is the
// input at its offset, that tokens come in order without overlapping, and
// that only white space and comments lie between them.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{`SELECT "a""b", 'c''d', $$e$$ FROM t -- x`, "1e5 -NaN 0xff 1h30m P1D /* c */ ;",
		"550e8400-e29b-41d4-a716-446655440000", "'open", "/* open", "@ µs", `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		l := lexer.New(in)
		prev := 0
		for n := 0; ; n++ {
			if n > len(in)+1 {
				t.Fatalf("no EOF after %d tokens of %q", n, in)
			}
			tok, err := l.Next()
			if tok.Kind == lexer.EOF {
				if l.Offset() != len(in) {
					t.Fatalf("EOF at %d of %d in %q", l.Offset(), len(in), in)
				}
				return
			}
			if tok.Pos < prev || tok.End() > len(in) || in[tok.Pos:tok.End()] != tok.Text || tok.Text == "" {
				t.Fatalf("token %+v out of place in %q", tok, in)
			}
			gap := in[prev:tok.Pos]
			if rest, _ := tokens(gap); len(rest) != 0 {
				t.Fatalf("tokens %v skipped between %d and %d in %q", rest, prev, tok.Pos, in)
			}
			prev = tok.End()
			if err != nil && err.Incomplete {
				if tok.End() != len(in) {
					t.Fatalf("incomplete token %+v does not reach the end of %q", tok, in)
				}
				return
			}
		}
	})
}
