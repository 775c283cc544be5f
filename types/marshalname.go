package types

import "strings"

// MarshalName returns t as Cassandra's AbstractType.toString prints it
// (org.apache.cassandra.db.marshal.ListType(...Int32Type)), which
// CreateViewStatement's key checks and a user function's timeout put in
// their messages. A user type
// keeps its CQL name (docs/compatibility.md).
func MarshalName(t Type) string {
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
		params := make([]string, len(t.Params))
		for i, p := range t.Params {
			params[i] = MarshalName(p)
		}
		s = pkg + name + "(" + strings.Join(params, ",") + ")"
		if t.Frozen && t.Kind != Tuple {
			s = pkg + "FrozenType(" + s + ")"
		}
	default:
		s = pkg + names[t.Kind]
	}
	return s
}
