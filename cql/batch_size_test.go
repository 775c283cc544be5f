package cql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/query"
	"github.com/stretchr/testify/require"
)

// TestBatchSizeThresholds checks the batch sizes as 4.1's
// BatchStatement.verifyBatchSize counts them (PartitionUpdate.dataSize of
// each update) against batch_size_warn_threshold (5 KiB, a warning with the
// size in bytes) and batch_size_fail_threshold (50 KiB, Batch too large),
// for batches of more than one mutation only.
func TestBatchSizeThresholds(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
		"CREATE TABLE ks.c (k int, c int, m map<int, text>, PRIMARY KEY (k, c))",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	big := strings.Repeat("x", 3000)
	batch := func(stmts ...string) (*query.Result, error) {
		return s.Query(ctx, "BEGIN BATCH "+strings.Join(stmts, "; ")+"; APPLY BATCH", nil)
	}

	// Each update: the deletion info's timestamp (8), the empty static row
	// (liveness 8, deletion 12) and the row: no clustering, liveness 8,
	// deletion 12, the cell's 16 bytes and its 3000-byte value.
	res, err := batch(fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (1, '%s')", big), fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (2, '%s')", big))
	require.NoError(t, err)
	require.Equal(t, []string{"Batch for [ks.t] is of size 6128, exceeding specified threshold of 5120 by 1008."}, res.Warnings)

	// One mutation is never checked, however large.
	stmts := make([]string, 20)
	for i := range stmts {
		stmts[i] = fmt.Sprintf("UPDATE ks.c SET m[%d] = '%s' WHERE k = 1 AND c = %d", i, big, i)
	}
	res, err = batch(stmts...)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)

	// Two partitions: each map cell counts its 4-byte path, each row its
	// clustering's 4-byte value and its complex column's deletion (12):
	// 8 + 20 + (4 + 8 + 12 + 16 + 2600 + 4 + 12) = 2684 per update.
	mid := strings.Repeat("y", 2600)
	res, err = batch(fmt.Sprintf("UPDATE ks.c SET m[1] = '%s' WHERE k = 1 AND c = 1", mid), fmt.Sprintf("UPDATE ks.c SET m[2] = '%s' WHERE k = 2 AND c = 1", mid))
	require.NoError(t, err)
	require.Equal(t, []string{"Batch for [ks.c] is of size 5368, exceeding specified threshold of 5120 by 248."}, res.Warnings)

	// Over 50 KiB across partitions fails, and writes nothing.
	for i := range stmts {
		stmts[i] = fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (%d, '%s')", 100+i, big)
	}
	_, err = batch(stmts...)
	require.Error(t, err)
	require.Equal(t, "Batch too large", query.AsError(err).Message)
	res, err = s.Query(ctx, "SELECT * FROM ks.t WHERE k = 100", nil)
	require.NoError(t, err)
	require.Empty(t, res.Rows)

	// An unlogged batch over more than 10 partition keys warns.
	stmts = stmts[:11]
	for i := range stmts {
		stmts[i] = fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (%d, 'v')", 200+i)
	}
	res, err = s.Query(ctx, "BEGIN UNLOGGED BATCH "+strings.Join(stmts, "; ")+"; APPLY BATCH", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"Unlogged batch covering 11 partitions detected against table [ks.t]. You should use a logged batch for atomicity, or asynchronous writes for performance."}, res.Warnings)
}
