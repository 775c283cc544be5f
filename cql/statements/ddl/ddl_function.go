package ddl

import (
	"context"
	"fmt"
	"strings"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
)

// User-defined functions and aggregates. Cassandra 4.1 ships with
// user_defined_functions_enabled: false, and its CREATE FUNCTION then fails
// with the text below (CreateFunctionStatement.apply). minicass answers as
// that default node does: it parses the statements whole and refuses
// CREATE FUNCTION; so no user function ever exists, CREATE AGGREGATE finds
// no state function (CreateAggregateStatement.apply) and DROP finds nothing
// to drop (DropFunctionStatement, DropAggregateStatement).
// docs/compatibility.md says so.

// errUDFsDisabled is Cassandra 4.1's refusal of CREATE FUNCTION.
const errUDFsDisabled = "User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable"

const errBothDirectives = "Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives"

func compileCreateFunction(s *plan.Compiler, st *parser.CreateFunction) (plan.Plan, error) {
	if _, err := s.KeyspaceFor(st.Name); err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(_ context.Context, q *plan.Execution) (*query.Result, error) {
		if st.OrReplace && st.IfNotExists {
			return nil, query.Invalidf(errBothDirectives)
		}
		return nil, query.Invalidf(errUDFsDisabled)
	}}, nil
}

func compileCreateAggregate(s *plan.Compiler, st *parser.CreateAggregate) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(st.Name)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(_ context.Context, q *plan.Execution) (*query.Result, error) {
		if st.OrReplace && st.IfNotExists {
			return nil, query.Invalidf(errBothDirectives)
		}
		if _, ok := q.Env.Engine.Keyspace(ks); !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		// The state function takes the state type and the arguments.
		types := []string{st.SType.String()}
		for _, t := range st.ArgTypes {
			types = append(types, t.String())
		}
		return nil, query.Invalidf("State function %s.%s(%s) doesn't exist", ks, st.SFunc, strings.Join(types, ", "))
	}}, nil
}

func compileDropFunction(s *plan.Compiler, st *parser.DropFunction) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(st.Name)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s.%s", ks, st.Name.Name)
	if st.ArgsGiven {
		types := make([]string, len(st.ArgTypes))
		for i, t := range st.ArgTypes {
			types[i] = t.String()
		}
		name += "(" + strings.Join(types, ", ") + ")"
	}
	what := "Function"
	if st.Aggregate {
		what = "Aggregate"
	}
	return &ddlPlan{run: func(context.Context, *plan.Execution) (*query.Result, error) {
		if st.IfExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("%s '%s' doesn't exist", what, name)
	}}, nil
}
