package javaudf

import (
	"strings"

	"github.com/minicass/minicass/types"
)

// jtype is a static Java type as the checker knows it: a primitive ("int"),
// or a class by its simple name ("Integer", "List", "UDTValue") with type
// arguments, and array dimensions. A nil *jtype is a type the checker does
// not track; checks involving it are skipped.
type jtype struct {
	name string
	args []*jtype
	dims int
}

var (
	tInt32   = &jtype{name: "int"}
	tInt64   = &jtype{name: "long"}
	tInt16   = &jtype{name: "short"}
	tInt8    = &jtype{name: "byte"}
	tChar16  = &jtype{name: "char"}
	tFloat32 = &jtype{name: "float"}
	tFloat64 = &jtype{name: "double"}
	tBool    = &jtype{name: "boolean"}
	tVoid    = &jtype{name: "void"}
	tStr     = &jtype{name: "String"}
	tObject  = &jtype{name: "Object"}
	tNull    = &jtype{name: "null"}
)

// String formats the type as the Eclipse compiler prints it in messages.
func (t *jtype) String() string {
	if t == nil {
		return "?"
	}
	var b strings.Builder
	b.WriteString(t.name)
	if len(t.args) > 0 {
		b.WriteByte('<')
		for i, a := range t.args {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(a.String())
		}
		b.WriteByte('>')
	}
	for range t.dims {
		b.WriteString("[]")
	}
	return b.String()
}

func (t *jtype) isPrim() bool {
	return t != nil && t.dims == 0 && primitiveNames[t.name]
}

// boxes maps primitives to their wrapper classes.
var boxes = map[string]string{
	"int": "Integer", "long": "Long", "short": "Short", "byte": "Byte", "char": "Character",
	"float": "Float", "double": "Double", "boolean": "Boolean",
}

var unboxes = map[string]string{
	"Integer": "int", "Long": "long", "Short": "short", "Byte": "byte", "Character": "char",
	"Float": "float", "Double": "double", "Boolean": "boolean",
}

// numRank orders the numeric primitives for widening.
var numRank = map[string]int{"byte": 1, "short": 2, "char": 2, "int": 3, "long": 4, "float": 5, "double": 6}

// unboxed returns the primitive of t or of its wrapper, or nil.
func unboxed(t *jtype) *jtype {
	if t == nil || t.dims > 0 {
		return nil
	}
	if t.isPrim() {
		return t
	}
	if p, ok := unboxes[t.name]; ok {
		return &jtype{name: p}
	}
	return nil
}

func isNumericType(t *jtype) bool {
	u := unboxed(t)
	return u != nil && numRank[u.name] > 0
}

// promote gives the binary numeric promotion of two numeric types.
func promote(a, b *jtype) *jtype {
	ua, ub := unboxed(a), unboxed(b)
	if ua == nil || ub == nil {
		return nil
	}
	for _, n := range []string{"double", "float", "long"} {
		if ua.name == n || ub.name == n {
			return &jtype{name: n}
		}
	}
	return tInt32
}

// superclasses lists, per class, the classes and interfaces it is
// assignable to (besides Object and itself).
var superclasses = map[string][]string{
	"Integer": {"Number", "Comparable"}, "Long": {"Number", "Comparable"}, "Short": {"Number", "Comparable"},
	"Byte": {"Number", "Comparable"}, "Float": {"Number", "Comparable"}, "Double": {"Number", "Comparable"},
	"BigInteger": {"Number", "Comparable"}, "BigDecimal": {"Number", "Comparable"},
	"Boolean": {"Comparable"}, "Character": {"Comparable"},
	"String":        {"CharSequence", "Comparable"},
	"StringBuilder": {"CharSequence"}, "StringBuffer": {"CharSequence"},
	"ArrayList": {"List", "Collection", "Iterable", "AbstractList"}, "LinkedList": {"List", "Collection", "Iterable"},
	"List":    {"Collection", "Iterable"},
	"HashSet": {"Set", "Collection", "Iterable"}, "LinkedHashSet": {"Set", "HashSet", "Collection", "Iterable"},
	"TreeSet": {"Set", "SortedSet", "NavigableSet", "Collection", "Iterable"},
	"Set":     {"Collection", "Iterable"}, "SortedSet": {"Set", "Collection", "Iterable"},
	"Collection": {"Iterable"},
	"HashMap":    {"Map"}, "LinkedHashMap": {"Map", "HashMap"}, "TreeMap": {"Map", "SortedMap", "NavigableMap"},
	"SortedMap": {"Map"},
	"Date":      {"Comparable"}, "UUID": {"Comparable"},
	"Exception":        {"Throwable"},
	"RuntimeException": {"Exception", "Throwable"},
}

