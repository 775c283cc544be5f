package cql

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// udfSession is a session on a fresh node with user functions enabled
// (or not), in keyspace ks, which holds a function and an aggregate.
func udfSession(t *testing.T, enabled bool) *Session {
	t.Helper()
	s := newConformanceSession(t, engine.Options{}, Options{UserDefinedFunctionsEnabled: true})
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		"INSERT INTO t (k, v) VALUES (1, 10)",
		"INSERT INTO t (k, v) VALUES (2, 20)",
		"CREATE FUNCTION plus(s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s + v;'",
		"CREATE FUNCTION \"Twice\"(v int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return String.valueOf(v * 2);'",
		"CREATE AGGREGATE total(int) SFUNC plus STYPE int FINALFUNC \"Twice\" INITCOND 0",
	} {
		_, err := s.Query(context.Background(), q, nil)
		require.NoError(t, err, q)
	}
	s.x.env.UserDefinedFunctionsEnabled = enabled
	return s
}

func udfRows(t *testing.T, s *Session, q string) [][]string {
	t.Helper()
	res, err := s.Query(context.Background(), q, nil)
	require.NoError(t, err, q)
	var out [][]string
	for _, row := range res.Rows {
		var vals []string
		for i, v := range row {
			if res.Columns[i].Type.Kind == types.Text && v != nil {
				vals = append(vals, string(v)) // the text itself, newlines and all
				continue
			}
			vals = append(vals, types.Format(res.Columns[i].Type, v))
		}
		out = append(out, vals)
	}
	return out
}

// TestDescribeFunctions checks DESCRIBE FUNCTION, AGGREGATE, their listings
// and DESCRIBE KEYSPACE (types, then functions, then aggregates, then
// tables), in Cassandra 4.1's text.
func TestDescribeFunctions(t *testing.T) {
	s := udfSession(t, true)
	plus := "CREATE FUNCTION ks.plus(s int, v int)\n    CALLED ON NULL INPUT\n    RETURNS int\n    LANGUAGE java\n    AS $$return s + v;$$;"
	twice := "CREATE FUNCTION ks.\"Twice\"(v int)\n    RETURNS NULL ON NULL INPUT\n    RETURNS text\n    LANGUAGE java\n    AS $$return String.valueOf(v * 2);$$;"
	total := "CREATE AGGREGATE ks.total(int)\n    SFUNC plus\n    STYPE int\n    FINALFUNC \"Twice\"\n    INITCOND 0;"
	assert.Equal(t, [][]string{{"ks", "function", "plus(int, int)", plus}}, udfRows(t, s, "DESCRIBE FUNCTION plus"))
	assert.Equal(t, [][]string{{"ks", "function", "\"Twice\"(int)", twice}}, udfRows(t, s, "DESCRIBE FUNCTION \"Twice\""))
	assert.Equal(t, [][]string{{"ks", "aggregate", "total(int)", total}}, udfRows(t, s, "DESCRIBE AGGREGATE ks.total"))
	assert.Equal(t, [][]string{{"ks", "function", "plus(int, int)"}, {"ks", "function", "\"Twice\"(int)"}}, udfRows(t, s, "DESCRIBE FUNCTIONS"))
	assert.Equal(t, [][]string{{"ks", "aggregate", "total(int)"}}, udfRows(t, s, "DESCRIBE AGGREGATES"))
	rows := udfRows(t, s, "DESCRIBE KEYSPACE ks")
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, r[1]+" "+r[2])
	}
	assert.Equal(t, []string{"keyspace ks", "function plus(int, int)", "function \"Twice\"(int)", "aggregate total(int)", "table t"}, kinds)

	_, err := s.Query(context.Background(), "DESCRIBE FUNCTION nope", nil)
	assert.EqualError(t, err, "User defined function 'nope' not found in 'ks'")
	_, err = s.Query(context.Background(), "DESCRIBE AGGREGATE nope", nil)
	assert.EqualError(t, err, "User defined aggregate 'nope' not found in 'ks'")
}

