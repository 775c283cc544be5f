package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// TestGroupByFunctionBoundDuration prepares a GROUP BY on floor(time, ?),
// whose duration is bound at each execution (AggregationSpecification's
// factory binds the selector then), and pages through its groups one at a
// time: every page ends on a whole group, so the groups come out as the
// unpaged query gives them. A non-monotonic function is refused at
// execution, as Selector.validateForGroupBy refuses it.
func TestGroupByFunctionBoundDuration(t *testing.T) {
	ctx := context.Background()
	x := newPreparedTestExecutor(t, Options{})
	s := x.NewSession()
	mustQuery(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, s, "CREATE TABLE ks.t (pk int, time timestamp, v int, PRIMARY KEY (pk, time))")
	for _, ins := range []string{
		"INSERT INTO ks.t (pk, time, v) VALUES (1, '2016-09-27 16:10:00+0000', 1)",
		"INSERT INTO ks.t (pk, time, v) VALUES (1, '2016-09-27 16:14:00+0000', 2)",
		"INSERT INTO ks.t (pk, time, v) VALUES (1, '2016-09-27 16:21:00+0000', 3)",
		"INSERT INTO ks.t (pk, time, v) VALUES (2, '2016-09-27 16:22:00+0000', 4)",
	} {
		mustQuery(t, s, ins)
	}
	prep, err := s.Prepare(ctx, "SELECT pk, floor(time, ?), count(v) FROM ks.t GROUP BY pk, floor(time, ?)")
	require.NoError(t, err)
	dur := func(lit string) query.Value {
		d, err := types.ParseDuration(lit)
		require.NoError(t, err)
		b, err := types.Encode(types.DurationType, d)
		require.NoError(t, err)
		return query.Value{Bytes: b}
	}
	rows := func(res *query.Result) []string {
		var out []string
		for _, r := range res.Rows {
			out = append(out, types.Format(types.IntType, r[0])+" | "+types.Format(types.TimestampType, r[1])+" | "+types.Format(types.BigintType, r[2]))
		}
		return out
	}
	five := []query.Value{dur("5m"), dur("5m")}
	want := []string{
		"1 | 2016-09-27 16:10:00.000000+0000 | 2",
		"1 | 2016-09-27 16:20:00.000000+0000 | 1",
		"2 | 2016-09-27 16:20:00.000000+0000 | 1",
	}
	res, err := s.ExecutePrepared(ctx, prep, &query.Params{Values: five})
	require.NoError(t, err)
	require.Equal(t, want, rows(res))

	var paged []string
	p := &query.Params{Values: five, PageSize: 1}
	for {
		res, err := s.ExecutePrepared(ctx, prep, p)
		require.NoError(t, err)
		require.LessOrEqual(t, len(res.Rows), 1)
		paged = append(paged, rows(res)...)
		if res.PagingState == nil {
			break
		}
		p = &query.Params{Values: five, PageSize: 1, PagingState: res.PagingState}
	}
	require.Equal(t, want, paged)

	res, err = s.ExecutePrepared(ctx, prep, &query.Params{Values: []query.Value{dur("1h"), dur("1h")}})
	require.NoError(t, err)
	require.Equal(t, []string{
		"1 | 2016-09-27 16:00:00.000000+0000 | 3",
		"2 | 2016-09-27 16:00:00.000000+0000 | 1",
	}, rows(res))

	bad, err := s.Prepare(ctx, "SELECT count(v) FROM ks.t GROUP BY pk, blobAsTimestamp(timestampAsBlob(time))")
	require.NoError(t, err, "the function is validated at execution")
	_, err = s.ExecutePrepared(ctx, bad, nil)
	requireCode(t, err, wire.CodeInvalid, "Only monotonic functions are supported in the GROUP BY clause. Got: system.blobastimestamp : (blob) -> timestamp ")
}
