package types

import (
	"fmt"
	"strings"

	"github.com/minicass/minicass/cql/lexer"
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
// case-insensitive, and white space and comments are free (the text is read
// with the CQL lexer, package cql/lexer).
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
	raw, err := parseRaw(s)
	if err != nil {
		return Type{}, err
	}
	r := &resolver{raw: &raw, text: s, user: user}
	return r.resolve(raw, false)
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

// RawType is a CQL type as written, before Cassandra's rules are applied:
// the tree ParseTypeWith reads from text, and the one the executor builds
// from a parsed statement's type to resolve it without printing it first.
type RawType struct {
	// Name is a native type's name ("int", "varchar"), "list", "set", "map",
	// "tuple", or, when User is set, a user-defined type's name.
	Name string
	// Keyspace is the keyspace a user type's name is qualified with, or "".
	// Resolving ignores it: the resolver decides where names live.
	Keyspace string
	// User marks Name as a user type's name, even when it spells a native
	// name (a quoted "int").
	User bool
	// Frozen is set by frozen<...>.
	Frozen bool
	// Params are the element types of a collection or the fields of a tuple.
	Params []RawType
	// Custom is the class name of a custom type, written as a string
	// ('org.apache.cassandra.db.marshal.LexicalUUIDType'); see CustomType.
	Custom string
}

// String returns the type's CQL text, e.g. frozen<map<text, list<int>>>.
func (r RawType) String() string {
	var b strings.Builder
	r.format(&b)
	return b.String()
}

func (r RawType) format(b *strings.Builder) {
	if r.Frozen {
		b.WriteString("frozen<")
	}
	switch {
	case r.Custom != "":
		b.WriteString("'" + r.Custom + "'")
	case r.User:
		if r.Keyspace != "" {
			b.WriteString(QuoteName(r.Keyspace))
			b.WriteByte('.')
		}
		b.WriteString(QuoteName(r.Name))
	default:
		b.WriteString(r.Name)
		if len(r.Params) > 0 {
			b.WriteByte('<')
			for i, p := range r.Params {
				if i > 0 {
					b.WriteString(", ")
				}
				p.format(b)
			}
			b.WriteByte('>')
		}
	}
	if r.Frozen {
		b.WriteByte('>')
	}
}

// Resolve applies Cassandra's rules to r, as ParseTypeWith does to the type
// it reads, and resolves user type names with user (nil: none is known).
// Errors are *TypeError values that wrap ErrUnknownType, with r's text.
func (r RawType) Resolve(user func(name string) (Type, bool)) (Type, error) {
	res := &resolver{raw: &r, user: user}
	return res.resolve(r, false)
}

// parseRaw reads the text of a type into a RawType. Errors are *TypeError
// values with the whole text.
func parseRaw(s string) (RawType, error) {
	p := &typeParser{src: s, lx: lexer.New(s)}
	p.tok, _ = p.lx.Next()
	r, err := p.parse()
	if err != nil {
		return RawType{}, err
	}
	if p.tok.Kind != lexer.EOF {
		return RawType{}, p.errorf("unexpected %q", p.src[p.tok.Pos:])
	}
	return r, nil
}

// typeParser reads a type string a token at a time.
type typeParser struct {
	src string
	lx  lexer.Lexer
	tok lexer.Token // the next token
}

func (p *typeParser) errorf(format string, args ...any) error {
	return &TypeError{Reason: fmt.Sprintf(format, args...), Text: p.src}
}

func (p *typeParser) next() lexer.Token {
	tok := p.tok
	p.tok, _ = p.lx.Next()
	return tok
}

func (p *typeParser) expect(k lexer.Kind) error {
	if p.tok.Kind != k {
		return p.errorf("expected %q", strings.Trim(k.String(), "'"))
	}
	p.next()
	return nil
}

// name reads a name: an identifier (lower-cased), a quoted name, or true
// or false, which Type.String writes bare. ok is false, and nothing is
// read, at any other token.
func (p *typeParser) name() (name string, quoted, ok bool) {
	switch p.tok.Kind {
	case lexer.Ident, lexer.Boolean:
		return p.next().Name(), false, true
	case lexer.QuotedName:
		return p.next().Name(), true, true
	}
	return "", false, false
}

// params reads '<' T (',' T)* '>' with n types, or one or more when n is 0.
func (p *typeParser) params(n int) ([]RawType, error) {
	if err := p.expect(lexer.Lt); err != nil {
		return nil, err
	}
	var out []RawType
	for {
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if len(out) == n || p.tok.Kind != lexer.Comma && n == 0 {
			break
		}
		if err := p.expect(lexer.Comma); err != nil {
			return nil, err
		}
	}
	if err := p.expect(lexer.Gt); err != nil {
		return nil, err
	}
	return out, nil
}

// parse reads one type.
func (p *typeParser) parse() (RawType, error) {
	if p.tok.Kind == lexer.String {
		return RawType{Custom: p.next().Val}, nil
	}
	name, quoted, ok := p.name()
	if !ok {
		return RawType{}, p.errorf("expected a type name")
	}
	if quoted {
		return RawType{Name: name, User: true}, nil
	}
	switch name {
	case "frozen":
		inner, err := p.params(1)
		if err != nil {
			return RawType{}, err
		}
		inner[0].Frozen = true
		return inner[0], nil
	case "list", "set", "map", "tuple":
		n := map[string]int{"list": 1, "set": 1, "map": 2, "tuple": 0}[name]
		params, err := p.params(n)
		if err != nil {
			return RawType{}, err
		}
		return RawType{Name: name, Params: params}, nil
	}
	if p.tok.Kind == lexer.Dot { // keyspace.type
		p.next()
		ut, _, _ := p.name()
		return RawType{Name: ut, Keyspace: name, User: true}, nil
	}
	_, native := nativeByName[name]
	return RawType{Name: name, User: !native}, nil
}

// resolver applies Cassandra's rules to a RawType.
type resolver struct {
	raw  *RawType // the type resolved, for the text of errors
	text string   // the text it was read from, if any
	user func(name string) (Type, bool)
}

func (r *resolver) errorf(format string, args ...any) error {
	return &TypeError{Reason: fmt.Sprintf(format, args...), Text: r.source()}
}

// refusef is errorf for a type Cassandra refuses, with Cassandra's text.
func (r *resolver) refusef(format string, args ...any) error {
	return &TypeError{Reason: fmt.Sprintf(format, args...), Text: r.source(), Refused: true}
}

func (r *resolver) source() string {
	if r.text != "" {
		return r.text
	}
	return r.raw.String()
}

// resolve resolves raw; frozen reports that an enclosing frozen<> or tuple
// freezes it.
func (r *resolver) resolve(raw RawType, frozen bool) (Type, error) {
	if !raw.Frozen {
		return r.resolveUnfrozen(raw, frozen)
	}
	inner, err := r.resolveUnfrozen(raw, true)
	if err != nil {
		return Type{}, err
	}
	if !inner.IsCollection() && inner.Kind != Tuple {
		return Type{}, r.refusef("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", inner)
	}
	return inner, nil
}

// resolveUnfrozen resolves raw without its own frozen<>.
func (r *resolver) resolveUnfrozen(raw RawType, frozen bool) (Type, error) {
	if raw.Custom != "" {
		t, err := CustomType(raw.Custom)
		if err != nil {
			return Type{}, &TypeError{Reason: err.Error(), Text: r.source(), Refused: true}
		}
		return t, nil
	}
	if raw.User {
		return r.userType(raw.Name, frozen)
	}
	switch raw.Name {
	case "list", "set", "map":
		kind := map[string]Kind{"list": List, "set": Set, "map": Map}[raw.Name]
		if n := map[Kind]int{List: 1, Set: 1, Map: 2}[kind]; len(raw.Params) != n {
			return Type{}, r.errorf("%s takes %d types", raw.Name, n)
		}
		t := Type{Kind: kind, Frozen: frozen, Params: make([]Type, 0, len(raw.Params))}
		for _, rp := range raw.Params {
			elem, err := r.resolve(rp, frozen)
			if err != nil {
				return Type{}, err
			}
			t.Params = append(t.Params, elem)
		}
		for i, e := range t.Params {
			if e.UDT != nil && !e.Frozen {
				return Type{}, r.refusef("Non-frozen UDTs are not allowed inside collections: %s", raw)
			}
			if e.IsMultiCell() {
				return Type{}, r.refusef("Non-frozen collections are not allowed inside collections: %s", raw)
			}
			if e.Kind == Counter {
				return Type{}, r.refusef("Counters are not allowed inside collections: %s", raw)
			}
			if e.Kind == Duration && kind == Set {
				return Type{}, r.refusef("Durations are not allowed inside sets: %s", raw)
			}
			if e.Kind == Duration && kind == Map && i == 0 {
				return Type{}, r.refusef("Durations are not allowed as map keys: %s", t)
			}
		}
		return t, nil
	case "tuple":
		if len(raw.Params) == 0 {
			return Type{}, r.errorf("expected a type name")
		}
		t := Type{Kind: Tuple, Frozen: true}
		for _, rp := range raw.Params {
			f, err := r.resolve(rp, true)
			if err != nil {
				return Type{}, err
			}
			if f.Kind == Counter {
				return Type{}, r.refusef("counters are not allowed inside tuples")
			}
			t.Params = append(t.Params, f.Freeze())
		}
		return t, nil
	}
	if k, ok := nativeByName[raw.Name]; ok {
		return Type{Kind: k}, nil
	}
	return r.userType(raw.Name, frozen)
}

// userType resolves a user-defined type name.
func (r *resolver) userType(name string, frozen bool) (Type, error) {
	if r.user != nil {
		if t, ok := r.user(name); ok {
			if frozen {
				t = t.Freeze()
			}
			return t, nil
		}
	}
	return Type{}, r.errorf("unknown type %s", name)
}

// marshalPackage is the package of Cassandra's AbstractType classes, which
// TypeParser prefixes to a class name without a package.
const marshalPackage = "org.apache.cassandra.db.marshal."

// nativeByClass maps the AbstractType classes of the native CQL types to
// them: a custom type naming one of them is that native type, as
// CQL3Type.Custom's type is (asCQL3Type), so 'BytesType' is blob.
var nativeByClass = map[string]Kind{
	"AsciiType": Ascii, "LongType": Bigint, "BytesType": Blob, "BooleanType": Boolean,
	"CounterColumnType": Counter, "SimpleDateType": Date, "DecimalType": Decimal,
	"DoubleType": Double, "DurationType": Duration, "FloatType": Float,
	"InetAddressType": Inet, "Int32Type": Int, "ShortType": Smallint, "UTF8Type": Text,
	"TimeType": Time, "TimestampType": Timestamp, "DateType": Timestamp,
	"TimeUUIDType": TimeUUID, "ByteType": Tinyint, "UUIDType": UUID, "IntegerType": Varint,
}

// customClasses are the AbstractType classes of Cassandra 4.1 without
// parameters that are no native CQL type: a column of such a type is a
// custom type (sent on the wire as option 0x0000 with the class name).
var customClasses = map[string]bool{
	"LexicalUUIDType": true,
	"EmptyType":       true,
}

// CustomType returns the type a custom type's class name gives, as
// Cassandra's TypeParser.parse resolves it: a name without a package is in
// org.apache.cassandra.db.marshal; the class of a native type is that type
// (BytesType is blob, Int32Type int); another AbstractType of Cassandra's
// (LexicalUUIDType) is a custom type with that class name, its values kept
// as a blob's. Any other name is Cassandra's ConfigurationException text,
// "Unable to find abstract-type class '...'"; parameterized classes
// (CompositeType(...), ReversedType(...)) are not supported.
func CustomType(class string) (Type, error) {
	full := class
	if !strings.Contains(class, ".") {
		full = marshalPackage + class
	}
	if strings.ContainsAny(full, "()") {
		return Type{}, fmt.Errorf("custom types with parameters are not supported: '%s'", class)
	}
	short, ok := strings.CutPrefix(full, marshalPackage)
	if ok {
		if k, native := nativeByClass[short]; native {
			return Type{Kind: k}, nil
		}
		if customClasses[short] {
			return Type{Kind: Blob, Custom: full}, nil
		}
	}
	return Type{}, fmt.Errorf("Unable to find abstract-type class '%s'", full)
}
