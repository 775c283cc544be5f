package javaudf

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
)

// Static fields, static methods and constructors of the classes a body
// may use.

// staticField returns the value and type of a static field.
func staticField(cls, name string) (any, *jtype, bool) {
	switch cls + "." + name {
	case "Integer.MAX_VALUE":
		return int32(math.MaxInt32), tInt32, true
	case "Integer.MIN_VALUE":
		return int32(math.MinInt32), tInt32, true
	case "Long.MAX_VALUE":
		return int64(math.MaxInt64), tInt64, true
	case "Long.MIN_VALUE":
		return int64(math.MinInt64), tInt64, true
	case "Short.MAX_VALUE":
		return int16(math.MaxInt16), tInt16, true
	case "Short.MIN_VALUE":
		return int16(math.MinInt16), tInt16, true
	case "Byte.MAX_VALUE":
		return int8(math.MaxInt8), tInt8, true
	case "Byte.MIN_VALUE":
		return int8(math.MinInt8), tInt8, true
	case "Character.MAX_VALUE":
		return jchar(math.MaxUint16), tChar16, true
	case "Character.MIN_VALUE":
		return jchar(0), tChar16, true
	case "Double.MAX_VALUE":
		return math.MaxFloat64, tFloat64, true
	case "Double.MIN_VALUE":
		return 4.9e-324, tFloat64, true
	case "Double.NaN":
		return math.NaN(), tFloat64, true
	case "Double.POSITIVE_INFINITY":
		return math.Inf(1), tFloat64, true
	case "Double.NEGATIVE_INFINITY":
		return math.Inf(-1), tFloat64, true
	case "Float.MAX_VALUE":
		return float32(math.MaxFloat32), tFloat32, true
	case "Float.MIN_VALUE":
		return float32(1.4e-45), tFloat32, true
	case "Float.NaN":
		return float32(math.NaN()), tFloat32, true
	case "Float.POSITIVE_INFINITY":
		return float32(math.Inf(1)), tFloat32, true
	case "Float.NEGATIVE_INFINITY":
		return float32(math.Inf(-1)), tFloat32, true
	case "Math.PI", "StrictMath.PI":
		return math.Pi, tFloat64, true
	case "Math.E", "StrictMath.E":
		return math.E, tFloat64, true
	case "Boolean.TRUE":
		return true, &jtype{name: "Boolean"}, true
	case "Boolean.FALSE":
		return false, &jtype{name: "Boolean"}, true
	case "BigInteger.ZERO":
		return big.NewInt(0), &jtype{name: "BigInteger"}, true
	case "BigInteger.ONE":
		return big.NewInt(1), &jtype{name: "BigInteger"}, true
	case "BigInteger.TWO":
		return big.NewInt(2), &jtype{name: "BigInteger"}, true
	case "BigInteger.TEN":
		return big.NewInt(10), &jtype{name: "BigInteger"}, true
	case "BigDecimal.ZERO":
		return types.DecimalValue{Unscaled: big.NewInt(0)}, &jtype{name: "BigDecimal"}, true
	case "BigDecimal.ONE":
		return types.DecimalValue{Unscaled: big.NewInt(1)}, &jtype{name: "BigDecimal"}, true
	case "BigDecimal.TEN":
		return types.DecimalValue{Unscaled: big.NewInt(10)}, &jtype{name: "BigDecimal"}, true
	case "Collections.EMPTY_LIST":
		return &jlist{immutable: true}, &jtype{name: "List"}, true
	}
	return nil, nil, false
}

func boxOf(n string) *jtype { return &jtype{name: n} }

