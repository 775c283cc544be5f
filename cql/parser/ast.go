package parser

import "strings"

// Node is implemented by every AST node. Format appends the node's canonical
// CQL text to buf; String returns it. Parsing the canonical text yields an
// equal AST (parse(print(ast)) == ast).
type Node interface {
	Format(buf *strings.Builder)
	String() string
}

// Statement is a parsed CQL statement. The set of statements is closed: only
// the types in this package implement it.
type Statement interface {
	Node
	// BindCount returns the number of bind markers in the statement, in the
	// order they appear (a BATCH counts the markers of all its statements).
	BindCount() int
	// BindNames returns the name of each bind marker, "" for a positional '?'.
	BindNames() []string
	iStatement()
}

// Expr is a term or selector expression. The set is closed: only the types
// in this package implement it. Terms (values in INSERT, SET, WHERE) never
// contain ColumnRef, FieldAccess or CellMeta; selectors may.
type Expr interface {
	Node
	iExpr()
}

// Relation is one restriction of a WHERE clause: *ColumnRelation,
// *TupleRelation, *TokenRelation or *CustomIndexExpression.
type Relation interface {
	Node
	iRelation()
}

// Binds records the bind markers of a statement; statements embed it.
type Binds struct {
	// Names has one entry per bind marker in order of appearance; the entry
	// is "" for a positional '?' and the identifier for ':name'.
	Names []string
}

// BindCount returns the number of bind markers.
func (b *Binds) BindCount() int { return len(b.Names) }

// BindNames returns the bind marker names ("" for positional markers).
func (b *Binds) BindNames() []string { return b.Names }

// Ident is a CQL identifier in its canonical form: unquoted identifiers are
// lower-cased by the lexer, quoted ones keep their exact case.
type Ident string

// needsQuotes reports whether id must be double-quoted to lex back as itself.
func (id Ident) needsQuotes() bool {
	s := string(id)
	if s == "" {
		return true
	}
	if s[0] < 'a' || s[0] > 'z' {
		return true
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(('a' <= c && c <= 'z') || isDigit(c) || c == '_') {
			return true
		}
	}
	return IsReservedKeyword(s)
}

// Format writes the identifier, double-quoting it when needed.
func (id Ident) Format(buf *strings.Builder) {
	if !id.needsQuotes() {
		buf.WriteString(string(id))
		return
	}
	formatQuoted(buf, string(id))
}

// formatStrict writes the identifier, also quoting unreserved keywords; it
// is used where a keyword would change the meaning (e.g. SELECT "json" ...).
func (id Ident) formatStrict(buf *strings.Builder) {
	if lookupKeyword(string(id)) != kwNone {
		formatQuoted(buf, string(id))
		return
	}
	id.Format(buf)
}

func formatQuoted(buf *strings.Builder, s string) {
	buf.WriteByte('"')
	buf.WriteString(strings.ReplaceAll(s, `"`, `""`))
	buf.WriteByte('"')
}

// String returns the identifier as it would be written in CQL.
func (id Ident) String() string { return nodeString(id) }

func nodeString(n Node) string {
	var buf strings.Builder
	n.Format(&buf)
	return buf.String()
}

// TableName is an optionally keyspace-qualified table (or type) name.
type TableName struct {
	// Keyspace is empty when the name is not qualified.
	Keyspace Ident
	Name     Ident
}

// Format writes [ks.]name.
func (t TableName) Format(buf *strings.Builder) {
	if t.Keyspace != "" {
		t.Keyspace.Format(buf)
		buf.WriteByte('.')
	}
	t.Name.Format(buf)
}

// String returns [ks.]name.
func (t TableName) String() string { return nodeString(t) }

// ---- Types ----

// TypeKind enumerates the CQL data types.
type TypeKind uint8

