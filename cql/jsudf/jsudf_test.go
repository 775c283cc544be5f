package jsudf

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

func call(t *testing.T, params []Param, ret types.Type, body string, args ...any) (any, error) {
	t.Helper()
	f, err := Compile(params, ret, body, Options{Function: "ks.f", Language: "javascript"})
	require.NoError(t, err)
	return f.Call(context.Background(), args)
}

var (
	tInt     = types.Type{Kind: types.Int}
	tDouble  = types.Type{Kind: types.Double}
	tBigint  = types.Type{Kind: types.Bigint}
	tText    = types.Type{Kind: types.Text}
	tDecimal = types.Type{Kind: types.Decimal}
	tVarint  = types.Type{Kind: types.Varint}
	tTiny    = types.Type{Kind: types.Tinyint}
)

func TestNumbers(t *testing.T) {
	out, err := call(t, []Param{{"val", tDouble}}, tDouble, "Math.sin(val);", 1.0)
	require.NoError(t, err)
	require.InDelta(t, 0.8414709848078965, out, 0)

	out, err = call(t, []Param{{"val", tTiny}}, tTiny, "val+1;", int8(1))
	require.NoError(t, err)
	require.Equal(t, int8(2), out)

	out, err = call(t, []Param{{"val", tBigint}}, tBigint, "val;", int64(1)<<60+1)
	require.NoError(t, err, "a Long comes back as it went in")
	require.Equal(t, int64(1)<<60+1, out)

	out, err = call(t, nil, tDecimal, "100;")
	require.NoError(t, err)
	require.Equal(t, "100.0", out.(types.DecimalValue).String(), "a JavaScript number is a Double")

	out, err = call(t, []Param{{"val", tVarint}}, tVarint, "val+1;", big.NewInt(1))
	require.NoError(t, err)
	require.Equal(t, "2", out.(*big.Int).String())

	out, err = call(t, nil, tInt, "1e10;")
	require.NoError(t, err)
	require.Equal(t, int32(2147483647), out, "Double.intValue saturates")

	out, err = call(t, nil, tText, "\"\"+48;")
	require.NoError(t, err)
	require.Equal(t, "48", out)

	out, err = call(t, []Param{{"a", tInt}, {"b", tInt}}, tInt, "a + b;", nil, int32(1))
	require.NoError(t, err, "null + 1 is 1")
	require.Equal(t, int32(1), out)
}

func TestErrors(t *testing.T) {
	_, err := Compile(nil, tDouble, "foo bar", Options{Function: "ks.scrinv", Language: "javascript"})
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, err.Error(), "Failed to compile function 'ks.scrinv' for language javascript: javax.script.ScriptException: ")

	_, err = call(t, nil, tDouble, `"string";`)
	require.EqualError(t, err, "org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException: Invalid value for CQL type double")

	_, err = call(t, nil, tDouble, `throw "fool";`)
	require.EqualError(t, err, "java.lang.RuntimeException: javax.script.ScriptException: fool in <eval> at line number 1")

	_, err = call(t, nil, tDouble, `Java.type("java.io.File");`)
	require.EqualError(t, err, "java.lang.RuntimeException: javax.script.ScriptException: java.lang.ClassNotFoundException: java.io.File in <eval> at line number 1")

	_, err = call(t, nil, tDouble, `java.lang.Runtime.getRuntime();`)
	require.ErrorContains(t, err, "TypeError", "a hidden class is a package, with no methods")

	out, err := call(t, nil, tDouble, `java.lang.Math.max(1, 2);`)
	require.NoError(t, err)
	require.Equal(t, 2.0, out)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	f, err := Compile(nil, tDouble, "while (true) {}", Options{})
	require.NoError(t, err)
	_, err = f.Call(ctx, nil)
	require.True(t, errors.Is(err, ErrTimeout), "%v", err)

	_, err = call(t, nil, tDouble, "function f() { return f(); } f();")
	require.EqualError(t, err, "java.lang.StackOverflowError")

	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	f, err = Compile(nil, tDouble, "/(a+)+(?=b)/.test('"+strings.Repeat("a", 40)+"c')", Options{})
	require.NoError(t, err)
	_, err = f.Call(ctx2, nil)
	require.True(t, errors.Is(err, ErrTimeout), "a backtracking match gives up, and the deadline ends the call: %v", err)

	for _, body := range []string{"'x'.repeat(1e12).length", "new Array(1 << 30).join('x').length", "Array(1e9).fill(0).length",
		"JSON.stringify(Array(1e9)).length", "Math.max.apply(null, {length: 1e9})", "Array.from({length: 1e9}).length",
		"var s = 'x'; while (s.length < 1 << 23) s += s; s.match(/x/g).length"} {
		_, err = call(t, nil, tDouble, body)
		require.EqualError(t, err, "java.lang.OutOfMemoryError: Java heap space", body)
	}
	out, err = call(t, nil, tDouble, "[3, 1, 2].sort().join('').length")
	require.NoError(t, err, "the guarded built-ins still work")
	require.Equal(t, 3.0, out)
}

