package types

import (
	"encoding/binary"
	"sort"
	"unicode/utf8"
)

// Collection and tuple serialized forms (native protocol v4 §6):
//
//	list, set:  [int32 n] n × ([int32 len][len bytes])
//	map:        [int32 n] n × ([int32 klen][key][int32 vlen][value])
//	tuple:      per field [int32 len][len bytes], len -1 = null
//
// All integers are big-endian. A list of the two ints 1 and 2 is
// 00000002 00000004 00000001 00000004 00000002. Collections never hold nulls;
// a tuple may have fewer fields than its type (Cassandra allows it so that
// fields can be added), the missing ones read as null.

// EncodeList serializes list (or set) elements in the given order.
func EncodeList(elems [][]byte) []byte {
	n := 4
	for _, e := range elems {
		n += 4 + len(e)
	}
	out := make([]byte, 4, n)
	binary.BigEndian.PutUint32(out, uint32(len(elems)))
	for _, e := range elems {
		out = appendField(out, e)
	}
	return out
}

func appendField(out, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(out, 0xffffffff)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(v)))
	return append(out, v...)
}

// EncodeSet serializes a set of type t: the elements are sorted by the
// element type's comparator and duplicates (equal by the comparator) are
// dropped, keeping the first. Null elements are refused.
func EncodeSet(t Type, elems [][]byte) ([]byte, error) {
	if t.Kind != Set || len(t.Params) != 1 {
		return nil, valueErr(t, "not a set type")
	}
	et := t.Params[0]
	sorted := make([][]byte, 0, len(elems))
	for _, e := range elems {
		if e == nil {
			return nil, valueErr(t, "null is not supported inside collections")
		}
		if err := Validate(et, e); err != nil {
			return nil, err
		}
		sorted = append(sorted, e)
	}
	sort.SliceStable(sorted, func(i, j int) bool { return Compare(et, sorted[i], sorted[j]) < 0 })
	out := sorted[:0]
	for i, e := range sorted {
		if i > 0 && Compare(et, out[len(out)-1], e) == 0 {
			continue
		}
		out = append(out, e)
	}
	return EncodeList(out), nil
}

// EncodeMap serializes a map of type t from parallel key and value slices:
// entries are sorted by the key comparator and, among keys equal by the
// comparator, the later entry wins. Null keys or values are refused.
func EncodeMap(t Type, keys, values [][]byte) ([]byte, error) {
	if t.Kind != Map || len(t.Params) != 2 {
		return nil, valueErr(t, "not a map type")
	}
	if len(keys) != len(values) {
		return nil, valueErr(t, "%d keys but %d values", len(keys), len(values))
	}
	kt := t.Params[0]
	idx := make([]int, len(keys))
	for i := range keys {
		if keys[i] == nil || values[i] == nil {
			return nil, valueErr(t, "null is not supported inside collections")
		}
		if err := Validate(kt, keys[i]); err != nil {
			return nil, err
		}
		if err := Validate(t.Params[1], values[i]); err != nil {
			return nil, err
		}
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return Compare(kt, keys[idx[a]], keys[idx[b]]) < 0 })
	kept := idx[:0]
	for _, i := range idx {
		if len(kept) > 0 && Compare(kt, keys[kept[len(kept)-1]], keys[i]) == 0 {
			kept[len(kept)-1] = i // later duplicate wins (stable sort keeps input order)
			continue
		}
		kept = append(kept, i)
	}
	n := 4
	for _, i := range kept {
		n += 8 + len(keys[i]) + len(values[i])
	}
	out := make([]byte, 4, n)
	binary.BigEndian.PutUint32(out, uint32(len(kept)))
	for _, i := range kept {
		out = appendField(out, keys[i])
		out = appendField(out, values[i])
	}
	return out, nil
}

// EncodeTuple serializes tuple fields; a nil field is null.
func EncodeTuple(fields [][]byte) []byte {
	n := 0
	for _, f := range fields {
		n += 4 + len(f)
	}
	out := make([]byte, 0, n)
	for _, f := range fields {
		out = appendField(out, f)
	}
	return out
}