// The CQL types. TypeUser is a user-defined type kept by name; TypeCustom is
// a custom type given as a Java class name string.
const (
	TypeAscii TypeKind = iota + 1
	TypeBigint
	TypeBlob
	TypeBoolean
	TypeCounter
	TypeDate
	TypeDecimal
	TypeDouble
	TypeDuration
	TypeFloat
	TypeInet
	TypeInt
	TypeSmallint
	TypeText
	TypeTime
	TypeTimestamp
	TypeTimeuuid
	TypeTinyint
	TypeUUID
	TypeVarchar
	TypeVarint
	TypeList
	TypeSet
	TypeMap
	TypeTuple
	TypeUser
	TypeCustom
)

var typeKindNames = [...]string{
	TypeAscii: "ascii", TypeBigint: "bigint", TypeBlob: "blob", TypeBoolean: "boolean",
	TypeCounter: "counter", TypeDate: "date", TypeDecimal: "decimal", TypeDouble: "double",
	TypeDuration: "duration", TypeFloat: "float", TypeInet: "inet", TypeInt: "int",
	TypeSmallint: "smallint", TypeText: "text", TypeTime: "time", TypeTimestamp: "timestamp",
	TypeTimeuuid: "timeuuid", TypeTinyint: "tinyint", TypeUUID: "uuid", TypeVarchar: "varchar",
	TypeVarint: "varint", TypeList: "list", TypeSet: "set", TypeMap: "map", TypeTuple: "tuple",
	TypeUser: "user type", TypeCustom: "custom",
}

// String returns the CQL name of the kind ("int", "map", ...).
func (k TypeKind) String() string {
	if int(k) < len(typeKindNames) && typeKindNames[k] != "" {
		return typeKindNames[k]
	}
	return "unknown"
}

// IsNative reports whether k is a native (non-parameterized) type.
func (k TypeKind) IsNative() bool { return k >= TypeAscii && k <= TypeVarint }

// Type is a CQL type as written in a statement.
type Type struct {
	Kind TypeKind
	// Params are the element types: one for list and set, two for map, one
	// or more for tuple.
	Params []*Type
	// Name is the user type's name when Kind is TypeUser.
	Name TableName
	// Custom is the class name string when Kind is TypeCustom.
	Custom string
	// Frozen is set by frozen<...>.
	Frozen bool
}

// Format writes the type, e.g. frozen<map<text, list<int>>>.
func (t *Type) Format(buf *strings.Builder) {
	if t.Frozen {
		buf.WriteString("frozen<")
	}
	switch {
	case t.Kind.IsNative():
		buf.WriteString(t.Kind.String())
	case t.Kind == TypeUser:
		t.Name.Format(buf)
	case t.Kind == TypeCustom:
		formatString(buf, t.Custom)
	default:
		buf.WriteString(t.Kind.String())
		buf.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				buf.WriteString(", ")
			}
			p.Format(buf)
		}
		buf.WriteByte('>')
	}
	if t.Frozen {
		buf.WriteByte('>')
	}
}

// String returns the type's CQL text.
func (t *Type) String() string { return nodeString(t) }

// formatString writes s as a single-quoted CQL string constant.
func formatString(buf *strings.Builder, s string) {
	buf.WriteByte('\'')
	buf.WriteString(strings.ReplaceAll(s, "'", "''"))
	buf.WriteByte('\'')
}

// ---- Expressions ----

// ConstKind is the lexical kind of a constant.
type ConstKind uint8

// The constant kinds.
const (
	ConstString ConstKind = iota + 1
	ConstInteger
	ConstFloat
	ConstBoolean
	ConstUUID
	ConstHex
	ConstDuration
	ConstNull
)

var constKindNames = [...]string{
	ConstString: "string", ConstInteger: "integer", ConstFloat: "float", ConstBoolean: "boolean",
	ConstUUID: "uuid", ConstHex: "hex", ConstDuration: "duration", ConstNull: "null",
}

// String returns the kind's name.
func (k ConstKind) String() string {
	if int(k) < len(constKindNames) && constKindNames[k] != "" {
		return constKindNames[k]
	}
	return "unknown"
}

