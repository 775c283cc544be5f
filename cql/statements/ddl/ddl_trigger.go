package ddl

import (
	"context"
	"slices"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// Triggers (CREATE TRIGGER, DROP TRIGGER) follow Cassandra 4.1's
// CreateTriggerStatement and DropTriggerStatement: their checks in their
// order, their texts, a trigger kept in its table's definition
// (schema.Table.Triggers, system_schema.triggers) and an UPDATED TABLE
// schema change. A Cassandra trigger is a Java class loaded from the
// node's triggers directory; minicass's are the Go triggers the node was
// given (plan.Env.Triggers, package cql/trigger), so a class the registry
// lacks fails as a class the triggers directory lacks does. With password
// authentication both statements need a superuser, as their authorize
// step requires. The triggers run on writes (package statements,
// triggers.go).

func compileCreateTrigger(s *plan.Compiler, st *parser.CreateTrigger) (plan.Plan, error) {
	ks, table, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	name := string(st.Name)
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		if err := q.Env.Roles.EnsureIsSuperuser(ctx, q.Session.User(), "Only superusers are allowed to perform CREATE TRIGGER queries"); err != nil {
			return nil, err
		}
		if _, ok := q.Env.Engine.Keyspace(ks); !ok {
			return nil, query.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		// KeyspaceMetadata.getTableOrViewNullable: a view is found, and
		// refused.
		tbl, ok := q.Env.Engine.Table(ks, table)
		if !ok || tbl.IsIndexTable() {
			return nil, query.Invalidf("Table '%s' doesn't exist", table)
		}
		if tbl.IsView() {
			return nil, query.Invalidf("Cannot CREATE TRIGGER for a materialized view")
		}
		if _, exists := tbl.Trigger(name); exists {
			if st.IfNotExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Trigger '%s' already exists", name)
		}
		if _, ok := q.Env.Triggers.Lookup(st.Class); !ok {
			return nil, query.Invalidf("Trigger class '%s' couldn't be loaded", st.Class)
		}
		nt := tbl.Clone()
		nt.Triggers = append(slices.Clone(tbl.Triggers), schema.Trigger{Name: name, Class: st.Class})
		if err := q.Env.Engine.AlterTable(nt); err != nil {
			return nil, query.AsError(err)
		}
		return schemaChange(wire.Updated, wire.TargetTable, ks, table), nil
	}}, nil
}

func compileDropTrigger(s *plan.Compiler, st *parser.DropTrigger) (plan.Plan, error) {
	ks, table, err := s.ModifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	name := string(st.Name)
	return &ddlPlan{run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		// Cassandra's text, its typo included.
		if err := q.Env.Roles.EnsureIsSuperuser(ctx, q.Session.User(), "Only superusers are allowed to perfrom DROP TRIGGER queries"); err != nil {
			return nil, err
		}
		// DropTriggerStatement.apply looks in the keyspace's tables only
		// (keyspace.tables, not its views): a view has no trigger to drop.
		tbl, ok := q.Env.Engine.Table(ks, table)
		i := -1
		if ok && !tbl.IsView() && !tbl.IsIndexTable() {
			i = slices.IndexFunc(tbl.Triggers, func(tr schema.Trigger) bool { return tr.Name == name })
		}
		if i < 0 {
			if st.IfExists {
				return query.VoidResult(), nil
			}
			return nil, query.Invalidf("Trigger '%s' on '%s.%s' doesn't exist", name, ks, table)
		}
		nt := tbl.Clone()
		nt.Triggers = slices.Delete(slices.Clone(tbl.Triggers), i, i+1)
		if len(nt.Triggers) == 0 {
			nt.Triggers = nil
		}
		if err := q.Env.Engine.AlterTable(nt); err != nil {
			return nil, query.AsError(err)
		}
		return schemaChange(wire.Updated, wire.TargetTable, ks, table), nil
	}}, nil
}