// isSubclass reports whether class a is assignable to class b.
func isSubclass(a, b string) bool {
	if a == b || b == "Object" {
		return true
	}
	for _, s := range superclasses[a] {
		if s == b {
			return true
		}
	}
	if ex, ok := exceptionClasses[a]; ok {
		for c := ex.super; c != ""; c = exceptionClasses[c].super {
			if c == b {
				return true
			}
		}
	}
	return false
}

// assignable reports whether a value of static type from may be assigned
// to a variable of type to (JLS 5.2, without constant narrowing, which the
// caller handles). Unknown types are assignable.
func assignable(from, to *jtype) bool {
	if from == nil || to == nil {
		return true
	}
	if from == tNull || from.name == "null" {
		return !to.isPrim()
	}
	if to.isPrim() {
		u := unboxed(from)
		if u == nil {
			return false
		}
		if u.name == to.name {
			return true
		}
		if to.name == "boolean" || u.name == "boolean" {
			return false
		}
		if u.name == "char" {
			return numRank[to.name] >= 3
		}
		if to.name == "char" {
			return false
		}
		return numRank[u.name] < numRank[to.name]
	}
	if from.isPrim() {
		b := boxes[from.name]
		return b == to.name || to.dims == 0 && (to.name == "Object" || isSubclass(b, to.name))
	}
	if from.dims != to.dims {
		return to.name == "Object" && to.dims == 0
	}
	if from.dims > 0 {
		return from.name == to.name || to.name == "Object" && !primitiveNames[from.name]
	}
	return isSubclass(from.name, to.name) || !knownClass(from.name) || !knownClass(to.name)
}

func knownClass(name string) bool {
	_, ok := classNames[name]
	if !ok {
		_, ok = exceptionClasses[name]
	}
	return ok
}

// classNames maps the names a body may write for a class (simple names of
// java.lang, java.util and the template's imports, and fully qualified
// names) to the simple name the interpreter uses.
var classNames = map[string]string{}

func init() {
	lang := []string{"Object", "String", "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean",
		"Character", "Number", "Math", "StrictMath", "StringBuilder", "StringBuffer", "System", "CharSequence",
		"Comparable", "Iterable", "Class", "ClassLoader"}
	util := []string{"List", "ArrayList", "LinkedList", "Set", "HashSet", "LinkedHashSet", "TreeSet", "SortedSet",
		"NavigableSet", "Map", "HashMap", "LinkedHashMap", "TreeMap", "SortedMap", "NavigableMap", "Collection",
		"Collections", "Arrays", "Iterator", "Date", "UUID", "Objects", "AbstractList"}
	for _, n := range lang {
		classNames[n] = n
		classNames["java.lang."+n] = n
	}
	for _, n := range util {
		classNames[n] = n
		classNames["java.util."+n] = n
	}
	classNames["Map.Entry"] = "Map.Entry"
	classNames["java.util.Map.Entry"] = "Map.Entry"
	classNames["java.math.BigInteger"] = "BigInteger"
	classNames["java.math.BigDecimal"] = "BigDecimal"
	classNames["ByteBuffer"] = "ByteBuffer"
	classNames["java.nio.ByteBuffer"] = "ByteBuffer"
	classNames["java.net.InetAddress"] = "InetAddress"
	classNames["java.net.Inet4Address"] = "Inet4Address"
	classNames["java.net.Inet6Address"] = "Inet6Address"
	classNames["java.net.NetworkInterface"] = "NetworkInterface"
	const drv = "org.apache.cassandra.cql3.functions.types."
	for _, n := range []string{"UDTValue", "TupleValue", "TypeCodec"} {
		classNames[n] = n
		classNames[drv+n] = n
	}
	classNames[drv+"LocalDate"] = "LocalDate"
	classNames[drv+"Duration"] = "Duration"
	classNames[drv+"UserType"] = "UserType"
	classNames[drv+"TupleType"] = "TupleType"
	for n, ec := range exceptionClasses {
		if ec.pkg == "java.lang" || ec.pkg == "java.util" {
			classNames[n] = n // imported by the template
		}
		classNames[ec.pkg+"."+n] = n
	}
}

