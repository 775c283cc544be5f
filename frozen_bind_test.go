package minicass

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
)

// TestFrozenCollectionsNormalisedOnBind sends one logical frozen set (and
// map) in several orders, with duplicates, as raw bound values, the way a
// driver whose set iteration order varies (Python's, with PYTHONHASHSEED)
// does: Cassandra sorts and de-duplicates them when it binds them, so they
// are one partition key and WHERE k = {...} finds it.
func TestFrozenCollectionsNormalisedOnBind(t *testing.T) {
	eng, err := engine.Open(engine.Options{})
	require.NoError(t, err)
	defer eng.Close()
	s := cql.NewExecutor(eng, cql.Options{}).NewSession()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.s (k frozen<set<int>> PRIMARY KEY, v int)",
		"CREATE TABLE ks.m (k frozen<map<int, text>> PRIMARY KEY, v int)",
		"CREATE TABLE ks.n (k int, c frozen<list<frozen<set<int>>>>, PRIMARY KEY (k, c))",
	} {
		_, err := s.Query(ctx, q, &cql.Params{})
		require.NoError(t, err, q)
	}
	i := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	set := func(vs ...int32) []byte {
		var elems [][]byte
		for _, v := range vs {
			elems = append(elems, i(v))
		}
		return types.EncodeList(elems)
	}
	bind := func(q string, vals ...[]byte) *cql.Result {
		p := &cql.Params{}
		for _, v := range vals {
			p.Values = append(p.Values, cql.Value{Bytes: v})
		}
		prep, err := s.Prepare(ctx, q)
		require.NoError(t, err, q)
		res, err := s.ExecutePrepared(ctx, prep, p)
		require.NoError(t, err, q)
		return res
	}
	for n, k := range [][]byte{set(1, 2), set(2, 1), set(1, 1, 2), set(2, 1, 2, 1)} {
		bind("INSERT INTO ks.s (k, v) VALUES (?, ?)", k, i(int32(n)))
	}
	res := bind("SELECT k, v FROM ks.s")
	require.Len(t, res.Rows, 1, "one logical set, one partition")
	require.Equal(t, set(1, 2), res.Rows[0][0])
	require.Equal(t, i(3), res.Rows[0][1])
	require.Len(t, bind("SELECT v FROM ks.s WHERE k = ?", set(2, 2, 1)).Rows, 1)
	lit, err := s.Query(ctx, "SELECT v FROM ks.s WHERE k = {2, 1}", &cql.Params{})
	require.NoError(t, err)
	require.Len(t, lit.Rows, 1)

	entries := func(kv ...any) []byte {
		var b []byte
		b = binary.BigEndian.AppendUint32(b, uint32(len(kv)/2))
		for j := 0; j < len(kv); j += 2 {
			b = binary.BigEndian.AppendUint32(b, 4)
			b = append(b, i(int32(kv[j].(int)))...)
			s := kv[j+1].(string)
			b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
		return b
	}
	bind("INSERT INTO ks.m (k, v) VALUES (?, 1)", entries(2, "b", 1, "a"))
	bind("INSERT INTO ks.m (k, v) VALUES (?, 2)", entries(1, "x", 2, "b", 1, "a"))
	res = bind("SELECT k, v FROM ks.m")
	require.Len(t, res.Rows, 1)
	require.Equal(t, entries(1, "a", 2, "b"), res.Rows[0][0], "sorted by key, the last value wins")

	bind("INSERT INTO ks.n (k, c) VALUES (0, ?)", types.EncodeList([][]byte{set(3, 1, 3)}))
	bind("INSERT INTO ks.n (k, c) VALUES (0, [{1, 3}])")
	res = bind("SELECT c FROM ks.n WHERE k = 0")
	require.Len(t, res.Rows, 1, "a nested frozen set is normalised too")
	require.Equal(t, types.EncodeList([][]byte{set(1, 3)}), res.Rows[0][0])
}