// Constant is a literal value. Raw is its exact source text (with quotes for
// strings, e.g. 'it”s' or $$it's$$; NaN, Infinity and -Infinity for the
// special floats; NULL for null).
type Constant struct {
	Kind ConstKind
	Raw  string
}

// Value returns the constant's text without quoting: the decoded string for
// ConstString, Raw otherwise.
func (c *Constant) Value() string {
	if c.Kind != ConstString {
		return c.Raw
	}
	if strings.HasPrefix(c.Raw, "$$") {
		return c.Raw[2 : len(c.Raw)-2]
	}
	return strings.ReplaceAll(c.Raw[1:len(c.Raw)-1], "''", "'")
}

// Format writes Raw.
func (c *Constant) Format(buf *strings.Builder) { buf.WriteString(c.Raw) }

// String returns Raw.
func (c *Constant) String() string { return c.Raw }

// BindMarker is a '?' or ':name' bind marker. Index is its 0-based position
// among the statement's markers.
type BindMarker struct {
	Index int
	// Name is empty for a positional '?'.
	Name Ident
}

// Format writes ? or :name.
func (b *BindMarker) Format(buf *strings.Builder) {
	if b.Name == "" {
		buf.WriteByte('?')
		return
	}
	buf.WriteByte(':')
	b.Name.Format(buf)
}

// String returns ? or :name.
func (b *BindMarker) String() string { return nodeString(b) }

func formatExprs(buf *strings.Builder, open, close byte, es []Expr) {
	buf.WriteByte(open)
	for i, e := range es {
		if i > 0 {
			buf.WriteString(", ")
		}
		e.Format(buf)
	}
	buf.WriteByte(close)
}

// ListLit is a list literal [a, b].
type ListLit struct{ Elems []Expr }

// Format writes [a, b].
func (l *ListLit) Format(buf *strings.Builder) { formatExprs(buf, '[', ']', l.Elems) }

// String returns [a, b].
func (l *ListLit) String() string { return nodeString(l) }

// SetLit is a non-empty set literal {a, b}.
type SetLit struct{ Elems []Expr }

// Format writes {a, b}.
func (s *SetLit) Format(buf *strings.Builder) { formatExprs(buf, '{', '}', s.Elems) }

// String returns {a, b}.
func (s *SetLit) String() string { return nodeString(s) }

// MapEntry is one key: value pair of a map literal.
type MapEntry struct{ Key, Value Expr }

// MapLit is a non-empty map literal {k: v, ...}.
type MapLit struct{ Entries []MapEntry }

// Format writes {k: v, ...}.
func (m *MapLit) Format(buf *strings.Builder) {
	buf.WriteByte('{')
	for i, e := range m.Entries {
		if i > 0 {
			buf.WriteString(", ")
		}
		e.Key.Format(buf)
		buf.WriteString(": ")
		e.Value.Format(buf)
	}
	buf.WriteByte('}')
}

// String returns {k: v, ...}.
func (m *MapLit) String() string { return nodeString(m) }

// EmptyBraces is the literal {}, which is an empty map or an empty set
// depending on the receiver's type.
type EmptyBraces struct{}

// Format writes {}.
func (*EmptyBraces) Format(buf *strings.Builder) { buf.WriteString("{}") }

// String returns {}.
func (*EmptyBraces) String() string { return "{}" }

// UDTField is one field of a user-type literal.
type UDTField struct {
	Name  Ident
	Value Expr
}

// UDTLit is a user-defined type literal {field: value, ...}.
type UDTLit struct{ Fields []UDTField }

// Format writes {field: value, ...}.
func (u *UDTLit) Format(buf *strings.Builder) {
	buf.WriteByte('{')
	for i, f := range u.Fields {
		if i > 0 {
			buf.WriteString(", ")
		}
		f.Name.Format(buf)
		buf.WriteString(": ")
		f.Value.Format(buf)
	}
	buf.WriteByte('}')
}

