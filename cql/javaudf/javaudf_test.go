package javaudf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

func mustCompile(t *testing.T, params []Param, ret types.Type, body string, opts Options) *Function {
	t.Helper()
	f, err := Compile(params, ret, body, opts)
	require.NoError(t, err, "body: %s", body)
	return f
}

// TestJavaSemantics checks expressions against the results Java gives.
func TestJavaSemantics(t *testing.T) {
	cases := []struct {
		ret  types.Type
		body string
		want any
	}{
		{types.IntType, "return Integer.MAX_VALUE + 1;", int32(math.MinInt32)},
		{types.IntType, "return -7 / 2;", int32(-3)},
		{types.IntType, "return -7 % 2;", int32(-1)},
		{types.IntType, "return (int) 3.9;", int32(3)},
		{types.IntType, "return (int) -3.9;", int32(-3)},
		{types.IntType, "return (int) 1e20;", int32(math.MaxInt32)},
		{types.IntType, "return (int) Double.NaN;", int32(0)},
		{types.DoubleType, "return 1.0 / 0;", math.Inf(1)},
		{types.FloatType, "return 5.f + 1.e1f;", float32(15)},
		{types.DoubleType, "return 5. + .5 + 1e1 + 2D;", 17.5},
		{types.BigintType, "return 0x7fffffffL + 0b11 + 017 + 1_000L;", int64(0x7fffffff + 3 + 15 + 1000)},
		{types.TextType, `String s = null; return s + "x";`, "nullx"},
		{types.TextType, `return "a" + 1 + 2;`, "a12"},
		{types.TextType, `return 1 + 2 + "a";`, "3a"},
		{types.TextType, `return "" + 1.0;`, "1.0"},
		{types.TextType, `return "" + 1e7;`, "1.0E7"},
		{types.TextType, `return "" + 0.001;`, "0.001"},
		{types.TextType, `return "" + 1.0f / 3;`, "0.33333334"},
		{types.TextType, `return "" + 'a' + 'b';`, "ab"},
		{types.IntType, `return 'a' + 'b';`, int32(195)},
		{types.BigintType, "return Long.MAX_VALUE + 1;", int64(math.MinInt64)},
		{types.BigintType, "return 1L << 40;", int64(1) << 40},
		{types.IntType, "return 1 << 33;", int32(2)},
		{types.IntType, "return -1 >>> 28;", int32(15)},
		{types.IntType, "return -16 >> 2;", int32(-4)},
		{types.IntType, "int i = 5; i += 2.7; return i;", int32(7)},
		{types.IntType, "int i = 5; int j = i++ + ++i; return j;", int32(12)},
		{types.IntType, "int s = 0; for (int i = 0; i < 10; i++) { if (i == 3) continue; if (i == 8) break; s += i; } return s;", int32(25)},
		{types.IntType, "int s = 0; int i = 0; while (i < 5) s += i++; return s;", int32(10)},
		{types.IntType, "int s = 0; int i = 0; do { s += i; } while (++i < 5); return s;", int32(10)},
		{types.BooleanType, "return 0.1 + 0.2 == 0.3;", false},
		{types.BooleanType, "return Double.NaN != Double.NaN;", true},
		{types.IntType, "return true ? 1 : 2;", int32(1)},
		{types.DoubleType, "return true ? 1 : 2.0;", float64(1)},
		{types.IntType, "return Math.abs(-5);", int32(5)},
		{types.IntType, "return Math.abs(Integer.MIN_VALUE);", int32(math.MinInt32)},
		{types.DoubleType, "return Math.max(1, 2.5);", 2.5},
		{types.BigintType, "return Math.round(2.5);", int64(3)},
		{types.BigintType, "return Math.round(-2.5);", int64(-2)},
		{types.IntType, "return Integer.parseInt(\"-42\");", int32(-42)},
		{types.TextType, "return Integer.toString(255, 16);", "ff"},
		{types.TextType, "return Integer.toHexString(-1);", "ffffffff"},
		{types.IntType, `return "héllo".length();`, int32(5)},
		{types.TextType, `return "hello".substring(1, 3).toUpperCase();`, "EL"},
		{types.IntType, `return "abc".compareTo("abd");`, int32(-1)},
		{types.TextType, `StringBuilder sb = new StringBuilder(); for (int i = 0; i < 3; i++) sb.append(i).append(','); return sb.toString();`, "0,1,2,"},
		{types.TextType, `List<Integer> l = new ArrayList<>(); l.add(3); l.add(1); l.add(2); Collections.sort(l); return l.toString();`, "[1, 2, 3]"},
		{types.TextType, `Map<String, Integer> m = new TreeMap<>(); m.put("b", 2); m.put("a", 1); return m.toString();`, "{a=1, b=2}"},
		{types.TextType, `Set<String> s = new TreeSet<>(); s.add("z"); s.add("a"); s.add("z"); return s.toString();`, "[a, z]"},
		{types.IntType, `int[] a = {1, 2, 3}; int s = 0; for (int x : a) s += x; return s;`, int32(6)},
		{types.IntType, `int[] a = new int[3]; a[1] = 5; return a[1] + a.length;`, int32(8)},
		{types.TextType, `Object o = "s"; if (o instanceof String) return (String) o; return null;`, "s"},
		{types.IntType, `try { throw new IllegalStateException("x"); } catch (IllegalStateException e) { return e.getMessage().length(); }`, int32(1)},
		{types.IntType, `try { throw new Exception("xy"); } catch (Exception e) { return e.getMessage().length(); }`, int32(2)},
		{types.IntType, `int r = 0; try { r = 1; } finally { r = 2; } return r;`, int32(2)},
		{types.IntType, `switch (3) { case 1: return 1; case 3: return 3; default: return 0; }`, int32(3)},
		{types.BigintType, `long x = 1; x *= 3; return x;`, int64(3)},
		{types.VarintType, `return new java.math.BigInteger("123456789012345678901234567890").add(java.math.BigInteger.ONE);`, mustBig("123456789012345678901234567891")},
		{types.DoubleType, `Double d = null; return d;`, nil},
		{types.BooleanType, `Integer a = null; Integer b = null; return a == b;`, true},
		{types.TextType, `Set<Integer> s = new HashSet<>(); s.add(100); s.add(1); s.add(17); return s.toString();`, "[1, 17, 100]"},
		{types.TextType, `Set<String> s = new HashSet<>(Arrays.asList("hello", "world")); return s.toString();`, "[world, hello]"},
		{types.TextType, `Map<String, Integer> m = new HashMap<>(); m.put("hello", 1); m.put("world", 2); String r = ""; for (String k : m.keySet()) r += k; return r + m;`, "worldhello{world=2, hello=1}"},
		{types.TextType, `Set<Integer> s = new LinkedHashSet<>(); s.add(100); s.add(1); return s.toString();`, "[100, 1]"},
		{types.TextType, `Set<Integer> s = new HashSet<>(); for (int i = 20; i >= 0; i -= 4) s.add(i); return s.toString();`, "[16, 0, 20, 4, 8, 12]"},
		{types.TextType, `Map<String, Integer> m = new TreeMap<>(); m.put("a", 1); for (Map.Entry<String, Integer> e : m.entrySet()) e.setValue(e.getValue() + 1); return m.toString();`, "{a=2}"},
		{types.IntType, `Integer i = null; return true ? null : i;`, nil},
		{types.TextType, `return String.format("%d-%s", 4, "x");`, "4-x"},
		{types.TextType, `return String.format("%.2f|%.1f|%,d|%8.3f|%.0f|%f", 1.005, 0.25, 1234567, -3.14159, 2.5, 0.1);`, "1.01|0.3|1,234,567|  -3.142|3|0.100000"},
		{types.TextType, `return String.format("%,.2f|%05d|%x|%s", 1234.5, 42, 255, null);`, "1,234.50|00042|ff|null"},
		{types.IntType, `List<Integer> l = new ArrayList<>(); l.add(5); l.add(7); l.remove(Integer.valueOf(5)); return l.get(0);`, int32(7)},
		{types.IntType, `List<Integer> l = new ArrayList<>(); l.add(5); l.add(7); l.remove(0); return l.get(0);`, int32(7)},
		{types.IntType, `List<Integer> l = new ArrayList<>(); l.add(0); l.add(5); l.remove(1); return l.size();`, int32(1)},
		{types.TextType, `return (char) ('a' + 1) + "";`, "b"},
		{types.TinyintType, `byte b = (byte) 200; return b;`, int8(-56)},
		{types.SmallintType, `short s = 10; s += 5; return s;`, int16(15)},
		{types.BigintType, `long l = Integer.MAX_VALUE; l++; return l;`, int64(math.MaxInt32) + 1},
		{types.DoubleType, `return 5 / 2.0;`, 2.5},
		{types.TextType, `return (float) 0.1 + "";`, "0.1"},
		{types.IntType, `return Integer.MIN_VALUE / -1;`, int32(math.MinInt32)},
		{types.IntType, `return Integer.MIN_VALUE % -1;`, int32(0)},
		{types.BooleanType, `return -0.0 == 0.0;`, true},
		{types.IntType, `return Double.compare(-0.0, 0.0);`, int32(-1)},
		{types.IntType, `return "abc".indexOf('c');`, int32(2)},
		{types.TextType, `return String.join(",", "a", "b");`, "a,b"},
		{types.DoubleType, `return Math.copySign(2.0, -1.0);`, -2.0},
		{types.TextType, `String s = "b"; switch (s) { case "a": return "A"; case "b": case "c": return "BC"; } return "none";`, "BC"},
		{types.IntType, `int n = 0; outer: for (int i = 0; i < 5; i++) { for (int j = 0; j < 5; j++) { if (j == 2) continue outer; if (i == 3) break outer; n++; } } return n;`, int32(6)},
		{types.TextType, `int[][] m = new int[2][3]; m[1][2] = 4; return java.util.Arrays.toString(m[1]);`, "[0, 0, 4]"},
		{types.TextType, `Map<String, List<Integer>> m = new HashMap<>(); m.put("a", new ArrayList<>()); m.get("a").add(1); return m.toString();`, "{a=[1]}"},
		{types.BooleanType, `Integer a = 1000; Long b = 1000L; return a.equals(b);`, false},
		{types.TextType, `return "" + Long.MIN_VALUE + Float.MAX_VALUE;`, "-92233720368547758083.4028235E38"},
		{types.TextType, `return "" + 100.0 / 3;`, "33.333333333333336"},
		{types.TextType, `return "" + 1.0E-5 + " " + 123456789.0;`, "1.0E-5 1.23456789E8"},
		{types.IntType, `return "hello".hashCode();`, int32(99162322)},
		{types.IntType, `return new java.math.BigInteger("-12345678901234567890").hashCode();`, int32(1436577082)},
		{types.IntType, `return Long.valueOf(-5000000000L).hashCode() + Double.valueOf(1.5).hashCode() + Boolean.TRUE.hashCode();`, int32(705032702 + 1073217536 + 1231)},
		{types.TextType, `StringBuilder sb = new StringBuilder("abc"); sb.reverse().insert(0, 'x').deleteCharAt(1); return sb.toString();`, "xba"},
		{types.TextType, `return new java.math.BigDecimal("1.10").add(new java.math.BigDecimal("2.205")).toString();`, "3.305"},
		{types.IntType, `Object o = 3; return o instanceof Integer ? (Integer) o + 1 : 0;`, int32(4)},
		{types.TextType, `String r = ""; for (String p : "a,b,,c,,".split(",")) r += "[" + p + "]"; return r;`, "[a][b][][c]"},
		{types.TextType, `return java.util.Arrays.toString(" a  b c ".split("\\s+"));`, "[, a, b, c]"},
		{types.TextType, `return java.util.Arrays.toString("abc".split(""));`, "[a, b, c]"},
		{types.TextType, `return java.util.Arrays.toString("a,b,c".split(",", 2));`, "[a, b,c]"},
		{types.TextType, `return java.util.Arrays.toString("a,b,,".split(",", -1));`, "[a, b, , ]"},
		{types.IntType, `return ",".split(",").length;`, int32(0)},
		{types.IntType, `return "".split(",").length;`, int32(1)},
		{types.BooleanType, `return "abc123".matches("[a-z]+\\d+");`, true},
		{types.BooleanType, `return "abc123x".matches("[a-z]+\\d+");`, false},
		{types.TextType, `return "2024-01-15".replaceAll("(\\d+)-(\\d+)-(\\d+)", "$3/$2/$1");`, "15/01/2024"},
		{types.TextType, `return "aaa".replaceFirst("a", "\\$");`, "$aa"},
	}
	for _, c := range cases {
		// CALLED ON NULL INPUT: the return type is the boxed class, so a
		// body may return null.
		f := mustCompile(t, nil, c.ret, c.body, Options{CalledOnNullInput: true})
		got, err := f.Call(context.Background(), nil)
		require.NoError(t, err, c.body)
		assert.Equal(t, c.want, got, c.body)
	}
}

