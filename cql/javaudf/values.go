package javaudf

import (
	"encoding/hex"
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
)

// Java values as the evaluator holds them:
//
//	int, long, short, byte        int32, int64, int16, int8 (boxed alike)
//	char                          jchar
//	float, double                 float32, float64
//	boolean                       bool
//	String                        string
//	null                          nil
//	BigInteger, BigDecimal        *big.Int, types.DecimalValue
//	Date, LocalDate, Duration     time.Time, types.DateValue, types.DurationValue
//	UUID, InetAddress             types.UUIDValue, net.IP
//	ByteBuffer                    *jbuffer
//	List, Set, Map                *jlist, *jset, *jmap
//	UDTValue, TupleValue          *udtValue
//	arrays                        *jarray
//	StringBuilder                 *jbuilder
//	exceptions                    *jexception
//
// A boxed value and its primitive share the Go form: the static type of
// the variable decides whether null is allowed and unboxing a null throws
// NullPointerException.

// jchar is a Java char value.
type jchar uint16

// jlist is a java.util.List (ArrayList, or the driver's decoded list).
type jlist struct {
	elems     []any
	immutable bool
}

// jset is a java.util.Set. A sorted set (TreeSet) keeps its elements in
// compareTo order; other sets keep insertion order (the driver decodes a CQL
// set into a LinkedHashSet in the set's order).
type jset struct {
	elems     []any
	sorted    bool
	immutable bool
	// hashCap is the table size of a HashSet (see hashorder.go), 0 for
	// a set iterating in insertion or sorted order.
	hashCap int
}

// jmap is a java.util.Map, ordered as jset is.
type jmap struct {
	keys, vals []any
	sorted     bool
	immutable  bool
	// hashCap is the table size of a HashMap, as jset's.
	hashCap int
}

// jentry is a Map.Entry; m is the map it belongs to (nil for none), which
// setValue writes through to.
type jentry struct {
	k, v any
	m    *jmap
}

// jarray is a Java array.
type jarray struct {
	elem *jtype
	vals []any
}

// jbuilder is a StringBuilder (or StringBuffer).
type jbuilder struct{ s []uint16 }

// jbuffer is a java.nio.ByteBuffer over b with position pos (limit is
// len(b)).
type jbuffer struct {
	b   []byte
	pos int
}

// udtValue is a UDTValue or TupleValue of type t (a tuple type; t.UDT is
// set for a user type).
type udtValue struct {
	t      types.Type
	fields []any
}

// jclass is a class literal (Integer.class), as UDTValue.getList takes.
type jclass struct{ t *jtype }

// jiterator is an Iterator over a snapshot of a collection.
type jiterator struct {
	items []any
	i     int
}

