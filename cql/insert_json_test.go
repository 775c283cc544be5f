package cql

import (
	"context"
	"errors"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInsertJSONBind covers INSERT JSON ? (the form drivers use): the bind
// marker is named [json] and typed text, each execution decodes its own
// value, a null value is refused, and a prepared statement in a BATCH
// takes each entry's object.
func TestInsertJSONBind(t *testing.T) {
	ctx := context.Background()
	s := newSelectTestSession(t)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err)
	}
	p, err := s.Prepare(ctx, "INSERT INTO ks.t JSON ? DEFAULT UNSET")
	require.NoError(t, err)
	require.Len(t, p.Bind, 1)
	assert.Equal(t, "[json]", p.Bind[0].Name)
	assert.Equal(t, "text", p.Bind[0].Type.String())
	assert.Empty(t, p.PKIndexes, "no partition key marker to route by")

	for _, doc := range []string{`{"k": 1, "c": 1, "v": "a"}`, `{"k": 1, "c": 2, "v": "b"}`, `{"k": 1, "c": 1}`} {
		_, err := s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{{Bytes: []byte(doc)}}})
		require.NoError(t, err, doc)
	}
	_, err = s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{{}}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, query.ErrInvalid))
	assert.Equal(t, "Got null for INSERT JSON values", query.AsError(err).Message)
	_, err = s.ExecutePrepared(ctx, p, &query.Params{Values: []query.Value{{Bytes: []byte(`{"k": 1, "c": 3, "v": 5}`)}}})
	require.Error(t, err)
	assert.Equal(t, "Error decoding JSON value for v: Expected a UTF-8 string, but got a Integer: 5", query.AsError(err).Message)

	_, err = s.Query(ctx, "BEGIN BATCH INSERT INTO ks.t JSON ?; INSERT INTO ks.t JSON ?; APPLY BATCH",
		&query.Params{Values: []query.Value{{Bytes: []byte(`{"k": 2, "c": 1, "v": "x"}`)}, {Bytes: []byte(`{"k": 2, "c": 2, "v": "y"}`)}}})
	require.NoError(t, err)

	res, err := s.Query(ctx, "SELECT JSON k, c, v FROM ks.t", nil)
	require.NoError(t, err)
	var got []string
	for _, r := range res.Rows {
		got = append(got, string(r[0]))
	}
	assert.Equal(t, []string{
		`{"k": 1, "c": 1, "v": "a"}`, // DEFAULT UNSET kept v
		`{"k": 1, "c": 2, "v": "b"}`,
		`{"k": 2, "c": 1, "v": "x"}`,
		`{"k": 2, "c": 2, "v": "y"}`,
	}, got)
}
