package cql

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/trigger"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
	"github.com/minicass/minicass/wire"
)

// auditTrigger writes, for each partition update of its table, a row of
// ks.audit (k int PRIMARY KEY, n int) with the updated partition's int key
// and n = 1, and counts its calls.
type auditTrigger struct{ calls atomic.Int64 }

func (a *auditTrigger) Augment(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
	a.calls.Add(1)
	return []trigger.Mutation{intRow("ks", "audit", u.Mutation.Key, "n", 1)}, nil
}

// intRow is a mutation of ks.table's row of partition key (no clustering
// column) setting int column col to v, at the write time of testEpoch.
func intRow(ks, table string, key []byte, col string, v int32) trigger.Mutation {
	ts := testEpoch.UnixMicro()
	ck, _ := types.EncodeClustering(nil, nil)
	row := data.Row{Clustering: ck, Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}, Deletion: data.LiveDeletion,
		Cells: []data.Cell{{Column: col, Kind: data.CellRegular, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime,
			Value: binary.BigEndian.AppendUint32(nil, uint32(v))}}}
	return trigger.Mutation{Keyspace: ks, Table: table, Mutation: &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}}
}

func triggerSession(t *testing.T, reg trigger.Registry) *Session {
	t.Helper()
	s := newPreparedTestExecutor(t, Options{Triggers: reg, MaterializedViewsEnabled: true}).NewSession()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"CREATE TABLE ks.audit (k int PRIMARY KEY, n int)",
		"CREATE TABLE ks.c (k int PRIMARY KEY, n counter)",
	} {
		mustQuery(t, s, q)
	}
	return s
}

func rowsOf(t *testing.T, s *Session, q string) []string {
	t.Helper()
	res := mustQuery(t, s, q)
	var out []string
	for _, r := range res.Rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = types.Format(res.Columns[i].Type, v)
		}
		out = append(out, strings.Join(vals, " | "))
	}
	return out
}

// TestTriggerDDL checks CREATE and DROP TRIGGER's checks and texts
// (CreateTriggerStatement, DropTriggerStatement), system_schema.triggers
// and the schema change they answer.
func TestTriggerDDL(t *testing.T) {
	audit := &auditTrigger{}
	s := triggerSession(t, trigger.Registry{"org.example.Audit": audit})
	ctx := context.Background()
	mustQuery(t, s, "CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k)")
	for q, want := range map[string]string{
		"CREATE TRIGGER tr ON ks.t USING 'org.example.Missing'":  "Trigger class 'org.example.Missing' couldn't be loaded",
		"CREATE TRIGGER tr ON nope.t USING 'org.example.Audit'":  "Keyspace 'nope' doesn't exist",
		"CREATE TRIGGER tr ON ks.nope USING 'org.example.Audit'": "Table 'nope' doesn't exist",
		"CREATE TRIGGER tr ON ks.mv USING 'org.example.Audit'":   "Cannot CREATE TRIGGER for a materialized view",
		"DROP TRIGGER tr ON ks.t":                                "Trigger 'tr' on 'ks.t' doesn't exist",
		"DROP TRIGGER tr ON ks.mv":                               "Trigger 'tr' on 'ks.mv' doesn't exist",
		"DROP TRIGGER tr ON nope.t":                              "Trigger 'tr' on 'nope.t' doesn't exist",
	} {
		_, err := s.Query(ctx, q, nil)
		requireCode(t, err, wire.CodeInvalid, want)
	}
	_, err := s.Query(ctx, "CREATE TRIGGER tr ON system.local USING 'org.example.Audit'", nil)
	requireCode(t, err, wire.CodeUnauthorized, "system keyspace is not user-modifiable.")
	res := mustQuery(t, s, "CREATE TRIGGER tr ON ks.t USING 'org.example.Audit'")
	require.Equal(t, &wire.SchemaChange{Change: wire.Updated, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}, res.Change)
	_, err = s.Query(ctx, "CREATE TRIGGER tr ON ks.t USING 'org.example.Missing'", nil)
	requireCode(t, err, wire.CodeInvalid, "Trigger 'tr' already exists")
	res = mustQuery(t, s, "CREATE TRIGGER IF NOT EXISTS tr ON ks.t USING 'org.example.Missing'")
	require.Nil(t, res.Change, "IF NOT EXISTS of an existing trigger changes nothing")
	mustQuery(t, s, `CREATE TRIGGER "A b" ON ks.t USING 'org.example.Audit'`)
	require.Equal(t, []string{"ks | t | A b | {'class': 'org.example.Audit'}", "ks | t | tr | {'class': 'org.example.Audit'}"},
		rowsOf(t, s, "SELECT keyspace_name, table_name, trigger_name, options FROM system_schema.triggers WHERE keyspace_name = 'ks'"))
	// DESCRIBE prints no trigger, as 4.1's DescribeStatement (a table,
	// its indexes and views).
	res = mustQuery(t, s, "DESCRIBE TABLE ks.t")
	for _, r := range res.Rows {
		for _, v := range r {
			require.NotContains(t, string(v), "TRIGGER")
		}
	}
	res = mustQuery(t, s, "DROP TRIGGER tr ON ks.t")
	require.Equal(t, &wire.SchemaChange{Change: wire.Updated, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}, res.Change)
	res = mustQuery(t, s, "DROP TRIGGER IF EXISTS tr ON ks.t")
	require.Nil(t, res.Change)
	require.Equal(t, []string{"A b"}, rowsOf(t, s, "SELECT trigger_name FROM system_schema.triggers WHERE keyspace_name = 'ks'"))
	// ALTER TABLE keeps the table's triggers.
	mustQuery(t, s, "ALTER TABLE ks.t ADD w int")
	require.Equal(t, []string{"A b"}, rowsOf(t, s, "SELECT trigger_name FROM system_schema.triggers WHERE keyspace_name = 'ks'"))
	// DROP TABLE takes them with it.
	mustQuery(t, s, "DROP MATERIALIZED VIEW ks.mv")
	mustQuery(t, s, "DROP TABLE ks.t")
	require.Empty(t, rowsOf(t, s, "SELECT trigger_name FROM system_schema.triggers WHERE keyspace_name = 'ks'"))
}