// DecodeCollection splits a serialized list, set or map of type t into its
// elements; for a map it returns k0, v0, k1, v1, ... The returned slices
// alias b. An empty b (the empty value) yields no elements. Elements are
// not validated against the element type; use Validate for that.
func DecodeCollection(t Type, b []byte) ([][]byte, error) {
	if !t.IsCollection() {
		return nil, valueErr(t, "not a collection type")
	}
	if len(b) == 0 {
		return nil, nil
	}
	if len(b) < 4 {
		return nil, valueErr(t, "Not enough bytes to read the collection size")
	}
	n := int64(binary.BigEndian.Uint32(b))
	if int32(n) < 0 {
		return nil, valueErr(t, "negative collection size")
	}
	per := int64(1)
	if t.Kind == Map {
		per = 2
	}
	// Each element needs at least 4 bytes: reject absurd counts before allocating.
	if n*per*4 > int64(len(b)-4) {
		return nil, valueErr(t, "Not enough bytes to read %d elements", n)
	}
	elems := make([][]byte, 0, n*per)
	rest := b[4:]
	for i := int64(0); i < n*per; i++ {
		if len(rest) < 4 {
			return nil, valueErr(t, "Not enough bytes to read an element size")
		}
		l := int32(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if l < 0 {
			return nil, valueErr(t, "null is not supported inside collections")
		}
		if int(l) > len(rest) {
			return nil, valueErr(t, "Not enough bytes to read an element")
		}
		elems = append(elems, rest[:l:l])
		rest = rest[l:]
	}
	if len(rest) != 0 {
		return nil, valueErr(t, "Unexpected extraneous bytes after %s value", t.Kind)
	}
	return elems, nil
}

// DecodeTuple splits a serialized tuple into its fields (nil for a null
// field). The result always has one entry per field of t: fields missing at
// the end of b (allowed by Cassandra) are null. The slices alias b.
func DecodeTuple(t Type, b []byte) ([][]byte, error) {
	if t.Kind != Tuple {
		return nil, valueErr(t, "not a tuple type")
	}
	fields := make([][]byte, len(t.Params))
	rest := b
	for i := 0; len(rest) > 0; i++ {
		if i >= len(t.Params) {
			return nil, valueErr(t, "Invalid tuple literal: too many elements. Type %s expects %d but got more", t, len(t.Params))
		}
		if len(rest) < 4 {
			return nil, valueErr(t, "Not enough bytes to read size of %dth component", i)
		}
		l := int32(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if l < 0 {
			continue
		}
		if int(l) > len(rest) {
			return nil, valueErr(t, "Not enough bytes to read %dth component", i)
		}
		fields[i] = rest[:l:l]
		rest = rest[l:]
	}
	return fields, nil
}

// Validate reports whether b is a valid serialized value of t, following
// Cassandra's TypeSerializer.validate: fixed lengths for numbers, UTF-8 for
// text, bytes ≤ 0x7f for ascii, 4 or 16 bytes for inet, version 1 for
// timeuuid, same-signed components for duration, and element-wise checks of
// collections and tuples. A nil b (null) is valid. The empty value is valid
// for every type except smallint, tinyint, date, time and duration, whose
// serializers refuse it. Errors wrap ErrInvalidValue.
func Validate(t Type, b []byte) error {
	if b == nil {
		return nil
	}
	switch t.Kind {
	case Ascii:
		for _, c := range b {
			if c > 0x7f {
				return valueErr(t, "Invalid byte for ascii: %d", c)
			}
		}
	case Text:
		if !utf8.Valid(b) {
			return valueErr(t, "Invalid UTF-8 bytes")
		}
	case Int:
		return fixedLen(t, b, 4, true)
	case Bigint, Counter, Timestamp:
		return fixedLen(t, b, 8, true)
	case Smallint:
		return fixedLen(t, b, 2, false)
	case Tinyint:
		return fixedLen(t, b, 1, false)
	case Float:
		return fixedLen(t, b, 4, true)
	case Double:
		return fixedLen(t, b, 8, true)
	case Boolean:
		if len(b) > 1 {
			return valueErr(t, "Expected 1 or 0 byte value (%d)", len(b))
		}
	case Date:
		return fixedLen(t, b, 4, false)
	case Time:
		// Like TimeSerializer, only the size is checked: out-of-range
		// nanoseconds are refused when parsing text, not when validating.
		return fixedLen(t, b, 8, false)
	case UUID:
		return fixedLen(t, b, 16, true)
	case TimeUUID:
		if err := fixedLen(t, b, 16, true); err != nil {
			return err
		}
		if len(b) == 16 && b[6]&0xf0 != 0x10 {
			return valueErr(t, "Invalid version for TimeUUID type.")
		}
	case Inet:
		if len(b) != 0 && len(b) != 4 && len(b) != 16 {
			return valueErr(t, "Expected 4 or 16 byte inetaddress; got %d", len(b))
		}
	case Decimal:
		if len(b) != 0 && len(b) < 4 {
			return valueErr(t, "Expected 0 or at least 4 bytes (%d)", len(b))
		}
		if len(b) == 4 {
			return valueErr(t, "missing unscaled value")
		}
	case Varint, Blob:
	case Duration:
		if len(b) < 3 {
			return valueErr(t, "Expected at least 3 bytes for a duration (%d)", len(b))
		}
		_, err := decodeDuration(b)
		return err
	case List, Set, Map:
		if len(t.Params) != t.paramCount() {
			return valueErr(t, "malformed type")
		}
		elems, err := DecodeCollection(t, b)
		if err != nil {
			return err
		}
		for i, e := range elems {
			et := t.Params[0]
			if t.Kind == Map {
				et = t.Params[i%2]
			}
			if err := Validate(et, e); err != nil {
				return err
			}
		}
	case Tuple:
		fields, err := DecodeTuple(t, b)
		if err != nil {
			return err
		}
		for i, f := range fields {
			if err := Validate(t.Params[i], f); err != nil {
				return err
			}
		}
	default:
		return valueErr(t, "unsupported type")
	}
	return nil
}

func (t Type) paramCount() int {
	switch t.Kind {
	case List, Set:
		return 1
	case Map:
		return 2
	}
	return len(t.Params)
}

func fixedLen(t Type, b []byte, n int, emptyOK bool) error {
	if len(b) == n || (emptyOK && len(b) == 0) {
		return nil
	}
	return valueErr(t, "Expected %d bytes for a %s (%d)", n, t.Kind, len(b))
}
