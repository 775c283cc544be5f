package javaudf

import (
	"fmt"
	"strings"
)

// tokKind classifies a token of Java source.
type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tKeyword
	tInt    // integer literal; text keeps its suffix
	tFloat  // floating-point literal; text keeps its suffix
	tChar   // character literal; val holds the decoded rune
	tString // string literal; val holds the decoded text
	tOp     // operator or separator
)

// token is one lexeme. Operators are lexed one character at a time for '>'
// so that generic type arguments close cleanly; the parser joins adjacent
// '>' tokens into shift operators (end == next start).
type token struct {
	kind  tokKind
	text  string
	str   string // decoded string or char literal
	line  int
	start int
	end   int
}

var javaKeywords = map[string]bool{
	"abstract": true, "assert": true, "boolean": true, "break": true, "byte": true, "case": true,
	"catch": true, "char": true, "class": true, "const": true, "continue": true, "default": true,
	"do": true, "double": true, "else": true, "enum": true, "extends": true, "final": true,
	"finally": true, "float": true, "for": true, "goto": true, "if": true, "implements": true,
	"import": true, "instanceof": true, "int": true, "interface": true, "long": true, "native": true,
	"new": true, "package": true, "private": true, "protected": true, "public": true, "return": true,
	"short": true, "static": true, "strictfp": true, "super": true, "switch": true, "synchronized": true,
	"this": true, "throw": true, "throws": true, "transient": true, "try": true, "void": true,
	"volatile": true, "while": true, "true": true, "false": true, "null": true,
}

// ops lists the multi-character operators, longest first. '>' forms are
// left out (see token).
var ops = []string{
	"<<=", "...", "->", "::", "++", "--", "&&", "||", "==", "!=", "<=", "+=", "-=", "*=", "/=",
	"%=", "&=", "|=", "^=", "<<",
}

// lexError is a lexical problem, reported as a compile problem.
type lexError struct {
	line int
	msg  string
}

func (e *lexError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// lex splits src into tokens, ending with tEOF.
func lex(src string) ([]token, error) {
	var toks []token
	line := 1
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, &lexError{line, "Unexpected end of comment"}
			}
			line += strings.Count(src[i:i+2+j], "\n")
			i += j + 4
			continue
		}
		start := i
		switch {
		case isIdentStart(c):
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			w := src[start:i]
			k := tIdent
			if javaKeywords[w] {
				k = tKeyword
			}
			toks = append(toks, token{kind: k, text: w, line: line, start: start, end: i})
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			k, n := lexNumber(src[i:])
			i += n
			toks = append(toks, token{kind: k, text: src[start:i], line: line, start: start, end: i})
		case c == '"':
			s, n, err := lexQuoted(src[i:], '"')
			if err != "" {
				return nil, &lexError{line, err}
			}
			i += n
			toks = append(toks, token{kind: tString, text: src[start:i], str: s, line: line, start: start, end: i})
		case c == '\'':
			s, n, err := lexQuoted(src[i:], '\'')
			if err == "" && len([]rune(s)) != 1 {
				err = "Invalid character constant"
			}
			if err != "" {
				return nil, &lexError{line, err}
			}
			i += n
			toks = append(toks, token{kind: tChar, text: src[start:i], str: s, line: line, start: start, end: i})
		default:
			op := ""
			for _, o := range ops {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if !strings.ContainsRune("(){}[];,.@=><!~?:+-*/&|^%", rune(c)) {
					return nil, &lexError{line, fmt.Sprintf("Syntax error on token \"%c\", delete this token", c)}
				}
				op = string(c)
			}
			i += len(op)
			toks = append(toks, token{kind: tOp, text: op, line: line, start: start, end: i})
		}
	}
	toks = append(toks, token{kind: tEOF, line: line, start: len(src), end: len(src)})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexNumber returns the kind and length of the numeric literal at s's start.
func lexNumber(s string) (tokKind, int) {
	i := 0
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'b' || s[1] == 'B') {
		i = 2
		for i < len(s) && (isHex(s[i]) || s[i] == '_') {
			i++
		}
		if i < len(s) && (s[i] == 'l' || s[i] == 'L') {
			i++
		}
		return tInt, i
	}
	k := tInt
	for i < len(s) && (isDigit(s[i]) || s[i] == '_') {
		i++
	}
	if i < len(s) && s[i] == '.' && (i+1 >= len(s) || !isIdentStart(s[i+1]) || floatSuffixAt(s, i+1)) {
		k = tFloat
		i++
		for i < len(s) && (isDigit(s[i]) || s[i] == '_') {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			k = tFloat
			i = j
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
	}
	if i < len(s) {
		switch s[i] {
		case 'l', 'L':
			if k == tInt {
				i++
			}
		case 'f', 'F', 'd', 'D':
			k = tFloat
			i++
		}
	}
	return k, i
}

// floatSuffixAt reports whether s[i:] starts with a float suffix or an
// exponent that ends the literal (5.f, 5.d, 5.e3), rather than a member name.
func floatSuffixAt(s string, i int) bool {
	switch s[i] {
	case 'f', 'F', 'd', 'D':
		return i+1 >= len(s) || !isIdentPart(s[i+1])
	case 'e', 'E':
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		return j < len(s) && isDigit(s[j])
	}
	return false
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// lexQuoted decodes the string or char literal at s's start, returning its
// text, its length in s and a problem message ("" for none).
func lexQuoted(s string, q byte) (string, int, string) {
	var b strings.Builder
	i := 1
	for {
		if i >= len(s) || s[i] == '\n' {
			if q == '"' {
				return "", i, "String literal is not properly closed by a double-quote"
			}
			return "", i, "Invalid character constant"
		}
		c := s[i]
		if c == q {
			return b.String(), i + 1, ""
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(s) {
			return "", i, "Invalid escape sequence (valid ones are  \\b  \\t  \\n  \\f  \\r  \\\"  \\'  \\\\ )"
		}
		switch e := s[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '"', '\'', '\\':
			b.WriteByte(e)
		case 'u':
			for i < len(s) && s[i] == 'u' {
				i++
			}
			if i+4 > len(s) {
				return "", i, "Invalid unicode"
			}
			var r rune
			for _, h := range s[i : i+4] {
				if !isHex(byte(h)) {
					return "", i, "Invalid unicode"
				}
				r = r*16 + rune(hexVal(byte(h)))
			}
			b.WriteRune(r)
			i += 3
		default:
			if e >= '0' && e <= '7' {
				v := 0
				n := 0
				for n < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' && v*8+int(s[i]-'0') <= 0377 {
					v = v*8 + int(s[i]-'0')
					i++
					n++
				}
				b.WriteRune(rune(v))
				continue
			}
			return "", i, "Invalid escape sequence (valid ones are  \\b  \\t  \\n  \\f  \\r  \\\"  \\'  \\\\ )"
		}
		i++
	}
}

func hexVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}
