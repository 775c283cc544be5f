package javaudf

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

// Cassandra 4.1's UDF class loader shows java.lang.Class and ClassLoader:
// UDFunction's allowedPatterns take all of "java/lang/" and its
// disallowedPatterns name neither. UFSecurityTest.testSecurityPermissions
// (2a19d2d, 4.x) compiles `Class.forName(...)` and expects the verifier's
// "Java UDF validation failed: [call to java.lang.Class.forName()]", so the
// compiler resolves Class. (The older stored copy, 0e9e0a4, of the 3.x
// era, expected "cannot be resolved" there; 2a19d2d is followed.)

// TestClassUses checks bodies that name Class, write class literals and
// call getClass and Class's name methods, none of which
// JavaBasedUDFunction's verifier refuses (it refuses only Class's forName,
// getClassLoader, getResource and getResourceAsStream) and none of which
// needs a permission at run time. The results are Java's.
func TestClassUses(t *testing.T) {
	params := []Param{{"val", types.IntType}}
	for _, c := range []struct{ body, want string }{
		{"Class c = Integer.class; return c.getName();", "java.lang.Integer"},
		{"java.lang.Class<?> c = String.class; return c.getName();", "java.lang.String"},
		{"Object o = val; return o.getClass().getName();", "java.lang.Integer"},
		{"return val.getClass().getSimpleName();", "Integer"},
		{"return \"\" + val.getClass();", "class java.lang.Integer"},
		{"return String.valueOf(List.class);", "interface java.util.List"},
		{"return int.class.getName() + \" \" + int.class;", "int int"},
		{"return int[].class.getName() + \" \" + String[][].class.getName();", "[I [[Ljava.lang.String;"},
		{"return int[].class.getSimpleName() + \" \" + String[].class.getCanonicalName();", "int[] java.lang.String[]"},
		{"return Map.Entry.class.getName() + \" \" + Map.Entry.class.getSimpleName() + \" \" + Map.Entry.class.getCanonicalName();",
			"java.util.Map$Entry Entry java.util.Map.Entry"},
		{"return java.math.BigDecimal.class.getName();", "java.math.BigDecimal"},
		{"return String.valueOf(val.getClass() == Integer.class);", "true"},
		{"Object o = \"x\"; return String.valueOf(o.getClass() == Integer.class);", "false"},
		{"return String.valueOf(val.getClass().equals(Integer.class));", "true"},
		{"Object o = val; return String.valueOf(Number.class.isInstance(o)) + String.valueOf(String.class.isInstance(o));", "truefalse"},
		{"return String.valueOf(List.class.isInterface()) + int.class.isPrimitive() + int[].class.isArray();", "truetruetrue"},
		{"Object o = val; if (o instanceof Number) return o.getClass().getSimpleName(); return \"?\";", "Integer"},
		{"return new RuntimeException(\"m\").getClass().getName();", "java.lang.RuntimeException"},
		{"return Integer.class.getClass().getName();", "java.lang.Class"},
		{"ClassLoader cl = null; return String.valueOf(cl);", "null"},
	} {
		f := mustCompile(t, params, types.TextType, c.body, Options{CalledOnNullInput: true})
		v, err := f.Call(context.Background(), []any{int32(3)})
		require.NoError(t, err, c.body)
		assert.Equal(t, c.want, v, c.body)
	}
}

// TestInetClass checks getClass of an inet argument: the driver's codec
// makes it with InetAddress.getByAddress, an Inet4Address of four bytes and
// an Inet6Address of sixteen.
func TestInetClass(t *testing.T) {
	f := mustCompile(t, []Param{{"a", types.InetType}}, types.TextType, "return a.getClass().getName();", Options{})
	for ip, want := range map[string]string{"10.0.0.1": "java.net.Inet4Address", "::1": "java.net.Inet6Address"} {
		v, err := f.Call(context.Background(), []any{net.ParseIP(ip)})
		require.NoError(t, err)
		assert.Equal(t, want, v, ip)
	}
}

// TestClassRefusals checks what JavaBasedUDFunction's static initializer
// refuses (addDisallowedMethodCall on java/lang/Class and
// java/lang/ClassLoader): the calls compile, and the verifier's messages
// are sorted as its TreeSet prints them.
func TestClassRefusals(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`try { Class.forName("java.lang.System"); } catch (Exception e) { throw new RuntimeException(e); } return "";`,
			"Java UDF validation failed: [call to java.lang.Class.forName()]"},
		{"return val.getClass().getClassLoader().toString();",
			"Java UDF validation failed: [call to java.lang.Class.getClassLoader()]"},
		{"Class c = Integer.class; return String.valueOf(c.getResource(\"x\"));",
			"Java UDF validation failed: [call to java.lang.Class.getResource()]"},
		{"return String.valueOf(Integer.class.getResourceAsStream(\"x\"));",
			"Java UDF validation failed: [call to java.lang.Class.getResourceAsStream()]"},
		{"return String.valueOf(ClassLoader.getSystemClassLoader());",
			"Java UDF validation failed: [call to java.lang.ClassLoader.getSystemClassLoader()]"},
		{"ClassLoader cl = null; cl.loadClass(\"x\"); return \"\";",
			"Java UDF validation failed: [call to java.lang.ClassLoader.loadClass()]"},
		{"return String.valueOf(val.getClass().getClassLoader().getResource(\"x\"));",
			"Java UDF validation failed: [call to java.lang.Class.getClassLoader(), call to java.lang.ClassLoader.getResource()]"},
	} {
		_, err := Compile([]Param{{"val", types.IntType}}, types.TextType, c.body, Options{CalledOnNullInput: true})
		require.ErrorIs(t, err, ErrValidation, c.body)
		assert.Equal(t, c.want, err.Error(), c.body)
	}
}

// TestClassOutsideSubset checks the uses of Class the interpreter does not
// run: reflection (Cassandra hides java.lang.reflect, so most of it would
// not compile there either, but which does is ecj's business), the
// identity hash, and getClass of values whose Java class minicass cannot
// know (a collection may be an ArrayList, an Arrays$ArrayList or one of
// Collections' wrappers; a blob is a HeapByteBuffer or its read-only
// variant).
func TestClassOutsideSubset(t *testing.T) {
	for _, body := range []string{
		"return String.valueOf(Integer.class.getMethods().length);",
		"return String.valueOf(Integer.class.getSuperclass());",
	} {
		_, err := Compile([]Param{{"val", types.IntType}}, types.TextType, body, Options{CalledOnNullInput: true})
		assert.ErrorIs(t, err, ErrUnsupported, body)
	}
	for _, c := range []struct {
		params []Param
		body   string
		arg    any
	}{
		{[]Param{{"val", types.IntType}}, "return String.valueOf(Integer.class.hashCode());", int32(1)},
		{[]Param{{"l", types.ListOf(types.IntType, false)}}, "return l.getClass().getName();", []any{int32(1)}},
		{[]Param{{"b", types.BlobType}}, "return b.getClass().getName();", []byte{1}},
	} {
		f := mustCompile(t, c.params, types.TextType, c.body, Options{CalledOnNullInput: true})
		_, err := f.Call(context.Background(), []any{c.arg})
		assert.ErrorIs(t, err, ErrUnsupported, c.body)
	}
}
