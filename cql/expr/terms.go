package expr

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Receiver is what a term is assigned to: a column, a collection element, or
// a synthetic receiver such as [limit] or [ttl]. Its name is used in error
// messages and as the bind marker's name in PREPARE metadata, as Cassandra
// names them (value(l), key(m), in(k), [limit], ...).
type Receiver struct {
	Ks, Table, Name string
	Typ             types.Type
}

func (r Receiver) spec() query.ColumnSpec {
	return query.ColumnSpec{Keyspace: r.Ks, Table: r.Table, Name: r.Name, Type: r.Typ}
}

func (r Receiver) Sub(name string, t types.Type) Receiver {
	return Receiver{Ks: r.Ks, Table: r.Table, Name: name, Typ: t}
}

// Term is a compiled term: it evaluates to a value at execution time.
type Term interface {
	Eval(q *query.Execution) (query.Value, error)
}

// ConstTerm is a value known at compile time (nil = null).
type ConstTerm struct{ V []byte }

func (t ConstTerm) Eval(*query.Execution) (query.Value, error) { return query.Value{Bytes: t.V}, nil }

// foreignUserType returns the keyspace of a user type t names outside ks,
// or "".
func foreignUserType(t *parser.Type, ks *schema.Keyspace) string {
	if t.Kind == parser.TypeUser && ks != nil && t.Name.Keyspace != "" && string(t.Name.Keyspace) != ks.Name {
		return string(t.Name.Keyspace)
	}
	for _, p := range t.Params {
		if other := foreignUserType(p, ks); other != "" {
			return other
		}
	}
	return ""
}

// nowTerm is the timestamp literal 'now': the statement's time, in
// milliseconds.
type nowTerm struct{}

func (nowTerm) Eval(q *query.Execution) (query.Value, error) {
	return query.Value{Bytes: Int64Bytes(q.Now.UnixMilli())}, nil
}

// BindTerm reads a bound value, validates it against its receiver's type
// and puts it in canonical form (types.Normalize).
type BindTerm struct {
	Idx  int
	recv Receiver
}

func (t BindTerm) Eval(q *query.Execution) (query.Value, error) {
	if t.Idx >= len(q.Values) {
		return query.Value{}, query.Invalidf("No value bound for %s", t.recv.Name)
	}
	v := q.Values[t.Idx]
	if v.Unset || v.Bytes == nil {
		return v, nil
	}
	if fixedWidthValid(t.recv.Typ.Kind, len(v.Bytes)) {
		return v, nil // valid, and canonical as it is
	}
	if k := t.recv.Typ.Kind; len(v.Bytes) == 0 && (k == types.List || k == types.Set || k == types.Map) {
		// Lists, Sets and Maps.Value.fromSerialized read the element count
		// of the bound value first (an empty value is valid only in
		// storage).
		return query.Value{}, query.Invalidf("Not enough bytes to read a %s", k)
	}
	b, err := types.Normalize(t.recv.Typ, v.Bytes) // sets and maps sorted, as Cassandra binds them
	if err != nil {
		return query.Value{}, query.Invalidf("Invalid value for %s of type %s: %v", t.recv.Name, t.recv.Typ, UnwrapReason(err))
	}
	v.Bytes = b
	return v, nil
}

// fixedWidthValid reports whether every value of n bytes of a type of
// kind k is valid and canonical (what types.Normalize would return as it
// is): the fixed-width types at their width. For any other kind or length
// it reports false, and the caller normalizes.
func fixedWidthValid(k types.Kind, n int) bool {
	switch k {
	case types.Bigint, types.Counter, types.Timestamp, types.Double, types.Time:
		return n == 8
	case types.Int, types.Float, types.Date:
		return n == 4
	case types.Smallint:
		return n == 2
	case types.Tinyint:
		return n == 1
	}
	return false
}

func UnwrapReason(err error) string {
	var ve *types.ValueError
	if errors.As(err, &ve) {
		return ve.Reason
	}
	return err.Error()
}

