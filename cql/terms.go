package cql

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// receiver is what a term is assigned to: a column, a collection element, or
// a synthetic receiver such as [limit] or [ttl]. Its name is used in error
// messages and as the bind marker's name in PREPARE metadata, as Cassandra
// names them (value(l), key(m), in(k), [limit], ...).
type receiver struct {
	ks, table, name string
	typ             types.Type
}

func (r receiver) spec() ColumnSpec {
	return ColumnSpec{Keyspace: r.ks, Table: r.table, Name: r.name, Type: r.typ}
}

func (r receiver) sub(name string, t types.Type) receiver {
	return receiver{ks: r.ks, table: r.table, name: name, typ: t}
}

// term is a compiled term: it evaluates to a value at execution time.
type term interface {
	eval(q *execution) (Value, error)
}

// constTerm is a value known at compile time (nil = null).
type constTerm struct{ v []byte }

func (t constTerm) eval(*execution) (Value, error) { return Value{Bytes: t.v}, nil }

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

func (nowTerm) eval(q *execution) (Value, error) {
	return Value{Bytes: int64Bytes(q.now.UnixMilli())}, nil
}

// bindTerm reads a bound value, validates it against its receiver's type
// and puts it in canonical form (types.Normalize).
type bindTerm struct {
	idx  int
	recv receiver
}

func (t bindTerm) eval(q *execution) (Value, error) {
	if t.idx >= len(q.values) {
		return Value{}, invalidf("No value bound for %s", t.recv.name)
	}
	v := q.values[t.idx]
	if v.Unset || v.Bytes == nil {
		return v, nil
	}
	b, err := types.Normalize(t.recv.typ, v.Bytes) // sets and maps sorted, as Cassandra binds them
	if err != nil {
		return Value{}, invalidf("Invalid value for %s of type %s: %v", t.recv.name, t.recv.typ, unwrapReason(err))
	}
	v.Bytes = b
	return v, nil
}

func unwrapReason(err error) string {
	var ve *types.ValueError
	if errors.As(err, &ve) {
		return ve.Reason
	}
	return err.Error()
}

// collectionTerm builds a list, set, map or tuple literal from element terms.
type collectionTerm struct {
	recv  receiver
	elems []term // for maps: key, value, key, value...
}

func (t collectionTerm) eval(q *execution) (Value, error) {
	vals := make([][]byte, len(t.elems))
	for i, e := range t.elems {
		v, err := e.eval(q)
		if err != nil {
			return Value{}, err
		}
		if v.Unset {
			return Value{}, invalidf("Invalid unset value in collection literal for %s", t.recv.name)
		}
		if v.Bytes == nil && t.recv.typ.Kind != types.Tuple {
			return Value{}, invalidf("null is not supported inside collections")
		}
		vals[i] = v.Bytes
	}
	var b []byte
	var err error
	switch t.recv.typ.Kind {
	case types.List:
		b = types.EncodeList(vals)
	case types.Set:
		b, err = types.EncodeSet(t.recv.typ, vals)
	case types.Map:
		keys, values := make([][]byte, 0, len(vals)/2), make([][]byte, 0, len(vals)/2)
		for i := 0; i+1 < len(vals); i += 2 {
			keys, values = append(keys, vals[i]), append(values, vals[i+1])
		}
		b, err = types.EncodeMap(t.recv.typ, keys, values)
	case types.Tuple:
		b = types.EncodeTuple(vals)
	}
	if err != nil {
		return Value{}, invalidf("Invalid collection literal for %s: %v", t.recv.name, err)
	}
	return Value{Bytes: b}, nil
}

// funcTerm calls a scalar function on argument terms.
type funcTerm struct {
	fn   *function
	args []term
}

func (t funcTerm) eval(q *execution) (Value, error) {
	args := make([][]byte, len(t.args))
	for i, a := range t.args {
		v, err := a.eval(q)
		if err != nil {
			return Value{}, err
		}
		if v.Unset {
			return Value{}, invalidf("Invalid unset value for argument in call to function %s", t.fn.name)
		}
		args[i] = v.Bytes
	}
	b, err := t.fn.impl(q, args)
	if err != nil {
		return Value{}, &Error{Code: wire.CodeFunctionFailure, Message: fmt.Sprintf("execution of 'system.%s[%s]' failed: %v", t.fn.name, t.fn.argList(), err)}
	}
	return Value{Bytes: b}, nil
}