// TestTriggerAuth checks that CREATE and DROP TRIGGER need a superuser.
func TestTriggerAuth(t *testing.T) {
	x := newPreparedTestExecutor(t, Options{Triggers: trigger.Registry{"org.example.Audit": &auditTrigger{}}})
	ctx := context.Background()
	require.NoError(t, x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4, Authorizer: CassandraAuthorizer}))
	su := x.NewUserSession("cassandra")
	mustQuery(t, su, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, su, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	mustQuery(t, su, "CREATE ROLE bob WITH LOGIN = true AND PASSWORD = 'bob'")
	mustQuery(t, su, "GRANT ALL ON KEYSPACE ks TO bob")
	require.NoError(t, x.Authenticate(ctx, "bob", "bob"))
	bob := x.NewUserSession("bob")
	_, err := bob.Query(ctx, "CREATE TRIGGER tr ON ks.t USING 'org.example.Audit'", nil)
	requireCode(t, err, wire.CodeUnauthorized, "Only superusers are allowed to perform CREATE TRIGGER queries")
	mustQuery(t, su, "CREATE TRIGGER tr ON ks.t USING 'org.example.Audit'")
	_, err = bob.Query(ctx, "DROP TRIGGER tr ON ks.t", nil)
	requireCode(t, err, wire.CodeUnauthorized, "Only superusers are allowed to perfrom DROP TRIGGER queries")
}

