package cql

import (
	"context"
	"fmt"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

func newPreparedTestExecutor(t *testing.T, opts Options) *Executor {
	t.Helper()
	eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return NewExecutor(eng, opts)
}

func mustQuery(t *testing.T, s *Session, q string) *query.Result {
	t.Helper()
	res, err := s.Query(context.Background(), q, nil)
	require.NoError(t, err, q)
	return res
}

func requireCode(t *testing.T, err error, code wire.ErrorCode, msg string) {
	t.Helper()
	require.Error(t, err)
	e := query.AsError(err)
	assert.Equal(t, code, e.Code, "%v", err)
	if msg != "" {
		assert.Equal(t, msg, e.Message)
	}
}

// TestPreparedRunsAsExecutingRole prepares role and trigger statements as a
// superuser and executes them as a role without superuser status, by id
// (as EXECUTE does), through the Go API's ExecutePrepared and as a
// protocol BATCH entry: each is authorized as the executing role, and
// answered as Cassandra answers that role, with nothing changed. A
// prepared plan is shared by every session, so it must not carry the role
// that prepared it.
func TestPreparedRunsAsExecutingRole(t *testing.T) {
	ctx := context.Background()
	x := newPreparedTestExecutor(t, Options{})
	require.NoError(t, x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4}))
	super := x.NewUserSession("cassandra")
	mustQuery(t, super, "CREATE ROLE alice WITH LOGIN = true AND PASSWORD = 'a'")
	mustQuery(t, super, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, super, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	alice := x.NewUserSession("alice")

	createSuper, err := super.Prepare(ctx, "CREATE ROLE mallory WITH SUPERUSER = true AND LOGIN = true AND PASSWORD = 'p'")
	require.NoError(t, err)
	trigger, err := super.Prepare(ctx, "CREATE TRIGGER tr ON ks.t USING 'org.example.Trigger'")
	require.NoError(t, err)

	_, err = alice.Execute(ctx, createSuper.ID, nil)
	requireCode(t, err, wire.CodeUnauthorized, "Only superusers can create a role with superuser status")
	_, err = alice.ExecutePrepared(ctx, createSuper, nil)
	requireCode(t, err, wire.CodeUnauthorized, "Only superusers can create a role with superuser status")
	_, err = alice.Execute(ctx, trigger.ID, nil)
	requireCode(t, err, wire.CodeUnauthorized, "Only superusers are allowed to perform CREATE TRIGGER queries")
	_, err = alice.Batch(ctx, parser.BatchLogged, []BatchEntry{{Prepared: createSuper}}, nil)
	requireCode(t, err, wire.CodeInvalid, "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
	// The anonymous user is refused too: Cassandra's authorize step finds
	// it is no superuser before validate would find it anonymous.
	_, err = x.NewSession().Execute(ctx, createSuper.ID, nil)
	requireCode(t, err, wire.CodeUnauthorized, "Only superusers can create a role with superuser status")

	res := mustQuery(t, super, "SELECT role FROM system_auth.roles WHERE role = 'mallory'")
	assert.Empty(t, res.Rows, "no superuser was created")

	// The superuser's own execution of the same id still runs as the
	// superuser.
	_, err = super.Execute(ctx, createSuper.ID, nil)
	require.NoError(t, err)
	res = mustQuery(t, super, "SELECT role, is_superuser FROM system_auth.roles WHERE role = 'mallory'")
	require.Len(t, res.Rows, 1)
	assert.Equal(t, []byte{1}, res.Rows[0][1])
}

// TestPreparedEvictedBySchemaChange follows Cassandra's
// StatementInvalidatingListener: a change to a table that affects prepared
// statements (a column added or dropped, a type altered, the table dropped
// and created again, an index, default_time_to_live) evicts the SELECTs and
// modifications on it, whose ids then get Unprepared; other changes keep
// them, with the result columns they promised.
func TestPreparedEvictedBySchemaChange(t *testing.T) {
	ctx := context.Background()
	x := newPreparedTestExecutor(t, Options{})
	s := x.NewSession()
	mustQuery(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, s, "CREATE TYPE ks.addr (street text)")
	mustQuery(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v int, a frozen<addr>)")
	mustQuery(t, s, "CREATE TABLE ks.other (k int PRIMARY KEY)")
	mustQuery(t, s, "INSERT INTO ks.t (k, v) VALUES (1, 10)")
	s.SetKeyspace("ks")

	prepare := func(q string) *Prepared {
		t.Helper()
		p, err := s.Prepare(ctx, q)
		require.NoError(t, err)
		return p
	}
	evicted := func(p *Prepared, why string) {
		t.Helper()
		_, err := s.Execute(ctx, p.ID, &query.Params{Values: make([]query.Value, len(p.Bind))})
		requireCode(t, err, wire.CodeUnprepared, "")
		assert.Equal(t, p.ID, query.AsError(err).ID, why)
		assert.Nil(t, x.Lookup(p.ID), why)
	}
	kept := func(p *Prepared, why string) {
		t.Helper()
		require.NotNil(t, x.Lookup(p.ID), why)
		res, err := s.Execute(ctx, p.ID, &query.Params{Values: []query.Value{{Bytes: []byte{0, 0, 0, 1}}}})
		require.NoError(t, err, why)
		assert.True(t, sameColumns(p.Result, res.Columns), "%s: the promised columns", why)
	}

	sel := prepare("SELECT * FROM t WHERE k = ?")
	require.Len(t, sel.Result, 3)
	mustQuery(t, s, "ALTER TABLE ks.other ADD x int")
	kept(sel, "a change to another table")
	mustQuery(t, s, "ALTER TABLE ks.t WITH comment = 'not a change prepared statements see'")
	kept(sel, "a comment")
	mustQuery(t, s, "ALTER TABLE ks.t ADD w text")
	evicted(sel, "a column added")
	sel = prepare("SELECT * FROM t WHERE k = ?")
	assert.Len(t, sel.Result, 4, "prepared again, the new column is there")

	ins := prepare("INSERT INTO t (k, v) VALUES (?, 1)")
	mustQuery(t, s, "ALTER TYPE ks.addr ADD city text")
	evicted(sel, "a type altered")
	evicted(ins, "a type altered")

	sel = prepare("SELECT * FROM t WHERE k = ?")
	upd := prepare("UPDATE t SET v = 2 WHERE k = ?")
	batch := prepare("BEGIN BATCH UPDATE other SET x = 1 WHERE k = ?; UPDATE t SET v = 3 WHERE k = 1; APPLY BATCH")
	mustQuery(t, s, "DROP TABLE ks.t")
	mustQuery(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v int, a frozen<addr>, w text)")
	evicted(sel, "dropped and created again")
	evicted(upd, "dropped and created again")
	evicted(batch, "a batch on a dropped table")

	sel = prepare("SELECT * FROM t WHERE k = ?")
	mustQuery(t, s, "ALTER TABLE ks.t WITH default_time_to_live = 60")
	evicted(sel, "default_time_to_live")
	sel = prepare("SELECT * FROM t WHERE k = ?")
	mustQuery(t, s, "CREATE INDEX ON ks.t (v)")
	evicted(sel, "an index")
	sel = prepare("SELECT * FROM t WHERE k = ?")
	mustQuery(t, s, "DROP KEYSPACE ks")
	evicted(sel, "the keyspace dropped")
}

// TestPlanCacheEvictsColdStatements fills a small cache: statements used
// again stay while those used once are evicted, and the cache stays within
// its bound.
func TestPlanCacheEvictsColdStatements(t *testing.T) {
	ctx := context.Background()
	const limit = 20 * preparedOverhead
	x := newPreparedTestExecutor(t, Options{PreparedStatementsCacheSize: limit})
	s := x.NewSession()
	mustQuery(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	hot, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	for i := range 200 {
		_, err := s.Prepare(ctx, fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (?, %d)", i))
		require.NoError(t, err)
		require.NotNil(t, x.Lookup(hot.ID), "a statement used between insertions stays (round %d)", i)
		assert.LessOrEqual(t, x.PreparedStatements(), limit/preparedOverhead)
	}
	again, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	require.NoError(t, err)
	assert.Same(t, hot, again, "a cached statement is found by its text")
	first := statementID("", "INSERT INTO ks.t (k, v) VALUES (?, 0)")
	assert.Nil(t, x.Lookup(first[:]), "a statement used once was evicted")
}

// TestPreparedStatementIDs pins the ids a fully upgraded 4.1 node answers
// (QueryProcessor.prepare): a fully qualified statement, a BATCH of them
// included, gets the MD5 of its text whatever the session's keyspace; any
// other the MD5 of the keyspace and the text; each is cached under both.
func TestPreparedStatementIDs(t *testing.T) {
	ctx := context.Background()
	x := newPreparedTestExecutor(t, Options{})
	s := x.NewSession()
	mustQuery(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	s.SetKeyspace("ks")
	for _, tc := range []struct {
		text      string
		qualified bool
	}{
		{"SELECT v FROM ks.t WHERE k = ?", true},
		{"BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (?, 1); UPDATE ks.t SET v = 2 WHERE k = ? APPLY BATCH", true},
		{"SELECT v FROM t WHERE k = ?", false},
		{"BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (?, 1); UPDATE t SET v = 2 WHERE k = ? APPLY BATCH", false},
	} {
		p, err := s.Prepare(ctx, tc.text)
		require.NoError(t, err, tc.text)
		alone, withKS := statementID("", tc.text), statementID("ks", tc.text)
		want := withKS
		if tc.qualified {
			want = alone
		}
		assert.Equal(t, want[:], p.ID, tc.text)
		assert.NotNil(t, x.Lookup(alone[:]), "%s: cached under the id of its text", tc.text)
		assert.NotNil(t, x.Lookup(withKS[:]), "%s: cached under the id of keyspace and text", tc.text)
		again, err := s.Prepare(ctx, tc.text)
		require.NoError(t, err)
		assert.Equal(t, p.ID, again.ID, "%s: preparing again answers the same id", tc.text)
	}
}
