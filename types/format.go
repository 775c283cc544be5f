package types

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Default cqlsh precisions (cqlshlib: DEFAULT_FLOAT_PRECISION and
// DEFAULT_DOUBLE_PRECISION).
const (
	cqlshFloatPrecision  = 5
	cqlshDoublePrecision = 12
)

type fmtMode uint8

const (
	modeCqlsh fmtMode = iota
	modeLiteral
)

// Format returns the value as cqlsh prints it in a table cell:
// text unquoted at the top level and quoted inside collections, integers in
// decimal, floats with cqlsh's default precision (5 significant digits for
// float, 12 for double: 25.5, 0.1, 1e+20), booleans True/False, timestamps
// 2024-01-15 10:30:00.123000+0000 (always UTC), dates 2024-01-15, times
// 10:30:00.123000000, blobs 0x0102, lower-case uuids, inet 127.0.0.1,
// durations 1h30m, lists [1, 2], sets {1, 2}, maps {'a': 1} and tuples
// (1, 'a'). nil prints as null and the empty value as "". Bytes that are not
// a valid value of t print as a blob (0x...), never panic.
func Format(t Type, b []byte) string {
	var sb strings.Builder
	formatValue(&sb, t, b, false, modeCqlsh)
	return sb.String()
}

// FormatLiteral returns the value as a CQL literal that ParseLiteral (and
// Cassandra) parse back to the same value: strings in single quotes (a quote inside doubled),
// timestamps as '2024-01-15T10:30:00.123Z', dates '2024-01-15', times
// '10:30:00.123000000', inet quoted, uuids, blobs and numbers bare, floats in
// their shortest exact form, durations as 1h30m. nil gives null. The empty
// value of a type without an empty literal is written as a blob conversion
// call, e.g. blobasint(0x), which CQL accepts but ParseLiteral does not.
func FormatLiteral(t Type, b []byte) string {
	var sb strings.Builder
	formatValue(&sb, t, b, true, modeLiteral)
	return sb.String()
}

func formatValue(sb *strings.Builder, t Type, b []byte, quote bool, mode fmtMode) {
	if b == nil {
		sb.WriteString("null")
		return
	}
	if Validate(t, b) != nil {
		sb.WriteString("0x")
		sb.WriteString(hex.EncodeToString(b))
		return
	}
	if len(b) == 0 {
		switch {
		case t.Kind == Text || t.Kind == Ascii:
			if quote {
				sb.WriteString("''")
			}
		case t.Kind == Blob:
			sb.WriteString("0x")
		case mode == modeLiteral:
			sb.WriteString("blobas" + t.Kind.String() + "(0x)")
		}
		return
	}
	q := func(s string) {
		if quote {
			sb.WriteByte('\'')
			sb.WriteString(strings.ReplaceAll(s, "'", "''"))
			sb.WriteByte('\'')
			return
		}
		sb.WriteString(s)
	}
	switch t.Kind {
	case Ascii, Text:
		s := string(b)
		if mode == modeLiteral {
			q(s)
			return
		}
		s = cqlshEscape(s)
		q(s)
	case Int, Bigint, Smallint, Tinyint, Counter:
		sb.WriteString(strconv.FormatInt(signedInt(b), 10))
	case Varint:
		sb.WriteString(decodeVarint(b).String())
	case Decimal:
		sb.WriteString(decodeDecimal(b).String())
	case Float:
		f := float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
		if mode == modeLiteral {
			sb.WriteString(literalFloat(f, 32))
		} else {
			sb.WriteString(cqlshFloat(f, cqlshFloatPrecision))
		}
	case Double:
		f := math.Float64frombits(binary.BigEndian.Uint64(b))
		if mode == modeLiteral {
			sb.WriteString(literalFloat(f, 64))
		} else {
			sb.WriteString(cqlshFloat(f, cqlshDoublePrecision))
		}
	case Boolean:
		switch {
		case mode == modeLiteral && b[0] != 0:
			sb.WriteString("true")
		case mode == modeLiteral:
			sb.WriteString("false")
		case b[0] != 0:
			sb.WriteString("True")
		default:
			sb.WriteString("False")
		}
	case UUID, TimeUUID:
		sb.WriteString(UUIDValue(b).String())
	case Timestamp:
		ms := signedInt(b)
		if mode == modeLiteral {
			s := formatTimestampLiteral(ms)
			if strings.Contains(s, "T") {
				q(s)
			} else {
				sb.WriteString(s)
			}
			return
		}
		q(formatTimestamp(ms))
	case Date:
		d := decodeDate(b)
		s := d.String()
		if mode == modeLiteral {
			if y := d.Time().Year(); y >= 1 && y <= 9999 {
				q(s)
			} else {
				sb.WriteString(strconv.FormatUint(uint64(binary.BigEndian.Uint32(b)), 10))
			}
			return
		}
		sb.WriteString(s)
	case Time:
		s := formatTime(int64(binary.BigEndian.Uint64(b)))
		if mode == modeLiteral {
			q(s)
			return
		}
		sb.WriteString(s)
	case Duration:
		d, _ := decodeDuration(b)
		if mode == modeCqlsh && d == (DurationValue{}) {
			return
		}
		sb.WriteString(d.String())
	case Blob:
		sb.WriteString("0x")
		sb.WriteString(hex.EncodeToString(b))
	case Inet:
		q(inetString(b))
	case List, Set:
		elems, _ := DecodeCollection(t, b)
		open, closing := byte('['), byte(']')
		if t.Kind == Set {
			open, closing = '{', '}'
		}
		sb.WriteByte(open)
		for i, e := range elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			formatValue(sb, t.Params[0], e, true, mode)
		}
		sb.WriteByte(closing)
	case Map:
		elems, _ := DecodeCollection(t, b)
		sb.WriteByte('{')
		for i := 0; i+1 < len(elems); i += 2 {
			if i > 0 {
				sb.WriteString(", ")
			}
			formatValue(sb, t.Params[0], elems[i], true, mode)
			sb.WriteString(": ")
			formatValue(sb, t.Params[1], elems[i+1], true, mode)
		}
		sb.WriteByte('}')
	case Tuple:
		fields, _ := DecodeTuple(t, b)
		if t.UDT != nil {
			// {street: 'x', zip: null}, as cqlsh and CQL literals write it.
			sb.WriteByte('{')
			for i, f := range fields {
				if i > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(QuoteName(t.UDT.Fields[i]))
				sb.WriteString(": ")
				formatValue(sb, t.Params[i], f, true, mode)
			}
			sb.WriteByte('}')
			return
		}
		sb.WriteByte('(')
		for i, f := range fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			formatValue(sb, t.Params[i], f, true, mode)
		}
		sb.WriteByte(')')
	default:
		sb.WriteString("0x")
		sb.WriteString(hex.EncodeToString(b))
	}
}

