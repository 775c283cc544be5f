package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/minicass/minicass/cql/javaudf"
	"github.com/minicass/minicass/cql/jsudf"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// User-defined functions and aggregates (Cassandra's UDFunction and
// UDAggregate). A call resolves among the native functions and the
// functions of the statement's keyspace (or of the keyspace it names) as
// FunctionResolver does; the chosen user function runs its body, compiled
// once (schema.Function.CompiledBody), on its arguments decoded to Go
// values, and a user aggregate calls its state function on every row and
// its final function at the end.

// UserFunctions tells a statement's compilation which user-defined
// functions it may call. A nil *UserFunctions finds none.
type UserFunctions struct {
	// Keyspace returns a keyspace's definition, with its functions and
	// aggregates.
	Keyspace func(name string) (*schema.Keyspace, bool)
	// Enabled is user_defined_functions_enabled: calling a user function
	// while it is off is refused, as UDFunction.execute refuses it.
	Enabled bool
	// ScriptedEnabled is scripted_user_defined_functions_enabled: calling
	// a function in another language than java while it is off is
	// refused, as UDFunction.assertUdfsEnabled refuses it.
	ScriptedEnabled bool
	// Used, when set, is told of every function and aggregate a
	// statement resolves to, a native one as a *NativeFunction (the
	// prepared statement cache evicts a
	// statement when one of them is replaced or dropped, and the
	// authorizer checks EXECUTE on each), with the position at which def
	// goes in the statement's list: the list is in the order of
	// CQLStatement.getFunctions, a call before its arguments in a
	// selection, an aggregate before its state and final functions.
	Used func(at int, def any)
	// Count, when set, returns the length of the list Used inserts into.
	Count func() int
}

// ErrUDFsDisabled is Cassandra 4.1's text for CREATE FUNCTION, or a call of
// a user function, on a node with user_defined_functions_enabled false.
const ErrUDFsDisabled = "User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable"

// ErrScriptedUDFsDisabled is Cassandra 4.1's text for a function in another
// language than java on a node with scripted_user_defined_functions_enabled
// false.
const ErrScriptedUDFsDisabled = "Scripted user-defined functions are disabled in cassandra.yaml - set scripted_user_defined_functions_enabled=true to enable if you are aware of the security risks"

// UDFFailTimeout is Cassandra's user_defined_function_fail_timeout: a body
// that runs longer fails.
const UDFFailTimeout = 1500 * time.Millisecond

// CompileFunctionBody compiles the body of f, a function of keyspace ks
// (whose user types its types may name), as UDFunction.create does. A body
// the interpreter cannot run is refused with its error's text.
func CompileFunctionBody(f *schema.Function, ks *schema.Keyspace) (schema.FunctionBody, error) {
	if !strings.EqualFold(f.Language, "java") {
		return compileScriptBody(f)
	}
	params := make([]javaudf.Param, len(f.ArgNames))
	for i, n := range f.ArgNames {
		params[i] = javaudf.Param{Name: n, Type: f.ArgTypes[i]}
	}
	opts := javaudf.Options{CalledOnNullInput: f.CalledOnNullInput}
	if ks != nil {
		opts.UserType = ks.Type
	}
	fn, err := javaudf.Compile(params, f.Return, f.Body, opts)
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			return nil, qe
		}
		return nil, query.Invalidf("%s", err.Error())
	}
	return fn, nil
}

// compileScriptBody compiles the body of f, in another language than java,
// as ScriptBasedUDFunction does: javascript is the one language with an
// engine (cql/jsudf); any other is refused with 4.1's text.
func compileScriptBody(f *schema.Function) (schema.FunctionBody, error) {
	name := f.Keyspace + "." + f.Name
	if !jsudf.IsLanguage(f.Language) {
		return nil, query.Invalidf("Invalid language '%s' for function '%s'", f.Language, name)
	}
	params := make([]jsudf.Param, len(f.ArgNames))
	for i, n := range f.ArgNames {
		params[i] = jsudf.Param{Name: n, Type: f.ArgTypes[i]}
	}
	fn, err := jsudf.Compile(params, f.Return, f.Body, jsudf.Options{Function: name, Language: f.Language})
	if err != nil {
		return nil, query.Invalidf("%s", err.Error())
	}
	return fn, nil
}

// qualifiedName is the function's name as FunctionName.toString writes it:
// system.f for a native function, ks.f for a user one.
func (f *function) qualifiedName() string {
	if f.ks == "" {
		return "system." + f.name
	}
	return f.ks + "." + f.name
}

