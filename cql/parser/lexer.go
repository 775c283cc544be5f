package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The lexer follows Cassandra's src/antlr/Lexer.g:
//
//   - whitespace and comments (-- and // to end of line, /* ... */) are skipped;
//   - keywords are case-insensitive; unquoted identifiers (a letter followed by
//     letters, digits and '_') are lower-cased, "quoted" identifiers keep their
//     case and use "" as the escape for '"';
//   - string constants are '...' with '' as the escape, or $$...$$ (no escapes);
//   - INTEGER is '-'? DIGIT+, FLOAT is INTEGER EXPONENT | INTEGER '.' DIGIT*
//     EXPONENT?, HEXNUMBER is 0x HEX*, UUID is the unquoted 8-4-4-4-12 form;
//   - DURATION is '-'? (DIGIT+ UNIT)+ with the case-insensitive units y, mo, w,
//     d, h, m, s, ms, us, µs, ns, or one of the ISO 8601 forms P1Y2M3DT4H5M6S,
//     P2W and P0001-02-03T04:05:06 (upper-case designators, optional '-');
//   - true and false are BOOLEAN tokens, never identifiers.
//
// Among alternatives the longest match wins; on a tie a UUID beats a number
// or a duration, and a duration beats an identifier (so an unquoted P1D is a
// duration, as in Cassandra).

// lexer turns a CQL string into tokens.
type lexer struct {
	src  string
	pos  int
	line int
	col  int
}

// lex tokenizes src completely, ending with a tEOF token.
func lex(src string) ([]token, *SyntaxError) {
	l := lexer{src: src, line: 1}
	// Statements average a token per two or three bytes: size for that
	// rather than growing the slice several times.
	toks := make([]token, 0, len(src)/2+2)
	for {
		tok, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, tok)
		if tok.kind == tEOF {
			return toks, nil
		}
	}
}

// advance moves the cursor to byte offset end, keeping line and column.
func (l *lexer) advance(end int) {
	for i := l.pos; i < end; i++ {
		b := l.src[i]
		switch {
		case b == '\n':
			l.line++
			l.col = 0
		case b&0xC0 != 0x80:
			l.col++
		}
	}
	l.pos = end
}

func (l *lexer) errorf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: l.line, Column: l.col, Msg: fmt.Sprintf(format, args...)}
}

// charDisplay renders the character at the cursor as ANTLR does.
func (l *lexer) charDisplay(at int) string {
	if at >= len(l.src) {
		return "'<EOF>'"
	}
	r, _ := utf8.DecodeRuneInString(l.src[at:])
	return "'" + string(r) + "'"
}

// skipSpace skips whitespace and comments.
func (l *lexer) skipSpace() *SyntaxError {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advance(l.pos + 1)
		case c == '-' && l.peekByte(1) == '-', c == '/' && l.peekByte(1) == '/':
			end := strings.IndexByte(l.src[l.pos:], '\n')
			if end < 0 {
				l.advance(len(l.src))
			} else {
				l.advance(l.pos + end + 1)
			}
		case c == '/' && l.peekByte(1) == '*':
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				l.advance(len(l.src))
				return l.errorf("mismatched character '<EOF>' expecting '*'")
			}
			l.advance(l.pos + 2 + end + 2)
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) peekByte(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'A' <= c&^0x20 && c&^0x20 <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }
func isIdentChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// next returns the next token.
func (l *lexer) next() (token, *SyntaxError) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	tok := token{pos: l.pos, line: l.line, col: l.col}
	if l.pos >= len(l.src) {
		tok.kind = tEOF
		tok.text = "<EOF>"
		return tok, nil
	}
	start := l.pos
	c := l.src[start]
	kind, end := tEOF, start
	switch {
	case c == '\'':
		return l.lexQuoted(tok, '\'', tString)
	case c == '"':
		return l.lexQuoted(tok, '"', tQuotedIdent)
	case c == '$' && l.peekByte(1) == '$':
		close := strings.Index(l.src[start+2:], "$$")
		if close < 0 {
			l.advance(len(l.src))
			return token{}, l.errorf("mismatched character '<EOF>' expecting '$'")
		}
		end = start + 2 + close + 2
		tok.kind, tok.text, tok.val = tString, l.src[start:end], l.src[start+2:end-2]
		l.advance(end)
		return tok, nil
	case isDigit(c) || (c == '-' && (isDigit(l.peekByte(1)) || l.peekByte(1) == 'P')):
		kind, end = l.scanNumberLike(start)
		if kind == tEOF {
			kind, end = l.scanPunct(start)
		}
	case isLetter(c):
		kind, end = l.scanWord(start)
	default:
		kind, end = l.scanPunct(start)
		if kind == tEOF {
			return token{}, l.errorf("no viable alternative at character %s", l.charDisplay(start))
		}
	}
	if kind == tEOF {
		return token{}, l.errorf("no viable alternative at character %s", l.charDisplay(start))
	}
	tok.kind = kind
	tok.text = l.src[start:end]
	tok.val = tok.text
	if kind == tIdent {
		tok.kw = lookupKeyword(tok.text)
		if tok.kw == kwNone {
			if lw := toLowerASCII(tok.text); lw == "true" || lw == "false" {
				tok.kind = tBoolean
			} else {
				tok.val = lw
			}
		} else {
			// The keyword's own lower-case spelling: no allocation for
			// upper-case keywords.
			tok.val = keywordText[tok.kw]
		}
	}
	l.advance(end)
	return tok, nil
}

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