func inetString(b []byte) string {
	if len(b) == 4 {
		return netip.AddrFrom4([4]byte(b)).String()
	}
	return netip.AddrFrom16([16]byte(b)).String()
}

// cqlshEscape escapes text as cqlsh's format_value_text does: backslashes
// doubled, control characters (U+0000-U+001F, U+007F-U+00A0) shown as
// Python escapes \t, \n, \r or \xNN.
func cqlshEscape(s string) string {
	needs := false
	for _, r := range s {
		if r == '\\' || r < 0x20 || (r >= 0x7f && r <= 0xa0) {
			needs = true
			break
		}
	}
	if !needs {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || (r >= 0x7f && r <= 0xa0):
			b.WriteString(`\x`)
			b.WriteString(hex.EncodeToString([]byte{byte(r)}))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cqlshFloat formats like cqlshlib's format_floating_point_type: when the
// decimal exponent is in [-4, precision) the precision is widened by the
// digits left of the point, then Python's '%.*g'.
func cqlshFloat(f float64, precision int) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	if math.Abs(f) > 2.220446049250313e-16 {
		exp := int(math.Log10(math.Abs(f))) // Python int() truncates toward zero
		if exp >= -4 && exp < precision {
			precision += exp + 1
		}
	}
	return pyFormatG(f, precision)
}

// pyFormatG is Python's '%.*g': precision significant digits, trailing
// zeros removed, exponent form (e+XX, at least two digits) when the exponent
// is < -4 or >= precision.
func pyFormatG(f float64, precision int) string {
	if precision == 0 {
		precision = 1
	}
	s := strconv.FormatFloat(f, 'e', precision-1, 64)
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= precision {
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		return mant + "e" + sign + es
	}
	out := strconv.FormatFloat(f, 'f', max(precision-1-exp, 0), 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// literalFloat returns the shortest text that parses back to exactly f.
func literalFloat(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, bitSize)
}

// AppendJSON appends the value as JSON to dst: integers, varints and
// decimals as exact JSON numbers, float and double as Java's
// Float/Double.toString writes them (123123.0, 1.0E300; NaN, Infinity and
// -Infinity as null, which FloatType and DoubleType write since JSON lacks
// them), booleans as true/false, text as strings, timestamps and dates as
// strings in Cassandra's JSON format (2024-01-15 10:30:00.123Z,
// 2024-01-15, +10000-01-01), an IPv6 inet as InetAddress.getHostAddress
// writes it (0:0:0:0:0:0:0:1), uuid, IPv4 inet, time and duration as
// strings in cqlsh's format, blobs as "0x...",
// lists, sets and tuples as arrays, maps as objects whose keys are the
// key's JSON text (unquoted if it is a JSON string), and nil as null. The
// empty value of a non-text type is "" and invalid bytes are a "0x..."
// string.
func AppendJSON(dst []byte, t Type, b []byte) []byte {
	if b == nil {
		return append(dst, "null"...)
	}
	if Validate(t, b) != nil {
		return appendJSONString(dst, "0x"+hex.EncodeToString(b))
	}
	if len(b) == 0 {
		if t.Kind == Blob {
			return append(dst, `"0x"`...)
		}
		return append(dst, `""`...)
	}
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter:
		return strconv.AppendInt(dst, signedInt(b), 10)
	case Varint:
		return decodeVarint(b).Append(dst, 10)
	case Decimal:
		return append(dst, decodeDecimal(b).String()...)
	case Float, Double:
		f := math.Float64frombits(binary.BigEndian.Uint64(pad8(b)))
		bits := 64
		if t.Kind == Float {
			f, bits = float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// FloatType and DoubleType.toJSONString: JSON has no NaN
			// or Infinity.
			return append(dst, "null"...)
		}
		return append(dst, javaFloatString(f, bits)...)
	case Boolean:
		return strconv.AppendBool(dst, b[0] != 0)
	case Ascii, Text:
		return appendJSONString(dst, string(b))
	case Tuple:
		if t.UDT == nil {
			break
		}
		// UserType.toJSONString: an object of the fields, by name.
		fields, _ := DecodeTuple(t, b)
		dst = append(dst, '{')
		for i, f := range fields {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONString(dst, QuoteName(t.UDT.Fields[i]))
			dst = append(dst, ": "...)
			dst = AppendJSON(dst, t.Params[i], f)
		}
		return append(dst, '}')
	}
	switch t.Kind {
	case List, Set, Tuple:
		var elems [][]byte
		if t.Kind == Tuple {
			elems, _ = DecodeTuple(t, b)
		} else {
			elems, _ = DecodeCollection(t, b)
		}
		dst = append(dst, '[')
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			et := t.Params[0]
			if t.Kind == Tuple {
				et = t.Params[i]
			}
			dst = AppendJSON(dst, et, e)
		}
		return append(dst, ']')
	case Map:
		elems, _ := DecodeCollection(t, b)
		dst = append(dst, '{')
		for i := 0; i+1 < len(elems); i += 2 {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			k := AppendJSON(nil, t.Params[0], elems[i])
			if len(k) > 0 && k[0] == '"' {
				dst = append(dst, k...)
			} else {
				dst = appendJSONString(dst, string(k))
			}
			dst = append(dst, ": "...)
			dst = AppendJSON(dst, t.Params[1], elems[i+1])
		}
		return append(dst, '}')
	case Timestamp:
		return appendJSONString(dst, formatTimestampJSON(int64(binary.BigEndian.Uint64(b))))
	case Date:
		return appendJSONString(dst, decodeDate(b).ISOString())
	case Inet:
		mapped := len(b) == 16 && netip.AddrFrom16([16]byte(b)).Is4In6()
		if len(b) == 16 && !mapped {
			// InetAddress.getHostAddress: eight groups in hex, none
			// elided (an IPv4-mapped address is read as IPv4).
			var sb strings.Builder
			for i := 0; i < 16; i += 2 {
				if i > 0 {
					sb.WriteByte(':')
				}
				sb.WriteString(strconv.FormatUint(uint64(binary.BigEndian.Uint16(b[i:])), 16))
			}
			return appendJSONString(dst, sb.String())
		}
		if mapped {
			return appendJSONString(dst, netip.AddrFrom16([16]byte(b)).Unmap().String())
		}
	}
	// uuid, timeuuid, inet, time, duration, blob.
	return appendJSONString(dst, Format(t, b))
}

