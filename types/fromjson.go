package types

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// FromJSON converts v, a JSON value decoded by encoding/json with UseNumber
// (nil, bool, json.Number, string, []any or map[string]any), to the
// serialized value of type t, as Cassandra 4's AbstractType.fromJSONObject
// does for INSERT JSON. Cassandra's JSON decoder (Jackson) gives integers
// as Integer, Long or BigInteger by size and other numbers as Double; the
// rules and messages name those classes:
//
//   - text and ascii take strings; int takes strings and Integers; bigint
//     strings, Integers and Longs; smallint, tinyint, varint and decimal
//     the text of any value (a Double through Java's Double.toString, so
//     decimal precision beyond a double's is lost, as in Cassandra); float
//     and double strings and any number; boolean strings and booleans;
//     timestamp strings and Longs only (a small integer is refused, as
//     Cassandra refuses it);
//   - blob takes "0x..." strings; uuid, timeuuid, date, time, inet and
//     duration take their text;
//   - lists and sets take arrays, maps take objects (each key, a string,
//     converted by the key type's own rules), tuples take arrays of their
//     exact length; a string is decoded as JSON first (a map key of a
//     frozen collection type is such a string);
//   - an empty string is the empty value for the types whose fromString
//     allows it, false for boolean; for duration it is refused (Cassandra
//     would store an empty value its own validation rejects).
//
// Errors are *ValueError values whose Reason is Cassandra's
// MarshalException text, e.g. "Expected an int value, but got a Double:
// 1.5"; a bad duration is a *JSONRequestError, which Cassandra reports
// without naming the column. A nil v gives nil (null).
func FromJSON(t Type, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case Ascii, Text:
		s, ok := v.(string)
		if !ok {
			name := "a UTF-8 string"
			if t.Kind == Ascii {
				name = "an ascii string"
			}
			return nil, expected(t, name, v)
		}
		return fromJSONString(t, ConstString, s)
	case Int:
		switch v := v.(type) {
		case string:
			return fromJSONString(t, ConstInteger, v)
		case json.Number:
			if JSONKindName(v) == "Integer" {
				return fromJSONString(t, ConstInteger, v.String())
			}
		}
		return nil, expected(t, "an int value", v)
	case Bigint:
		switch v := v.(type) {
		case string:
			return fromJSONString(t, ConstInteger, v)
		case json.Number:
			if k := JSONKindName(v); k == "Integer" || k == "Long" {
				return fromJSONString(t, ConstInteger, v.String())
			}
		}
		return nil, expected(t, "a bigint value", v)
	case Smallint, Tinyint:
		switch v.(type) {
		case string, json.Number:
			return fromJSONString(t, ConstInteger, javaString(v))
		}
		if t.Kind == Smallint {
			return nil, expected(t, "a short value", v)
		}
		return nil, expected(t, "a byte value", v)
	case Varint:
		s := javaString(v)
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, valueErr(t, "Value '%s' is not a valid representation of a varint value", s)
		}
		return encodeVarint(n), nil
	case Decimal:
		s := javaString(v)
		if s == "" {
			return []byte{}, nil
		}
		d, ok := ParseDecimal(s)
		if !ok {
			return nil, valueErr(t, "Value '%s' is not a valid representation of a decimal value", s)
		}
		return encodeDecimal(d), nil
	case Float, Double:
		name := "a double value"
		if t.Kind == Float {
			name = "a float value"
		}
		switch v := v.(type) {
		case string:
			return fromJSONString(t, ConstFloat, v)
		case json.Number:
			f, err := strconv.ParseFloat(v.String(), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, expected(t, name, v)
			}
			if t.Kind == Float {
				return putInt(int64(math.Float32bits(float32(f))), 4), nil
			}
			return putInt(int64(math.Float64bits(f)), 8), nil
		}
		return nil, expected(t, name, v)
	case Boolean:
		switch v := v.(type) {
		case bool:
			if v {
				return []byte{1}, nil
			}
			return []byte{0}, nil
		case string:
			if v == "" {
				return []byte{0}, nil // BooleanType.fromString
			}
			return fromJSONString(t, ConstBoolean, v)
		}
		return nil, expected(t, "a boolean value", v)
	case Blob:
		s, ok := v.(string)
		if !ok {
			return nil, valueErr(t, "Value '%s' is not a valid blob representation: java.lang.%s cannot be cast to java.lang.String",
				javaString(v), JSONKindName(v))
		}
		if !strings.HasPrefix(s, "0x") {
			return nil, valueErr(t, "Value '%s' is not a valid blob representation: String representation of blob is missing 0x prefix: %s", s, s)
		}
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return nil, valueErr(t, "Value '%s' is not a valid blob representation: cannot parse '%s' as hex bytes", s, s[2:])
		}
		return b, nil
	case UUID:
		s, ok := v.(string)
		if !ok {
			return nil, expected(t, "a string representation of a uuid", v)
		}
		return fromJSONString(t, ConstUUID, s)
	case TimeUUID:
		s, ok := v.(string)
		if !ok {
			return nil, expected(t, "a string representation of a timeuuid", v)
		}
		if s == "" {
			return []byte{}, nil
		}
		u, err := ParseUUID(s)
		if err != nil {
			return nil, valueErr(t, "Unknown timeuuid representation: %s", s)
		}
		if u.Version() != 1 {
			return nil, valueErr(t, "TimeUUID supports only version 1 UUIDs")
		}
		return u[:], nil
	case Timestamp:
		switch v := v.(type) {
		case string:
			if isInteger(v) {
				ms, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, valueErr(t, "Unable to make long (for date) from: '%s'", v)
				}
				return putInt(ms, 8), nil
			}
			return fromJSONString(t, ConstString, v)
		case json.Number:
			if JSONKindName(v) == "Long" {
				ms, _ := v.Int64()
				return putInt(ms, 8), nil
			}
		}
		return nil, expected(t, "a long or a datestring representation of a timestamp value", v)
	case Date, Time, Inet:
		s, ok := v.(string)
		if !ok {
			name := map[Kind]string{Date: "a string representation of a date value", Time: "a string representation of a time value",
				Inet: "a string representation of an inet value"}[t.Kind]
			return nil, expected(t, name, v)
		}
		return fromJSONString(t, ConstString, s)
	case Duration:
		s, ok := v.(string)
		if !ok {
			return nil, expected(t, "a string representation of a duration", v)
		}
		d, err := ParseDuration(s)
		if err != nil {
			return nil, &JSONRequestError{Reason: fmt.Sprintf("Unable to convert '%s' to a duration", s)}
		}
		return encodeDuration(d), nil
	case List, Set:
		elems, err := jsonArray(t, v)
		if err != nil {
			return nil, err
		}
		what := "list"
		if t.Kind == Set {
			what = "set"
		}
		vals := make([][]byte, len(elems))
		for i, e := range elems {
			if e == nil {
				return nil, valueErr(t, "Invalid null element in %s", what)
			}
			if vals[i], err = FromJSON(t.Params[0], e); err != nil {
				return nil, err
			}
		}
		if t.Kind == Set {
			return EncodeSet(t, vals)
		}
		return EncodeList(vals), nil
	case Map:
		obj, err := jsonObject(t, v)
		if err != nil {
			return nil, err
		}
		keys := make([][]byte, 0, len(obj))
		vals := make([][]byte, 0, len(obj))
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if obj[k] == nil {
				return nil, valueErr(t, "Invalid null value in map")
			}
			kb, err := FromJSON(t.Params[0], k)
			if err != nil {
				return nil, err
			}
			vb, err := FromJSON(t.Params[1], obj[k])
			if err != nil {
				return nil, err
			}
			keys, vals = append(keys, kb), append(vals, vb)
		}
		return EncodeMap(t, keys, vals)
	case Tuple:
		if t.UDT != nil {
			return udtFromJSON(t, v)
		}
		elems, err := jsonArray(t, v)
		if err != nil {
			return nil, err
		}
		switch {
		case len(elems) > len(t.Params):
			return nil, valueErr(t, "Tuple contains extra items (expected %d): %s", len(t.Params), javaString(v))
		case len(elems) < len(t.Params):
			return nil, valueErr(t, "Tuple is missing items (expected %d): %s", len(t.Params), javaString(v))
		}
		fields := make([][]byte, len(elems))
		for i, e := range elems {
			if fields[i], err = FromJSON(t.Params[i], e); err != nil {
				return nil, err
			}
		}
		return EncodeTuple(fields), nil
	}
	return nil, valueErr(t, "%s values cannot be set from JSON", t)
}

