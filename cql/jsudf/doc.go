// Package jsudf runs the bodies of Cassandra's JavaScript user-defined
// functions (CREATE FUNCTION ... LANGUAGE javascript AS '...'), which 4.1
// runs in Nashorn through ScriptBasedUDFunction, here on the pure-Go
// ECMAScript engine goja (github.com/dop251/goja).
//
// # Compile and call
//
// Compile parses the body once (Nashorn's Compilable.compile); a syntax
// error is a *CompileError worded as 4.1's InvalidRequestException
// ("Failed to compile function 'ks.f' for language javascript:
// javax.script.ScriptException: ..."). Call runs the program in a fresh
// runtime, 4.1's SimpleScriptContext: each argument is a global named
// after the parameter, udfContext another, and the value of the script's
// last expression statement is the result.
//
// # Arguments
//
// An argument is the Java object the driver's codec gives for its CQL type,
// as Nashorn presents it:
//
//	CQL                   Java class            in the script
//	ascii, text           String                a string
//	int, double           Integer, Double       a number
//	boolean               Boolean               a boolean
//	bigint, counter, time Long                  a Java object (time: nanoseconds)
//	smallint, tinyint     Short, Byte           a Java object
//	float                 Float                 a Java object
//	varint, decimal       BigInteger, BigDecimal a Java object
//	uuid, timeuuid        UUID                  a Java object
//	timestamp             Date                  a Java object
//	date, duration        LocalDate, Duration   the driver's, Java objects
//	blob                  ByteBuffer            a Java object
//	inet                  InetAddress           a Java object
//	list, set, map        ArrayList, LinkedHashSet, LinkedHashMap
//	tuple, user type      TupleValue, UDTValue  the driver's, Java objects
//
// null is null. A numeric Java object's valueOf is its doubleValue, so
// arithmetic on it gives a number, as in Nashorn (`val + 1` for a bigint
// is a number, not a Long).
//
// # Methods of the Java objects
//
// Every object: toString, valueOf, equals, hashCode, getClass. Numbers:
// intValue, longValue, shortValue, byteValue, floatValue, doubleValue.
// Date: getTime. UUID: version, getMostSignificantBits,
// getLeastSignificantBits. LocalDate: getDaysSinceEpoch, getYear, getMonth,
// getDay. Duration: getMonths, getDays, getNanoseconds. ByteBuffer:
// remaining, limit, capacity, position, get(i). InetAddress:
// getHostAddress. List and Set: size, isEmpty, contains, iterator (hasNext,
// next), add; List also get(i), indexOf and indexing (lst[0]). Map: size,
// isEmpty, get, containsKey, keySet, values, put, and for text keys
// property access (m.key). TupleValue and UDTValue: get<T>(index or field
// name) and set<T>(index or name, value) for the driver's T (Bool, Byte,
// Short, Int, Long, Timestamp, Date, Time, Float, Double, Bytes, String,
// Varint, Decimal, UUID, Inet, List, Set, Map, UDTValue, TupleValue,
// Object; the class arguments of getList/getSet/getMap are ignored), and
// isNull. udfContext is 4.1's UDFContextWrapper: newReturnUDTValue,
// newArgUDTValue, newReturnTupleValue, newArgTupleValue.
//
// A Java method given a script value converts it as Nashorn does: a
// number to the parameter's class (Integer, Long, ...), a Java object as it
// is.
//
// # Java classes
//
// The globals java, javax, com, org, edu, javafx and Packages are Nashorn's
// package objects, and Java.type(name) looks a class up. Both reach only
// classes that 4.1's ClassFilter shows (UDFunction.secureResource with its
// allowed and disallowed patterns) and that the shim implements: java.lang
// Math and StrictMath (the usual static functions and PI, E), Integer,
// Long, Short, Byte, Double, Float (valueOf, parse*, MIN_VALUE and
// MAX_VALUE where Java has them), String, Boolean, Object and Number (for
// X.class), and java.math BigInteger and BigDecimal (valueOf). Any other
// name reads as a package (so calling it is a TypeError), and Java.type of
// it throws java.lang.ClassNotFoundException. Classes cannot be
// constructed (new java.math.BigInteger(...) throws).
//
// # Result
//
// The result converts to the return type as executeScriptInternal does:
// null and undefined give null; a value of the return type's Java class is
// kept; another Number converts with intValue, longValue, ... (to a
// BigInteger through BigDecimal for a double, to a BigDecimal from its
// toString); anything else fails as the codec's InvalidTypeException
// "Invalid value for CQL type T". A JavaScript number counts as a Double.
//
// # Errors and limits
//
// An uncaught throw ends the call with an *Exception, Nashorn's
// java.lang.RuntimeException wrapping "javax.script.ScriptException: V in
// <eval> at line number N". The call's context deadline interrupts the
// runtime (ErrTimeout); the call stack is bounded (StackOverflowError), and
// the process's Go heap may grow by at most 256 MiB while a call runs
// (OutOfMemoryError). goja's built-ins run in Go, beyond an interrupt's
// reach, so the ones that loop over an array's length or build a string of
// a given length (guard.go) refuse arrays longer than 2^22 elements and
// results longer than 2^22 UTF-16 units with an OutOfMemoryError first
// (set up only for a body whose identifiers may reach them, needsGuard;
// likewise the Java globals, needsJava), and
// a backtracking regular expression match gives up after 1,500 ms. No
// panic escapes (ErrInternal).
package jsudf
