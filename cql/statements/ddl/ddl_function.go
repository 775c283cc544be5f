package ddl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// User-defined functions and aggregates follow Cassandra 4.1's
// CreateFunctionStatement, CreateAggregateStatement, DropFunctionStatement
// and DropAggregateStatement, their checks in apply's order. A function
// lives in its keyspace's definition (schema.Keyspace.Functions, with its
// body compiled at CREATE and kept with it); an aggregate names its state
// and final functions, found by argument types in the same keyspace.
// CREATE FUNCTION needs user_defined_functions_enabled
// (plan.Env.UserDefinedFunctionsEnabled), false by default as in 4.1, and
// another language than java also needs
// scripted_user_defined_functions_enabled
// (plan.Env.ScriptedUserDefinedFunctionsEnabled), as UDFunction's
// assertUdfsEnabled checks.

const errBothDirectives = "Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives"

// rawTypeString is a type as CQL3Type.Raw.toString writes it, which the
// statements put in their messages and schema change events.
func rawTypeString(t *parser.Type) string { return t.String() }

func rawTypeStrings(ts []*parser.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = rawTypeString(t)
	}
	return out
}

// functionChange is the schema change of a function or aggregate, with
// its argument types on the wire.
func functionChange(change wire.ChangeType, target wire.ChangeTarget, ks, name string, args []string) *query.Result {
	res := schemaChange(change, target, ks, name)
	res.Change.Args = args
	return res
}

// isFrozenRaw reports whether a raw type is frozen<...> at the top (a tuple
// is frozen by nature and does not count).
func isFrozenRaw(t *parser.Type) bool { return t.Frozen && t.Kind != parser.TypeTuple }

// resolveTypes converts raw types in keyspace ks.
func resolveTypes(ts []*parser.Type, ks *schema.Keyspace) ([]types.Type, error) {
	out := make([]types.Type, len(ts))
	for i, t := range ts {
		ct, err := expr.ConvertType(t, ks)
		if err != nil {
			return nil, err
		}
		out[i] = ct
	}
	return out, nil
}

// compatibleReturn is AbstractType.isCompatibleWith for a replaced
// function's return type: the same type, a blob (which reads anything) or
// text over ascii.
func compatibleReturn(now, old types.Type) bool {
	switch {
	case now.Equal(old), now.Freeze().String() == old.Freeze().String():
		return true
	case now.Kind == types.Blob && now.Custom == "":
		return true
	case now.Kind == types.Text && old.Kind == types.Ascii:
		return true
	}
	return false
}