// udtFromJSON converts a JSON object to a user type value (UserType
// fromJSONObject): keys name fields, lower-cased unless quoted; a missing
// or null field is null.
func udtFromJSON(t Type, v any) ([]byte, error) {
	obj, err := jsonObject(t, v)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]any, len(obj))
	for k, val := range obj {
		byName[JSONName(k)] = val
	}
	fields := make([][]byte, len(t.Params))
	for i, name := range t.UDT.Fields {
		val, ok := byName[name]
		if !ok {
			continue
		}
		delete(byName, name)
		if fields[i], err = FromJSON(t.Params[i], val); err != nil {
			return nil, err
		}
	}
	if len(byName) > 0 {
		return nil, valueErr(t, "Unknown field '%s' in value of user defined type %s", slices.Min(slices.Collect(maps.Keys(byName))), t.UDT.Name)
	}
	return EncodeTuple(fields), nil
}

// JSONName returns the column or field a JSON object key names, as
// Cassandra's Json.handleCaseSensitivity reads it: "\"Name\"" keeps its
// case without the quotes, any other key is lower-cased.
func JSONName(key string) string {
	if len(key) >= 2 && strings.HasPrefix(key, `"`) && strings.HasSuffix(key, `"`) {
		return key[1 : len(key)-1]
	}
	return strings.ToLower(key)
}

