package cql

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSelectionBindMarkers binds values into the selection clause, as
// Cassandra 4 allows with a type cast: the value is selected, or used as an
// operand; without a cast an operation on a marker is ambiguous.
func TestSelectionBindMarkers(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
		"CREATE TABLE t (k int PRIMARY KEY, a int)",
		"INSERT INTO t (k, a) VALUES (1, 40)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	two := query.Value{Bytes: binary.BigEndian.AppendUint32(nil, 2)}
	prep, err := s.Prepare(ctx, "SELECT (int)? + a, (text)?, a FROM t WHERE k = ?")
	require.NoError(t, err)
	require.Len(t, prep.Bind, 3)
	assert.Equal(t, "int", prep.Bind[0].Type.String())
	assert.Equal(t, "text", prep.Bind[1].Type.String())
	res, err := s.ExecutePrepared(ctx, prep, &query.Params{Values: []query.Value{two, {Bytes: []byte("hi")}, {Bytes: binary.BigEndian.AppendUint32(nil, 1)}}})
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, []string{"(int)? + a", "(text)?", "a"}, []string{res.Columns[0].Name, res.Columns[1].Name, res.Columns[2].Name})
	assert.Equal(t, binary.BigEndian.AppendUint32(nil, 42), res.Rows[0][0])
	assert.Equal(t, []byte("hi"), res.Rows[0][1])

	_, err = s.Query(ctx, "SELECT ? + a FROM t", nil)
	assert.EqualError(t, err, "Ambiguous '+' operation with args ? and a: use type casts to disambiguate")
}
