package types

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"slices"
	"strings"
	"time"
)

// EmptyValue is what Decode returns for the empty (zero-length, non-null)
// value of a type whose Go form has no natural empty state (numbers, uuid,
// timestamp, collections, ...). Encode turns it back into the empty value.
type EmptyValue struct{}

// MapEntry is one entry of a decoded map. Decode returns maps as []MapEntry
// in the map's (key comparator) order, because many key types ([]byte,
// *big.Int, DecimalValue) are not comparable Go map keys.
type MapEntry struct {
	Key, Value any
}

// Decode converts a serialized value to a Go value:
//
//	ascii, text        string
//	int, bigint, counter, smallint, tinyint  int32, int64, int64, int16, int8
//	varint             *big.Int
//	float, double      float32, float64
//	decimal            DecimalValue
//	boolean            bool
//	uuid, timeuuid     UUIDValue
//	timestamp          time.Time (UTC, millisecond precision)
//	date               DateValue
//	time               time.Duration since midnight
//	duration           DurationValue
//	blob               []byte (a copy)
//	inet               net.IP (4 or 16 bytes)
//	list, set          []any
//	map                []MapEntry
//	tuple              []any (nil for null fields)
//	user type          map[string]any by field name (nil for null fields)
//
// nil (null) gives nil; the empty value gives "" for text and ascii,
// []byte{} for blob and EmptyValue{} otherwise. Invalid bytes give an error
// wrapping ErrInvalidValue.
func Decode(t Type, b []byte) (any, error) {
	if b == nil {
		return nil, nil
	}
	if err := Validate(t, b); err != nil {
		return nil, err
	}
	return decodeValid(t, b), nil
}

func decodeValid(t Type, b []byte) any {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		switch t.Kind {
		case Ascii, Text:
			return ""
		case Blob:
			return []byte{}
		}
		return EmptyValue{}
	}
	switch t.Kind {
	case Ascii, Text:
		return string(b)
	case Int:
		return int32(binary.BigEndian.Uint32(b))
	case Bigint, Counter:
		return int64(binary.BigEndian.Uint64(b))
	case Smallint:
		return int16(binary.BigEndian.Uint16(b))
	case Tinyint:
		return int8(b[0])
	case Varint:
		return decodeVarint(b)
	case Float:
		return math.Float32frombits(binary.BigEndian.Uint32(b))
	case Double:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	case Decimal:
		return decodeDecimal(b)
	case Boolean:
		return b[0] != 0
	case UUID, TimeUUID:
		return UUIDValue(b)
	case Timestamp:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC()
	case Date:
		return decodeDate(b)
	case Time:
		return time.Duration(binary.BigEndian.Uint64(b))
	case Duration:
		d, _ := decodeDuration(b)
		return d
	case Blob:
		return append([]byte{}, b...)
	case Inet:
		return net.IP(append([]byte{}, b...))
	case List, Set:
		elems, _ := DecodeCollection(t, b)
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = decodeValid(t.Params[0], e)
		}
		return out
	case Map:
		elems, _ := DecodeCollection(t, b)
		out := make([]MapEntry, len(elems)/2)
		for i := range out {
			out[i] = MapEntry{Key: decodeValid(t.Params[0], elems[2*i]), Value: decodeValid(t.Params[1], elems[2*i+1])}
		}
		return out
	case Tuple:
		fields, _ := DecodeTuple(t, b)
		if t.UDT != nil {
			m := make(map[string]any, len(fields))
			for i, f := range fields {
				m[t.UDT.Fields[i]] = decodeValid(t.Params[i], f)
			}
			return m
		}
		out := make([]any, len(fields))
		for i, f := range fields {
			out[i] = decodeValid(t.Params[i], f)
		}
		return out
	}
	return append([]byte{}, b...)
}

// Encode converts a Go value to the serialized value of t. It accepts what
// Decode returns, plus: any Go integer type for the integer kinds, varint
// and decimal (range-checked); float32/float64 for float, double and decimal;
// string for every scalar type (parsed as the matching CQL constant would
// be: '2024-01-15' for a date, a UUID for uuid, ...); *big.Int or
// big.Int for varint; time.Time for timestamp and date; [16]byte for uuid;
// net.IP for inet; []byte for blob; slices and arrays for lists, sets and
// tuples; maps (via reflect) or []MapEntry for maps; structs and
// map[string]any for user types (struct fields by `cql` tag, else
// lower-cased name). nil, and a nil slice or map, gives nil (null) and
// EmptyValue{} the empty value. Sets and maps are sorted and deduplicated
// as EncodeSet and EncodeMap do. Errors wrap ErrUnsupportedGoValue or
// ErrInvalidLiteral.
//
// A value whose own type Encode does not know is tried again as what it
// points to, or as its underlying type when that type is another package's
// (see unnamed).
func Encode(t Type, v any) ([]byte, error) {
	b, err := encode(t, v)
	if err != nil && errors.Is(err, ErrUnsupportedGoValue) {
		if u, ok := unnamed(v); ok {
			return Encode(t, u)
		}
	}
	return b, err
}

