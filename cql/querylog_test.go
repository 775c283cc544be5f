package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// TestQueryLog: every request of every kind is in the log, in order, with
// its parameters, decoded values, warnings and error; nothing is logged
// before EnableQueryLog or after DisableQueryLog.
func TestQueryLog(t *testing.T) {
	ctx := context.Background()
	x := newPreparedTestExecutor(t, Options{})
	s := x.NewSession()
	mustQuery(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	require.Nil(t, x.QueryLog())
	log := x.EnableQueryLog(nil)
	mustQuery(t, s, "USE ks")
	mustQuery(t, s, "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))")
	enc := func(v any, ty types.Type) query.Value {
		b, err := types.Encode(ty, v)
		require.NoError(t, err)
		return query.Value{Bytes: b}
	}
	prep, err := s.Prepare(ctx, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)")
	require.NoError(t, err)
	vals := []query.Value{enc(1, types.IntType), enc(2, types.IntType), enc("x", types.TextType)}
	_, err = s.ExecutePrepared(ctx, prep, &query.Params{Values: vals, Consistency: wire.LocalQuorum,
		SerialConsistency: wire.LocalSerial, Timestamp: 1234, HasTimestamp: true})
	require.NoError(t, err)
	vals[2].Bytes[0] = 'y' // the log holds a copy
	_, err = s.Query(ctx, "SELECT v FROM t WHERE k = ?", &query.Params{Values: []query.Value{enc(1, types.IntType)}, PageSize: 10, Consistency: wire.One})
	require.NoError(t, err)
	_, err = s.Query(ctx, "SELECT * FROM nowhere", nil)
	require.Error(t, err)
	bres, err := s.Batch(ctx, parser.BatchUnlogged, []BatchEntry{{Prepared: prep, Values: []query.Value{enc(5, types.IntType), enc(1, types.IntType), enc("a", types.TextType)}},
		{Query: "INSERT INTO t (k, c, v) VALUES (6, 1, ?)", Values: []query.Value{enc("b", types.TextType)}}}, &query.Params{Consistency: wire.Quorum})
	require.NoError(t, err)
	x.DisableQueryLog()
	mustQuery(t, s, "SELECT * FROM t")

	es := log.Entries()
	require.Len(t, es, 6)
	kinds := []string{}
	for i, e := range es {
		require.Equal(t, uint64(i+1), e.Seq)
		require.Equal(t, SourceClient, e.Source)
		kinds = append(kinds, e.Kind())
	}
	require.Equal(t, []string{"USE", "CREATE TABLE", "INSERT", "SELECT", "SELECT", "BATCH"}, kinds)
	require.Equal(t, "", es[0].Keyspace)
	ins := es[2]
	require.Equal(t, "ks", ins.Keyspace)
	require.True(t, ins.Prepared)
	require.True(t, ins.IsWrite())
	require.Equal(t, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", ins.Query)
	require.Equal(t, []any{int32(1), int32(2), "x"}, ins.DecodedValues())
	require.Equal(t, wire.LocalQuorum, ins.Consistency)
	require.Equal(t, wire.LocalSerial, ins.SerialConsistency)
	require.Equal(t, int64(1234), ins.Timestamp)
	require.True(t, ins.HasTimestamp)
	sel := es[3]
	require.False(t, sel.Prepared)
	require.False(t, sel.IsWrite())
	require.Equal(t, 10, sel.PageSize)
	require.Equal(t, []any{int32(1)}, sel.DecodedValues())
	require.Nil(t, sel.Err)
	require.NotNil(t, es[4].Err)
	require.Equal(t, wire.CodeInvalid, es[4].Err.Code)
	b := es[5]
	require.Equal(t, parser.BatchUnlogged, b.BatchType)
	require.Len(t, b.Batch, 2)
	require.True(t, b.Batch[0].Prepared)
	require.Equal(t, []any{int32(5), int32(1), "a"}, b.Batch[0].DecodedValues())
	require.Equal(t, "INSERT INTO t (k, c, v) VALUES (6, 1, ?)", b.Batch[1].Query)
	require.Equal(t, []any{"b"}, b.Batch[1].DecodedValues())
	require.Equal(t, bres.Warnings, b.Warnings)
	require.Equal(t, wire.Quorum, b.Consistency)

	log.Clear()
	require.Equal(t, 0, log.Len())
}

// TestQueryLogLimit keeps the newest entries.
func TestQueryLogLimit(t *testing.T) {
	x := newPreparedTestExecutor(t, Options{})
	log := x.EnableQueryLog(NewQueryLog(3))
	s := x.NewSession()
	for _, q := range []string{"SELECT * FROM system.local", "USE system", "SELECT * FROM local", "SELECT * FROM peers"} {
		mustQuery(t, s, q)
	}
	es := log.Entries()
	require.Len(t, es, 3)
	require.Equal(t, "USE system", es[0].Query)
	require.Equal(t, 1, log.Dropped())
}

// BenchmarkPreparedInsertLog measures a prepared INSERT through the
// executor with the query log off and on (benchstat: log=off vs log=on).
func BenchmarkPreparedInsertLog(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "log=off"
		if on {
			name = "log=on"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			eng, x := benchExecutor(b)
			defer eng.Close()
			s := x.NewSession()
			for _, q := range []string{"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))"} {
				if _, err := s.Query(ctx, q, nil); err != nil {
					b.Fatal(err)
				}
			}
			prep, err := s.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
			if err != nil {
				b.Fatal(err)
			}
			if on {
				// A limit keeps the log's memory flat over b.N.
				x.EnableQueryLog(NewQueryLog(10_000))
			}
			v, _ := types.Encode(types.TextType, "value")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k, _ := types.Encode(types.IntType, i/100)
				c, _ := types.Encode(types.IntType, i%100)
				p := &query.Params{Values: []query.Value{{Bytes: k}, {Bytes: c}, {Bytes: v}}, Consistency: wire.LocalQuorum}
				if _, err := s.ExecutePrepared(ctx, prep, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchExecutor(b *testing.B) (*engine.Engine, *Executor) {
	eng, err := engine.Open(engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return eng, NewExecutor(eng, Options{})
}
