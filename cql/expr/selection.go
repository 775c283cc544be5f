package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Selector is one compiled selector of a SELECT clause. Selectors are
// shared by concurrent executions, so per-execution state lives in the
// evaluator that newEval returns, following Cassandra's Selector model:
// add feeds a row (aggregates accumulate, others keep the first row's
// value, which is what GROUP BY returns for plain columns), out returns the
// value and reset starts a new group.
type Selector interface {
	// name is the result column name, as Cassandra names it
	// (cql3/selection/Selectable*.toString / columnName).
	Name() string
	Typ() types.Type
	// aggregate reports whether the selector is, or contains, an aggregate.
	Aggregate() bool
	NewEval() Evaluator
}

// Evaluator is the per-execution state of a selector.
type Evaluator interface {
	Add(q *query.Execution, r *SelRow) error
	Out(q *query.Execution) ([]byte, error)
	Reset()
}

// firstValue keeps the first value fed to it.
type firstValue struct {
	set bool
	v   []byte
	fn  func(q *query.Execution, r *SelRow) ([]byte, error)
}

func (f *firstValue) Add(q *query.Execution, r *SelRow) error {
	if f.set {
		return nil
	}
	v, err := f.fn(q, r)
	if err != nil {
		return err
	}
	f.set, f.v = true, v
	return nil
}

func (f *firstValue) Out(*query.Execution) ([]byte, error) { return f.v, nil }
func (f *firstValue) Reset()                               { f.set, f.v = false, nil }

// ColumnSel selects a column.
type ColumnSel struct{ Col *schema.Column }

func (s *ColumnSel) Name() string    { return s.Col.Name }
func (s *ColumnSel) Typ() types.Type { return s.Col.Type }
func (s *ColumnSel) Aggregate() bool { return false }
func (s *ColumnSel) NewEval() Evaluator {
	return &firstValue{fn: func(_ *query.Execution, r *SelRow) ([]byte, error) { return r.Value(s.Col), nil }}
}

// tokenSel is token(k1, ...): the partition's token under the node's
// partitioner (TokenValue), a bigint or a blob.
type tokenSel struct {
	label string
	part  partitioner.Partitioner
}

func (s *tokenSel) Name() string    { return s.label }
func (s *tokenSel) Typ() types.Type { return TokenType(s.part) }
func (s *tokenSel) Aggregate() bool { return false }
func (s *tokenSel) NewEval() Evaluator {
	return &firstValue{fn: func(_ *query.Execution, r *SelRow) ([]byte, error) {
		key, err := query.SerializePartitionKey(r.Pk)
		if err != nil {
			return nil, err
		}
		return TokenValue(s.part, key), nil
	}}
}

// metaSel is writetime(c) or ttl(c).
type metaSel struct {
	col *schema.Column
	ttl bool
}

func (s *metaSel) Name() string {
	if s.ttl {
		return "ttl(" + s.col.Name + ")"
	}
	return "writetime(" + s.col.Name + ")"
}

func (s *metaSel) Typ() types.Type {
	if s.ttl {
		return types.IntType
	}
	return types.BigintType
}

func (s *metaSel) Aggregate() bool { return false }

func (s *metaSel) NewEval() Evaluator {
	return &firstValue{fn: func(_ *query.Execution, r *SelRow) ([]byte, error) {
		c := r.cell(s.col)
		if c == nil {
			return nil, nil
		}
		if !s.ttl {
			return Int64Bytes(c.Timestamp), nil
		}
		if c.TTL <= 0 {
			return nil, nil
		}
		left := c.LocalDeletionTime - r.Now
		return int32Bytes(int32(left)), nil
	}}
}