func (a *jarray) index(idx any) int {
	i := toInt64(idx)
	if i < 0 || i >= int64(len(a.vals)) {
		throwJava("ArrayIndexOutOfBoundsException", "Index "+itoa(i)+" out of bounds for length "+itoa(int64(len(a.vals))))
	}
	return int(i)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func newArray(at *jtype, sizes []int) *jarray {
	elem := &jtype{name: at.name, args: at.args, dims: at.dims - 1}
	a := &jarray{elem: elem, vals: make([]any, sizes[0])}
	for i := range a.vals {
		if len(sizes) > 1 {
			a.vals[i] = newArray(elem, sizes[1:])
		} else {
			a.vals[i] = zeroOf(elem)
		}
	}
	return a
}

// zeroOf is the default value of a variable of type t.
func zeroOf(t *jtype) any {
	if t == nil || !t.isPrim() {
		return nil
	}
	switch t.name {
	case "int":
		return int32(0)
	case "long":
		return int64(0)
	case "short":
		return int16(0)
	case "byte":
		return int8(0)
	case "char":
		return jchar(0)
	case "float":
		return float32(0)
	case "double":
		return float64(0)
	case "boolean":
		return false
	}
	return nil
}

func isNum(v any) bool {
	switch v.(type) {
	case int32, int64, int16, int8, jchar, float32, float64:
		return true
	}
	return false
}

func toInt64(v any) int64 {
	switch n := v.(type) {
	case int32:
		return int64(n)
	case int64:
		return n
	case int16:
		return int64(n)
	case int8:
		return int64(n)
	case jchar:
		return int64(n)
	case float32:
		return f2l(float64(n))
	case float64:
		return f2l(n)
	case nil:
		throwNPE()
	}
	return 0
}

// f2l is Java's (long) of a double: NaN gives 0, out of range saturates.
func f2l(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// f2i is Java's (int) of a double.
func f2i(f float64) int32 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

func toFloat64(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case float32:
		return float64(n)
	case nil:
		throwNPE()
	}
	return float64(toInt64(v))
}

func toFloat32(v any) float32 {
	switch n := v.(type) {
	case float32:
		return n
	case float64:
		return float32(n)
	case int64:
		return float32(n)
	}
	return float32(toInt64(v))
}

// convertNum converts a number to the primitive kind name (a Java
// primitive conversion: widening or narrowing).
func convertNum(v any, kind string) any {
	if v == nil {
		throwNPE()
	}
	if !isNum(v) {
		return v
	}
	isF := false
	var f float64
	switch n := v.(type) {
	case float32:
		isF, f = true, float64(n)
	case float64:
		isF, f = true, n
	}
	switch kind {
	case "double":
		return toFloat64(v)
	case "float":
		return toFloat32(v)
	case "long":
		return toInt64(v)
	case "int":
		if isF {
			return f2i(f)
		}
		return int32(toInt64(v))
	case "short":
		if isF {
			return int16(f2i(f))
		}
		return int16(toInt64(v))
	case "byte":
		if isF {
			return int8(f2i(f))
		}
		return int8(toInt64(v))
	case "char":
		if isF {
			return jchar(f2i(f))
		}
		return jchar(toInt64(v))
	}
	return v
}

// castNum converts res to the Go type of old (the implicit narrowing of
// compound assignment and ++/--).
func castNum(res, old any) any {
	switch old.(type) {
	case int32:
		return convertNum(res, "int")
	case int64:
		return convertNum(res, "long")
	case int16:
		return convertNum(res, "short")
	case int8:
		return convertNum(res, "byte")
	case jchar:
		return convertNum(res, "char")
	case float32:
		return convertNum(res, "float")
	case float64:
		return convertNum(res, "double")
	}
	return res
}

// coerce converts a value assigned to a variable of type t: primitive
// widening (and unboxing, where null throws NullPointerException), and
// boxing into the wrapper of t.
func coerce(v any, t *jtype) any {
	if t == nil || t.dims > 0 {
		return v
	}
	name := t.name
	if p, ok := unboxes[name]; ok {
		if v == nil {
			return nil
		}
		name = p
	} else if !t.isPrim() {
		return v
	}
	if v == nil {
		throwNPE()
	}
	if name == "boolean" {
		return v
	}
	return convertNum(v, name)
}

// castTo applies a cast expression's conversion.
func castTo(v any, t *jtype) any {
	if t == nil {
		return v
	}
	if t.isPrim() {
		if v == nil {
			throwNPE()
		}
		if t.name == "boolean" {
			return v
		}
		return convertNum(v, t.name)
	}
	if v == nil {
		return nil
	}
	if !instanceOf(v, t) {
		throwClassCast(javaClassName(v), qualifiedClass(t.name))
	}
	return v
}

// javaClassName is the runtime class of a value, qualified.
func javaClassName(v any) string {
	return qualifiedClass(simpleClass(v))
}

func qualifiedClass(n string) string {
	switch n {
	case "Integer", "Long", "Short", "Byte", "Character", "Float", "Double", "Boolean", "String", "Object",
		"StringBuilder", "Number", "Class", "ClassLoader":
		return "java.lang." + n
	case "ArrayList", "HashSet", "TreeSet", "HashMap", "TreeMap", "Date", "UUID", "List", "Set", "Map",
		"LinkedHashSet", "LinkedHashMap":
		return "java.util." + n
	case "BigInteger", "BigDecimal":
		return "java.math." + n
	case "UDTValue", "TupleValue", "LocalDate", "Duration":
		return "org.apache.cassandra.cql3.functions.types." + n
	case "ByteBuffer":
		return "java.nio.ByteBuffer"
	case "InetAddress":
		return "java.net.InetAddress"
	}
	return qualifiedException(n)
}

// simpleClass is the simple name of a value's runtime class.
func simpleClass(v any) string {
	switch x := v.(type) {
	case int32:
		return "Integer"
	case int64:
		return "Long"
	case int16:
		return "Short"
	case int8:
		return "Byte"
	case jchar:
		return "Character"
	case float32:
		return "Float"
	case float64:
		return "Double"
	case bool:
		return "Boolean"
	case string:
		return "String"
	case *big.Int:
		return "BigInteger"
	case types.DecimalValue:
		return "BigDecimal"
	case time.Time:
		return "Date"
	case types.DateValue:
		return "LocalDate"
	case types.DurationValue:
		return "Duration"
	case types.UUIDValue:
		return "UUID"
	case net.IP:
		return "InetAddress"
	case *jbuffer:
		return "ByteBuffer"
	case *jlist:
		return "ArrayList"
	case *jset:
		switch {
		case x.sorted:
			return "TreeSet"
		case x.hashCap > 0:
			return "HashSet"
		}
		return "LinkedHashSet"
	case *jmap:
		switch {
		case x.sorted:
			return "TreeMap"
		case x.hashCap > 0:
			return "HashMap"
		}
		return "LinkedHashMap"
	case *udtValue:
		if x.t.UDT != nil {
			return "UDTValue"
		}
		return "TupleValue"
	case *jbuilder:
		return "StringBuilder"
	case *jexception:
		return x.class
	case *jarray:
		return "Object[]"
	case *jentry:
		return "Map.Entry"
	case *jiterator:
		return "Iterator"
	case *jclass:
		return "Class"
	}
	return "Object"
}

// instanceOf reports whether v is an instance of t (false for null).
func instanceOf(v any, t *jtype) bool {
	if v == nil {
		return false
	}
	if t == nil || t.name == "Object" && t.dims == 0 {
		return true
	}
	if a, ok := v.(*jarray); ok {
		return t.dims > 0 && (a.elem == nil || a.elem.name == t.name || t.name == "Object")
	}
	if t.dims > 0 {
		return false
	}
	return isSubclass(simpleClass(v), t.name)
}

// javaString is String.valueOf(v).
func javaString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *jclass:
		return x.String()
	case string:
		return x
	case int32, int64, int16, int8:
		return itoa(toInt64(x))
	case jchar:
		return string(rune(x))
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return types.JavaFloat(x, 64)
	case float32:
		return types.JavaFloat(float64(x), 32)
	case *big.Int:
		return x.String()
	case types.DecimalValue:
		return x.String()
	case time.Time:
		return x.UTC().Format("Mon Jan 02 15:04:05 UTC 2006")
	case types.DateValue:
		return x.ISOString()
	case types.DurationValue:
		return x.String()
	case types.UUIDValue:
		return x.String()
	case net.IP:
		if v4 := x.To4(); v4 != nil && len(x) == 4 {
			return "/" + v4.String()
		}
		return "/" + x.String()
	case *jbuffer:
		return "java.nio.HeapByteBuffer[pos=" + strconv.Itoa(x.pos) + " lim=" + strconv.Itoa(len(x.b)) + " cap=" + strconv.Itoa(len(x.b)) + "]"
	case *jlist:
		return joinValues("[", x.elems, "]")
	case *jset:
		return joinValues("[", x.items(), "]")
	case *jmap:
		var b strings.Builder
		b.WriteByte('{')
		for n, i := range x.order() {
			if n > 0 {
				b.WriteString(", ")
			}
			b.WriteString(javaString(x.keys[i]) + "=" + javaString(x.vals[i]))
		}
		b.WriteByte('}')
		return b.String()
	case *jentry:
		return javaString(x.k) + "=" + javaString(x.v)
	case *udtValue:
		return udtString(x)
	case *jbuilder:
		return utf16String(x.s)
	case *jexception:
		return x.toString()
	case *jarray:
		return "[Ljava.lang.Object;@1"
	}
	return "?"
}