// String returns {field: value, ...}.
func (u *UDTLit) String() string { return nodeString(u) }

// TupleLit is a tuple literal (a, b).
type TupleLit struct{ Elems []Expr }

// Format writes (a, b).
func (t *TupleLit) Format(buf *strings.Builder) { formatExprs(buf, '(', ')', t.Elems) }

// String returns (a, b).
func (t *TupleLit) String() string { return nodeString(t) }

// InList is the parenthesized value list of an IN relation or condition.
type InList struct{ Elems []Expr }

// Format writes (a, b).
func (l *InList) Format(buf *strings.Builder) { formatExprs(buf, '(', ')', l.Elems) }

// String returns (a, b).
func (l *InList) String() string { return nodeString(l) }

// FuncCall is a function call f(args), ks.f(args) or count(*). Function names
// are identifiers: unquoted names are lower-cased (toTimestamp is totimestamp).
type FuncCall struct {
	Keyspace Ident
	Name     Ident
	Args     []Expr
	// Star is set for count(*); Args is then empty.
	Star bool
}

// Format writes name(args).
func (f *FuncCall) Format(buf *strings.Builder) {
	if f.Keyspace != "" {
		f.Keyspace.Format(buf)
		buf.WriteByte('.')
	}
	if f.Keyspace == "" && f.Name == "token" {
		buf.WriteString("token") // K_TOKEN is a valid function name
	} else {
		f.Name.Format(buf)
	}
	if f.Star {
		buf.WriteString("(*)")
		return
	}
	formatExprs(buf, '(', ')', f.Args)
}

// String returns name(args).
func (f *FuncCall) String() string { return nodeString(f) }

// Cast is CAST(expr AS type); the type is native.
type Cast struct {
	Expr Expr
	Type *Type
}

// Format writes CAST(expr AS type).
func (c *Cast) Format(buf *strings.Builder) {
	buf.WriteString("CAST(")
	c.Expr.Format(buf)
	buf.WriteString(" AS ")
	c.Type.Format(buf)
	buf.WriteByte(')')
}

// String returns CAST(expr AS type).
func (c *Cast) String() string { return nodeString(c) }

// TypeHint is a type cast of a term, (type) term, e.g. (int) ?.
type TypeHint struct {
	Type *Type
	Expr Expr
}

// Format writes (type) expr.
func (t *TypeHint) Format(buf *strings.Builder) {
	buf.WriteByte('(')
	t.Type.Format(buf)
	buf.WriteString(") ")
	t.Expr.Format(buf)
}

// String returns (type) expr.
func (t *TypeHint) String() string { return nodeString(t) }

// Neg is a unary minus applied to a term that is not a number literal
// (negative number literals such as -5 are Constants).
type Neg struct{ Expr Expr }

// Format writes "- expr" (the space keeps "- 5" from lexing as -5).
func (n *Neg) Format(buf *strings.Builder) {
	buf.WriteString("- ")
	n.Expr.Format(buf)
}

// String returns "- expr".
func (n *Neg) String() string { return nodeString(n) }

// ArithOp is a binary arithmetic operator.
type ArithOp uint8

// The arithmetic operators.
const (
	OpAdd ArithOp = iota + 1
	OpSub
	OpMul
	OpDiv
	OpMod
)

var arithNames = [...]string{OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpMod: "%"}

// String returns the operator symbol.
func (o ArithOp) String() string {
	if int(o) < len(arithNames) && arithNames[o] != "" {
		return arithNames[o]
	}
	return "?"
}

// BinaryExpr is an arithmetic expression; the parser builds left-associative
// trees with * / % binding tighter than + -.
type BinaryExpr struct {
	Op          ArithOp
	Left, Right Expr
}