func TestCollectionsAndTuples(t *testing.T) {
	ut := types.Type{Kind: types.Tuple, Params: []types.Type{tText, tInt}, UDT: &types.UserType{Keyspace: "ks", Name: "u", Fields: []string{"txt", "i"}}}
	lt := types.Type{Kind: types.List, Params: []types.Type{ut}}
	mt := types.Type{Kind: types.Map, Params: []types.Type{tInt, ut}}
	lst := []any{map[string]any{"txt": "one", "i": int32(1)}, map[string]any{"txt": "three", "i": int32(1)}}
	out, err := call(t, []Param{{"lst", lt}}, tText, `lst.get(1).getString("txt");`, lst)
	require.NoError(t, err)
	require.Equal(t, "three", out)

	out, err = call(t, []Param{{"lst", lt}}, tText, `lst.iterator().next().getString("txt");`, lst)
	require.NoError(t, err)
	require.Equal(t, "one", out)

	mp := []types.MapEntry{{Key: int32(3), Value: map[string]any{"txt": "two", "i": int32(2)}}}
	out, err = call(t, []Param{{"mp", mt}}, tText, `mp.get(java.lang.Integer.valueOf(3)).getString("txt");`, mp)
	require.NoError(t, err)
	require.Equal(t, "two", out)

	out, err = call(t, []Param{{"lst", lt}}, lt, `lst;`, lst)
	require.NoError(t, err)
	require.Equal(t, lst, out)

	tt := types.Type{Kind: types.Tuple, Params: []types.Type{tDouble, types.Type{Kind: types.List, Params: []types.Type{tDouble}}}}
	out, err = call(t, []Param{{"tup", tt}}, tt.Params[1], `tup.getList(1, java.lang.Double.class);`, []any{1.0, []any{1.0, 2.0}})
	require.NoError(t, err)
	require.Equal(t, []any{1.0, 2.0}, out)

	out, err = call(t, []Param{{"u", ut}}, ut, `udfContext.newReturnUDTValue().setString("txt", u.getString("txt") + "!").setInt("i", u.getInt("i") + 1);`,
		map[string]any{"txt": "a", "i": int32(1)})
	require.NoError(t, err)
	b, err := types.Encode(ut, out)
	require.NoError(t, err)
	require.Equal(t, "{txt: 'a!', i: 2}", types.Format(ut, b))

	_, err = call(t, []Param{{"u", ut}}, ut, `udfContext.newReturnTupleValue();`, map[string]any{"txt": "a", "i": int32(1)})
	require.EqualError(t, err, "java.lang.RuntimeException: javax.script.ScriptException: java.lang.IllegalStateException: Function argument is not a tuple type but a udt in <eval> at line number 1")

	out, err = call(t, []Param{{"tup", tt}}, tt, `udfContext.newReturnTupleValue().setDouble(0, 5);`, []any{1.0, nil})
	require.NoError(t, err)
	require.Equal(t, []any{5.0, nil}, out)
}

func TestNeedsGuard(t *testing.T) {
	for body, want := range map[string]bool{
		"a + b;":                               false,
		"Math.sin(val);":                       false,
		`udt.getString("txt");`:                false,
		`throw "fool";`:                        false,
		"'x'.repeat(5)":                        true,
		"lst[0]":                               true,
		"''.constructor.constructor('')":       true,
		"\\u0041rray(5)":                       true,
		"String(Array(5))":                     true,
		"`${x}`":                               true,
		`"Array"`:                              true,
		"x.join()":                             true,
		"Math.max.apply(null, x)":              true,
		"var s = 'ab'; s.split('');":           true,
		"é":                                    true,
		"mp.get(java.lang.Integer.valueOf(3))": false,
	} {
		require.Equal(t, want, needsGuard(body), body)
	}
	require.False(t, needsJava("a + b;"))
	require.True(t, needsJava("udfContext.newReturnUDTValue()"))
	require.True(t, needsJava("this['ja' + 'va']"), "a computed global name gets the Java globals")
}