func joinValues(open string, vs []any, close string) string {
	var b strings.Builder
	b.WriteString(open)
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(javaString(v))
	}
	b.WriteString(close)
	return b.String()
}

// udtString formats a UDTValue or TupleValue as Cassandra's copy of the
// driver formats it (toString is its codec's format): {name:value,...} for a
// user type, (value,...) for a tuple, each field a CQL literal or NULL
// (UFTypesTest.testFunctionWithFrozenTupleType expects "(1,2)" and
// "(NULL,NULL)").
func udtString(u *udtValue) string {
	var b strings.Builder
	sep, open, close := ",", "(", ")"
	if u.t.UDT != nil {
		open, close = "{", "}"
	}
	b.WriteString(open)
	for i, f := range u.fields {
		if i > 0 {
			b.WriteString(sep)
		}
		if u.t.UDT != nil {
			b.WriteString(types.QuoteName(u.t.UDT.Fields[i]) + ":")
		}
		b.WriteString(fieldLiteral(u.t.Params[i], f))
	}
	b.WriteString(close)
	return b.String()
}

// fieldLiteral formats one field value as the driver's codec format
// does: a CQL literal without spaces in collections, or NULL.
func fieldLiteral(t types.Type, v any) string {
	if v == nil {
		return "NULL"
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch x := v.(type) {
	case *udtValue:
		return udtString(x)
	case string:
		return quote(x)
	case float64:
		return types.JavaFloat(x, 64)
	case float32:
		return types.JavaFloat(float64(x), 32)
	case time.Time:
		return quote(x.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	case types.DateValue:
		return quote(x.ISOString())
	case net.IP:
		return quote(strings.TrimPrefix(javaString(x), "/"))
	case *jbuffer:
		return "0x" + hex.EncodeToString(x.b[x.pos:])
	case *jlist:
		return joinLiterals("[", t, 0, x.elems, "]")
	case *jset:
		return joinLiterals("{", t, 0, x.elems, "}")
	case *jmap:
		var b strings.Builder
		b.WriteByte('{')
		for i := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(fieldLiteral(param(t, 0), x.keys[i]) + ":" + fieldLiteral(param(t, 1), x.vals[i]))
		}
		b.WriteByte('}')
		return b.String()
	}
	if t.Kind == types.Time {
		n := toInt64(v)
		return quote(time.Unix(0, n).UTC().Format("15:04:05.000000000"))
	}
	return javaString(v)
}

func param(t types.Type, i int) types.Type {
	if i < len(t.Params) {
		return t.Params[i]
	}
	return types.Type{}
}

func joinLiterals(open string, t types.Type, p int, vs []any, close string) string {
	var b strings.Builder
	b.WriteString(open)
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(fieldLiteral(param(t, p), v))
	}
	b.WriteString(close)
	return b.String()
}