// JSONRequestError is a FromJSON error that Cassandra raises as a request
// error of its own rather than as a marshalling error of the column's
// value (a bad duration): INSERT JSON reports its Reason without naming the
// column.
type JSONRequestError struct {
	Reason string
}

// Error returns the reason.
func (e *JSONRequestError) Error() string { return e.Reason }

// Is reports whether target is ErrInvalidValue.
func (e *JSONRequestError) Is(target error) bool { return target == ErrInvalidValue }

// fromJSONString converts a JSON string as the type's fromString does: the
// empty string is the empty value, other text is read as a constant of
// kind k, with FromConstant's (Cassandra's) messages.
func fromJSONString(t Type, k ConstKind, s string) ([]byte, error) {
	if s == "" && t.Kind != Date && t.Kind != Time && Validate(t, []byte{}) == nil {
		// Types whose serializer refuses the empty value (smallint,
		// tinyint) read "" as text, and fail.
		return []byte{}, nil
	}
	b, err := FromConstant(t, k, s)
	if err != nil {
		var le *LiteralError
		if errors.As(err, &le) && le.Reason != "" {
			return nil, valueErr(t, "%s", le.Reason)
		}
		return nil, valueErr(t, "%s", err.Error())
	}
	return b, nil
}

// expected is Cassandra's "Expected <what>, but got a <class>: <v>".
func expected(t Type, what string, v any) error {
	return valueErr(t, "Expected %s, but got a %s: %s", what, JSONKindName(v), javaString(v))
}

// jsonArray returns v as a JSON array, decoding a string as JSON first.
func jsonArray(t Type, v any) ([]any, error) {
	v, err := decodeJSONString(t, v)
	if err != nil {
		return nil, err
	}
	a, ok := v.([]any)
	if !ok {
		what := map[Kind]string{List: "a list", Set: "a list (representing a set)", Tuple: "a list representation of a tuple"}[t.Kind]
		return nil, valueErr(t, "Expected %s, but got a %s: %s", what, JSONKindName(v), javaString(v))
	}
	return a, nil
}

// jsonObject returns v as a JSON object, decoding a string as JSON first.
func jsonObject(t Type, v any) (map[string]any, error) {
	v, err := decodeJSONString(t, v)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, valueErr(t, "Expected a map, but got a %s: %s", JSONKindName(v), javaString(v))
	}
	return m, nil
}

// decodeJSONString decodes v as JSON text if it is a string (Json.decodeJson).
func decodeJSONString(t Type, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	out, err := DecodeJSON([]byte(s))
	if err != nil {
		return nil, valueErr(t, "Error decoding JSON string: %v", err)
	}
	return out, nil
}

// DecodeJSON decodes text, one JSON value and nothing after it, into the
// form FromJSON takes (numbers as json.Number).
func DecodeJSON(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return out, nil
}

// JSONKindName returns the simple name of the Java class Cassandra's JSON
// decoder gives a value: String, Boolean, Integer, Long, BigInteger, Double,
// ArrayList or LinkedHashMap ("null" for nil).
func JSONKindName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "String"
	case bool:
		return "Boolean"
	case []any:
		return "ArrayList"
	case map[string]any:
		return "LinkedHashMap"
	case json.Number:
		s := v.String()
		if strings.ContainsAny(s, ".eE") {
			return "Double"
		}
		n, ok := new(big.Int).SetString(s, 10)
		switch {
		case !ok || !n.IsInt64():
			return "BigInteger"
		case n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32:
			return "Integer"
		}
		return "Long"
	}
	return fmt.Sprintf("%T", v)
}

// javaString renders v as Java's toString renders what Cassandra's JSON
// decoder gives: numbers as Java prints them (a Double as
// Double.toString), lists as [a, 1] and maps as {k=v}, strings unquoted.
func javaString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		if JSONKindName(v) == "Double" {
			f, _ := strconv.ParseFloat(v.String(), 64)
			return JavaFloat(f, 64)
		}
		n, ok := new(big.Int).SetString(v.String(), 10)
		if !ok {
			return v.String()
		}
		return n.String()
	case []any:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(javaString(e))
		}
		b.WriteByte(']')
		return b.String()
	case map[string]any:
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=" + javaString(v[k]))
		}
		b.WriteByte('}')
		return b.String()
	}
	return fmt.Sprint(v)
}
