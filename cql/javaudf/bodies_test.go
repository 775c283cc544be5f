package javaudf

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

// TestCassandraBodies runs bodies taken from Cassandra's UF*Test and
// AggregationTest with the results those tests assert.
func TestCassandraBodies(t *testing.T) {
	udt := types.UserTypeOf(&types.UserType{Keyspace: "ks", Name: "t", Fields: []string{"txt", "i"}},
		[]types.Type{types.TextType, types.IntType}, false)
	tup := types.TupleOf(types.BigintType, types.IntType)
	tupColl := types.TupleOf(types.DoubleType, types.ListOf(types.DoubleType, false), types.SetOf(types.TextType, false),
		types.MapOf(types.IntType, types.BooleanType, false))
	p := func(name string, t types.Type) Param { return Param{name, t} }
	cases := []struct {
		params []Param
		ret    types.Type
		called bool
		body   string
		args   []any
		want   any
	}{
		{nil, types.BigintType, false, "\n  return 1L;\n", nil, int64(1)},
		{[]Param{p("val", types.DoubleType)}, types.DoubleType, true,
			"\n  // parameter val is of type java.lang.Double\n  /* return type is of type java.lang.Double */\n  if (val == null) {\n    return null;\n  }\n  return Math.sin(val);\n",
			[]any{1.0}, math.Sin(1)},
		{[]Param{p("val", types.DoubleType)}, types.DoubleType, true, "if (val == null) { return null; } return Math.sin(val);", []any{nil}, nil},
		{[]Param{p("val", types.CounterType)}, types.BigintType, true, "return val + 1;", []any{int64(1)}, int64(2)},
		{[]Param{p("input", types.DoubleType)}, types.TextType, true, "\n  if (input == null) {\n    return null;\n  }\n  return \"'\"+Math.sin(input)+'\\'';\n", []any{0.0}, "'0.0'"},
		{[]Param{p("input", types.DoubleType)}, types.DoubleType, true, "return Double.valueOf(Math.sin(input.doubleValue()));", []any{0.0}, 0.0},
		{[]Param{p("input", types.DoubleType)}, types.DoubleType, false, "return Double.valueOf(Math.sin(input));", []any{0.0}, 0.0},
		{[]Param{p("v", types.TextType), p("n", types.IntType)}, types.TextType, false,
			"StringBuilder sb = new StringBuilder();\n    for (int i = 0; i < n; i++)\n        sb.append(v);\n    return sb.toString();", []any{"a", int32(3)}, "aaa"},
		{[]Param{p("v", types.TextType)}, types.TextType, false, "return v + v;", []any{"a"}, "aa"},
		{nil, types.TimestampType, false, "return null;", nil, nil},
		{[]Param{p("val", types.BlobType)}, types.BlobType, true, "return ByteBuffer.allocate(0);", []any{nil}, []byte{}},
		{[]Param{p("val", types.IntType)}, types.IntType, true, "return val;", []any{types.EmptyValue{}}, nil},
		{[]Param{p("tup", tupColl)}, types.DoubleType, true, "return Double.valueOf(tup.getDouble(0));",
			[]any{[]any{1.0, []any{1.0, 2.0}, []any{"a"}, []types.MapEntry{{Key: int32(1), Value: true}}}}, 1.0},
		{[]Param{p("tup", tupColl)}, types.ListOf(types.DoubleType, false), false, "return tup.getList(1, Double.class);",
			[]any{[]any{1.0, []any{1.0, 2.0}, []any{"a"}, []types.MapEntry{{Key: int32(1), Value: true}}}}, []any{1.0, 2.0}},
		{[]Param{p("tup", tupColl)}, types.MapOf(types.IntType, types.BooleanType, false), false, "return tup.getMap(3, Integer.class, Boolean.class);",
			[]any{[]any{1.0, []any{1.0, 2.0}, []any{"a"}, []types.MapEntry{{Key: int32(1), Value: true}}}}, []types.MapEntry{{Key: int32(1), Value: true}}},
		{[]Param{p("udt", udt)}, types.TextType, false, "return udt.getString(\"txt\");", []any{map[string]any{"txt": "one", "i": int32(1)}}, "one"},
		{[]Param{p("udt", udt)}, types.IntType, true, "return Integer.valueOf(udt.getInt(\"i\"));", []any{map[string]any{"txt": "one", "i": int32(1)}}, int32(1)},
		{[]Param{p("lst", types.ListOf(udt, false))}, types.TextType, false,
			"     org.apache.cassandra.cql3.functions.types.UDTValue udtVal = (com.datastax.driver.core.UDTValue)lst.get(1);     return udtVal.getString(\"txt\");",
			[]any{[]any{map[string]any{"txt": "one"}, map[string]any{"txt": "three"}}}, "three"},
		{[]Param{p("st", types.SetOf(udt, false))}, types.TextType, false,
			"     com.datastax.driver.core.UDTValue udtVal = (org.apache.cassandra.cql3.functions.types.UDTValue)st.iterator().next();     return udtVal.getString(\"txt\");",
			[]any{[]any{map[string]any{"txt": "one"}, map[string]any{"txt": "three"}}}, "one"},
		{[]Param{p("mp", types.MapOf(types.IntType, udt, false))}, types.TextType, false,
			"     org.apache.cassandra.cql3.functions.types.UDTValue udtVal = (com.datastax.driver.core.UDTValue)mp.get(Integer.valueOf(3));     return udtVal.getString(\"txt\");",
			[]any{[]types.MapEntry{{Key: int32(3), Value: map[string]any{"txt": "two"}}}}, "two"},
		{[]Param{p("values", types.SetOf(types.IntType, false))}, types.IntType, true,
			"int sum = 0; for (Object value : values) {sum += ((Integer) value);} return sum;", []any{[]any{int32(1), int32(2), int32(3)}}, int32(6)},
		{[]Param{p("values", types.MapOf(types.IntType, types.IntType, false))}, types.IntType, true,
			"int sum = 0; for (Object value : values.values()) {sum += ((Integer) value);} return sum;",
			[]any{[]types.MapEntry{{Key: int32(1), Value: int32(2)}, {Key: int32(3), Value: int32(4)}}}, int32(6)},
		{[]Param{p("values", types.TupleOf(types.IntType, types.IntType))}, types.TextType, true, "return values.toString();", []any{[]any{int32(1), int32(2)}}, "(1,2)"},
		{[]Param{p("values", types.TupleOf(types.IntType, types.IntType))}, types.TextType, true, "return values.toString();", []any{[]any{nil, nil}}, "(NULL,NULL)"},
		{[]Param{p("values", types.TupleOf(types.IntType, types.IntType))}, types.TextType, true, "return values.toString();", []any{types.EmptyValue{}}, "(NULL,NULL)"},
		{[]Param{p("values", types.ListOf(types.IntType, false))}, types.IntType, true, "return values.size();", []any{types.EmptyValue{}}, int32(0)},
		{[]Param{p("tup", tupColl)}, types.TextType, true, "return tup.toString();",
			[]any{[]any{1.0, []any{1.0, 2.0}, []any{"a", "b'c"}, []types.MapEntry{{Key: int32(1), Value: true}}}}, "(1.0,[1.0,2.0],{'a','b''c'},{1:true})"},
		{[]Param{p("values", udt)}, types.TextType, true, "return values.toString();", []any{map[string]any{"txt": "a", "i": int32(4)}}, "{txt:'a',i:4}"},
		{[]Param{p("state", types.MapOf(types.TextType, types.BigintType, false)), p("styles", types.ListOf(types.TextType, false))},
			types.MapOf(types.TextType, types.BigintType, false), false,
			"\n    for (String style : styles) {\n      if (state.containsKey(style)) {\n        state.put(style, state.get(style) + 1L);\n      } else {\n        state.put(style, 1L);\n      }\n    }\n    return state;\n  ",
			[]any{[]types.MapEntry{{Key: "a", Value: int64(1)}}, []any{"a", "b", "a"}},
			[]types.MapEntry{{Key: "a", Value: int64(3)}, {Key: "b", Value: int64(1)}}},
		{[]Param{p("my_map", types.MapOf(types.TextType, types.TextType, false))}, types.TextType, true,
			"\n             String buffer = \"\";\n             for(java.util.Map.Entry<String, String> entry: my_map.entrySet()) {\n                 buffer = buffer + entry.getKey() + \": \" + entry.getValue() + \", \";\n             }\n             return buffer;\n         ",
			[]any{[]types.MapEntry{{Key: "a", Value: "b"}}}, "a: b, "},
		{[]Param{p("listtext", types.ListOf(types.TextType, false))}, types.SetOf(types.TextType, false), true,
			"\n     Set<String> set = new HashSet<String>();      for (String s : listtext) {            set.add(s);     }     return set;",
			[]any{[]any{"b", "a", "b"}}, []any{"b", "a"}},
		{[]Param{p("a", types.IntType), p("b", types.IntType)}, types.IntType, true,
			"return Integer.valueOf((a!=null?a.intValue():0) + b.intValue());", []any{nil, int32(2)}, int32(2)},
		{[]Param{p("a", types.IntType)}, types.TextType, true, "return a.toString();", []any{int32(48)}, "48"},
		{[]Param{p("a", tup), p("b", types.IntType)}, tup, true,
			"a.setLong(0, a.getLong(0) + b.intValue());a.setInt(1, a.getInt(1) + 1);return a;",
			[]any{[]any{int64(3), int32(2)}, int32(3)}, []any{int64(6), int32(3)}},
		{[]Param{p("a", tup)}, types.DoubleType, false, "double r = a.getLong(0);r /= a.getInt(1);return Double.valueOf(r);",
			[]any{[]any{int64(6), int32(3)}}, 2.0},
		{[]Param{p("state", types.IntType), p("val", types.IntType)}, types.IntType, true,
			"return Integer.valueOf(   (state != null ? state.intValue() : 0)    + (val != null ? val.intValue() : 0));", []any{nil, nil}, int32(0)},
		{[]Param{p("state", types.IntType)}, types.IntType, false, "return Integer.valueOf(state);", []any{int32(5)}, int32(5)},
		{[]Param{p("a", types.TextType), p("b", types.TextType)}, types.TextType, true, "return a + \"x\" + b + \"y\";", []any{"", nil}, "xnully"},
		{[]Param{p("val", types.IntType)}, udt, false, "return udfContext.newReturnUDTValue();", []any{int32(1)}, map[string]any{"txt": nil, "i": nil}},
		{[]Param{p("val", udt)}, udt, false,
			"   org.apache.cassandra.cql3.functions.types.UDTValue udt = udfContext.newArgUDTValue(\"val\");   udt.setString(\"txt\", \"baz\");   udt.setInt(\"i\", 88);   return udt;",
			[]any{map[string]any{"txt": "foo", "i": int32(42)}}, map[string]any{"txt": "baz", "i": int32(88)}},
		{[]Param{p("val", udt)}, types.TupleOf(types.TextType, types.IntType), false,
			"   TupleValue tv = udfContext.newReturnTupleValue();   tv.setString(0, \"baz\");   tv.setInt(1, 88);   return tv;",
			[]any{map[string]any{"txt": "foo", "i": int32(42)}}, []any{"baz", int32(88)}},
		{[]Param{p("val", types.TimestampType)}, types.TimestampType, true, "return val;", []any{time.UnixMilli(5).UTC()}, time.UnixMilli(5).UTC()},
		{[]Param{p("val", types.TimeType)}, types.TimeType, true, "return val;", []any{time.Duration(12345)}, time.Duration(12345)},
		{[]Param{p("val", types.DateType)}, types.DateType, true, "return val;", []any{types.DateValue(12345)}, types.DateValue(12345)},
	}
	for _, c := range cases {
		f, err := Compile(c.params, c.ret, c.body, Options{CalledOnNullInput: c.called})
		require.NoError(t, err, c.body)
		got, err := f.Call(context.Background(), c.args)
		require.NoError(t, err, c.body)
		assert.Equal(t, c.want, got, c.body)
	}
}

