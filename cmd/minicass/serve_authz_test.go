package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeAuthEnforcesPermissions: serve --auth is a 4.1 node with
// PasswordAuthenticator and CassandraAuthorizer. Issue 18 found that any
// login could change the superuser's password, grant itself the superuser
// role, drop roles and read every salted_hash; each is now refused with
// Cassandra's text, over the wire.
func TestServeAuthEnforcesPermissions(t *testing.T) {
	var out, errw syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	code := make(chan int, 1)
	go func() {
		code <- serveMain(ctx, []string{"--memory", "--listen", "127.0.0.1:0", "--auth", "admin:secret"},
			stdio{in: strings.NewReader(""), out: &out, err: &errw}, ready)
	}()
	var addr *net.TCPAddr
	select {
	case a := <-ready:
		addr = a.(*net.TCPAddr)
	case c := <-code:
		t.Fatalf("serve exited with %d: %s", c, errw.String())
	}
	connect := func(user, pw string) *gocql.Session {
		cluster := gocql.NewCluster(addr.IP.String())
		cluster.Port = addr.Port
		cluster.Timeout = 5 * time.Second
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: pw}
		sess, err := cluster.CreateSession()
		require.NoError(t, err)
		return sess
	}
	admin := connect("admin", "secret")
	require.NoError(t, admin.Query("CREATE ROLE app WITH LOGIN = true AND PASSWORD = 'app'").Exec())
	require.NoError(t, admin.Query("CREATE ROLE other").Exec())
	app := connect("app", "app")
	for _, c := range []struct{ stmt, msg string }{
		{"ALTER ROLE admin WITH PASSWORD = 'owned'", "User app does not have sufficient privileges to perform the requested operation"},
		{"GRANT admin TO app", "User app does not have sufficient privileges to perform the requested operation"},
		{"ALTER ROLE app WITH SUPERUSER = true", "You aren't allowed to alter your own superuser status or that of a role granted to you"},
		{"DROP ROLE other", "User app does not have sufficient privileges to perform the requested operation"},
		{"SELECT role, salted_hash FROM system_auth.roles", "User app has no SELECT permission on <table system_auth.roles> or any of its parents"},
	} {
		err := app.Query(c.stmt).Exec()
		var re gocql.RequestError
		require.ErrorAs(t, err, &re, c.stmt)
		assert.Equal(t, gocql.ErrCodeUnauthorized, re.Code(), c.stmt)
		assert.Equal(t, c.msg, re.Message(), c.stmt)
	}
	// The drivers' metadata queries stay open to every login.
	var name string
	require.NoError(t, app.Query("SELECT cluster_name FROM system.local").Scan(&name))
	app.Close()
	admin.Close()
	connect("admin", "secret").Close() // the superuser's password is unchanged

	cancel()
	assert.Equal(t, 0, <-code, errw.String())
	assert.Contains(t, errw.String(), "authorizer=CassandraAuthorizer")
}

func TestServeAuthorizerNeedsAuthenticator(t *testing.T) {
	code, _, errs := runArgs("serve", "--memory", "--authorizer", "CassandraAuthorizer")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "AllowAllAuthenticator can't be used with CassandraAuthorizer")
}