// TestTriggerWrites checks that the triggers run on every write path and
// that what they return is applied with the write (mutateWithTriggers),
// and the refusals: counters, a lightweight transaction's single
// partition, invalid mutations, failing triggers.
func TestTriggerWrites(t *testing.T) {
	audit := &auditTrigger{}
	other := func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
		// Another partition of the trigger's own table.
		key := binary.BigEndian.AppendUint32(nil, binary.BigEndian.Uint32(u.Mutation.Key)+1000)
		return []trigger.Mutation{intRow(u.Table.Keyspace, u.Table.Name, key, "v", 7)}, nil
	}
	var fail atomic.Pointer[error]
	reg := trigger.Registry{
		"Audit": audit,
		"Other": trigger.Func(other),
		"Stamp": trigger.Func(func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
			return []trigger.Mutation{intRow(u.Table.Keyspace, u.Table.Name, u.Mutation.Key, "n", 1)}, nil
		}),
		"Nothing": trigger.Func(func(context.Context, trigger.Update) ([]trigger.Mutation, error) {
			return nil, nil
		}),
		"Fail": trigger.Func(func(context.Context, trigger.Update) ([]trigger.Mutation, error) {
			return nil, *fail.Load()
		}),
		"Bad": trigger.Func(func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
			m := intRow("ks", "audit", u.Mutation.Key, "n", 1)
			m.Mutation.Rows[0].Cells[0].Value = []byte{1, 2}
			return []trigger.Mutation{m}, nil
		}),
		"Nowhere": trigger.Func(func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
			return []trigger.Mutation{intRow("ks", "nope", u.Mutation.Key, "n", 1)}, nil
		}),
	}
	s := triggerSession(t, reg)
	ctx := context.Background()
	mustQuery(t, s, "CREATE TRIGGER audit ON ks.t USING 'Audit'")

	mustQuery(t, s, "INSERT INTO ks.t (k, v) VALUES (1, 1)")
	mustQuery(t, s, "UPDATE ks.t SET v = 2 WHERE k IN (2, 3)")
	mustQuery(t, s, "DELETE FROM ks.t WHERE k = 4")
	mustQuery(t, s, "BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (5, 5); INSERT INTO ks.t (k, v) VALUES (5, 6); INSERT INTO ks.audit (k, n) VALUES (100, 100); APPLY BATCH")
	// A prepared statement sees the trigger created after it was prepared
	// (the plan is compiled again when the schema moves).
	prep, err := s.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)")
	require.NoError(t, err)
	_, err = s.ExecutePrepared(ctx, prep, &query.Params{Values: []query.Value{{Bytes: binary.BigEndian.AppendUint32(nil, 8)}, {Bytes: binary.BigEndian.AppendUint32(nil, 8)}}})
	require.NoError(t, err)
	require.Equal(t, []string{"5 | 1", "1 | 1", "8 | 1", "2 | 1", "4 | 1", "100 | 100", "3 | 1"},
		rowsOf(t, s, "SELECT k, n FROM ks.audit"))
	// One call per partition update: the batch's two statements on
	// partition 5 are one update.
	require.Equal(t, int64(6), audit.calls.Load())

	// A lightweight transaction, alone or in a batch, takes a mutation of
	// its own partition, merged into its update once its conditions hold.
	mustQuery(t, s, "CREATE TABLE ks.s (k int PRIMARY KEY, v int, n int)")
	mustQuery(t, s, "CREATE TRIGGER stamp ON ks.s USING 'Stamp'")
	mustQuery(t, s, "INSERT INTO ks.s (k, v) VALUES (6, 6) IF NOT EXISTS")
	mustQuery(t, s, "BEGIN BATCH INSERT INTO ks.s (k, v) VALUES (7, 7) IF NOT EXISTS; UPDATE ks.s SET v = 8 WHERE k = 7; APPLY BATCH")
	res := mustQuery(t, s, "UPDATE ks.s SET v = 9 WHERE k = 8 IF EXISTS")
	require.Equal(t, "False", types.Format(res.Columns[0].Type, res.Rows[0][0]), "a failed condition writes nothing, and runs no trigger")
	require.Equal(t, []string{"7 | 8 | 1", "6 | 6 | 1"}, rowsOf(t, s, "SELECT k, v, n FROM ks.s"))

	// A counter write takes a trigger that adds nothing, and refuses one
	// that adds a mutation.
	mustQuery(t, s, "CREATE TRIGGER nothing ON ks.c USING 'Nothing'")
	mustQuery(t, s, "UPDATE ks.c SET n = n + 1 WHERE k = 1")
	mustQuery(t, s, "CREATE TRIGGER audit ON ks.c USING 'Audit'")
	_, err = s.Query(ctx, "UPDATE ks.c SET n = n + 1 WHERE k = 2", nil)
	requireCode(t, err, wire.CodeInvalid, "Counter mutations and trigger mutations cannot be applied together atomically.")
	_, err = s.Query(ctx, "BEGIN COUNTER BATCH UPDATE ks.c SET n = n + 1 WHERE k = 3; APPLY BATCH", nil)
	requireCode(t, err, wire.CodeInvalid, "Counter mutations and trigger mutations cannot be applied together atomically.")
	require.Equal(t, []string{"1 | 1"}, rowsOf(t, s, "SELECT k, n FROM ks.c"))
	// A DELETE of a counter table is no counter update.
	mustQuery(t, s, "DELETE FROM ks.c WHERE k = 9")
	require.Equal(t, []string{"9 | 1"}, rowsOf(t, s, "SELECT k, n FROM ks.audit WHERE k = 9"))

	// A plain write takes another partition's mutation; a lightweight
	// transaction refuses it.
	mustQuery(t, s, "CREATE TABLE ks.o (k int PRIMARY KEY, v int)")
	mustQuery(t, s, "CREATE TRIGGER other ON ks.o USING 'Other'")
	mustQuery(t, s, "INSERT INTO ks.o (k, v) VALUES (1, 1)")
	require.Equal(t, []string{"1 | 1", "1001 | 7"}, rowsOf(t, s, "SELECT k, v FROM ks.o"))
	_, err = s.Query(ctx, "INSERT INTO ks.o (k, v) VALUES (2, 2) IF NOT EXISTS", nil)
	requireCode(t, err, wire.CodeInvalid, "Partition key of additional mutation does not match primary update key")
	mustQuery(t, s, "CREATE TABLE ks.a (k int PRIMARY KEY, v int)")
	mustQuery(t, s, "CREATE TRIGGER audit ON ks.a USING 'Audit'")
	_, err = s.Query(ctx, "INSERT INTO ks.a (k, v) VALUES (2, 2) IF NOT EXISTS", nil)
	requireCode(t, err, wire.CodeInvalid, "table of additional mutation does not match primary update table")
	require.Empty(t, rowsOf(t, s, "SELECT k FROM ks.a"))

	// Invalid mutations and failing triggers write nothing.
	for _, c := range []struct{ class, want string }{
		{"Bad", "Expected 4 bytes for a int (2)"},
		{"Nowhere", "A trigger returned a mutation of table ks.nope, which does not exist"},
	} {
		tbl := "x" + strings.ToLower(c.class)
		mustQuery(t, s, "CREATE TABLE ks."+tbl+" (k int PRIMARY KEY, v int)")
		mustQuery(t, s, "CREATE TRIGGER tr ON ks."+tbl+" USING '"+c.class+"'")
		_, err = s.Query(ctx, "INSERT INTO ks."+tbl+" (k, v) VALUES (50, 50)", nil)
		require.Error(t, err)
		require.Contains(t, err.Error(), c.want)
		require.Empty(t, rowsOf(t, s, "SELECT k FROM ks."+tbl))
	}
	mustQuery(t, s, "CREATE TABLE ks.xfail (k int PRIMARY KEY, v int)")
	mustQuery(t, s, "CREATE TRIGGER tr ON ks.xfail USING 'Fail'")
	refused := error(query.Invalidf("no, thanks"))
	fail.Store(&refused)
	_, err = s.Query(ctx, "INSERT INTO ks.xfail (k, v) VALUES (1, 1)", nil)
	requireCode(t, err, wire.CodeInvalid, "no, thanks")
	boom := errors.New("boom")
	fail.Store(&boom)
	_, err = s.Query(ctx, "INSERT INTO ks.xfail (k, v) VALUES (1, 1) IF NOT EXISTS", nil)
	tbl, _ := s.Executor().Engine().Table("ks", "xfail")
	requireCode(t, err, wire.CodeServer, "java.lang.RuntimeException: Exception while executing trigger on table with ID: "+types.UUIDValue(tbl.ID).String())
	require.ErrorContains(t, errors.Unwrap(err), "boom")
	require.Empty(t, rowsOf(t, s, "SELECT k FROM ks.xfail"))
}

