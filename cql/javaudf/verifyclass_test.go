package javaudf

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyClass checks VerifyClass on classes of the shape of
// UFVerifierTest's udfverify helpers (written here, not copied).
func TestVerifyClass(t *testing.T) {
	const head = "package org.example.udf;\nimport java.nio.ByteBuffer;\nimport java.util.*;\n" +
		"import org.apache.cassandra.cql3.functions.types.TypeCodec;\nimport org.apache.cassandra.cql3.functions.JavaUDF;\n" +
		"import org.apache.cassandra.cql3.functions.UDFContext;\nimport org.apache.cassandra.transport.ProtocolVersion;\n" +
		"import org.apache.cassandra.config.DatabaseDescriptor;\n" +
		"public final class K extends JavaUDF {\n" +
		"public K(TypeCodec<Object> r, TypeCodec<Object>[] a, UDFContext u) { super(r, a, u); }\n" +
		"protected Object executeAggregateImpl(ProtocolVersion v, Object f, List<ByteBuffer> p) { throw new UnsupportedOperationException(); }\n"
	for _, c := range []struct {
		body string
		pkgs []string
		want []string
	}{
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { return null; }\n}", nil, []string{}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { return null; }\nObject field;\n}", nil, []string{"field declared: field"}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { return null; }\nfinal Object field;\n{ field = new Object(); }\n}", nil, []string{"field declared: field", "initializer declared"}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { return null; }\nstatic { Math.sin(1d); }\n}", nil, []string{"static initializer declared"}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { synchronized (this) { try { wait(1000L, 100); } catch (InterruptedException e) { throw new RuntimeException(e); } } return null; }\n}", nil, []string{"call to java.lang.Object.wait()", "use of synchronized"}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { DatabaseDescriptor.getClusterName(); return null; }\n}", []string{"org/"}, []string{"call to org.apache.cassandra.config.DatabaseDescriptor.getClusterName()"}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { return null; }\nfinal class In { }\n}", nil, []string{"class declared as inner class"}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { new Runnable() { public void run() { } }.run(); return null; }\n}", nil, []string{}},
		{"protected ByteBuffer executeImpl(ProtocolVersion v, List<ByteBuffer> p) { Map<String, String> m = new HashMap<>(); for (Map.Entry<String, String> e : m.entrySet()) { } return null; }\n}", nil, []string{}},
	} {
		got, err := VerifyClass(head+c.body, c.pkgs...)
		require.NoError(t, err, c.body)
		assert.Equal(t, c.want, got, c.body)
	}
}