func compileCreateFunction(s *plan.Compiler, st *parser.CreateFunction) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	argTypes := make([]*parser.Type, len(st.Args))
	argNames := make([]string, len(st.Args))
	for i, a := range st.Args {
		argTypes[i], argNames[i] = a.Type, string(a.Name)
	}
	return &ddlPlan{run: func(_ context.Context, q *plan.Execution) (*query.Result, error) {
		if st.OrReplace && st.IfNotExists {
			return nil, query.Invalidf(errBothDirectives)
		}
		if !q.Env.UserDefinedFunctionsEnabled {
			return nil, query.Invalidf("%s", expr.ErrUDFsDisabled)
		}
		if !strings.EqualFold(string(st.Language), "java") && !q.Env.ScriptedUserDefinedFunctionsEnabled {
			return nil, query.Invalidf("%s", expr.ErrScriptedUDFsDisabled)
		}
		if !validFunctionName(name) {
			return nil, query.Invalidf("Function name '%s' is invalid", name)
		}
		for i, n := range argNames {
			if slices.Contains(argNames[:i], n) {
				return nil, query.Invalidf("Duplicate argument names for given function %s with argument names [%s]", name, strings.Join(argNames, ", "))
			}
		}
		for _, t := range argTypes {
			if isFrozenRaw(t) {
				return nil, query.Invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", t, t)
			}
		}
		if isFrozenRaw(st.Returns) {
			return nil, query.Invalidf("Return type '%s' cannot be frozen; remove frozen<> modifier from '%s'", st.Returns, st.Returns)
		}
		def, ok := q.Env.Engine.Keyspace(ks)
		if !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		args, err := resolveTypes(argTypes, def)
		if err != nil {
			return nil, err
		}
		ret, err := expr.ConvertType(st.Returns, def)
		if err != nil {
			return nil, err
		}
		fn := schema.Function{Keyspace: ks, Name: name, ArgNames: argNames, ArgTypes: args, Return: ret,
			CalledOnNullInput: st.CalledOnNullInput, Language: strings.ToLower(string(st.Language)), Body: st.Body}
		body, err := expr.CompileFunctionBody(&fn, def)
		if err != nil {
			return nil, err
		}
		created := fn.WithBody(body)
		if _, ok := def.Aggregate(name, args); ok {
			return nil, query.Invalidf("Function '%s' cannot replace an aggregate", name)
		}
		next := *def
		change := wire.Created
		if old, ok := def.Function(name, args); ok {
			if st.IfNotExists {
				return query.VoidResult(), nil
			}
			if !st.OrReplace {
				return nil, query.Invalidf("Function '%s' already exists", name)
			}
			if st.CalledOnNullInput != old.CalledOnNullInput {
				directive := "RETURNS NULL ON NULL INPUT"
				if st.CalledOnNullInput {
					directive = "CALLED ON NULL INPUT"
				}
				return nil, query.Invalidf("Function '%s' must have %s directive", name, directive)
			}
			if !compatibleReturn(ret, old.Return) {
				return nil, query.Invalidf("Cannot replace function '%s', the new return type %s is not compatible with the return type %s of existing function",
					name, ret, old.Return)
			}
			next.Functions = slices.Clone(def.Functions)
			next.Functions[slices.Index(def.Functions, old)] = created
			change = wire.Updated
		} else {
			next.Functions = append(slices.Clone(def.Functions), created)
		}
		if err := q.Env.Engine.AlterKeyspace(&next); err != nil {
			return nil, err
		}
		return functionChange(change, wire.TargetFunction, ks, name, rawTypeStrings(argTypes)), nil
	}}, nil
}

