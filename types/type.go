package types

import (
	"slices"
	"strings"
)

// Kind identifies a CQL type. The numeric values are minicass's own and are not
// part of any file format; the native-protocol type id is given by ProtocolID.
type Kind uint8

// The CQL types minicass supports.
const (
	Invalid Kind = iota
	Ascii
	Text // also spelled varchar
	Int
	Bigint
	Smallint
	Tinyint
	Varint
	Float
	Double
	Decimal
	Boolean
	UUID
	TimeUUID
	Timestamp
	Date
	Time
	Duration
	Blob
	Inet
	Counter
	List
	Set
	Map
	Tuple
)

var kindNames = [...]string{
	Invalid:   "invalid",
	Ascii:     "ascii",
	Text:      "text",
	Int:       "int",
	Bigint:    "bigint",
	Smallint:  "smallint",
	Tinyint:   "tinyint",
	Varint:    "varint",
	Float:     "float",
	Double:    "double",
	Decimal:   "decimal",
	Boolean:   "boolean",
	UUID:      "uuid",
	TimeUUID:  "timeuuid",
	Timestamp: "timestamp",
	Date:      "date",
	Time:      "time",
	Duration:  "duration",
	Blob:      "blob",
	Inet:      "inet",
	Counter:   "counter",
	List:      "list",
	Set:       "set",
	Map:       "map",
	Tuple:     "tuple",
}

// String returns the CQL name of the kind, e.g. "bigint" or "map".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// protocolIDs maps kinds to the native protocol v4 [option] ids
// (doc/native_protocol_v4.spec section 4.2.5.2).
var protocolIDs = [...]uint16{
	Ascii:     0x0001,
	Bigint:    0x0002,
	Blob:      0x0003,
	Boolean:   0x0004,
	Counter:   0x0005,
	Decimal:   0x0006,
	Double:    0x0007,
	Float:     0x0008,
	Int:       0x0009,
	Timestamp: 0x000B,
	UUID:      0x000C,
	Text:      0x000D,
	Varint:    0x000E,
	TimeUUID:  0x000F,
	Inet:      0x0010,
	Date:      0x0011,
	Time:      0x0012,
	Smallint:  0x0013,
	Tinyint:   0x0014,
	Duration:  0x0015,
	List:      0x0020,
	Map:       0x0021,
	Set:       0x0022,
	Tuple:     0x0031,
}

// ProtocolID returns the native protocol v4 type id of the kind. Duration has
// no v4 id of its own; Cassandra sends it as a custom type (0x0000) named
// org.apache.cassandra.db.marshal.DurationType, which callers handle.
func (k Kind) ProtocolID() uint16 {
	if int(k) < len(protocolIDs) {
		return protocolIDs[k]
	}
	return 0
}

// Type is a CQL type. Scalar types have no Params. List and Set have one
// parameter (the element type), Map two (key, value), and Tuple one per field.
// Frozen is set for frozen collections; tuples are always frozen.
//
// Type is a small value type: copy it freely and compare with Equal.
type Type struct {
	Kind   Kind
	Frozen bool
	Params []Type
	// UDT is set for a user-defined type: a Tuple whose fields (Params)
	// have names. Its values are serialized, compared and keyed as tuples;
	// a user type that is not frozen is stored as a cell per field (see
	// FieldPath).
	UDT *UserType
	// Custom is set for a custom type, given by the class name of its
	// Cassandra AbstractType (CQL3Type.Custom, e.g.
	// org.apache.cassandra.db.marshal.LexicalUUIDType), whose values
	// minicass keeps, compares and prints as those of a blob (Kind is
	// Blob). CustomType returns it.
	Custom string
}

// UserType names a user-defined type and its fields.
type UserType struct {
	Keyspace string
	Name     string
	Fields   []string
	// MultiCell[i] reports whether field i was declared as a non-frozen
	// collection (CREATE TYPE t (s set<int>)). minicass stores and serializes
	// every field frozen, but Cassandra's UserType keeps such a field
	// multi-cell, and CreateTableStatement refuses a non-frozen column of a
	// type that has one. It is nil when no field was so declared.
	MultiCell []bool
}

// UserTypeOf returns the user type ut with field types fields (frozen, as a
// field always is), frozen if frozen is true. A field given as a non-frozen
// collection, or already marked in ut.MultiCell, is marked there.
func UserTypeOf(ut *UserType, fields []Type, frozen bool) Type {
	params := make([]Type, len(fields))
	var multi []bool
	for i, f := range fields {
		if (i < len(ut.MultiCell) && ut.MultiCell[i]) || (f.IsCollection() && !f.Frozen) {
			if multi == nil {
				multi = make([]bool, len(fields))
			}
			multi[i] = true
		}
		params[i] = f.Freeze()
	}
	ut.MultiCell = multi
	return Type{Kind: Tuple, Frozen: frozen, Params: params, UDT: ut}
}

// HasMultiCellField reports whether a field of the user type was declared as a
// non-frozen collection.
func (ut *UserType) HasMultiCellField() bool { return slices.Contains(ut.MultiCell, true) }

// DeclaredField returns the type of field i of user type t as CREATE TYPE
// declared it: its stored frozen type, unfrozen when the field was declared a
// non-frozen collection.
func (t Type) DeclaredField(i int) Type {
	f := t.Params[i]
	if t.UDT != nil && i < len(t.UDT.MultiCell) && t.UDT.MultiCell[i] {
		f.Frozen = false
	}
	return f
}

// IsUDT reports whether t is a user-defined type.
func (t Type) IsUDT() bool { return t.UDT != nil }