func int32Bytes(v int32) []byte {
	return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// constSel is a literal used as a selector argument (f('x')).
type constSel struct {
	label string
	t     types.Type
	v     []byte
}

func (s *constSel) Name() string    { return s.label }
func (s *constSel) Typ() types.Type { return s.t }
func (s *constSel) Aggregate() bool { return false }
func (s *constSel) NewEval() Evaluator {
	return &firstValue{fn: func(*query.Execution, *SelRow) ([]byte, error) { return s.v, nil }}
}

// termSel is a term whose value is known only at execution (a bind
// marker) used as a selector.
type termSel struct {
	label string
	t     types.Type
	tm    Term
}

func (s *termSel) Name() string    { return s.label }
func (s *termSel) Typ() types.Type { return s.t }
func (s *termSel) Aggregate() bool { return false }
func (s *termSel) NewEval() Evaluator {
	return &firstValue{fn: func(q *query.Execution, _ *SelRow) ([]byte, error) {
		v, err := s.tm.Eval(q)
		return v.Bytes, err // unset selects null
	}}
}

// termSelector is the selector of a compiled term: a constant, or a term
// evaluated at each execution.
func termSelector(label string, t types.Type, tm Term) Selector {
	if ct, ok := tm.(ConstTerm); ok {
		return &constSel{label: label, t: t, v: ct.V}
	}
	return &termSel{label: label, t: t, tm: tm}
}

// funcSel applies a native scalar function to its argument selectors.
type funcSel struct {
	fn   *function
	args []Selector
}

func (s *funcSel) Name() string {
	parts := make([]string, len(s.args))
	for i, a := range s.args {
		parts[i] = a.Name()
	}
	return s.fn.qualifiedName() + "(" + strings.Join(parts, ", ") + ")"
}

func (s *funcSel) Typ() types.Type { return s.fn.ret }

func (s *funcSel) Aggregate() bool { return anyAggregate(s.args) }

func (s *funcSel) NewEval() Evaluator {
	return newCallEval(s.args, func(q *query.Execution, vals [][]byte) ([]byte, error) {
		b, err := s.fn.impl(q, vals)
		if err != nil {
			return nil, functionError(s.fn, err)
		}
		return b, nil
	})
}

// anyAggregate reports whether one of the selectors aggregates rows.
func anyAggregate(args []Selector) bool {
	for _, a := range args {
		if a.Aggregate() {
			return true
		}
	}
	return false
}

// callEval evaluates a call (function or operation) of argument
// selectors: it feeds every row to the arguments and calls call on their
// values.
type callEval struct {
	args []Evaluator
	call func(q *query.Execution, vals [][]byte) ([]byte, error)
}

func newCallEval(args []Selector, call func(q *query.Execution, vals [][]byte) ([]byte, error)) *callEval {
	e := &callEval{args: make([]Evaluator, len(args)), call: call}
	for i, a := range args {
		e.args[i] = a.NewEval()
	}
	return e
}

func (e *callEval) Add(q *query.Execution, r *SelRow) error {
	for _, a := range e.args {
		if err := a.Add(q, r); err != nil {
			return err
		}
	}
	return nil
}

func (e *callEval) Out(q *query.Execution) ([]byte, error) {
	vals := make([][]byte, len(e.args))
	for i, a := range e.args {
		v, err := a.Out(q)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return e.call(q, vals)
}

func (e *callEval) Reset() {
	for _, a := range e.args {
		a.Reset()
	}
}

// CompileSelector compiles one selector expression of a SELECT on tbl.
func (c *CompileCtx) CompileSelector(tbl *schema.Table, e parser.Expr) (Selector, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.leave()
	switch e := e.(type) {
	case *parser.ColumnRef:
		col := tbl.Column(string(e.Name))
		if col == nil {
			return nil, query.Invalidf("Undefined column name %s in table %s", e.Name.String(), tbl.QualifiedName())
		}
		return &ColumnSel{Col: col}, nil
	case *parser.CellMeta:
		col := tbl.Column(string(e.Column))
		if col == nil {
			return nil, query.Invalidf("Undefined column name %s in table %s", e.Column.String(), tbl.QualifiedName())
		}
		fname := "writeTime"
		if e.Kind == parser.MetaTTL {
			fname = "ttl"
		}
		if col.Kind == schema.PartitionKey || col.Kind == schema.Clustering {
			return nil, query.Invalidf("Cannot use selection function %s on PRIMARY KEY part %s", fname, col.Name)
		}
		if col.Type.IsMultiCell() {
			what := "collection"
			if col.Type.UDT != nil {
				what = "UDT"
			}
			return nil, query.Invalidf("Cannot use selection function %s on non-frozen %s %s", fname, what, col.Name)
		}
		return &metaSel{col: col, ttl: e.Kind == parser.MetaTTL}, nil
	case *parser.FuncCall:
		return c.compileSelectorCall(tbl, e)
	case *parser.ElementAccess:
		return c.compileElementSelector(tbl, e)
	case *parser.FieldAccess:
		arg, err := c.CompileSelector(tbl, e.Expr)
		if err != nil {
			return nil, err
		}
		t := arg.Typ()
		if t.UDT == nil {
			return nil, query.Invalidf("Invalid field selection: %s of type %s is not a user type", arg.Name(), t)
		}
		i := slices.Index(t.UDT.Fields, string(e.Field))
		if i < 0 {
			return nil, query.Invalidf("%s of type %s has no field %s", arg.Name(), t, e.Field)
		}
		return &fieldSel{arg: arg, index: i}, nil
	case *parser.Cast:
		arg, err := c.CompileSelector(tbl, e.Expr)
		if err != nil {
			return nil, err
		}
		to, err := ConvertType(e.Type, nil)
		if err != nil {
			return nil, err
		}
		return newCastSel(arg, to)
	case *parser.Constant:
		return nil, query.Invalidf("Cannot infer type for term %s in selection clause (try using a cast to force a type)", e)
	case *parser.BinaryExpr:
		return c.compileOpSelector(tbl, opByte(e.Op), []parser.Expr{e.Left, e.Right})
	case *parser.Neg:
		if k, ok := negativeConstant(e); ok {
			return c.CompileSelector(tbl, k)
		}
		return c.compileOpSelector(tbl, 'n', []parser.Expr{e.Expr})
	case *parser.TupleLit:
		if len(e.Elems) == 1 {
			s, err := c.CompileSelector(tbl, e.Elems[0])
			if err != nil {
				return nil, err
			}
			return parenSel{s}, nil
		}
	case *parser.TypeHint:
		t, err := ConvertType(e.Type, nil)
		if err != nil {
			return nil, err
		}
		// Named as Cassandra's TypeCast prints: (int)42, (int)?.
		label := "(" + e.Type.String() + ")" + c.termText(e.Expr)
		if readsColumns(e.Expr) {
			// Selectable.WithTypeHint: a hint over a selector that reads
			// columns ((int)((c - a) % d)) prepares that selector, which
			// must be assignable to the hinted type, and names it by the
			// hint's text.
			s, err := c.CompileSelector(tbl, e.Expr)
			if err != nil {
				return nil, err
			}
			if typeAssignment(s.Typ(), t) == notAssignable {
				return nil, query.Invalidf("Cannot assign value %s to %s of type %s", label, label, t)
			}
			return renamedSel{Selector: s, label: label}, nil
		}
		tm, err := c.CompileTerm(e.Expr, Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: label, Typ: t})
		if err != nil {
			return nil, err
		}
		return termSelector(label, t, tm), nil
	}
	return nil, query.Invalidf("Unsupported selector %s", e)
}

// renamedSel is a selector under another name (a type hint's text).
type renamedSel struct {
	Selector
	label string
}

func (s renamedSel) Name() string { return s.label }

// readsColumns reports whether the selector expression e refers to a column
// anywhere (a bare name in a selector is a column reference).
func readsColumns(e parser.Expr) bool {
	switch e := e.(type) {
	case *parser.ColumnRef, *parser.CellMeta:
		return true
	case *parser.BinaryExpr:
		return readsColumns(e.Left) || readsColumns(e.Right)
	case *parser.Neg:
		return readsColumns(e.Expr)
	case *parser.TypeHint:
		return readsColumns(e.Expr)
	case *parser.Cast:
		return readsColumns(e.Expr)
	case *parser.FieldAccess:
		return readsColumns(e.Expr)
	case *parser.ElementAccess:
		return readsColumns(e.Expr)
	case *parser.FuncCall:
		return e.Star || anyReadsColumns(e.Args)
	case *parser.TupleLit:
		return anyReadsColumns(e.Elems)
	case *parser.ListLit:
		return anyReadsColumns(e.Elems)
	case *parser.SetLit:
		return anyReadsColumns(e.Elems)
	case *parser.MapLit:
		for _, en := range e.Entries {
			if readsColumns(en.Key) || readsColumns(en.Value) {
				return true
			}
		}
	}
	return false
}

func anyReadsColumns(es []parser.Expr) bool {
	for _, e := range es {
		if readsColumns(e) {
			return true
		}
	}
	return false
}

// isLiteralTerm reports whether a function argument in a selection is a
// term whose type comes from the function it is passed to: a constant, a
// bind marker, or a type hint of either (floor(ts, 1h), textAsBlob('a')).
func isLiteralTerm(e parser.Expr) bool {
	if _, ok := negativeConstant(e); ok {
		return true
	}
	switch e := e.(type) {
	case *parser.Constant, *parser.BindMarker:
		return true
	case *parser.TypeHint:
		return !readsColumns(e.Expr)
	}
	return false
}

func anyLiteralTerm(es []parser.Expr) bool {
	for _, e := range es {
		if isLiteralTerm(e) {
			return true
		}
	}
	return false
}

// compileScalarSelectorCall compiles a call of a native scalar function in
// a selection (Selectable.WithFunction): the arguments that read columns
// are selectors, constants and bind markers terms (Selectable.WithTerm);
// the overload is resolveFunction's, and the terms then take its argument
// types.
func (c *CompileCtx) compileScalarSelectorCall(tbl *schema.Table, name string, e *parser.FuncCall, overloads []*function) (Selector, error) {
	sels := make([]Selector, len(e.Args))
	args := make([]opArg, len(e.Args))
	recv := Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: string(e.Name)}
	// AbstractFunctionSelector.addFunctionsTo lists the function before
	// the functions of its arguments.
	mark := c.usedMark()
	for i, a := range e.Args {
		if isLiteralTerm(a) {
			args[i] = c.termArg(a, recv)
			continue
		}
		s, err := c.CompileSelector(tbl, a)
		if err != nil {
			return nil, err
		}
		sels[i] = s
		args[i] = selectorArg(s)
	}
	// Selectable.WithFunction.Raw.prepare prepares the arguments before it
	// looks the function up.
	if len(overloads) == 0 {
		return nil, query.Invalidf("Unknown function '%s'", callName(e))
	}
	chosen, err := c.resolveFunction(callName(e), overloads, args, types.Type{})
	if err != nil {
		return nil, err
	}
	if chosen.ks == "" && name == "token" {
		// The table's TokenFct won over a user function named token.
		return c.compileTokenSelector(tbl, e.Args)
	}
	if chosen.uda != nil && anyAggregate(sels) {
		return nil, query.Invalidf("aggregate functions cannot be used as arguments of aggregate functions")
	}
	if err := c.usedAt(chosen, mark); err != nil {
		return nil, err
	}
	for i, a := range e.Args {
		if sels[i] != nil {
			continue
		}
		tm, err := c.CompileTerm(a, recv.Sub(fmt.Sprintf("arg%d(%s)", i, chosen.qualifiedName()), chosen.args[i]))
		if err != nil {
			return nil, err
		}
		sels[i] = termSelector(c.termText(a), chosen.args[i], tm)
	}
	if chosen.uda != nil {
		return c.userAggregateSel(chosen, sels)
	}
	return &funcSel{fn: chosen, args: sels}, nil
}

