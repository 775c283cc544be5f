package expr

import (
	"fmt"
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
)

// The CAST functions of Cassandra 4.1 (cql3/functions/CastFcts): one native
// function per output type, named castAs<Type> (castAsInt, castAsText), with
// one overload per input type CastFcts.all() converts from. A cast in a
// selection applies the overload of its argument's type (a cast to the
// argument's own type is the argument itself, Selectable.WithCast); a cast in
// a term is a call of that function (FunctionCall.Raw.newCast), resolved as
// any call is, so CAST(? AS int) is ambiguous.

// castNumeric lists CastFcts' numeric types, in its order.
var castNumeric = []types.Type{types.TinyintType, types.SmallintType, types.IntType, types.BigintType,
	types.FloatType, types.DoubleType, types.DecimalType, types.CounterType, types.VarintType}

// castFunctionName is CastFcts.getFunctionName: castAs and the output type's
// CQL name, capitalized.
func castFunctionName(to types.Type) string {
	s := strings.ToLower(to.String())
	return "castAs" + strings.ToUpper(s[:1]) + s[1:]
}

func isCastNumeric(k types.Kind) bool {
	switch k {
	case types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Float, types.Double, types.Varint, types.Decimal, types.Counter:
		return true
	}
	return false
}

// castInputs is the input types of the overloads of castFunctionName(to), in
// CastFcts.all()'s order; nil when no cast function outputs to.
func castInputs(to types.Type) []types.Type {
	var in []types.Type
	switch {
	case isCastNumeric(to.Kind) && to.Kind != types.Counter:
		for _, t := range castNumeric {
			if t.Kind != to.Kind {
				in = append(in, t)
			}
		}
	case to.Kind == types.Text || to.Kind == types.Ascii:
		in = append(in, castNumeric...)
		if to.Kind == types.Text {
			in = append(in, types.AsciiType)
		}
		in = append(in, types.InetType, types.BooleanType, types.TimeUUIDType, types.TimestampType, types.DateType,
			types.TimeType, types.UUIDType)
	case to.Kind == types.Date:
		in = []types.Type{types.TimeUUIDType, types.TimestampType}
	case to.Kind == types.Timestamp:
		in = []types.Type{types.TimeUUIDType, types.DateType}
	}
	return in
}

// castConversion is the conversion of CastFcts' overload from -> to, or
// false when CastFcts has no such overload. Its argument is never null.
func castConversion(from, to types.Type) (func(b []byte) ([]byte, error), bool) {
	if from.Kind == types.Counter {
		from = types.CounterType
	}
	ok := false
	for _, t := range castInputs(to) {
		if t.Kind == from.Kind {
			ok = true
			break
		}
	}
	if !ok {
		return nil, false
	}
	switch {
	case to.Kind == types.Text || to.Kind == types.Ascii:
		return func(b []byte) ([]byte, error) { return []byte(castText(from, b)), nil }, true
	case isCastNumeric(to.Kind):
		return func(b []byte) ([]byte, error) { return castNumber(from, to, b), nil }, true
	case to.Kind == types.Timestamp:
		fn, _ := lookupFunction("totimestamp", []types.Type{from})
		return func(b []byte) ([]byte, error) { return fn.impl(nil, [][]byte{b}) }, true
	default: // date
		fn, _ := lookupFunction("todate", []types.Type{from})
		return func(b []byte) ([]byte, error) { return fn.impl(nil, [][]byte{b}) }, true
	}
}

// castFunction is the overload from -> to as a native function.
func castFunction(from, to types.Type) *function {
	conv, _ := castConversion(from, to)
	return &function{name: castFunctionName(to), args: []types.Type{from}, ret: to,
		impl: nullSafe(func(_ *query.Execution, a [][]byte) ([]byte, error) { return conv(a[0]) })}
}

// compileCastTerm compiles CAST(x AS type) in a term as the call of
// castAs<Type>(x), choosing the overload as FunctionResolver.pickBestMatch
// does: the first whose argument type x matches exactly, else the only one
// x is assignable to.
func (c *CompileCtx) compileCastTerm(e *parser.Cast, r Receiver) (Term, error) {
	to, err := ConvertType(e.Type, nil)
	if err != nil {
		return nil, err
	}
	name := castFunctionName(to)
	if r.Typ.Kind != types.Invalid && !assignableType(to, r.Typ) && !valueCompatible(r.Typ, to) {
		return nil, notAssignableErr(query.Invalidf("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", name, to, r.Name, r.Typ))
	}
	inputs := castInputs(to)
	if len(inputs) == 0 {
		return nil, query.Invalidf("Unknown function system.%s", name)
	}
	arg := c.termArg(e.Expr, r)
	var chosen *types.Type
	var compatible []types.Type
	for i, in := range inputs {
		switch arg.assign(in) {
		case exactMatch:
			chosen = &inputs[i]
		case weaklyAssignable:
			compatible = append(compatible, in)
		}
		if chosen != nil {
			break
		}
	}
	sigs := func(ts []types.Type) string {
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = fmt.Sprintf("system.%s : (%s) -> %s", name, t, to)
		}
		return strings.Join(parts, ", ")
	}
	if chosen == nil {
		switch len(compatible) {
		case 0:
			return nil, notAssignableErr(query.Invalidf("Invalid call to function system.%s, none of its type signatures match (known type signatures: %s)", name, sigs(inputs)))
		case 1:
			chosen = &compatible[0]
		default:
			return nil, query.Invalidf("Ambiguous call to function system.%s (can be matched by following signatures: %s): use type casts to disambiguate", name, sigs(compatible))
		}
	}
	argTerm, err := c.CompileTerm(e.Expr, r.Sub(fmt.Sprintf("arg0(system.%s)", name), *chosen))
	if err != nil {
		return nil, err
	}
	ft := funcTerm{fn: castFunction(*chosen, to), args: []Term{argTerm}}
	if isConstTerms(ft.args) {
		if v, err := ft.Eval(&query.Execution{}); err == nil {
			return ConstTerm{V: v.Bytes}, nil
		}
	}
	return ft, nil
}