// JavaFloatString is Java's Float.toString (bits 32) or Double.toString
// (bits 64) of a finite f, as javaFloatString.
func JavaFloatString(f float64, bits int) string { return javaFloatString(f, bits) }

// javaFloatString is Java's Float.toString or Double.toString (bits 32 or
// 64) of a finite f: plain decimals with at least one fractional digit for
// 10^-3 <= |f| < 10^7, else d.dddE<exponent>.
func javaFloatString(f float64, bits int) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	e := strconv.FormatFloat(f, 'e', -1, bits) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}

func pad8(b []byte) []byte {
	if len(b) >= 8 {
		return b
	}
	return make([]byte, 8)
}

func appendJSONString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// nonFinite returns the text Java and cqlsh both give NaN and the
// infinities, and false for a finite f.
func nonFinite(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}

// JavaFloat formats f as Java's Double.toString does (Float.toString for
// bitSize 32), as Cassandra prints doubles in DESCRIBE output and
// sstabledump and BigDecimal.valueOf reads them: "NaN", "Infinity", "-0.0",
// plain decimals with at least one fractional digit for magnitudes in
// [1e-3, 1e7), otherwise d.dddE±n ("1.0E-4", "1.5E7"). The digits are the
// shortest that identify f, except for an integral double below 2^63,
// which gets Java 8 to 18's FloatingDecimal digits (javaLongDigits).
func JavaFloat(f float64, bitSize int) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if bitSize == 64 {
		if digits, decExp, ok := javaLongDigits(abs); ok {
			return javaDigitsString(f < 0, digits, decExp)
		}
	}
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bitSize)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bitSize) // -1.2345e+08
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// javaDigitsString lays out a number given by its significant digits and
// the count of digits before the point (decExp) as Java's Double.toString
// does.
func javaDigitsString(neg bool, digits string, decExp int) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if decExp > -3 && decExp < 8 { // [1e-3, 1e7)
		switch {
		case decExp <= 0:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -decExp))
			b.WriteString(digits)
		case decExp >= len(digits):
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", decExp-len(digits)))
			b.WriteString(".0")
		default:
			b.WriteString(digits[:decExp])
			b.WriteByte('.')
			b.WriteString(digits[decExp:])
		}
		return b.String()
	}
	b.WriteString(digits[:1])
	b.WriteByte('.')
	if len(digits) > 1 {
		b.WriteString(digits[1:])
	} else {
		b.WriteByte('0')
	}
	b.WriteByte('E')
	b.WriteString(strconv.Itoa(decExp - 1))
	return b.String()
}
