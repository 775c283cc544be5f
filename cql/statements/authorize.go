package statements

import (
	"context"
	"slices"

	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Authorization of the data and schema statements (their authorize()
// methods in Cassandra 4.1), checked when CassandraAuthorizer is on.
//
// A statement's requirements (a permission on a data or function resource)
// are computed when it compiles, from the names it resolved, and are part
// of its pure plan; whose permissions they test is the executing session's
// role, read at each execution (plan.Execution.Session), never the
// preparer's. They are checked before the plan runs, so a statement
// authorizes before its execution-time validation and execution, as
// QueryProcessor.processStatement orders them; what Cassandra validates
// while preparing (unknown tables and columns) minicass validates while
// compiling, before, as Cassandra does.
//
// The role and permission statements authorize themselves (package dcl),
// as do CREATE and DROP TRIGGER (superusers only). USE and DESCRIBE need no
// permission.

// requirement is one permission a statement needs.
type requirement struct {
	perm auth.Permission
	res  auth.Resource
}

// grantOnCreate is what a successful CREATE grants its creator
// (grantPermissionsToCreator), and revokeOnDrop what a DROP revokes from
// every role (AuthSchemaChangeListener).
type followUp struct {
	grant  []auth.Resource
	revoke []auth.Resource
}

// authorizedPlan is a plan with the permissions it needs.
type authorizedPlan struct {
	plan.Plan
	reqs []requirement
	then followUp
}

// Exec checks the executing session's permissions, then runs the plan. A
// CREATE that created its object grants the creator every permission on
// it; a DROP that dropped one revokes every permission on it, whoever runs
// it (the node's internal session included).
func (p *authorizedPlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	roles := q.Env.Roles
	if !roles.Authorizing() {
		return p.Plan.Exec(ctx, q)
	}
	user := q.Session.User()
	if user != "" {
		for _, r := range p.reqs {
			if err := roles.EnsureDataPermission(ctx, user, r.perm, r.res); err != nil {
				return nil, err
			}
		}
	}
	res, err := p.Plan.Exec(ctx, q)
	if err == nil && res != nil && res.Change != nil && res.Change.Change == wire.Updated {
		// Only a CREATE that created its object grants its creator
		// (createdResources is empty for OR REPLACE of an existing one).
		return res, nil
	}
	if err != nil || res == nil || res.Kind != wire.ResultSchemaChange ||
		(len(p.then.revoke) == 0 && (len(p.then.grant) == 0 || user == "")) {
		return res, err
	}
	unlock := roles.Lock()
	defer unlock()
	for _, r := range p.then.revoke {
		if err := roles.RevokeAllOn(ctx, r); err != nil {
			return nil, err
		}
	}
	if user != "" {
		for _, r := range p.then.grant {
			if _, err := roles.Grant(ctx, r.Applicable(), r, user); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// withAuthorization wraps pl, the compiled stmt, with the permissions stmt
// needs. A statement that needs none is returned as it is.
func withAuthorization(s *plan.Compiler, stmt parser.Statement, pl plan.Plan) (plan.Plan, error) {
	reqs, then, err := requirements(s, stmt)
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return pl, nil
	}
	return &authorizedPlan{Plan: pl, reqs: reqs, then: then}, nil
}

// unwrapAuthorized returns the plan inside an authorizedPlan and its
// requirements.
func unwrapAuthorized(pl plan.Plan) (plan.Plan, []requirement) {
	if ap, ok := pl.(*authorizedPlan); ok {
		return ap.Plan, ap.reqs
	}
	return pl, nil
}

func table(s *plan.Compiler, t parser.TableName) (auth.Resource, error) {
	ks, err := s.KeyspaceFor(t)
	if err != nil {
		return auth.Resource{}, err
	}
	return auth.TableData(ks, string(t.Name)), nil
}

// requirements lists the permissions stmt needs, as its authorize() method
// checks them, in that order.
func requirements(s *plan.Compiler, stmt parser.Statement) ([]requirement, followUp, error) {
	var none followUp
	one := func(perm auth.Permission, res auth.Resource) ([]requirement, followUp, error) {
		return []requirement{{perm, res}}, none, nil
	}
	onTable := func(perm auth.Permission, t parser.TableName) ([]requirement, followUp, error) {
		res, err := table(s, t)
		if err != nil {
			return nil, none, err
		}
		return one(perm, res)
	}
	switch st := stmt.(type) {
	case *parser.Select:
		// SelectStatement.authorize: SELECT on the table, then EXECUTE on
		// each user function called.
		reqs, then, err := onTable(auth.PermSelect, st.Table)
		return append(reqs, executeRequirements(s)...), then, err
	case *parser.Insert, *parser.Update, *parser.Delete:
		reqs, then, err := modificationRequirements(s, st)
		return append(reqs, executeRequirements(s)...), then, err
	case *parser.Batch:
		// BatchStatement.authorize: each statement's.
		var out []requirement
		for _, inner := range st.Statements {
			reqs, _, err := modificationRequirements(s, inner)
			if err != nil {
				return nil, none, err
			}
			out = append(out, reqs...)
		}
		return out, none, nil
	case *parser.Truncate:
		return onTable(auth.PermModify, st.Table)
	case *parser.CreateKeyspace:
		ks := string(st.Name)
		return []requirement{{auth.PermCreate, auth.RootData()}},
			followUp{grant: []auth.Resource{auth.KeyspaceData(ks), auth.KeyspaceFunctions(ks)}}, nil
	case *parser.AlterKeyspace:
		return one(auth.PermAlter, auth.KeyspaceData(string(st.Name)))
	case *parser.DropKeyspace:
		ks := string(st.Name)
		then := followUp{revoke: []auth.Resource{auth.KeyspaceData(ks), auth.AllTablesData(ks), auth.KeyspaceFunctions(ks)}}
		for _, t := range s.Env.Engine.Tables(ks) {
			then.revoke = append(then.revoke, auth.TableData(ks, t.Name))
		}
		if def, ok := s.Env.Engine.Keyspace(ks); ok {
			for _, f := range def.Functions {
				then.revoke = append(then.revoke, auth.FunctionResource(ks, f.Name, f.ArgTypes))
			}
			for _, a := range def.Aggregates {
				then.revoke = append(then.revoke, auth.FunctionResource(ks, a.Name, a.ArgTypes))
			}
		}
		return []requirement{{auth.PermDrop, auth.KeyspaceData(ks)}}, then, nil
	case *parser.CreateTable:
		ks, err := s.KeyspaceFor(st.Table)
		if err != nil {
			return nil, none, err
		}
		return []requirement{{auth.PermCreate, auth.AllTablesData(ks)}},
			followUp{grant: []auth.Resource{auth.TableData(ks, string(st.Table.Name))}}, nil
	case *parser.AlterTable:
		return onTable(auth.PermAlter, st.Table)
	case *parser.DropTable:
		res, err := table(s, st.Table)
		if err != nil {
			return nil, none, err
		}
		return []requirement{{auth.PermDrop, res}}, followUp{revoke: []auth.Resource{res}}, nil
	case *parser.CreateIndex:
		return onTable(auth.PermAlter, st.Table)
	case *parser.CreateView:
		// CreateViewStatement.authorize: ALTER on the base table, in the
		// view's keyspace.
		ks, err := s.KeyspaceFor(st.Name)
		if err != nil {
			return nil, none, err
		}
		return one(auth.PermAlter, auth.TableData(ks, string(st.Select.Table.Name)))
	case *parser.DropIndex:
		// DropIndexStatement.authorize: ALTER on the indexed table, if
		// the index exists.
		ks, err := s.KeyspaceFor(st.Name)
		if err != nil {
			return nil, none, err
		}
		for _, t := range s.Env.Engine.Tables(ks) {
			for _, ix := range t.Indexes {
				if ix.Name == string(st.Name.Name) {
					return one(auth.PermAlter, auth.TableData(ks, t.Name))
				}
			}
		}
		return nil, none, nil
	case *parser.AlterView, *parser.DropView:
		// AlterViewStatement and DropViewStatement.authorize: ALTER on
		// the base table, if the view exists.
		var name parser.TableName
		if a, ok := st.(*parser.AlterView); ok {
			name = a.Name
		} else {
			name = st.(*parser.DropView).Name
		}
		ks, err := s.KeyspaceFor(name)
		if err != nil {
			return nil, none, err
		}
		if v, ok := s.Env.Engine.Table(ks, string(name.Name)); ok && v.IsView() {
			return one(auth.PermAlter, auth.TableData(ks, v.View.BaseName))
		}
		return nil, none, nil
	case *parser.CreateType:
		return keyspaceWide(s, auth.PermCreate, st.Name)
	case *parser.AlterUserType:
		return keyspaceWide(s, auth.PermAlter, st.Name)
	case *parser.DropType:
		return keyspaceWide(s, auth.PermDrop, st.Name)
	case *parser.CreateFunction:
		argTypes := make([]*parser.Type, len(st.Args))
		for i, a := range st.Args {
			argTypes[i] = a.Type
		}
		return createFunctionRequirements(s, st.Name, argTypes, st.OrReplace, nil)
	case *parser.CreateAggregate:
		// CreateAggregateStatement.authorize: also EXECUTE on the state
		// and final functions.
		ks, err := s.KeyspaceFor(st.Name)
		if err != nil {
			return nil, none, err
		}
		var execute []auth.Resource
		if res, ok := functionResource(s, ks, string(st.SFunc), append([]*parser.Type{st.SType}, st.ArgTypes...)); ok {
			execute = append(execute, res)
		}
		if st.FinalFunc != "" {
			if res, ok := functionResource(s, ks, string(st.FinalFunc), []*parser.Type{st.SType}); ok {
				execute = append(execute, res)
			}
		}
		return createFunctionRequirements(s, st.Name, st.ArgTypes, st.OrReplace, execute)
	case *parser.DropFunction:
		// DropFunctionStatement.authorize: DROP on every function of the
		// name (of those argument types when given), if any exists; the
		// dropped one's permissions go with it.
		ks, err := s.KeyspaceFor(st.Name)
		if err != nil {
			return nil, none, err
		}
		def, ok := s.Env.Engine.Keyspace(ks)
		if !ok {
			return nil, none, nil
		}
		args, err := resolveRawTypes(st.ArgTypes, def)
		if err != nil {
			return nil, none, nil // the statement reports it
		}
		var reqs []requirement
		var then followUp
		add := func(name string, types []types.Type) {
			if st.ArgsGiven && !schema.TypesMatch(types, args) {
				return
			}
			res := auth.FunctionResource(ks, name, types)
			reqs = append(reqs, requirement{auth.PermDrop, res})
			then.revoke = append(then.revoke, res)
		}
		name := string(st.Name.Name)
		if st.Aggregate {
			for _, a := range def.AggregatesNamed(name) {
				add(a.Name, a.ArgTypes)
			}
		} else {
			for _, f := range def.FunctionsNamed(name) {
				add(f.Name, f.ArgTypes)
			}
		}
		if len(then.revoke) > 1 {
			then.revoke = nil // only one is dropped, or none: the statement fails
		}
		return reqs, then, nil
	}
	return nil, none, nil
}

// createFunctionRequirements is CreateFunctionStatement.authorize (and
// CreateAggregateStatement's): ALTER on the function when OR REPLACE
// replaces one, CREATE on its keyspace's functions otherwise, then EXECUTE
// on the functions in execute; the creator of a new function gets its
// permissions.
func createFunctionRequirements(s *plan.Compiler, name parser.TableName, rawArgs []*parser.Type, orReplace bool, execute []auth.Resource) ([]requirement, followUp, error) {
	ks, err := s.KeyspaceFor(name)
	if err != nil {
		return nil, followUp{}, err
	}
	var reqs []requirement
	res, known := functionResource(s, ks, string(name.Name), rawArgs)
	if def, ok := s.Env.Engine.Keyspace(ks); ok && known && orReplace && functionExists(def, res) {
		reqs = append(reqs, requirement{auth.PermAlter, res})
	} else {
		reqs = append(reqs, requirement{auth.PermCreate, auth.KeyspaceFunctions(ks)})
	}
	for _, r := range execute {
		reqs = append(reqs, requirement{auth.PermExecute, r})
	}
	var then followUp
	if known {
		then.grant = []auth.Resource{res}
	}
	return reqs, then, nil
}

// functionResource is FunctionResource.functionFromCql: the resource of
// function ks.name of the raw argument types, resolved in ks (false when a
// type does not resolve, which the statement reports).
func functionResource(s *plan.Compiler, ks, name string, raw []*parser.Type) (auth.Resource, bool) {
	def, _ := s.Env.Engine.Keyspace(ks)
	args, err := resolveRawTypes(raw, def)
	if err != nil {
		return auth.Resource{}, false
	}
	return auth.FunctionResource(ks, name, args), true
}

func resolveRawTypes(raw []*parser.Type, def *schema.Keyspace) ([]types.Type, error) {
	out := make([]types.Type, len(raw))
	for i, t := range raw {
		ct, err := expr.ConvertType(t, def)
		if err != nil {
			return nil, err
		}
		out[i] = ct
	}
	return out, nil
}

// functionExists reports whether def holds the function or aggregate res
// names.
func functionExists(def *schema.Keyspace, res auth.Resource) bool {
	for _, f := range def.FunctionsNamed(res.Name) {
		if slices.Equal(auth.FunctionResource(def.Name, f.Name, f.ArgTypes).Classes, res.Classes) {
			return true
		}
	}
	for _, a := range def.AggregatesNamed(res.Name) {
		if slices.Equal(auth.FunctionResource(def.Name, a.Name, a.ArgTypes).Classes, res.Classes) {
			return true
		}
	}
	return false
}

// executeRequirements are EXECUTE on every user function and aggregate a
// statement calls (SelectStatement.authorize and
// ModificationStatement.authorize: ensurePermission on each function).
func executeRequirements(s *plan.Compiler) []requirement {
	var reqs []requirement
	for _, d := range s.Functions() {
		switch d := d.(type) {
		case *schema.Function:
			reqs = append(reqs, requirement{auth.PermExecute, auth.FunctionResource(d.Keyspace, d.Name, d.ArgTypes)})
		case *schema.Aggregate:
			reqs = append(reqs, requirement{auth.PermExecute, auth.FunctionResource(d.Keyspace, d.Name, d.ArgTypes)})
		}
	}
	return reqs
}

// keyspaceWide is the check of the type statements: perm on the type's
// keyspace (ensureKeyspacePermission).
func keyspaceWide(s *plan.Compiler, perm auth.Permission, name parser.TableName) ([]requirement, followUp, error) {
	ks, err := s.KeyspaceFor(name)
	if err != nil {
		return nil, followUp{}, err
	}
	return []requirement{{perm, auth.KeyspaceData(ks)}}, followUp{}, nil
}

// modificationRequirements is ModificationStatement.authorize: MODIFY on
// the table, and SELECT too for a conditional statement.
func modificationRequirements(s *plan.Compiler, stmt parser.Statement) ([]requirement, followUp, error) {
	var t parser.TableName
	var c parser.Conditions
	switch st := stmt.(type) {
	case *parser.Insert:
		t, c = st.Table, st.Conditions
	case *parser.Update:
		t, c = st.Table, st.Conditions
	case *parser.Delete:
		t, c = st.Table, st.Conditions
	default:
		return nil, followUp{}, nil
	}
	res, err := table(s, t)
	if err != nil {
		return nil, followUp{}, err
	}
	reqs := []requirement{{auth.PermModify, res}}
	if c.IfExists || c.IfNotExists || len(c.If) > 0 {
		reqs = append(reqs, requirement{auth.PermSelect, res})
	}
	return reqs, followUp{}, nil
}
