package ddl

import (
	"context"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
)

// Materialized views. Cassandra 4.1 ships with materialized_views_enabled:
// false, and its CREATE MATERIALIZED VIEW then fails with the text below
// once the statement is prepared (CreateViewStatement.apply). minicass
// answers as that default node does: it parses the whole statement, makes
// the checks Cassandra makes before apply, and refuses it. So no view ever
// exists: ALTER and DROP find none (AlterViewStatement, DropViewStatement).
// docs/compatibility.md says so.

// errViewsDisabled is Cassandra's refusal of CREATE MATERIALIZED VIEW when
// views are disabled.
const errViewsDisabled = "Materialized views are disabled. Enable in cassandra.yaml to use."

func compileCreateView(s *plan.Compiler, st *parser.CreateView) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(st.Name)
	if err != nil {
		return nil, err
	}
	// CreateViewStatement.Raw.prepare.
	if st.Select.Table.Keyspace != "" && string(st.Select.Table.Keyspace) != ks {
		return nil, query.Invalidf("Cannot create a materialized view on a table in a different keyspace")
	}
	if st.BindCount() > 0 {
		return nil, query.Invalidf("Bind variables are not allowed in CREATE MATERIALIZED VIEW statements")
	}
	seen := map[parser.Ident]bool{}
	for _, o := range st.ClusteringOrder {
		if seen[o.Column] {
			return nil, query.Invalidf("Duplicate column '%s' in CLUSTERING ORDER BY clause for view '%s'", o.Column, st.Name)
		}
		seen[o.Column] = true
	}
	return &ddlPlan{run: func(context.Context, *plan.Execution) (*query.Result, error) {
		return nil, query.Invalidf(errViewsDisabled)
	}}, nil
}

// compileAlterView and compileDropView find no view, as a node without
// views does; IF EXISTS makes that a no-op.
func compileAlterView(s *plan.Compiler, st *parser.AlterView) (plan.Plan, error) {
	return missingView(s, st.Name, st.IfExists)
}

func compileDropView(s *plan.Compiler, st *parser.DropView) (plan.Plan, error) {
	return missingView(s, st.Name, st.IfExists)
}

func missingView(s *plan.Compiler, name parser.TableName, ifExists bool) (plan.Plan, error) {
	ks, err := s.KeyspaceFor(name)
	if err != nil {
		return nil, err
	}
	return &ddlPlan{run: func(context.Context, *plan.Execution) (*query.Result, error) {
		if ifExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("Materialized view '%s.%s' doesn't exist", ks, name.Name)
	}}, nil
}
