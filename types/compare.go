package types

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
)

// Compare orders two serialized values of type t as Cassandra's comparator
// for the type does (AbstractType.compare), returning -1, 0 or +1:
//
//   - the empty value sorts before every other value; null (nil) is treated
//     as the empty value (callers never compare nulls in keys);
//   - int, bigint, smallint, tinyint, counter, timestamp, time: signed;
//   - varint and decimal: numerically (1.0 == 1.00);
//   - float and double: as Java's Float.compare/Double.compare (-0.0 < 0.0,
//     NaN greater than +Infinity and equal to every NaN);
//   - text, ascii, blob, inet, date, duration: unsigned bytes;
//   - boolean: false < true (any non-zero byte is true);
//   - timeuuid: the embedded time, then the last 8 bytes as signed bytes;
//   - uuid: the version, then the time for version 1 and the first 8 bytes
//     unsigned otherwise, then the last 8 bytes unsigned;
//   - frozen collections element by element (keys then values for maps),
//     the shorter first when one is a prefix of the other;
//   - tuples field by field, null before any value, trailing nulls ignored.
//
// Malformed values (which Validate rejects) are ordered deterministically
// but arbitrarily.
func Compare(t Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return boolCmp(len(a) != 0, len(b) != 0)
	}
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
		if len(a) != len(b) || len(a) > 8 {
			return bytes.Compare(a, b)
		}
		return cmp.Compare(signedInt(a), signedInt(b))
	case Varint:
		return decodeVarint(a).Cmp(decodeVarint(b))
	case Decimal:
		if len(a) < 5 || len(b) < 5 {
			return bytes.Compare(a, b)
		}
		return bytes.Compare(appendDecimalKey(nil, a), appendDecimalKey(nil, b))
	case Float:
		if len(a) != 4 || len(b) != 4 {
			return bytes.Compare(a, b)
		}
		return cmp.Compare(floatKey32(a), floatKey32(b))
	case Double:
		if len(a) != 8 || len(b) != 8 {
			return bytes.Compare(a, b)
		}
		return cmp.Compare(floatKey64(a), floatKey64(b))
	case Boolean:
		return boolCmp(a[0] != 0, b[0] != 0)
	case TimeUUID:
		if len(a) != 16 || len(b) != 16 {
			return bytes.Compare(a, b)
		}
		var ka, kb [16]byte
		timeUUIDKey(ka[:0], a)
		timeUUIDKey(kb[:0], b)
		return bytes.Compare(ka[:], kb[:])
	case UUID:
		if len(a) != 16 || len(b) != 16 {
			return bytes.Compare(a, b)
		}
		var ka, kb [17]byte
		uuidKey(ka[:0], a)
		uuidKey(kb[:0], b)
		return bytes.Compare(ka[:], kb[:])
	case List, Set, Map:
		ea, erra := DecodeCollection(t, a)
		eb, errb := DecodeCollection(t, b)
		if erra != nil || errb != nil || len(t.Params) == 0 {
			return bytes.Compare(a, b)
		}
		for i := 0; i < len(ea) && i < len(eb); i++ {
			et := t.Params[0]
			if t.Kind == Map {
				et = t.Params[i%2]
			}
			if c := Compare(et, ea[i], eb[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(int64(len(ea)), int64(len(eb)))
	case Tuple:
		fa, erra := DecodeTuple(t, a)
		fb, errb := DecodeTuple(t, b)
		if erra != nil || errb != nil {
			return bytes.Compare(a, b)
		}
		for i := range fa {
			switch {
			case fa[i] == nil && fb[i] == nil:
				continue
			case fa[i] == nil:
				return -1
			case fb[i] == nil:
				return 1
			}
			if c := Compare(t.Params[i], fa[i], fb[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	// text, ascii, blob, inet, date, duration and anything else: byte order.
	return bytes.Compare(a, b)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// signedInt reads a big-endian two's complement integer of 1 to 8 bytes.
func signedInt(b []byte) int64 {
	v := int64(int8(b[0]))
	for _, c := range b[1:] {
		v = v<<8 | int64(c)
	}
	return v
}

// floatKey32 maps a float's bits to an unsigned integer ordered as
// Float.compare: NaNs become the canonical NaN, negatives are inverted and
// positives get their sign bit set.
func floatKey32(b []byte) uint64 {
	u := binary.BigEndian.Uint32(b)
	if f := math.Float32frombits(u); f != f {
		u = 0x7fc00000
	}
	if u&0x80000000 != 0 {
		return uint64(^u)
	}
	return uint64(u | 0x80000000)
}

func floatKey64(b []byte) uint64 {
	u := binary.BigEndian.Uint64(b)
	if f := math.Float64frombits(u); f != f {
		u = 0x7ff8000000000000
	}
	if u&(1<<63) != 0 {
		return ^u
	}
	return u | 1<<63
}

// timeUUIDKey appends the 16-byte memcmp-ordered form of a timeuuid: the
// 64-bit reordered timestamp (version|time_hi, time_mid, time_low) with its
// sign bit flipped (Long.compare is signed), then the last 8 bytes each
// xor 0x80 (they compare as signed bytes).
func timeUUIDKey(dst, u []byte) []byte {
	msb := binary.BigEndian.Uint64(u)
	r := msb<<48 | (msb<<16)&0xffff00000000 | msb>>32
	dst = binary.BigEndian.AppendUint64(dst, r^1<<63)
	lsb := binary.BigEndian.Uint64(u[8:]) ^ 0x8080808080808080
	return binary.BigEndian.AppendUint64(dst, lsb)
}

func timeUUIDFromKey(dst, k []byte) []byte {
	r := binary.BigEndian.Uint64(k) ^ 1<<63
	msb := r<<32 | (r>>16)&0xffff0000 | r>>48
	dst = binary.BigEndian.AppendUint64(dst, msb)
	return binary.BigEndian.AppendUint64(dst, binary.BigEndian.Uint64(k[8:])^0x8080808080808080)
}

// uuidKey appends the 17-byte memcmp-ordered form of a uuid: the version
// nibble as one byte; for version 1 the reordered timestamp with its sign
// bit flipped, otherwise the first 8 bytes as they are; then the last 8
// bytes unchanged (UUIDType compares them unsigned).
func uuidKey(dst, u []byte) []byte {
	version := u[6] >> 4
	dst = append(dst, version)
	msb := binary.BigEndian.Uint64(u)
	if version == 1 {
		r := msb<<48 | (msb<<16)&0xffff00000000 | msb>>32
		dst = binary.BigEndian.AppendUint64(dst, r^1<<63)
	} else {
		dst = binary.BigEndian.AppendUint64(dst, msb)
	}
	return append(dst, u[8:16]...)
}

func uuidFromKey(dst, k []byte) ([]byte, bool) {
	version := k[0]
	msb := binary.BigEndian.Uint64(k[1:])
	if version == 1 {
		r := msb ^ 1<<63
		msb = r<<32 | (r>>16)&0xffff0000 | r>>48
	}
	if byte(msb>>12)&0x0f != version {
		return dst, false
	}
	dst = binary.BigEndian.AppendUint64(dst, msb)
	return append(dst, k[9:17]...), true
}