func encode(t Type, v any) ([]byte, error) {
	switch v.(type) {
	case nil:
		return nil, nil
	case EmptyValue:
		if !emptyAllowed(t) {
			return nil, goErr(t, v)
		}
		return []byte{}, nil
	}
	if n := EncodedLen(t, v); n >= 0 {
		b := make([]byte, n)
		EncodeInto(b, t, v)
		return b, nil
	}
	if rv := reflect.ValueOf(v); (rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8) && rv.IsNil() {
		return nil, nil // a nil slice or map is null, as gocql binds it
	}
	if x, ok := v.(string); ok {
		return encodeString(t, x)
	}
	switch t.Kind {
	case Int, Bigint, Counter, Smallint, Tinyint:
		n, ok := toInt64(v)
		if !ok {
			return nil, goErr(t, v)
		}
		// EncodedLen took every value in range.
		return nil, fmt.Errorf("%w: %d out of range for %s", ErrUnsupportedGoValue, n, t)
	case Varint:
		switch x := v.(type) {
		case *big.Int:
			return encodeVarint(x), nil
		case big.Int:
			return encodeVarint(&x), nil
		}
		if n, ok := toInt64(v); ok {
			return encodeVarint(big.NewInt(n)), nil
		}
		if u, ok := v.(uint64); ok {
			return encodeVarint(new(big.Int).SetUint64(u)), nil
		}
	case Decimal:
		switch x := v.(type) {
		case DecimalValue:
			return encodeDecimal(x), nil
		case float64, float32:
			f := reflect.ValueOf(x).Float()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, goErr(t, v)
			}
			d, _ := ParseDecimal(fmt.Sprint(x))
			return encodeDecimal(d), nil
		}
		if n, ok := toInt64(v); ok {
			return encodeDecimal(DecimalValue{Unscaled: big.NewInt(n)}), nil
		}
	case Float, Double:
		var f float64
		switch x := v.(type) {
		case float32:
			f = float64(x)
		case float64:
			f = x
		default:
			n, ok := toInt64(v)
			if !ok {
				return nil, goErr(t, v)
			}
			f = float64(n)
		}
		if t.Kind == Float {
			return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)), nil
	case UUID, TimeUUID:
		var u UUIDValue
		switch x := v.(type) {
		case UUIDValue:
			u = x
		case [16]byte:
			u = x
		default:
			return nil, goErr(t, v)
		}
		if err := Validate(t, u[:]); err != nil {
			return nil, err
		}
		return u[:], nil
	case Timestamp:
		if n, ok := toInt64(v); ok {
			return putInt(n, 8), nil
		}
	case Date:
		switch x := v.(type) {
		case DateValue:
			return encodeDate(x), nil
		case time.Time:
			return encodeDate(DateOf(x)), nil
		}
	case Time:
		if x, ok := v.(time.Duration); ok {
			b := putInt(int64(x), 8)
			return b, Validate(t, b)
		}
	case Duration:
		if x, ok := v.(DurationValue); ok {
			b := encodeDuration(x)
			return b, Validate(t, b)
		}
	case Inet:
		if x, ok := v.(net.IP); ok {
			if ip4 := x.To4(); ip4 != nil && len(x) == 4 {
				return append([]byte{}, ip4...), nil
			}
			if len(x) == 16 || len(x) == 4 {
				return append([]byte{}, x...), nil
			}
		}
	case List, Set, Tuple:
		if t.UDT != nil {
			if rv := reflect.Indirect(reflect.ValueOf(v)); rv.Kind() == reflect.Struct {
				v = StructFields(rv)
			}
		}
		if m, ok := v.(map[string]any); ok && t.UDT != nil {
			fields := make([][]byte, len(t.Params))
			for name, fv := range m {
				i := slices.Index(t.UDT.Fields, name)
				if i < 0 {
					return nil, fmt.Errorf("%w: %s has no field %q", ErrUnsupportedGoValue, t, name)
				}
				var err error
				if fields[i], err = Encode(t.Params[i], fv); err != nil {
					return nil, err
				}
			}
			return EncodeTuple(fields), nil
		}
		rv := reflect.ValueOf(v)
		if (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) || rv.Type().Elem().Kind() == reflect.Uint8 {
			return nil, goErr(t, v)
		}
		elems := make([][]byte, rv.Len())
		for i := range elems {
			et := Type{}
			if t.Kind == Tuple {
				if i >= len(t.Params) {
					return nil, fmt.Errorf("%w: %d values for %s", ErrUnsupportedGoValue, rv.Len(), t)
				}
				et = t.Params[i]
			} else {
				et = t.Params[0]
			}
			e, err := Encode(et, rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			if e == nil && t.Kind != Tuple {
				return nil, fmt.Errorf("%w: null is not supported inside collections", ErrUnsupportedGoValue)
			}
			elems[i] = e
		}
		switch t.Kind {
		case Set:
			return EncodeSet(t, elems)
		case Tuple:
			return EncodeTuple(elems), nil
		}
		return EncodeList(elems), nil
	case Map:
		var keys, vals [][]byte
		add := func(k, val any) error {
			kb, err := Encode(t.Params[0], k)
			if err != nil {
				return err
			}
			vb, err := Encode(t.Params[1], val)
			if err != nil {
				return err
			}
			keys, vals = append(keys, kb), append(vals, vb)
			return nil
		}
		if entries, ok := v.([]MapEntry); ok {
			for _, e := range entries {
				if err := add(e.Key, e.Value); err != nil {
					return nil, err
				}
			}
			return EncodeMap(t, keys, vals)
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Map {
			return nil, goErr(t, v)
		}
		it := rv.MapRange()
		for it.Next() {
			if err := add(it.Key().Interface(), it.Value().Interface()); err != nil {
				return nil, err
			}
		}
		return EncodeMap(t, keys, vals)
	}
	return nil, goErr(t, v)
}