// resolveType turns a written type into a jtype, or reports the name that
// cannot be resolved.
func resolveType(tr *typeRef) (*jtype, string) {
	if tr == nil {
		return nil, ""
	}
	t := &jtype{dims: tr.dims}
	if primitiveNames[tr.name] {
		t.name = tr.name
	} else if tr.name == "?" {
		if len(tr.args) == 1 {
			return resolveType(tr.args[0])
		}
		return tObject, ""
	} else {
		n, ok := classNames[tr.name]
		if !ok {
			return nil, tr.name
		}
		t.name = n
	}
	for _, a := range tr.args {
		at, bad := resolveType(a)
		if bad != "" {
			return nil, bad
		}
		t.args = append(t.args, at)
	}
	return t, ""
}

// javaTypeOf gives the Java type Cassandra's codecs use for a CQL type
// (CodecRegistry of org.apache.cassandra.cql3.functions.types), as a
// parameter (prim: RETURNS NULL ON NULL INPUT unboxes the wrappers,
// UDHelper.javaTypes) or return type.
func javaTypeOf(t types.Type, prim bool) *jtype {
	var j *jtype
	switch t.Kind {
	case types.Ascii, types.Text:
		j = tStr
	case types.Int:
		j = &jtype{name: "Integer"}
	case types.Bigint, types.Counter, types.Time:
		j = &jtype{name: "Long"}
	case types.Smallint:
		j = &jtype{name: "Short"}
	case types.Tinyint:
		j = &jtype{name: "Byte"}
	case types.Float:
		j = &jtype{name: "Float"}
	case types.Double:
		j = &jtype{name: "Double"}
	case types.Boolean:
		j = &jtype{name: "Boolean"}
	case types.Varint:
		j = &jtype{name: "BigInteger"}
	case types.Decimal:
		j = &jtype{name: "BigDecimal"}
	case types.UUID, types.TimeUUID:
		j = &jtype{name: "UUID"}
	case types.Timestamp:
		j = &jtype{name: "Date"}
	case types.Date:
		j = &jtype{name: "LocalDate"}
	case types.Duration:
		j = &jtype{name: "Duration"}
	case types.Blob:
		j = &jtype{name: "ByteBuffer"}
	case types.Inet:
		j = &jtype{name: "InetAddress"}
	case types.List:
		return &jtype{name: "List", args: []*jtype{javaTypeOf(t.Params[0], false)}}
	case types.Set:
		return &jtype{name: "Set", args: []*jtype{javaTypeOf(t.Params[0], false)}}
	case types.Map:
		return &jtype{name: "Map", args: []*jtype{javaTypeOf(t.Params[0], false), javaTypeOf(t.Params[1], false)}}
	case types.Tuple:
		if t.UDT != nil {
			return &jtype{name: "UDTValue"}
		}
		return &jtype{name: "TupleValue"}
	default:
		return &jtype{name: "ByteBuffer"}
	}
	if prim {
		if p, ok := unboxes[j.name]; ok {
			return &jtype{name: p}
		}
	}
	return j
}