// identical is == on references: value equality for the immutable value
// classes (strings, boxed numbers, ...; see the package documentation),
// identity for mutable objects.
func identical(a, b any) bool {
	switch a.(type) {
	case *jlist, *jset, *jmap, *jarray, *jbuilder, *udtValue, *jbuffer, *jexception, *jiterator, *jentry:
		return a == b
	}
	return javaEquals(a, b)
}

// javaEquals is a.equals(b) with Java's semantics (a boxed Integer never
// equals a Long; doubles compare by bits).
func javaEquals(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch x := a.(type) {
	case *jclass:
		y, ok := b.(*jclass)
		return ok && sameClass(x, y)
	case float64:
		y, ok := b.(float64)
		return ok && canonBits64(x) == canonBits64(y)
	case float32:
		y, ok := b.(float32)
		return ok && canonBits64(float64(x)) == canonBits64(float64(y))
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case types.DecimalValue:
		y, ok := b.(types.DecimalValue)
		return ok && x.Scale == y.Scale && x.Unscaled.Cmp(y.Unscaled) == 0
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case net.IP:
		y, ok := b.(net.IP)
		return ok && x.Equal(y)
	case *jbuffer:
		y, ok := b.(*jbuffer)
		return ok && string(x.b[x.pos:]) == string(y.b[y.pos:])
	case *jlist:
		y, ok := b.(*jlist)
		return ok && equalSlices(x.elems, y.elems)
	case *jset:
		y, ok := b.(*jset)
		if !ok || len(x.elems) != len(y.elems) {
			return false
		}
		for _, e := range x.elems {
			if indexOf(y.elems, e) < 0 {
				return false
			}
		}
		return true
	case *jmap:
		y, ok := b.(*jmap)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for i, k := range x.keys {
			j := indexOf(y.keys, k)
			if j < 0 || !javaEquals(x.vals[i], y.vals[j]) {
				return false
			}
		}
		return true
	case *jentry:
		y, ok := b.(*jentry)
		return ok && javaEquals(x.k, y.k) && javaEquals(x.v, y.v)
	case *udtValue:
		y, ok := b.(*udtValue)
		return ok && x.t.Equal(y.t) && equalSlices(x.fields, y.fields)
	case *jbuilder, *jarray, *jexception, *jiterator:
		return a == b
	}
	return a == b
}