// collectionTerm builds a list, set, map or tuple literal from element terms.
type collectionTerm struct {
	recv  Receiver
	elems []Term // for maps: key, value, key, value...
}

func (t collectionTerm) Eval(q *query.Execution) (query.Value, error) {
	vals := make([][]byte, len(t.elems))
	for i, e := range t.elems {
		v, err := e.Eval(q)
		if err != nil {
			return query.Value{}, err
		}
		if v.Unset {
			switch typ := t.recv.Typ; {
			case typ.UDT != nil:
				// UserTypes.DelayedValue.
				return query.Value{}, query.Invalidf("Invalid unset value for field '%s' of user defined type %s", typ.UDT.Fields[i], typ.UDT.Name)
			case typ.Kind == types.Tuple:
				// Tuples.DelayedValue.
				return query.Value{}, query.Invalidf("Invalid unset value for tuple field number %d", i)
			}
			return query.Value{}, query.Invalidf("Invalid unset value in collection literal for %s", t.recv.Name)
		}
		if v.Bytes == nil && t.recv.Typ.Kind != types.Tuple {
			return query.Value{}, query.Invalidf("null is not supported inside collections")
		}
		vals[i] = v.Bytes
	}
	var b []byte
	var err error
	switch t.recv.Typ.Kind {
	case types.List:
		b = types.EncodeList(vals)
	case types.Set:
		b, err = types.EncodeSet(t.recv.Typ, vals)
	case types.Map:
		keys, values := make([][]byte, 0, len(vals)/2), make([][]byte, 0, len(vals)/2)
		for i := 0; i+1 < len(vals); i += 2 {
			keys, values = append(keys, vals[i]), append(values, vals[i+1])
		}
		b, err = types.EncodeMap(t.recv.Typ, keys, values)
	case types.Tuple:
		b = types.EncodeTuple(vals)
	}
	if err != nil {
		return query.Value{}, query.Invalidf("Invalid collection literal for %s: %v", t.recv.Name, err)
	}
	return query.Value{Bytes: b}, nil
}

// evalArgs evaluates the argument terms of a call to function (or
// operator) name; an unset argument is refused with Cassandra's text.
func evalArgs(q *query.Execution, terms []Term, name string) ([][]byte, error) {
	vals := make([][]byte, len(terms))
	for i, a := range terms {
		v, err := a.Eval(q)
		if err != nil {
			return nil, err
		}
		if v.Unset {
			return nil, query.Invalidf("Invalid unset value for argument in call to function %s", name)
		}
		vals[i] = v.Bytes
	}
	return vals, nil
}

// funcTerm calls a scalar function on argument terms.
type funcTerm struct {
	fn   *function
	args []Term
}

func (t funcTerm) Eval(q *query.Execution) (query.Value, error) {
	args, err := evalArgs(q, t.args, t.fn.name)
	if err != nil {
		return query.Value{}, err
	}
	b, err := t.fn.impl(q, args)
	if err != nil {
		return query.Value{}, functionError(t.fn, err)
	}
	return query.Value{Bytes: b}, nil
}

// CompileCtx collects the bind markers of a statement while it compiles.
type CompileCtx struct {
	Specs []query.ColumnSpec
	// Table is the statement's table, whose TokenFct a token() call in a
	// term is (see tokenFunction); nil where no table is known.
	Table *schema.Table
	// UDFs finds the user-defined functions the statement may call (nil:
	// none).
	UDFs *UserFunctions
	// Partitioner is the node's partitioner, whose token token() computes
	// (a bigint under Murmur3, a blob under ByteOrderedPartitioner); the
	// zero value is Murmur3.
	Partitioner partitioner.Partitioner

	// CustomIndexes tells what the Go instances of custom indexes support
	// (nil: no index supports custom expressions).
	CustomIndexes CustomIndexes
	// nested memoizes how a nested operation or call assigns to a type
	// during overload resolution (operations.go), so that resolving an
	// expression costs time linear in its size, not exponential in its
	// depth.
	nested map[nestedKey]assignment
	// depth counts the expressions being compiled on the stack, bounded
	// by parser.MaxDepth: the parser refuses deeper text, and this bounds
	// a statement built by hand as well.
	depth int
	// work counts the overloads resolution has weighed and the bytes of
	// operand text it has written, which tests read to check that
	// resolution is linear in the expression's size.
	work int
	// probing counts the nested resolutions under way (nestedAssignment),
	// whose failures need no message.
	probing int
}