// toLowerASCII lower-cases ASCII letters, allocating only when needed.
func toLowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// lexQuoted scans a '...' string or a "..." identifier with doubled-quote escapes.
func (l *lexer) lexQuoted(tok token, q byte, kind tokenKind) (token, *SyntaxError) {
	start := l.pos
	var sb strings.Builder
	escaped := false
	i := start + 1
	for {
		j := strings.IndexByte(l.src[i:], q)
		if j < 0 {
			l.advance(len(l.src))
			return token{}, l.errorf("mismatched character '<EOF>' expecting '%c'", q)
		}
		j += i
		if j+1 < len(l.src) && l.src[j+1] == q {
			escaped = true
			sb.WriteString(l.src[i : j+1])
			i = j + 2
			continue
		}
		if escaped {
			sb.WriteString(l.src[i:j])
			tok.val = sb.String()
		} else {
			tok.val = l.src[start+1 : j]
		}
		tok.kind = kind
		tok.text = l.src[start : j+1]
		if kind == tQuotedIdent && tok.val == "" {
			return token{}, &SyntaxError{Line: tok.line, Column: tok.col,
				Msg: "Invalid empty quoted identifier"}
		}
		l.advance(j + 1)
		return tok, nil
	}
}

// scanWord scans a token that starts with a letter: a UUID, an ISO duration
// or an identifier, whichever is longest (UUID, then duration, on a tie).
func (l *lexer) scanWord(start int) (tokenKind, int) {
	if end := scanUUID(l.src, start); end > 0 {
		return tUUID, end
	}
	end := start + 1
	for end < len(l.src) && isIdentChar(l.src[end]) {
		end++
	}
	if l.src[start] == 'P' {
		if dend := scanISODuration(l.src, start); dend >= end {
			return tDuration, dend
		}
	}
	return tIdent, end
}

// scanNumberLike scans a token starting with a digit or '-': UUID, hex blob,
// duration, float or integer, whichever is longest.
func (l *lexer) scanNumberLike(start int) (tokenKind, int) {
	s := l.src
	if s[start] != '-' {
		if end := scanUUID(s, start); end > 0 {
			return tUUID, end
		}
		if s[start] == '0' && start+1 < len(s) && s[start+1]|0x20 == 'x' {
			end := start + 2
			for end < len(s) && isHex(s[end]) {
				end++
			}
			return tHex, end
		}
	}
	i := start
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == 'P' {
		if end := scanISODuration(s, i); end > 0 {
			return tDuration, end
		}
		return tEOF, start
	}
	digits := i
	for digits < len(s) && isDigit(s[digits]) {
		digits++
	}
	kind, end := tInteger, digits
	// FLOAT: INTEGER EXPONENT | INTEGER '.' DIGIT* EXPONENT?
	if f := digits; f < len(s) && s[f] == '.' && !(f+1 < len(s) && s[f+1] == '.') {
		f++
		for f < len(s) && isDigit(s[f]) {
			f++
		}
		if e := scanExponent(s, f); e > 0 {
			f = e
		}
		kind, end = tFloat, f
	} else if e := scanExponent(s, digits); e > 0 {
		kind, end = tFloat, e
	}
	if dend := scanUnitDuration(s, i); dend > end {
		kind, end = tDuration, dend
	}
	return kind, end
}

