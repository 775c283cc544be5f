package types

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ConstKind is the kind of a CQL constant as the lexer sees it.
type ConstKind uint8

// The constant kinds of CQL (Constants.Type in Cassandra).
const (
	ConstString ConstKind = iota
	ConstInteger
	ConstFloat
	ConstBoolean
	ConstUUID
	ConstHex
	ConstDuration
	ConstNull
)

var constKindNames = [...]string{
	ConstString:   "STRING",
	ConstInteger:  "INTEGER",
	ConstFloat:    "FLOAT",
	ConstBoolean:  "BOOLEAN",
	ConstUUID:     "UUID",
	ConstHex:      "HEX",
	ConstDuration: "DURATION",
	ConstNull:     "NULL",
}

// String returns the kind as Cassandra names it in error messages: STRING,
// INTEGER, FLOAT, BOOLEAN, UUID, HEX, DURATION or NULL.
func (k ConstKind) String() string {
	if int(k) < len(constKindNames) {
		return constKindNames[k]
	}
	return "UNKNOWN"
}

// assignable reports whether a constant of kind k may be assigned to a
// column of kind t (Constants.Literal.testAssignment in Cassandra 4).
func assignable(k ConstKind, t Kind) bool {
	switch k {
	case ConstString:
		switch t {
		case Ascii, Text, Inet, Date, Time, Timestamp:
			return true
		}
	case ConstInteger:
		switch t {
		case Bigint, Counter, Date, Decimal, Double, Duration, Float, Int, Smallint, Time, Timestamp, Tinyint, Varint:
			return true
		}
	case ConstUUID:
		return t == UUID || t == TimeUUID
	case ConstFloat:
		return t == Decimal || t == Double || t == Float
	case ConstBoolean:
		return t == Boolean
	case ConstHex:
		// Cassandra's preferred type for a hex constant is ByteType, so a
		// hex constant is an exact match for tinyint as well as blob.
		return t == Blob || t == Tinyint
	case ConstDuration:
		return t == Duration
	}
	return false
}

// FromConstant converts a CQL constant to the serialized value of type t.
// text is the constant's exact source text, already unquoted for strings
// (a doubled single quote already reduced to one). A ConstNull gives nil
// (null) for any type.
//
// The accepted kinds per type follow Cassandra's assignment rules: a string
// for ascii, text, inet, date, time and timestamp; an integer for every
// numeric type and for date (the serialized unsigned day number), time
// (nanoseconds) and timestamp (milliseconds); a float for float, double and
// decimal (including NaN and Infinity); a UUID for uuid and timeuuid; hex
// for blob; a boolean for boolean; a duration for duration. Collections and
// tuples are not constants: use ParseLiteral or the Encode* helpers. Errors
// are *LiteralError values that wrap ErrInvalidLiteral.
func FromConstant(t Type, k ConstKind, text string) ([]byte, error) {
	if k == ConstNull {
		return nil, nil
	}
	if !assignable(k, t.Kind) {
		return nil, litMismatch(t, k, text)
	}
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, litErr(t, k, text, format, args...)
	}
	switch t.Kind {
	case Ascii:
		if !isASCII(text) {
			return fail("Invalid ASCII character in string literal: %s", text)
		}
		return []byte(text), nil
	case Text:
		if !utf8.ValidString(text) {
			return fail("Invalid UTF-8 in string literal")
		}
		return []byte(text), nil
	case Int, Bigint, Counter, Smallint, Tinyint:
		if k == ConstHex {
			b, err := hex.DecodeString(text[min(2, len(text)):])
			if err != nil || len(text) < 2 || len(b) != 1 {
				return fail("Expected 1 byte for a tinyint (%d)", len(b))
			}
			return b, nil
		}
		bitsz, name := 32, "int"
		switch t.Kind {
		case Bigint, Counter:
			bitsz, name = 64, "long"
		case Smallint:
			bitsz, name = 16, "short"
		case Tinyint:
			bitsz, name = 8, "byte"
		}
		v, err := strconv.ParseInt(text, 10, bitsz)
		if err != nil {
			return fail("Unable to make %s from '%s'", name, text)
		}
		return putInt(v, bitsz/8), nil
	case Varint:
		v, ok := new(big.Int).SetString(text, 10)
		if !ok || !isInteger(text) {
			return fail("Unable to make java.math.BigInteger from '%s'", text)
		}
		return encodeVarint(v), nil
	case Decimal:
		if k == ConstFloat && !isDecimalText(text) {
			return fail("Unable to make BigDecimal from '%s'", text)
		}
		d, ok := ParseDecimal(text)
		if !ok {
			return fail("Unable to make BigDecimal from '%s'", text)
		}
		return encodeDecimal(d), nil
	case Float, Double:
		v, ok := parseCQLFloat(text, t.Kind == Float)
		if !ok {
			name := "double"
			if t.Kind == Float {
				name = "float"
			}
			return fail("Unable to make %s from '%s'", name, text)
		}
		if t.Kind == Float {
			return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v))), nil
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case Boolean:
		switch strings.ToLower(text) {
		case "true":
			return []byte{1}, nil
		case "false":
			return []byte{0}, nil
		}
		return fail("Unable to make boolean from '%s'", text)
	case UUID, TimeUUID:
		u, err := ParseUUID(text)
		if err != nil {
			return fail("Unable to make UUID from '%s'", text)
		}
		if t.Kind == TimeUUID && u.Version() != 1 {
			return fail("Unsupported UUID type for timeuuid: %s (version %d)", text, u.Version())
		}
		return u[:], nil
	case Timestamp:
		if text == "" {
			return []byte{}, nil // TimestampType.fromString: empty string, empty value
		}
		ms, err := ParseTimestamp(text)
		if err != nil {
			return fail("Unable to coerce '%s' to a formatted date (long)", text)
		}
		return putInt(ms, 8), nil
	case Date:
		d, err := ParseDate(text)
		if err != nil {
			return fail("%s", strings.TrimPrefix(err.Error(), ErrInvalidValue.Error()+": "))
		}
		return encodeDate(d), nil
	case Time:
		ns, err := ParseTime(text)
		if err != nil {
			return fail("%s", strings.TrimPrefix(err.Error(), ErrInvalidValue.Error()+": "))
		}
		return putInt(ns, 8), nil
	case Blob:
		h := text
		if len(h) < 2 || h[0] != '0' || (h[1] != 'x' && h[1] != 'X') {
			return fail("cannot parse '%s' as hex bytes", text)
		}
		b, err := hex.DecodeString(h[2:])
		if err != nil {
			return fail("cannot parse '%s' as hex bytes", text)
		}
		return b, nil
	case Inet:
		if text == "" {
			return []byte{}, nil // InetAddressType.fromString: empty string, empty value
		}
		b, ok := parseInet(text)
		if !ok {
			return fail("Unable to make inet address from '%s'", text)
		}
		return b, nil
	case Duration:
		d, err := ParseDuration(text)
		if err != nil {
			var re *DurationRangeError
			if errors.As(err, &re) {
				return fail("%s", re.Msg)
			}
			return fail("Unable to convert '%s' to a duration", text)
		}
		return encodeDuration(d), nil
	}
	return nil, litMismatch(t, k, text)
}

