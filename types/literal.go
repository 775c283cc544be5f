package types

import (
	"fmt"
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/lexer"
)

// ParseLiteral parses a whole CQL literal of type t, as written in a CQL
// statement: 42, -1.5e3, NaN, a quoted string (a quote inside doubled), $$raw$$, 0xff, true, null, a UUID,
// a duration such as 1h30m, [1, 2] for lists, {1, 2} for sets, {'a': 1}
// for maps (an empty {} is accepted for sets and maps), and (1, 'x') for
// tuples. It reads the text with the CQL lexer (package cql/lexer), so
// tokens, white space and comments are as in a statement, and converts each
// constant with FromConstant; errors wrap ErrInvalidLiteral. NaN and
// Infinity, signed or not, must be spelled so. Top-level null gives nil;
// null inside a collection is refused, inside a tuple it is a null field.
func ParseLiteral(t Type, literal string) ([]byte, error) {
	p := &litParser{src: literal, lx: lexer.New(literal)}
	p.tok, _ = p.lx.Next()
	v, err := p.value(t)
	if err != nil {
		return nil, err
	}
	if p.tok.Kind != lexer.EOF {
		return nil, p.errorf("unexpected %q after the value", p.src[p.tok.Pos:])
	}
	return v, nil
}

// litParser reads a literal a token at a time.
type litParser struct {
	src string
	lx  lexer.Lexer
	tok lexer.Token // the next token
	// pos is the offset offsets in errors are counted from: the start of
	// the token last looked at, or the end of the one last consumed.
	pos int
}

func (p *litParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s in literal %q", ErrInvalidLiteral, fmt.Sprintf(format, args...), p.src)
}

// peek returns the kind of the next token.
func (p *litParser) peek() lexer.Kind {
	p.pos = p.tok.Pos
	return p.tok.Kind
}

// consume moves past the next token and returns it.
func (p *litParser) consume() lexer.Token {
	tok := p.tok
	p.pos = tok.End()
	p.tok, _ = p.lx.Next()
	return tok
}

func (p *litParser) expect(k lexer.Kind) error {
	if p.peek() != k {
		return p.errorf("expected %q at offset %d", strings.Trim(k.String(), "'"), p.pos)
	}
	p.consume()
	return nil
}

// value parses one value of type t.
// constOfToken is the constant kind of each literal token but strings,
// whose value is the unquoted text.
var constOfToken = map[lexer.Kind]ConstKind{
	lexer.Boolean: ConstBoolean, lexer.Hex: ConstHex, lexer.UUID: ConstUUID,
	lexer.Integer: ConstInteger, lexer.Float: ConstFloat, lexer.Duration: ConstDuration,
}

func (p *litParser) value(t Type) ([]byte, error) {
	tok := p.tok
	switch p.peek() {
	case lexer.EOF:
		return nil, p.errorf("missing value")
	case lexer.LBracket, lexer.LBrace, lexer.LParen:
		return p.composite(t)
	case lexer.String:
		p.consume()
		return FromConstant(t, ConstString, tok.Val)
	case lexer.Boolean, lexer.Hex, lexer.UUID, lexer.Integer, lexer.Float, lexer.Duration:
		p.consume()
		return FromConstant(t, constOfToken[tok.Kind], tok.Text)
	case lexer.Ident:
		p.consume()
		switch {
		case strings.EqualFold(tok.Text, "null"):
			return nil, nil
		case tok.Text == "NaN" || tok.Text == "Infinity":
			return FromConstant(t, ConstFloat, tok.Text)
		}
		return nil, p.errorf("unknown constant %q", tok.Text)
	case lexer.Minus:
		p.consume()
		if n := p.tok; n.Pos == tok.End() && n.Kind == lexer.Ident && (n.Text == "NaN" || n.Text == "Infinity") {
			p.consume()
			return FromConstant(t, ConstFloat, "-"+n.Text)
		}
		return nil, p.errorf("unknown constant %q", tok.Text)
	case lexer.Invalid:
		switch {
		case strings.HasPrefix(tok.Text, "$$"):
			return nil, p.errorf("unterminated $$ string")
		case tok.Text[0] == '\'':
			return nil, p.errorf("unterminated string")
		case tok.Text[0] == '"' || strings.HasPrefix(tok.Text, "/*"):
			return nil, p.errorf("unterminated %q", tok.Text)
		}
		return nil, p.errorf("unknown constant %q", tok.Text)
	}
	return nil, p.errorf("unexpected %q at offset %d", tok.Text, p.pos)
}