// compileCtx collects the bind markers of a statement while it compiles.
type compileCtx struct {
	specs []ColumnSpec
	// nested memoizes how a nested operation or call assigns to a type
	// during overload resolution (operations.go), so that resolving an
	// expression costs time linear in its size, not exponential in its
	// depth.
	nested map[nestedKey]assignment
}

func newCompileCtx(n int) *compileCtx {
	return &compileCtx{specs: make([]ColumnSpec, n)}
}

func (c *compileCtx) bind(m *parser.BindMarker, r receiver) bindTerm {
	for len(c.specs) <= m.Index {
		c.specs = append(c.specs, ColumnSpec{})
	}
	c.specs[m.Index] = r.spec()
	return bindTerm{idx: m.Index, recv: r}
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
func literalError(err error, c *parser.Constant, r receiver) *Error {
	var le *types.LiteralError
	if errors.As(err, &le) && !le.Mismatch && le.Reason != "" {
		return invalidf("%s", le.Reason)
	}
	return invalidf("Invalid %s constant (%s) for \"%s\" of type %s", constKind(c.Kind), c.Value(), r.name, r.typ)
}

// compileTerm compiles expression e as a value for receiver r.
func (c *compileCtx) compileTerm(e parser.Expr, r receiver) (term, error) {
	switch e := e.(type) {
	case *parser.Constant:
		if e.Kind == parser.ConstNull {
			return constTerm{}, nil
		}
		t := r.typ
		if t.Kind == types.Counter {
			t = types.BigintType
		}
		if t.IsCollection() || t.Kind == types.Tuple {
			return nil, invalidf("Invalid %s constant (%s) for \"%s\" of type %s", constKind(e.Kind), e.Value(), r.name, r.typ)
		}
		if t.Kind == types.Timestamp && e.Kind == parser.ConstString && strings.EqualFold(e.Value(), "now") {
			// TimestampSerializer.dateStringToTimestamp: the current time.
			return nowTerm{}, nil
		}
		b, err := types.FromConstant(t, constKind(e.Kind), e.Value())
		if err != nil {
			return nil, literalError(err, e, r)
		}
		return constTerm{v: b}, nil
	case *parser.BindMarker:
		return c.bind(e, r), nil
	case *parser.ListLit:
		if r.typ.Kind != types.List {
			return nil, invalidf("Invalid list literal for %s of type %s", r.name, r.typ)
		}
		return c.compileElems(e.Elems, r, r.sub("value("+r.name+")", r.typ.Params[0]))
	case *parser.SetLit:
		switch r.typ.Kind {
		case types.Set:
			return c.compileElems(e.Elems, r, r.sub("value("+r.name+")", r.typ.Params[0]))
		case types.List:
			// Cassandra rejects a set literal for a list.
		}
		return nil, invalidf("Invalid set literal for %s of type %s", r.name, r.typ)
	case *parser.MapLit:
		if r.typ.Kind != types.Map {
			return nil, invalidf("Invalid map literal for %s of type %s", r.name, r.typ)
		}
		kr, vr := r.sub("key("+r.name+")", r.typ.Params[0]), r.sub("value("+r.name+")", r.typ.Params[1])
		out := collectionTerm{recv: r}
		for _, en := range e.Entries {
			k, err := c.compileTerm(en.Key, kr)
			if err != nil {
				return nil, err
			}
			v, err := c.compileTerm(en.Value, vr)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, k, v)
		}
		return foldConst(out), nil
	case *parser.EmptyBraces:
		if r.typ.Kind != types.Set && r.typ.Kind != types.Map {
			return nil, invalidf("Invalid set literal for %s of type %s", r.name, r.typ)
		}
		return foldConst(collectionTerm{recv: r}), nil
	case *parser.UDTLit:
		if r.typ.UDT == nil {
			return nil, invalidf("Invalid user type literal for %s of type %s", r.name, r.typ)
		}
		// Fields by name, the others null (UserTypes.Literal).
		ut := r.typ.UDT
		out := collectionTerm{recv: r, elems: make([]term, len(ut.Fields))}
		for _, f := range e.Fields {
			i := slices.Index(ut.Fields, string(f.Name))
			if i < 0 {
				return nil, invalidf("Unknown field '%s' in value of user defined type %s", f.Name, ut.Name)
			}
			if out.elems[i] != nil {
				return nil, invalidf("Duplicate field '%s' in user type literal for %s", f.Name, r.name)
			}
			t, err := c.compileTerm(f.Value, r.sub(r.name+"."+ut.Fields[i], r.typ.Params[i]))
			if err != nil {
				return nil, err
			}
			out.elems[i] = t
		}
		for i := range out.elems {
			if out.elems[i] == nil {
				out.elems[i] = constTerm{}
			}
		}
		return foldConst(out), nil
	case *parser.TupleLit:
		if len(e.Elems) == 1 && r.typ.Kind != types.Tuple {
			// A term between parentheses (Tuples.Literal.prepare).
			return c.compileTerm(e.Elems[0], r)
		}
		if r.typ.Kind != types.Tuple || r.typ.UDT != nil {
			return nil, invalidf("Invalid tuple literal for %s of type %s", r.name, r.typ)
		}
		if len(e.Elems) > len(r.typ.Params) {
			return nil, invalidf("Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d", r.name, r.typ, len(r.typ.Params), len(e.Elems))
		}
		out := collectionTerm{recv: r}
		for i, el := range e.Elems {
			t, err := c.compileTerm(el, r.sub(fmt.Sprintf("%s[%d]", r.name, i), r.typ.Params[i]))
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, t)
		}
		for len(out.elems) < len(r.typ.Params) {
			out.elems = append(out.elems, constTerm{})
		}
		return foldConst(out), nil
	case *parser.FuncCall:
		return c.compileCall(e, r)
	case *parser.TypeHint:
		ht, err := convertType(e.Type, nil)
		if err != nil {
			return nil, err
		}
		if !assignableType(ht, r.typ) {
			return nil, invalidf("Cannot assign value of type %s to %s of type %s", ht, r.name, r.typ)
		}
		return c.compileTerm(e.Expr, r.sub(r.name, ht))
	case *parser.Neg:
		if k, ok := negativeConstant(e); ok {
			return c.compileTerm(k, r)
		}
		return c.compileOpTerm('n', []parser.Expr{e.Expr}, r)
	case *parser.BinaryExpr:
		return c.compileOpTerm(opByte(e.Op), []parser.Expr{e.Left, e.Right}, r)
	}
	return nil, invalidf("Invalid term %s for %s of type %s", e, r.name, r.typ)
}

