package expr

import (
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
)

// callName is how FunctionResolver names a call in its messages: as the
// call was written, qualified only when it was (FunctionName.toString), so
// floor(...) is "floor" and system.floor(...) "system.floor".
func callName(e *parser.FuncCall) string {
	name := strings.ToLower(string(e.Name))
	if e.Keyspace != "" {
		return strings.ToLower(string(e.Keyspace)) + "." + name
	}
	return name
}

// resolveFunction picks the overload of a native function for a call, as
// Cassandra 4.1's FunctionResolver.get does; the selection and the terms
// both resolve through it. name is the call's name for messages (callName),
// args describe the arguments (a selector by its type, a term by how it
// assigns to each type), and recv is the receiver's type in a term (Invalid
// in a selection).
//
// A function with one overload takes it after validateTypes' checks of the
// arity and of each argument (a bind marker fits any type). With several,
// each overload whose result can be assigned to recv is weighed
// (AssignmentTestable.TestResult over its arguments, an overload of another
// arity being not assignable): the first exact match wins, else the only
// weakly assignable one; none is an invalid call naming every overload,
// more than one an ambiguous call naming the weakly assignable ones.
func (c *CompileCtx) resolveFunction(name string, overloads []*function, args []opArg, recv types.Type) (*function, error) {
	if len(overloads) == 1 {
		fn := overloads[0]
		if len(args) != len(fn.args) {
			return nil, query.Invalidf("Invalid number of arguments in call to function %s: %d required but %d provided", fn.qualifiedName(), len(fn.args), len(args))
		}
		for i, a := range args {
			if !a.marker && a.assign(fn.args[i]) == notAssignable {
				return nil, query.Invalidf("Type error: %s cannot be passed as argument %d of function %s of type %s", a.text(), i, fn.qualifiedName(), fn.args[i])
			}
		}
		return fn, nil
	}
	var compatible []*function
	for _, fn := range overloads {
		c.work++
		if recv.Kind != types.Invalid && typeAssignment(fn.ret, recv) == notAssignable {
			continue
		}
		if len(fn.args) != len(args) {
			continue
		}
		match := exactMatch
		for i, a := range args {
			if match = min(match, a.assign(fn.args[i])); match == notAssignable {
				break
			}
		}
		switch match {
		case exactMatch:
			return fn, nil
		case weaklyAssignable:
			compatible = append(compatible, fn)
		}
	}
	switch {
	case len(compatible) == 1:
		return compatible[0], nil
	case c.probing > 0:
		return nil, errProbe
	case len(compatible) == 0:
		return nil, query.Invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)", name, signatures(overloads))
	}
	return nil, query.Invalidf("Ambiguous call to function %s (can be matched by following signatures: %s): use type casts to disambiguate", name, signatures(compatible))
}

// selectorArg describes a selector argument for resolution: its type
// assigns as a column's does (ColumnMetadata.testAssignment).
func selectorArg(s Selector) opArg {
	st := s.Typ()
	return opArg{
		text:   s.Name,
		assign: func(t types.Type) assignment { return typeAssignment(st, t) },
	}
}
