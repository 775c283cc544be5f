package cql

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func setupWide(tb testing.TB, rows int) *Session {
	s := newSelectTestSession(tb)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
		"CREATE TABLE w (k int, c int, v text, PRIMARY KEY (k, c))",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(tb, err)
	}
	for i := 0; i < rows; i++ {
		_, err := s.Query(ctx, fmt.Sprintf("INSERT INTO w (k, c, v) VALUES (1, %d, 'value')", i), nil)
		require.NoError(tb, err)
	}
	return s
}

func intValue(v int32) query.Value {
	return query.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(v))}
}

// TestSelectPrepared checks bind marker metadata, pk indexes and a
// malformed paging state.
func TestSelectPrepared(t *testing.T) {
	s := setupWide(t, 5)
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT c, v FROM w WHERE k = ? AND c IN ? LIMIT ?")
	require.NoError(t, err)
	assert.Equal(t, []uint16{0}, p.PKIndexes)
	require.Len(t, p.Bind, 3)
	assert.Equal(t, "k", p.Bind[0].Name)
	assert.Equal(t, "in(c)", p.Bind[1].Name)
	assert.Equal(t, "list<int>", p.Bind[1].Type.String())
	assert.Equal(t, "[limit]", p.Bind[2].Name)
	list := binary.BigEndian.AppendUint32(nil, 2)
	for _, c := range []int32{3, 1} {
		list = binary.BigEndian.AppendUint32(list, 4)
		list = binary.BigEndian.AppendUint32(list, uint32(c))
	}
	res, err := s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{intValue(1), {Bytes: list}, intValue(10)}})
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	assert.Equal(t, intValue(1).Bytes, res.Rows[0][0])
	assert.Equal(t, intValue(3).Bytes, res.Rows[1][0])

	_, err = s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{{Unset: true}, {Bytes: list}, intValue(10)}})
	require.Error(t, err)
	assert.Equal(t, "Invalid unset value for column k", err.Error())

	// EQ/IN on the whole partition key with a token() relation reads the
	// named partitions whose token the relation accepts (TokenFilter).
	p2, err := s.Prepare(ctx, "SELECT * FROM w WHERE token(k) > ? AND k IN (1) ALLOW FILTERING")
	require.NoError(t, err)
	all, err := s.ExecutePrepared(ctx, p2, &query.Params{Values: []query.Value{{Bytes: expr.Int64Bytes(math.MinInt64)}}})
	require.NoError(t, err)
	assert.NotEmpty(t, all.Rows)
	for _, r := range all.Rows {
		assert.Equal(t, intValue(1).Bytes, r[0])
	}
	none, err := s.ExecutePrepared(ctx, p2, &query.Params{Values: []query.Value{{Bytes: expr.Int64Bytes(math.MaxInt64)}}})
	require.NoError(t, err)
	assert.Empty(t, none.Rows)

	p3, err := s.Prepare(ctx, "SELECT * FROM w WHERE token(k) > ?")
	require.NoError(t, err)
	assert.Nil(t, p3.PKIndexes)
	assert.Equal(t, "partition key token", p3.Bind[0].Name)

	_, err = s.Query(ctx, "SELECT * FROM w WHERE k = 1", &query.Params{PageSize: 2, PagingState: []byte{1, 2, 3, 4, 5, 6, 7}})
	require.Error(t, err)
	assert.ErrorIs(t, err, query.ErrInvalid)
	assert.Equal(t, "Invalid value for the paging state", err.Error())
}

func BenchmarkSelectCompile(b *testing.B) {
	s := setupWide(b, 1)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := s.Prepare(ctx, "SELECT c, v FROM w WHERE k = ? AND c > ? AND c <= ? ORDER BY c DESC LIMIT ?"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelectPoint(b *testing.B) {
	s := setupWide(b, 100)
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT v FROM w WHERE k = ? AND c = ?")
	require.NoError(b, err)
	params := &query.Params{Values: []query.Value{intValue(1), intValue(42)}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.ExecutePrepared(ctx, p, params)
		if err != nil || len(res.Rows) != 1 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelectLatest10(b *testing.B) {
	s := setupWide(b, 10000)
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT c, v FROM w WHERE k = ? ORDER BY c DESC LIMIT 10")
	require.NoError(b, err)
	params := &query.Params{Values: []query.Value{intValue(1)}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.ExecutePrepared(ctx, p, params)
		if err != nil || len(res.Rows) != 10 {
			b.Fatal(err)
		}
	}
}