func (c *compileCtx) compileElems(elems []parser.Expr, r, er receiver) (term, error) {
	out := collectionTerm{recv: r}
	for _, el := range elems {
		t, err := c.compileTerm(el, er)
		if err != nil {
			return nil, err
		}
		out.elems = append(out.elems, t)
	}
	return foldConst(out), nil
}

// foldConst evaluates a collection whose elements are all constants once, at
// compile time, so errors (duplicates, nulls) surface early and execution
// costs nothing.
func foldConst(t collectionTerm) term {
	for _, e := range t.elems {
		if _, ok := e.(constTerm); !ok {
			return t
		}
	}
	v, err := t.eval(nil)
	if err != nil {
		return t // report the error at execution, with the same text
	}
	return constTerm{v: v.Bytes}
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

// convertType turns a parsed type into a types.Type, resolving user-defined
// type names among the types of keyspace ks (nil: none).
func convertType(t *parser.Type, ks *schema.Keyspace) (types.Type, error) {
	if t.Kind == parser.TypeCustom {
		return types.Type{}, invalidf("Custom types are not supported: %s", t.Custom)
	}
	if other := foreignUserType(t, ks); other != "" {
		return types.Type{}, invalidf("Statement on keyspace %s cannot refer to a user type in keyspace %s; user types can only be used in the keyspace they are defined in", ks.Name, other)
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
			return types.Type{}, invalidf("Unknown type %s", unknown)
		}
		if te := (*types.TypeError)(nil); errors.As(err, &te) && te.Refused {
			return types.Type{}, invalidf("%s", te.Reason)
		}
		return types.Type{}, invalidf("Unknown type %s", t)
	}
	return out, nil
}
