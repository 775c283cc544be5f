package expr

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Arithmetic operators (Cassandra 4: cql3/functions/OperationFcts). An
// operation is a call of a native function, _add, _substract, _multiply,
// _divide, _modulo or _negate, with one overload per pair of numeric types
// (and timestamp or date with a duration for + and -, and text or ascii
// for + since Cassandra 4.1), chosen as
// FunctionResolver chooses any overload: by how well each operand can be
// assigned to the overload's argument types, and, in a term, by the
// receiver's type. The values are computed by package types with Java's
// arithmetic.

// opOverload is one overload of an operation function.
type opOverload struct {
	op   byte // '+', '-', '*', '/', '%', or 'n' for negation
	name string
	args []types.Type
	ret  types.Type
}

// opNames are the native functions behind the operators.
var opNames = map[byte]string{'+': "_add", '-': "_substract", '*': "_multiply", '/': "_divide", '%': "_modulo", 'n': "_negate"}

// opOverloads lists each operator's overloads in Cassandra's registration
// order (OperationFcts.all), which decides between equally good matches.
var opOverloads = map[byte][]*opOverload{}

func init() {
	numeric := []types.Type{types.TinyintType, types.SmallintType, types.IntType, types.BigintType, types.FloatType,
		types.DoubleType, types.DecimalType, types.VarintType, types.CounterType}
	for _, op := range []byte{'+', '-', '*', '/', '%'} {
		for _, l := range numeric {
			for _, r := range numeric {
				opOverloads[op] = append(opOverloads[op], &opOverload{op: op, name: opNames[op], args: []types.Type{l, r}, ret: types.ArithResultType(l, r)})
			}
		}
	}
	for _, op := range []byte{'+', '-'} {
		for _, t := range []types.Type{types.TimestampType, types.DateType} {
			opOverloads[op] = append(opOverloads[op], &opOverload{op: op, name: opNames[op], args: []types.Type{t, types.DurationType}, ret: t})
		}
	}
	// Cassandra 4.1's string concatenation (addStringConcatenations).
	text, ascii := types.TextType, types.AsciiType
	for _, sig := range [][3]types.Type{{text, text, text}, {ascii, ascii, ascii}, {ascii, text, text}, {text, ascii, text}} {
		opOverloads['+'] = append(opOverloads['+'], &opOverload{op: '+', name: "_add", args: []types.Type{sig[0], sig[1]}, ret: sig[2]})
	}
	for _, t := range numeric {
		opOverloads['n'] = append(opOverloads['n'], &opOverload{op: 'n', name: "_negate", args: []types.Type{t}, ret: t})
	}
}

// signature is the overload's argument types, as error extras list them.
func (o *opOverload) signature() []string {
	out := make([]string, len(o.args))
	for i, a := range o.args {
		out[i] = a.String()
	}
	return out
}

// apply computes the operation on non-empty values.
func (o *opOverload) apply(vals [][]byte) ([]byte, error) {
	switch {
	case o.op == 'n':
		return types.Negate(o.args[0], vals[0]), nil
	case o.args[1].Kind == types.Duration:
		return types.AddDuration(o.args[0], vals[0], vals[1], o.op == '-')
	case o.ret.Kind == types.Text || o.ret.Kind == types.Ascii:
		return append(append(make([]byte, 0, len(vals[0])+len(vals[1])), vals[0]...), vals[1]...), nil
	}
	return types.Arith(types.ArithOp(o.op), o.ret, o.args[0], vals[0], o.args[1], vals[1])
}

// Eval applies the operation to argument values: null if any is null or
// empty (OperationFunction.execute), an error wrapped as Cassandra wraps it
// (OperationExecutionException: "the operation 'int / int' failed: / by
// zero", a function failure of system._divide) otherwise.
func (o *opOverload) Eval(vals [][]byte) ([]byte, error) {
	for _, v := range vals {
		if len(v) == 0 {
			return nil, nil
		}
	}
	b, err := o.apply(vals)
	if err != nil {
		msg := fmt.Sprintf("the operation '%s %c %s' failed: %v", o.args[0], o.op, o.args[len(o.args)-1], err)
		return nil, &query.Error{Code: wire.CodeFunctionFailure, Message: msg, Keyspace: "system", Function: o.name, ArgTypes: o.signature()}
	}
	return b, nil
}