// userCandidates returns the user functions and aggregates a call named
// name may resolve to: those of keyspace ks (FunctionResolver's
// collectCandidates), as *function values. ks is the call's keyspace, or
// the statement's for an unqualified call.
func (c *CompileCtx) userCandidates(ks, name string) []*function {
	if c.UDFs == nil || c.UDFs.Keyspace == nil || ks == "" {
		return nil
	}
	def, ok := c.UDFs.Keyspace(ks)
	if !ok {
		return nil
	}
	var out []*function
	for _, f := range def.Functions {
		if f.Name == name {
			out = append(out, c.userFunction(def, f))
		}
	}
	for _, a := range def.Aggregates {
		if a.Name == name {
			out = append(out, &function{ks: ks, name: a.Name, args: a.ArgTypes, ret: a.Return, uda: a, volatile: true})
		}
	}
	return out
}

// functionCandidates returns every function a call may resolve to, native
// ones first: for ks.f those of keyspace ks (system's natives for
// system.f), and for an unqualified f the natives and then the functions of
// the statement's keyspace current.
func (c *CompileCtx) functionCandidates(callKs, name, current string) []*function {
	if callKs != "" && callKs != "system" {
		return c.userCandidates(callKs, name)
	}
	natives := functions[name]
	if callKs == "system" {
		return natives
	}
	user := c.userCandidates(current, name)
	if len(user) == 0 {
		return natives
	}
	return append(append([]*function(nil), natives...), user...)
}

// used records that the statement calls fn, and refuses the call of a user
// function on a node where they are disabled.
func (c *CompileCtx) used(fn *function) error {
	return c.usedAt(fn, -1)
}

// usedMark returns the position in the statement's list of functions
// (UserFunctions.Used) that a call compiled next starts at; usedAt puts the
// call there once its arguments, compiled first, have added theirs.
func (c *CompileCtx) usedMark() int {
	if c.UDFs == nil || c.UDFs.Count == nil {
		return -1
	}
	return c.UDFs.Count()
}

// usedAt is used, recording fn at position at of the statement's list (-1:
// at its end). An aggregate's state and final functions follow it, as
// UDAggregate.addFunctionsTo lists them.
func (c *CompileCtx) usedAt(fn *function, at int) error {
	if c.UDFs == nil {
		return nil
	}
	if fn.ks == "" {
		c.usedNative(fn.name, fn.args, at)
		return nil
	}
	if !c.UDFs.Enabled {
		return query.Invalidf("%s", ErrUDFsDisabled)
	}
	if fn.udf != nil && !strings.EqualFold(fn.udf.Language, "java") && !c.UDFs.ScriptedEnabled {
		return query.Invalidf("%s", ErrScriptedUDFsDisabled)
	}
	if c.UDFs.Used == nil {
		return nil
	}
	if at < 0 && c.UDFs.Count != nil {
		at = c.UDFs.Count()
	}
	if at < 0 {
		at = 0
	}
	if fn.udf != nil {
		c.UDFs.Used(at, fn.udf)
		return nil
	}
	a := fn.uda
	c.UDFs.Used(at, a)
	if ks, ok := c.UDFs.Keyspace(a.Keyspace); ok {
		if sf, ok := ks.Function(a.StateFunc, a.StateArgs()); ok {
			at++
			c.UDFs.Used(at, sf)
		}
		if a.FinalFunc != "" {
			if ff, ok := ks.Function(a.FinalFunc, []types.Type{a.StateType}); ok {
				c.UDFs.Used(at+1, ff)
			}
		}
	}
	return nil
}

// NativeFunction is a native function (of keyspace system) a statement
// calls, as the statement's list of functions (UserFunctions.Used) records
// it: CQLStatement.getFunctions lists native functions too (system.now,
// system.token), which need no permission to run.
type NativeFunction struct {
	// Name is the function's name without its keyspace ("now").
	Name string
	// Args are the argument types of the overload the call resolved to.
	Args []types.Type
}

// FunctionName returns the name of def, one of the functions a statement
// lists (*schema.Function, *schema.Aggregate or *NativeFunction), as
// FunctionName.toString writes it: "ks.f", or "system.f" for a native one.
// It returns "" for any other value.
func FunctionName(def any) string {
	switch d := def.(type) {
	case *schema.Function:
		return d.Keyspace + "." + d.Name
	case *schema.Aggregate:
		return d.Keyspace + "." + d.Name
	case *NativeFunction:
		return "system." + d.Name
	}
	return ""
}

// UsedNative records that the statement calls the native function name
// with argument types args, for a call compiled outside the function
// resolution (the token() of a token relation's value): the statement's
// functions list it, as CQLStatement.getFunctions does.
func (c *CompileCtx) UsedNative(name string, args []types.Type) { c.usedNative(name, args, -1) }