// staticMethodType returns the result type of a static method, and
// whether the interpreter has it.
func staticMethodType(cls, name string, args []*jtype) (*jtype, bool) {
	a0 := func() *jtype {
		if len(args) > 0 {
			return args[0]
		}
		return nil
	}
	switch cls {
	case "Math", "StrictMath":
		switch name {
		case "abs", "negateExact", "incrementExact", "decrementExact":
			if t := unboxed(a0()); t != nil {
				return promote(t, tInt32), true
			}
			return nil, true
		case "max", "min", "addExact", "subtractExact", "multiplyExact", "floorDiv", "floorMod":
			if len(args) == 2 {
				if name == "floorMod" && unboxed(args[1]) != nil && unboxed(args[1]).name == "int" {
					return tInt32, true
				}
				return promote(args[0], args[1]), true
			}
			return nil, true
		case "round":
			if t := unboxed(a0()); t != nil && t.name == "float" {
				return tInt32, true
			}
			return tInt64, true
		case "toIntExact":
			return tInt32, true
		case "signum", "ulp", "nextUp", "nextDown", "copySign", "scalb":
			if t := unboxed(a0()); t != nil && t.name == "float" {
				return tFloat32, true
			}
			return tFloat64, true
		case "getExponent":
			return tInt32, true
		case "sqrt", "cbrt", "pow", "exp", "log", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos",
			"atan", "atan2", "sinh", "cosh", "tanh", "hypot", "ceil", "floor", "rint", "toRadians", "toDegrees",
			"random", "IEEEremainder":
			return tFloat64, true
		}
	case "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character":
		prim := &jtype{name: unboxes[cls]}
		switch name {
		case "valueOf", "decode":
			return boxOf(cls), true
		case "parseInt":
			return tInt32, true
		case "parseLong":
			return tInt64, true
		case "parseShort":
			return tInt16, true
		case "parseByte":
			return tInt8, true
		case "parseDouble":
			return tFloat64, true
		case "parseFloat":
			return tFloat32, true
		case "parseBoolean":
			return tBool, true
		case "toString", "toHexString", "toBinaryString", "toOctalString":
			return tStr, true
		case "compare", "signum", "bitCount", "numberOfLeadingZeros", "numberOfTrailingZeros", "hashCode":
			return tInt32, true
		case "max", "min", "sum", "abs", "reverse", "highestOneBit", "lowestOneBit", "rotateLeft", "rotateRight":
			return prim, true
		case "isNaN", "isInfinite", "isFinite", "isDigit", "isLetter", "isLetterOrDigit", "isWhitespace",
			"isUpperCase", "isLowerCase", "logicalAnd", "logicalOr", "logicalXor", "isAlphabetic", "isSpaceChar":
			return tBool, true
		case "toUpperCase", "toLowerCase":
			return a0(), true
		case "doubleToLongBits", "doubleToRawLongBits":
			return tInt64, true
		case "longBitsToDouble":
			return tFloat64, true
		case "floatToIntBits", "floatToRawIntBits":
			return tInt32, true
		case "intBitsToFloat":
			return tFloat32, true
		case "getNumericValue", "digit":
			return tInt32, true
		}
	case "String":
		switch name {
		case "valueOf", "format", "join", "copyValueOf":
			return tStr, true
		}
	case "System":
		switch name {
		case "currentTimeMillis", "nanoTime":
			return tInt64, true
		case "getProperty", "getenv", "lineSeparator":
			return tStr, true
		case "exit", "gc", "setProperty", "load", "loadLibrary", "setSecurityManager", "setOut", "setErr", "setIn",
			"identityHashCode", "arraycopy":
			return tVoid, true
		}
	case "Objects":
		switch name {
		case "equals", "isNull", "nonNull", "deepEquals":
			return tBool, true
		case "hashCode", "hash":
			return tInt32, true
		case "toString":
			return tStr, true
		case "requireNonNull":
			return a0(), true
		}
	case "Arrays":
		switch name {
		case "asList":
			var elem *jtype
			if len(args) == 1 && args[0] != nil && args[0].dims > 0 {
				elem = &jtype{name: args[0].name}
			} else if len(args) > 0 && args[0] != nil {
				elem = boxedType(args[0])
			}
			if elem != nil {
				return &jtype{name: "List", args: []*jtype{elem}}, true
			}
			return &jtype{name: "List"}, true
		case "toString":
			return tStr, true
		case "sort", "fill":
			return tVoid, true
		}
	case "Collections":
		switch name {
		case "emptyList", "singletonList", "unmodifiableList", "synchronizedList", "nCopies":
			return listOf(name, args), true
		case "emptySet", "singleton", "unmodifiableSet":
			return setOf(args), true
		case "emptyMap", "singletonMap", "unmodifiableMap":
			if len(args) == 2 {
				return &jtype{name: "Map", args: []*jtype{boxedOrNil(args[0]), boxedOrNil(args[1])}}, true
			}
			if len(args) == 1 {
				return args[0], true
			}
			return &jtype{name: "Map"}, true
		case "sort", "reverse", "shuffle", "swap":
			return tVoid, true
		case "max", "min":
			if t := a0(); t != nil && len(t.args) == 1 {
				return t.args[0], true
			}
			return nil, true
		case "frequency":
			return tInt32, true
		}
	case "UUID":
		switch name {
		case "randomUUID", "fromString", "nameUUIDFromBytes":
			return boxOf("UUID"), true
		}
	case "BigInteger":
		if name == "valueOf" {
			return boxOf("BigInteger"), true
		}
	case "BigDecimal":
		if name == "valueOf" {
			return boxOf("BigDecimal"), true
		}
	case "ByteBuffer":
		switch name {
		case "wrap", "allocate", "allocateDirect":
			return boxOf("ByteBuffer"), true
		}
	case "InetAddress", "Inet4Address", "Inet6Address":
		switch name {
		case "getByName", "getByAddress", "getLocalHost", "getLoopbackAddress":
			return boxOf("InetAddress"), true
		case "getAllByName":
			return &jtype{name: "InetAddress", dims: 1}, true
		}
	case "NetworkInterface":
		return nil, true
	case "LocalDate":
		switch name {
		case "fromDaysSinceEpoch", "fromMillisSinceEpoch", "fromYearMonthDay":
			return boxOf("LocalDate"), true
		}
	case "Duration":
		switch name {
		case "newInstance", "from":
			return boxOf("Duration"), true
		}
	}
	return nil, false
}

