// Package lexer turns CQL text into tokens with the rules of Cassandra's
// src/antlr/Lexer.g. It is the one lexer of the module: the parser
// (cql/parser) reads statements with it, statement splitting for scripts and
// the shell finds their ends with it, and package types reads literals and
// type strings with it, so every reader agrees on where a token starts and
// ends. It imports nothing of the module.
//
// The rules:
//
//   - whitespace and comments (-- and // to end of line, /* ... */) are skipped;
//   - unquoted identifiers (a letter followed by letters, digits and '_') are
//     case-insensitive (Token.Name lower-cases them); "quoted" identifiers keep
//     their case and use "" as the escape for '"'; keywords are identifiers
//     that the parser classifies;
//   - string constants are '...' with ” as the escape, or $$...$$ (no escapes);
//   - INTEGER is '-'? DIGIT+, FLOAT is INTEGER EXPONENT | INTEGER '.' DIGIT*
//     EXPONENT?, HEXNUMBER is 0x HEX*, UUID is the unquoted 8-4-4-4-12 form;
//     NaN and Infinity are identifiers, signed by a separate '-' token;
//   - DURATION is '-'? (DIGIT+ UNIT)+ with the case-insensitive units y, mo, w,
//     d, h, m, s, ms, us, µs, ns, or one of the ISO 8601 forms P1Y2M3DT4H5M6S,
//     P2W and P0001-02-03T04:05:06 (upper-case designators, optional '-');
//   - true and false are BOOLEAN tokens, never identifiers.
//
// Among alternatives the longest match wins; on a tie a UUID beats a number
// or a duration, and a duration beats an identifier (so an unquoted P1D is a
// duration, as in Cassandra).
package lexer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Kind is the lexical class of a token.
type Kind uint8

// The token kinds. Invalid is a character no rule matches; Next returns it
// with an error.
const (
	EOF Kind = iota
	Ident
	QuotedName
	String
	Integer
	Float
	Boolean
	UUID
	Hex
	Duration
	QMark
	LParen
	RParen
	LBracket
	RBracket
	LBrace
	RBrace
	Comma
	Semicolon
	Dot
	Colon
	Eq
	Lt
	Gt
	Lte
	Gte
	Neq
	Plus
	Minus
	Star
	Slash
	Percent
	PlusEq
	MinusEq
	Invalid
)

// kindNames are the names ANTLR uses for token types in "expecting X"
// messages (Cassandra's grammar quotes punctuation and uses symbolic names
// for everything else).
var kindNames = [...]string{
	EOF:        "EOF",
	Ident:      "IDENT",
	QuotedName: "QUOTED_NAME",
	String:     "STRING_LITERAL",
	Integer:    "INTEGER",
	Float:      "FLOAT",
	Boolean:    "BOOLEAN",
	UUID:       "UUID",
	Hex:        "HEXNUMBER",
	Duration:   "DURATION",
	QMark:      "QMARK",
	LParen:     "'('",
	RParen:     "')'",
	LBracket:   "'['",
	RBracket:   "']'",
	LBrace:     "'{'",
	RBrace:     "'}'",
	Comma:      "','",
	Semicolon:  "';'",
	Dot:        "'.'",
	Colon:      "':'",
	Eq:         "'='",
	Lt:         "'<'",
	Gt:         "'>'",
	Lte:        "'<='",
	Gte:        "'>='",
	Neq:        "'!='",
	Plus:       "'+'",
	Minus:      "'-'",
	Star:       "'*'",
	Slash:      "'/'",
	Percent:    "'%'",
	PlusEq:     "'+='",
	MinusEq:    "'-='",
	Invalid:    "INVALID",
}

// String returns the kind's ANTLR name: "IDENT", "STRING_LITERAL", "'('".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Token is one lexical token.
type Token struct {
	Kind Kind
	// Text is the exact source text, quotes included.
	Text string
	// Val is the decoded value: for a string or a quoted name the text
	// without its quotes and escapes, for every other kind Text itself
	// (identifiers as written: Name gives their case-folded form).
	Val string
	// Pos is the byte offset of the token in the input.
	Pos int
	// Line is the 1-based line of the token.
	Line int
	// Col is the 0-based character (not byte) offset of the token in its line.
	Col int
}

// End returns the byte offset just after the token.
func (t Token) End() int { return t.Pos + len(t.Text) }

// Name returns the name an identifier stands for: an unquoted identifier
// lower-cased (ASCII only, as Cassandra does), a quoted one without its
// quotes, and Val for any other kind.
func (t Token) Name() string {
	if t.Kind == Ident {
		return Lower(t.Val)
	}
	return t.Val
}