// TestTriggersPersist checks that triggers outlive a restart, run again on
// a node that registers their class, and fail the writes of a node that
// does not, as a class that left Cassandra's triggers directory.
func TestTriggersPersist(t *testing.T) {
	fs := vfs.NewMem()
	open := func(reg trigger.Registry) *Session {
		eng, err := engine.Open(engine.Options{Dir: "/db", FS: fs, Clock: engine.NewManualClock(testEpoch)})
		require.NoError(t, err)
		t.Cleanup(func() { eng.Close() })
		return NewExecutor(eng, Options{Triggers: reg}).NewSession()
	}
	audit := &auditTrigger{}
	s := open(trigger.Registry{"Audit": audit})
	mustQuery(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	mustQuery(t, s, "CREATE TABLE ks.audit (k int PRIMARY KEY, n int)")
	mustQuery(t, s, "CREATE TRIGGER audit ON ks.t USING 'Audit'")
	require.NoError(t, s.Executor().Engine().Close())

	s = open(trigger.Registry{"Audit": audit})
	require.Equal(t, []string{"audit | {'class': 'Audit'}"}, rowsOf(t, s, "SELECT trigger_name, options FROM system_schema.triggers WHERE keyspace_name = 'ks'"))
	mustQuery(t, s, "INSERT INTO ks.t (k, v) VALUES (1, 1)")
	require.Equal(t, []string{"1 | 1"}, rowsOf(t, s, "SELECT k, n FROM ks.audit"))
	require.NoError(t, s.Executor().Engine().Close())

	s = open(nil)
	require.Equal(t, []string{"audit"}, rowsOf(t, s, "SELECT trigger_name FROM system_schema.triggers WHERE keyspace_name = 'ks'"))
	tbl, _ := s.Executor().Engine().Table("ks", "t")
	_, err := s.Query(context.Background(), "INSERT INTO ks.t (k, v) VALUES (2, 2)", nil)
	requireCode(t, err, wire.CodeServer, "java.lang.RuntimeException: Exception while executing trigger on table with ID: "+types.UUIDValue(tbl.ID).String())
	mustQuery(t, s, "DROP TRIGGER audit ON ks.t")
	mustQuery(t, s, "INSERT INTO ks.t (k, v) VALUES (2, 2)")
}