func boxedOrNil(t *jtype) *jtype {
	if t == nil {
		return nil
	}
	return boxedType(t)
}

func listOf(name string, args []*jtype) *jtype {
	switch {
	case name == "nCopies" && len(args) == 2 && args[1] != nil:
		return &jtype{name: "List", args: []*jtype{boxedType(args[1])}}
	case name == "singletonList" && len(args) == 1 && args[0] != nil:
		return &jtype{name: "List", args: []*jtype{boxedType(args[0])}}
	case (name == "unmodifiableList" || name == "synchronizedList") && len(args) == 1 && args[0] != nil:
		return &jtype{name: "List", args: args[0].args}
	}
	return &jtype{name: "List"}
}

func setOf(args []*jtype) *jtype {
	if len(args) == 1 && args[0] != nil {
		if isSubclass(args[0].name, "Collection") {
			return &jtype{name: "Set", args: args[0].args}
		}
		return &jtype{name: "Set", args: []*jtype{boxedType(args[0])}}
	}
	return &jtype{name: "Set"}
}

func accessDenied(what string) {
	throwJava("AccessControlException", "access denied ("+what+")")
}

// callStatic runs a static method.
func callStatic(fr *frame, cls, name string, args []any, line int) any {
	a := func(i int) any { return args[i] }
	switch cls {
	case "Math", "StrictMath":
		return mathCall(name, args, line)
	case "Integer", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character":
		return boxCall(cls, name, args, line)
	case "String":
		switch name {
		case "valueOf", "copyValueOf":
			if len(args) == 1 {
				if arr, ok := args[0].(*jarray); ok {
					return charArrayString(arr)
				}
				return javaString(a(0))
			}
		case "join":
			if len(args) >= 1 {
				sep := javaString(a(0))
				var parts []string
				if len(args) == 2 {
					if c, ok := args[1].(*jlist); ok {
						for _, e := range c.elems {
							parts = append(parts, javaString(e))
						}
						return strings.Join(parts, sep)
					}
					if c, ok := args[1].(*jset); ok {
						for _, e := range c.elems {
							parts = append(parts, javaString(e))
						}
						return strings.Join(parts, sep)
					}
				}
				for _, e := range args[1:] {
					parts = append(parts, javaString(e))
				}
				return strings.Join(parts, sep)
			}
		case "format":
			return javaFormat(args, line)
		}
	case "System":
		switch name {
		case "currentTimeMillis":
			return time.Now().UnixMilli()
		case "nanoTime":
			return time.Now().UnixNano()
		case "lineSeparator":
			return "\n"
		case "identityHashCode":
			return int32(0)
		case "getProperty":
			accessDenied("\"java.util.PropertyPermission\" \"" + javaString(args[0]) + "\" \"read\"")
		case "getenv":
			accessDenied("\"java.lang.RuntimePermission\" \"getenv." + javaString(args[0]) + "\"")
		case "exit":
			accessDenied("\"java.lang.RuntimePermission\" \"exitVM." + javaString(args[0]) + "\"")
		case "setSecurityManager":
			accessDenied("\"java.lang.RuntimePermission\" \"setSecurityManager\"")
		case "gc":
			return nil
		}
		accessDenied("\"java.lang.RuntimePermission\" \"" + name + "\"")
	case "Objects":
		switch name {
		case "equals":
			return javaEquals(a(0), a(1))
		case "isNull":
			return a(0) == nil
		case "nonNull":
			return a(0) != nil
		case "toString":
			if len(args) == 2 && a(0) == nil {
				return javaString(a(1))
			}
			return javaString(a(0))
		case "hashCode":
			if a(0) == nil {
				return int32(0)
			}
			return hashCode(a(0))
		case "hash":
			h := int32(1)
			for _, v := range args {
				h = 31*h + hashOrZero(v)
			}
			return h
		case "requireNonNull":
			if a(0) == nil {
				if len(args) > 1 {
					throwJava("NullPointerException", javaString(a(1)))
				}
				throwNPE()
			}
			return a(0)
		}
	case "Arrays":
		switch name {
		case "asList":
			if len(args) == 1 {
				if arr, ok := args[0].(*jarray); ok {
					return &jlist{elems: slices.Clone(arr.vals)}
				}
			}
			return &jlist{elems: slices.Clone(args)}
		case "toString":
			if a(0) == nil {
				return "null"
			}
			if arr, ok := args[0].(*jarray); ok {
				return joinValues("[", arr.vals, "]")
			}
		case "sort":
			if arr, ok := args[0].(*jarray); ok {
				sortValues(arr.vals)
				return nil
			}
		case "fill":
			if arr, ok := args[0].(*jarray); ok {
				for i := range arr.vals {
					arr.vals[i] = coerce(a(1), arr.elem)
				}
				return nil
			}
		}
	case "Collections":
		return collectionsCall(name, args, line)
	case "UUID":
		switch name {
		case "randomUUID":
			return types.NewRandomUUID()
		case "fromString":
			if a(0) == nil {
				throwNPE()
			}
			u, err := types.ParseUUID(javaString(a(0)))
			if err != nil {
				throwJava("IllegalArgumentException", "Invalid UUID string: "+javaString(a(0)))
			}
			return u
		}
	case "BigInteger":
		return big.NewInt(toInt64(a(0)))
	case "BigDecimal":
		if len(args) == 2 {
			return types.DecimalValue{Unscaled: big.NewInt(toInt64(a(0))), Scale: int32(toInt64(a(1)))}
		}
		switch v := a(0).(type) {
		case float64, float32:
			d, ok := types.ParseDecimal(types.JavaFloat(toFloat64(v), 64))
			if !ok {
				throwJava("NumberFormatException", "Infinite or NaN")
			}
			return d
		}
		return types.DecimalValue{Unscaled: big.NewInt(toInt64(a(0)))}
	case "ByteBuffer":
		switch name {
		case "wrap":
			arr, ok := a(0).(*jarray)
			if !ok {
				throwNPE()
			}
			return &jbuffer{b: bytesOfArray(arr)}
		case "allocate":
			n := toInt64(a(0))
			if n < 0 {
				throwJava("IllegalArgumentException", "capacity < 0: ("+itoa(n)+" < 0)")
			}
			checkElems(n)
			return &jbuffer{b: make([]byte, n)}
		}
	case "LocalDate":
		switch name {
		case "fromDaysSinceEpoch":
			return types.DateValue(int32(toInt64(a(0))))
		case "fromMillisSinceEpoch":
			return types.DateOf(time.UnixMilli(toInt64(a(0))).UTC())
		case "fromYearMonthDay":
			return types.DateOf(time.Date(int(toInt64(a(0))), time.Month(toInt64(a(1))), int(toInt64(a(2))), 0, 0, 0, 0, time.UTC))
		}
	case "Duration":
		switch name {
		case "newInstance":
			return types.DurationValue{Months: int32(toInt64(a(0))), Days: int32(toInt64(a(1))), Nanos: toInt64(a(2))}
		case "from":
			d, err := types.ParseDuration(javaString(a(0)))
			if err != nil {
				throwJava("IllegalArgumentException", err.Error())
			}
			return d
		}
	}
	panic(&UnsupportedError{Line: line, Construct: "the static method " + cls + "." + name + " with these arguments"})
}

