package cqlbackend

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

func TestParams(t *testing.T) {
	p := params(&server.QueryParams{Values: [][]byte{{1}, nil, {}}, Unset: []bool{false, false, true}, Names: []string{"a", "b", "c"},
		PageSize: 7, PagingState: []byte{9}, DefaultTimestamp: 42, HasTimestamp: true, Consistency: wire.Quorum})
	assert.Equal(t, []cql.Value{{Bytes: []byte{1}}, {}, {Bytes: []byte{}, Unset: true}}, p.Values)
	assert.Equal(t, []string{"a", "b", "c"}, p.Names)
	assert.Equal(t, 7, p.PageSize)
	assert.Equal(t, []byte{9}, p.PagingState)
	assert.Equal(t, int64(42), p.Timestamp)
	assert.True(t, p.HasTimestamp)
	assert.Equal(t, wire.Quorum, p.Consistency)
	assert.Equal(t, &cql.Params{}, params(nil))

	// More values than the inline block holds.
	many := make([][]byte, 9)
	for i := range many {
		many[i] = []byte{byte(i)}
	}
	p = params(&server.QueryParams{Values: many})
	require.Len(t, p.Values, 9)
	for i, v := range p.Values {
		assert.Equal(t, []byte{byte(i)}, v.Bytes)
	}
}

func TestResult(t *testing.T) {
	cols := []cql.ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}}
	r := result(&cql.Result{Kind: wire.ResultRows, Columns: cols, Rows: [][][]byte{{{0, 0, 0, 1}}}, PagingState: []byte{1}, Warnings: []string{"w"}}, true)
	assert.Equal(t, wire.ResultRows, r.Kind)
	assert.Len(t, r.Columns, 1, "without metadata the columns are placeholders of the right count")
	assert.True(t, r.NoMetadata)
	assert.Equal(t, []byte{1}, r.PagingState)
	assert.Equal(t, []string{"w"}, r.Warnings)

	r = result(&cql.Result{Kind: wire.ResultSchemaChange, Change: &wire.SchemaChange{Change: wire.Created, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}}, false)
	assert.Equal(t, &wire.SchemaChange{Change: wire.Created, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}, r.Change)
	r = result(&cql.Result{Kind: wire.ResultSetKeyspace, Keyspace: "ks"}, false)
	assert.Equal(t, "ks", r.Keyspace)
	assert.Nil(t, result(nil, false))

	// Void without warnings is nil (the server sends Void); with warnings
	// the warnings travel.
	assert.Nil(t, result(&cql.Result{Kind: wire.ResultVoid}, false))
	r = result(&cql.Result{Kind: wire.ResultVoid, Warnings: []string{"w"}}, false)
	assert.Equal(t, wire.ResultVoid, r.Kind)
	assert.Equal(t, []string{"w"}, r.Warnings)

	// Without metadata only the column count matters, and rows still match it.
	two := []cql.ColumnSpec{cols[0], {Keyspace: "ks", Table: "t", Name: "v", Type: types.TextType}}
	r = result(&cql.Result{Kind: wire.ResultRows, Columns: two, Rows: [][][]byte{{{0, 0, 0, 1}, []byte("x")}}}, true)
	assert.Len(t, r.Columns, 2)
	b, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionResponse}, Message: r}).AppendTo(nil)
	require.NoError(t, err)
	h, _ := frame.ParseHeader(b)
	back, err := frame.Decode(h, b[frame.HeaderSize:])
	require.NoError(t, err)
	assert.Equal(t, [][][]byte{{{0, 0, 0, 1}, []byte("x")}}, back.Message.(*frame.Result).Rows)
	// A result with metadata converts every column.
	r = result(&cql.Result{Kind: wire.ResultRows, Columns: cols}, false)
	assert.Equal(t, []server.ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}}, r.Columns)
}

// TestErrorsCarryTheirExtras checks that executor errors, which the
// backend returns unchanged, give the server every extra of their code
// through its interfaces, also when wrapped.
func TestErrorsCarryTheirExtras(t *testing.T) {
	var ae server.AlreadyExistsError
	err := fmt.Errorf("ctx: %w", &cql.Error{Code: wire.CodeAlreadyExists, Message: "exists", Keyspace: "ks", Table: "t"})
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, wire.CodeAlreadyExists, ae.CQLCode())
	assert.Equal(t, "ks", ae.AlreadyExistsKeyspace())
	assert.Equal(t, "t", ae.AlreadyExistsTable())

	var ue server.UnpreparedIDError
	require.True(t, errors.As(&cql.Error{Code: wire.CodeUnprepared, Message: "gone", ID: []byte{1, 2}}, &ue))
	assert.Equal(t, []byte{1, 2}, ue.UnpreparedID())

	var fe server.FunctionFailureError
	require.True(t, errors.As(&cql.Error{Code: wire.CodeFunctionFailure, Message: "failed", Keyspace: "ks", Function: "f",
		ArgTypes: []string{"int"}}, &fe))
	ks, fn, args := fe.FunctionFailure()
	assert.Equal(t, []any{"ks", "f", []string{"int"}}, []any{ks, fn, args})
}

