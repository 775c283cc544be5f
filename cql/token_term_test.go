package cql

import (
	"context"
	"testing"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
	"github.com/stretchr/testify/require"
)

// TestTokenAsTerm checks token(...) where a term is expected and as a
// selector over other arguments than the partition key: Cassandra resolves
// it to the TokenFct of the receiver's table (FunctionResolver.get), whose
// arguments have the partition key columns' types and whose result is the
// bigint Murmur3 token.
func TestTokenAsTerm(t *testing.T) {
	eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	s := NewExecutor(eng, Options{MaterializedViewsEnabled: true}).NewSession()
	ctx := context.Background()
	run := func(q string, values ...query.Value) (*query.Result, error) {
		if len(values) == 0 {
			return s.Query(ctx, q, nil)
		}
		prep, err := s.Prepare(ctx, q)
		require.NoError(t, err, q)
		return s.ExecutePrepared(ctx, prep, &query.Params{Values: values})
	}
	rows := func(q string, values ...query.Value) []string {
		res, err := run(q, values...)
		require.NoError(t, err, q)
		out := []string{}
		for _, r := range res.Rows {
			line := ""
			for i, v := range r {
				if i > 0 {
					line += " | "
				}
				line += types.Format(res.Columns[i].Type, v)
			}
			out = append(out, line)
		}
		return out
	}
	fails := func(q, msg string, values ...query.Value) {
		_, err := run(q, values...)
		require.Error(t, err, q)
		require.Equal(t, msg, query.AsError(err).Message, q)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v bigint, w int)",
		"CREATE TABLE ks.c (a int, b text, v bigint, PRIMARY KEY ((a, b)))",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}

	// token(1) is the token of the partition key 1, in every position.
	const tok1 = "-4069959284402364209"
	_, err = run("INSERT INTO ks.t (k, v, w) VALUES (1, token(1), 1)")
	require.NoError(t, err)
	require.Equal(t, []string{tok1 + " | " + tok1}, rows("SELECT token(k), v FROM ks.t WHERE k = 1"))
	require.Equal(t, []string{tok1}, rows("SELECT token(1) FROM ks.t"))
	require.Equal(t, []string{tok1}, rows("SELECT token(w) FROM ks.t"))
	require.Equal(t, []string{"1"}, rows("SELECT k FROM ks.t WHERE v = token(1) ALLOW FILTERING"))
	_, err = run("UPDATE ks.t SET v = token(?) WHERE k = 2", query.Value{Bytes: []byte{0, 0, 0, 1}})
	require.NoError(t, err)
	require.Equal(t, []string{tok1}, rows("SELECT v FROM ks.t WHERE k = 2"))
	res, err := run("SELECT token(1) FROM ks.t WHERE k = 1")
	require.NoError(t, err)
	require.Equal(t, "system.token(1)", res.Columns[0].Name)

	// A composite partition key: the token of the key's composite form.
	_, err = run("INSERT INTO ks.c (a, b, v) VALUES (1, 'x', token(1, 'x'))")
	require.NoError(t, err)
	require.Equal(t, rows("SELECT token(a, b) FROM ks.c"), rows("SELECT v FROM ks.c"))

	// A null argument gives null; unset, a wrong count or type are refused.
	require.Equal(t, []string{"null"}, rows("SELECT token(?) FROM ks.t WHERE k = 1", query.Value{}))
	fails("UPDATE ks.t SET v = token(?) WHERE k = 2", "Invalid unset value for argument in call to function token", query.Value{Unset: true})
	fails("UPDATE ks.t SET v = token(1, 2) WHERE k = 2", "Invalid number of arguments in call to function system.token: 1 required but 2 provided")
	fails("UPDATE ks.t SET w = token(1) WHERE k = 2", "Type error: cannot assign result of function system.token (type bigint) to w (type int)")
	fails("SELECT token(v) FROM ks.t", "Type error: v cannot be passed as argument 0 of function system.token of type int")

	// ViewTest.testFunctionInWhereClause (4.x): a view restricting its
	// key to token(1), written in any case, keeps token(1) in its where
	// clause and holds none of the rows whose key is not that token.
	for i, text := range []string{"token", "TOKEN"} {
		base := []string{"ks.b0", "ks.b1"}[i]
		view := []string{"mv0", "mv1"}[i]
		_, err = run("CREATE TABLE " + base + " (k bigint PRIMARY KEY, v int)")
		require.NoError(t, err)
		_, err = run("CREATE MATERIALIZED VIEW ks." + view + " AS SELECT * FROM " + base + " WHERE k = " + text + "(1) AND v IS NOT NULL PRIMARY KEY (v, k)")
		require.NoError(t, err)
		require.Equal(t, []string{"k = token(1) AND v IS NOT NULL"}, rows("SELECT where_clause FROM system_schema.views WHERE keyspace_name = 'ks' AND view_name = '"+view+"'"))
		_, err = run("INSERT INTO " + base + "(k, v) VALUES (0, 1)")
		require.NoError(t, err)
		_, err = run("INSERT INTO " + base + "(k, v) VALUES (2, 3)")
		require.NoError(t, err)
		require.Empty(t, rows("SELECT * FROM ks."+view))
		// The base key is a bigint: token(1) is the token of the bigint 1.
		_, err = run("INSERT INTO " + base + "(k, v) VALUES (token(1), 5)")
		require.NoError(t, err)
		require.Equal(t, []string{"5 | 6292367497774912474"}, rows("SELECT * FROM ks."+view))
		require.Equal(t, []string{"6292367497774912474"}, rows("SELECT token(1) FROM "+base+" WHERE k = 0"))
	}
}
