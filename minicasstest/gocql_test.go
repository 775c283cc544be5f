package minicasstest

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newSession connects gocql to srv the way applications do: control
// connection, system.local/peers discovery, REGISTER, token-aware routing.
func newSession(t testing.TB, srv *Server, keyspace string) *gocql.Session {
	t.Helper()
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = keyspace
	cluster.ProtoVersion = 4
	cluster.Timeout = 5 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	cluster.Consistency = gocql.One
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(sess.Close)
	return sess
}

func setupKeyspace(t testing.TB, srv *Server) {
	t.Helper()
	srv.MustExec(t, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
}

func TestGocqlConnectAndSchema(t *testing.T) {
	srv := Start(t)
	sess := newSession(t, srv, "")
	var release, cluster string
	require.NoError(t, sess.Query("SELECT release_version, cluster_name FROM system.local WHERE key='local'").Scan(&release, &cluster))
	assert.Equal(t, "4.1.6", release)
	assert.Equal(t, "Test Cluster", cluster)

	// DDL through the driver: it waits for schema agreement (schema_version
	// polling) before returning.
	require.NoError(t, sess.Query("CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec())
	require.NoError(t, sess.Query("CREATE TABLE app.users (id int, name text, tags set<text>, prefs map<text, int>, PRIMARY KEY (id))").Exec())
	require.NoError(t, sess.Query("CREATE TABLE app.events (k text, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)").Exec())

	md, err := sess.KeyspaceMetadata("app")
	require.NoError(t, err)
	require.Contains(t, md.Tables, "events")
	ev := md.Tables["events"]
	require.Len(t, ev.PartitionKey, 1)
	assert.Equal(t, "k", ev.PartitionKey[0].Name)
	require.Len(t, ev.ClusteringColumns, 1)
	assert.Equal(t, "c", ev.ClusteringColumns[0].Name)
	assert.Equal(t, gocql.DESC, ev.ClusteringColumns[0].Order, "clustering order")
	assert.Contains(t, ev.Columns, "v")

	// Errors carry Cassandra's codes.
	err = sess.Query("CREATE TABLE app.users (id int PRIMARY KEY)").Exec()
	var exists *gocql.RequestErrAlreadyExists
	require.True(t, errors.As(err, &exists), "%T %v", err, err)
	assert.Equal(t, "app", exists.Keyspace)
	assert.Equal(t, "users", exists.Table)
	err = sess.Query("SELECT * FROM app.nope").Exec()
	var rerr gocql.RequestError
	require.True(t, errors.As(err, &rerr), "%T %v", err, err)
	assert.Equal(t, gocql.ErrCodeInvalid, rerr.Code())
	err = sess.Query("SELEC * FROM app.users").Exec()
	require.True(t, errors.As(err, &rerr))
	assert.Equal(t, gocql.ErrCodeSyntax, rerr.Code())
	err = sess.Query("INSERT INTO system.local (key) VALUES ('x')").Exec()
	require.True(t, errors.As(err, &rerr))
	assert.Equal(t, gocql.ErrCodeUnauthorized, rerr.Code())
}

func TestGocqlPreparedPagingBatch(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.kv (k int, c int, v text, PRIMARY KEY (k, c))")
	sess := newSession(t, srv, "app")

	for i := 0; i < 25; i++ {
		require.NoError(t, sess.Query("INSERT INTO kv (k, c, v) VALUES (?, ?, ?)", 1, i, fmt.Sprint("v", i)).Exec())
	}
	// Paging: 25 rows in pages of 7.
	iter := sess.Query("SELECT c, v FROM kv WHERE k = ?", 1).PageSize(7).Iter()
	var cs []int
	var c int
	var v string
	for iter.Scan(&c, &v) {
		cs = append(cs, c)
	}
	require.NoError(t, iter.Close())
	require.Len(t, cs, 25)
	assert.True(t, sort.IntsAreSorted(cs))

	// Manual paging state pass-through.
	q := sess.Query("SELECT c FROM kv WHERE k = 1").PageSize(10)
	it := q.Iter()
	state := it.PageState()
	require.NoError(t, it.Close())
	require.NotEmpty(t, state)
	it = sess.Query("SELECT c FROM kv WHERE k = 1").PageSize(10).PageState(state).Iter()
	require.True(t, it.Scan(&c))
	assert.Equal(t, 10, c)
	require.NoError(t, it.Close())

	// Batches with prepared and unprepared entries.
	b := sess.NewBatch(gocql.LoggedBatch)
	b.Query("INSERT INTO kv (k, c, v) VALUES (?, ?, ?)", 2, 1, "a")
	b.Query("INSERT INTO kv (k, c, v) VALUES (2, 2, 'b')")
	b.Query("UPDATE kv SET v = ? WHERE k = ? AND c = ?", "c", 2, 3)
	require.NoError(t, sess.ExecuteBatch(b))
	srv.CheckCount(t, "SELECT * FROM app.kv WHERE k = 2", nil, 3)
	srv.CheckRow(t, "SELECT v FROM app.kv WHERE k = 2 AND c = 3", nil, "c")

	// Unset values leave columns untouched (gocql.UnsetValue).
	require.NoError(t, sess.Query("UPDATE kv SET v = ? WHERE k = 2 AND c = ?", gocql.UnsetValue, 3).Exec())
	srv.CheckRow(t, "SELECT v FROM app.kv WHERE k = 2 AND c = 3", nil, "c")
}

func TestGocqlLWTCountersCollectionsJSONIndexUDTTTL(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t,
		"CREATE TABLE app.users (id int PRIMARY KEY, name text, tags set<text>, prefs map<text, int>)",
		"CREATE TABLE app.hits (page text PRIMARY KEY, n counter)")
	sess := newSession(t, srv, "app")

	// LWT.
	applied, err := sess.Query("INSERT INTO users (id, name) VALUES (?, ?) IF NOT EXISTS", 1, "alice").ScanCAS()
	require.NoError(t, err)
	assert.True(t, applied)
	existing := map[string]any{}
	applied, err = sess.Query("INSERT INTO users (id, name) VALUES (?, ?) IF NOT EXISTS", 1, "bob").MapScanCAS(existing)
	require.NoError(t, err)
	assert.False(t, applied)
	assert.Equal(t, "alice", existing["name"])
	var name string
	applied, err = sess.Query("UPDATE users SET name = 'carol' WHERE id = 1 IF name = 'alice'").ScanCAS(&name)
	require.NoError(t, err)
	assert.True(t, applied)

	// Counters.
	for i := 0; i < 3; i++ {
		require.NoError(t, sess.Query("UPDATE hits SET n = n + ? WHERE page = ?", int64(2), "home").Exec())
	}
	var n int64
	require.NoError(t, sess.Query("SELECT n FROM hits WHERE page = 'home'").Scan(&n))
	assert.Equal(t, int64(6), n)

	// Collections.
	require.NoError(t, sess.Query("UPDATE users SET tags = tags + ?, prefs[?] = ? WHERE id = 1", []string{"x", "y"}, "dark", 1).Exec())
	var tags []string
	var prefs map[string]int
	require.NoError(t, sess.Query("SELECT tags, prefs FROM users WHERE id = 1").Scan(&tags, &prefs))
	assert.Equal(t, []string{"x", "y"}, tags)
	assert.Equal(t, map[string]int{"dark": 1}, prefs)

	// JSON: INSERT JSON through a bind marker, SELECT JSON back.
	require.NoError(t, sess.Query("INSERT INTO users JSON ?", `{"id": 3, "name": "dave", "tags": ["b", "a"], "prefs": {"k": 2}}`).Exec())
	var doc string
	require.NoError(t, sess.Query("SELECT JSON id, name, tags, prefs FROM users WHERE id = 3").Scan(&doc))
	assert.Equal(t, `{"id": 3, "name": "dave", "tags": ["a", "b"], "prefs": {"k": 2}}`, doc)

	// A secondary index: a query on the indexed column needs no ALLOW
	// FILTERING (gocql does not read index metadata; the Python suite checks
	// the driver's view of system_schema.indexes).
	require.NoError(t, sess.Query("CREATE INDEX users_name ON users (name)").Exec())
	var id int
	require.NoError(t, sess.Query("SELECT id FROM users WHERE name = ?", "dave").Scan(&id))
	assert.Equal(t, 3, id)

	// A user-defined type, bound from a struct and read into a struct and
	// a map (gocql decodes it from the type in the result metadata).
	type address struct {
		Street string `cql:"street"`
		Zip    int    `cql:"zip"`
	}
	require.NoError(t, sess.Query("CREATE TYPE address (street text, zip int)").Exec())
	require.NoError(t, sess.Query("CREATE TABLE places (id int PRIMARY KEY, addr frozen<address>)").Exec())
	require.NoError(t, sess.Query("INSERT INTO places (id, addr) VALUES (?, ?)", 1, address{Street: "main", Zip: 7}).Exec())
	var addr address
	require.NoError(t, sess.Query("SELECT addr FROM places WHERE id = 1").Scan(&addr))
	assert.Equal(t, address{Street: "main", Zip: 7}, addr)
	asMap := map[string]any{}
	require.NoError(t, sess.Query("SELECT addr FROM places WHERE id = 1").Scan(&asMap))
	assert.Equal(t, map[string]any{"street": "main", "zip": 7}, asMap)
	// gocql drops its cached metadata when the schema change event arrives,
	// which may come after the statement's response.
	var ut *gocql.UserTypeMetadata
	require.Eventually(t, func() bool {
		md, err := sess.KeyspaceMetadata("app")
		if err == nil {
			ut = md.UserTypes["address"]
		}
		return ut != nil
	}, 5*time.Second, 10*time.Millisecond, "gocql reads system_schema.types")
	assert.Equal(t, []string{"street", "zip"}, ut.FieldNames)

	// TTL with the manual clock.
	require.NoError(t, sess.Query("INSERT INTO users (id, name) VALUES (2, 'temp') USING TTL 60").Exec())
	srv.CheckCount(t, "SELECT * FROM app.users WHERE id = 2", nil, 1)
	var ttl int
	require.NoError(t, sess.Query("SELECT TTL(name) FROM users WHERE id = 2").Scan(&ttl))
	assert.InDelta(t, 60, ttl, 1)
	srv.FastForward(61 * time.Second)
	srv.CheckCount(t, "SELECT * FROM app.users WHERE id = 2", nil, 0)
	err = sess.Query("SELECT name FROM users WHERE id = 2").Scan(&name)
	assert.ErrorIs(t, err, gocql.ErrNotFound)
}

func TestGocqlUseAndSchemaEvents(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	sess := newSession(t, srv, "")
	// A schema change made by another client reaches the driver's metadata
	// through system_schema (the driver refreshes lazily).
	srv.MustExec(t, "CREATE TABLE app.later (k int PRIMARY KEY, v int)")
	require.NoError(t, sess.Query("INSERT INTO app.later (k, v) VALUES (1, 2)").Exec())
	var v int
	require.NoError(t, sess.Query("SELECT v FROM app.later WHERE k = 1").Scan(&v))
	assert.Equal(t, 2, v)
	md, err := sess.KeyspaceMetadata("app")
	require.NoError(t, err)
	assert.Contains(t, md.Tables, "later")
}

// TestGocqlTracing asks for a trace with the protocol's tracing flag: the
// response carries a session id, and gocql's TraceWriter reads the session
// and its events back from system_traces, as cqlsh's TRACING ON does with
// the Python driver.
func TestGocqlTracing(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.kv (k int, c int, v text, PRIMARY KEY (k, c))")
	sess := newSession(t, srv, "app")
	require.NoError(t, sess.Query("INSERT INTO kv (k, c, v) VALUES (1, 1, 'a')").Exec())

	var out strings.Builder
	var v string
	require.NoError(t, sess.Query("SELECT v FROM kv WHERE k = ? AND c = ?", 1, 1).Trace(gocql.NewTraceWriter(sess, &out)).Scan(&v))
	assert.Equal(t, "a", v)
	text := out.String()
	assert.Contains(t, text, "Tracing session ")
	assert.Contains(t, text, "(coordinator: 127.0.0.1")
	assert.Contains(t, text, "Read partition ")
	assert.Contains(t, text, "Returned 1 rows")

	// The session row, as drivers and cqlsh read it.
	var ids []gocql.UUID
	iter := sess.Query("SELECT session_id FROM system_traces.sessions").Iter()
	var id gocql.UUID
	for iter.Scan(&id) {
		ids = append(ids, id)
	}
	require.NoError(t, iter.Close())
	require.Len(t, ids, 1)
	var request, command string
	var params map[string]string
	var duration int
	require.NoError(t, sess.Query("SELECT request, command, parameters, duration FROM system_traces.sessions WHERE session_id = ?", ids[0]).
		Scan(&request, &command, &params, &duration))
	assert.Equal(t, "Execute CQL3 prepared query", request)
	assert.Equal(t, "QUERY", command)
	assert.Equal(t, "SELECT v FROM kv WHERE k = ? AND c = ?", params["query"])
	assert.Equal(t, "ONE", params["consistency_level"])
	assert.Equal(t, "1", params["bound_var_0_k"], "each bound value is recorded as a CQL literal, as ExecuteMessage.traceQuery does")
	assert.Equal(t, "1", params["bound_var_1_c"])
	assert.GreaterOrEqual(t, duration, 0)
	var n int
	require.NoError(t, sess.Query("SELECT count(*) FROM system_traces.events WHERE session_id = ?", ids[0]).Scan(&n))
	assert.Greater(t, n, 1)
	var ttl int
	require.NoError(t, sess.Query("SELECT ttl(request) FROM system_traces.sessions WHERE session_id = ?", ids[0]).Scan(&ttl))
	assert.InDelta(t, 86400, ttl, 5, "traces expire after a day")
}

// TestGocqlTracingFilteredScan traces an ALLOW FILTERING query over 100,000
// partitions over the server: the trace is recorded (once a line per
// partition made it too large to write) and gocql prints it in under 20
// lines, with the partitions and rows the scan read.
func TestGocqlTracingFilteredScan(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.f (k int PRIMARY KEY, v text)")
	// 100,000 partitions; with -short (the race run in CI, where the scan
	// is slower than the driver's timeout) 5,000, where the trace used to
	// fail for its size.
	n := 100_000
	if testing.Short() {
		n = 5_000
	}
	for i := 0; i < n; i++ {
		v := "y"
		if i == 777 {
			v = "x"
		}
		require.NoError(t, srv.Exec("INSERT INTO app.f (k, v) VALUES (?, ?)", i, v))
	}
	sess := newSession(t, srv, "app")
	var out strings.Builder
	var k int
	require.NoError(t, sess.Query("SELECT k FROM f WHERE v = 'x' ALLOW FILTERING").Trace(gocql.NewTraceWriter(sess, &out)).Scan(&k))
	assert.Equal(t, 777, k)
	text := out.String()
	assert.Contains(t, text, "Tracing session ")
	assert.Less(t, strings.Count(text, "\n"), 20, text)
	assert.Contains(t, text, fmt.Sprintf("Scanned %d partitions of app.f", n))
	assert.Contains(t, text, fmt.Sprintf("Filtered %d rows of %d partitions (ALLOW FILTERING): 1 matched, %d discarded", n, n, n-1))
}

// TestGocqlArithmetic runs operators through gocql: typed results, and a
// division by zero as Cassandra's function failure, with the function and
// its argument types in the error.
func TestGocqlArithmetic(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	srv.MustExec(t, "CREATE TABLE app.nums (k int PRIMARY KEY, a int, b bigint, d decimal, at timestamp)")
	sess := newSession(t, srv, "app")
	at := time.Date(2024, 1, 31, 10, 0, 0, 0, time.UTC)
	require.NoError(t, sess.Query("INSERT INTO nums (k, a, b, d, at) VALUES (?, ?, ?, 8.5, ?)", 1, 7, int64(2), at).Exec())

	var sum int64
	var quotient float64
	var next time.Time
	require.NoError(t, sess.Query("SELECT a + b, a / 2.0, at + 1mo FROM nums WHERE k = ?", 1).Scan(&sum, &quotient, &next))
	assert.Equal(t, int64(9), sum, "int + bigint is a bigint")
	assert.Equal(t, 3.5, quotient, "int / double is a double")
	assert.Equal(t, time.Date(2024, 2, 29, 10, 0, 0, 0, time.UTC), next.UTC(), "a month later, within February")

	// The WHERE value is computed too.
	var a int
	require.NoError(t, sess.Query("SELECT a FROM nums WHERE k = 2 - 1").Scan(&a))
	assert.Equal(t, 7, a)

	err := sess.Query("SELECT a / (b - 2) FROM nums WHERE k = 1").Scan(&sum)
	var ff *gocql.RequestErrFunctionFailure
	require.True(t, errors.As(err, &ff), "%T %v", err, err)
	assert.Equal(t, "the operation 'int / bigint' failed: / by zero", ff.Message())
	assert.Equal(t, "system", ff.Keyspace)
	assert.Equal(t, "_divide", ff.Function)
	assert.Equal(t, []string{"int", "bigint"}, ff.ArgTypes)
}

// TestGocqlRoles logs gocql in with PasswordAuthenticator, creates a role
// that can log in, and connects as that role; a wrong password and a role
// without LOGIN are refused as Cassandra refuses them.
func TestGocqlRoles(t *testing.T) {
	srv, err := RunOptions(Options{Auth: map[string]string{"cassandra": "cassandra"}})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	connect := func(user, password string) (*gocql.Session, error) {
		cluster := gocql.NewCluster(srv.Host())
		cluster.Port = srv.Port()
		cluster.ProtoVersion = 4
		cluster.Timeout = 5 * time.Second
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
		return cluster.CreateSession()
	}
	admin, err := connect("cassandra", "cassandra")
	require.NoError(t, err)
	defer admin.Close()
	require.NoError(t, admin.Query("CREATE ROLE app WITH PASSWORD = 'secret' AND LOGIN = true").Exec())
	require.NoError(t, admin.Query("CREATE ROLE readers").Exec())
	require.NoError(t, admin.Query("GRANT readers TO app").Exec())

	var roles []string
	iter := admin.Query("LIST ROLES").Iter()
	var role, dcs string
	var super, login bool
	var opts map[string]string
	for iter.Scan(&role, &super, &login, &opts, &dcs) {
		roles = append(roles, fmt.Sprintf("%s super=%v login=%v", role, super, login))
	}
	require.NoError(t, iter.Close())
	assert.Equal(t, []string{"app super=false login=true", "cassandra super=true login=true", "readers super=false login=false"}, roles)

	app, err := connect("app", "secret")
	require.NoError(t, err)
	defer app.Close()
	require.NoError(t, app.Query("ALTER ROLE app WITH PASSWORD = 'rotated'").Exec())
	// CassandraAuthorizer: DROP needs DROP on the role first; with it, a
	// superuser role still needs a superuser.
	err = app.Query("DROP ROLE cassandra").Exec()
	require.Error(t, err)
	assert.Equal(t, "User app does not have sufficient privileges to perform the requested operation", err.Error())
	require.NoError(t, admin.Query("GRANT DROP ON ALL ROLES TO readers").Exec())
	err = app.Query("DROP ROLE cassandra").Exec()
	require.Error(t, err)
	assert.Equal(t, "Only superusers can drop a role with superuser status", err.Error())

	_, err = connect("app", "secret")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Provided username app and/or password are incorrect")
	_, err = connect("readers", "")
	require.Error(t, err)
	rotated, err := connect("app", "rotated")
	require.NoError(t, err)
	rotated.Close()
}

// TestGocqlSchemaChangeReprepares runs prepared statements through gocql
// across schema changes made by another client, with gocql's skip-metadata
// on (its default) and off. As on Cassandra, a change that affects a
// table's prepared statements evicts them, the next EXECUTE gets
// Unprepared, and gocql prepares again and returns the new columns (gocql's
// own TestSchemaReset checks the same on a cluster). Before, the old id ran
// against the new table and gocql decoded the rows with stale metadata.
func TestGocqlSchemaChangeReprepares(t *testing.T) {
	for _, skip := range []bool{true, false} {
		t.Run(fmt.Sprintf("skip_metadata=%v", skip), func(t *testing.T) {
			srv := Start(t)
			setupKeyspace(t, srv)
			srv.MustExec(t, "CREATE TABLE app.t (id int PRIMARY KEY, a text)")
			srv.MustExec(t, "INSERT INTO app.t (id, a) VALUES (1, 'x')")
			cluster := gocql.NewCluster(srv.Host())
			cluster.Port = srv.Port()
			cluster.ProtoVersion = 4
			cluster.Timeout = 5 * time.Second
			cluster.DisableSkipMetadata = !skip
			sess, err := cluster.CreateSession()
			require.NoError(t, err)
			t.Cleanup(sess.Close)

			row := func(q string, args ...any) map[string]any {
				t.Helper()
				m := map[string]any{}
				require.NoError(t, sess.Query(q, args...).MapScan(m), q)
				return m
			}
			const sel = "SELECT * FROM app.t WHERE id = ?"
			assert.Equal(t, map[string]any{"id": 1, "a": "x"}, row(sel, 1))

			srv.MustExec(t, "ALTER TABLE app.t ADD b int")
			srv.MustExec(t, "UPDATE app.t SET b = 7 WHERE id = 1")
			assert.Equal(t, map[string]any{"id": 1, "a": "x", "b": 7}, row(sel, 1), "ALTER TABLE ADD")

			srv.MustExec(t, "DROP TABLE app.t")
			srv.MustExec(t, "CREATE TABLE app.t (id int PRIMARY KEY, z bigint, a text)")
			srv.MustExec(t, "INSERT INTO app.t (id, z, a) VALUES (1, 9, 'y')")
			assert.Equal(t, map[string]any{"id": 1, "z": int64(9), "a": "y"}, row(sel, 1), "DROP TABLE and CREATE again")

			// A prepared INSERT is prepared again too. (gocql encodes
			// values with the bind metadata it cached before it sends
			// EXECUTE, so a retyped column would fail in gocql itself,
			// as against Cassandra.)
			const ins = "INSERT INTO app.t (id, a) VALUES (?, ?)"
			require.NoError(t, sess.Query(ins, 2, "two").Exec())
			srv.MustExec(t, "ALTER TABLE app.t ADD c int")
			require.NoError(t, sess.Query(ins, 3, "three").Exec())
			assert.Equal(t, map[string]any{"id": 3, "z": int64(0), "a": "three", "c": 0}, row(sel, 3), "INSERT after ALTER TABLE ADD")

			srv.MustExec(t, "CREATE TYPE app.addr (street text)")
			srv.MustExec(t, "CREATE TABLE app.u (id int PRIMARY KEY, home frozen<addr>)")
			srv.MustExec(t, "INSERT INTO app.u (id, home) VALUES (1, {street: 'Main'})")
			const selU = "SELECT home FROM app.u WHERE id = ?"
			assert.Equal(t, map[string]any{"home": map[string]any{"street": "Main"}}, row(selU, 1))
			srv.MustExec(t, "ALTER TYPE app.addr ADD city text")
			srv.MustExec(t, "UPDATE app.u SET home = {street: 'Main', city: 'Oslo'} WHERE id = 1")
			assert.Equal(t, map[string]any{"home": map[string]any{"street": "Main", "city": "Oslo"}}, row(selU, 1), "ALTER TYPE")
		})
	}
}

// TestGocqlClientsView reads system_views.clients through gocql: its own
// connections (the control connection and the pool) are there, ready, with
// the driver's STARTUP options and the user they logged in as.
func TestGocqlClientsView(t *testing.T) {
	srv, err := RunOptions(Options{Auth: map[string]string{"cassandra": "cassandra"}})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.ProtoVersion = 4
	cluster.Timeout = 5 * time.Second
	cluster.Authenticator = gocql.PasswordAuthenticator{Username: "cassandra", Password: "cassandra"}
	sess, err := cluster.CreateSession()
	require.NoError(t, err)
	defer sess.Close()

	// gocql fills its pool in the background: a connection it has just
	// opened is listed before its STARTUP, in stage "established", as
	// Cassandra lists it. Read the view until every connection is ready.
	type client struct {
		addr, user, stage string
		port, version     int
		requests          int64
		opts              map[string]string
	}
	var clients []client
	deadline := time.Now().Add(5 * time.Second)
	for {
		clients = clients[:0]
		iter := sess.Query("SELECT address, port, username, connection_stage, protocol_version, request_count, client_options FROM system_views.clients").Iter()
		var c client
		ready := true
		for iter.Scan(&c.addr, &c.port, &c.user, &c.stage, &c.version, &c.requests, &c.opts) {
			clients = append(clients, c)
			ready = ready && c.stage == "ready"
			c = client{}
		}
		require.NoError(t, iter.Close())
		if ready || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	n := len(clients)
	for _, c := range clients {
		assert.Equal(t, "127.0.0.1", c.addr)
		assert.NotZero(t, c.port)
		assert.Equal(t, "cassandra", c.user)
		assert.Equal(t, "ready", c.stage)
		assert.Equal(t, 4, c.version)
		assert.Positive(t, c.requests, "STARTUP and AUTH_RESPONSE at least")
		assert.NotEmpty(t, c.opts["CQL_VERSION"], "%v", c.opts)
	}
	assert.GreaterOrEqual(t, n, 2, "the control connection and at least one pool connection")
}

// TestGocqlUserFunctions creates a function and an aggregate through the
// driver on a server with user_defined_functions_enabled, calls them, and
// reads them back from the driver's keyspace metadata (system_schema.functions
// and aggregates).
func TestGocqlUserFunctions(t *testing.T) {
	srv, err := RunOptions(Options{UserDefinedFunctionsEnabled: true})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	setupKeyspace(t, srv)
	sess := newSession(t, srv, "app")
	for _, q := range []string{
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		"INSERT INTO t (k, v) VALUES (1, 2)",
		"INSERT INTO t (k, v) VALUES (2, 5)",
		"CREATE FUNCTION plus(s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s + v;'",
		"CREATE FUNCTION show(s int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return \"sum=\" + s;'",
		"CREATE AGGREGATE total(int) SFUNC plus STYPE int FINALFUNC show INITCOND 0",
	} {
		require.NoError(t, sess.Query(q).Exec(), q)
	}
	var got string
	require.NoError(t, sess.Query("SELECT total(v) FROM t").Scan(&got))
	assert.Equal(t, "sum=7", got)
	var n int
	require.NoError(t, sess.Query("SELECT plus(k, v) FROM t WHERE k = 2").Scan(&n))
	assert.Equal(t, 7, n)

	// A session opened after the DDL reads the metadata afresh (the
	// first one's cache is cleared by the schema events, debounced).
	md, err := newSession(t, srv, "app").KeyspaceMetadata("app")
	require.NoError(t, err)
	require.Contains(t, md.Functions, "plus")
	plus := md.Functions["plus"]
	assert.Equal(t, []string{"s", "v"}, plus.ArgumentNames)
	assert.Equal(t, "return s + v;", plus.Body)
	assert.True(t, plus.CalledOnNullInput)
	assert.Equal(t, "java", plus.Language)
	require.Len(t, plus.ArgumentTypes, 2)
	assert.Equal(t, gocql.TypeInt, plus.ArgumentTypes[0].Type())
	assert.Equal(t, gocql.TypeText, md.Functions["show"].ReturnType.Type())
	require.Contains(t, md.Aggregates, "total")
	total := md.Aggregates["total"]
	assert.Equal(t, "0", total.InitCond)
	assert.Equal(t, "plus", total.StateFunc.Name)
	assert.Equal(t, "show", total.FinalFunc.Name)

	// A failing body is a FunctionFailure (0x1400) naming the function.
	require.NoError(t, sess.Query("CREATE FUNCTION boom(v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'throw new IllegalStateException(\"no\");'").Exec())
	err = sess.Query("SELECT boom(v) FROM t WHERE k = 1").Scan(&n)
	var fe *gocql.RequestErrFunctionFailure
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "app", fe.Keyspace)
	assert.Equal(t, "boom", fe.Function)
	assert.Equal(t, []string{"int"}, fe.ArgTypes)
	assert.Equal(t, "execution of 'app.boom[int]' failed: java.lang.IllegalStateException: no", fe.Message())
}
