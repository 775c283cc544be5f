package cql

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkCreateTable measures CREATE TABLE with 1 and with 500 tables
// already in the schema. The system tables are derived on read, so the cost
// of a schema change should not grow with the number of tables.
func BenchmarkCreateTable(b *testing.B) {
	for _, existing := range []int{1, 500} {
		b.Run(fmt.Sprintf("existing=%d", existing), func(b *testing.B) {
			s := newSystemTestSession(b)
			ctx := context.Background()
			_, err := s.Query(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
			require.NoError(b, err)
			_, err = s.Query(ctx, "USE ks", nil)
			require.NoError(b, err)
			for i := 0; i < existing; i++ {
				_, err := s.Query(ctx, fmt.Sprintf("CREATE TABLE t%d (k int PRIMARY KEY, c int, v text)", i), nil)
				require.NoError(b, err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// A create and a drop keep the number of tables constant.
				if _, err := s.Query(ctx, "CREATE TABLE bench (k int PRIMARY KEY, c int, v text)", nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := s.Query(ctx, "DROP TABLE bench", nil); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
