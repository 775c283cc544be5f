package types

import (
	"fmt"
	"strings"
)

var nativeByName = map[string]Kind{
	"ascii": Ascii, "bigint": Bigint, "blob": Blob, "boolean": Boolean,
	"counter": Counter, "date": Date, "decimal": Decimal, "double": Double,
	"duration": Duration, "float": Float, "inet": Inet, "int": Int,
	"smallint": Smallint, "text": Text, "varchar": Text, "time": Time,
	"timestamp": Timestamp, "timeuuid": TimeUUID, "tinyint": Tinyint,
	"uuid": UUID, "varint": Varint,
}

// ParseType parses a CQL type as written in CREATE TABLE or stored in
// system_schema: "int", "varchar" (an alias of text), "map<text,
// frozen<list<int>>>", "tuple<int, text>", "frozen<set<uuid>>". Names are
// case-insensitive and whitespace is free.
//
// ParseType applies Cassandra's rules (CQL3Type.Raw): frozen<> is only
// allowed on collections and tuples, a collection nested in a non-frozen
// collection must be frozen, collections cannot hold counters, sets and map
// keys cannot hold durations, and tuples freeze their fields implicitly.
// Errors wrap ErrUnknownType.
func ParseType(s string) (Type, error) { return ParseTypeWith(s, nil) }

// ParseTypeWith parses like ParseType and resolves any other name (which may
// be double-quoted or keyspace-qualified) with user, which returns the
// user-defined type of that name. A user type is frozen inside frozen<>
// and inside tuples, and must be frozen inside collections.
func ParseTypeWith(s string, user func(name string) (Type, bool)) (Type, error) {
	p := &typeParser{src: s, user: user}
	t, err := p.parse(false)
	if err != nil {
		return Type{}, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return Type{}, p.errorf("unexpected %q", p.src[p.pos:])
	}
	return t, nil
}

// MustParseType is like ParseType but panics on error. It is meant for
// tests and package-level variables with constant input.
func MustParseType(s string) Type {
	t, err := ParseType(s)
	if err != nil {
		panic(err)
	}
	return t
}

type typeParser struct {
	src  string
	pos  int
	user func(name string) (Type, bool)
}

func (p *typeParser) errorf(format string, args ...any) error {
	return &TypeError{Reason: fmt.Sprintf(format, args...), Text: p.src}
}

// refusef is errorf for a type Cassandra refuses, with Cassandra's text.
func (p *typeParser) refusef(format string, args ...any) error {
	return &TypeError{Reason: fmt.Sprintf(format, args...), Text: p.src, Refused: true}
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *typeParser) ident() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			p.pos++
			continue
		}
		break
	}
	return strings.ToLower(p.src[start:p.pos])
}

func (p *typeParser) expect(c byte) error {
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != c {
		return p.errorf("expected %q", string(c))
	}
	p.pos++
	return nil
}

func (p *typeParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

// parse reads one type; frozen reports that an enclosing frozen<> or tuple
// freezes it.
func (p *typeParser) parse(frozen bool) (Type, error) {
	if p.peek() == '"' {
		name, err := p.quoted()
		if err != nil {
			return Type{}, err
		}
		return p.userType(name, frozen)
	}
	name := p.ident()
	if name == "" {
		return Type{}, p.errorf("expected a type name")
	}
	switch name {
	case "frozen":
		if err := p.expect('<'); err != nil {
			return Type{}, err
		}
		inner, err := p.parse(true)
		if err != nil {
			return Type{}, err
		}
		if err := p.expect('>'); err != nil {
			return Type{}, err
		}
		if !inner.IsCollection() && inner.Kind != Tuple {
			return Type{}, p.refusef("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", inner)
		}
		return inner, nil
	case "list", "set", "map":
		if err := p.expect('<'); err != nil {
			return Type{}, err
		}
		n := 1
		kind := List
		if name == "set" {
			kind = Set
		} else if name == "map" {
			n, kind = 2, Map
		}
		t := Type{Kind: kind, Frozen: frozen, Params: make([]Type, 0, n)}
		for i := 0; i < n; i++ {
			if i > 0 {
				if err := p.expect(','); err != nil {
					return Type{}, err
				}
			}
			elem, err := p.parse(frozen)
			if err != nil {
				return Type{}, err
			}
			t.Params = append(t.Params, elem)
		}
		if err := p.expect('>'); err != nil {
			return Type{}, err
		}
		for i, e := range t.Params {
			if e.UDT != nil && !e.Frozen {
				return Type{}, p.refusef("Non-frozen UDTs are not allowed inside collections: %s", t)
			}
			if e.IsMultiCell() {
				return Type{}, p.refusef("Non-frozen collections are not allowed inside collections: %s", t)
			}
			if e.Kind == Counter {
				return Type{}, p.refusef("Counters are not allowed inside collections: %s", t)
			}
			if e.Kind == Duration && kind == Set {
				return Type{}, p.refusef("Durations are not allowed inside sets: %s", t)
			}
			if e.Kind == Duration && kind == Map && i == 0 {
				return Type{}, p.refusef("Durations are not allowed as map keys: %s", t)
			}
		}
		return t, nil
	case "tuple":
		if err := p.expect('<'); err != nil {
			return Type{}, err
		}
		t := Type{Kind: Tuple, Frozen: true}
		for {
			f, err := p.parse(true)
			if err != nil {
				return Type{}, err
			}
			if f.Kind == Counter {
				return Type{}, p.refusef("counters are not allowed inside tuples")
			}
			t.Params = append(t.Params, f.Freeze())
			if p.peek() == ',' {
				p.pos++
				continue
			}
			break
		}
		if err := p.expect('>'); err != nil {
			return Type{}, err
		}
		return t, nil
	}
	k, ok := nativeByName[name]
	if !ok || p.peek() == '.' {
		if p.peek() == '.' { // keyspace.type
			p.pos++
			if p.peek() == '"' {
				q, err := p.quoted()
				if err != nil {
					return Type{}, err
				}
				return p.userType(q, frozen)
			}
			name = p.ident()
		}
		return p.userType(name, frozen)
	}
	return Type{Kind: k}, nil
}

// userType resolves a user-defined type name.
func (p *typeParser) userType(name string, frozen bool) (Type, error) {
	if p.user != nil {
		if t, ok := p.user(name); ok {
			if frozen {
				t = t.Freeze()
			}
			return t, nil
		}
	}
	return Type{}, p.errorf("unknown type %s", name)
}

// quoted reads a double-quoted name.
func (p *typeParser) quoted() (string, error) {
	name, end, ok := readQuotedName(p.src, p.pos)
	if !ok {
		return "", p.errorf("unterminated quoted name")
	}
	p.pos = end
	return name, nil
}

// readQuotedName reads the double-quoted name starting at src[pos] (a
// doubled quote stands for one) and returns it and the offset after it.
func readQuotedName(src string, pos int) (name string, end int, ok bool) {
	var b strings.Builder
	for i := pos + 1; i < len(src); i++ {
		if src[i] == '"' {
			if i+1 < len(src) && src[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(src[i])
	}
	return "", 0, false
}
