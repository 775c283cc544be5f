package javaudf

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
)

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
		case "valueOf":
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
		case "exit", "gc", "setProperty", "load", "loadLibrary", "setSecurityManager", "setOut", "setErr", "setIn":
			return tVoid, true
		case "identityHashCode":
			return tInt32, true
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
		case "sort", "reverse", "swap":
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
		case "randomUUID", "fromString":
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
	case types.UUIDValue:
		hilo := be64(x[:8]) ^ be64(x[8:])
		return int32(hilo>>32) ^ int32(hilo)
	case time.Time:
		ht := x.UnixMilli()
		return int32(ht) ^ int32(ht>>32)
	case *big.Int:
		return bigIntHash(x)
	case types.DecimalValue:
		return 31*bigIntHash(x.Unscaled) + x.Scale
	}
	return 0
}

// bigIntHash is BigInteger.hashCode: over the magnitude's 32-bit words,
// most significant first, times the sign.
func bigIntHash(x *big.Int) int32 {
	mag := new(big.Int).Abs(x).Bytes()
	for len(mag)%4 != 0 {
		mag = append([]byte{0}, mag...)
	}
	var h int32
	for i := 0; i < len(mag); i += 4 {
		w := uint32(mag[i])<<24 | uint32(mag[i+1])<<16 | uint32(mag[i+2])<<8 | uint32(mag[i+3])
		h = 31*h + int32(w)
	}
	return h * int32(x.Sign())
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
