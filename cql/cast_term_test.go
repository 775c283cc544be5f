package cql

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
)

// TestCastInTerms checks CAST used as a term (CASSANDRA-14337, in 4.1), as
// CastFctsTest's testCastsInInsertIntoValues, testCastsInUpdateValues and
// testCastsIn*WhereClause use it, without their Java UDFs: a literal is
// cast from its preferred type, a type-hinted marker from the hint's, and a
// bare marker, which fits every cast function, is ambiguous.
func TestCastInTerms(t *testing.T) {
	ctx := context.Background()
	s := newSelectTestSession(t)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err)
	}
	v := func() int32 {
		res, err := s.Query(ctx, "SELECT v FROM ks.t WHERE k = 1", nil)
		require.NoError(t, err)
		require.Len(t, res.Rows, 1)
		got, err := types.Decode(types.IntType, res.Rows[0][0])
		require.NoError(t, err)
		return got.(int32)
	}
	exec := func(q string, vals ...[]byte) error {
		prep, err := s.Prepare(ctx, q)
		if err != nil {
			return err
		}
		p := &query.Params{}
		for _, b := range vals {
			p.Values = append(p.Values, query.Value{Bytes: b})
		}
		_, err = s.ExecutePrepared(ctx, prep, p)
		return err
	}
	float34 := func() []byte {
		b := make([]byte, 4)
		u := math.Float32bits(3.4)
		b[0], b[1], b[2], b[3] = byte(u>>24), byte(u>>16), byte(u>>8), byte(u)
		return b
	}()

	require.NoError(t, exec("INSERT INTO ks.t (k, v) VALUES (1, CAST(1.3 AS int))"))
	assert.Equal(t, int32(1), v())
	require.NoError(t, exec("INSERT INTO ks.t (k, v) VALUES (1, CAST(CAST(CAST(2.3 AS int) AS float) AS int))"))
	assert.Equal(t, int32(2), v())
	require.NoError(t, exec("INSERT INTO ks.t (k, v) VALUES (1, CAST((float) ? AS int))", float34))
	assert.Equal(t, int32(3), v())
	err := exec("INSERT INTO ks.t (k, v) VALUES (1, CAST(? AS int))", float34)
	require.Error(t, err)
	assert.Contains(t, query.AsError(err).Message, "Ambiguous call to function system.castAsInt")
	require.NoError(t, exec("INSERT INTO ks.t (k, v) VALUES (1, (int) CAST(4.9 AS int))"))
	assert.Equal(t, int32(4), v())
	require.NoError(t, exec("UPDATE ks.t SET v = CAST(5.5 AS int) WHERE k = CAST(1.3 AS int)"))
	assert.Equal(t, int32(5), v())
	res, err := s.Query(ctx, "SELECT k FROM ks.t WHERE k = CAST(1.3 AS int)", nil)
	require.NoError(t, err)
	assert.Len(t, res.Rows, 1)
	err = exec("INSERT INTO ks.t (k, v) VALUES (1, CAST(1.3 AS bigint))")
	require.Error(t, err)
	assert.Equal(t, "Type error: cannot assign result of function system.castAsBigint (type bigint) to v (type int)", query.AsError(err).Message)
	require.NoError(t, exec("DELETE FROM ks.t WHERE k = CAST(1.3 AS int)"))
	res, err = s.Query(ctx, "SELECT k FROM ks.t", nil)
	require.NoError(t, err)
	assert.Empty(t, res.Rows)
}
