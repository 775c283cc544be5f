package cql

import (
	"context"
	"errors"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUsingEmptyValues checks that an empty value bound to USING TIMESTAMP
// (a driver may send one) is refused with an Invalid error and writes
// nothing, and that an empty USING TTL means no TTL, as a null one does
// (Attributes.getTimeToLive since CASSANDRA-17822).
func TestUsingEmptyValues(t *testing.T) {
	ctx := context.Background()
	s := newSelectTestSession(t)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err)
	}
	for _, q := range []string{
		"INSERT INTO ks.t (k, v) VALUES (1, 1) USING TIMESTAMP ?",
		"BEGIN BATCH USING TIMESTAMP ? INSERT INTO ks.t (k, v) VALUES (1, 1); APPLY BATCH",
	} {
		p, err := s.Prepare(ctx, q)
		require.NoError(t, err, q)
		_, err = s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{{Bytes: []byte{}}}})
		require.Error(t, err, q)
		assert.True(t, errors.Is(err, query.ErrInvalid), "%s: %v", q, err)
	}
	res, err := s.Query(ctx, "SELECT * FROM ks.t", nil)
	require.NoError(t, err)
	assert.Empty(t, res.Rows)

	p, err := s.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (1, 1) USING TTL ?")
	require.NoError(t, err)
	_, err = s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{{Bytes: []byte{}}}})
	require.NoError(t, err)
	res, err = s.Query(ctx, "SELECT k, ttl(v) FROM ks.t", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	assert.Nil(t, res.Rows[0][1], "an empty TTL writes without a TTL")
}