// assignment is how well a value can be assigned to a type
// (AssignmentTestable.TestResult).
type assignment uint8

const (
	notAssignable assignment = iota
	weaklyAssignable
	exactMatch
)

// opArg is an operand as overload resolution sees it: its text in
// messages, whether it is a bind marker, and how well it assigns to a type.
// The text is computed only for a message: it is as long as the operand,
// and computing it for every operand of a chain would cost time quadratic
// in the chain's length.
type opArg struct {
	text   func() string
	marker bool
	assign func(types.Type) assignment
}

// resolveOp picks the overload of op for args (FunctionResolver.get and
// pickBestMatch). recv is the receiver's type in a term, Invalid in a
// selection.
func (c *CompileCtx) resolveOp(op byte, args []opArg, recv types.Type) (*opOverload, error) {
	var compatible []*opOverload
	for _, o := range opOverloads[op] {
		c.work++
		if recv.Kind != types.Invalid && typeAssignment(o.ret, recv) == notAssignable {
			continue
		}
		match := exactMatch
		for i, a := range args {
			match = min(match, a.assign(o.args[i]))
		}
		switch match {
		case exactMatch:
			return o, nil
		case weaklyAssignable:
			compatible = append(compatible, o)
		}
	}
	markers := false
	for _, a := range args {
		markers = markers || a.marker
	}
	switch {
	case len(compatible) == 1:
		return compatible[0], nil
	case c.probing > 0 && (len(compatible) == 0 || recv.Kind == types.Invalid || markers):
		// A probe only needs to know that resolution failed: the
		// message would cost time linear in the operands' size, at
		// every level of a nested expression.
		return nil, errProbe
	case len(compatible) == 0 && op == 'n':
		return nil, query.Invalidf("Invalid call to function system._negate, none of its type signatures match (known type signatures: %s)", opSignatures(opOverloads['n']))
	case len(compatible) == 0:
		return nil, query.Invalidf("the '%c' operation is not supported between %s and %s", op, args[0].text(), args[1].text())
	case recv.Kind != types.Invalid && !markers:
		for _, o := range compatible {
			if o.args[0].Equal(recv) && (len(o.args) == 1 || o.args[1].Equal(recv)) {
				return o, nil
			}
		}
	}
	if op == 'n' {
		return nil, query.Invalidf("Ambiguous negation: use type casts to disambiguate")
	}
	return nil, query.Invalidf("Ambiguous '%c' operation with args %s and %s: use type casts to disambiguate", op, args[0].text(), args[1].text())
}

// errProbe is the error of a resolution that fails while it is probed
// (nestedAssignment), whose message nobody reads.
var errProbe = query.Invalidf("no overload")

func opSignatures(os []*opOverload) string {
	parts := make([]string, len(os))
	for i, o := range os {
		parts[i] = fmt.Sprintf("system.%s : (%s) -> %s", o.name, strings.Join(o.signature(), ", "), o.ret)
	}
	return strings.Join(parts, ", ")
}

// typeAssignment is AbstractType.testAssignment: a value of type from is an
// exact match for the same type, weakly assignable to a type that accepts
// its bytes (valueCompatible), and not assignable otherwise.
func typeAssignment(from, to types.Type) assignment {
	// AbstractType.testAssignment: a value that is not multi-cell (a
	// frozen collection, tuple or user type) is weighed against the frozen
	// form of the receiver, as frozen<> makes no difference to a value.
	if (from.IsCollection() || from.Kind == types.Tuple) && from.Frozen {
		to = to.Freeze()
	}
	switch {
	case from.Equal(to):
		return exactMatch
	case valueCompatible(to, from):
		return weaklyAssignable
	}
	return notAssignable
}

// valueCompatible is AbstractType.isValueCompatibleWith: whether a column
// of type to can read the bytes of a value of type from.
func valueCompatible(to, from types.Type) bool {
	switch to.Kind {
	case types.Blob:
		return true
	case types.Text:
		return from.Kind == types.Ascii
	case types.Varint:
		return from.Kind == types.Int || from.Kind == types.Bigint || from.Kind == types.Timestamp
	case types.Bigint:
		return from.Kind == types.Timestamp
	case types.Timestamp:
		return from.Kind == types.Bigint
	case types.Counter:
		return from.Kind == types.Bigint
	case types.UUID:
		return from.Kind == types.TimeUUID // UUIDType.isValueCompatibleWithInternal
	}
	return false
}

