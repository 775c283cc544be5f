package javaudf

import (
	"math"
	"strconv"
	"strings"
)

// The static methods of the wrapper classes (Integer, Long, Short, Byte,
// Double, Float, Boolean, Character): valueOf, parse*, toString, compare,
// the bit twiddling and the Character predicates.

// boxCall runs a static method of the wrapper class cls.
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

// convertPrim converts v to the primitive kind prim.
func convertPrim(v any, prim string) any {
	if prim == "boolean" {
		return v
	}
	return convertNum(v, prim)
}

// popcount is Integer.bitCount (Long.bitCount for prim long).
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
			throwJava("NumberFormatException", "null")
		}
		throwJava("NumberFormatException", "For input string: \""+s+"\"")
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
		throwJava("NumberFormatException", "For input string: \"\"")
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

// bitsCall runs the bit methods of Integer and Long.
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

// boolArg is args[i] as a boolean, throwing NullPointerException for null.
func boolArg(args []any, i int) bool {
	b, ok := args[i].(bool)
	if !ok {
		throwNPE()
	}
	return b
}