// Format writes "left op right".
func (b *BinaryExpr) Format(buf *strings.Builder) {
	b.Left.Format(buf)
	buf.WriteByte(' ')
	buf.WriteString(b.Op.String())
	buf.WriteByte(' ')
	b.Right.Format(buf)
}

// String returns "left op right".
func (b *BinaryExpr) String() string { return nodeString(b) }

// ColumnRef names a column in a selector.
type ColumnRef struct{ Name Ident }

// Format writes the column name.
func (c *ColumnRef) Format(buf *strings.Builder) { c.Name.Format(buf) }

// String returns the column name.
func (c *ColumnRef) String() string { return nodeString(c) }

// FieldAccess selects a field of a user-type value in a selector: expr.field.
type FieldAccess struct {
	Expr  Expr
	Field Ident
}

// Format writes expr.field.
func (f *FieldAccess) Format(buf *strings.Builder) {
	f.Expr.Format(buf)
	buf.WriteByte('.')
	f.Field.Format(buf)
}

// String returns expr.field.
func (f *FieldAccess) String() string { return nodeString(f) }

// ElementAccess selects an element or a slice of a collection in a
// selector: expr[key], or expr[from..to] with either bound omitted.
type ElementAccess struct {
	Expr     Expr
	Key      Expr // the element's key, when Slice is false
	Slice    bool
	From, To Expr // the slice's bounds (inclusive), nil when open
}

// Format writes expr[key] or expr[from..to].
func (e *ElementAccess) Format(buf *strings.Builder) {
	e.Expr.Format(buf)
	buf.WriteByte('[')
	if !e.Slice {
		e.Key.Format(buf)
	} else {
		if e.From != nil {
			e.From.Format(buf)
		}
		buf.WriteString("..")
		if e.To != nil {
			e.To.Format(buf)
		}
	}
	buf.WriteByte(']')
}

// String returns expr[key] or expr[from..to].
func (e *ElementAccess) String() string { return nodeString(e) }

// MetaKind says which cell metadata a CellMeta selector reads.
type MetaKind uint8

// The cell metadata selectors.
const (
	MetaWritetime MetaKind = iota + 1
	MetaTTL
)

// String returns "writetime" or "ttl".
func (m MetaKind) String() string {
	if m == MetaTTL {
		return "ttl"
	}
	return "writetime"
}

// CellMeta is the selector writetime(col) or ttl(col).
type CellMeta struct {
	Kind   MetaKind
	Column Ident
}

// Format writes writetime(col) or ttl(col).
func (c *CellMeta) Format(buf *strings.Builder) {
	buf.WriteString(c.Kind.String())
	buf.WriteByte('(')
	c.Column.Format(buf)
	buf.WriteByte(')')
}

// String returns writetime(col) or ttl(col).
func (c *CellMeta) String() string { return nodeString(c) }

func (*Constant) iExpr()      {}
func (*BindMarker) iExpr()    {}
func (*ListLit) iExpr()       {}
func (*SetLit) iExpr()        {}
func (*MapLit) iExpr()        {}
func (*EmptyBraces) iExpr()   {}
func (*UDTLit) iExpr()        {}
func (*ElementAccess) iExpr() {}
func (*TupleLit) iExpr()      {}
func (*InList) iExpr()        {}
func (*FuncCall) iExpr()      {}
func (*Cast) iExpr()          {}
func (*TypeHint) iExpr()      {}
func (*Neg) iExpr()           {}
func (*BinaryExpr) iExpr()    {}
func (*ColumnRef) iExpr()     {}
func (*FieldAccess) iExpr()   {}
func (*CellMeta) iExpr()      {}

// ---- Relations and conditions ----

// Operator is a relation or condition operator.
type Operator uint8

// The operators. OpIsNot only appears as IS NOT NULL.
const (
	OpEq Operator = iota + 1
	OpLt
	OpLte
	OpGt
	OpGte
	OpNeq
	OpIn
	OpContains
	OpContainsKey
	OpLike
	OpIsNot
)