func hashOrZero(v any) int32 {
	if v == nil {
		return 0
	}
	return hashCode(v)
}

// hashCode is v.hashCode() for the value classes.
func hashCode(v any) int32 {
	switch x := v.(type) {
	case string:
		return stringHash(x)
	case int32:
		return x
	case int16:
		return int32(x)
	case int8:
		return int32(x)
	case jchar:
		return int32(x)
	case int64:
		return int32(x ^ int64(uint64(x)>>32))
	case bool:
		if x {
			return 1231
		}
		return 1237
	case float64:
		b := canonBits64(x)
		return int32(b ^ b>>32)
	case float32:
		if x != x {
			return 0x7fc00000
		}
		return int32(math.Float32bits(x))
	case *jlist:
		h := int32(1)
		for _, e := range x.elems {
			h = 31*h + hashOrZero(e)
		}
		return h
	case *jset:
		var h int32
		for _, e := range x.elems {
			h += hashOrZero(e)
		}
		return h
	case *jmap:
		var h int32
		for i := range x.keys {
			h += hashOrZero(x.keys[i]) ^ hashOrZero(x.vals[i])
		}
		return h
	}
	return 0
}

func charArrayString(arr *jarray) string {
	u := make([]uint16, len(arr.vals))
	for i, v := range arr.vals {
		u[i] = uint16(toInt64(v))
	}
	return utf16String(u)
}

func bytesOfArray(arr *jarray) []byte {
	b := make([]byte, len(arr.vals))
	for i, v := range arr.vals {
		b[i] = byte(toInt64(v))
	}
	return b
}

// sortValues sorts by compareTo (a stable merge sort, as Java's).
func sortValues(vs []any) {
	slices.SortStableFunc(vs, compareJava)
}