func mustBig(s string) any {
	f, err := types.Encode(types.VarintType, s)
	if err != nil {
		panic(err)
	}
	v, _ := types.Decode(types.VarintType, f)
	return v
}

// TestExceptions checks the Java exceptions bodies throw.
func TestExceptions(t *testing.T) {
	cases := []struct {
		ret    types.Type
		body   string
		params []Param
		args   []any
		opts   Options
		want   string
	}{
		{types.IntType, "return 1 / 0;", nil, nil, Options{}, "java.lang.ArithmeticException: / by zero"},
		{types.BigintType, "return 1L % 0L;", nil, nil, Options{}, "java.lang.ArithmeticException: / by zero"},
		{types.IntType, "Integer i = null; return i + 1;", nil, nil, Options{}, "java.lang.NullPointerException"},
		{types.BooleanType, "Integer i = null; return i == 0;", nil, nil, Options{}, "java.lang.NullPointerException"},
		{types.IntType, "Integer i = null; return true ? i : 0;", nil, nil, Options{}, "java.lang.NullPointerException"},
		{types.IntType, "Boolean b = null; if (b) return 1; return 0;", nil, nil, Options{}, "java.lang.NullPointerException"},
		{types.IntType, "return a + 1;", []Param{{"a", types.IntType}}, []any{nil}, Options{CalledOnNullInput: true}, "java.lang.NullPointerException"},
		{types.IntType, `throw new RuntimeException("boom");`, nil, nil, Options{}, "java.lang.RuntimeException: boom"},
		{types.IntType, `return Integer.parseInt("x");`, nil, nil, Options{}, `java.lang.NumberFormatException: For input string: "x"`},
		{types.IntType, `int[] a = new int[2]; return a[2];`, nil, nil, Options{}, "java.lang.ArrayIndexOutOfBoundsException: Index 2 out of bounds for length 2"},
		{types.DoubleType, `System.getProperty("foo.bar.baz"); return 0d;`, []Param{{"val", types.DoubleType}}, []any{1.0}, Options{}, `java.security.AccessControlException: access denied ("java.util.PropertyPermission" "foo.bar.baz" "read")`},
	}
	for _, c := range cases {
		f := mustCompile(t, c.params, c.ret, c.body, c.opts)
		_, err := f.Call(context.Background(), c.args)
		var exc *Exception
		require.ErrorAs(t, err, &exc, c.body)
		assert.Equal(t, c.want, exc.Error(), c.body)
	}
}

