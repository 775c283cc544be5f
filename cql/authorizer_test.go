package cql

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newAuthorizingExecutor returns an executor with PasswordAuthenticator and
// CassandraAuthorizer, the superuser cassandra, a table ks.t and a role
// app that can log in and has no permission.
func newAuthorizingExecutor(t *testing.T) (x *Executor, admin, app *Session) {
	t.Helper()
	x = newSelectTestSession(t).Executor()
	ctx := context.Background()
	require.NoError(t, x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4, Authorizer: CassandraAuthorizer}))
	admin = x.NewUserSession("cassandra")
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"CREATE ROLE app WITH LOGIN = true AND PASSWORD = 'app'",
	} {
		_, err := admin.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	require.NoError(t, x.Authenticate(ctx, "app", "app"))
	return x, admin, x.NewUserSession("app")
}

func requireUnauthorized(t *testing.T, err error, msg string) {
	t.Helper()
	require.Error(t, err)
	var e *Error
	require.True(t, errors.As(err, &e), "%T %v", err, err)
	assert.Equal(t, wire.CodeUnauthorized, e.Code)
	assert.Equal(t, msg, e.Message)
}

// TestPreparedChecksExecutingRole: a prepared statement is one plan shared
// by every session, so its permissions are those of the session that
// executes it, never of the one that prepared it.
func TestPreparedChecksExecutingRole(t *testing.T) {
	ctx := context.Background()
	_, admin, app := newAuthorizingExecutor(t)
	ins, err := admin.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)")
	require.NoError(t, err)
	sel, err := admin.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	one := query.Value{Bytes: binary.BigEndian.AppendUint32(nil, 1)}

	_, err = admin.ExecutePrepared(ctx, ins, &query.Params{Values: []query.Value{one, one}})
	require.NoError(t, err)
	_, err = app.ExecutePrepared(ctx, ins, &query.Params{Values: []query.Value{one, one}})
	requireUnauthorized(t, err, "User app has no MODIFY permission on <table ks.t> or any of its parents")
	_, err = app.Execute(ctx, sel.ID, &query.Params{Values: []query.Value{one}})
	requireUnauthorized(t, err, "User app has no SELECT permission on <table ks.t> or any of its parents")

	// The same statement prepared by app is the same cached plan; it
	// still runs for the superuser.
	again, err := app.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	assert.Equal(t, sel.ID, again.ID)
	res, err := admin.ExecutePrepared(ctx, again, &query.Params{Values: []query.Value{one}})
	require.NoError(t, err)
	assert.Len(t, res.Rows, 1)

	// A protocol BATCH checks each entry for the executing role.
	entries := []BatchEntry{{Prepared: ins, Values: []query.Value{one, one}}}
	_, err = app.Batch(ctx, parser.BatchLogged, entries, nil)
	requireUnauthorized(t, err, "User app has no MODIFY permission on <table ks.t> or any of its parents")
	_, err = admin.Batch(ctx, parser.BatchLogged, entries, nil)
	require.NoError(t, err)

	// Once granted, through a role granted to app, the plans run for app
	// without being prepared again.
	for _, q := range []string{"CREATE ROLE writers", "GRANT MODIFY ON KEYSPACE ks TO writers", "GRANT SELECT ON ks.t TO writers", "GRANT writers TO app"} {
		_, err := admin.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	_, err = app.ExecutePrepared(ctx, ins, &query.Params{Values: []query.Value{one, one}})
	require.NoError(t, err)
	res, err = app.ExecutePrepared(ctx, sel, &query.Params{Values: []query.Value{one}})
	require.NoError(t, err)
	assert.Len(t, res.Rows, 1)
	_, err = app.Batch(ctx, parser.BatchLogged, entries, nil)
	require.NoError(t, err)

	// And revoked, they are refused again at once.
	_, err = admin.Query(ctx, "REVOKE writers FROM app", nil)
	require.NoError(t, err)
	_, err = app.ExecutePrepared(ctx, sel, &query.Params{Values: []query.Value{one}})
	requireUnauthorized(t, err, "User app has no SELECT permission on <table ks.t> or any of its parents")
}