var operatorNames = [...]string{
	OpEq: "=", OpLt: "<", OpLte: "<=", OpGt: ">", OpGte: ">=", OpNeq: "!=", OpIn: "IN",
	OpContains: "CONTAINS", OpContainsKey: "CONTAINS KEY", OpLike: "LIKE", OpIsNot: "IS NOT",
}

// String returns the operator as written in CQL.
func (o Operator) String() string {
	if int(o) < len(operatorNames) && operatorNames[o] != "" {
		return operatorNames[o]
	}
	return "?"
}

func formatOpValue(buf *strings.Builder, op Operator, v Expr) {
	buf.WriteByte(' ')
	buf.WriteString(op.String())
	buf.WriteByte(' ')
	v.Format(buf)
}

func formatIdentList(buf *strings.Builder, ids []Ident) {
	buf.WriteByte('(')
	for i, id := range ids {
		if i > 0 {
			buf.WriteString(", ")
		}
		id.Format(buf)
	}
	buf.WriteByte(')')
}

// ColumnRelation restricts one column: col op value, col[key] op value,
// col IN (...) / IN ?, col CONTAINS [KEY] v, col LIKE v, col IS NOT NULL.
// For OpIn, Value is an *InList or a *BindMarker.
type ColumnRelation struct {
	Column Ident
	// MapKey is set for col[key] op value.
	MapKey Expr
	Op     Operator
	Value  Expr
}

// Format writes the relation.
func (r *ColumnRelation) Format(buf *strings.Builder) {
	r.Column.Format(buf)
	if r.MapKey != nil {
		buf.WriteByte('[')
		r.MapKey.Format(buf)
		buf.WriteByte(']')
	}
	formatOpValue(buf, r.Op, r.Value)
}

// String returns the relation's CQL text.
func (r *ColumnRelation) String() string { return nodeString(r) }

// TupleRelation restricts several clustering columns at once:
// (c1, c2) op (v1, v2), (c1, c2) op ?, (c1, c2) IN ((..), (..)) or IN ?.
// Value is a *TupleLit or *BindMarker, or for OpIn an *InList or *BindMarker.
type TupleRelation struct {
	Columns []Ident
	Op      Operator
	Value   Expr
}

// Format writes the relation.
func (r *TupleRelation) Format(buf *strings.Builder) {
	formatIdentList(buf, r.Columns)
	formatOpValue(buf, r.Op, r.Value)
}

// String returns the relation's CQL text.
func (r *TupleRelation) String() string { return nodeString(r) }

// TokenRelation restricts the partition token: token(a, b) op value.
type TokenRelation struct {
	Columns []Ident
	Op      Operator
	Value   Expr
}

// Format writes token(cols) op value.
func (r *TokenRelation) Format(buf *strings.Builder) {
	buf.WriteString("token")
	formatIdentList(buf, r.Columns)
	formatOpValue(buf, r.Op, r.Value)
}

// String returns the relation's CQL text.
func (r *TokenRelation) String() string { return nodeString(r) }

// CustomIndexExpression is a custom index expression, expr(index, value):
// a restriction that the named CUSTOM index of the table evaluates, given
// the value (Cassandra's CustomIndexExpression).
type CustomIndexExpression struct {
	Index Ident
	Value Expr
}

// Format writes expr(index, value).
func (r *CustomIndexExpression) Format(buf *strings.Builder) {
	buf.WriteString("expr(")
	r.Index.Format(buf)
	buf.WriteString(", ")
	r.Value.Format(buf)
	buf.WriteByte(')')
}

// String returns the expression's CQL text.
func (r *CustomIndexExpression) String() string { return nodeString(r) }

func (*ColumnRelation) iRelation()        {}
func (*TupleRelation) iRelation()         {}
func (*TokenRelation) iRelation()         {}
func (*CustomIndexExpression) iRelation() {}