// WithoutUDTs returns t with every user-defined type in it replaced by the
// frozen tuple of its fields, as Cassandra records the type of a dropped
// column (the user type may be dropped later).
func (t Type) WithoutUDTs() Type {
	if len(t.Params) == 0 {
		return t
	}
	params := make([]Type, len(t.Params))
	for i, p := range t.Params {
		params[i] = p.WithoutUDTs()
	}
	t.Params = params
	if t.UDT != nil {
		t.UDT, t.Frozen = nil, true
	}
	return t
}

// Predefined scalar types, for convenience.
var (
	AsciiType     = Type{Kind: Ascii}
	TextType      = Type{Kind: Text}
	IntType       = Type{Kind: Int}
	BigintType    = Type{Kind: Bigint}
	SmallintType  = Type{Kind: Smallint}
	TinyintType   = Type{Kind: Tinyint}
	VarintType    = Type{Kind: Varint}
	FloatType     = Type{Kind: Float}
	DoubleType    = Type{Kind: Double}
	DecimalType   = Type{Kind: Decimal}
	BooleanType   = Type{Kind: Boolean}
	UUIDType      = Type{Kind: UUID}
	TimeUUIDType  = Type{Kind: TimeUUID}
	TimestampType = Type{Kind: Timestamp}
	DateType      = Type{Kind: Date}
	TimeType      = Type{Kind: Time}
	DurationType  = Type{Kind: Duration}
	BlobType      = Type{Kind: Blob}
	InetType      = Type{Kind: Inet}
	CounterType   = Type{Kind: Counter}
)

// ListOf returns the type list<elem> (frozen if frozen is true). A
// collection element is always frozen, so elem is frozen if it is a
// collection.
func ListOf(elem Type, frozen bool) Type {
	return Type{Kind: List, Frozen: frozen, Params: []Type{elem.Freeze()}}
}

// SetOf returns the type set<elem> (frozen if frozen is true), with elem
// frozen.
func SetOf(elem Type, frozen bool) Type {
	return Type{Kind: Set, Frozen: frozen, Params: []Type{elem.Freeze()}}
}

// MapOf returns the type map<key, value> (frozen if frozen is true), with
// key and value frozen.
func MapOf(key, value Type, frozen bool) Type {
	return Type{Kind: Map, Frozen: frozen, Params: []Type{key.Freeze(), value.Freeze()}}
}

// TupleOf returns the type tuple<fields...>, with the fields frozen. Tuples
// are always frozen.
func TupleOf(fields ...Type) Type {
	params := make([]Type, len(fields))
	for i, f := range fields {
		params[i] = f.Freeze()
	}
	return Type{Kind: Tuple, Frozen: true, Params: params}
}

// IsCollection reports whether t is a list, set or map.
func (t Type) IsCollection() bool {
	return t.Kind == List || t.Kind == Set || t.Kind == Map
}

// IsMultiCell reports whether values of t are stored as one cell per element
// or field: true for non-frozen collections and user types, false for
// everything else.
func (t Type) IsMultiCell() bool {
	return (t.IsCollection() || t.UDT != nil) && !t.Frozen
}

// FieldPath returns the cell path of field i of a non-frozen user type: the
// field's position as a 2-byte big-endian short, as Cassandra writes it.
func FieldPath(i int) []byte { return []byte{byte(i >> 8), byte(i)} }

// FieldOfPath returns the field position a user type cell path names, or -1.
func FieldOfPath(path []byte) int {
	if len(path) != 2 {
		return -1
	}
	return int(path[0])<<8 | int(path[1])
}

// Equal reports whether t and o are the same type.
func (t Type) Equal(o Type) bool {
	if t.Kind != o.Kind || t.Frozen != o.Frozen || len(t.Params) != len(o.Params) || (t.UDT == nil) != (o.UDT == nil) || t.Custom != o.Custom {
		return false
	}
	if t.UDT != nil && (t.UDT.Keyspace != o.UDT.Keyspace || t.UDT.Name != o.UDT.Name || !slices.Equal(t.UDT.Fields, o.UDT.Fields)) {
		return false
	}
	for i := range t.Params {
		if !t.Params[i].Equal(o.Params[i]) {
			return false
		}
	}
	return true
}

// QuoteName returns a CQL name as CQL writes it: as is when it is lower
// case letters, digits and underscores starting with a letter, double-quoted
// otherwise.
func QuoteName(s string) string {
	plain := s != ""
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Freeze returns a copy of t marked frozen (a no-op for scalar types).
func (t Type) Freeze() Type {
	if t.IsCollection() || t.Kind == Tuple {
		t.Frozen = true
	}
	return t
}

// String returns the type as Cassandra's CQL3Type.toString writes it, which
// is also the text of system_schema.columns.type: "text", "list<int>",
// "frozen<map<text, frozen<list<int>>>>", "frozen<tuple<int, text>>". Every
// frozen collection carries its own frozen<> (elements of collections and
// fields of tuples are always frozen), and tuples always print as frozen.
func (t Type) String() string {
	var b strings.Builder
	t.format(&b)
	return b.String()
}

func (t Type) format(b *strings.Builder) {
	if t.Custom != "" {
		// CQL3Type.Custom.toString: the class name, quoted.
		b.WriteString("'" + t.Custom + "'")
		return
	}
	if t.UDT != nil {
		if t.Frozen {
			b.WriteString("frozen<")
		}
		b.WriteString(QuoteName(t.UDT.Name))
		if t.Frozen {
			b.WriteByte('>')
		}
		return
	}
	switch t.Kind {
	case List, Set, Map, Tuple:
		wrap := t.Frozen || t.Kind == Tuple
		if wrap {
			b.WriteString("frozen<")
		}
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			p.format(b)
		}
		b.WriteByte('>')
		if wrap {
			b.WriteByte('>')
		}
	default:
		b.WriteString(t.Kind.String())
	}
}