// thisPackage is the import path of this package, whose named types
// (UUIDValue, DateValue, ...) have cases of their own in Encode.
var thisPackage = reflect.TypeOf(UUIDValue{}).PkgPath()

// basicTypes are the predeclared types a named type of each kind converts
// to.
var basicTypes = map[reflect.Kind]reflect.Type{
	reflect.String: reflect.TypeOf(""), reflect.Bool: reflect.TypeOf(false),
	reflect.Int: reflect.TypeOf(0), reflect.Int8: reflect.TypeOf(int8(0)), reflect.Int16: reflect.TypeOf(int16(0)),
	reflect.Int32: reflect.TypeOf(int32(0)), reflect.Int64: reflect.TypeOf(int64(0)),
	reflect.Uint: reflect.TypeOf(uint(0)), reflect.Uint8: reflect.TypeOf(uint8(0)), reflect.Uint16: reflect.TypeOf(uint16(0)),
	reflect.Uint32: reflect.TypeOf(uint32(0)), reflect.Uint64: reflect.TypeOf(uint64(0)),
	reflect.Float32: reflect.TypeOf(float32(0)), reflect.Float64: reflect.TypeOf(float64(0)),
}

// unnamed returns what Encode tries when v's own type has no case: the
// value a pointer points to (nil for a nil pointer), or a value of another
// package's named type converted to its underlying type, as gocql binds
// them (gocql.UUID and other [16]byte types as a uuid, time.Duration as its
// nanoseconds, a named string or integer as itself). ok is false when there
// is nothing to convert.
func unnamed(v any) (any, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, true
		}
		return rv.Elem().Interface(), true
	}
	rt := rv.Type()
	if rt.PkgPath() == "" || rt.PkgPath() == thisPackage {
		return nil, false
	}
	if bt, ok := basicTypes[rt.Kind()]; ok {
		return rv.Convert(bt).Interface(), true
	}
	switch {
	case rt.Kind() == reflect.Array && rt.Elem().Kind() == reflect.Uint8 && rt.Len() == 16:
		var u [16]byte
		reflect.Copy(reflect.ValueOf(&u).Elem(), rv)
		return u, true
	case rt.Kind() == reflect.Slice && rt.Elem().Kind() == reflect.Uint8:
		return rv.Bytes(), true
	}
	return nil, false
}

func goErr(t Type, v any) error {
	return fmt.Errorf("%w: cannot encode %T as %s", ErrUnsupportedGoValue, v, t)
}

// encodeString converts a Go string by the CQL constant rules of the type.
func encodeString(t Type, s string) ([]byte, error) {
	switch t.Kind {
	case Ascii, Text, Inet, Date, Time, Timestamp:
		return FromConstant(t, ConstString, s)
	case Int, Bigint, Counter, Smallint, Tinyint, Varint:
		return FromConstant(t, ConstInteger, s)
	case Float, Double, Decimal:
		return FromConstant(t, ConstFloat, s)
	case Boolean:
		return FromConstant(t, ConstBoolean, s)
	case UUID, TimeUUID:
		return FromConstant(t, ConstUUID, s)
	case Blob:
		return FromConstant(t, ConstHex, s)
	case Duration:
		return FromConstant(t, ConstDuration, s)
	}
	return ParseLiteral(t, s)
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return int64(x), x <= math.MaxInt64
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

// StructFields returns the exported fields of struct value v by the name
// they bind to in a user type, as gocql names them: the field's `cql` tag,
// else its name in lower case. A field tagged `cql:"-"` is left out.
func StructFields(v reflect.Value) map[string]any {
	m := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Tag.Get("cql")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		m[name] = v.Field(i).Interface()
	}
	return m
}
