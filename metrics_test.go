package minicass_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// TestSSTablesPerRead checks the SSTables-per-read metric through the Go
// API: a LIMIT 1 read over three SSTables holding one row each opens one of
// them (the others wait at their lower bounds), a full read opens all three,
// and a range read records nothing.
func TestSSTablesPerRead(t *testing.T) {
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.ExecScript(ctx, `
		CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (id int, c int, v text, PRIMARY KEY (id, c));`))
	for c := 1; c <= 3; c++ {
		require.NoError(t, db.Exec(ctx, "INSERT INTO ks.t (id, c, v) VALUES (1, ?, 'x')", c))
		require.NoError(t, db.Flush(ctx, "ks", "t"))
	}
	read := func(q string) int64 {
		require.NoError(t, db.ResetSSTablesPerRead("ks", "t"))
		rows := db.Query(ctx, q)
		for rows.Next() {
		}
		require.NoError(t, rows.Close())
		h, err := db.SSTablesPerRead("ks", "t")
		require.NoError(t, err)
		return h.Max
	}
	assert.Equal(t, int64(1), read("SELECT * FROM ks.t WHERE id = 1 LIMIT 1"))
	assert.Equal(t, int64(3), read("SELECT * FROM ks.t WHERE id = 1"))
	assert.Equal(t, int64(0), read("SELECT * FROM ks.t"))
	_, err = db.SSTablesPerRead("ks", "nope")
	assert.Error(t, err)
}