func mathCall(name string, args []any, line int) any {
	f := func(i int) float64 { return toFloat64(args[i]) }
	for _, a := range args {
		if a == nil {
			throwNPE()
		}
	}
	switch name {
	case "abs":
		switch x := args[0].(type) {
		case float64:
			return math.Abs(x)
		case float32:
			return float32(math.Abs(float64(x)))
		case int64:
			if x < 0 {
				return -x
			}
			return x
		}
		x := int32(toInt64(args[0]))
		if x < 0 {
			return -x
		}
		return x
	case "max", "min":
		k := promotedKind(args[0], args[1])
		switch k {
		case "double", "float":
			a, b := f(0), f(1)
			var r float64
			switch {
			case math.IsNaN(a) || math.IsNaN(b):
				r = math.NaN()
			case name == "max":
				r = math.Max(a, b)
			default:
				r = math.Min(a, b)
			}
			if k == "float" {
				return float32(r)
			}
			return r
		}
		a, b := toInt64(args[0]), toInt64(args[1])
		r := max(a, b)
		if name == "min" {
			r = min(a, b)
		}
		return convertNum(r, k)
	case "addExact", "subtractExact", "multiplyExact":
		k := promotedKind(args[0], args[1])
		a, b := new(big.Int).SetInt64(toInt64(args[0])), new(big.Int).SetInt64(toInt64(args[1]))
		switch name {
		case "addExact":
			a.Add(a, b)
		case "subtractExact":
			a.Sub(a, b)
		default:
			a.Mul(a, b)
		}
		if k == "long" {
			if !a.IsInt64() {
				throwJava("ArithmeticException", "long overflow")
			}
			return a.Int64()
		}
		if !a.IsInt64() || a.Int64() != int64(int32(a.Int64())) {
			throwJava("ArithmeticException", "integer overflow")
		}
		return int32(a.Int64())
	case "negateExact", "incrementExact", "decrementExact":
		d := map[string]int64{"negateExact": 0, "incrementExact": 1, "decrementExact": -1}[name]
		if _, long := args[0].(int64); long {
			x := toInt64(args[0])
			if name == "negateExact" {
				if x == math.MinInt64 {
					throwJava("ArithmeticException", "long overflow")
				}
				return -x
			}
			if (d > 0 && x == math.MaxInt64) || (d < 0 && x == math.MinInt64) {
				throwJava("ArithmeticException", "long overflow")
			}
			return x + d
		}
		x := toInt64(args[0])
		r := x + d
		if name == "negateExact" {
			r = -x
		}
		if r != int64(int32(r)) {
			throwJava("ArithmeticException", "integer overflow")
		}
		return int32(r)
	case "toIntExact":
		x := toInt64(args[0])
		if x != int64(int32(x)) {
			throwJava("ArithmeticException", "integer overflow")
		}
		return int32(x)
	case "floorDiv", "floorMod":
		a, b := toInt64(args[0]), toInt64(args[1])
		if b == 0 {
			throwJava("ArithmeticException", "/ by zero")
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		r := a - q*b
		if name == "floorDiv" {
			return convertNum(q, promotedKind(args[0], args[1]))
		}
		if _, ok := args[1].(int64); !ok {
			return int32(r)
		}
		return r
	case "round":
		if x, ok := args[0].(float32); ok {
			return int32(f2i(math.Floor(float64(x) + 0.5)))
		}
		x := f(0)
		if math.IsNaN(x) {
			return int64(0)
		}
		return f2l(math.Floor(x + 0.5))
	case "signum":
		x := f(0)
		r := x
		if x > 0 {
			r = 1
		} else if x < 0 {
			r = -1
		}
		if _, ok := args[0].(float32); ok {
			return float32(r)
		}
		return r
	case "sqrt":
		return math.Sqrt(f(0))
	case "cbrt":
		return math.Cbrt(f(0))
	case "pow":
		return javaPow(f(0), f(1))
	case "exp":
		return math.Exp(f(0))
	case "expm1":
		return math.Expm1(f(0))
	case "log":
		return math.Log(f(0))
	case "log10":
		return math.Log10(f(0))
	case "log1p":
		return math.Log1p(f(0))
	case "sin":
		return math.Sin(f(0))
	case "cos":
		return math.Cos(f(0))
	case "tan":
		return math.Tan(f(0))
	case "asin":
		return math.Asin(f(0))
	case "acos":
		return math.Acos(f(0))
	case "atan":
		return math.Atan(f(0))
	case "atan2":
		return math.Atan2(f(0), f(1))
	case "sinh":
		return math.Sinh(f(0))
	case "cosh":
		return math.Cosh(f(0))
	case "tanh":
		return math.Tanh(f(0))
	case "hypot":
		return math.Hypot(f(0), f(1))
	case "ceil":
		return math.Ceil(f(0))
	case "floor":
		return math.Floor(f(0))
	case "rint":
		return math.RoundToEven(f(0))
	case "toRadians":
		return f(0) / 180 * math.Pi
	case "toDegrees":
		return f(0) * 180 / math.Pi
	case "IEEEremainder":
		return math.Remainder(f(0), f(1))
	case "random":
		return 0.5
	case "copySign":
		if x, ok := args[0].(float32); ok {
			if _, ok := args[1].(float64); !ok {
				return float32(math.Copysign(float64(x), f(1)))
			}
		}
		return math.Copysign(f(0), f(1))
	case "ulp", "nextUp", "nextDown", "getExponent", "scalb":
		if x, ok := args[0].(float32); ok {
			switch name {
			case "ulp":
				return float32(math.Abs(float64(math.Nextafter32(x, float32(math.Inf(1))) - x)))
			case "nextUp":
				return math.Nextafter32(x, float32(math.Inf(1)))
			case "nextDown":
				return math.Nextafter32(x, float32(math.Inf(-1)))
			case "getExponent":
				return int32(int(math.Float32bits(x)>>23&0xff) - 127)
			case "scalb":
				return float32(math.Ldexp(float64(x), int(toInt64(args[1]))))
			}
		}
		x := f(0)
		switch name {
		case "ulp":
			return math.Abs(math.Nextafter(x, math.Inf(1)) - x)
		case "nextUp":
			return math.Nextafter(x, math.Inf(1))
		case "nextDown":
			return math.Nextafter(x, math.Inf(-1))
		case "getExponent":
			return int32(int(math.Float64bits(x)>>52&0x7ff) - 1023)
		}
		return math.Ldexp(x, int(toInt64(args[1])))
	}
	panic(&UnsupportedError{Line: line, Construct: "Math." + name})
}

// javaPow is Math.pow, which differs from Go's math.Pow for a NaN
// exponent with base 1 (NaN in Java) and |base| == 1 with an infinite
// exponent (NaN in Java).
func javaPow(a, b float64) float64 {
	if math.IsNaN(b) || (math.Abs(a) == 1 && math.IsInf(b, 0)) {
		return math.NaN()
	}
	return math.Pow(a, b)
}

func boxCall(cls, name string, args []any, line int) any {
	prim := unboxes[cls]
	a := func(i int) any {
		if args[i] == nil && name != "valueOf" && name != "toString" {
			throwNPE()
		}
		return args[i]
	}
	switch name {
	case "valueOf", "decode", "parseInt", "parseLong", "parseShort", "parseByte", "parseDouble", "parseFloat",
		"parseBoolean":
		s, isStr := args[0].(string)
		if args[0] == nil {
			isStr = true
		}
		if !isStr {
			if args[0] == nil {
				throwNPE()
			}
			if prim == "boolean" {
				return args[0]
			}
			return convertNum(args[0], prim)
		}
		radix := 10
		if len(args) == 2 {
			radix = int(toInt64(args[1]))
		}
		return parseNumber(prim, s, args[0] == nil, radix)
	case "toString":
		if len(args) == 2 {
			return strconv.FormatInt(toInt64(args[0]), int(toInt64(args[1])))
		}
		if args[0] == nil {
			throwNPE()
		}
		return javaString(convertPrim(args[0], prim))
	case "toHexString":
		if prim == "long" {
			return strconv.FormatUint(uint64(toInt64(a(0))), 16)
		}
		return strconv.FormatUint(uint64(uint32(toInt64(a(0)))), 16)
	case "toBinaryString":
		if prim == "long" {
			return strconv.FormatUint(uint64(toInt64(a(0))), 2)
		}
		return strconv.FormatUint(uint64(uint32(toInt64(a(0)))), 2)
	case "toOctalString":
		if prim == "long" {
			return strconv.FormatUint(uint64(toInt64(a(0))), 8)
		}
		return strconv.FormatUint(uint64(uint32(toInt64(a(0)))), 8)
	case "compare":
		x, y := a(0), a(1)
		switch prim {
		case "double", "float":
			return int32(compareFloat(toFloat64(x), toFloat64(y)))
		case "boolean":
			return int32(compareJava(x, y))
		}
		return int32(cmpInt(toInt64(x), toInt64(y)))
	case "signum":
		return int32(cmpInt(toInt64(a(0)), 0))
	case "hashCode":
		return hashCode(convertPrim(a(0), prim))
	case "max", "min", "sum", "abs":
		if name == "sum" {
			return convertNum(arith("+", a(0), a(1)), prim)
		}
		return convertNum(mathCall(name, args, line), prim)
	case "bitCount":
		return int32(popcount(uint64(toInt64(a(0))), prim))
	case "isNaN":
		return math.IsNaN(toFloat64(a(0)))
	case "isInfinite":
		return math.IsInf(toFloat64(a(0)), 0)
	case "isFinite":
		f := toFloat64(a(0))
		return !math.IsInf(f, 0) && !math.IsNaN(f)
	case "doubleToLongBits":
		return int64(canonBits64(toFloat64(a(0))))
	case "doubleToRawLongBits":
		return int64(math.Float64bits(toFloat64(a(0))))
	case "longBitsToDouble":
		return math.Float64frombits(uint64(toInt64(a(0))))
	case "floatToIntBits", "floatToRawIntBits":
		return int32(math.Float32bits(toFloat32(a(0))))
	case "intBitsToFloat":
		return math.Float32frombits(uint32(toInt64(a(0))))
	case "logicalAnd":
		return boolArg(args, 0) && boolArg(args, 1)
	case "logicalOr":
		return boolArg(args, 0) || boolArg(args, 1)
	case "logicalXor":
		return boolArg(args, 0) != boolArg(args, 1)
	case "isDigit":
		c := rune(toInt64(a(0)))
		return c >= '0' && c <= '9'
	case "isLetter", "isAlphabetic":
		c := rune(toInt64(a(0)))
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c > 127
	case "isLetterOrDigit":
		c := rune(toInt64(a(0)))
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c > 127
	case "isWhitespace", "isSpaceChar":
		c := rune(toInt64(a(0)))
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0b || c >= 0x1c && c <= 0x1f
	case "isUpperCase":
		c := rune(toInt64(a(0)))
		return c >= 'A' && c <= 'Z'
	case "isLowerCase":
		c := rune(toInt64(a(0)))
		return c >= 'a' && c <= 'z'
	case "toUpperCase", "toLowerCase":
		c := rune(toInt64(a(0)))
		s := strings.ToUpper(string(c))
		if name == "toLowerCase" {
			s = strings.ToLower(string(c))
		}
		r := []rune(s)
		if len(r) != 1 {
			r = []rune{c}
		}
		if _, ok := args[0].(jchar); ok {
			return jchar(r[0])
		}
		return int32(r[0])
	case "getNumericValue", "digit":
		c := rune(toInt64(a(0)))
		switch {
		case c >= '0' && c <= '9':
			return int32(c - '0')
		case c >= 'a' && c <= 'z':
			return int32(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			return int32(c-'A') + 10
		}
		return int32(-1)
	case "numberOfLeadingZeros", "numberOfTrailingZeros", "highestOneBit", "lowestOneBit", "reverse",
		"rotateLeft", "rotateRight":
		return bitsCall(prim, name, args)
	}
	panic(&UnsupportedError{Line: line, Construct: cls + "." + name})
}

func convertPrim(v any, prim string) any {
	if prim == "boolean" {
		return v
	}
	return convertNum(v, prim)
}

func popcount(u uint64, prim string) int {
	if prim != "long" {
		u = uint64(uint32(u))
	}
	n := 0
	for ; u != 0; u &= u - 1 {
		n++
	}
	return n
}

// parseNumber is Integer.parseInt (and its relatives) with Java's
// NumberFormatException texts.
func parseNumber(prim, s string, isNull bool, radix int) any {
	forInput := func() {
		if isNull {
			if prim == "double" || prim == "float" {
				throwNPE()
			}
			throwJava("NumberFormatException", "Cannot parse null string: null")
		}
		throwJava("NumberFormatException", "For input string: \""+s+"\""+radixSuffix(radix))
	}
	switch prim {
	case "boolean":
		return strings.EqualFold(s, "true")
	case "double", "float":
		if isNull {
			throwNPE()
		}
		t := javaTrim(s)
		t = strings.TrimRight(t, "dDfF")
		switch strings.TrimLeft(t, "+-") {
		case "NaN", "Infinity":
		default:
			if strings.ContainsAny(t, "xXpP") || strings.Contains(strings.ToLower(t), "inf") || strings.Contains(strings.ToLower(t), "nan") {
				throwJava("NumberFormatException", "For input string: \""+s+"\"")
			}
		}
		bits := 64
		if prim == "float" {
			bits = 32
		}
		f, err := strconv.ParseFloat(t, bits)
		if err != nil && !isRangeErr(err) {
			if javaTrim(s) == "" {
				throwJava("NumberFormatException", "empty String")
			}
			throwJava("NumberFormatException", "For input string: \""+s+"\"")
		}
		if prim == "float" {
			return float32(f)
		}
		return f
	}
	if isNull {
		forInput()
	}
	if s == "" {
		throwJava("NumberFormatException", "For input string: \"\""+radixSuffix(radix))
	}
	t := s
	if strings.HasPrefix(t, "+") && len(t) > 1 && t[1] != '-' && t[1] != '+' {
		t = t[1:]
	}
	bits := map[string]int{"int": 32, "long": 64, "short": 16, "byte": 8}[prim]
	n, err := strconv.ParseInt(t, radix, bits)
	if err != nil || strings.ContainsAny(t, "_") {
		if err != nil && isRangeErr(err) && (prim == "short" || prim == "byte") {
			if _, e2 := strconv.ParseInt(t, radix, 32); e2 == nil {
				throwJava("NumberFormatException", "Value out of range. Value:\""+s+"\" Radix:"+strconv.Itoa(radix))
			}
		}
		forInput()
	}
	return convertNum(n, prim)
}

func radixSuffix(radix int) string {
	if radix == 10 {
		return ""
	}
	return " under radix " + strconv.Itoa(radix)
}

func bitsCall(prim, name string, args []any) any {
	x := uint64(toInt64(args[0]))
	width := 32
	if prim == "long" {
		width = 64
	} else {
		x = uint64(uint32(x))
	}
	var r uint64
	switch name {
	case "numberOfLeadingZeros":
		n := 0
		for i := width - 1; i >= 0 && x&(1<<uint(i)) == 0; i-- {
			n++
		}
		return int32(n)
	case "numberOfTrailingZeros":
		n := 0
		for i := 0; i < width && x&(1<<uint(i)) == 0; i++ {
			n++
		}
		return int32(n)
	case "highestOneBit":
		for i := width - 1; i >= 0; i-- {
			if x&(1<<uint(i)) != 0 {
				r = 1 << uint(i)
				break
			}
		}
	case "lowestOneBit":
		r = x & -x
	case "reverse":
		for i := 0; i < width; i++ {
			if x&(1<<uint(i)) != 0 {
				r |= 1 << uint(width-1-i)
			}
		}
	case "rotateLeft", "rotateRight":
		d := int(toInt64(args[1])) & (width - 1)
		if name == "rotateRight" {
			d = (width - d) % width
		}
		mask := uint64(1)<<uint(width) - 1
		if width == 64 {
			mask = math.MaxUint64
		}
		r = (x<<uint(d) | x>>uint(width-d)) & mask
	}
	if prim == "long" {
		return int64(r)
	}
	return int32(uint32(r))
}

func collectionsCall(name string, args []any, line int) any {
	switch name {
	case "emptyList":
		return &jlist{immutable: true}
	case "emptySet":
		return &jset{immutable: true}
	case "emptyMap":
		return &jmap{immutable: true}
	case "singletonList":
		return &jlist{elems: []any{args[0]}, immutable: true}
	case "singleton":
		return &jset{elems: []any{args[0]}, immutable: true}
	case "singletonMap":
		return &jmap{keys: []any{args[0]}, vals: []any{args[1]}, immutable: true}
	case "nCopies":
		n := toInt64(args[0])
		if n < 0 {
			throwJava("IllegalArgumentException", "List length = "+itoa(n))
		}
		checkElems(n)
		l := &jlist{immutable: true}
		for range n {
			l.elems = append(l.elems, args[1])
		}
		return l
	case "unmodifiableList", "synchronizedList":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		return &jlist{elems: l.elems, immutable: name == "unmodifiableList"}
	case "unmodifiableSet":
		s, ok := args[0].(*jset)
		if !ok {
			throwNPE()
		}
		return &jset{elems: s.elems, sorted: s.sorted, immutable: true}
	case "unmodifiableMap":
		m, ok := args[0].(*jmap)
		if !ok {
			throwNPE()
		}
		return &jmap{keys: m.keys, vals: m.vals, sorted: m.sorted, immutable: true}
	case "sort":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		if len(args) > 1 && args[1] != nil {
			panic(&UnsupportedError{Line: line, Construct: "Collections.sort with a Comparator"})
		}
		checkMutable(l.immutable)
		sortValues(l.elems)
		return nil
	case "reverse":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		checkMutable(l.immutable)
		slices.Reverse(l.elems)
		return nil
	case "max", "min":
		items := iterItems(args[0])
		if len(items) == 0 {
			throwJava("NoSuchElementException", "")
		}
		best := items[0]
		for _, v := range items[1:] {
			c := compareJava(v, best)
			if name == "max" && c > 0 || name == "min" && c < 0 {
				best = v
			}
		}
		return best
	case "frequency":
		n := int32(0)
		for _, v := range iterItems(args[0]) {
			if javaEquals(v, args[1]) {
				n++
			}
		}
		return n
	case "swap":
		l, ok := args[0].(*jlist)
		if !ok {
			throwNPE()
		}
		i, j := l.index(args[1]), l.index(args[2])
		l.elems[i], l.elems[j] = l.elems[j], l.elems[i]
		return nil
	}
	panic(&UnsupportedError{Line: line, Construct: "Collections." + name})
}

func checkMutable(immutable bool) {
	if immutable {
		panic(&javaThrow{&jexception{class: "UnsupportedOperationException", qualify: "java.lang.UnsupportedOperationException"}})
	}
}

func (l *jlist) index(v any) int {
	i := toInt64(v)
	if i < 0 || i >= int64(len(l.elems)) {
		throwJava("IndexOutOfBoundsException", "Index "+itoa(i)+" out of bounds for length "+itoa(int64(len(l.elems))))
	}
	return int(i)
}

func boolArg(args []any, i int) bool {
	b, ok := args[i].(bool)
	if !ok {
		throwNPE()
	}
	return b
}
