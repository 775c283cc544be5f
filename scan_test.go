package minicass

import (
	"context"
	"math"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func enc(t *testing.T, typ string, v any) (types.Type, []byte) {
	t.Helper()
	ty := types.MustParseType(typ)
	b, err := types.Encode(ty, v)
	require.NoError(t, err)
	return ty, b
}

func TestScanScalars(t *testing.T) {
	ty, b := enc(t, "int", 42)
	var i int
	var i8 int8
	var i64 int64
	var u uint16
	var f float64
	var bi big.Int
	require.NoError(t, scanValue(&i, ty, b))
	require.NoError(t, scanValue(&i8, ty, b))
	require.NoError(t, scanValue(&i64, ty, b))
	require.NoError(t, scanValue(&u, ty, b))
	require.NoError(t, scanValue(&f, ty, b))
	require.NoError(t, scanValue(&bi, ty, b))
	assert.Equal(t, 42, i)
	assert.Equal(t, int8(42), i8)
	assert.Equal(t, int64(42), i64)
	assert.Equal(t, uint16(42), u)
	assert.Equal(t, 42.0, f)
	assert.Equal(t, "42", bi.String())

	ty, b = enc(t, "bigint", int64(1)<<40)
	err := scanValue(&i8, ty, b)
	assert.ErrorIs(t, err, ErrScan)
	assert.Contains(t, err.Error(), "overflows int8")
	ty, b = enc(t, "int", -1)
	assert.ErrorIs(t, scanValue(&u, ty, b), ErrScan)

	var s string
	ty, b = enc(t, "text", "héllo")
	require.NoError(t, scanValue(&s, ty, b))
	assert.Equal(t, "héllo", s)
	assert.ErrorIs(t, scanValue(&i, ty, b), ErrScan, "text into *int")

	var ok bool
	ty, b = enc(t, "boolean", true)
	require.NoError(t, scanValue(&ok, ty, b))
	assert.True(t, ok)

	var f32 float32
	ty, b = enc(t, "float", 1.5)
	require.NoError(t, scanValue(&f32, ty, b))
	assert.Equal(t, float32(1.5), f32)
	ty, b = enc(t, "double", 2.25)
	require.NoError(t, scanValue(&f, ty, b))
	assert.Equal(t, 2.25, f)
	assert.ErrorIs(t, scanValue(&f32, ty, b), ErrScan, "double into *float32 loses precision")

	ts := time.Date(2024, 1, 15, 10, 30, 0, 123e6, time.UTC)
	var tm time.Time
	ty, b = enc(t, "timestamp", ts)
	require.NoError(t, scanValue(&tm, ty, b))
	assert.True(t, ts.Equal(tm))
	require.NoError(t, scanValue(&i64, ty, b))
	assert.Equal(t, ts.UnixMilli(), i64)

	ty, b = enc(t, "date", "2024-01-15")
	require.NoError(t, scanValue(&tm, ty, b))
	assert.Equal(t, time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC), tm)
	require.NoError(t, scanValue(&s, ty, b))
	assert.Equal(t, "2024-01-15", s)

	var d time.Duration
	ty, b = enc(t, "time", "10:30:00")
	require.NoError(t, scanValue(&d, ty, b))
	assert.Equal(t, 10*time.Hour+30*time.Minute, d)

	u1, err := types.ParseUUID("550e8400-e29b-41d4-a716-446655440000")
	require.NoError(t, err)
	var uv types.UUIDValue
	var arr [16]byte
	ty, b = enc(t, "uuid", u1)
	require.NoError(t, scanValue(&uv, ty, b))
	require.NoError(t, scanValue(&arr, ty, b))
	require.NoError(t, scanValue(&s, ty, b))
	assert.Equal(t, u1, uv)
	assert.Equal(t, [16]byte(u1), arr)
	assert.Equal(t, "550e8400-e29b-41d4-a716-446655440000", s)

	var ip net.IP
	ty, b = enc(t, "inet", "10.0.0.1")
	require.NoError(t, scanValue(&ip, ty, b))
	assert.Equal(t, "10.0.0.1", ip.String())

	var blob []byte
	ty, b = enc(t, "blob", []byte{1, 2})
	require.NoError(t, scanValue(&blob, ty, b))
	assert.Equal(t, []byte{1, 2}, blob)
	b[0] = 9
	assert.Equal(t, byte(1), blob[0], "Scan copies blobs")

	ty, b = enc(t, "varint", "123456789012345678901234567890")
	require.NoError(t, scanValue(&bi, ty, b))
	assert.Equal(t, "123456789012345678901234567890", bi.String())
	assert.ErrorIs(t, scanValue(&i64, ty, b), ErrScan)

	var dec types.DecimalValue
	ty, b = enc(t, "decimal", "12.345")
	require.NoError(t, scanValue(&dec, ty, b))
	assert.Equal(t, "12.345", dec.String())

	err = scanValue(&i, types.MustParseType("int"), []byte{1, 2})
	assert.ErrorIs(t, err, ErrScan, "invalid bytes")
	assert.ErrorIs(t, err, types.ErrInvalidValue)
}