func (c *CompileCtx) compileSelectorCall(tbl *schema.Table, e *parser.FuncCall) (Selector, error) {
	name := callFunctionName(e)
	if ks := callKeyspace(e); ks != "" && ks != "system" {
		if e.Star {
			return nil, query.Invalidf("Unknown function '%s(*)'", callName(e))
		}
		return c.compileScalarSelectorCall(tbl, name, e, c.userCandidates(ks, name))
	}
	if user := c.userCandidates(tbl.Keyspace, name); len(user) > 0 && e.Keyspace == "" && !e.Star {
		natives := functions[name]
		if name == "token" {
			// FunctionResolver.collectCandidates: the table's TokenFct
			// first, then the keyspace's functions of that name.
			natives = []*function{TokenFunction(tbl, c.Partitioner)}
		}
		return c.compileScalarSelectorCall(tbl, name, e, append(append([]*function(nil), natives...), user...))
	}
	if e.Star {
		if name != "count" {
			return nil, query.Invalidf("Unknown function '%s(*)'", e.Name)
		}
		c.usedNative("count", nil, -1)
		return &countRowsSel{}, nil
	}
	if name == "fromjson" {
		return nil, query.Invalidf("fromJson() cannot be used in the selection clause of a SELECT statement")
	}
	if name == "token" {
		// Selectable.WithFunction.Raw.prepare prepares the arguments (an
		// undefined column is refused there) before resolving the function.
		for _, a := range e.Args {
			if ref, ok := a.(*parser.ColumnRef); ok && tbl.Column(string(ref.Name)) == nil {
				return nil, query.Invalidf("Undefined column name %s in table %s", ref.Name.String(), tbl.QualifiedName())
			}
		}
		pk := tbl.PartitionKey()
		if len(e.Args) != len(pk) {
			return nil, query.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(pk), len(e.Args))
		}
		return c.compileTokenSelector(tbl, e.Args)
	}
	if name == "count" && len(e.Args) == 1 {
		if k, ok := e.Args[0].(*parser.Constant); ok && k.Kind != parser.ConstNull {
			// Selectable.WithFunction.Raw.prepare: count of a literal
			// other than null (COUNT(1)) is count(*), named "count".
			c.usedNative("count", nil, -1)
			return &countRowsSel{}, nil
		}
	}
	if !isAggregateName(name) && name != "tojson" {
		return c.compileScalarSelectorCall(tbl, name, e, functions[name])
	}
	mark := c.usedMark()
	args := make([]Selector, len(e.Args))
	for i, a := range e.Args {
		s, err := c.CompileSelector(tbl, a)
		if err != nil {
			return nil, err
		}
		if s.Aggregate() && isAggregateName(name) {
			return nil, query.Invalidf("aggregate functions cannot be used as arguments of aggregate functions")
		}
		args[i] = s
	}
	if isAggregateName(name) {
		if len(args) != 1 {
			return nil, query.Invalidf("Invalid number of arguments in call to function system.%s: 1 required but %d provided", name, len(args))
		}
		sel, err := newAggregateSel(name, args[0])
		if err == nil {
			c.usedNative(name, []types.Type{args[0].Typ()}, mark)
		}
		return sel, err
	}
	// toJson() of any one argument.
	if len(args) != 1 {
		return nil, query.Invalidf("Invalid number of arguments in call to function system.tojson: 1 required but %d provided", len(args))
	}
	c.usedNative("tojson", []types.Type{args[0].Typ()}, mark)
	return &funcSel{fn: toJSONFunction(args[0].Typ()), args: args}, nil
}

