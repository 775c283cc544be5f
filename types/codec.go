package types

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
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
// dropped, keeping the first, as Cassandra's TreeSet does when it binds a
// set. Null elements are refused.
func EncodeSet(t Type, elems [][]byte) ([]byte, error) {
	if t.Kind != Set || len(t.Params) != 1 {
		return nil, valueErr(t, "not a set type")
	}
	et := t.Params[0]
	for _, e := range elems {
		if e == nil {
			return nil, valueErr(t, "null is not supported inside collections")
		}
		if err := Validate(et, e); err != nil {
			return nil, err
		}
	}
	return EncodeList(sortSet(et, slices.Clone(elems))), nil
}

// sortSet sorts elems by et's comparator and drops the elements equal to
// an earlier one, in place; it returns the kept prefix.
func sortSet(et Type, elems [][]byte) [][]byte {
	sort.SliceStable(elems, func(i, j int) bool { return Compare(et, elems[i], elems[j]) < 0 })
	out := elems[:0]
	for i, e := range elems {
		if i > 0 && Compare(et, out[len(out)-1], e) == 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// EncodeMap serializes a map of type t from parallel key and value slices:
// entries are sorted by the key comparator and, among keys equal by the
// comparator, the first key is kept with the last value, as Cassandra's
// TreeMap does when it binds a map (put replaces the value, not the key).
// Null keys or values are refused.
func EncodeMap(t Type, keys, values [][]byte) ([]byte, error) {
	if t.Kind != Map || len(t.Params) != 2 {
		return nil, valueErr(t, "not a map type")
	}
	if len(keys) != len(values) {
		return nil, valueErr(t, "%d keys but %d values", len(keys), len(values))
	}
	for i := range keys {
		if keys[i] == nil || values[i] == nil {
			return nil, valueErr(t, "null is not supported inside collections")
		}
		if err := Validate(t.Params[0], keys[i]); err != nil {
			return nil, err
		}
		if err := Validate(t.Params[1], values[i]); err != nil {
			return nil, err
		}
	}
	keys, values = sortMap(t.Params[0], keys, values)
	return encodeEntries(keys, values), nil
}

// sortMap returns the entries of the parallel slices keys and values sorted
// by kt's comparator, with one entry per key: the first key with the last
// value among keys equal by the comparator. The inputs are not modified.
func sortMap(kt Type, keys, values [][]byte) ([][]byte, [][]byte) {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return Compare(kt, keys[idx[a]], keys[idx[b]]) < 0 })
	ks := make([][]byte, 0, len(idx))
	vs := make([][]byte, 0, len(idx))
	for _, i := range idx {
		if len(ks) > 0 && Compare(kt, ks[len(ks)-1], keys[i]) == 0 {
			vs[len(vs)-1] = values[i] // later duplicate's value wins (stable sort keeps input order)
			continue
		}
		ks, vs = append(ks, keys[i]), append(vs, values[i])
	}
	return ks, vs
}

// encodeEntries serializes map entries in the given order.
func encodeEntries(keys, values [][]byte) []byte {
	n := 4
	for i := range keys {
		n += 8 + len(keys[i]) + len(values[i])
	}
	out := make([]byte, 4, n)
	binary.BigEndian.PutUint32(out, uint32(len(keys)))
	for i := range keys {
		out = appendField(out, keys[i])
		out = appendField(out, values[i])
	}
	return out
}

// Normalize validates b as a value of t, as Validate does (with the same
// errors), and returns its canonical serialized form: the elements of every
// set sorted by the element comparator without duplicates (the first kept)
// and the entries of every map sorted by key with one entry per key (the
// first key, the last value), at every nesting level: inside lists, tuples,
// user-defined types, map values and set elements. This is what Cassandra
// stores when it binds a collection (Sets.Value.fromSerialized and
// Maps.Value.fromSerialized collect into a TreeSet or TreeMap, and nested
// values are serialized again by SetSerializer and MapSerializer, which
// sort), so {2,1}, {1,2} and {1,1,2} are the same partition key. A value
// already canonical is returned as is, without copying; a nil b is null.
func Normalize(t Type, b []byte) ([]byte, error) {
	if err := Validate(t, b); err != nil {
		return nil, err
	}
	if b == nil || !hasUnordered(t) {
		return b, nil
	}
	return normalizeValid(t, b), nil
}

// hasUnordered reports whether a value of t may hold a set or a map.
func hasUnordered(t Type) bool {
	if t.Kind == Set || t.Kind == Map {
		return true
	}
	for _, p := range t.Params {
		if hasUnordered(p) {
			return true
		}
	}
	return false
}

