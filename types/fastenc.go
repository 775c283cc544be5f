package types

import (
	"encoding/binary"
	"math"
	"time"
	"unicode/utf8"
)

// EncodedLen returns the length of Encode(t, v) when v is one of the common
// Go values that EncodeInto writes without allocating, or -1 when Encode
// must do the work (other Go types, pointers, values out of range, invalid
// text). The common values are: Go integers for int, bigint, counter,
// smallint and tinyint (in range for the type's width); []byte for blob;
// valid UTF-8 strings for text and ASCII strings for ascii; bool for
// boolean; float64 for double; time.Time for timestamp.
func EncodedLen(t Type, v any) int { return EncodedLenKind(t.Kind, v) }

// EncodedLenKind is EncodedLen for a type of kind k, which is all of the
// type EncodedLen reads: callers that hold a Type in a slice call it
// without copying the Type.
func EncodedLenKind(k Kind, v any) int {
	switch k {
	case Int, Bigint, Counter, Smallint, Tinyint:
		var n int64
		// The commonest Go integers first, without toInt64's search.
		switch x := v.(type) {
		case int64:
			n = x
		case int:
			n = int64(x)
		case int32:
			n = int64(x)
		default:
			var ok bool
			if n, ok = toInt64(v); !ok {
				return -1
			}
		}
		size := intSize(k)
		if size < 8 && (n < -1<<(size*8-1) || n >= 1<<(size*8-1)) {
			return -1
		}
		return size
	case Blob:
		if b, ok := v.([]byte); ok {
			return len(b)
		}
	case Text:
		if s, ok := v.(string); ok && utf8.ValidString(s) {
			return len(s)
		}
	case Ascii:
		if s, ok := v.(string); ok && isASCII(s) {
			return len(s)
		}
	case Boolean:
		if _, ok := v.(bool); ok {
			return 1
		}
	case Double:
		if _, ok := v.(float64); ok {
			return 8
		}
	case Timestamp:
		if _, ok := v.(time.Time); ok {
			return 8
		}
	}
	return -1
}

// EncodeInto writes into dst the bytes Encode(t, v) returns, for a v for
// which EncodedLen(t, v) returned len(dst): big-endian integers of the
// type's width, blob and text bytes copied, booleans as one byte, IEEE
// doubles and timestamps as milliseconds since the Unix epoch. dst must be
// zeroed.
func EncodeInto(dst []byte, t Type, v any) { EncodeValueInto(dst, v) }

// EncodeValueInto is EncodeInto, which reads nothing of the type: the
// value's Go type and dst's length say how it is written.
func EncodeValueInto(dst []byte, v any) {
	switch x := v.(type) {
	case int64:
		putBigEndian(dst, x)
	case int32:
		putBigEndian(dst, int64(x))
	case int:
		putBigEndian(dst, int64(x))
	case []byte:
		copy(dst, x)
	case string:
		copy(dst, x)
	case bool:
		if x {
			dst[0] = 1
		}
	case float64:
		binary.BigEndian.PutUint64(dst, math.Float64bits(x))
	case time.Time:
		binary.BigEndian.PutUint64(dst, uint64(x.UnixMilli()))
	default:
		n, _ := toInt64(v)
		putBigEndian(dst, n)
	}
}

// putBigEndian writes the len(dst) low bytes of n into dst, big-endian.
func putBigEndian(dst []byte, n int64) {
	switch len(dst) {
	case 8:
		binary.BigEndian.PutUint64(dst, uint64(n))
	case 4:
		binary.BigEndian.PutUint32(dst, uint32(n))
	default:
		for i := len(dst) - 1; i >= 0; i-- {
			dst[i] = byte(n)
			n >>= 8
		}
	}
}

// isASCII reports whether s holds only 7-bit characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > 0x7f {
			return false
		}
	}
	return true
}
