package javaudf

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

// TestSecurityRefusals checks UFSecurityTest.testSecurityPermissions: each
// body names a class the UDF class loader hides, and CREATE FUNCTION fails
// with "<class> cannot be resolved". (Its Class.forName bodies compile and
// the verifier refuses them: TestVerifier's cases.)
func TestSecurityRefusals(t *testing.T) {
	params := []Param{{"val", types.DoubleType}}
	for _, c := range []struct{ class, body string }{
		{"sun.misc.Unsafe", "sun.misc.Unsafe.getUnsafe(); return 0d;"},
		{"java.nio.file.FileSystems", "try {     java.nio.file.FileSystems.getDefault(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}"},
		{"java.nio.channels.FileChannel", `try {     java.nio.channels.FileChannel.open(java.nio.file.FileSystems.getDefault().getPath("/etc/passwd")).close(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}`},
		{"java.nio.channels.SocketChannel", "try {     java.nio.channels.SocketChannel.open().close(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}"},
		{"java.io.FileInputStream", `try {     new java.io.FileInputStream("./foobar").close(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}`},
		{"java.lang.Runtime", "try {     java.lang.Runtime.getRuntime(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}"},
		{"org.apache.cassandra.service.StorageService", "try {     org.apache.cassandra.service.StorageService v = org.apache.cassandra.service.StorageService.instance; v.isShutdown(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}"},
		{"java.net.ServerSocket", "try {     new java.net.ServerSocket().bind(); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}"},
		{"java.io.FileOutputStream", `try {     new java.io.FileOutputStream(".foo"); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}`},
		{"java.lang.Runtime", `try {     java.lang.Runtime.getRuntime().exec("/tmp/foo"); return 0d;} catch (Exception t) {     throw new RuntimeException(t);}`},
	} {
		_, err := Compile(params, types.DoubleType, c.body, Options{})
		require.ErrorIs(t, err, ErrCompile, c.body)
		assert.Contains(t, err.Error(), c.class+" cannot be resolved", c.body)
	}
}

// TestAmok checks UFSecurityTest.testAmokUDF's body: a busy loop on the
// clock that the context's deadline stops.
func TestAmok(t *testing.T) {
	f := mustCompile(t, []Param{{"val", types.DoubleType}}, types.DoubleType,
		"long t=System.currentTimeMillis()+500; while (t>System.currentTimeMillis()) { }; return 0d;", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20_000_000)
	defer cancel()
	_, err := f.Call(ctx, []any{1.0})
	assert.ErrorIs(t, err, ErrTimeout)
}

// TestShownButUnimplemented checks that classes Cassandra's loader shows but
// the interpreter lacks are ErrUnsupported, not compile errors.
func TestShownButUnimplemented(t *testing.T) {
	for _, body := range []string{
		"return java.math.RoundingMode.HALF_UP.ordinal();",
		"Optional<Integer> o = Optional.empty(); return 0;",
		"java.time.Instant i = java.time.Instant.now(); return 0;",
	} {
		_, err := Compile(nil, types.IntType, body, Options{})
		assert.ErrorIs(t, err, ErrUnsupported, body)
	}
	for _, body := range []string{
		"java.util.concurrent.TimeUnit.SECONDS.sleep(1); return 0;",
		"Thread.sleep(1); return 0;",
		"java.lang.reflect.Method m = null; return 0;",
	} {
		_, err := Compile(nil, types.IntType, body, Options{})
		assert.ErrorIs(t, err, ErrCompile, body)
	}
}
