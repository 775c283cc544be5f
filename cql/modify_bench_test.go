package cql

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
)

// BenchmarkInsertExecute executes a prepared single-row INSERT through the
// executor (no Go API binding), new partition each time.
func BenchmarkInsertExecute(b *testing.B) {
	s := newSelectTestSession(b)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c text, v blob, PRIMARY KEY (k, c))",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(b, err, q)
	}
	prep, err := s.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	require.NoError(b, err)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		values := []query.Value{{Bytes: binary.BigEndian.AppendUint32(nil, uint32(i))}, {Bytes: []byte("c")}, {Bytes: []byte("0123456789abcdef")}}
		if _, err := s.ExecutePrepared(ctx, prep, &query.Params{Values: values}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