// TestSystemSchemaFunctions checks the rows of system_schema.functions and
// aggregates.
func TestSystemSchemaFunctions(t *testing.T) {
	s := udfSession(t, true)
	assert.Equal(t, [][]string{
		{"ks", "Twice", "['int']", "['v']", "return String.valueOf(v * 2);", "False", "java", "text"},
		{"ks", "plus", "['int', 'int']", "['s', 'v']", "return s + v;", "True", "java", "int"},
	}, udfRows(t, s, "SELECT keyspace_name, function_name, argument_types, argument_names, body, called_on_null_input, language, return_type FROM system_schema.functions WHERE keyspace_name = 'ks'"))
	assert.Equal(t, [][]string{{"ks", "total", "['int']", "Twice", "0", "text", "plus", "int"}},
		udfRows(t, s, "SELECT keyspace_name, aggregate_name, argument_types, final_func, initcond, return_type, state_func, state_type FROM system_schema.aggregates WHERE keyspace_name = 'ks'"))
	assert.Equal(t, [][]string{{"60"}}, udfRows(t, s, "SELECT total(v) FROM t"))
}

// TestUDFsDisabled checks a node with user_defined_functions_enabled off:
// CREATE FUNCTION and calls are refused with Cassandra's text, DESCRIBE and
// DROP still work.
func TestUDFsDisabled(t *testing.T) {
	s := udfSession(t, false)
	ctx := context.Background()
	_, err := s.Query(ctx, "CREATE FUNCTION f(v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return v;'", nil)
	assert.EqualError(t, err, "User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable")
	_, err = s.Query(ctx, "SELECT plus(k, v) FROM t", nil)
	assert.EqualError(t, err, "User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable")
	_, err = s.Query(ctx, "CREATE FUNCTION f(v int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS 'v'", nil)
	assert.EqualError(t, err, "User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable")
	assert.Len(t, udfRows(t, s, "DESCRIBE FUNCTIONS"), 2)
	_, err = s.Query(ctx, "DROP AGGREGATE total", nil)
	assert.NoError(t, err)
}

// TestScriptedUDFsRefused checks a javascript body on a node with user
// functions enabled: refused as a node without
// scripted_user_defined_functions_enabled refuses it.
func TestScriptedUDFsRefused(t *testing.T) {
	s := udfSession(t, true)
	_, err := s.Query(context.Background(), "CREATE FUNCTION f(v int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS 'v'", nil)
	assert.EqualError(t, err, "Scripted user-defined functions are disabled in cassandra.yaml - set scripted_user_defined_functions_enabled=true to enable if you are aware of the security risks")
}

// TestScriptedUDFs checks a javascript body on a node with both settings
// on: it runs, and once the scripted setting is off again its calls are
// refused with 4.1's text (UDFunction.assertUdfsEnabled).
func TestScriptedUDFs(t *testing.T) {
	s := udfSession(t, true)
	s.x.env.ScriptedUserDefinedFunctionsEnabled = true
	ctx := context.Background()
	_, err := s.Query(ctx, "CREATE FUNCTION js(v int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS 'v * 2'", nil)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"2"}, {"4"}}, udfRows(t, s, "SELECT js(k) FROM t"))
	desc := udfRows(t, s, "DESCRIBE FUNCTION js")
	require.Len(t, desc, 1)
	assert.Contains(t, desc[0][len(desc[0])-1], "LANGUAGE javascript\n    AS $$v * 2$$;")
	_, err = s.Query(ctx, "CREATE FUNCTION js2(v int) CALLED ON NULL INPUT RETURNS int LANGUAGE lua AS 'v'", nil)
	assert.EqualError(t, err, "Invalid language 'lua' for function 'ks.js2'")
	s.x.env.ScriptedUserDefinedFunctionsEnabled = false
	_, err = s.Query(ctx, "SELECT js(k) FROM t", nil)
	assert.EqualError(t, err, "Scripted user-defined functions are disabled in cassandra.yaml - set scripted_user_defined_functions_enabled=true to enable if you are aware of the security risks")
}

