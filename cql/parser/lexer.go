package parser

import "github.com/minicass/minicass/cql/lexer"

// lex tokenizes src completely with the module's CQL lexer (package
// cql/lexer), ending with a tEOF token. It classifies identifiers as
// keywords and gives unquoted ones their lower-cased value. The first
// lexical error stops it.
func lex(src string) ([]token, *SyntaxError) {
	l := lexer.New(src)
	// Statements average a token per two or three bytes: size for that
	// rather than growing the slice several times.
	toks := make([]token, 0, len(src)/2+2)
	for {
		lt, err := l.Next()
		if err != nil {
			return nil, &SyntaxError{Line: err.Line, Column: err.Col, Msg: err.Msg}
		}
		tok := token{kind: lt.Kind, text: lt.Text, val: lt.Val, pos: lt.Pos, line: lt.Line, col: lt.Col}
		if tok.kind == tIdent {
			tok.kw = lookupKeyword(tok.text)
			if tok.kw == kwNone {
				tok.val = lexer.Lower(tok.text)
			} else {
				// The keyword's own lower-case spelling: no allocation for
				// upper-case keywords.
				tok.val = keywordText[tok.kw]
			}
		}
		toks = append(toks, tok)
		if tok.kind == tEOF {
			return toks, nil
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// keywordText is the lower-case spelling of each keyword (the keys of
// keywords), indexed by keyword.
var keywordText = func() (out [256]string) {
	for text, kw := range keywords {
		out[kw] = text
	}
	return out
}()

// lookupKeyword returns the keyword spelled by word, case-insensitively.
func lookupKeyword(word string) keyword {
	var buf [16]byte
	if len(word) > len(buf) {
		return kwNone
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return keywords[string(buf[:len(word)])]
}