// TestPrimitiveParams checks the parameter types of RETURNS NULL ON NULL
// INPUT (primitives) and CALLED ON NULL INPUT (boxed) functions.
func TestPrimitiveParams(t *testing.T) {
	params := []Param{{"a", types.IntType}, {"b", types.IntType}}
	f := mustCompile(t, params, types.IntType, "return a / b;", Options{})
	got, err := f.Call(context.Background(), []any{int32(7), int32(2)})
	require.NoError(t, err)
	assert.Equal(t, int32(3), got)
	// A primitive int cannot be compared with null.
	_, err = Compile(params, types.IntType, "if (a == null) return 0; return a;", Options{})
	assert.ErrorIs(t, err, ErrCompile)
	f = mustCompile(t, params, types.IntType, "if (a == null) return 0; return a;", Options{CalledOnNullInput: true})
	got, err = f.Call(context.Background(), []any{nil, nil})
	require.NoError(t, err)
	assert.Equal(t, int32(0), got)
}

// TestCompileErrors checks what the compiler and verifier refuse.
func TestCompileErrors(t *testing.T) {
	cases := []struct {
		ret  types.Type
		body string
		want string
	}{
		{types.BigintType, "\nfoobarbaz\n", `insert ";" to complete BlockStatements`},
		{types.IntType, `throw new Exception("x");`, "Line 1: Unhandled exception type Exception"},
		{types.IntType, `try { throw new InterruptedException(); } catch (RuntimeException e) { } return 0;`, "Unhandled exception type InterruptedException"},
		{types.BigintType, "return 1;", "Type mismatch: cannot convert from int to Long"},
		{types.IntType, "return x;", "x cannot be resolved to a variable"},
		{types.IntType, "int a = 1; int a = 2; return a;", "Duplicate local variable a"},
		{types.DoubleType, "Class.forName(\"x\"); return 0d;", "Line 1: Unhandled exception type ClassNotFoundException"},
		{types.DoubleType, "sun.misc.Unsafe.getUnsafe(); return 0d;", "sun.misc.Unsafe cannot be resolved"},
		{types.DoubleType, "try { new java.io.FileInputStream(\"./foobar\").close(); return 0d; } catch (Exception t) { throw new RuntimeException(t); }", "java.io.FileInputStream cannot be resolved"},
		{types.DoubleType, "try { java.lang.Runtime.getRuntime(); return 0d; } catch (Exception t) { throw new RuntimeException(t); }", "java.lang.Runtime cannot be resolved"},
		{types.DoubleType, "synchronized (this) { Math.sin(1d); } return 0d;", "Java UDF validation failed: [use of synchronized]"},
		{types.DoubleType, "synchronized (this) { notify(); } return 0d;", "Java UDF validation failed: [call to java.lang.Object.notify(), use of synchronized]"},
		{types.DoubleType, "try { clone(); } catch (CloneNotSupportedException e) { throw new RuntimeException(e); } return 0d;", "Java UDF validation failed: [call to java.lang.Object.clone()]"},
		{types.DoubleType, "\nreturn 0d;\n    }\n\n    Object field;\n\n    {", "Java UDF validation failed: [field declared: field]"},
		{types.DoubleType, "\nreturn 0d;\n    }\n\n    final Object field;\n\n    {\nfield = new Object();", "Java UDF validation failed: [field declared: field, initializer declared]"},
		{types.DoubleType, "\nreturn 0d;\n    }\n\n    static\n    {\nMath.sin(1d);", "Java UDF validation failed: [static initializer declared]"},
		{types.DoubleType, "try { java.net.InetAddress.getLocalHost(); return 0d; } catch (Exception t) { throw new RuntimeException(t); }", "Java UDF validation failed: [call to java.net.InetAddress.getLocalHost()]"},
		{types.DoubleType, "try { java.nio.ByteBuffer.allocateDirect(123); return 0d; } catch (Exception t) { throw new RuntimeException(t); }", "Java UDF validation failed: [call to java.nio.ByteBuffer.allocateDirect()]"},
	}
	for _, c := range cases {
		_, err := Compile([]Param{{"input", types.DoubleType}}, c.ret, c.body, Options{CalledOnNullInput: true})
		require.Error(t, err, c.body)
		assert.Contains(t, err.Error(), c.want, c.body)
	}
}

