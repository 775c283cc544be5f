package parser

import (
	"strings"

	"github.com/minicass/minicass/cql/lexer"
)

// SplitStatements splits shell input into complete statements and the
// unfinished rest. It reads the input with the CQL lexer, as cqlsh does: a
// statement is complete at a ';' token (so never inside a string constant,
// a quoted identifier or a comment) and, for a statement whose first token
// is BEGIN, only at a ';' whose two tokens before are APPLY BATCH. Each
// complete statement is returned with surrounding whitespace trimmed and its
// ';' kept; pieces holding nothing but whitespace, comments and ';' are
// dropped. rest is the trimmed text after the last complete statement (""
// if it holds no token); it is all of that text when the input ends inside a
// string, a quoted identifier or a comment. Lexical errors (an unknown
// character) do not stop the split: the parser reports them.
func SplitStatements(input string) (complete []string, rest string) {
	l := lexer.New(input)
	start := 0
	content := false // the current piece has a token other than ';'
	inBatch := false
	var last [2]string // the two tokens before the current one
	ntoks := 0
	for {
		tok, err := l.Next()
		if err != nil && err.Incomplete {
			return complete, strings.TrimSpace(input[start:])
		}
		switch tok.Kind {
		case lexer.EOF:
			if !content {
				return complete, ""
			}
			return complete, strings.TrimSpace(input[start:])
		case lexer.Semicolon:
			if inBatch && !(last[0] == "apply" && last[1] == "batch") {
				last[0], last[1] = last[1], ";"
				continue
			}
			if content {
				complete = append(complete, strings.TrimSpace(input[start:tok.End()]))
			}
			start, content, inBatch, ntoks = tok.End(), false, false, 0
			last = [2]string{}
			continue
		}
		word := tok.Text
		if tok.Kind == lexer.Ident {
			word = lexer.Lower(word)
		}
		if ntoks == 0 {
			inBatch = word == "begin"
		}
		ntoks++
		content = true
		last[0], last[1] = last[1], word
	}
}