// TestExecuteAsConnectionRole prepares a superuser-only statement on a
// superuser's connection and sends its id from another role's connection,
// as EXECUTE and as a BATCH entry: the statement runs as the connection's
// role, so it is refused with Cassandra's texts and creates nothing.
func TestExecuteAsConnectionRole(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(engine.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	x := cql.NewExecutor(eng, cql.Options{})
	require.NoError(t, x.EnableAuthentication(ctx, cql.AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4}))
	b := New(x)
	super := b.NewSession(ctx, server.ConnInfo{User: "cassandra"})
	_, err = super.Query(ctx, "CREATE ROLE alice WITH LOGIN = true AND PASSWORD = 'a'", nil)
	require.NoError(t, err)
	prep, err := super.Prepare(ctx, "CREATE ROLE mallory WITH SUPERUSER = true AND LOGIN = true AND PASSWORD = 'p'", "")
	require.NoError(t, err)

	alice := b.NewSession(ctx, server.ConnInfo{User: "alice"})
	_, err = alice.Execute(ctx, prep.ID, &server.QueryParams{})
	var ce *cql.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, wire.CodeUnauthorized, ce.Code)
	assert.Equal(t, "Only superusers can create a role with superuser status", ce.Message)

	_, err = alice.Batch(ctx, &server.BatchRequest{Entries: []server.BatchEntry{{ID: prep.ID}}})
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, wire.CodeInvalid, ce.Code)
	assert.Equal(t, "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.", ce.Message)

	// A frame always carries a consistency level (0 is ANY, which cannot read).
	res, err := super.Query(ctx, "SELECT role FROM system_auth.roles WHERE role = 'mallory'", &server.QueryParams{Consistency: wire.One})
	require.NoError(t, err)
	assert.Empty(t, res.Rows, "no role was created")
}

// TestResultMetadataIDs checks the v5 skip-metadata and METADATA_CHANGED
// decisions of Execute, as Cassandra's ExecuteMessage makes them.
func TestResultMetadataIDs(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(engine.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	x := cql.NewExecutor(eng, cql.Options{})
	s := New(x).NewSession(ctx, server.ConnInfo{})
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, a int)",
		"INSERT INTO ks.t (k, a) VALUES (1, 2)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err)
	}
	old, err := s.Prepare(ctx, "SELECT * FROM t", "ks")
	require.NoError(t, err)
	assert.Equal(t, frame.ResultMetadataID(old.ResultCols), old.ResultMetadataID)

	v5 := func(id []byte, skip bool) *server.QueryParams {
		return &server.QueryParams{Version: 5, ResultMetadataID: id, SkipMetadata: skip, Consistency: wire.One}
	}
	res, err := s.Execute(ctx, old.ID, v5(old.ResultMetadataID, true))
	require.NoError(t, err)
	assert.True(t, res.NoMetadata, "same id, skip asked")
	assert.False(t, res.MetadataChanged)

	_, err = s.Query(ctx, "ALTER TABLE ks.t ADD b int", nil)
	require.NoError(t, err)
	cur, err := s.Prepare(ctx, "SELECT * FROM t", "ks")
	require.NoError(t, err)
	require.Equal(t, old.ID, cur.ID)
	require.NotEqual(t, old.ResultMetadataID, cur.ResultMetadataID)

	res, err = s.Execute(ctx, old.ID, v5(old.ResultMetadataID, true))
	require.NoError(t, err)
	assert.True(t, res.MetadataChanged, "outdated id")
	assert.False(t, res.NoMetadata, "changed metadata is sent in full")
	assert.Equal(t, cur.ResultMetadataID, res.ResultMetadataID)
	require.Len(t, res.Columns, 3)
	assert.Equal(t, "b", res.Columns[2].Name)

	// v4 has no ids: skip-metadata is honoured.
	res, err = s.Execute(ctx, old.ID, &server.QueryParams{SkipMetadata: true, Consistency: wire.One})
	require.NoError(t, err)
	assert.True(t, res.NoMetadata)
	assert.False(t, res.MetadataChanged)

	// A conditional statement always sends its metadata, without the flag.
	lwt, err := s.Prepare(ctx, "INSERT INTO ks.t (k, a) VALUES (1, 3) IF NOT EXISTS", "")
	require.NoError(t, err)
	res, err = s.Execute(ctx, lwt.ID, v5(lwt.ResultMetadataID, true))
	require.NoError(t, err)
	require.Equal(t, wire.ResultRows, res.Kind)
	assert.False(t, res.NoMetadata)
	assert.False(t, res.MetadataChanged)
	assert.Nil(t, res.ResultMetadataID)

	// The keyspace flag: a statement prepared in ks is not the same one as
	// prepared without a keyspace.
	_, err = s.Prepare(ctx, "SELECT * FROM t", "")
	require.Error(t, err, "no keyspace")
}

// TestStatementKind gives EXECUTE the request kind of its statement's text,
// which chooses its timeout.
func TestStatementKind(t *testing.T) {
	eng, err := engine.Open(engine.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	x := cql.NewExecutor(eng, cql.Options{})
	ctx := context.Background()
	s := x.NewSession()
	_, err = s.Query(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &cql.Params{})
	require.NoError(t, err)
	_, err = s.Query(ctx, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)", &cql.Params{})
	require.NoError(t, err)
	sess := New(x).NewSession(ctx, server.ConnInfo{}).(*Session)
	for q, want := range map[string]server.RequestKind{
		"SELECT v FROM ks.t WHERE k = ?":                server.KindRead,
		"SELECT v FROM ks.t":                            server.KindRange,
		"INSERT INTO ks.t (k, v) VALUES (?, ?)":         server.KindWrite,
		"INSERT INTO ks.t (k) VALUES (?) IF NOT EXISTS": server.KindCAS,
		"TRUNCATE ks.t":                                 server.KindTruncate,
	} {
		p, err := sess.Prepare(ctx, q, "")
		require.NoError(t, err, q)
		assert.Equal(t, want, sess.StatementKind(p.ID), q)
		assert.Equal(t, want, sess.StatementKind(p.ID), "cached: %s", q)
	}
	assert.Equal(t, server.KindOther, sess.StatementKind([]byte("unknown id")))
}