func putInt(v int64, size int) []byte {
	b := make([]byte, size)
	for i := size - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

func isDecimalText(s string) bool {
	_, ok := ParseDecimal(s)
	return ok
}

// parseCQLFloat parses a CQL float or integer constant: digits with an
// optional fraction and exponent, or NaN, Infinity, -Infinity. Go's
// ParseFloat spellings such as "inf", hex floats or underscores are refused.
func parseCQLFloat(s string, single bool) (float64, bool) {
	switch s {
	case "NaN", "-NaN":
		return math.Float64frombits(0x7ff8000000000000), true // Java's canonical NaN
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if !isDecimalText(s) {
		return 0, false
	}
	bitSize := 64
	if single {
		bitSize = 32
	}
	v, err := strconv.ParseFloat(s, bitSize)
	if err != nil {
		// Out of range: Java's parseFloat/parseDouble give ±Infinity, 0.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

// parseInet parses an IPv4 or IPv6 address; IPv4 gives 4 bytes, IPv6 16.
func parseInet(s string) ([]byte, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return nil, false
	}
	if a.Is4() {
		b := a.As4()
		return b[:], true
	}
	b := a.As16()
	return b[:], true
}

// TupleFromString parses a string constant given for a tuple (not a user
// type) as Cassandra's TupleType.fromString does: fields separated by ':'
// ("\:" is a colon inside a field), "@" for a null field, each field read
// as its type's fromString reads it (an int "0", a text as it is, a blob in
// hex without 0x). Fewer fields than the type's leave the rest out; more
// are refused.
func TupleFromString(t Type, s string) ([]byte, error) {
	var fields []string
	cur := strings.Builder{}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			cur.WriteByte(s[i])
			cur.WriteByte(s[i+1])
			i++
		case s[i] == ':':
			fields = append(fields, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	fields = append(fields, cur.String())
	if len(fields) > len(t.Params) {
		return nil, litErr(t, ConstString, s, "Invalid tuple literal: too many elements. Type %s expects %d but got %d", t, len(t.Params), len(fields))
	}
	unescape := strings.NewReplacer(`\:`, ":", `\@`, "@")
	out := make([][]byte, len(fields))
	for i, f := range fields {
		if f == "@" {
			continue
		}
		b, err := fieldFromString(t.Params[i], unescape.Replace(f))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return EncodeTuple(out), nil
}

// fieldFromString reads text as AbstractType.fromString does for a simple
// type, through the constant of the kind the type's values are written in.
func fieldFromString(t Type, text string) ([]byte, error) {
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Varint, Counter:
		return FromConstant(t, ConstInteger, text)
	case Float, Double, Decimal:
		return FromConstant(t, ConstFloat, text)
	case Boolean:
		return FromConstant(t, ConstBoolean, text)
	case UUID, TimeUUID:
		return FromConstant(t, ConstUUID, text)
	case Blob:
		return FromConstant(t, ConstHex, "0x"+text)
	case Duration:
		return FromConstant(t, ConstDuration, text)
	case Tuple, List, Set, Map:
		return nil, litErr(t, ConstString, text, "Unable to parse %s from string '%s'", t, text)
	}
	return FromConstant(t, ConstString, text)
}
