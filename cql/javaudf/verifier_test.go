package javaudf

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

// TestVerifier runs UFVerifierTest.testInvalidByteCodeUDFs: each body
// compiles and the byte-code verifier refuses it with the given text.
func TestVerifier(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"try\n{\n    clone();\n}\ncatch (CloneNotSupportedException e)\n{\n    throw new RuntimeException(e);\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.clone()]"},
		{"try\n{\n    finalize();\n}\ncatch (Throwable e)\n{\n    throw new RuntimeException(e);\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.finalize()]"},
		{"\nreturn 0d;\n    }\n\n    Object field;\n\n    {", "Java UDF validation failed: [field declared: field]"},
		{"\nreturn 0d;\n    }\n\n    final Object field;\n\n    {\nfield = new Object();", "Java UDF validation failed: [field declared: field, initializer declared]"},
		{"\nreturn 0d;\n    }\n\n    Object field = new Object();\n\n    {\nMath.sin(1d);", "Java UDF validation failed: [field declared: field, initializer declared]"},
		{"\nreturn 0d;\n    }\n\n    {\nMath.sin(1d);", "Java UDF validation failed: [initializer declared]"},
		{"\nreturn 0d;\n    }\n\n    static\n    {\nMath.sin(1d);", "Java UDF validation failed: [static initializer declared]"},
		{"synchronized (this)\n{\n    Math.sin(1d);\n}\nreturn 0d;", "Java UDF validation failed: [use of synchronized]"},
		{"synchronized (this)\n{\n    notify();\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.notify(), use of synchronized]"},
		{"synchronized (this)\n{\n    notifyAll();\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.notifyAll(), use of synchronized]"},
		{"synchronized (this)\n{\n    try\n    {\n        wait();\n    }\n    catch (InterruptedException e)\n    {\n        throw new RuntimeException(e);\n    }\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.wait(), use of synchronized]"},
		{"synchronized (this)\n{\n    try\n    {\n        wait(1000L);\n    }\n    catch (InterruptedException e)\n    {\n        throw new RuntimeException(e);\n    }\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.wait(), use of synchronized]"},
		{"synchronized (this)\n{\n    try\n    {\n        wait(1000L, 100);\n    }\n    catch (InterruptedException e)\n    {\n        throw new RuntimeException(e);\n    }\n}\nreturn 0d;", "Java UDF validation failed: [call to java.lang.Object.wait(), use of synchronized]"},
		{"try {     java.nio.ByteBuffer.allocateDirect(123); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}", "Java UDF validation failed: [call to java.nio.ByteBuffer.allocateDirect()]"},
		{`try { Class.forName("org.apache.cassandra.utils.JavaDriverUtils"); } catch (Exception e) { throw new RuntimeException(e); } return 0d;`, "Java UDF validation failed: [call to java.lang.Class.forName()]"},
		{`try { java.lang.Class.forName("sun.misc.Unsafe"); } catch (Exception e) { throw new RuntimeException(e); } return 0d;`, "Java UDF validation failed: [call to java.lang.Class.forName()]"},
		{"try {     java.net.InetAddress.getLocalHost(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}", "Java UDF validation failed: [call to java.net.InetAddress.getLocalHost()]"},
		{"try {     java.net.InetAddress.getAllByName(\"localhost\"); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}", "Java UDF validation failed: [call to java.net.InetAddress.getAllByName()]"},
		{"try {     java.net.Inet4Address.getByName(\"127.0.0.1\"); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}", "Java UDF validation failed: [call to java.net.Inet4Address.getByName()]"},
		{"try {     java.net.Inet6Address.getByAddress(new byte[]{127,0,0,1}); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}", "Java UDF validation failed: [call to java.net.Inet6Address.getByAddress()]"},
		{"try {     java.net.NetworkInterface.getNetworkInterfaces(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}", "Java UDF validation failed: [call to java.net.NetworkInterface.getNetworkInterfaces()]"},
	} {
		_, err := Compile([]Param{{"input", types.DoubleType}}, types.DoubleType, c.body, Options{CalledOnNullInput: true})
		require.ErrorIs(t, err, ErrValidation, c.body)
		assert.Equal(t, c.want, err.Error(), c.body)
	}
}

// TestVerifierUDFList checks JavaBasedUDFunction's additions to the
// verifier (4.1) that UFVerifierTest does not reach: the instance look-ups
// of InetAddress and its subclasses, named by the receiver's declared type
// as the compiler names a call's owner, and the constructor of the
// disallowed class SocketException, which the interpreter does not
// implement. InetAddress.getLoopbackAddress is not on the list.
func TestVerifierUDFList(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"java.net.InetAddress a = null; String s = a.getHostName(); return 0d;", "Java UDF validation failed: [call to java.net.InetAddress.getHostName()]"},
		{"java.net.Inet4Address a = null; String s = a.getCanonicalHostName(); return 0d;", "Java UDF validation failed: [call to java.net.Inet4Address.getCanonicalHostName()]"},
		{"java.net.Inet6Address a = null; try { a.isReachable(10); } catch (Exception e) { } return 0d;", "Java UDF validation failed: [call to java.net.Inet6Address.isReachable()]"},
		{"Object o = new java.net.SocketException(); return 0d;", "Java UDF validation failed: [call to java.net.SocketException.<init>()]"},
		{"throw new RuntimeException(new java.net.SocketException(\"x\"));", "Java UDF validation failed: [call to java.net.SocketException.<init>()]"},
	} {
		_, err := Compile([]Param{{"input", types.DoubleType}}, types.DoubleType, c.body, Options{CalledOnNullInput: true})
		require.ErrorIs(t, err, ErrValidation, c.body)
		assert.Equal(t, c.want, err.Error(), c.body)
	}
	// No constructor SocketException(int): Cassandra's compiler refuses
	// it, which the interpreter leaves outside the subset.
	_, err := Compile([]Param{{"input", types.DoubleType}}, types.DoubleType, "Object o = new java.net.SocketException(1); return 0d;", Options{CalledOnNullInput: true})
	require.ErrorIs(t, err, ErrUnsupported)
	// getLoopbackAddress compiles; the interpreter's InetAddress has no
	// host name, so the call itself is outside the subset.
	f, err := Compile([]Param{{"input", types.DoubleType}}, types.DoubleType, "return (double) java.net.InetAddress.getLoopbackAddress().getAddress()[0];", Options{CalledOnNullInput: true})
	require.NoError(t, err)
	_, err = f.Call(context.Background(), []any{1.0})
	require.ErrorIs(t, err, ErrUnsupported)
}