func TestScanNullAndPointers(t *testing.T) {
	ty := types.MustParseType("int")
	i := 7
	require.NoError(t, scanValue(&i, ty, nil))
	assert.Equal(t, 0, i, "null scans as the zero value")
	p := &i
	require.NoError(t, scanValue(&p, ty, nil))
	assert.Nil(t, p, "null into **int gives nil")
	_, b := enc(t, "int", 5)
	require.NoError(t, scanValue(&p, ty, b))
	require.NotNil(t, p)
	assert.Equal(t, 5, *p)
	require.NoError(t, scanValue(&i, ty, []byte{}), "the empty value scans as zero")
	assert.Equal(t, 0, i)

	var a any
	require.NoError(t, scanValue(&a, ty, b))
	assert.Equal(t, int32(5), a)
	require.NoError(t, scanValue(&a, ty, nil))
	assert.Nil(t, a)

	assert.ErrorIs(t, scanValue(i, ty, b), ErrScan, "non-pointer destination")
	var np *int
	assert.ErrorIs(t, scanValue(np, ty, b), ErrScan, "nil pointer destination")
}

func TestScanCollections(t *testing.T) {
	ty, b := enc(t, "list<int>", []int{3, 1, 2})
	var li []int64
	require.NoError(t, scanValue(&li, ty, b))
	assert.Equal(t, []int64{3, 1, 2}, li)

	ty, b = enc(t, "set<text>", []string{"b", "a"})
	var ss []string
	require.NoError(t, scanValue(&ss, ty, b))
	assert.Equal(t, []string{"a", "b"}, ss, "sets come back sorted")
	var sm map[string]bool
	require.NoError(t, scanValue(&sm, ty, b))
	assert.Equal(t, map[string]bool{"a": true, "b": true}, sm)

	ty, b = enc(t, "map<text, int>", map[string]int{"x": 1, "y": 2})
	var m map[string]int
	require.NoError(t, scanValue(&m, ty, b))
	assert.Equal(t, map[string]int{"x": 1, "y": 2}, m)
	var entries []types.MapEntry
	require.NoError(t, scanValue(&entries, ty, b))
	assert.Len(t, entries, 2)
	var bad map[int]int
	assert.ErrorIs(t, scanValue(&bad, ty, b), ErrScan)

	ty, b = enc(t, "tuple<int, text>", []any{1, "a"})
	var tup []any
	require.NoError(t, scanValue(&tup, ty, b))
	assert.Equal(t, []any{int32(1), "a"}, tup)

	ty, b = enc(t, "frozen<list<frozen<map<int, text>>>>", []map[int]string{{1: "a"}, {2: "b"}})
	var nested []map[int]string
	require.NoError(t, scanValue(&nested, ty, b))
	assert.Equal(t, []map[int]string{{1: "a"}, {2: "b"}}, nested)
}

type upper string

func (u *upper) UnmarshalCQL(t types.Type, b []byte) error {
	*u = upper("<" + string(b) + ">")
	return nil
}

func TestScanUnmarshaler(t *testing.T) {
	ty, b := enc(t, "text", "hi")
	var u upper
	require.NoError(t, scanValue(&u, ty, b))
	assert.Equal(t, upper("<hi>"), u)
	ty, b = enc(t, "list<text>", []string{"a"})
	var us []upper
	require.NoError(t, scanValue(&us, ty, b))
	assert.Equal(t, []upper{"<a>"}, us, "elements use the Unmarshaler too")
}

