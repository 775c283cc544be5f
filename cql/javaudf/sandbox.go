package javaudf

import "strings"

// Cassandra compiles a body against a class loader that shows only some
// classes (UDFunction's allowedPatterns and disallowedPatterns, 4.1). A class
// it hides cannot be resolved, a compile error; a class it shows that the
// interpreter does not implement is outside the subset (ErrUnsupported).

// allowedPatterns are the class paths (or path prefixes, ending in '/') the
// UDF class loader shows.
var allowedPatterns = []string{
	"java/io/IOException.class",
	"java/io/Serializable.class",
	"java/lang/",
	"java/math/",
	"java/net/InetAddress.class",
	"java/net/Inet4Address.class",
	"java/net/Inet6Address.class",
	"java/net/UnknownHostException.class",
	"java/net/NetworkInterface.class",
	"java/net/SocketException.class",
	"java/nio/Buffer.class",
	"java/nio/ByteBuffer.class",
	"java/text/",
	"java/time/",
	"java/util/",
	"org/apache/cassandra/cql3/functions/types/",
	"org/apache/cassandra/cql3/functions/JavaUDF.class",
	"org/apache/cassandra/cql3/functions/UDFContext.class",
	"org/apache/cassandra/exceptions/",
	"org/apache/cassandra/transport/ProtocolVersion.class",
}

// disallowedPatterns are hidden although an allowed pattern covers them.
var disallowedPatterns = []string{
	"java/lang/Compiler.class",
	"java/lang/InheritableThreadLocal.class",
	"java/lang/Package.class",
	"java/lang/Process.class",
	"java/lang/ProcessBuilder.class",
	"java/lang/ProcessEnvironment.class",
	"java/lang/ProcessImpl.class",
	"java/lang/Runnable.class",
	"java/lang/Runtime.class",
	"java/lang/Shutdown.class",
	"java/lang/Thread.class",
	"java/lang/ThreadGroup.class",
	"java/lang/ThreadLocal.class",
	"java/lang/instrument/",
	"java/lang/invoke/",
	"java/lang/management/",
	"java/lang/ref/",
	"java/lang/reflect/",
	"java/util/ServiceLoader.class",
	"java/util/Timer.class",
	"java/util/concurrent/",
	"java/util/function/",
	"java/util/jar/",
	"java/util/logging/",
	"java/util/prefs/",
	"java/util/spi/",
	"java/util/stream/",
	"java/util/zip/",
}

// hiddenSimple are simple names of java.lang classes the loader hides.
// Class and ClassLoader are not among them: the loader shows them, and the
// verifier refuses their look-ups by method (verifier.go).
var hiddenSimple = map[string]bool{
	"Compiler": true, "InheritableThreadLocal": true, "Package": true, "Process": true, "ProcessBuilder": true,
	"Runnable": true, "Runtime": true, "Shutdown": true, "Thread": true, "ThreadGroup": true, "ThreadLocal": true,
}

// jdkSimple are simple names of real java.lang and java.util classes the
// interpreter does not implement; a body naming one is outside the subset
// rather than wrong.
var jdkSimple = map[string]bool{
	"Optional": true, "OptionalInt": true, "OptionalLong": true, "OptionalDouble": true, "Random": true,
	"Calendar": true, "GregorianCalendar": true, "TimeZone": true, "Locale": true, "Scanner": true,
	"StringJoiner": true, "BitSet": true, "Stack": true, "Vector": true, "Hashtable": true, "PriorityQueue": true,
	"ArrayDeque": true, "Deque": true, "Queue": true, "EnumMap": true, "EnumSet": true, "IdentityHashMap": true,
	"WeakHashMap": true, "Properties": true, "Formatter": true, "Base64": true, "Currency": true,
	"StringTokenizer": true, "Enum": true, "Void": true, "Appendable": true, "AutoCloseable": true,
	"Cloneable": true, "StackTraceElement": true, "ListIterator": true, "Comparator": true, "Spliterator": true,
	"AbstractMap": true, "AbstractSet": true, "AbstractCollection": true, "Dictionary": true, "Enumeration": true,
	"Observable": true, "Observer": true, "Record": true, "Readable": true, "SecurityManager": true,
}

// classHidden reports whether a class name the interpreter does not know is
// one Cassandra's compiler cannot resolve (hidden by the class loader, or
// no class at all), as opposed to a class it shows that the interpreter
// does not implement.
func classHidden(name string) bool {
	if !strings.Contains(name, ".") {
		if hiddenSimple[name] {
			return true
		}
		return !jdkSimple[name]
	}
	path := strings.ReplaceAll(name, ".", "/")
	matches := func(patterns []string) bool {
		for _, p := range patterns {
			if strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) || p == path+".class" {
				return true
			}
		}
		return false
	}
	if !matches(allowedPatterns) || matches(disallowedPatterns) {
		return true
	}
	// The hidden simple names, qualified.
	if strings.HasPrefix(name, "java.lang.") && hiddenSimple[strings.TrimPrefix(name, "java.lang.")] {
		return true
	}
	return false
}