func formatWhere(buf *strings.Builder, where []Relation) {
	if len(where) == 0 {
		return
	}
	buf.WriteString(" WHERE ")
	for i, r := range where {
		if i > 0 {
			buf.WriteString(" AND ")
		}
		r.Format(buf)
	}
}

// Condition is one IF condition of a lightweight transaction:
// col op v, col[elem] op v, col.field op v, col IN (...).
type Condition struct {
	Column Ident
	// Elem is set for col[elem] op value.
	Elem Expr
	// Field is set for col.field op value.
	Field Ident
	Op    Operator
	Value Expr
}

// Format writes the condition.
func (c *Condition) Format(buf *strings.Builder) {
	c.Column.Format(buf)
	if c.Elem != nil {
		buf.WriteByte('[')
		c.Elem.Format(buf)
		buf.WriteByte(']')
	}
	if c.Field != "" {
		buf.WriteByte('.')
		c.Field.Format(buf)
	}
	formatOpValue(buf, c.Op, c.Value)
}

// String returns the condition's CQL text.
func (c *Condition) String() string { return nodeString(c) }

// Conditions holds the optional IF clause of INSERT, UPDATE and DELETE.
type Conditions struct {
	// IfExists is IF EXISTS (UPDATE, DELETE).
	IfExists bool
	// IfNotExists is IF NOT EXISTS (INSERT).
	IfNotExists bool
	// If holds IF c = v AND ... conditions.
	If []*Condition
}

func (c *Conditions) format(buf *strings.Builder) {
	switch {
	case c.IfExists:
		buf.WriteString(" IF EXISTS")
	case c.IfNotExists:
		buf.WriteString(" IF NOT EXISTS")
	case len(c.If) > 0:
		buf.WriteString(" IF ")
		for i, cond := range c.If {
			if i > 0 {
				buf.WriteString(" AND ")
			}
			cond.Format(buf)
		}
	}
}

// Using holds USING TTL and TIMESTAMP; nil fields are absent.
type Using struct {
	TTL       Expr
	Timestamp Expr
	// TimestampFirst records that TIMESTAMP was written before TTL, so that
	// printing keeps the bind markers in their original order.
	TimestampFirst bool
}

func (u *Using) format(buf *strings.Builder) {
	switch {
	case u.TTL != nil && u.Timestamp != nil && u.TimestampFirst:
		buf.WriteString(" USING TIMESTAMP ")
		u.Timestamp.Format(buf)
		buf.WriteString(" AND TTL ")
		u.TTL.Format(buf)
	case u.TTL != nil && u.Timestamp != nil:
		buf.WriteString(" USING TTL ")
		u.TTL.Format(buf)
		buf.WriteString(" AND TIMESTAMP ")
		u.Timestamp.Format(buf)
	case u.TTL != nil:
		buf.WriteString(" USING TTL ")
		u.TTL.Format(buf)
	case u.Timestamp != nil:
		buf.WriteString(" USING TIMESTAMP ")
		u.Timestamp.Format(buf)
	}
}

// Property is one option of a WITH clause: name = constant or map literal.
type Property struct {
	Name Ident
	// Value is a *Constant, *MapLit or *EmptyBraces.
	Value Expr
}

func formatProperties(buf *strings.Builder, props []Property, first bool) {
	for _, p := range props {
		if first {
			buf.WriteString(" WITH ")
			first = false
		} else {
			buf.WriteString(" AND ")
		}
		p.Name.Format(buf)
		buf.WriteString(" = ")
		p.Value.Format(buf)
	}
}

// Ordering is one column of ORDER BY or CLUSTERING ORDER BY.
type Ordering struct {
	Column Ident
	Desc   bool
}

func formatOrderings(buf *strings.Builder, os []Ordering) {
	for i, o := range os {
		if i > 0 {
			buf.WriteString(", ")
		}
		o.Column.Format(buf)
		if o.Desc {
			buf.WriteString(" DESC")
		} else {
			buf.WriteString(" ASC")
		}
	}
}