// scanExponent matches E ('+'|'-')? DIGIT+ at i and returns its end, or 0.
func scanExponent(s string, i int) int {
	if i >= len(s) || s[i]|0x20 != 'e' {
		return 0
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	d := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == d {
		return 0
	}
	return i
}

// scanUnitDuration matches (DIGIT+ UNIT)+ at i and returns its end, or 0.
func scanUnitDuration(s string, i int) int {
	end := 0
	for {
		d := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == d {
			return end
		}
		u := unitLen(s[i:])
		if u == 0 {
			return end
		}
		i += u
		end = i
	}
}

// unitLen returns the length of the duration unit at the start of s, or 0.
func unitLen(s string) int {
	if len(s) == 0 {
		return 0
	}
	at := func(i int) byte {
		if i < len(s) {
			return s[i] | 0x20
		}
		return 0
	}
	switch s[0] | 0x20 {
	case 'y', 'w', 'd', 'h', 's':
		return 1
	case 'm':
		if at(1) == 'o' || at(1) == 's' {
			return 2
		}
		return 1
	case 'u', 'n':
		if at(1) == 's' {
			return 2
		}
	}
	if strings.HasPrefix(s, "µ") && len(s) > 2 && s[2]|0x20 == 's' {
		return 3
	}
	return 0
}

// scanISODuration matches one of the ISO 8601 duration forms starting with
// 'P' at i and returns its end, or 0. At least one component is required.
func scanISODuration(s string, i int) int {
	if i >= len(s) || s[i] != 'P' {
		return 0
	}
	i++
	// Alternative format: P0001-02-03T04:05:06.
	if alt := "dddd-dd-ddTdd:dd:dd"; len(s)-i >= len(alt) {
		ok := true
		for k := 0; k < len(alt) && ok; k++ {
			switch alt[k] {
			case 'd':
				ok = isDigit(s[i+k])
			default:
				ok = s[i+k] == alt[k]
			}
		}
		if ok {
			return i + len(alt)
		}
	}
	num := func(j int, designator byte) int {
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j && k < len(s) && s[k] == designator {
			return k + 1
		}
		return 0
	}
	// Weeks: P2W.
	if e := num(i, 'W'); e > 0 {
		return e
	}
	end, parts := i, 0
	for _, d := range []byte{'Y', 'M', 'D'} {
		if e := num(end, d); e > 0 {
			end, parts = e, parts+1
		}
	}
	if end < len(s) && s[end] == 'T' {
		t, tparts := end+1, 0
		for _, d := range []byte{'H', 'M', 'S'} {
			if e := num(t, d); e > 0 {
				t, tparts = e, tparts+1
			}
		}
		if tparts > 0 {
			end, parts = t, parts+tparts
		}
	}
	if parts == 0 {
		return 0
	}
	return end
}

// scanUUID matches an unquoted 8-4-4-4-12 hex UUID at i and returns its end, or 0.
func scanUUID(s string, i int) int {
	const n = 36
	if len(s)-i < n {
		return 0
	}
	for k := 0; k < n; k++ {
		c := s[i+k]
		switch k {
		case 8, 13, 18, 23:
			if c != '-' {
				return 0
			}
		default:
			if !isHex(c) {
				return 0
			}
		}
	}
	return i + n
}

// scanPunct scans punctuation; it returns tEOF for an unknown character.
func (l *lexer) scanPunct(start int) (tokenKind, int) {
	c := l.src[start]
	two := byte(0)
	if start+1 < len(l.src) {
		two = l.src[start+1]
	}
	switch c {
	case '?':
		return tQMark, start + 1
	case '(':
		return tLParen, start + 1
	case ')':
		return tRParen, start + 1
	case '[':
		return tLBracket, start + 1
	case ']':
		return tRBracket, start + 1
	case '{':
		return tLBrace, start + 1
	case '}':
		return tRBrace, start + 1
	case ',':
		return tComma, start + 1
	case ';':
		return tSemicolon, start + 1
	case '.':
		return tDot, start + 1
	case ':':
		return tColon, start + 1
	case '=':
		return tEq, start + 1
	case '<':
		if two == '=' {
			return tLte, start + 2
		}
		return tLt, start + 1
	case '>':
		if two == '=' {
			return tGte, start + 2
		}
		return tGt, start + 1
	case '!':
		if two == '=' {
			return tNeq, start + 2
		}
	case '+':
		if two == '=' {
			return tPlusEq, start + 2
		}
		return tPlus, start + 1
	case '-':
		if two == '=' {
			return tMinusEq, start + 2
		}
		return tMinus, start + 1
	case '*':
		return tStar, start + 1
	case '/':
		return tSlash, start + 1
	case '%':
		return tPercent, start + 1
	}
	return tEOF, start
}