// literalAssignment is Constants.Literal.testAssignment: an integer is an
// exact match for the smallest of int, bigint and varint that holds it and
// weakly assignable to the other numeric and time types; a float is exact
// for double (or decimal when a double cannot hold it) and weak for float
// and decimal; a string is exact for ascii (text when it is not ASCII) and
// weak for the other text and time types; a duration is weak for
// duration; null for anything but a counter.
func literalAssignment(c *parser.Constant, t types.Type) assignment {
	k := t.Kind
	switch c.Kind {
	case parser.ConstNull:
		if k == types.Counter {
			return notAssignable
		}
		return weaklyAssignable
	case parser.ConstInteger:
		preferred := types.VarintType
		if v, ok := new(big.Int).SetString(c.Value(), 10); ok {
			switch {
			case v.IsInt64() && int64(int32(v.Int64())) == v.Int64():
				preferred = types.IntType
			case v.IsInt64():
				preferred = types.BigintType
			}
		}
		if k == preferred.Kind {
			return exactMatch
		}
		switch k {
		case types.Bigint, types.Counter, types.Date, types.Decimal, types.Double, types.Duration, types.Float,
			types.Int, types.Smallint, types.Time, types.Timestamp, types.Tinyint, types.Varint:
			return weaklyAssignable
		}
	case parser.ConstFloat:
		preferred := types.Decimal
		if v, ok := types.ParseDecimal(c.Value()); ok {
			if d, ok := types.ParseDecimal(types.JavaFloat(mustFloat(c.Value()), 64)); ok && d.Scale == v.Scale && d.Unscaled.Cmp(v.Unscaled) == 0 {
				preferred = types.Double
			}
		} else {
			preferred = types.Double // NaN, Infinity
		}
		if k == preferred {
			return exactMatch
		}
		if k == types.Decimal || k == types.Double || k == types.Float {
			return weaklyAssignable
		}
	case parser.ConstString:
		// The preferred type is ascii when every character is ASCII,
		// text otherwise.
		preferred := types.Ascii
		for _, r := range c.Value() {
			if r > 127 {
				preferred = types.Text
				break
			}
		}
		if k == preferred {
			return exactMatch
		}
		switch k {
		case types.Ascii, types.Text, types.Inet, types.Date, types.Time, types.Timestamp:
			return weaklyAssignable
		}
	case parser.ConstDuration:
		if k == types.Duration {
			return weaklyAssignable
		}
	case parser.ConstBoolean:
		if k == types.Boolean {
			return exactMatch
		}
	case parser.ConstUUID:
		if k == types.UUID || k == types.TimeUUID {
			return weaklyAssignable
		}
	case parser.ConstHex:
		if k == types.Blob {
			return weaklyAssignable
		}
	}
	return notAssignable
}

