package expr

import (
	"fmt"
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
)

// castSources are the native types a CAST may convert from.
var castSources = []types.Kind{
	types.Ascii, types.Text, types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Varint,
	types.Float, types.Double, types.Decimal, types.Counter, types.Boolean, types.UUID, types.TimeUUID,
	types.Timestamp, types.Date, types.Time, types.Duration, types.Blob, types.Inet,
}

// castFunctionName is CastFcts.getFunctionName: "castAs" and the target
// type's name, capitalized (castAsInt).
func castFunctionName(to types.Type) string {
	n := to.String()
	return "castAs" + strings.ToUpper(n[:1]) + n[1:]
}

// castOverloads returns the cast functions to type to, one per source type
// it converts from (CastFcts: no identity cast), as native functions named
// castFunctionName(to).
func castOverloads(to types.Type) []*function {
	name := castFunctionName(to)
	var out []*function
	for _, k := range castSources {
		from := types.Type{Kind: k}
		if from.Equal(to) {
			continue
		}
		sel, err := newCastSel(&constSel{t: from}, to)
		if err != nil {
			continue
		}
		conv := sel.(*castSel).conv
		out = append(out, &function{name: name, args: []types.Type{from}, ret: to,
			impl: func(_ *query.Execution, a [][]byte) ([]byte, error) {
				if a[0] == nil {
					return nil, nil
				}
				return conv(a[0])
			}})
	}
	return out
}

// compileCastTerm compiles CAST(x AS type) used as a term for receiver r
// (CASSANDRA-14337, 4.1: FunctionCall.Raw.newCast, in the values of INSERT
// and UPDATE and in WHERE clauses). It is a call of the cast function to
// that type, resolved as FunctionResolver resolves it: an operand of known
// type (a type hint, another cast) picks the function from that type; a
// literal picks the one function it can be passed to, or of several the one
// of its preferred type, and a bind marker, which fits every one, makes the
// call ambiguous. The result must be assignable to r.
func (c *CompileCtx) compileCastTerm(e *parser.Cast, r Receiver) (Term, error) {
	to, err := ConvertType(e.Type, nil)
	if err != nil {
		return nil, err
	}
	name := castFunctionName(to)
	overloads := castOverloads(to)
	if r.Typ.Kind != types.Invalid && !assignableType(to, r.Typ) && !valueCompatible(r.Typ, to) {
		return nil, query.Invalidf("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", name, to, r.Name, r.Typ)
	}
	recv := func(t types.Type) Receiver { return r.Sub(fmt.Sprintf("arg0(system.%s)", name), t) }
	var from types.Type
	switch x := e.Expr.(type) {
	case *parser.TypeHint:
		if from, err = ConvertType(x.Type, nil); err != nil {
			return nil, err
		}
	case *parser.Cast:
		if from, err = ConvertType(x.Type, nil); err != nil {
			return nil, err
		}
	}
	type fit struct {
		fn    *function
		arg   Term
		exact bool
	}
	var fits []fit
	for _, fn := range overloads {
		if from.Kind != types.Invalid && !from.Equal(fn.args[0]) {
			continue
		}
		arg, err := c.CompileTerm(e.Expr, recv(fn.args[0]))
		if err != nil {
			if from.Kind != types.Invalid {
				return nil, err
			}
			continue
		}
		fits = append(fits, fit{fn: fn, arg: arg, exact: from.Kind != types.Invalid || preferredLiteralType(e.Expr, fn.args[0])})
	}
	pick := -1
	switch {
	case len(fits) == 1:
		pick = 0
	case len(fits) > 1:
		for i, f := range fits {
			if f.exact {
				if pick >= 0 {
					pick = -2
					break
				}
				pick = i
			}
		}
	}
	if pick < 0 {
		if len(fits) == 0 {
			return nil, query.Invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)", name, signatures(overloads))
		}
		fs := make([]*function, len(fits))
		for i, f := range fits {
			fs[i] = f.fn
		}
		return nil, query.Invalidf("Ambiguous call to function system.%s (can be matched by following signatures: %s): use type casts to disambiguate", name, signatures(fs))
	}
	ft := funcTerm{fn: fits[pick].fn, args: []Term{fits[pick].arg}}
	if isConstTerms(ft.args) {
		if v, err := ft.Eval(&query.Execution{}); err == nil {
			return ConstTerm{V: v.Bytes}, nil
		}
	}
	return ft, nil
}
