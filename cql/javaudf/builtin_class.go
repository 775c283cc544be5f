package javaudf

import (
	"net"
	"strings"
)

// java.lang.Class. Cassandra 4.1's UDF class loader shows all of java.lang
// but the classes UDFunction's disallowedPatterns name, and Class and
// ClassLoader are not among them, so a body may name both, write class
// literals and call getClass. What a sandbox cannot allow, UDFByteCodeVerifier
// refuses by method (verifier.go: Class's forName, getClassLoader,
// getResource and getResourceAsStream, ClassLoader's look-ups); the rest of
// Class's reflection (getMethods, getFields, newInstance, ...) is outside
// the subset.
//
// A *jclass holds the Java type it stands for. Class objects are unique per
// type in a JVM, so == and equals compare the types.

// binaryName is Class.getName of a class the interpreter knows by its
// simple name (java.util.Map$Entry).
func binaryName(simple string) string {
	if in, ok := internalNames[simple]; ok {
		return strings.ReplaceAll(in, "/", ".")
	}
	return qualifiedClass(simple)
}

// primDescriptors are the JVM descriptors of the primitive types, which
// Class.getName of an array spells.
var primDescriptors = map[string]string{
	"int": "I", "long": "J", "short": "S", "byte": "B", "char": "C", "float": "F", "double": "D", "boolean": "Z",
}

// className is Class.getName.
func (c *jclass) className() string {
	t := c.t
	if t.dims == 0 {
		if t.isPrim() {
			return t.name
		}
		return binaryName(t.name)
	}
	elem := primDescriptors[t.name]
	if elem == "" {
		elem = "L" + binaryName(t.name) + ";"
	}
	return strings.Repeat("[", t.dims) + elem
}

// canonicalName is Class.getCanonicalName (and getTypeName, the same for
// the classes a body can name: none is a local or anonymous class).
func (c *jclass) canonicalName() string {
	n := c.t.name
	if !c.t.isPrim() {
		n = strings.ReplaceAll(binaryName(n), "$", ".")
	}
	return n + strings.Repeat("[]", c.t.dims)
}

// simpleName is Class.getSimpleName.
func (c *jclass) simpleName() string {
	n := c.t.name
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		n = n[i+1:] // Map.Entry
	}
	return n + strings.Repeat("[]", c.t.dims)
}

// isInterface is Class.isInterface.
func (c *jclass) isInterface() bool { return c.t.dims == 0 && isInterface(c.t.name) }

// String is Class.toString: "class java.lang.Integer", "interface
// java.util.List", or a primitive type's name.
func (c *jclass) String() string {
	switch {
	case c.t.dims == 0 && c.t.isPrim():
		return c.t.name
	case c.isInterface():
		return "interface " + c.className()
	}
	return "class " + c.className()
}

// exactClasses are the simple names simpleClass gives only for values
// whose Java runtime class is that class itself. Other values (collections,
// whose class depends on how Java would have made them, such as
// Arrays$ArrayList or Collections$UnmodifiableSet; buffers, which are
// HeapByteBuffers; arrays, iterators and entries) have no getClass in the
// subset.
var exactClasses = map[string]bool{
	"Integer": true, "Long": true, "Short": true, "Byte": true, "Character": true, "Float": true,
	"Double": true, "Boolean": true, "String": true, "BigInteger": true, "BigDecimal": true, "Date": true,
	"UUID": true, "LocalDate": true, "Duration": true, "UDTValue": true, "TupleValue": true,
}

// getClass is Object.getClass of a non-null value.
func getClass(v any, line int) *jclass {
	switch x := v.(type) {
	case *jclass:
		return &jclass{&jtype{name: "Class"}}
	case net.IP:
		// InetAddress.getByAddress makes an Inet4Address of four bytes (and
		// of a v4-mapped address), an Inet6Address otherwise.
		if x.To4() != nil {
			return &jclass{&jtype{name: "Inet4Address"}}
		}
		return &jclass{&jtype{name: "Inet6Address"}}
	case *jexception:
		return &jclass{&jtype{name: x.class}}
	}
	s := simpleClass(v)
	if !exactClasses[s] {
		panic(&UnsupportedError{Line: line, Construct: "getClass of a " + s})
	}
	return &jclass{&jtype{name: s}}
}

// classMethod runs a method of java.lang.Class (equals, hashCode and
// toString are callMethod's).
func classMethod(c *jclass, name string, args []any, line int) any {
	switch name {
	case "getName":
		return c.className()
	case "getSimpleName":
		return c.simpleName()
	case "getCanonicalName", "getTypeName":
		return c.canonicalName()
	case "isInterface":
		return c.isInterface()
	case "isArray":
		return c.t.dims > 0
	case "isPrimitive":
		return c.t.dims == 0 && c.t.isPrim()
	case "isInstance":
		if len(args) == 1 {
			return !(c.t.dims == 0 && c.t.isPrim()) && instanceOf(args[0], c.t)
		}
	}
	panic(&UnsupportedError{Line: line, Construct: "the method Class." + name})
}

// sameClass reports whether two Class objects stand for the same type.
func sameClass(a, b *jclass) bool {
	return a.t.name == b.t.name && a.t.dims == b.t.dims
}
