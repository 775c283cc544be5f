package types

import "strings"

// MarshalName returns t as Cassandra's AbstractType.toString prints it
// (org.apache.cassandra.db.marshal.ListType(...Int32Type)), which
// CreateViewStatement's key checks and a user function's timeout put in
// their messages, and role_permissions a function resource's argument types.
// A frozen collection is wrapped in FrozenType and its parameters print
// without theirs (CollectionType.toString passes ignoreFreezing on once the
// collection is frozen); a tuple's parameters print without FrozenType
// (TupleType.toString). A user type keeps its CQL name
// (docs/compatibility.md).
func MarshalName(t Type) string { return marshalName(t, false) }

// MarshalNameIgnoringFreezing is AbstractType.toString(true): MarshalName
// without any FrozenType.
func MarshalNameIgnoringFreezing(t Type) string { return marshalName(t, true) }

func marshalName(t Type, ignoreFreezing bool) string {
	const pkg = "org.apache.cassandra.db.marshal."
	if t.UDT != nil {
		return t.String()
	}
	names := map[Kind]string{
		Ascii: "AsciiType", Text: "UTF8Type", Int: "Int32Type", Bigint: "LongType",
		Smallint: "ShortType", Tinyint: "ByteType", Varint: "IntegerType", Float: "FloatType",
		Double: "DoubleType", Decimal: "DecimalType", Boolean: "BooleanType", UUID: "UUIDType",
		TimeUUID: "TimeUUIDType", Timestamp: "TimestampType", Date: "SimpleDateType",
		Time: "TimeType", Duration: "DurationType", Blob: "BytesType", Inet: "InetAddressType",
		Counter: "CounterColumnType",
	}
	var s string
	switch t.Kind {
	case List, Set, Map, Tuple:
		name := map[Kind]string{List: "ListType", Set: "SetType", Map: "MapType", Tuple: "TupleType"}[t.Kind]
		frozen := t.Frozen && t.Kind != Tuple
		inner := ignoreFreezing || frozen || t.Kind == Tuple
		params := make([]string, len(t.Params))
		for i, p := range t.Params {
			params[i] = marshalName(p, inner)
		}
		s = pkg + name + "(" + strings.Join(params, ",") + ")"
		if frozen && !ignoreFreezing {
			s = pkg + "FrozenType(" + s + ")"
		}
	default:
		s = pkg + names[t.Kind]
	}
	return s
}

// CQLNameOfMarshal returns the CQL type text of an AbstractType class name
// that MarshalName wrote (org.apache.cassandra.db.marshal.ListType(...
// Int32Type) is list<int>, FrozenType(...) frozen<...>); a name it does not
// know, such as a user type's CQL name, is returned as it is.
func CQLNameOfMarshal(s string) string {
	t, rest, ok := parseMarshal(s)
	if !ok || rest != "" {
		return s
	}
	return t.String()
}

// parseMarshal parses one class name of MarshalName's output at the start
// of s, returning the type and what follows it.
func parseMarshal(s string) (Type, string, bool) {
	end := strings.IndexAny(s, "(),")
	if end < 0 {
		end = len(s)
	}
	name := strings.TrimPrefix(s[:end], marshalPackage)
	rest := s[end:]
	var params []Type
	if strings.HasPrefix(rest, "(") {
		rest = rest[1:]
		for {
			p, r, ok := parseMarshal(rest)
			if !ok {
				return Type{}, "", false
			}
			params = append(params, p)
			rest = r
			if strings.HasPrefix(rest, ",") {
				rest = rest[1:]
				continue
			}
			if !strings.HasPrefix(rest, ")") {
				return Type{}, "", false
			}
			rest = rest[1:]
			break
		}
	}
	switch name {
	case "FrozenType":
		if len(params) != 1 {
			return Type{}, "", false
		}
		return params[0].Freeze(), rest, true
	case "ListType", "SetType":
		if len(params) != 1 {
			return Type{}, "", false
		}
		k := List
		if name == "SetType" {
			k = Set
		}
		return Type{Kind: k, Params: params}, rest, true
	case "MapType":
		if len(params) != 2 {
			return Type{}, "", false
		}
		return Type{Kind: Map, Params: params}, rest, true
	case "TupleType":
		return Type{Kind: Tuple, Frozen: true, Params: params}, rest, true
	}
	if k, ok := nativeByClass[name]; ok && len(params) == 0 {
		return Type{Kind: k}, rest, true
	}
	return Type{}, "", false
}