func compileCreateAggregate(s *plan.Compiler, st *parser.CreateAggregate) (plan.Plan, error) {
	ks, name, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	stateFunctionString := func() string {
		return fmt.Sprintf("%s.%s(%s)", ks, st.SFunc, strings.Join(append([]string{rawTypeString(st.SType)}, rawTypeStrings(st.ArgTypes)...), ", "))
	}
	return &ddlPlan{run: func(_ context.Context, q *plan.Execution) (*query.Result, error) {
		if st.OrReplace && st.IfNotExists {
			return nil, query.Invalidf(errBothDirectives)
		}
		for _, t := range st.ArgTypes {
			if isFrozenRaw(t) {
				return nil, query.Invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", t, t)
			}
		}
		if isFrozenRaw(st.SType) {
			return nil, query.Invalidf("State type '%s' cannot be frozen; remove frozen<> modifier from '%s'", st.SType, st.SType)
		}
		def, ok := q.Env.Engine.Keyspace(ks)
		if !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		args, err := resolveTypes(st.ArgTypes, def)
		if err != nil {
			return nil, err
		}
		stype, err := expr.ConvertType(st.SType, def)
		if err != nil {
			return nil, err
		}
		stateArgs := append([]types.Type{stype}, args...)
		sf, ok := def.Function(string(st.SFunc), stateArgs)
		if !ok {
			if _, isAgg := def.Aggregate(string(st.SFunc), stateArgs); isAgg {
				return nil, query.Invalidf("State function %s isn't a scalar function", stateFunctionString())
			}
			return nil, query.Invalidf("State function %s doesn't exist", stateFunctionString())
		}
		if !sf.Return.Equal(stype) {
			return nil, query.Invalidf("State function %s return type must be the same as the first argument type - check STYPE, argument and return types", stateFunctionString())
		}
		ret := sf.Return
		if st.FinalFunc != "" {
			finalString := fmt.Sprintf("%s.%s(%s)", ks, st.FinalFunc, rawTypeString(st.SType))
			ff, ok := def.Function(string(st.FinalFunc), []types.Type{stype})
			if !ok {
				if _, isAgg := def.Aggregate(string(st.FinalFunc), []types.Type{stype}); isAgg {
					return nil, query.Invalidf("Final function %s isn't a scalar function", finalString)
				}
				return nil, query.Invalidf("Final function %s doesn't exist", finalString)
			}
			ret = ff.Return
		}
		var initCond []byte
		if st.InitCond != nil {
			if initCond, err = initialValue(ks, st.InitCond, stype); err != nil {
				return nil, err
			}
			if k, isConst := st.InitCond.(*parser.Constant); !(isConst && k.Kind == parser.ConstNull) && (initCond == nil || len(initCond) == 0 && expr.EmptyValueMeaningless(stype)) {
				return nil, query.Invalidf("INITCOND must not be empty for all types except TEXT, ASCII, BLOB")
			}
		}
		if !sf.CalledOnNullInput && initCond == nil {
			return nil, query.Invalidf("Cannot create aggregate '%s' without INITCOND because state function %s.%s does not accept 'null' arguments", name, ks, st.SFunc)
		}
		agg := &schema.Aggregate{Keyspace: ks, Name: name, ArgTypes: args, StateFunc: string(st.SFunc), StateType: stype,
			FinalFunc: string(st.FinalFunc), InitCond: initCond, Return: ret}
		if _, ok := def.Function(name, args); ok {
			return nil, query.Invalidf("Aggregate '%s' cannot replace a function", name)
		}
		next := *def
		change := wire.Created
		if old, ok := def.Aggregate(name, args); ok {
			if st.IfNotExists {
				return query.VoidResult(), nil
			}
			if !st.OrReplace {
				return nil, query.Invalidf("Aggregate '%s' already exists", name)
			}
			if !compatibleReturn(ret, old.Return) {
				return nil, query.Invalidf("Cannot replace aggregate '%s', the new return type %s isn't compatible with the return type %s of existing function",
					name, ret, old.Return)
			}
			next.Aggregates = slices.Clone(def.Aggregates)
			next.Aggregates[slices.Index(def.Aggregates, old)] = agg
			change = wire.Updated
		} else {
			next.Aggregates = append(slices.Clone(def.Aggregates), agg)
		}
		if err := q.Env.Engine.AlterKeyspace(&next); err != nil {
			return nil, err
		}
		return functionChange(change, wire.TargetAggregate, ks, name, rawTypeStrings(st.ArgTypes)), nil
	}}, nil
}

// initialValue is Terms.asBytes of an aggregate's INITCOND: the term
// prepared for the state type, with a receiver named (dummy), and
// evaluated; it must be a constant.
func initialValue(ks string, term parser.Expr, stype types.Type) ([]byte, error) {
	c := expr.NewCompileCtx(0)
	tm, err := c.CompileTerm(term, expr.Receiver{Ks: ks, Name: "(dummy)", Typ: stype})
	if err != nil {
		return nil, err
	}
	v, err := tm.Eval(&query.Execution{})
	if err != nil {
		return nil, err
	}
	if v.Bytes == nil {
		return nil, nil
	}
	if err := types.Validate(stype, v.Bytes); err != nil {
		return nil, query.Invalidf("Invalid value for INITCOND of type %s", stype)
	}
	return v.Bytes, nil
}