// compileTokenSelector compiles token(...) in a selection: the TokenFct of
// tbl, whose arguments may be any selectables of its partition key columns'
// types (a literal or a bind marker is prepared for that type, as
// Selectable.WithTerm is for the function's argument). The partition key
// columns themselves, in order, read the row's partition key (tokenSel).
func (c *CompileCtx) compileTokenSelector(tbl *schema.Table, argExprs []parser.Expr) (Selector, error) {
	pk := tbl.PartitionKey()
	pkTypes := make([]types.Type, len(pk))
	for i, col := range pk {
		pkTypes[i] = col.Type
	}
	c.usedNative("token", pkTypes, -1)
	names := make([]string, len(pk))
	direct := true
	for i, a := range argExprs {
		ref, ok := a.(*parser.ColumnRef)
		if !ok || tbl.Column(string(ref.Name)) != pk[i] {
			direct = false
			break
		}
		names[i] = pk[i].Name
	}
	if direct {
		return &tokenSel{label: "system.token(" + strings.Join(names, ", ") + ")", part: c.Partitioner}, nil
	}
	args := make([]Selector, len(argExprs))
	for i, a := range argExprs {
		want := pk[i].Type
		if isTermSelectable(a) {
			tm, err := c.CompileTerm(a, Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: fmt.Sprintf("arg%d(system.token)", i), Typ: want})
			if err != nil {
				return nil, err
			}
			args[i] = termSelector(c.termText(a), want, tm)
			continue
		}
		sel, err := c.CompileSelector(tbl, a)
		if err != nil {
			return nil, err
		}
		if !assignableType(sel.Typ(), want) {
			return nil, query.Invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", a, i, want)
		}
		args[i] = sel
	}
	return &funcSel{fn: TokenFunction(tbl, c.Partitioner), args: args}, nil
}

