package minicass

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestBindArgsFastMatchesEncode is a property test: the values bindArgs
// encodes into one shared buffer are those encodeArg (types.Encode) gives,
// and a value it cannot encode fails with encodeArg's error. rapid prints
// the seed of a failing run.
func TestBindArgsFastMatchesEncode(t *testing.T) {
	typeNames := []string{"int", "bigint", "smallint", "tinyint", "counter", "blob", "text", "ascii", "boolean", "double", "timestamp", "float", "uuid"}
	goValue := rapid.OneOf(
		rapid.Map(rapid.Int64(), func(n int64) any { return n }),
		rapid.Map(rapid.Int(), func(n int) any { return n }),
		rapid.Map(rapid.Int32(), func(n int32) any { return n }),
		rapid.Map(rapid.Int16(), func(n int16) any { return n }),
		rapid.Map(rapid.Int8(), func(n int8) any { return n }),
		rapid.Map(rapid.Uint64(), func(n uint64) any { return n }),
		rapid.Map(rapid.Uint(), func(n uint) any { return n }),
		rapid.Map(rapid.Byte(), func(n byte) any { return n }),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 12), func(b []byte) any { return b }),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 8), func(b []byte) any { return string(b) }), // often invalid UTF-8
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.Int64Range(-1<<40, 1<<40), func(ms int64) any { return time.UnixMilli(ms) }),
		rapid.Just[any](nil),
		rapid.Just[any](Unset),
		rapid.Map(rapid.Int(), func(n int) any { return &n }),
	)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(rt, "n")
		specs := make([]cql.ColumnSpec, n)
		values := make([]any, n)
		for i := range specs {
			specs[i] = cql.ColumnSpec{Name: "x", Type: types.MustParseType(rapid.SampledFrom(typeNames).Draw(rt, "type"))}
			values[i] = goValue.Draw(rt, "value")
		}
		p, vals := splitArgs(values)
		err := bindArgs(p, specs, vals)
		wants := make([]cql.Value, n)
		for i := range specs {
			want, wantErr := encodeArg(specs[i], values[i])
			if wantErr != nil {
				require.Error(rt, err)
				assert.Equal(rt, wantErr.Error(), err.Error())
				return
			}
			wants[i] = want
		}
		require.NoError(rt, err)
		for i, want := range wants {
			got := p.Values[i]
			assert.Equal(rt, want.Unset, got.Unset)
			assert.Equal(rt, want.Bytes == nil, got.Bytes == nil, "null vs empty of %T for %s", values[i], specs[i].Type)
			assert.Equal(rt, want.Bytes, got.Bytes, "%T for %s", values[i], specs[i].Type)
		}
	})
}

// TestBindArgsSharedBuffer checks that values encoded together never share
// bytes: appending to one does not change another.
func TestBindArgsSharedBuffer(t *testing.T) {
	specs := []cql.ColumnSpec{{Name: "k", Type: types.BigintType}, {Name: "v", Type: types.BlobType}, {Name: "w", Type: types.IntType}}
	p, vals := splitArgs([]any{int64(1), []byte{9, 9}, 7})
	require.NoError(t, bindArgs(p, specs, vals))
	_ = append(p.Values[0].Bytes, 0xFF, 0xFF)
	_ = append(p.Values[1].Bytes, 0xEE)
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 1}, p.Values[0].Bytes)
	assert.Equal(t, []byte{9, 9}, p.Values[1].Bytes)
	assert.Equal(t, []byte{0, 0, 0, 7}, p.Values[2].Bytes)
}

// TestBindArgsCopiesBlob checks that a bound []byte is copied: changing it
// after the statement ran does not change the stored value.
func TestBindArgsCopiesBlob(t *testing.T) {
	db := openTest(t, Options{})
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	require.NoError(t, db.Exec(ctx, `CREATE TABLE ks.b (k bigint, c bigint, v blob, PRIMARY KEY (k, c))`))
	st, err := db.Prepare(ctx, "INSERT INTO ks.b (k, c, v) VALUES (?, ?, ?)")
	require.NoError(t, err)
	v := []byte{1, 2, 3}
	require.NoError(t, st.Exec(ctx, int64(5), int64(6), v))
	v[0] = 99
	var got []byte
	require.NoError(t, db.Query(ctx, "SELECT v FROM ks.b WHERE k = 5 AND c = 6").ScanOne(&got))
	assert.Equal(t, []byte{1, 2, 3}, got)
}

// TestBindArgsIntBounds checks bindArgs against encodeArg at the bounds of
// every integer type, for Go int, int64 and int32 values: the values a
// fast path sizes by kind (fastLen) and those just past its range, which
// must fail with encodeArg's error. The random property test seldom draws
// these.
func TestBindArgsIntBounds(t *testing.T) {
	var ns []int64
	for _, b := range []int64{math.MinInt8, math.MaxInt8, math.MinInt16, math.MaxInt16, math.MinInt32, math.MaxInt32} {
		ns = append(ns, b-1, b, b+1)
	}
	ns = append(ns, math.MinInt64, math.MaxInt64, 0)
	for _, typ := range []string{"tinyint", "smallint", "int", "bigint", "counter"} {
		spec := cql.ColumnSpec{Name: "x", Type: types.MustParseType(typ)}
		for _, n := range ns {
			for _, v := range []any{int(n), n, int32(n)} {
				if x, ok := v.(int32); ok && int64(x) != n {
					continue
				}
				want, wantErr := encodeArg(spec, v)
				p := &cql.Params{}
				err := bindArgsIn(p, []cql.ColumnSpec{spec}, []any{v}, make([]byte, 0, 16))
				if wantErr != nil {
					require.Error(t, err, "%T %d as %s", v, n, typ)
					assert.Equal(t, wantErr.Error(), err.Error())
					continue
				}
				require.NoError(t, err, "%T %d as %s", v, n, typ)
				assert.Equal(t, want.Bytes, p.Values[0].Bytes, "%T %d as %s", v, n, typ)
			}
		}
	}
}