func TestRowHelpers(t *testing.T) {
	ty1, b1 := enc(t, "int", 1)
	ty2, b2 := enc(t, "text", "a")
	r := Row{cols: []Column{{Name: "k", Type: ty1}, {Name: "v", Type: ty2}, {Name: "n", Type: ty2}}, vals: [][]byte{b1, b2, nil}}
	assert.Equal(t, int32(1), r.Get(0))
	assert.Equal(t, map[string]any{"k": int32(1), "v": "a", "n": nil}, r.Map())
	v, ok := r.Value("v")
	assert.True(t, ok)
	assert.Equal(t, "a", v)
	_, ok = r.Value("zz")
	assert.False(t, ok)
	assert.Equal(t, "k=1 v='a' n=null", r.String())
	var k int
	var s string
	var n *string
	require.NoError(t, r.Scan(&k, &s, &n))
	assert.Nil(t, n)
	assert.ErrorIs(t, r.Scan(&k), ErrScan, "wrong number of destinations")

	rows := &Rows{res: &cql.Result{Kind: wire.ResultRows, Columns: r.cols, Rows: [][][]byte{r.vals, r.vals}}}
	assert.ErrorIs(t, rows.Scan(&k, &s, &n), ErrScan, "Scan before Next")
	var got []Row
	for row, err := range rows.All() {
		require.NoError(t, err)
		got = append(got, row)
	}
	assert.Len(t, got, 2)
	assert.False(t, rows.Next())
	require.NoError(t, rows.Close())

	empty := &Rows{res: &cql.Result{Kind: wire.ResultRows, Columns: r.cols}}
	assert.ErrorIs(t, empty.ScanOne(&k, &s, &n), ErrNoRows)
	failed := errRows(ErrClosed)
	assert.ErrorIs(t, failed.ScanOne(&k), ErrClosed)
	for _, err := range failed.All() {
		assert.ErrorIs(t, err, ErrClosed)
	}
}

func TestBindArgs(t *testing.T) {
	specs := []cql.ColumnSpec{
		{Name: "k", Type: types.MustParseType("int")},
		{Name: "v", Type: types.MustParseType("text")},
	}
	p := &cql.Params{}
	v := "x"
	require.NoError(t, bindArgs(p, specs, []any{1, &v}))
	assert.Equal(t, []byte{0, 0, 0, 1}, p.Values[0].Bytes)
	assert.Equal(t, []byte("x"), p.Values[1].Bytes)

	p = &cql.Params{}
	var nilp *string
	require.NoError(t, bindArgs(p, specs, []any{1, nilp}))
	assert.Nil(t, p.Values[1].Bytes, "nil pointer binds null")
	assert.False(t, p.Values[1].Unset)

	p = &cql.Params{}
	require.NoError(t, bindArgs(p, specs, []any{1, Unset}))
	assert.True(t, p.Values[1].Unset)

	p = &cql.Params{}
	require.NoError(t, bindArgs(p, specs, []any{Named("V", "y"), Named("k", 2)}))
	assert.Equal(t, []string{"v", "k"}, p.Names)
	assert.Equal(t, []byte("y"), p.Values[0].Bytes)

	err := bindArgs(&cql.Params{}, specs, []any{1})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "There were 2 markers(?) in CQL but 1 bound variables")
	err = bindArgs(&cql.Params{}, specs, []any{"notanint", "x"})
	assert.ErrorIs(t, err, ErrArgument)
	assert.ErrorIs(t, err, types.ErrInvalidLiteral)
	assert.ErrorIs(t, bindArgs(&cql.Params{}, specs, []any{Named("k", 1), 2}), ErrArgument)
	assert.ErrorIs(t, bindArgs(&cql.Params{}, specs, []any{Named("zz", 1)}), ErrInvalid)
}

func TestSplitArgs(t *testing.T) {
	p, vals := splitArgs([]any{1, PageSize(10), "a", PagingState([]byte{7}), WithTimestamp(99), Tracing()})
	assert.Equal(t, []any{1, "a"}, vals)
	assert.Equal(t, 10, p.PageSize)
	assert.Equal(t, []byte{7}, p.PagingState)
	assert.True(t, p.HasTimestamp)
	assert.Equal(t, int64(99), p.Timestamp)
	assert.True(t, p.Trace)
}