// isTermSelectable reports whether a selection's expression is a term whose
// type comes from where it is used (a literal, a negative literal or a bind
// marker) rather than from the row.
func isTermSelectable(e parser.Expr) bool {
	switch e := e.(type) {
	case *parser.Constant, *parser.BindMarker:
		return true
	case *parser.Neg:
		_, ok := negativeConstant(e)
		return ok
	}
	return false
}

// compileElementSelector compiles m[k], s[x], m[a..b] and s[a..b]
// (ElementsSelector): an element of a map or set, or a slice of one with
// inclusive bounds; lists are refused, as in Cassandra.
func (c *CompileCtx) compileElementSelector(tbl *schema.Table, e *parser.ElementAccess) (Selector, error) {
	arg, err := c.CompileSelector(tbl, e.Expr)
	if err != nil {
		return nil, err
	}
	t := arg.Typ()
	switch t.Kind {
	case types.Map, types.Set:
	case types.List:
		if e.Slice {
			return nil, query.Invalidf("Slice selection is only allowed on sets and maps, but %s is a list", arg.Name())
		}
		return nil, query.Invalidf("Element selection is only allowed on sets and maps, but %s is a list", arg.Name())
	default:
		return nil, query.Invalidf("Invalid element selection: %s is of type %s is not a collection", arg.Name(), t)
	}
	kt := t.Params[0]
	recv := Receiver{Ks: tbl.Keyspace, Table: tbl.Name, Name: arg.Name(), Typ: kt}
	s := &elementSel{arg: arg, label: e.String(), slice: e.Slice}
	for _, b := range []struct {
		expr parser.Expr
		dst  *Term
	}{{e.Key, &s.key}, {e.From, &s.from}, {e.To, &s.to}} {
		if b.expr == nil {
			continue
		}
		if *b.dst, err = c.CompileTerm(b.expr, recv); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// elementSel is an element or a slice of a map or set.
type elementSel struct {
	arg           Selector
	label         string
	slice         bool
	key, from, to Term
}

func (s *elementSel) Name() string { return s.label }
func (s *elementSel) Typ() types.Type {
	t := s.arg.Typ()
	switch {
	case s.slice:
		return t
	case t.Kind == types.Map:
		return t.Params[1]
	}
	return t.Params[0]
}
func (s *elementSel) Aggregate() bool { return s.arg.Aggregate() }

func (s *elementSel) NewEval() Evaluator { return &mapEval{arg: s.arg.NewEval(), fn: s.apply} }

// apply selects the element or slice of collection value v.
func (s *elementSel) apply(q *query.Execution, v []byte) ([]byte, error) {
	t := s.arg.Typ()
	elems, err := types.DecodeCollection(t, v)
	if err != nil {
		return nil, err
	}
	step := 1
	if t.Kind == types.Map {
		step = 2
	}
	bound := func(tm Term) ([]byte, error) {
		if tm == nil {
			return nil, nil
		}
		b, err := tm.Eval(q)
		if err != nil {
			return nil, err
		}
		if b.Unset || b.Bytes == nil {
			return nil, query.Invalidf("Invalid null value for element selection on %s", s.arg.Name())
		}
		return b.Bytes, nil
	}
	kt := t.Params[0]
	if !s.slice {
		k, err := bound(s.key)
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(elems); i += step {
			if types.Compare(kt, elems[i], k) == 0 {
				return elems[i+step-1], nil
			}
		}
		return nil, nil
	}
	from, err := bound(s.from)
	if err != nil {
		return nil, err
	}
	to, err := bound(s.to)
	if err != nil {
		return nil, err
	}
	var keys, vals [][]byte
	for i := 0; i < len(elems); i += step {
		if from != nil && types.Compare(kt, elems[i], from) < 0 || to != nil && types.Compare(kt, elems[i], to) > 0 {
			continue
		}
		keys = append(keys, elems[i])
		if step == 2 {
			vals = append(vals, elems[i+1])
		}
	}
	if len(keys) == 0 && t.IsMultiCell() {
		// CollectionSerializer.getSliceFromSerialized: an empty slice of
		// a non-frozen collection is null, of a frozen one empty.
		return nil, nil
	}
	if t.Kind == types.Map {
		return types.EncodeMap(t, keys, vals)
	}
	return types.EncodeSet(t, keys)
}

// fieldSel is udt.field (FieldSelector).
type fieldSel struct {
	arg   Selector
	index int
}

func (s *fieldSel) Name() string {
	return s.arg.Name() + "." + parser.Ident(s.arg.Typ().UDT.Fields[s.index]).String()
}
func (s *fieldSel) Typ() types.Type { return s.arg.Typ().Params[s.index] }
func (s *fieldSel) Aggregate() bool { return s.arg.Aggregate() }

func (s *fieldSel) NewEval() Evaluator {
	return &mapEval{arg: s.arg.NewEval(), fn: func(_ *query.Execution, v []byte) ([]byte, error) {
		fields, err := types.DecodeTuple(s.arg.Typ(), v)
		if err != nil {
			return nil, err
		}
		return fields[s.index], nil
	}}
}

// castSel is CAST(x AS type) (cql3/functions/CastFcts).
type castSel struct {
	arg  Selector
	to   types.Type
	conv func(b []byte) ([]byte, error)
}

func (s *castSel) Name() string {
	return "cast(" + s.arg.Name() + " as " + strings.ToLower(s.to.String()) + ")"
}
func (s *castSel) Typ() types.Type { return s.to }
func (s *castSel) Aggregate() bool { return s.arg.Aggregate() }

func (s *castSel) NewEval() Evaluator {
	return &mapEval{arg: s.arg.NewEval(), fn: func(_ *query.Execution, v []byte) ([]byte, error) { return s.conv(v) }}
}

// mapEval evaluates one argument and transforms its non-null output (CAST,
// field and element selection).
type mapEval struct {
	arg Evaluator
	fn  func(q *query.Execution, v []byte) ([]byte, error)
}

func (e *mapEval) Add(q *query.Execution, r *SelRow) error { return e.arg.Add(q, r) }
func (e *mapEval) Reset()                                  { e.arg.Reset() }
func (e *mapEval) Out(q *query.Execution) ([]byte, error) {
	v, err := e.arg.Out(q)
	if err != nil || v == nil {
		return nil, err
	}
	return e.fn(q, v)
}