// usedNative records that the statement calls the native function name
// with argument types args, at position at of the statement's list (-1:
// at its end).
func (c *CompileCtx) usedNative(name string, args []types.Type, at int) {
	if c.UDFs == nil || c.UDFs.Used == nil {
		return
	}
	if at < 0 && c.UDFs.Count != nil {
		at = c.UDFs.Count()
	}
	if at < 0 {
		at = 0
	}
	c.UDFs.Used(at, &NativeFunction{Name: name, Args: args})
}

// userFunction is the callable form of user function f of keyspace ks.
func (c *CompileCtx) userFunction(ks *schema.Keyspace, f *schema.Function) *function {
	fn := &function{ks: f.Keyspace, name: f.Name, args: f.ArgTypes, ret: f.Return, udf: f, volatile: true}
	fn.impl = func(_ *query.Execution, args [][]byte) ([]byte, error) {
		if !f.CalledOnNullInput {
			for i, a := range args {
				if nullOrEmpty(f.ArgTypes[i], a) {
					return nil, nil
				}
			}
		}
		vals := make([]any, len(args))
		for i, a := range args {
			if nullOrEmpty(f.ArgTypes[i], a) {
				continue
			}
			if t := f.ArgTypes[i]; len(a) == 0 && t.Kind == types.Tuple {
				// The driver's codec reads an empty tuple or user type
				// value as one whose fields are all null.
				vals[i] = make([]any, len(t.Params))
				continue
			}
			v, err := types.Decode(f.ArgTypes[i], a)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		out, err := callUserFunction(ks, f, vals)
		if err != nil {
			return nil, err
		}
		return encodeResult(f, out)
	}
	return fn
}

// callUserFunction runs f's body on vals, bounded by UDFFailTimeout, and
// turns its failures into Cassandra's FunctionExecutionException.
func callUserFunction(ks *schema.Keyspace, f *schema.Function, vals []any) (any, error) {
	body, err := f.CompiledBody(func(f *schema.Function) (schema.FunctionBody, error) { return CompileFunctionBody(f, ks) })
	if err != nil {
		// UDFunction.createBrokenFunction: a function of the schema whose
		// body does not compile any more.
		return nil, query.Invalidf("Function '%s' exists but hasn't been loaded successfully for the following reason: %s. Please see the server log for details",
			functionString(f), err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), UDFFailTimeout)
	defer cancel()
	out, err := body.Call(ctx, vals)
	if err != nil {
		return nil, executionError(f, err)
	}
	return out, nil
}

// encodeResult serializes a body's result for f's return type.
func encodeResult(f *schema.Function, out any) ([]byte, error) {
	if out == nil {
		return nil, nil
	}
	b, err := types.Encode(f.Return, out)
	if err != nil {
		return nil, executionError(f, fmt.Errorf("java.lang.ClassCastException: %v", err))
	}
	return b, nil
}

// functionString is AbstractFunction.toString: ks.f : (int, text) ->
// org.apache.cassandra.db.marshal.Int32Type.
func functionString(f *schema.Function) string {
	return fmt.Sprintf("%s.%s : (%s) -> %s", f.Keyspace, f.Name, f.Signature(), types.MarshalName(f.Return))
}

// executionError is FunctionExecutionException.create for a failed call of
// f: code 0x1400 naming the function and its argument types, with the
// cause as Java's Throwable.toString writes it.
func executionError(f *schema.Function, err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return qe
	}
	detail := err.Error()
	var ex *javaudf.Exception
	var jx *jsudf.Exception
	switch {
	case errors.As(err, &ex):
		detail = ex.Class
		if ex.Message != "" {
			detail += ": " + ex.Message
		}
	case errors.As(err, &jx):
		detail = jx.Error()
	case errors.Is(err, javaudf.ErrTimeout), errors.Is(err, jsudf.ErrTimeout):
		detail = fmt.Sprintf("java.util.concurrent.TimeoutException: User defined function %s ran longer than %dms - will stop Cassandra VM",
			functionString(f), UDFFailTimeout.Milliseconds())
	}
	args := f.ArgTypeStrings()
	return &query.Error{Code: wire.CodeFunctionFailure, Keyspace: f.Keyspace, Function: f.Name, ArgTypes: args,
		Message: fmt.Sprintf("execution of '%s.%s[%s]' failed: %s", f.Keyspace, f.Name, strings.Join(args, ", "), detail)}
}

// nullOrEmpty is UDHelper.isNullOrEmpty: a null value, or an empty one of
// a type whose empty value means nothing (every native type but the text
// and blob types; collections, tuples and user types keep theirs).
func nullOrEmpty(t types.Type, b []byte) bool {
	if b == nil {
		return true
	}
	return len(b) == 0 && EmptyValueMeaningless(t)
}