func TestTimeout(t *testing.T) {
	f := mustCompile(t, nil, types.IntType, "while (true) { } ", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Call(ctx, nil)
	assert.True(t, errors.Is(err, ErrTimeout), "%v", err)
}

func TestUnreachable(t *testing.T) {
	_, err := Compile(nil, types.IntType, "return 1; return 2;", Options{})
	require.ErrorIs(t, err, ErrCompile)
	assert.Equal(t, "Java source compilation failed:\nLine 1: Unreachable code\n", err.Error())
	_, err = Compile(nil, types.IntType, "while (true) { } return 1;", Options{})
	assert.ErrorIs(t, err, ErrCompile)
	_, err = Compile(nil, types.IntType, "int i = 0; while (true) { if (i++ > 3) break; } return i;", Options{})
	assert.NoError(t, err)
	_, err = Compile(nil, types.IntType, "if (true) return 1; return 2;", Options{})
	assert.NoError(t, err)
}

func TestClassCastText(t *testing.T) {
	f := mustCompile(t, nil, types.BigintType, "Object o = Integer.valueOf(1); return (Long) o;", Options{})
	_, err := f.Call(context.Background(), nil)
	assert.EqualError(t, err, "java.lang.ClassCastException: class java.lang.Integer cannot be cast to class java.lang.Long (java.lang.Integer and java.lang.Long are in module java.base of loader 'bootstrap')")
	f = mustCompile(t, nil, types.IntType, `return (int) "abc".charAt(5);`, Options{})
	_, err = f.Call(context.Background(), nil)
	assert.EqualError(t, err, "java.lang.StringIndexOutOfBoundsException: String index out of range: 5")
}

// TestConcurrentCalls runs one Function from several goroutines (run with
// -race to check that calls share nothing mutable).
func TestConcurrentCalls(t *testing.T) {
	f := mustCompile(t, []Param{{"n", types.IntType}}, types.TextType,
		`List<Integer> l = new ArrayList<>(); for (int i = 0; i < n; i++) l.add(i * i); Map<Integer, String> m = new HashMap<>(); for (Integer v : l) m.put(v, "" + v); return m.toString() + java.math.BigInteger.ONE.add(java.math.BigInteger.TEN);`,
		Options{})
	want, err := f.Call(context.Background(), []any{int32(5)})
	require.NoError(t, err)
	assert.Equal(t, "{0=0, 16=16, 1=1, 4=4, 9=9}11", want)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				got, err := f.Call(context.Background(), []any{int32(5)})
				if err == nil && got != want {
					err = fmt.Errorf("got %v", got)
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		require.NoError(t, <-done)
	}
}

// TestReturnsNullOnNullInputReturnsPrimitive checks that a RETURNS NULL ON
// NULL INPUT function returns the primitive type, as 4.1's UDFunction
// declares it (UDFDataType.wrap(returnType, !calledOnNullInput)): a boolean
// cannot be returned as a double (UFJavaTest.testJavaFunctionInvalidReturn),
// and a null Double unboxed on return throws NullPointerException.
func TestReturnsNullOnNullInputReturnsPrimitive(t *testing.T) {
	params := []Param{{"val", types.DoubleType}}
	_, err := Compile(params, types.DoubleType, "return true;", Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot convert from boolean to double")
	_, err = Compile(params, types.DoubleType, "return true;", Options{CalledOnNullInput: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot convert from boolean to Double")

	f := mustCompile(t, params, types.DoubleType, "Double d = null; return d;", Options{})
	_, err = f.Call(context.Background(), []any{1.0})
	var ex *Exception
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, "java.lang.NullPointerException", ex.Class)

	f = mustCompile(t, params, types.DoubleType, "return val * 2;", Options{})
	got, err := f.Call(context.Background(), []any{1.5})
	require.NoError(t, err)
	assert.Equal(t, 3.0, got)
}

// TestFloatingRemainderAndDivision pins Java's float and double operators:
// % keeps the dividend's sign (fmod), float stays float, and division by zero
// gives an infinity rather than an exception.
func TestFloatingRemainderAndDivision(t *testing.T) {
	cases := []struct {
		ret  types.Type
		body string
		want any
	}{
		{types.DoubleType, "return 7.5 % 2;", 1.5},
		{types.DoubleType, "return -7.5 % 2;", -1.5},
		{types.FloatType, "return 7.5f % 2f;", float32(1.5)},
		{types.FloatType, "return 1f / 0f;", float32(math.Inf(1))},
		{types.DoubleType, "return -1.0 / 0;", math.Inf(-1)},
	}
	for _, c := range cases {
		f := mustCompile(t, nil, c.ret, c.body, Options{CalledOnNullInput: true})
		got, err := f.Call(context.Background(), nil)
		require.NoError(t, err, c.body)
		assert.Equal(t, c.want, got, c.body)
	}
}