// normalizeValid returns the canonical form of b, a valid value of t (see
// Normalize): b itself when it is canonical already.
func normalizeValid(t Type, b []byte) []byte {
	if len(b) == 0 || !hasUnordered(t) {
		return b
	}
	switch t.Kind {
	case List, Set, Map:
		elems, err := DecodeCollection(t, b)
		if err != nil {
			return b // unreachable: b is valid
		}
		changed := false
		for i, e := range elems {
			et := t.Params[0]
			if t.Kind == Map {
				et = t.Params[i%2]
			}
			if n := normalizeValid(et, e); !bytes.Equal(n, e) {
				elems[i], changed = n, true
			}
		}
		switch t.Kind {
		case Set:
			if !changed && strictlySorted(t.Params[0], elems) {
				return b
			}
			return EncodeList(sortSet(t.Params[0], elems))
		case Map:
			keys := make([][]byte, 0, len(elems)/2)
			vals := make([][]byte, 0, len(elems)/2)
			for i := 0; i+1 < len(elems); i += 2 {
				keys, vals = append(keys, elems[i]), append(vals, elems[i+1])
			}
			if !changed && strictlySorted(t.Params[0], keys) {
				return b
			}
			keys, vals = sortMap(t.Params[0], keys, vals)
			return encodeEntries(keys, vals)
		}
		if !changed {
			return b
		}
		return EncodeList(elems)
	case Tuple:
		fields, err := DecodeTuple(t, b)
		if err != nil {
			return b // unreachable: b is valid
		}
		changed := false
		for i, f := range fields {
			if f == nil {
				continue
			}
			if n := normalizeValid(t.Params[i], f); !bytes.Equal(n, f) {
				fields[i], changed = n, true
			}
		}
		if !changed {
			return b
		}
		// Keep the fields the value had: missing trailing fields stay
		// missing rather than becoming explicit nulls.
		return EncodeTuple(fields[:tupleFieldCount(b)])
	}
	return b
}

// strictlySorted reports whether elems are in strictly increasing order of
// et's comparator.
func strictlySorted(et Type, elems [][]byte) bool {
	for i := 1; i < len(elems); i++ {
		if Compare(et, elems[i-1], elems[i]) >= 0 {
			return false
		}
	}
	return true
}

// tupleFieldCount returns the number of fields serialized in b, a valid
// tuple value.
func tupleFieldCount(b []byte) int {
	n := 0
	for len(b) >= 4 {
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if l > 0 {
			b = b[l:]
		}
		n++
	}
	return n
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
	// The messages are CollectionSerializer's (ListSerializer, SetSerializer
	// and MapSerializer.deserializeForNativeProtocol): any read past the end
	// is "Not enough bytes to read a list", a negative count "The data
	// cannot be deserialized as a list", a null element of a set or map
	// "Null value read when not allowed".
	kind := t.Kind.String()
	short := func() error { return valueErr(t, "Not enough bytes to read a %s", kind) }
	if len(b) < 4 {
		return nil, short()
	}
	n := int64(int32(binary.BigEndian.Uint32(b)))
	if n < 0 {
		return nil, valueErr(t, "The data cannot be deserialized as a %s", kind)
	}
	per := int64(1)
	if t.Kind == Map {
		per = 2
	}
	// A count from bytes that are no collection may be huge: allocate for
	// what the bytes can hold at most (4 bytes an element).
	elems := make([][]byte, 0, min(n*per, int64(len(b)-4)/4))
	rest := b[4:]
	hasNull := false
	for i := int64(0); i < n*per; i++ {
		if len(rest) < 4 {
			return nil, short()
		}
		l := int32(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if l < 0 {
			if t.Kind != List {
				return nil, valueErr(t, "Null value read when not allowed")
			}
			// ListSerializer reads null elements; a list value may not
			// hold them.
			hasNull = true
			continue
		}
		if int(l) > len(rest) {
			return nil, short()
		}
		elems = append(elems, rest[:l:l])
		rest = rest[l:]
	}
	if len(rest) != 0 {
		return nil, valueErr(t, "Unexpected extraneous bytes after %s value", t.Kind)
	}
	if hasNull {
		return nil, valueErr(t, "null is not supported inside collections")
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
	// TupleType.validate and UserType.validate name a component by its
	// position, a field by its position and name.
	part := func(i int) string {
		if t.UDT != nil && i < len(t.UDT.Fields) {
			return fmt.Sprintf("%dth field %s", i, t.UDT.Fields[i])
		}
		return fmt.Sprintf("%dth component", i)
	}
	for i := 0; len(rest) > 0; i++ {
		if i >= len(t.Params) {
			if t.UDT != nil {
				return nil, valueErr(t, "Invalid remaining data after end of UDT value")
			}
			return nil, valueErr(t, "Invalid remaining data after end of tuple value")
		}
		if len(rest) < 4 {
			return nil, valueErr(t, "Not enough bytes to read size of %s", part(i))
		}
		l := int32(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if l < 0 {
			continue
		}
		if int(l) > len(rest) {
			return nil, valueErr(t, "Not enough bytes to read %s", part(i))
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
	if n == 1 {
		// ByteSerializer.validate says "1 byte" (tinyint).
		return valueErr(t, "Expected 1 byte for a %s (%d)", t.Kind, len(b))
	}
	return valueErr(t, "Expected %d bytes for a %s (%d)", n, t.Kind, len(b))
}