// enter counts one more expression being compiled and fails past
// parser.MaxDepth; leave undoes it.
func (c *CompileCtx) enter() error {
	c.depth++
	if c.depth > parser.MaxDepth {
		return query.Invalidf("expression nested too deeply: more than %d levels", parser.MaxDepth)
	}
	return nil
}

func (c *CompileCtx) leave() { c.depth-- }

// CustomIndexes tells the WHERE analysis what custom indexes support;
// *engine.Engine implements it.
type CustomIndexes interface {
	// CustomExpressionValueType returns the type of the value of an
	// expr(index, value) the index named name of tbl takes
	// (Index.customExpressionValueType), or false if it takes none.
	CustomExpressionValueType(tbl *schema.Table, name string) (types.Type, bool)
	// CustomIndexSupports reports whether the index named name of tbl
	// supports a restriction of column by op (Index.supportsExpression);
	// known is false when the index has no say (no Go instance, or one
	// that does not implement engine.IndexExpressionSupporter).
	CustomIndexSupports(tbl *schema.Table, name, column string, op engine.IndexOperator) (supported, known bool)
}

// NewCompileCtx returns the context of a statement with n bind markers.
func NewCompileCtx(n int) *CompileCtx {
	return &CompileCtx{Specs: make([]query.ColumnSpec, n)}
}

// NewTableCompileCtx returns the context of a statement with n bind markers
// on table tbl.
func NewTableCompileCtx(n int, tbl *schema.Table) *CompileCtx {
	return &CompileCtx{Specs: make([]query.ColumnSpec, n), Table: tbl}
}

func (c *CompileCtx) Bind(m *parser.BindMarker, r Receiver) BindTerm {
	for len(c.Specs) <= m.Index {
		c.Specs = append(c.Specs, query.ColumnSpec{})
	}
	c.Specs[m.Index] = r.spec()
	return BindTerm{Idx: m.Index, recv: r}
}

// constKind maps the parser's constant kinds to the types package's.
func constKind(k parser.ConstKind) types.ConstKind {
	switch k {
	case parser.ConstString:
		return types.ConstString
	case parser.ConstInteger:
		return types.ConstInteger
	case parser.ConstFloat:
		return types.ConstFloat
	case parser.ConstBoolean:
		return types.ConstBoolean
	case parser.ConstUUID:
		return types.ConstUUID
	case parser.ConstHex:
		return types.ConstHex
	case parser.ConstDuration:
		return types.ConstDuration
	}
	return types.ConstNull
}

// literalError renders a types.LiteralError the way Cassandra words it.
func literalError(err error, c *parser.Constant, r Receiver) *query.Error {
	var le *types.LiteralError
	if errors.As(err, &le) && !le.Mismatch && le.Reason != "" {
		return query.Invalidf("%s", le.Reason)
	}
	return query.Invalidf("Invalid %s constant (%s) for \"%s\" of type %s", constKind(c.Kind), c.Value(), r.Name, r.Typ)
}