func BenchmarkScanRow(b *testing.B) {
	cols := []Column{{Name: "k", Type: types.MustParseType("int")}, {Name: "v", Type: types.MustParseType("text")}, {Name: "ts", Type: types.MustParseType("timestamp")}}
	row := [][]byte{{0, 0, 0, 1}, []byte("hello"), {0, 0, 1, 0, 0, 0, 0, 0}}
	var k int
	var v string
	var ts time.Time
	b.ReportAllocs()
	for b.Loop() {
		if err := scanRow(cols, row, []any{&k, &v, &ts}, nil, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBindArgs(b *testing.B) {
	specs := []cql.ColumnSpec{{Name: "k", Type: types.MustParseType("int")}, {Name: "v", Type: types.MustParseType("text")}}
	b.ReportAllocs()
	for b.Loop() {
		if err := bindArgs(&cql.Params{}, specs, []any{1, "hello"}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEncodeScanRoundTrip is a property test: a Go value bound as an
// argument and scanned back into the same Go type is unchanged. rapid prints
// the seed of a failing run.
func TestEncodeScanRoundTrip(t *testing.T) {
	spec := func(typ string) cql.ColumnSpec { return cql.ColumnSpec{Name: "x", Type: types.MustParseType(typ)} }
	roundTrip := func(t *rapid.T, typ string, in, out any) {
		v, err := encodeArg(spec(typ), in)
		if err != nil {
			t.Fatalf("encode %v as %s: %v", in, typ, err)
		}
		if err := scanValue(out, spec(typ).Type, v.Bytes); err != nil {
			t.Fatalf("scan %s: %v", typ, err)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.Int32().Draw(t, "int")
		var gi int32
		roundTrip(t, "int", i, &gi)
		assert.Equal(t, i, gi)

		n := rapid.Int64().Draw(t, "bigint")
		var gn int64
		roundTrip(t, "bigint", n, &gn)
		assert.Equal(t, n, gn)

		s := rapid.String().Draw(t, "text")
		var gs string
		roundTrip(t, "text", s, &gs)
		assert.Equal(t, s, gs)

		f := rapid.Float64().Draw(t, "double")
		var gf float64
		roundTrip(t, "double", f, &gf)
		assert.Equal(t, math.Float64bits(f), math.Float64bits(gf))

		l := rapid.SliceOf(rapid.Int16()).Draw(t, "list")
		var gl []int16
		roundTrip(t, "list<smallint>", l, &gl)
		if len(l) == 0 {
			assert.Empty(t, gl)
		} else {
			assert.Equal(t, l, gl)
		}

		m := rapid.MapOf(rapid.String(), rapid.Int64()).Draw(t, "map")
		var gm map[string]int64
		roundTrip(t, "map<text, bigint>", m, &gm)
		if len(m) == 0 {
			assert.Empty(t, gm)
		} else {
			assert.Equal(t, m, gm)
		}

		ms := rapid.Int64Range(-1<<50, 1<<50).Draw(t, "timestamp")
		var gt time.Time
		roundTrip(t, "timestamp", time.UnixMilli(ms), &gt)
		assert.Equal(t, ms, gt.UnixMilli())

		var u types.UUIDValue
		copy(u[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "uuid"))
		var gu types.UUIDValue
		roundTrip(t, "uuid", u, &gu)
		assert.Equal(t, u, gu)
	})
}

// TestScanHugeDecimalIntoFloat: a decimal with a huge exponent scans into a
// float64 as BigDecimal.doubleValue gives it (±Inf, or 0), at once.
func TestScanHugeDecimalIntoFloat(t *testing.T) {
	db, err := Open(Options{})
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	require.NoError(t, db.Exec(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	require.NoError(t, db.Exec(ctx, "CREATE TABLE ks.d (k int PRIMARY KEY, v decimal)"))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.d (k, v) VALUES (1, 1e999999999)"))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.d (k, v) VALUES (2, -2.5e-999999999)"))
	require.NoError(t, db.Exec(ctx, "INSERT INTO ks.d (k, v) VALUES (3, 12.5)"))
	for k, want := range map[int]float64{1: math.Inf(1), 2: 0, 3: 12.5} {
		var f float64
		require.NoError(t, db.Query(ctx, "SELECT v FROM ks.d WHERE k = ?", k).ScanOne(&f))
		assert.True(t, want == f, "k=%d: got %v, want %v", k, f, want)
	}
}

// TestCopyBlobArena checks that blob copies carved from a Rows' arena behave
// as separately allocated slices: null stays nil, empty stays empty and
// non-nil, appending to one copy leaves the next one intact, and a large
// value is copied on its own.
func TestCopyBlobArena(t *testing.T) {
	var arena []byte
	require.Nil(t, copyBlob(&arena, nil, 4))
	empty := copyBlob(&arena, []byte{}, 4)
	require.NotNil(t, empty)
	require.Empty(t, empty)
	src := []byte("abc")
	a := copyBlob(&arena, src, 4)
	b := copyBlob(&arena, []byte("xyz"), 3)
	src[0] = 'z'
	require.Equal(t, []byte("abc"), a)
	require.Equal(t, len(a), cap(a))
	a = append(a, '!')
	require.Equal(t, []byte("abc!"), a)
	require.Equal(t, []byte("xyz"), b)
	big := make([]byte, blobArenaBlock)
	before := len(arena)
	c := copyBlob(&arena, big, 1)
	require.Len(t, c, blobArenaBlock)
	require.Equal(t, before, len(arena))
}