// Lower lower-cases the ASCII letters of s, allocating only when s has an
// upper-case letter.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Error is a lexical error, with ANTLR's message and position.
type Error struct {
	// Line is the 1-based line of the error.
	Line int
	// Col is the 0-based character offset of the error in its line.
	Col int
	// Msg is ANTLR's message, e.g. "no viable alternative at character '@'".
	Msg string
	// Incomplete reports that the input ended inside a string, a quoted
	// name or a comment: more input could complete the token.
	Incomplete bool
}

// Error returns "line L:C msg", as Cassandra reports lexer errors.
func (e *Error) Error() string { return fmt.Sprintf("line %d:%d %s", e.Line, e.Col, e.Msg) }

// Lexer reads the tokens of one input. The zero value is not ready: use New.
type Lexer struct {
	src  string
	pos  int
	line int
	col  int
}

// New returns a lexer at the start of src.
func New(src string) Lexer { return Lexer{src: src, line: 1} }

// Next returns the next token, and EOF tokens (Text "<EOF>") at the end.
//
// On an error Next still returns what it read and moves past it, so a
// caller may go on: an unknown character comes as an Invalid token, an empty
// quoted name "" as a QuotedName token. When the input ends inside a string,
// a quoted name or a comment (Error.Incomplete) the token is Invalid and
// holds the rest of the input from where the unfinished one starts; the
// lexer is then at the end.
func (l *Lexer) Next() (Token, *Error) {
	if tok, err := l.skipSpace(); err != nil {
		return tok, err
	}
	tok := Token{Pos: l.pos, Line: l.line, Col: l.col}
	if l.pos >= len(l.src) {
		return l.eof(), nil
	}
	start := l.pos
	c := l.src[start]
	kind, end := EOF, start
	switch {
	case c == '\'':
		return l.quoted(tok, '\'', String)
	case c == '"':
		return l.quoted(tok, '"', QuotedName)
	case c == '$' && l.peekByte(1) == '$':
		close := strings.Index(l.src[start+2:], "$$")
		if close < 0 {
			return l.incomplete(start, "mismatched character '<EOF>' expecting '$'")
		}
		end = start + 2 + close + 2
		tok.Kind, tok.Text, tok.Val = String, l.src[start:end], l.src[start+2:end-2]
		l.advance(end)
		return tok, nil
	case isDigit(c) || (c == '-' && (isDigit(l.peekByte(1)) || l.peekByte(1) == 'P')):
		kind, end = scanNumberLike(l.src, start)
		if kind == EOF {
			kind, end = scanPunct(l.src, start)
		}
	case isLetter(c):
		kind, end = scanWord(l.src, start)
	default:
		kind, end = scanPunct(l.src, start)
	}
	if kind == EOF {
		err := &Error{Line: l.line, Col: l.col, Msg: "no viable alternative at character " + charDisplay(l.src, start)}
		_, size := utf8.DecodeRuneInString(l.src[start:])
		tok.Kind, tok.Text = Invalid, l.src[start:start+size]
		tok.Val = tok.Text
		l.advance(start + size)
		return tok, err
	}
	tok.Kind = kind
	tok.Text = l.src[start:end]
	tok.Val = tok.Text
	if kind == Ident && len(tok.Text) <= 5 && (strings.EqualFold(tok.Text, "true") || strings.EqualFold(tok.Text, "false")) {
		tok.Kind = Boolean
	}
	l.advance(end)
	return tok, nil
}

// Offset returns the byte offset the lexer has read up to.
func (l *Lexer) Offset() int { return l.pos }

// Rest returns the input after the last token read.
func (l *Lexer) Rest() string { return l.src[l.pos:] }

func (l *Lexer) eof() Token {
	return Token{Kind: EOF, Text: "<EOF>", Pos: l.pos, Line: l.line, Col: l.col}
}

// incomplete returns the Invalid token from byte offset start to the end of
// the input, which ends inside a token or comment, and ANTLR's error at the
// end of the input.
func (l *Lexer) incomplete(start int, msg string) (Token, *Error) {
	tok := Token{Kind: Invalid, Text: l.src[start:], Val: l.src[start:], Pos: start, Line: l.line, Col: l.col}
	l.advance(len(l.src))
	return tok, &Error{Line: l.line, Col: l.col, Msg: msg, Incomplete: true}
}

// advance moves the cursor to byte offset end, keeping line and column.
func (l *Lexer) advance(end int) {
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

// charDisplay renders the character at byte offset at as ANTLR does.
func charDisplay(src string, at int) string {
	if at >= len(src) {
		return "'<EOF>'"
	}
	r, _ := utf8.DecodeRuneInString(src[at:])
	return "'" + string(r) + "'"
}

// skipSpace skips whitespace and comments. It returns an error, and the
// unfinished comment as an Invalid token, when a comment is not closed.
func (l *Lexer) skipSpace() (Token, *Error) {
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
				return l.incomplete(l.pos, "mismatched character '<EOF>' expecting '*'")
			}
			l.advance(l.pos + 2 + end + 2)
		default:
			return Token{}, nil
		}
	}
	return Token{}, nil
}

