// Package javaudf interprets the bodies of Cassandra's Java user-defined
// functions (CREATE FUNCTION ... LANGUAGE java AS '...'), since minicass runs
// no JVM.
//
// Cassandra 4.1 pastes a body into a method of a generated class
// (JavaBasedUDFunction with its template JavaSourceUDF.txt), compiles it
// with the Eclipse compiler, checks the byte code (UDFByteCodeVerifier) and
// runs it in a sandbox. Compile does the same three steps for a subset of
// Java: it parses the body, checks it (names, static types, the verifier's
// rules), and returns a *Function that Call runs with a tree-walking
// evaluator.
//
// # The generated method
//
// The method is `private <R> x(<P1> a1, ...)` where R is the Java class of
// the return type and Pi that of each argument. The template imports
// java.nio.ByteBuffer, java.util.* and the driver's TypeCodec, TupleValue
// and UDTValue; java.lang.* is implicit. Other classes need their full
// name (java.math.BigInteger, java.net.InetAddress). The class has a
// field udfContext (UDFContext).
//
// A RETURNS NULL ON NULL INPUT function declares its arguments and its
// return type with the primitive types (int, long, double, ...), a CALLED
// ON NULL INPUT function with the boxed ones (Integer, Long, Double), as
// 4.1's UDFunction does (UDFDataType.wrap(type, !calledOnNullInput)); so
// the first cannot return null. Options.CalledOnNullInput selects which.
//
// # Type mapping
//
// CQL types map to Java classes as the codecs of
// org.apache.cassandra.cql3.functions.types do, and Java values to Go
// values (the Go forms of types.Decode and types.Encode) as follows:
//
//	CQL              Java class                   Go value in the evaluator
//	ascii, text      String                       string
//	int              Integer (int)                int32
//	bigint, counter  Long (long)                  int64
//	smallint         Short (short)                int16
//	tinyint          Byte (byte)                  int8
//	float, double    Float, Double                float32, float64
//	boolean          Boolean                      bool
//	varint, decimal  java.math.BigInteger, BigDecimal  *big.Int, types.DecimalValue
//	uuid, timeuuid   UUID                         types.UUIDValue
//	timestamp        Date                         time.Time
//	date             LocalDate (driver's)         types.DateValue
//	time             Long (nanoseconds of day)    int64
//	duration         Duration (driver's)          types.DurationValue
//	blob             ByteBuffer                   *jbuffer
//	inet             java.net.InetAddress         net.IP
//	list, set, map   List, Set, Map               *jlist, *jset, *jmap
//	tuple, UDT       TupleValue, UDTValue         *udtValue
//
// A CQL set or map decodes in its CQL order (the driver's LinkedHashSet and
// LinkedHashMap); a HashSet or HashMap the body creates iterates in
// java.util.HashMap's table order (hashorder.go), a TreeSet or TreeMap in
// compareTo order.
//
// # The subset
//
// Statements: local variable declarations (with final, arrays), blocks,
// if/else, while, do/while, for, enhanced for over arrays, lists, sets and
// a map's keySet/values/entrySet, labelled break and continue, return,
// throw, try/catch (with multi-catch)/finally, switch on int, char and
// String with fall-through, synchronized (refused by the verifier, as in
// Cassandra).
//
// Expressions: literals (int, long, hex/octal/binary, float, double, char,
// String), arithmetic with Java's promotion, int and long overflow wrap,
// integer division and remainder throwing ArithmeticException "/ by
// zero", shifts, bitwise and logical operators, comparison, string
// concatenation (String.valueOf conversion of every operand, Java's
// Double.toString digits), ++/--, compound assignment with its implicit
// narrowing cast, the conditional operator with numeric promotion,
// instanceof, casts (primitive conversions and checked reference casts),
// arrays (new, initializers, indexing with bounds checks, length), method
// calls on the classes below, new of those classes.
//
// Classes: Math, Integer, Long, Short, Byte, Double, Float, Boolean,
// Character (static helpers, valueOf, parse*, toString, MIN_VALUE/MAX_VALUE
// and friends), String, StringBuilder/StringBuffer, Objects, Arrays
// (asList, toString, sort, fill), Collections (empty*, singleton*,
// unmodifiable*, sort, reverse, max, min, frequency, swap), List/ArrayList/
// LinkedList, Set/HashSet/LinkedHashSet/TreeSet, Map/HashMap/LinkedHashMap/
// TreeMap, Map.Entry, Iterator, Date, UUID, java.math.BigInteger and
// BigDecimal (the exact operations), ByteBuffer, java.net.InetAddress
// (getAddress, getHostAddress), the driver's LocalDate and Duration,
// UDTValue and TupleValue (typed getters and setters by name or index),
// udfContext (newReturnUDTValue, newArgUDTValue, newUDTValue,
// newReturnTupleValue, newArgTupleValue, newTupleValue), the exception
// classes of java.lang, java.lang.Class (class literals, getClass of the
// values whose Java class is certain, getName, getSimpleName,
// getCanonicalName, getTypeName, isInstance, isInterface, isArray,
// isPrimitive; builtin_class.go), and System.currentTimeMillis/nanoTime.
// System.getProperty, getenv and exit throw AccessControlException, as
// Cassandra's sandbox does.
//
// Refused as Cassandra refuses them: classes its UDF class loader hides
// (UDFunction's allowed and disallowed patterns: java.io, java.nio.file,
// java.net but InetAddress and its two subclasses, UnknownHostException,
// NetworkInterface and SocketException, java.lang.Runtime/Thread/reflect,
// java.util.concurrent, org.apache.cassandra but the driver's types, ...)
// give "X cannot be resolved"; the byte-code verifier's rules, applied to
// the source (verifier.go: synchronized, Object's wait, notify, notifyAll,
// clone and finalize, Class's and ClassLoader's look-ups,
// ByteBuffer.allocateDirect, InetAddress's static and instance look-ups
// (getHostName, getCanonicalHostName, isReachable), any call of
// NetworkInterface or SocketException, and fields, initializers and member
// classes declared after a body that closes the method early) give "Java
// UDF validation failed: [...]" with the messages sorted (VerifyClass
// applies the same rules to the source of a whole class); the common
// compile errors (unresolved names, type mismatches, primitive parameters
// compared with null, duplicate locals, unreachable code, missing return)
// give Eclipse's texts. Bodies may name the driver's classes as
// com.datastax.driver.core.X, which Cassandra 4 rewrites to its own copy.
//
// Outside the subset (ErrUnsupported): lambdas and method references,
// anonymous and local classes, try-with-resources, switch rules (->),
// regular expressions (split, matches, replaceAll, replaceFirst) that Go's
// regexp does not read as Java does (lookaround, back references,
// possessive quantifiers, \p{Alpha}), Comparators, classes the loader
// shows that the interpreter lacks (java.time, java.text, Optional,
// Random, ...), and any method (or overload, by argument count) of a known
// class it does not implement.
//
// # Limits
//
// A call checks its context every 16 steps (statements, loop iterations,
// calls), so a busy loop ends with ErrTimeout at the deadline. Memory is
// bounded per call: collections and arrays of more than 2^20 elements,
// strings of more than 2^22 UTF-16 units and BigIntegers of more than 2^20
// bits throw OutOfMemoryError (ArithmeticException for BigInteger); bodies
// nest at most 200 levels.
//
// Deliberate differences: == on boxed numbers and strings compares values
// (Java compares references, so `new String("a") == "a"` is false there);
// the checker tracks static types only where it knows them (locals,
// parameters, literals, the methods above), so some compile errors Java
// reports at CREATE are left for Call; compile error texts follow the
// Eclipse compiler's for the common problems only.
//
// # Errors
//
// Compile returns a *CompileError (errors.Is ErrCompile), a
// *ValidationError (ErrValidation) or an *UnsupportedError
// (ErrUnsupported). Call returns an *Exception for a Java exception the
// body throws, an error wrapping ErrTimeout when ctx ends, and ErrInternal
// for a bug of the interpreter (no panic escapes).
package javaudf