func mustFloat(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// negativeConstant returns -n for a negated numeric literal: Cassandra's
// lexer reads "-1" as one literal, not as a negation.
func negativeConstant(e parser.Expr) (*parser.Constant, bool) {
	n, ok := e.(*parser.Neg)
	if !ok {
		return nil, false
	}
	k, ok := n.Expr.(*parser.Constant)
	if !ok || (k.Kind != parser.ConstInteger && k.Kind != parser.ConstFloat) || strings.HasPrefix(k.Raw, "-") {
		return nil, false
	}
	return &parser.Constant{Kind: k.Kind, Raw: "-" + k.Raw}, true
}

// unparen returns the element of a one-element tuple literal, which the
// grammar cannot tell from a parenthesized term (Tuples.Literal.prepare).
func unparen(e parser.Expr, t types.Type) parser.Expr {
	if tl, ok := e.(*parser.TupleLit); ok && len(tl.Elems) == 1 && t.Kind != types.Tuple {
		return tl.Elems[0]
	}
	return e
}

// termArg describes a term operand for resolution.
func (c *CompileCtx) termArg(e parser.Expr, r Receiver) opArg {
	if k, ok := negativeConstant(e); ok {
		e = k
	}
	a := opArg{text: func() string { return c.termText(e) }}
	switch e := e.(type) {
	case *parser.Constant:
		a.assign = func(t types.Type) assignment { return literalAssignment(e, t) }
	case *parser.BindMarker:
		a.marker = true
		a.assign = func(types.Type) assignment { return weaklyAssignable }
	case *parser.TypeHint:
		ht, err := ConvertType(e.Type, nil)
		a.assign = func(t types.Type) assignment {
			if err != nil {
				return notAssignable
			}
			return typeAssignment(ht, t)
		}
	case *parser.Cast:
		// A cast's result is of its type, whatever overload it calls.
		ct, err := ConvertType(e.Type, nil)
		a.assign = func(t types.Type) assignment {
			if err != nil {
				return notAssignable
			}
			return typeAssignment(ct, t)
		}
	default:
		// A nested operation or function call: its result type for the
		// argument type, weakly assignable when it cannot be resolved
		// yet (FunctionCall.Raw.testAssignment).
		a.assign = func(t types.Type) assignment { return c.nestedAssignment(e, r, t) }
	}
	return a
}

// nestedKey identifies a nested expression resolved for a type.
type nestedKey struct {
	e parser.Expr
	t string
}

// nestedAssignment is how the nested expression e assigns to t, resolved
// once per (e, t) for the whole statement. The probe compilation records
// no bind markers.
func (c *CompileCtx) nestedAssignment(e parser.Expr, r Receiver, t types.Type) assignment {
	if c.nested == nil {
		c.nested = map[nestedKey]assignment{}
	}
	k := nestedKey{e, t.String()}
	if a, ok := c.nested[k]; ok {
		return a
	}
	a := weaklyAssignable
	var o *opOverload
	var err error
	if err := c.enter(); err != nil {
		return notAssignable
	}
	c.probing++
	defer func() { c.probing--; c.leave() }()
	switch e := unparen(e, types.Type{}).(type) {
	case *parser.FuncCall:
		// FunctionCall.Raw.testAssignment: the call resolved for t is an
		// exact match when it returns t, weakly assignable when t reads
		// its result or it cannot be resolved, and fromJson() is always
		// weakly assignable.
		fn, err := c.resolveTermCall(e, r.Sub(r.Name, t))
		if err == nil && fn.name != "fromjson" {
			a = typeAssignment(fn.ret, t)
		}
		c.nested[k] = a
		return a
	case *parser.BinaryExpr:
		o, err = c.resolveTermOp(opByte(e.Op), []parser.Expr{e.Left, e.Right}, r.Sub(r.Name, t))
	case *parser.Neg:
		if _, ok := negativeConstant(e); !ok {
			o, err = c.resolveTermOp('n', []parser.Expr{e.Expr}, r.Sub(r.Name, t))
		}
	}
	if o != nil && err == nil {
		a = typeAssignment(o.ret, t)
	}
	c.nested[k] = a
	return a
}

// opByte is the operator of a parsed binary expression.
func opByte(op parser.ArithOp) byte { return "?+-*/%"[op] }

// termText is how an operand shows in messages: a literal as written, a
// marker as ?, a nested operation as the function call it is. It writes
// into one builder, so that its cost is linear in the operand's size.
func (c *CompileCtx) termText(e parser.Expr) string {
	var b strings.Builder
	writeTermText(&b, e)
	c.work += b.Len()
	return b.String()
}

func writeTermText(b *strings.Builder, e parser.Expr) {
	switch e := e.(type) {
	case *parser.BindMarker:
		b.WriteString("?")
		return
	case *parser.BinaryExpr:
		b.WriteString("system.")
		b.WriteString(opNames[opByte(e.Op)])
		b.WriteString("(")
		writeTermText(b, e.Left)
		b.WriteString(", ")
		writeTermText(b, e.Right)
		b.WriteString(")")
		return
	case *parser.Neg:
		if k, ok := negativeConstant(e); ok {
			b.WriteString(k.Raw)
			return
		}
		b.WriteString("system._negate(")
		writeTermText(b, e.Expr)
		b.WriteString(")")
		return
	case *parser.TypeHint:
		b.WriteString("(" + e.Type.String() + ")") // TypeCast.toString
		writeTermText(b, e.Expr)
		return
	}
	e.Format(b)
}

// opTerm is an operation in a term.
type opTerm struct {
	o    *opOverload
	args []Term
}

func (t opTerm) Eval(q *query.Execution) (query.Value, error) {
	vals, err := evalArgs(q, t.args, t.o.name)
	if err != nil {
		return query.Value{}, err
	}
	b, err := t.o.Eval(vals)
	return query.Value{Bytes: b}, err
}

// compileOpTerm compiles an operation (operands, or one operand for a
// negation) used as a term for receiver r.
func (c *CompileCtx) compileOpTerm(op byte, operands []parser.Expr, r Receiver) (Term, error) {
	o, err := c.resolveTermOp(op, operands, r)
	if err != nil {
		return nil, err
	}
	out := opTerm{o: o, args: make([]Term, len(operands))}
	for i, e := range operands {
		if out.args[i], err = c.CompileTerm(unparen(e, types.Type{}), r.Sub(fmt.Sprintf("arg%d(system.%s)", i, o.name), o.args[i])); err != nil {
			return nil, err
		}
	}
	if isConstTerms(out.args) {
		// Operations on constants fold at compile time; an error is
		// reported at execution, with the same text.
		if v, err := out.Eval(&query.Execution{}); err == nil {
			return ConstTerm{V: v.Bytes}, nil
		}
	}
	return out, nil
}

// resolveTermOp picks the overload of an operation used as a term for
// receiver r.
func (c *CompileCtx) resolveTermOp(op byte, operands []parser.Expr, r Receiver) (*opOverload, error) {
	args := make([]opArg, len(operands))
	for i, e := range operands {
		args[i] = c.termArg(unparen(e, types.Type{}), r)
	}
	return c.resolveOp(op, args, r.Typ)
}

// opSel is an operation in a selection.
type opSel struct {
	o     *opOverload
	args  []Selector
	label string
}

func (s *opSel) Name() string    { return s.label }
func (s *opSel) Typ() types.Type { return s.o.ret }
func (s *opSel) Aggregate() bool { return anyAggregate(s.args) }

func (s *opSel) NewEval() Evaluator {
	return newCallEval(s.args, func(_ *query.Execution, vals [][]byte) ([]byte, error) { return s.o.Eval(vals) })
}

// parenSel is a parenthesized selector: the same values, named "(x)".
type parenSel struct{ Selector }

func (s parenSel) Name() string { return "(" + s.Selector.Name() + ")" }

// compileOpSelector compiles an operation in a selection. Operands that are
// literals take the chosen overload's argument type; "SELECT 1 + 1" is an
// int.
func (c *CompileCtx) compileOpSelector(tbl *schema.Table, op byte, operands []parser.Expr) (Selector, error) {
	args := make([]opArg, len(operands))
	sels := make([]Selector, len(operands))
	for i, e := range operands {
		if k, ok := negativeConstant(e); ok {
			e, operands[i] = k, k
		}
		switch e := e.(type) {
		case *parser.Constant:
			args[i] = opArg{text: e.String, assign: func(t types.Type) assignment { return literalAssignment(e, t) }}
		case *parser.BindMarker:
			args[i] = opArg{text: func() string { return "?" }, marker: true, assign: func(types.Type) assignment { return weaklyAssignable }}
		default:
			s, err := c.CompileSelector(tbl, e)
			if err != nil {
				return nil, err
			}
			sels[i] = s
			st := s.Typ()
			args[i] = opArg{text: s.Name, assign: func(t types.Type) assignment { return typeAssignment(st, t) }}
		}
	}
	o, err := c.resolveOp(op, args, types.Type{})
	if err != nil {
		return nil, err
	}
	for i, e := range operands {
		if sels[i] != nil {
			continue
		}
		label := c.termText(e)
		tm, err := c.CompileTerm(e, Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: fmt.Sprintf("arg%d(system.%s)", i, o.name), Typ: o.args[i]})
		if err != nil {
			return nil, err
		}
		sels[i] = termSelector(label, o.args[i], tm)
	}
	label := "-" + sels[0].Name()
	if op != 'n' {
		label = fmt.Sprintf("%s %c %s", sels[0].Name(), op, sels[1].Name())
	}
	return &opSel{o: o, args: sels, label: label}, nil
}
