package sstable

import (
	"strconv"
	"unicode/utf8"
)

// jsonGen writes JSON token by token exactly as Jackson's JsonGenerator
// does with the pretty printers sstabledump installs
// (tools/JsonTransformer.java), so that Dump's output matches Cassandra's
// byte for byte, quirks included:
//
//   - pretty mode is DefaultPrettyPrinter with a CompactIndenter for objects
//     and one for arrays. Before an object entry or an array element, and
//     before the closing bracket of a non-empty container, an indenter writes
//     a newline and two spaces per nesting level, or a single space while it
//     is compact. An empty container closes as "[ ]" or "{ }". A field name
//     and its value are separated by " : ". The serializer flips the two
//     compact flags (objCompact, arrCompact) at the same points as
//     JsonTransformer, and the flags take effect at the next indentation.
//   - lines mode (sstabledump -l) is MinimalPrettyPrinter with "\n" between
//     root values: no spaces at all.
//
// Strings are escaped as Jackson does: '"', '\\', the short escapes \b \t
// \n \f \r, other control characters as \u00XX (upper-case hex); everything
// else, non-ASCII included, is written as is (UTF-8).
type jsonGen struct {
	buf        []byte
	lines      bool
	nesting    int
	objCompact bool
	arrCompact bool
	stack      []jsonCtx
	roots      int
}

// jsonCtx is one open container: whether it is an array, and how many
// values (array) or entries (object) it holds so far.
type jsonCtx struct {
	array bool
	n     int
}

func (g *jsonGen) indent(compact bool) {
	if g.lines {
		return
	}
	if compact {
		g.buf = append(g.buf, ' ')
		return
	}
	g.buf = append(g.buf, '\n')
	for i := 0; i < g.nesting; i++ {
		g.buf = append(g.buf, "  "...)
	}
}

// beforeValue writes what precedes a value in the current context: the
// root separator, an array separator and indentation, or the field/value
// separator.
func (g *jsonGen) beforeValue() {
	if len(g.stack) == 0 {
		if g.roots > 0 {
			if g.lines {
				g.buf = append(g.buf, '\n')
			} else {
				g.buf = append(g.buf, ' ')
			}
		}
		g.roots++
		return
	}
	c := &g.stack[len(g.stack)-1]
	if c.array {
		if c.n > 0 {
			g.buf = append(g.buf, ',')
		}
		g.indent(g.arrCompact)
		c.n++
		return
	}
	if g.lines {
		g.buf = append(g.buf, ':')
	} else {
		g.buf = append(g.buf, " : "...)
	}
	c.n++
}

func (g *jsonGen) field(name string) {
	c := &g.stack[len(g.stack)-1]
	if c.n > 0 {
		g.buf = append(g.buf, ',')
	}
	g.indent(g.objCompact)
	g.buf = appendJavaString(g.buf, name)
}

func (g *jsonGen) startObject() {
	g.beforeValue()
	g.buf = append(g.buf, '{')
	g.nesting++
	g.stack = append(g.stack, jsonCtx{})
}

func (g *jsonGen) endObject() {
	n := g.stack[len(g.stack)-1].n
	g.stack = g.stack[:len(g.stack)-1]
	g.nesting--
	g.closeWith(n, g.objCompact, '}')
}

func (g *jsonGen) startArray() {
	g.beforeValue()
	g.buf = append(g.buf, '[')
	g.nesting++
	g.stack = append(g.stack, jsonCtx{array: true})
}

func (g *jsonGen) endArray() {
	n := g.stack[len(g.stack)-1].n
	g.stack = g.stack[:len(g.stack)-1]
	g.nesting--
	g.closeWith(n, g.arrCompact, ']')
}

func (g *jsonGen) closeWith(n int, compact bool, c byte) {
	if !g.lines {
		if n > 0 {
			g.indent(compact)
		} else {
			g.buf = append(g.buf, ' ')
		}
	}
	g.buf = append(g.buf, c)
}

func (g *jsonGen) str(s string) {
	g.beforeValue()
	g.buf = appendJavaString(g.buf, s)
}

func (g *jsonGen) int(v int64) {
	g.beforeValue()
	g.buf = strconv.AppendInt(g.buf, v, 10)
}

func (g *jsonGen) bool(v bool) {
	g.beforeValue()
	g.buf = strconv.AppendBool(g.buf, v)
}

// raw writes an already encoded JSON value (Jackson's writeRawValue).
func (g *jsonGen) raw(v []byte) {
	g.beforeValue()
	g.buf = append(g.buf, v...)
}

// appendJavaString appends s as a JSON string escaped as Jackson does.
// Invalid UTF-8 becomes U+FFFD, as Java's decoding of the bytes would.
func appendJavaString(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		}
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
		i++
	}
	return append(dst, '"')
}
