package schema

import (
	"context"
	"strings"
	"sync"

	"github.com/minicass/minicass/types"
)

// Function is a user-defined function of a keyspace (CREATE FUNCTION, a row
// of system_schema.functions): its signature, null handling, language and
// body. Its compiled body is kept with it (Body), so a call never parses the
// body again.
type Function struct {
	Keyspace string
	Name     string
	// ArgNames and ArgTypes are the arguments in order. A type is never
	// frozen at the top, as CREATE FUNCTION refuses frozen<> there, but a
	// collection or tuple argument takes frozen values.
	ArgNames []string
	ArgTypes []types.Type
	Return   types.Type
	// CalledOnNullInput is CALLED ON NULL INPUT; false is RETURNS NULL ON
	// NULL INPUT, where a null (or empty, for most types) argument gives a
	// null result without running the body.
	CalledOnNullInput bool
	Language          string
	Body              string

	body *compiledBody
}

// FunctionBody is a function's compiled body, called with its arguments in
// types.Decode's Go forms (nil for null) and giving its result in the same
// form.
type FunctionBody interface {
	Call(ctx context.Context, args []any) (any, error)
}

// compiledBody holds a function's body once compiled, or the error of its
// compilation, shared by every copy of the definition.
type compiledBody struct {
	once sync.Once
	impl FunctionBody
	err  error
}

// WithBody returns f with its compiled body set (CREATE FUNCTION compiles
// the body before it publishes the function).
func (f Function) WithBody(b FunctionBody) *Function {
	f.body = &compiledBody{impl: b}
	f.body.once.Do(func() {})
	return &f
}

// CompiledBody returns f's compiled body, compiling it with compile the
// first time it is asked for (a function read from the schema file) and
// keeping the result, error included, for every later call.
func (f *Function) CompiledBody(compile func(*Function) (FunctionBody, error)) (FunctionBody, error) {
	if f.body == nil {
		// A definition built by hand, without WithBody or Prepared.
		return compile(f)
	}
	f.body.once.Do(func() { f.body.impl, f.body.err = compile(f) })
	return f.body.impl, f.body.err
}

// Prepared returns f ready for lazy compilation: a copy whose compiled body
// is filled by the first CompiledBody. The engine calls it for the
// functions it reads from the schema file.
func (f Function) Prepared() *Function {
	f.body = &compiledBody{}
	return &f
}

// Signature returns the function's argument types as CQL writes them,
// separated by ", " (Cassandra's FunctionName(args) form without the name).
func (f *Function) Signature() string { return typeList(f.ArgTypes) }

// ArgTypeStrings returns the argument types as CQL type strings, as
// system_schema.functions.argument_types and schema change events carry
// them.
func (f *Function) ArgTypeStrings() []string { return typeStrings(f.ArgTypes) }

// Aggregate is a user-defined aggregate of a keyspace (CREATE AGGREGATE, a
// row of system_schema.aggregates). Its state and final functions are
// functions of the same keyspace, named without the keyspace and found by
// their argument types: (StateType, ArgTypes...) and (StateType).
type Aggregate struct {
	Keyspace  string
	Name      string
	ArgTypes  []types.Type
	StateFunc string
	StateType types.Type
	// FinalFunc is empty when the aggregate has none.
	FinalFunc string
	// InitCond is the serialized initial state; nil when there is no
	// INITCOND (or it was null).
	InitCond []byte
	// Return is the final function's result type, or the state type.
	Return types.Type
}

// Signature returns the aggregate's argument types as CQL writes them.
func (a *Aggregate) Signature() string { return typeList(a.ArgTypes) }

// ArgTypeStrings returns the argument types as CQL type strings.
func (a *Aggregate) ArgTypeStrings() []string { return typeStrings(a.ArgTypes) }

// StateArgs returns the state function's argument types: the state type,
// then the aggregate's arguments.
func (a *Aggregate) StateArgs() []types.Type {
	return append([]types.Type{a.StateType}, a.ArgTypes...)
}

func typeStrings(ts []types.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = FunctionTypeString(t)
	}
	return out
}

func typeList(ts []types.Type) string { return strings.Join(typeStrings(ts), ", ") }

// FunctionTypeString returns type t as a function's signature writes it
// (AbstractFunction.toCqlString): a tuple without its implied frozen<>.
func FunctionTypeString(t types.Type) string {
	if t.Kind == types.Tuple && t.UDT == nil && t.Custom == "" {
		s := t.String()
		return strings.TrimSuffix(strings.TrimPrefix(s, "frozen<"), ">")
	}
	return t.String()
}

// TypesMatch reports whether the argument types a and b are the same, as
// AbstractFunction.typesMatch compares them: by their frozen CQL text, so a
// user type that ALTER TYPE changed still matches.
func TypesMatch(a, b []types.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Freeze().String() != b[i].Freeze().String() {
			return false
		}
	}
	return true
}

// FunctionsNamed returns the functions of ks called name, in creation
// order.
func (ks *Keyspace) FunctionsNamed(name string) []*Function {
	var out []*Function
	for _, f := range ks.Functions {
		if f.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// AggregatesNamed returns the aggregates of ks called name, in creation
// order.
func (ks *Keyspace) AggregatesNamed(name string) []*Aggregate {
	var out []*Aggregate
	for _, a := range ks.Aggregates {
		if a.Name == name {
			out = append(out, a)
		}
	}
	return out
}

// Function returns the function name of ks whose argument types match args
// (TypesMatch).
func (ks *Keyspace) Function(name string, args []types.Type) (*Function, bool) {
	for _, f := range ks.Functions {
		if f.Name == name && TypesMatch(f.ArgTypes, args) {
			return f, true
		}
	}
	return nil, false
}

// Aggregate returns the aggregate name of ks whose argument types match args.
func (ks *Keyspace) Aggregate(name string, args []types.Type) (*Aggregate, bool) {
	for _, a := range ks.Aggregates {
		if a.Name == name && TypesMatch(a.ArgTypes, args) {
			return a, true
		}
	}
	return nil, false
}