func (l *Lexer) peekByte(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'A' <= c&^0x20 && c&^0x20 <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }

// IsIdentChar reports whether c may follow the first letter of an unquoted
// identifier: a letter, a digit or '_'.
func IsIdentChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// quoted scans a '...' string or a "..." name with doubled-quote escapes.
func (l *Lexer) quoted(tok Token, q byte, kind Kind) (Token, *Error) {
	start := l.pos
	var sb strings.Builder
	escaped := false
	i := start + 1
	for {
		j := strings.IndexByte(l.src[i:], q)
		if j < 0 {
			return l.incomplete(start, fmt.Sprintf("mismatched character '<EOF>' expecting '%c'", q))
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
			tok.Val = sb.String()
		} else {
			tok.Val = l.src[start+1 : j]
		}
		tok.Kind = kind
		tok.Text = l.src[start : j+1]
		l.advance(j + 1)
		if kind == QuotedName && tok.Val == "" {
			return tok, &Error{Line: tok.Line, Col: tok.Col, Msg: "Invalid empty quoted identifier"}
		}
		return tok, nil
	}
}

// scanWord scans a token that starts with a letter: a UUID, an ISO duration
// or an identifier, whichever is longest (UUID, then duration, on a tie).
func scanWord(s string, start int) (Kind, int) {
	if end := scanUUID(s, start); end > 0 {
		return UUID, end
	}
	end := start + 1
	for end < len(s) && IsIdentChar(s[end]) {
		end++
	}
	if s[start] == 'P' {
		if dend := scanISODuration(s, start); dend >= end {
			return Duration, dend
		}
	}
	return Ident, end
}

// scanNumberLike scans a token starting with a digit or '-': UUID, hex blob,
// duration, float or integer, whichever is longest. It returns EOF when
// nothing matches.
func scanNumberLike(s string, start int) (Kind, int) {
	if s[start] != '-' {
		if end := scanUUID(s, start); end > 0 {
			return UUID, end
		}
		if s[start] == '0' && start+1 < len(s) && s[start+1]|0x20 == 'x' {
			end := start + 2
			for end < len(s) && isHex(s[end]) {
				end++
			}
			return Hex, end
		}
	}
	i := start
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == 'P' {
		if end := scanISODuration(s, i); end > 0 {
			return Duration, end
		}
		return EOF, start
	}
	digits := i
	for digits < len(s) && isDigit(s[digits]) {
		digits++
	}
	kind, end := Integer, digits
	// FLOAT: INTEGER EXPONENT | INTEGER '.' DIGIT* EXPONENT?; INTEGER '..' is
	// an INTEGER and a RANGE, but INTEGER '...' is a FLOAT ("1.") and a
	// RANGE, as Cql.g's FLOAT rule splits it (m[0...3.]).
	if f := digits; f+2 < len(s) && s[f] == '.' && s[f+1] == '.' && s[f+2] == '.' {
		kind, end = Float, f+1
	} else if f < len(s) && s[f] == '.' && !(f+1 < len(s) && s[f+1] == '.') {
		f++
		for f < len(s) && isDigit(s[f]) {
			f++
		}
		if e := scanExponent(s, f); e > 0 {
			f = e
		}
		kind, end = Float, f
	} else if e := scanExponent(s, digits); e > 0 {
		kind, end = Float, e
	}
	if dend := scanUnitDuration(s, i); dend > end {
		kind, end = Duration, dend
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

// scanPunct scans punctuation; it returns EOF for an unknown character.
func scanPunct(s string, start int) (Kind, int) {
	c := s[start]
	two := byte(0)
	if start+1 < len(s) {
		two = s[start+1]
	}
	switch c {
	case '?':
		return QMark, start + 1
	case '(':
		return LParen, start + 1
	case ')':
		return RParen, start + 1
	case '[':
		return LBracket, start + 1
	case ']':
		return RBracket, start + 1
	case '{':
		return LBrace, start + 1
	case '}':
		return RBrace, start + 1
	case ',':
		return Comma, start + 1
	case ';':
		return Semicolon, start + 1
	case '.':
		return Dot, start + 1
	case ':':
		return Colon, start + 1
	case '=':
		return Eq, start + 1
	case '<':
		if two == '=' {
			return Lte, start + 2
		}
		return Lt, start + 1
	case '>':
		if two == '=' {
			return Gte, start + 2
		}
		return Gt, start + 1
	case '!':
		if two == '=' {
			return Neq, start + 2
		}
	case '+':
		if two == '=' {
			return PlusEq, start + 2
		}
		return Plus, start + 1
	case '-':
		if two == '=' {
			return MinusEq, start + 2
		}
		return Minus, start + 1
	case '*':
		return Star, start + 1
	case '/':
		return Slash, start + 1
	case '%':
		return Percent, start + 1
	}
	return EOF, start
}