// fieldName reads a user type field name: an identifier (lower-cased) or a
// double-quoted name. The words true and false, which Cassandra would
// quote, are taken as names too, since QuoteName writes them bare.
func (p *litParser) fieldName() (string, error) {
	switch p.peek() {
	case lexer.Ident, lexer.Boolean, lexer.QuotedName:
		return p.consume().Name(), nil
	case lexer.Invalid:
		if p.tok.Text[0] == '"' {
			return "", p.errorf("unterminated quoted field name")
		}
	}
	return "", p.errorf("expected a field name at offset %d", p.pos)
}

func (p *litParser) elem(t Type) ([]byte, error) {
	start := p.pos
	v, err := p.value(t)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, p.errorf("null is not supported inside collections (offset %d)", start)
	}
	return v, nil
}

func (p *litParser) composite(t Type) ([]byte, error) {
	open := p.peek()
	switch {
	case t.Kind == List && open == lexer.LBracket:
		p.consume()
		var elems [][]byte
		for p.peek() != lexer.RBracket {
			if len(elems) > 0 {
				if err := p.expect(lexer.Comma); err != nil {
					return nil, err
				}
			}
			e, err := p.elem(t.Params[0])
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		p.consume()
		return EncodeList(elems), nil
	case (t.Kind == Set || t.Kind == Map) && open == lexer.LBrace:
		p.consume()
		var keys, vals [][]byte
		for p.peek() != lexer.RBrace {
			if len(keys) > 0 {
				if err := p.expect(lexer.Comma); err != nil {
					return nil, err
				}
			}
			k, err := p.elem(t.Params[0])
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
			if t.Kind == Map {
				if err := p.expect(lexer.Colon); err != nil {
					return nil, err
				}
				v, err := p.elem(t.Params[1])
				if err != nil {
					return nil, err
				}
				vals = append(vals, v)
			}
		}
		p.consume()
		if t.Kind == Set {
			return EncodeSet(t, keys)
		}
		return EncodeMap(t, keys, vals)
	case t.UDT != nil && open == lexer.LBrace:
		// {field: value, ...}: fields by name, the others null.
		p.consume()
		fields := make([][]byte, len(t.Params))
		seen := 0
		for p.peek() != lexer.RBrace {
			if seen > 0 {
				if err := p.expect(lexer.Comma); err != nil {
					return nil, err
				}
			}
			name, err := p.fieldName()
			if err != nil {
				return nil, err
			}
			i := slices.Index(t.UDT.Fields, name)
			if i < 0 {
				return nil, p.errorf("Unknown field '%s' in value of user defined type %s", name, t.UDT.Name)
			}
			if err := p.expect(lexer.Colon); err != nil {
				return nil, err
			}
			if fields[i], err = p.value(t.Params[i]); err != nil {
				return nil, err
			}
			seen++
		}
		p.consume()
		return EncodeTuple(fields), nil
	case t.Kind == Tuple && t.UDT == nil && open == lexer.LParen:
		p.consume()
		var fields [][]byte
		for p.peek() != lexer.RParen {
			if len(fields) > 0 {
				if err := p.expect(lexer.Comma); err != nil {
					return nil, err
				}
			}
			if len(fields) == len(t.Params) {
				return nil, p.errorf("Invalid tuple literal: too many elements. Type %s expects %d but got more", t, len(t.Params))
			}
			f, err := p.value(t.Params[len(fields)])
			if err != nil {
				return nil, err
			}
			fields = append(fields, f)
		}
		p.consume()
		return EncodeTuple(fields), nil
	}
	return nil, p.errorf("Invalid %s literal for type %s", map[lexer.Kind]string{lexer.LBracket: "list", lexer.LBrace: "set or map", lexer.LParen: "tuple"}[open], t)
}
