package types

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ParseLiteral parses a whole CQL literal of type t, as written in a CQL
// statement: 42, -1.5e3, NaN, a quoted string (a quote inside doubled), $$raw$$, 0xff, true, null, a UUID,
// a duration such as 1h30m, [1, 2] for lists, {1, 2} for sets, {'a': 1}
// for maps (an empty {} is accepted for sets and maps), and (1, 'x') for
// tuples. It uses its own small lexer, independent of the CQL parser, and
// converts each constant with FromConstant; errors wrap ErrInvalidLiteral.
// Top-level null gives nil; null inside a collection is refused, inside a
// tuple it is a null field.
func ParseLiteral(t Type, literal string) ([]byte, error) {
	p := &litParser{src: literal}
	v, err := p.value(t)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, p.errorf("unexpected %q after the value", p.src[p.pos:])
	}
	return v, nil
}

type litParser struct {
	src string
	pos int
}

func (p *litParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s in literal %q", ErrInvalidLiteral, fmt.Sprintf(format, args...), p.src)
}

func (p *litParser) skipSpace() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *litParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *litParser) expect(c byte) error {
	if p.peek() != c {
		return p.errorf("expected %q at offset %d", string(c), p.pos)
	}
	p.pos++
	return nil
}

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	integerRE  = regexp.MustCompile(`^-?[0-9]+$`)
	floatRE    = regexp.MustCompile(`^-?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?$|^-?(Infinity|NaN)$`)
	hexRE      = regexp.MustCompile(`^0[xX][0-9a-fA-F]*$`)
	durationRE = regexp.MustCompile(`^-?([0-9]+[a-zA-Zµ]+)+$|^-?P[0-9A-Z:\-]*$`)
)

// value parses one value of type t.
func (p *litParser) value(t Type) ([]byte, error) {
	switch p.peek() {
	case 0:
		return nil, p.errorf("missing value")
	case '[', '{', '(':
		return p.composite(t)
	case '\'', '$':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return FromConstant(t, ConstString, s)
	}
	word := p.word()
	if word == "" {
		return nil, p.errorf("unexpected %q at offset %d", string(p.src[p.pos]), p.pos)
	}
	lower := strings.ToLower(word)
	switch {
	case lower == "null":
		return nil, nil
	case lower == "true" || lower == "false":
		return FromConstant(t, ConstBoolean, word)
	case hexRE.MatchString(word):
		return FromConstant(t, ConstHex, word)
	case uuidRE.MatchString(word):
		return FromConstant(t, ConstUUID, word)
	case integerRE.MatchString(word):
		return FromConstant(t, ConstInteger, word)
	case floatRE.MatchString(word):
		return FromConstant(t, ConstFloat, word)
	case durationRE.MatchString(word):
		return FromConstant(t, ConstDuration, word)
	}
	return nil, p.errorf("unknown constant %q", word)
}

// fieldName reads a user type field name: an identifier (lower-cased) or a
// double-quoted name.
func (p *litParser) fieldName() (string, error) {
	p.peek()
	if p.pos < len(p.src) && p.src[p.pos] == '"' {
		name, end, ok := readQuotedName(p.src, p.pos)
		if !ok {
			return "", p.errorf("unterminated quoted field name")
		}
		p.pos = end
		return name, nil
	}
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			break
		}
		p.pos++
	}
	if start == p.pos {
		return "", p.errorf("expected a field name at offset %d", start)
	}
	return strings.ToLower(p.src[start:p.pos]), nil
}

// word reads an unquoted constant: everything up to white space or one of
// , ] } ) and, except in ISO 8601 durations, ':'.
func (p *litParser) word() string {
	start := p.pos
	iso := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if strings.IndexByte(" \t\r\n,]})[{('", c) >= 0 {
			break
		}
		if c == ':' && !iso {
			break
		}
		if c == 'P' && (p.pos == start || p.pos == start+1 && p.src[start] == '-') {
			iso = true
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

// str reads a '...' string (a quote inside doubled) or a $$...$$ string.
func (p *litParser) str() (string, error) {
	if strings.HasPrefix(p.src[p.pos:], "$$") {
		end := strings.Index(p.src[p.pos+2:], "$$")
		if end < 0 {
			return "", p.errorf("unterminated $$ string")
		}
		s := p.src[p.pos+2 : p.pos+2+end]
		p.pos += end + 4
		return s, nil
	}
	if p.src[p.pos] != '\'' {
		return "", p.errorf("unexpected '$'")
	}
	var b strings.Builder
	for i := p.pos + 1; i < len(p.src); i++ {
		if p.src[i] != '\'' {
			b.WriteByte(p.src[i])
			continue
		}
		if i+1 < len(p.src) && p.src[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		p.pos = i + 1
		return b.String(), nil
	}
	return "", p.errorf("unterminated string")
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
	case t.Kind == List && open == '[':
		p.pos++
		var elems [][]byte
		for p.peek() != ']' {
			if len(elems) > 0 {
				if err := p.expect(','); err != nil {
					return nil, err
				}
			}
			e, err := p.elem(t.Params[0])
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		p.pos++
		return EncodeList(elems), nil
	case (t.Kind == Set || t.Kind == Map) && open == '{':
		p.pos++
		var keys, vals [][]byte
		for p.peek() != '}' {
			if len(keys) > 0 {
				if err := p.expect(','); err != nil {
					return nil, err
				}
			}
			k, err := p.elem(t.Params[0])
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
			if t.Kind == Map {
				if err := p.expect(':'); err != nil {
					return nil, err
				}
				v, err := p.elem(t.Params[1])
				if err != nil {
					return nil, err
				}
				vals = append(vals, v)
			}
		}
		p.pos++
		if t.Kind == Set {
			return EncodeSet(t, keys)
		}
		return EncodeMap(t, keys, vals)
	case t.UDT != nil && open == '{':
		// {field: value, ...}: fields by name, the others null.
		p.pos++
		fields := make([][]byte, len(t.Params))
		seen := 0
		for p.peek() != '}' {
			if seen > 0 {
				if err := p.expect(','); err != nil {
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
			if err := p.expect(':'); err != nil {
				return nil, err
			}
			if fields[i], err = p.value(t.Params[i]); err != nil {
				return nil, err
			}
			seen++
		}
		p.pos++
		return EncodeTuple(fields), nil
	case t.Kind == Tuple && t.UDT == nil && open == '(':
		p.pos++
		var fields [][]byte
		for p.peek() != ')' {
			if len(fields) > 0 {
				if err := p.expect(','); err != nil {
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
		p.pos++
		return EncodeTuple(fields), nil
	}
	return nil, p.errorf("Invalid %s literal for type %s", map[byte]string{'[': "list", '{': "set or map", '(': "tuple"}[open], t)
}