// TestUserTypeLookup checks udfContext.newUDTValue and newTupleValue.
func TestUserTypeLookup(t *testing.T) {
	ut := types.UserTypeOf(&types.UserType{Keyspace: "ks", Name: "u", Fields: []string{"a", "b", "c"}},
		[]types.Type{types.IntType, types.TextType, types.BigintType}, false)
	opts := Options{CalledOnNullInput: true, UserType: func(name string) (types.Type, bool) { return ut, name == "u" }}
	ret := types.TupleOf(types.IntType, ut)
	f, err := Compile([]Param{{"arg", types.TextType}}, ret,
		"\n    UDTValue udt = udfContext.newUDTValue(\"u\");    udt.setInt(\"a\", 42);    udt.setString(\"b\", \"42\");    udt.setLong(\"c\", 4242);    TupleValue tup = udfContext.newTupleValue(\"tuple<int,u>\");    tup.setInt(0, 88);    tup.setUDTValue(1, udt);    return tup;", opts)
	require.NoError(t, err)
	got, err := f.Call(context.Background(), []any{"x"})
	require.NoError(t, err)
	assert.Equal(t, []any{int32(88), map[string]any{"a": int32(42), "b": "42", "c": int64(4242)}}, got)
}

// TestUDTFieldErrors checks the driver's exceptions for unknown fields.
func TestUDTFieldErrors(t *testing.T) {
	udt := types.UserTypeOf(&types.UserType{Keyspace: "ks", Name: "t", Fields: []string{"str", "i"}},
		[]types.Type{types.TextType, types.IntType}, false)
	f := mustCompile(t, []Param{{"udt", udt}}, types.TextType, "return udt.getString(\"txt\");", Options{})
	_, err := f.Call(context.Background(), []any{map[string]any{"str": "one"}})
	var exc *Exception
	require.ErrorAs(t, err, &exc)
	assert.Equal(t, "java.lang.IllegalArgumentException: txt is not a field defined in this UDT", exc.Error())
}

// TestCompileRefusals checks more of what Cassandra refuses at CREATE.
func TestCompileRefusals(t *testing.T) {
	for _, c := range []struct {
		params []Param
		ret    types.Type
		body   string
		want   string
	}{
		{nil, types.BigintType, "\nfoobarbaz;\n", "foobarbaz cannot be resolved to a type"},
		{[]Param{{"values", types.SetOf(types.IntType, false)}}, types.IntType, "int sum = 0; for (Object value : values) {sum += value;} return sum;", "The operator += is undefined"},
		{nil, types.DoubleType, "return 1L;", ""},
	} {
		_, err := Compile(c.params, c.ret, c.body, Options{CalledOnNullInput: true})
		if c.want == "" {
			// long to Double: Type mismatch in Java.
			require.ErrorIs(t, err, ErrCompile, c.body)
			continue
		}
		require.Error(t, err, c.body)
		assert.Contains(t, err.Error(), c.want, c.body)
	}
}
