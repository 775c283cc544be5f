package ddl

import (
	"context"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
)

// Triggers. A Cassandra trigger is a Java class (ITrigger) loaded from the
// node's triggers directory; CREATE TRIGGER fails when the class cannot be
// loaded (CreateTriggerStatement.apply). minicass runs no Java, so it
// answers as a node whose triggers directory lacks the class: CREATE
// TRIGGER checks the keyspace, the table and the name as Cassandra does,
// then refuses the class; no trigger ever exists, so DROP TRIGGER finds
// nothing (DropTriggerStatement.apply). With password authentication both
// need a superuser, as Cassandra's authorize step requires.
// docs/compatibility.md says so.

func compileCreateTrigger(s *plan.Compiler, st *parser.CreateTrigger) (plan.Plan, error) {
	ks, table, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		if err := q.Env.Roles.EnsureIsSuperuser(ctx, q.Session.User(), "Only superusers are allowed to perform CREATE TRIGGER queries"); err != nil {
			return nil, err
		}
		if _, ok := q.Env.Engine.Keyspace(ks); !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		if _, ok := q.Env.Engine.Table(ks, table); !ok {
			return nil, query.Invalidf("Table '%s' doesn't exist", table)
		}
		return nil, query.Invalidf("Trigger class '%s' couldn't be loaded", st.Class)
	}}, nil
}

func compileDropTrigger(s *plan.Compiler, st *parser.DropTrigger) (plan.Plan, error) {
	ks, table, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		// Cassandra's text, its typo included.
		if err := q.Env.Roles.EnsureIsSuperuser(ctx, q.Session.User(), "Only superusers are allowed to perfrom DROP TRIGGER queries"); err != nil {
			return nil, err
		}
		if st.IfExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("Trigger '%s' on '%s.%s' doesn't exist", st.Name, ks, table)
	}}, nil
}
