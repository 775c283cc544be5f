package cql

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
)

// benchPartitions is the table size of BenchmarkIndexLookup:
// MINICASS_BENCH_PARTITIONS, 100000 by default.
func benchPartitions(b *testing.B) int {
	if s := os.Getenv("MINICASS_BENCH_PARTITIONS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		return n
	}
	return 100_000
}

func benchQuery(tb testing.TB, s *Session, q string) {
	tb.Helper()
	_, err := s.Query(context.Background(), q, nil)
	require.NoError(tb, err, q)
}

// BenchmarkIndexLookup compares, on a table of benchPartitions
// single-row partitions flushed and compacted to one SSTable, a query a secondary index
// serves (10 matching rows) with the same query on an unindexed copy of
// the column with ALLOW FILTERING, and with a read of one partition by
// key. Run with -count for interleaved runs.
func BenchmarkIndexLookup(b *testing.B) {
	n := benchPartitions(b)
	s := newSelectTestSession(b)
	ctx := context.Background()
	benchQuery(b, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	benchQuery(b, s, "USE ks")
	benchQuery(b, s, "CREATE TABLE u (id int PRIMARY KEY, grp int, grp2 int, name text)")
	benchQuery(b, s, "CREATE INDEX ON u (grp)")
	ins, err := s.Prepare(ctx, "INSERT INTO u (id, grp, grp2, name) VALUES (?, ?, ?, 'someone')")
	require.NoError(b, err)
	groups := n / 10
	for i := 0; i < n; i++ {
		g := intValue(int32(i % groups))
		_, err := s.ExecutePrepared(ctx, ins, &query.Params{Values: []query.Value{intValue(int32(i)), g, g}})
		require.NoError(b, err)
		if i%100_000 == 99_999 {
			// SSTables are smaller than memtables: a large table fits.
			require.NoError(b, s.x.env.Engine.Flush(ctx, "ks", ""))
		}
	}
	require.NoError(b, s.x.env.Engine.Flush(ctx, "ks", ""))
	// One SSTable per table, as after a major compaction: reads do not
	// depend on how many flushes the load took.
	require.NoError(b, s.x.env.Engine.Compact(ctx, "ks", ""))
	for _, c := range []struct{ name, q string }{
		{"index", "SELECT id, name FROM u WHERE grp = ?"},
		{"allow-filtering", "SELECT id, name FROM u WHERE grp2 = ? ALLOW FILTERING"},
		{"partition", "SELECT id, name FROM u WHERE id = ?"},
	} {
		p, err := s.Prepare(ctx, c.q)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("%s/partitions=%d", c.name, n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				res, err := s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{intValue(int32(i % groups))}})
				if err != nil {
					b.Fatal(err)
				}
				want := 10
				if c.name == "partition" {
					want = 1
				}
				if len(res.Rows) != want {
					b.Fatalf("%d rows, want %d", len(res.Rows), want)
				}
			}
		})
	}
}

// BenchmarkIndexedWrite measures a prepared INSERT of a new partition
// into a table with 0, 1 and 3 secondary indexes on the written columns.
// Run with -count for interleaved runs.
func BenchmarkIndexedWrite(b *testing.B) {
	for _, indexes := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("indexes=%d", indexes), func(b *testing.B) {
			s := newSelectTestSession(b)
			ctx := context.Background()
			benchQuery(b, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			benchQuery(b, s, "USE ks")
			benchQuery(b, s, "CREATE TABLE w (id int PRIMARY KEY, a int, b int, c int)")
			for _, col := range []string{"a", "b", "c"}[:indexes] {
				benchQuery(b, s, "CREATE INDEX ON w ("+col+")")
			}
			ins, err := s.Prepare(ctx, "INSERT INTO w (id, a, b, c) VALUES (?, ?, ?, ?)")
			require.NoError(b, err)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				v := intValue(int32(i % 1000))
				if _, err := s.ExecutePrepared(ctx, ins, &query.Params{Values: []query.Value{intValue(int32(i)), v, v, v}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
