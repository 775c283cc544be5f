package statements

import (
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
)

// compiler is the environment a statement is compiled in: the executor,
// whose schema resolves names, and the keyspace unqualified names resolve
// in. It holds no session, role, clock or bound value, so the plan it
// returns is a pure value that any session may execute: who runs it, with
// what values and at what time comes with each execution.
type compiler struct {
	env *Env
	ks  string
	// tables lists the tables the statement resolved, in order, for the
	// plan cache: a prepared statement is evicted when one of them
	// changes (plancache.go).
	tables []*schema.Table
}

// Keyspace returns the keyspace unqualified names resolve in ("" if none).
func (s *compiler) Keyspace() string { return s.ks }

// Compile compiles stmt against env in keyspace ks. It returns the plan
// and the tables it depends on.
func Compile(env *Env, stmt parser.Statement, ks string) (Plan, []*schema.Table, error) {
	c := &compiler{env: env, ks: ks}
	pl, err := c.compile(stmt)
	if err != nil {
		return nil, nil, err
	}
	return pl, c.tables, nil
}

// compile validates a parsed statement against the current schema.
func (s *compiler) compile(stmt parser.Statement) (Plan, error) {
	switch st := stmt.(type) {
	case *parser.Use:
		return &usePlan{ks: string(st.Keyspace)}, nil
	case *parser.Select:
		return s.compileSelect(st)
	case *parser.Insert:
		return s.compileInsert(st)
	case *parser.Update:
		return s.compileUpdate(st)
	case *parser.Delete:
		return s.compileDelete(st)
	case *parser.Batch:
		return s.compileBatch(st)
	case *parser.CreateKeyspace, *parser.AlterKeyspace, *parser.DropKeyspace,
		*parser.CreateTable, *parser.AlterTable, *parser.DropTable, *parser.Truncate, *parser.CreateIndex, *parser.DropIndex,
		*parser.CreateType, *parser.AlterUserType, *parser.DropType,
		*parser.CreateView, *parser.AlterView, *parser.DropView,
		*parser.CreateFunction, *parser.CreateAggregate, *parser.DropFunction,
		*parser.CreateTrigger, *parser.DropTrigger:
		return s.compileDDL(st)
	case *parser.Describe:
		return s.compileDescribe(st)
	case *parser.CreateRole, *parser.AlterRole, *parser.DropRole, *parser.ListRoles, *parser.GrantRole, *parser.Permissions:
		return s.compileAuth(st)
	}
	return nil, query.Invalidf("statement not supported: %s", stmt)
}