// TestIssue18Defects: with --auth, a role that is not a superuser could
// change the superuser's password, grant itself the superuser role, drop
// roles and read every salted_hash. Each is refused with Cassandra's text
// and changes nothing.
func TestIssue18Defects(t *testing.T) {
	ctx := context.Background()
	x, admin, app := newAuthorizingExecutor(t)
	_, err := admin.Query(ctx, "CREATE ROLE other", nil)
	require.NoError(t, err)

	_, err = app.Query(ctx, "ALTER ROLE cassandra WITH PASSWORD = 'owned'", nil)
	requireUnauthorized(t, err, "User app does not have sufficient privileges to perform the requested operation")
	require.NoError(t, x.Authenticate(ctx, "cassandra", "cassandra"), "the password did not change")

	_, err = app.Query(ctx, "GRANT cassandra TO app", nil)
	requireUnauthorized(t, err, "User app does not have sufficient privileges to perform the requested operation")
	_, err = app.Query(ctx, "ALTER ROLE app WITH SUPERUSER = true", nil)
	requireUnauthorized(t, err, "You aren't allowed to alter your own superuser status or that of a role granted to you")
	_, err = app.Query(ctx, "CREATE ROLE boss WITH SUPERUSER = true AND LOGIN = true AND PASSWORD = 'b'", nil)
	requireUnauthorized(t, err, "User app does not have sufficient privileges to perform the requested operation")

	for _, name := range []string{"cassandra", "other"} {
		_, err = app.Query(ctx, "DROP ROLE "+name, nil)
		requireUnauthorized(t, err, "User app does not have sufficient privileges to perform the requested operation")
	}
	_, err = app.Query(ctx, "SELECT role, salted_hash FROM system_auth.roles", nil)
	requireUnauthorized(t, err, "User app has no SELECT permission on <table system_auth.roles> or any of its parents")
	_, err = app.Query(ctx, "INSERT INTO system_auth.roles (role, is_superuser) VALUES ('app', true)", nil)
	require.Error(t, err)

	res, err := admin.Query(ctx, "SELECT role, is_superuser FROM system_auth.roles", nil)
	require.NoError(t, err)
	supers := map[string]bool{}
	for _, row := range res.Rows {
		supers[string(row[0])] = len(row[1]) == 1 && row[1][0] == 1
	}
	assert.Equal(t, map[string]bool{"cassandra": true, "app": false, "other": false}, supers, "no role changed")

	// The node's internal session (NewSession, which the role manager
	// uses) is not checked.
	_, err = x.NewSession().Query(ctx, "SELECT role FROM system_auth.roles", nil)
	require.NoError(t, err)
}

// TestAllowAllAuthorizerChecksNothing: the default authorizer, with
// PasswordAuthenticator, keeps every statement open to every role, as
// before.
func TestAllowAllAuthorizerChecksNothing(t *testing.T) {
	ctx := context.Background()
	x := newSelectTestSession(t).Executor()
	require.NoError(t, x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4}))
	admin := x.NewUserSession("cassandra")
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"CREATE ROLE app WITH LOGIN = true AND PASSWORD = 'app'",
	} {
		_, err := admin.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	app := x.NewUserSession("app")
	_, err := app.Query(ctx, "INSERT INTO ks.t (k, v) VALUES (1, 1)", nil)
	require.NoError(t, err)
	_, err = app.Query(ctx, "SELECT role FROM system_auth.roles", nil)
	require.NoError(t, err)
	_, err = app.Query(ctx, "GRANT SELECT ON ks.t TO app", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GRANT operation is not supported by AllowAllAuthorizer")
	assert.Error(t, x.EnableAuthentication(ctx, AuthOptions{Authorizer: "LdapAuthorizer"}))
}

// BenchmarkAuthorizedSelect measures a prepared single-row SELECT run by a
// role that is not a superuser and holds SELECT through a granted role,
// under each authorizer.
func BenchmarkAuthorizedSelect(b *testing.B) {
	for _, authorizer := range []string{AllowAllAuthorizer, CassandraAuthorizer} {
		b.Run(authorizer, func(b *testing.B) {
			ctx := context.Background()
			x := newSelectTestSession(b).Executor()
			require.NoError(b, x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4, Authorizer: authorizer}))
			admin := x.NewUserSession("cassandra")
			for _, q := range []string{
				"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
				"INSERT INTO ks.t (k, v) VALUES (1, 1)",
				"CREATE ROLE app WITH LOGIN = true AND PASSWORD = 'app'",
				"CREATE ROLE readers",
				"GRANT readers TO app",
			} {
				_, err := admin.Query(ctx, q, nil)
				require.NoError(b, err, q)
			}
			if authorizer == CassandraAuthorizer {
				_, err := admin.Query(ctx, "GRANT SELECT ON KEYSPACE ks TO readers", nil)
				require.NoError(b, err)
			}
			app := x.NewUserSession("app")
			sel, err := app.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
			require.NoError(b, err)
			p := &query.Params{Values: []query.Value{{Bytes: binary.BigEndian.AppendUint32(nil, 1)}}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := app.ExecutePrepared(ctx, sel, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPermissionChecksDuringGrants runs a role's reads while a superuser
// grants and revokes its permission (run with -race): every read either
// succeeds or is refused with Cassandra's text, and once the last REVOKE
// has returned the next read is refused.
func TestPermissionChecksDuringGrants(t *testing.T) {
	ctx := context.Background()
	_, admin, app := newAuthorizingExecutor(t)
	sel, err := admin.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	p := &query.Params{Values: []query.Value{{Bytes: binary.BigEndian.AppendUint32(nil, 1)}}}
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-done:
				return
			default:
			}
			_, err := app.ExecutePrepared(ctx, sel, p)
			if err != nil && err.Error() != "User app has no SELECT permission on <table ks.t> or any of its parents" {
				errs <- err
				return
			}
		}
	}()
	for i := 0; i < 50; i++ {
		_, err := admin.Query(ctx, "GRANT SELECT ON KEYSPACE ks TO app", nil)
		require.NoError(t, err)
		_, err = admin.Query(ctx, "REVOKE SELECT ON KEYSPACE ks FROM app", nil)
		require.NoError(t, err)
	}
	close(done)
	require.NoError(t, <-errs)
	_, err = app.ExecutePrepared(ctx, sel, p)
	requireUnauthorized(t, err, "User app has no SELECT permission on <table ks.t> or any of its parents")
}
