package cql

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestViewsConcurrent reads the table metric views while tables are created,
// written, read and dropped (run with -race): every read succeeds, and a
// dropped table's row is gone from the next refresh.
func TestViewsConcurrent(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sess := s.Executor().NewSession()
			sess.SetKeyspace("ks")
			for i := 0; i < 20; i++ {
				name := fmt.Sprintf("t%d_%d", w, i)
				for _, q := range []string{
					"CREATE TABLE " + name + " (k int PRIMARY KEY, v int)",
					"INSERT INTO " + name + " (k, v) VALUES (1, 1)",
					"SELECT * FROM " + name + " WHERE k = 1",
					"DROP TABLE " + name,
				} {
					if _, err := sess.Query(ctx, q, nil); !assert.NoError(t, err, q) {
						return
					}
				}
			}
		}(w)
	}
	for _, view := range []string{"rows_per_read", "tombstones_per_read", "disk_usage", "max_partition_size"} {
		wg.Add(1)
		go func(view string) {
			defer wg.Done()
			sess := s.Executor().NewSession()
			for i := 0; i < 20; i++ {
				if _, err := sess.Query(ctx, "SELECT * FROM system_views."+view, nil); !assert.NoError(t, err) {
					return
				}
			}
		}(view)
	}
	wg.Wait()
	res, err := s.Query(ctx, "SELECT table_name FROM system_views.rows_per_read WHERE keyspace_name = 'ks' ALLOW FILTERING", nil)
	require.NoError(t, err)
	require.Empty(t, res.Rows, "every ks table was dropped")
}
