package cql

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
)

// TestIndexPaging reads random data through secondary indexes of every
// kind page by page, with page sizes from 1 up, and checks that the pages
// put together are the unpaged result: a paging state resumes inside a
// base partition and across the index's entries of many partitions.
func TestIndexPaging(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
		"CREATE TABLE t (k1 int, k2 int, c int, s int static, v int, l list<int>, PRIMARY KEY ((k1, k2), c))",
		"CREATE INDEX ON t (v)",
		"CREATE INDEX ON t (s)",
		"CREATE INDEX ON t (c)",
		"CREATE INDEX ON t (k1)",
		"CREATE INDEX ON t (l)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	for i := 0; i < 300; i++ {
		var q string
		switch rng.Intn(6) {
		case 0:
			q = fmt.Sprintf("UPDATE t SET s = %d WHERE k1 = %d AND k2 = %d", rng.Intn(3), rng.Intn(4), rng.Intn(8))
		case 1:
			q = fmt.Sprintf("DELETE FROM t WHERE k1 = %d AND k2 = %d AND c = %d", rng.Intn(4), rng.Intn(8), rng.Intn(6))
		default:
			q = fmt.Sprintf("INSERT INTO t (k1, k2, c, v, l) VALUES (%d, %d, %d, %d, [%d, %d])",
				rng.Intn(4), rng.Intn(8), rng.Intn(6), rng.Intn(3), rng.Intn(3), rng.Intn(3))
		}
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
		if i == 150 {
			require.NoError(t, s.x.env.Engine.Flush(ctx, "ks", "t"))
		}
	}
	for v := 0; v < 3; v++ {
		for _, q := range []string{
			"SELECT k1, k2, c, v FROM t WHERE v = %d",
			"SELECT k1, k2, c, s FROM t WHERE s = %d",
			"SELECT k1, k2, c FROM t WHERE c = %d",
			"SELECT k1, k2, c FROM t WHERE k1 = %d",
			"SELECT k1, k2, c FROM t WHERE l CONTAINS %d",
			"SELECT k1, k2, c FROM t WHERE v = %d LIMIT 5",
			"SELECT k1, k2, c FROM t WHERE v = %d PER PARTITION LIMIT 1",
			"SELECT k1, k2, c FROM t WHERE v = %d AND c > 2 ALLOW FILTERING",
		} {
			q = fmt.Sprintf(q, v)
			all, err := s.Query(ctx, q, &query.Params{})
			require.NoError(t, err, q)
			for _, size := range []int{1, 2, 3, 7} {
				var got [][][]byte
				var state []byte
				for pages := 0; ; pages++ {
					require.Less(t, pages, 1000, "%s: paging does not end", q)
					res, err := s.Query(ctx, q, &query.Params{PageSize: size, PagingState: state})
					require.NoError(t, err, q)
					require.LessOrEqual(t, len(res.Rows), size, q)
					got = append(got, res.Rows...)
					if res.PagingState == nil {
						break
					}
					state = res.PagingState
				}
				require.Equal(t, all.Rows, got, "seed %d: %s with pages of %d", seed, q, size)
			}
		}
	}
}

// TestIndexTableOptions checks that an index's table follows its base
// table's options through ALTER TABLE, and is hidden from the schema.
func TestIndexTableOptions(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"CREATE INDEX t_v ON ks.t (v)",
		"ALTER TABLE ks.t WITH gc_grace_seconds = 3600",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	eng := s.x.env.Engine
	it, ok := eng.Table("ks", "t.t_v")
	require.True(t, ok)
	require.Equal(t, 3600, int(it.Options.GCGraceSeconds))
	for _, tbl := range eng.Tables("ks") {
		require.Equal(t, "t", tbl.Name, "index tables are not listed")
	}
	res, err := s.Query(ctx, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks'", &query.Params{})
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
}