// TestFunctionPermissions checks CassandraAuthorizer on user functions: a
// role needs EXECUTE on a function to call it and CREATE on the keyspace's
// functions to create one, whose creator then holds every permission on
// it; DROP FUNCTION revokes them.
func TestFunctionPermissions(t *testing.T) {
	ctx := context.Background()
	x, admin, app := newAuthorizingExecutor(t)
	x.env.UserDefinedFunctionsEnabled = true
	run := func(s *Session, q string) error { _, err := s.Query(ctx, q, nil); return err }
	require.NoError(t, run(admin, "CREATE FUNCTION ks.f(v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return v;'"))
	require.NoError(t, run(admin, "GRANT SELECT ON ks.t TO app"))

	requireUnauthorized(t, run(app, "SELECT ks.f(v) FROM ks.t"), "User app has no EXECUTE permission on <function ks.f(int)> or any of its parents")
	require.NoError(t, run(admin, "GRANT EXECUTE ON FUNCTION ks.f(int) TO app"))
	require.NoError(t, run(app, "SELECT ks.f(v) FROM ks.t"))
	assert.Equal(t, [][]string{{"app", "app", "<function ks.f(int)>", "EXECUTE"}},
		udfRows(t, admin, "LIST EXECUTE ON FUNCTION ks.f(int) OF app"))

	requireUnauthorized(t, run(app, "CREATE FUNCTION ks.g(v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return v;'"),
		"User app has no CREATE permission on <all functions in ks> or any of its parents")
	require.NoError(t, run(admin, "GRANT CREATE ON ALL FUNCTIONS IN KEYSPACE ks TO app"))
	require.NoError(t, run(app, "CREATE FUNCTION ks.g(v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return v;'"))
	assert.Equal(t, [][]string{{"app", "app", "<function ks.g(int)>", "ALTER"}, {"app", "app", "<function ks.g(int)>", "DROP"},
		{"app", "app", "<function ks.g(int)>", "AUTHORIZE"}, {"app", "app", "<function ks.g(int)>", "EXECUTE"}},
		udfRows(t, admin, "LIST ALL ON FUNCTION ks.g(int) OF app"))
	assert.Equal(t, [][]string{{"app", "functions/ks/g[org.apache.cassandra.db.marshal.Int32Type]"}},
		udfRows(t, admin, "SELECT role, resource FROM system_auth.role_permissions WHERE role = 'app' AND resource = 'functions/ks/g[org.apache.cassandra.db.marshal.Int32Type]'"))

	requireUnauthorized(t, run(app, "DROP FUNCTION ks.f"), "User app has no DROP permission on <function ks.f(int)> or any of its parents")
	require.NoError(t, run(app, "DROP FUNCTION ks.g"))
	assert.Empty(t, udfRows(t, admin, "SELECT role FROM system_auth.role_permissions WHERE role = 'app' AND resource = 'functions/ks/g[org.apache.cassandra.db.marshal.Int32Type]'"))

	err := run(admin, "GRANT EXECUTE ON FUNCTION ks.nope(int) TO app")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "<function ks.nope(int)> doesn't exist")
}

// TestUDFTimeout checks a body that never returns: the call fails after
// user_defined_function_fail_timeout with UDFunction's text, as a function
// failure naming the function.
func TestUDFTimeout(t *testing.T) {
	s := udfSession(t, true)
	ctx := context.Background()
	_, err := s.Query(ctx, "CREATE FUNCTION spin(v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'while (true) { v = v + 1; }'", nil)
	require.NoError(t, err)
	_, err = s.Query(ctx, "SELECT spin(v) FROM t WHERE k = 1", nil)
	require.Error(t, err)
	e := query.AsError(err)
	assert.Equal(t, wire.CodeFunctionFailure, e.Code)
	assert.Equal(t, "execution of 'ks.spin[int]' failed: java.util.concurrent.TimeoutException: User defined function ks.spin : (int) -> org.apache.cassandra.db.marshal.Int32Type ran longer than 1500ms - will stop Cassandra VM", e.Message)
	assert.Equal(t, []string{"int"}, e.ArgTypes)
}

// TestUDFConcurrentCalls calls one function and one aggregate from several
// sessions at once: the compiled body is shared (run it with -race).
func TestUDFConcurrentCalls(t *testing.T) {
	s := udfSession(t, true)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess := s.x.NewSession()
			sess.SetKeyspace("ks")
			for j := 0; j < 50; j++ {
				res, err := sess.Query(context.Background(), "SELECT plus(k, v), total(v) FROM t WHERE k = 1", nil)
				if err != nil {
					errs <- err
					return
				}
				if got := types.Format(types.IntType, res.Rows[0][0]) + " " + string(res.Rows[0][1]); got != "11 20" {
					errs <- fmt.Errorf("got %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
