package minicasstest

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckRowIsTyped checks that CheckRow compares values as their
// columns' CQL types: an int is not the text '1', a gocql.UUID binds and
// compares as a uuid, nil is null.
func TestCheckRowIsTyped(t *testing.T) {
	srv, err := Run()
	require.NoError(t, err)
	defer srv.Close()
	id := gocql.UUID{0x5e, 0xed, 6: 0x40, 8: 0x80, 15: 7}
	srv.MustExec(t,
		"CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.users (id uuid PRIMARY KEY, n int, name text, tags set<text>)")
	require.NoError(t, srv.Exec("INSERT INTO app.users (id, n, name, tags) VALUES (?, ?, ?, ?)", id, 1, "Ada", []string{"b", "a"}))

	srv.CheckRow(t, "SELECT n, name, tags FROM app.users WHERE id = ?", []any{id}, 1, "Ada", []string{"a", "b"})

	rows := srv.Query("SELECT n, name, tags FROM app.users WHERE id = ?", id)
	require.True(t, rows.Next())
	row := rows.Row()
	require.NoError(t, rows.Close())
	assert.Empty(t, rowMismatch(row, []any{int64(1), "Ada", []string{"b", "a", "a"}}), "sets compare as sets, ints by value")
	assert.Equal(t, `column n (int): the wanted value "1" is a string, not a int`, rowMismatch(row, []any{"1", "Ada", []string{"a", "b"}}))
	assert.Contains(t, rowMismatch(row, []any{1, 1, []string{"a", "b"}}), "column name (text): the wanted value 1 is not a text")
	assert.Equal(t, "column name (text): got Ada, want Grace", rowMismatch(row, []any{1, "Grace", []string{"a", "b"}}))
	assert.Equal(t, "column tags (set<text>): got {'a', 'b'}, want null", rowMismatch(row, []any{1, "Ada", nil}))
	assert.Contains(t, rowMismatch(row, []any{1, "Ada"}), "got 3 columns")
}

// TestExecFileSeedSchemas runs the seed articles' schemas as a script:
// every table is created, the statements after them (a ';' in a string, a
// BATCH body, a last statement without ';') run, and an error names its
// statement.
func TestExecFileSeedSchemas(t *testing.T) {
	srv, err := Run()
	require.NoError(t, err)
	defer srv.Close()
	require.NoError(t, srv.ExecFile("testdata/seed_schemas.cql"))
	srv.CheckCount(t, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'seeds'", nil, 33)
	srv.CheckRow(t, "SELECT name FROM seeds.users WHERE user_id = 5eed0000-0000-4000-8000-000000000001", nil, "semi;colon")
	srv.CheckCount(t, "SELECT * FROM seeds.orders", nil, 1)
	srv.CheckRow(t, "SELECT value FROM seeds.daily_stats WHERE metric_name = 'pv' AND stat_date = '2024-01-15' AND hour = 10", nil, 1)

	err = srv.ExecScript("USE seeds; INSERT INTO users (user_id) VALUES (5eed0000-0000-4000-8000-000000000003);\nINSERT INTO nope (k) VALUES (1);\nINSERT INTO users (user_id) VALUES (5eed0000-0000-4000-8000-000000000004);")
	var se *minicass.ScriptError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 3, se.Index)
	assert.Equal(t, "INSERT INTO nope (k) VALUES (1);", se.Statement)
	assert.ErrorIs(t, err, cql.ErrInvalid)
	srv.CheckCount(t, "SELECT * FROM seeds.users", nil, 2) // the script stopped at the failure
}