// CompileTerm compiles expression e as a value for receiver r.
func (c *CompileCtx) CompileTerm(e parser.Expr, r Receiver) (Term, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.leave()
	switch e := e.(type) {
	case *parser.Constant:
		if e.Kind == parser.ConstNull {
			if r.Typ.Kind == types.Counter {
				// Constants.NULL_LITERAL is not assignable to a counter.
				return nil, notAssignableErr(query.Invalidf("Invalid null value for counter increment/decrement"))
			}
			return ConstTerm{}, nil
		}
		t := r.Typ
		if t.Kind == types.Counter {
			t = types.BigintType
		}
		if t.Kind == types.Tuple && t.UDT == nil && e.Kind == parser.ConstString {
			// A string is weakly assignable to a tuple: TupleType.fromString.
			b, err := types.TupleFromString(t, e.Value())
			if err != nil {
				return nil, literalError(err, e, r)
			}
			return ConstTerm{V: b}, nil
		}
		if t.IsCollection() || t.Kind == types.Tuple {
			return nil, notAssignableErr(query.Invalidf("Invalid %s constant (%s) for \"%s\" of type %s", constKind(e.Kind), e.Value(), r.Name, r.Typ))
		}
		if t.Kind == types.Timestamp && e.Kind == parser.ConstString && strings.EqualFold(e.Value(), "now") {
			// TimestampSerializer.dateStringToTimestamp: the current time.
			return nowTerm{}, nil
		}
		b, err := types.FromConstant(t, constKind(e.Kind), e.Value())
		if err != nil {
			var le *types.LiteralError
			if errors.As(err, &le) && !le.Mismatch && le.Reason != "" {
				return nil, literalError(err, e, r)
			}
			return nil, notAssignableErr(literalError(err, e, r))
		}
		return ConstTerm{V: b}, nil
	case *parser.BindMarker:
		return c.Bind(e, r), nil
	case *parser.ListLit:
		if r.Typ.Kind != types.List {
			return nil, notAssignableErr(query.Invalidf("Invalid list literal for %s of type %s", r.Name, r.Typ))
		}
		return c.compileElems(e.Elems, "list", r, r.Sub("value("+r.Name+")", r.Typ.Params[0]))
	case *parser.SetLit:
		switch r.Typ.Kind {
		case types.Set:
			return c.compileElems(e.Elems, "set", r, r.Sub("value("+r.Name+")", r.Typ.Params[0]))
		case types.List:
			// Cassandra rejects a set literal for a list.
		}
		return nil, notAssignableErr(query.Invalidf("Invalid set literal for %s of type %s", r.Name, r.Typ))
	case *parser.MapLit:
		if r.Typ.Kind != types.Map {
			return nil, notAssignableErr(query.Invalidf("Invalid map literal for %s of type %s", r.Name, r.Typ))
		}
		kr, vr := r.Sub("key("+r.Name+")", r.Typ.Params[0]), r.Sub("value("+r.Name+")", r.Typ.Params[1])
		out := collectionTerm{recv: r}
		for _, en := range e.Entries {
			k, err := c.CompileTerm(en.Key, kr)
			if err != nil {
				return nil, elementError(err, "map", r, "key ", en.Key, kr)
			}
			v, err := c.CompileTerm(en.Value, vr)
			if err != nil {
				return nil, elementError(err, "map", r, "value ", en.Value, vr)
			}
			out.elems = append(out.elems, k, v)
		}
		return foldConst(out), nil
	case *parser.EmptyBraces:
		if r.Typ.Kind != types.Set && r.Typ.Kind != types.Map {
			return nil, notAssignableErr(query.Invalidf("Invalid set literal for %s of type %s", r.Name, r.Typ))
		}
		return foldConst(collectionTerm{recv: r}), nil
	case *parser.UDTLit:
		if r.Typ.UDT == nil {
			return nil, notAssignableErr(query.Invalidf("Invalid user type literal for %s of type %s", r.Name, r.Typ))
		}
		// Fields by name, the others null (UserTypes.Literal).
		ut := r.Typ.UDT
		out := collectionTerm{recv: r, elems: make([]Term, len(ut.Fields))}
		for _, f := range e.Fields {
			i := slices.Index(ut.Fields, string(f.Name))
			if i < 0 {
				return nil, notAssignableErr(query.Invalidf("Unknown field '%s' in value of user defined type %s", f.Name, ut.Name))
			}
			if out.elems[i] != nil {
				return nil, query.Invalidf("Duplicate field '%s' in user type literal for %s", f.Name, r.Name)
			}
			t, err := c.CompileTerm(f.Value, r.Sub(r.Name+"."+ut.Fields[i], r.Typ.Params[i]))
			if err != nil {
				var na *notAssignableError
				if errors.As(err, &na) {
					// UserTypes.Literal.validateAssignableTo.
					return nil, notAssignableErr(query.Invalidf("Invalid user type literal for %s: field %s is not of type %s", r.Name, ut.Fields[i], r.Typ.Params[i]))
				}
				return nil, err
			}
			out.elems[i] = t
		}
		for i := range out.elems {
			if out.elems[i] == nil {
				out.elems[i] = ConstTerm{}
			}
		}
		return foldConst(out), nil
	case *parser.TupleLit:
		if len(e.Elems) == 1 && r.Typ.Kind != types.Tuple {
			// A term between parentheses (Tuples.Literal.prepare).
			return c.CompileTerm(e.Elems[0], r)
		}
		if r.Typ.Kind != types.Tuple || r.Typ.UDT != nil {
			return nil, notAssignableErr(query.Invalidf("Invalid tuple literal for %s of type %s", r.Name, r.Typ))
		}
		if len(e.Elems) > len(r.Typ.Params) {
			return nil, notAssignableErr(query.Invalidf("Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d", r.Name, r.Typ, len(r.Typ.Params), len(e.Elems)))
		}
		out := collectionTerm{recv: r}
		for i, el := range e.Elems {
			t, err := c.CompileTerm(el, r.Sub(fmt.Sprintf("%s[%d]", r.Name, i), r.Typ.Params[i]))
			if err != nil {
				var na *notAssignableError
				if errors.As(err, &na) {
					// Tuples.Literal.validateAssignableTo.
					return nil, notAssignableErr(query.Invalidf("Invalid tuple literal for %s: component %d is not of type %s", r.Name, i, r.Typ.Params[i]))
				}
				return nil, err
			}
			out.elems = append(out.elems, t)
		}
		for len(out.elems) < len(r.Typ.Params) {
			out.elems = append(out.elems, ConstTerm{})
		}
		return foldConst(out), nil
	case *parser.FuncCall:
		return c.compileCall(e, r)
	case *parser.Cast:
		return c.compileCastTerm(e, r)
	case *parser.TypeHint:
		ht, err := ConvertType(e.Type, nil)
		if err != nil {
			return nil, err
		}
		if !assignableType(ht, r.Typ) {
			return nil, notAssignableErr(query.Invalidf("Cannot assign value of type %s to %s of type %s", ht, r.Name, r.Typ))
		}
		return c.CompileTerm(e.Expr, r.Sub(r.Name, ht))
	case *parser.Neg:
		if k, ok := negativeConstant(e); ok {
			return c.CompileTerm(k, r)
		}
		return c.compileOpTerm('n', []parser.Expr{e.Expr}, r)
	case *parser.BinaryExpr:
		return c.compileOpTerm(opByte(e.Op), []parser.Expr{e.Left, e.Right}, r)
	}
	return nil, query.Invalidf("Invalid term %s for %s of type %s", e, r.Name, r.Typ)
}