func canonBits64(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

func equalSlices(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !javaEquals(a[i], b[i]) {
			return false
		}
	}
	return true
}

func indexOf(vs []any, v any) int {
	for i, e := range vs {
		if javaEquals(e, v) {
			return i
		}
	}
	return -1
}

// compareJava is a.compareTo(b) for Comparable values of one class; other
// pairs throw ClassCastException.
func compareJava(a, b any) int {
	if a == nil || b == nil {
		throwNPE()
	}
	if simpleClass(a) != simpleClass(b) {
		throwClassCast(javaClassName(a), javaClassName(b))
	}
	switch x := a.(type) {
	case string:
		return compareStrings(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case x:
			return 1
		}
		return -1
	case float64:
		return compareFloat(x, b.(float64))
	case float32:
		return compareFloat(float64(x), float64(b.(float32)))
	case *big.Int:
		return x.Cmp(b.(*big.Int))
	case types.DecimalValue:
		return x.Rat().Cmp(b.(types.DecimalValue).Rat())
	case time.Time:
		return x.Compare(b.(time.Time))
	case types.DateValue:
		return cmpInt(int64(x), int64(b.(types.DateValue)))
	case types.UUIDValue:
		y := b.(types.UUIDValue)
		hi1, hi2 := int64(be64(x[:8])), int64(be64(y[:8]))
		if hi1 != hi2 {
			return cmpInt(hi1, hi2)
		}
		return cmpInt(int64(be64(x[8:])), int64(be64(y[8:])))
	}
	if isNum(a) {
		return cmpInt(toInt64(a), toInt64(b))
	}
	throwClassCast(javaClassName(a), "java.lang.Comparable")
	return 0
}

func be64(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareFloat is Double.compare: -0.0 < 0.0 and NaN above everything.
func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := int64(canonBits64(a)), int64(canonBits64(b))
	return cmpInt(ab, bb)
}

// compareNum compares two numbers numerically.
func compareNum(a, b any) int {
	lf, rf, isF := floatPair(a, b)
	if isF {
		return compareFloat(lf, rf)
	}
	return cmpInt(toInt64(a), toInt64(b))
}

// iterItems returns the elements a for-each loop visits.
func iterItems(v any) []any {
	switch x := v.(type) {
	case *jlist:
		return append([]any(nil), x.elems...)
	case *jset:
		return x.items()
	case *jarray:
		return append([]any(nil), x.vals...)
	case *jmap:
		out := make([]any, 0, len(x.keys))
		for _, i := range x.order() {
			out = append(out, &jentry{k: x.keys[i], v: x.vals[i], m: x})
		}
		return out
	}
	throwClassCast(javaClassName(v), "java.lang.Iterable")
	return nil
}

// throwClassCast throws JDK 11's ClassCastException for a cast of an
// object of class from to class to, naming the module of JDK classes and
// Cassandra's application class loader for the driver's.
func throwClassCast(from, to string) {
	where := func(c string) string {
		if strings.HasPrefix(c, "java.") {
			return "module java.base of loader 'bootstrap'"
		}
		return "unnamed module of loader 'app'"
	}
	wf, wt := where(from), where(to)
	detail := from + " is in " + wf + "; " + to + " is in " + wt
	if wf == wt {
		detail = from + " and " + to + " are in " + wf
	}
	throwJava("ClassCastException", "class "+from+" cannot be cast to class "+to+" ("+detail+")")
}
