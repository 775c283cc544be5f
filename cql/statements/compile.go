package statements

import (
	"context"
	"slices"

	"github.com/minicass/minicass/cql/expr"

	"github.com/minicass/minicass/cql/statements/dcl"

	"github.com/minicass/minicass/cql/statements/ddl"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// compile validates a parsed statement against the current schema.
func compile(s *plan.Compiler, stmt parser.Statement) (plan.Plan, error) {
	switch st := stmt.(type) {
	case *parser.Use:
		return &usePlan{ks: string(st.Keyspace)}, nil
	case *parser.Select:
		return compileSelect(s, st)
	case *parser.Insert:
		return checkVirtualWrite(compileInsert(s, st))
	case *parser.Update:
		return checkVirtualWrite(compileUpdate(s, st))
	case *parser.Delete:
		return checkVirtualWrite(compileDelete(s, st))
	case *parser.Batch:
		return compileBatch(s, st)
	case *parser.CreateKeyspace, *parser.AlterKeyspace, *parser.DropKeyspace,
		*parser.CreateTable, *parser.AlterTable, *parser.DropTable, *parser.Truncate, *parser.CreateIndex, *parser.DropIndex,
		*parser.CreateType, *parser.AlterUserType, *parser.DropType,
		*parser.CreateView, *parser.AlterView, *parser.DropView,
		*parser.CreateFunction, *parser.CreateAggregate, *parser.DropFunction,
		*parser.CreateTrigger, *parser.DropTrigger:
		return ddl.CompileDDL(s, st)
	case *parser.Describe:
		return ddl.CompileDescribe(s, st)
	case *parser.CreateRole, *parser.AlterRole, *parser.DropRole, *parser.ListRoles, *parser.GrantRole, *parser.Permissions:
		return dcl.CompileAuth(s, st)
	}
	return nil, query.Invalidf("statement not supported: %s", stmt)
}

// Compile compiles stmt against env in keyspace ks. It returns the plan
// and the tables it depends on.
func Compile(env *plan.Env, stmt parser.Statement, ks string) (plan.Plan, Deps, error) {
	c := plan.NewCompiler(env, ks)
	pl, err := compile(c, stmt)
	if err != nil {
		return nil, Deps{}, err
	}
	if pl, err = withAuthorization(c, stmt, pl); err != nil {
		return nil, Deps{}, err
	}
	return pl, Deps{Tables: c.Dependencies(), Functions: c.Functions()}, nil
}

// Deps are what a compiled statement depends on: the tables it resolved
// and the functions and aggregates it calls (*schema.Function,
// *schema.Aggregate, or *expr.NativeFunction for a native one), as
// CQLStatement.getFunctions lists them: an aggregate with its state and
// final functions, a call with the calls in its arguments.
type Deps struct {
	Tables    []*schema.Table
	Functions []any
}

// FunctionNames returns the names of the functions the statement calls
// (expr.FunctionName: "ks.f", "system.now"), sorted, each once.
func (d Deps) FunctionNames() []string { return FunctionNames(d.Functions) }

// FunctionNames returns the sorted names of defs (expr.FunctionName), each
// once.
func FunctionNames(defs []any) []string {
	var names []string
	for _, def := range defs {
		if n := expr.FunctionName(def); n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// usePlan is USE ks.
type usePlan struct {
	plan.NoBinds
	ks string
}

func (p *usePlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	if _, ok := q.Env.Engine.Keyspace(p.ks); !ok && !q.Env.System.UserVirtualKeyspace(p.ks) {
		return nil, query.Invalidf("Keyspace '%s' does not exist", p.ks)
	}
	q.Session.SetKeyspace(p.ks)
	return &query.Result{Kind: wire.ResultSetKeyspace, Keyspace: p.ks}, nil
}