// EmptyValueMeaningless is AbstractType.isEmptyValueMeaningless.
func EmptyValueMeaningless(t types.Type) bool {
	if t.Custom != "" || t.IsCollection() || t.Kind == types.Tuple || t.UDT != nil {
		return false
	}
	switch t.Kind {
	case types.Text, types.Ascii, types.Blob:
		return false
	}
	return true
}

// userAggregateSel is the selector of a call of user aggregate fn
// (UDAggregate) on argument selectors args. Its state and final functions
// are found now, by name and argument types, in the aggregate's keyspace.
func (c *CompileCtx) userAggregateSel(fn *function, args []Selector) (Selector, error) {
	a := fn.uda
	ks, ok := c.UDFs.Keyspace(a.Keyspace)
	if !ok {
		return nil, query.Invalidf("Unknown function '%s'", fn.qualifiedName())
	}
	sf, ok := ks.Function(a.StateFunc, a.StateArgs())
	if !ok {
		return nil, query.Invalidf("State function %s.%s(%s) doesn't exist", a.Keyspace, a.StateFunc, typeList(a.StateArgs()))
	}
	s := &udaSel{fn: fn, args: args, ks: ks, state: sf}
	if a.FinalFunc != "" {
		ff, ok := ks.Function(a.FinalFunc, []types.Type{a.StateType})
		if !ok {
			return nil, query.Invalidf("Final function %s.%s(%s) doesn't exist", a.Keyspace, a.FinalFunc, schema.FunctionTypeString(a.StateType))
		}
		s.final = ff
	}
	return s, nil
}

func typeList(ts []types.Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = schema.FunctionTypeString(t)
	}
	return strings.Join(parts, ", ")
}

// udaSel is a user aggregate over its argument selectors.
type udaSel struct {
	fn    *function
	args  []Selector
	ks    *schema.Keyspace
	state *schema.Function
	final *schema.Function // nil: the state is the result
}

func (s *udaSel) Name() string {
	parts := make([]string, len(s.args))
	for i, a := range s.args {
		parts[i] = a.Name()
	}
	return s.fn.qualifiedName() + "(" + strings.Join(parts, ", ") + ")"
}

func (s *udaSel) Typ() types.Type { return s.fn.ret }
func (s *udaSel) Aggregate() bool { return true }
func (s *udaSel) NewEval() Evaluator {
	e := &udaEval{s: s, args: make([]Evaluator, len(s.args))}
	for i, a := range s.args {
		e.args[i] = a.NewEval()
	}
	e.Reset()
	return e
}

// udaEval is one group's run of a user aggregate: the state, in the state
// type's Go form, starts as INITCOND (UDAggregate's maybeInit), each row
// calls the state function (addInput) and Out calls the final function
// (compute).
type udaEval struct {
	s     *udaSel
	args  []Evaluator
	state any
	err   error
}

func (e *udaEval) Reset() {
	e.state, e.err = nil, nil
	if a := e.s.fn.uda; a.InitCond != nil {
		e.state, e.err = types.Decode(a.StateType, a.InitCond)
	}
	for _, a := range e.args {
		a.Reset()
	}
}

func (e *udaEval) Add(q *query.Execution, r *SelRow) error {
	if e.err != nil {
		return e.err
	}
	sf := e.s.state
	vals := make([][]byte, len(e.args))
	for i, a := range e.args {
		a.Reset()
		if err := a.Add(q, r); err != nil {
			return err
		}
		v, err := a.Out(q)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	// UDFunction.isCallableWrtNullable and makeEmptyParametersNull, which
	// check the values by the state function's argument types counted
	// from its first (the state's), as Cassandra does.
	params := make([]any, len(vals)+1)
	for i, v := range vals {
		if nullOrEmpty(sf.ArgTypes[i], v) {
			if !sf.CalledOnNullInput {
				return nil
			}
			continue
		}
		d, err := types.Decode(sf.ArgTypes[i+1], v)
		if err != nil {
			return err
		}
		params[i+1] = d
	}
	if !sf.CalledOnNullInput && e.state == nil {
		e.state = nil
		return nil
	}
	params[0] = e.state
	out, err := callUserFunction(e.s.ks, sf, params)
	if err != nil {
		return err
	}
	e.state = out
	return nil
}

func (e *udaEval) Out(*query.Execution) ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	if e.s.final == nil {
		return encodeResult(e.s.state, e.state)
	}
	ff := e.s.final
	if !ff.CalledOnNullInput && e.state == nil {
		return nil, nil
	}
	out, err := callUserFunction(e.s.ks, ff, []any{e.state})
	if err != nil {
		return nil, err
	}
	return encodeResult(ff, out)
}
