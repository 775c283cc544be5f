package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

// TestCustomIndexExpressions checks expr(index, value) in WHERE clauses as
// Cassandra 4.1 parses and refuses it: the grammar's 'expr(' token is
// case-sensitive and takes no blank before the parenthesis, a bind marker
// cannot name the index, and StatementRestrictions refuses an expression
// naming a missing index, a built-in one, or a CUSTOM one that supports no
// expressions (SASI), and two expressions; UPDATE, DELETE and materialized
// views refuse them outright.
func TestCustomIndexExpressions(t *testing.T) {
	s := newConformanceSession(t, engine.Options{}, Options{MaterializedViewsEnabled: true})
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text, w int, expr int)",
		"CREATE INDEX plain ON ks.t (w)",
		"CREATE CUSTOM INDEX sasi ON ks.t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex'",
	} {
		mustQuery(t, s, q)
	}
	cases := []struct {
		q    string
		code wire.ErrorCode
		msg  string
	}{
		{"SELECT * FROM ks.t WHERE expr(?, 'foo')", wire.CodeSyntax, "Bind variables cannot be used for index names"},
		{"SELECT * FROM ks.t WHERE expr(missing, 'foo')", wire.CodeInvalid, "Invalid index expression, index missing not found for ks.t"},
		{"SELECT * FROM ks.t WHERE expr(plain, 'foo')", wire.CodeInvalid, "Only CUSTOM indexes may be used in custom index expressions, plain is not valid"},
		{"SELECT * FROM ks.t WHERE expr(sasi, 'foo')", wire.CodeInvalid, "Index sasi does not support custom expressions"},
		{"SELECT * FROM ks.t WHERE expr(sasi, 'a') AND expr(sasi, 'b')", wire.CodeInvalid, "Multiple custom index expressions in a single query are not supported"},
		{"SELECT * FROM ks.t WHERE k = 1 AND expr(sasi, ?)", wire.CodeInvalid, "Index sasi does not support custom expressions"},
		{"UPDATE ks.t SET v = 'x' WHERE k = 1 AND expr(sasi, 'a')", wire.CodeInvalid, "Custom index expressions cannot be used in WHERE clauses for UPDATE or DELETE statements"},
		{"DELETE FROM ks.t WHERE k = 1 AND expr(sasi, 'a')", wire.CodeInvalid, "Custom index expressions cannot be used in WHERE clauses for UPDATE or DELETE statements"},
		// 'expr(' is one case-sensitive token: EXPR( and expr ( start a
		// relation on the column expr, which then has no operator.
		{"SELECT * FROM ks.t WHERE EXPR(sasi, 'a')", wire.CodeSyntax, ""},
		{"SELECT * FROM ks.t WHERE expr (sasi, 'a')", wire.CodeSyntax, ""},
	}
	for _, c := range cases {
		_, err := s.Prepare(ctx, c.q)
		require.Error(t, err, c.q)
		requireCodeContains(t, err, c.code, c.msg)
	}
	_, err := s.Query(ctx, "CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE k IS NOT NULL AND w IS NOT NULL AND expr(sasi, 'a') PRIMARY KEY (w, k)", nil)
	requireCodeContains(t, err, wire.CodeInvalid, "WHERE clause for materialized view 'mv' cannot contain custom index expressions")
	// A column named expr is still a column.
	_, err = s.Query(ctx, "SELECT * FROM ks.t WHERE expr = 1 ALLOW FILTERING", nil)
	require.NoError(t, err)
}