func (c *CompileCtx) compileElems(elems []parser.Expr, kind string, r, er Receiver) (Term, error) {
	out := collectionTerm{recv: r}
	for _, el := range elems {
		t, err := c.CompileTerm(el, er)
		if err != nil {
			return nil, elementError(err, kind, r, "value ", el, er)
		}
		out.elems = append(out.elems, t)
	}
	return foldConst(out), nil
}

// foldConst evaluates a collection whose elements are all constants once, at
// compile time, so errors (duplicates, nulls) surface early and execution
// costs nothing.
func foldConst(t collectionTerm) Term {
	for _, e := range t.elems {
		if _, ok := e.(ConstTerm); !ok {
			return t
		}
	}
	v, err := t.Eval(nil)
	if err != nil {
		return t // report the error at execution, with the same text
	}
	return ConstTerm{V: v.Bytes}
}

// assignableType reports whether a value of type from may be stored in a
// receiver of type to.
func assignableType(from, to types.Type) bool {
	if from.Equal(to) {
		return true
	}
	if (from.Kind == types.Text || from.Kind == types.Ascii) && to.Kind == types.Text {
		return true
	}
	if to.Kind == types.Counter && from.Kind == types.Bigint {
		return true
	}
	if from.IsCollection() && from.Kind == to.Kind && len(from.Params) == len(to.Params) {
		for i := range from.Params {
			if !assignableType(from.Params[i], to.Params[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// rawType turns a parsed type (not a custom one) into the types package's
// unresolved form.
func rawType(t *parser.Type) types.RawType {
	r := types.RawType{Frozen: t.Frozen}
	switch t.Kind {
	case parser.TypeUser:
		r.Name, r.Keyspace, r.User = string(t.Name.Name), string(t.Name.Keyspace), true
	default:
		r.Name = t.Kind.String()
		for _, p := range t.Params {
			r.Params = append(r.Params, rawType(p))
		}
	}
	return r
}

// ConvertType turns a parsed type into a types.Type, resolving user-defined
// type names among the types of keyspace ks (nil: none).
func ConvertType(t *parser.Type, ks *schema.Keyspace) (types.Type, error) {
	if t.Kind == parser.TypeCustom {
		// The parser's CQL3Type.Custom: TypeParser resolves the class,
		// and a failure is a recognition error of the parser.
		ct, err := types.CustomType(t.Custom)
		if err != nil {
			return types.Type{}, &query.Error{Code: wire.CodeSyntax, Message: fmt.Sprintf("Error setting type '%s': %s", t.Custom, err)}
		}
		return ct, nil
	}
	if other := foreignUserType(t, ks); other != "" {
		return types.Type{}, query.Invalidf("Statement on keyspace %s cannot refer to a user type in keyspace %s; user types can only be used in the keyspace they are defined in", ks.Name, other)
	}
	var unknown string
	resolve := func(name string) (types.Type, bool) {
		if ks != nil {
			if ut, ok := ks.Type(name); ok {
				return ut, true
			}
		}
		if unknown == "" {
			unknown = name
			if ks != nil {
				unknown = ks.Name + "." + name
			}
		}
		return types.Type{}, false
	}
	out, err := rawType(t).Resolve(resolve)
	if err != nil {
		if unknown != "" {
			return types.Type{}, query.Invalidf("Unknown type %s", unknown)
		}
		if te := (*types.TypeError)(nil); errors.As(err, &te) && te.Refused {
			return types.Type{}, query.Invalidf("%s", te.Reason)
		}
		return types.Type{}, query.Invalidf("Unknown type %s", t)
	}
	return out, nil
}

// notAssignableError marks a compile error of a term that Cassandra's
// testAssignment finds not assignable to its receiver (a literal of another
// kind or shape, validateAssignableTo's errors), as opposed to a value that
// fails to parse. Inside a collection literal it becomes the literal's own
// error (elementError); elsewhere it is the wrapped error.
type notAssignableError struct{ err *query.Error }

func (e *notAssignableError) Error() string { return e.err.Error() }
func (e *notAssignableError) Unwrap() error { return e.err }

func notAssignableErr(err *query.Error) error { return &notAssignableError{err: err} }

// elementError turns the error of an element el of a kind ("list", "set" or
// "map") literal for r that is not assignable to its receiver er into the
// literal's error, as Lists/Sets/Maps.Literal.validateAssignableTo word it
// ("Invalid set literal for s: value (1, 2) is not of type int"); which is
// itself not assignable where the literal is an element of another one.
func elementError(err error, kind string, r Receiver, what string, el parser.Expr, er Receiver) error {
	var na *notAssignableError
	if !errors.As(err, &na) {
		return err
	}
	return notAssignableErr(query.Invalidf("Invalid %s literal for %s: %s%s is not of type %s", kind, r.Name, what, el, er.Typ))
}