func compileDropFunction(s *plan.Compiler, st *parser.DropFunction) (plan.Plan, error) {
	ks, fname, err := s.ModifiableTable(st.Name)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s.%s", ks, fname)
	if st.ArgsGiven {
		name += "(" + strings.Join(rawTypeStrings(st.ArgTypes), ", ") + ")"
	}
	what, stmt := "Function", "FUNCTION"
	if st.Aggregate {
		what, stmt = "Aggregate", "AGGREGATE"
	}
	return &ddlPlan{run: func(_ context.Context, q *plan.Execution) (*query.Result, error) {
		def, ok := q.Env.Engine.Keyspace(ks)
		if !ok {
			if st.IfExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("%s '%s' doesn't exist", what, name)
		}
		// Cassandra's keyspace.functions holds the functions and the
		// aggregates of a name together.
		if n := len(def.FunctionsNamed(fname)) + len(def.AggregatesNamed(fname)); n > 1 && !st.ArgsGiven {
			return nil, query.Invalidf("'DROP %s %s' matches multiple function definitions; specify the argument types by issuing a statement like 'DROP %s %s (type, type, ...)'. You can use cqlsh 'DESCRIBE %s %s' command to find all overloads",
				stmt, fname, stmt, fname, stmt, fname)
		}
		for _, t := range st.ArgTypes {
			if isFrozenRaw(t) {
				return nil, query.Invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", t, t)
			}
		}
		args, err := resolveTypes(st.ArgTypes, def)
		if err != nil {
			return nil, err
		}
		next := *def
		if st.Aggregate {
			i := slices.IndexFunc(def.Aggregates, func(a *schema.Aggregate) bool {
				return a.Name == fname && (!st.ArgsGiven || schema.TypesMatch(a.ArgTypes, args))
			})
			if i < 0 {
				if st.IfExists {
					return query.VoidResult(), nil
				}
				return nil, query.Invalidf("Aggregate '%s' doesn't exist", name)
			}
			dropped := def.Aggregates[i]
			next.Aggregates = slices.Delete(slices.Clone(def.Aggregates), i, i+1)
			if err := q.Env.Engine.AlterKeyspace(&next); err != nil {
				return nil, err
			}
			return functionChange(wire.Dropped, wire.TargetAggregate, ks, fname, dropped.ArgTypeStrings()), nil
		}
		i := slices.IndexFunc(def.Functions, func(f *schema.Function) bool {
			return f.Name == fname && (!st.ArgsGiven || schema.TypesMatch(f.ArgTypes, args))
		})
		if i < 0 {
			if st.IfExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Function '%s' doesn't exist", name)
		}
		dropped := def.Functions[i]
		var users []string
		for _, a := range def.Aggregates {
			if usesFunction(a, dropped) {
				users = append(users, a.Keyspace+"."+a.Name)
			}
		}
		if len(users) > 0 {
			return nil, query.Invalidf("Function '%s' is still referenced by aggregates %s", name, strings.Join(users, ", "))
		}
		next.Functions = slices.Delete(slices.Clone(def.Functions), i, i+1)
		if err := q.Env.Engine.AlterKeyspace(&next); err != nil {
			return nil, err
		}
		return functionChange(wire.Dropped, wire.TargetFunction, ks, fname, dropped.ArgTypeStrings()), nil
	}}, nil
}

// usesFunction reports whether aggregate a calls f as its state or final
// function (UDAggregate.hasReferenceTo).
func usesFunction(a *schema.Aggregate, f *schema.Function) bool {
	return a.StateFunc == f.Name && schema.TypesMatch(a.StateArgs(), f.ArgTypes) ||
		a.FinalFunc != "" && a.FinalFunc == f.Name && schema.TypesMatch([]types.Type{a.StateType}, f.ArgTypes)
}

// validFunctionName is FunctionName.isNameValid: word characters only
// (Java's \w, ASCII letters, digits and the underscore), so that a
// function's name fits in its resource name (functions/ks/f[...]).
func validFunctionName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
