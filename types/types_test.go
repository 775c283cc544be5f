package types

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTypeString(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"int", "int"},
		{"VARCHAR", "text"},
		{"list<int>", "list<int>"},
		{"frozen<list<int>>", "frozen<list<int>>"},
		{"map<text, frozen<list<int>>>", "map<text, frozen<list<int>>>"},
		{"frozen<map<text,list<int>>>", "frozen<map<text, frozen<list<int>>>>"},
		{"tuple<int,text>", "frozen<tuple<int, text>>"},
		{"frozen<tuple<int, text>>", "frozen<tuple<int, text>>"},
		{"tuple<int, list<text>>", "frozen<tuple<int, frozen<list<text>>>>"},
		{"set<frozen<tuple<int, timeuuid>>>", "set<frozen<tuple<int, timeuuid>>>"},
		{" map < ascii , blob > ", "map<ascii, blob>"},
	} {
		ty, err := ParseType(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.out, ty.String(), c.in)
		again, err := ParseType(ty.String())
		require.NoError(t, err)
		assert.True(t, again.Equal(ty), "String must parse back: %s", ty)
	}
	for _, in := range []string{"", "integer", "list<int", "list<list<int>>", "frozen<int>", "map<text>", "list<counter>",
		"set<duration>", "map<duration, int>", "int extra", "tuple<>"} {
		_, err := ParseType(in)
		assert.ErrorIs(t, err, ErrUnknownType, in)
	}
}

func TestFromConstant(t *testing.T) {
	hexOf := func(b []byte) string { return hex.EncodeToString(b) }
	for _, c := range []struct {
		ty   string
		kind ConstKind
		text string
		want string
	}{
		{"int", ConstInteger, "42", "0000002a"},
		{"int", ConstInteger, "-1", "ffffffff"},
		{"bigint", ConstInteger, "9223372036854775807", "7fffffffffffffff"},
		{"smallint", ConstInteger, "-2", "fffe"},
		{"tinyint", ConstInteger, "127", "7f"},
		{"varint", ConstInteger, "128", "0080"},
		{"varint", ConstInteger, "-129", "ff7f"},
		{"decimal", ConstFloat, "12.34", "0000000204d2"},
		{"decimal", ConstInteger, "5", "0000000005"},
		{"double", ConstInteger, "60", "404e000000000000"},
		{"float", ConstFloat, "1.5", "3fc00000"},
		{"double", ConstFloat, "NaN", "7ff8000000000000"},
		{"double", ConstFloat, "-Infinity", "fff0000000000000"},
		{"timestamp", ConstString, "2024-01-15 10:00:00", "0000018d0c904d00"},
		{"timestamp", ConstInteger, "1705312800000", "0000018d0c904d00"},
		{"timestamp", ConstString, "1705312800000", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15T10:00:00Z", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15 10:00:00+0000", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15 12:00:00+02:00", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15 11:00+01", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15 10:00:00.000", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15 10:00", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15", "0000018d0a6afc00"},
		{"timestamp", ConstString, "2024-01-15 10:00:00.5", "0000018d0c904ef4"},
		{"date", ConstString, "1970-01-01", "80000000"},
		{"date", ConstString, "2024-01-15", "80004d19"},
		{"date", ConstInteger, "2147483648", "80000000"},
		{"date", ConstString, "1969-12-31", "7fffffff"},
		{"time", ConstString, "10:00:00.123", "000020bdee8b14c0"},
		{"time", ConstString, "00:00:00", "0000000000000000"},
		{"time", ConstInteger, "1", "0000000000000001"},
		{"uuid", ConstUUID, "550e8400-e29b-41d4-a716-446655440000", "550e8400e29b41d4a716446655440000"},
		{"timeuuid", ConstUUID, "50554d6e-29bb-11e5-b345-feff819cdc9f", "50554d6e29bb11e5b345feff819cdc9f"},
		{"blob", ConstHex, "0xff", "ff"},
		{"blob", ConstHex, "0x", ""},
		{"boolean", ConstBoolean, "TRUE", "01"},
		{"inet", ConstString, "127.0.0.1", "7f000001"},
		{"duration", ConstDuration, "1h30m", "0000fc09d29229e000"},
		{"duration", ConstDuration, "P1DT2H", "0002fc0d18c2e28000"},
		{"duration", ConstDuration, "P2W", "001c00"},
		{"duration", ConstDuration, "-1mo", "010000"},
		{"text", ConstString, "héllo", "68c3a96c6c6f"},
		{"timestamp", ConstString, "2024-01-15 11:00:00 GMT+01:00", "0000018d0c904d00"},
		{"timestamp", ConstString, "2024-01-15 10:00:00 UTC", "0000018d0c904d00"},
		{"timestamp", ConstString, "", ""},
		{"inet", ConstString, "", ""},
		{"tinyint", ConstHex, "0x05", "05"},
		{"double", ConstFloat, "-NaN", "7ff8000000000000"},
	} {
		b, err := FromConstant(MustParseType(c.ty), c.kind, c.text)
		require.NoError(t, err, "%s %s", c.ty, c.text)
		assert.Equal(t, c.want, hexOf(b), "%s %s %q", c.ty, c.kind, c.text)
	}
	b, err := FromConstant(IntType, ConstNull, "null")
	require.NoError(t, err)
	assert.Nil(t, b)
}

func TestFromConstantErrors(t *testing.T) {
	for _, c := range []struct {
		ty       string
		kind     ConstKind
		text     string
		mismatch bool
		msg      string
	}{
		{"int", ConstString, "abc", true, "Invalid STRING constant (abc) for type int"},
		{"text", ConstInteger, "42", true, "Invalid INTEGER constant (42) for type text"},
		{"uuid", ConstString, "550e8400-e29b-41d4-a716-446655440000", true, ""},
		{"int", ConstInteger, "99999999999", false, "Unable to make int from '99999999999'"},
		{"tinyint", ConstInteger, "128", false, "Unable to make byte from '128'"},
		{"timestamp", ConstString, "yesterday", false, "Unable to coerce 'yesterday' to a formatted date (long)"},
		{"timestamp", ConstString, "2024-02-30", false, ""},
		{"date", ConstString, "2024-13-01", false, ""},
		{"time", ConstString, "24:00:00", false, ""},
		{"timeuuid", ConstUUID, "550e8400-e29b-41d4-a716-446655440000", false, ""},
		{"blob", ConstHex, "0xabc", false, "cannot parse '0xabc' as hex bytes"},
		{"ascii", ConstString, "é", false, ""},
		{"inet", ConstString, "300.1.1.1", false, "Unable to make inet address from '300.1.1.1'"},
		{"duration", ConstDuration, "1x", false, "Unable to convert '1x' to a duration"},
		{"double", ConstFloat, "inf", false, ""},
		{"list<int>", ConstString, "[1]", true, ""},
		{"int", ConstHex, "0x01", true, ""},
		{"tinyint", ConstHex, "0x0102", false, "Expected 1 byte for a tinyint (2)"},
		{"date", ConstString, "", false, ""},
		{"time", ConstString, "", false, ""},
	} {
		_, err := FromConstant(MustParseType(c.ty), c.kind, c.text)
		require.Error(t, err, "%s %q", c.ty, c.text)
		assert.ErrorIs(t, err, ErrInvalidLiteral)
		var le *LiteralError
		require.True(t, errors.As(err, &le))
		assert.Equal(t, c.mismatch, le.Mismatch, "%s %q", c.ty, c.text)
		if c.msg != "" {
			assert.Equal(t, c.msg, err.Error())
		}
	}
	for k, name := range []string{"STRING", "INTEGER", "FLOAT", "BOOLEAN", "UUID", "HEX", "DURATION", "NULL"} {
		assert.Equal(t, name, ConstKind(k).String())
	}
}

func TestFormatCqlsh(t *testing.T) {
	for _, c := range []struct{ ty, lit, want string }{
		{"text", "'hello'", "hello"},
		{"text", "'a\\b'", `a\\b`},
		{"text", "$$line1\nline2$$", `line1\nline2`},
		{"int", "-42", "-42"},
		{"bigint", "9223372036854775807", "9223372036854775807"},
		{"varint", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"decimal", "12.340", "12.340"},
		{"decimal", "1E+3", "1E+3"},
		{"decimal", "0.0000001", "1E-7"},
		{"float", "25.5", "25.5"},
		{"float", "0.1", "0.1"},
		{"float", "3.14159265", "3.14159"},
		{"float", "123456.7", "1.2346e+05"},
		{"double", "1013.25", "1013.25"},
		{"double", "1e20", "1e+20"},
		{"double", "0.1", "0.1"},
		{"double", "3.141592653589793", "3.14159265359"},
		{"double", "0.00001", "1e-05"},
		{"double", "0", "0"},
		{"double", "NaN", "NaN"},
		{"double", "-Infinity", "-Infinity"},
		{"boolean", "true", "True"},
		{"boolean", "false", "False"},
		{"timestamp", "'2024-01-15 10:30:00.123'", "2024-01-15 10:30:00.123000+0000"},
		{"date", "'2024-01-15'", "2024-01-15"},
		{"time", "'10:30:00.123'", "10:30:00.123000000"},
		{"blob", "0x0102", "0x0102"},
		{"uuid", "550E8400-E29B-41D4-A716-446655440000", "550e8400-e29b-41d4-a716-446655440000"},
		{"inet", "'127.0.0.1'", "127.0.0.1"},
		{"inet", "'2001:db8::1'", "2001:db8::1"},
		{"duration", "1h30m", "1h30m"},
		{"duration", "P1Y2M", "1y2mo"},
		{"duration", "-10us", "-10us"},
		{"list<int>", "[1, 2]", "[1, 2]"},
		{"set<int>", "{2, 1}", "{1, 2}"},
		{"map<text, int>", "{'a': 1}", "{'a': 1}"},
		{"list<text>", "['it''s']", "['it''s']"},
		{"list<timestamp>", "['2024-01-15 10:30:00']", "['2024-01-15 10:30:00.000000+0000']"},
		{"list<date>", "['2024-01-15']", "[2024-01-15]"},
		{"list<inet>", "['::1']", "['::1']"},
		{"tuple<int, text>", "(1, 'a')", "(1, 'a')"},
		{"tuple<int, text>", "(1, null)", "(1, null)"},
		{"map<text, frozen<list<float>>>", "{'x': [1.5, 0.1]}", "{'x': [1.5, 0.1]}"},
	} {
		ty := MustParseType(c.ty)
		b, err := ParseLiteral(ty, c.lit)
		require.NoError(t, err, "%s %s", c.ty, c.lit)
		assert.Equal(t, c.want, Format(ty, b), "%s %s", c.ty, c.lit)
	}
	assert.Equal(t, "null", Format(IntType, nil))
	assert.Equal(t, "", Format(IntType, []byte{}))
	assert.Equal(t, "0x0102", Format(IntType, []byte{1, 2}), "invalid bytes print as a blob")
}

func TestAppendJSON(t *testing.T) {
	for _, c := range []struct{ ty, lit, want string }{
		{"bigint", "9223372036854775807", "9223372036854775807"},
		{"varint", "-123456789012345678901234567890", "-123456789012345678901234567890"},
		{"decimal", "1.50", "1.50"},
		{"text", "'a\"b\n'", `"a\"b\n"`},
		{"timestamp", "0", `"1970-01-01 00:00:00.000Z"`},
		{"blob", "0xcafe", `"0xcafe"`},
		{"boolean", "false", "false"},
		{"float", "0.1", "0.1"},
		{"double", "Infinity", "null"},
		{"float", "NaN", "null"},
		{"double", "123123", "123123.0"},
		{"double", "1e300", "1.0E300"},
		{"double", "1.5e-7", "1.5E-7"},
		{"double", "0.001", "0.001"},
		{"double", "12345678.9", "1.23456789E7"},
		{"float", "-0.0", "-0.0"},
		{"inet", "'::1'", `"0:0:0:0:0:0:0:1"`},
		{"inet", "'2001:db8::ff00:42:8329'", `"2001:db8:0:0:0:ff00:42:8329"`},
		{"inet", "'127.0.0.1'", `"127.0.0.1"`},
		{"map<int, frozen<set<text>>>", "{1: {'b', 'a'}}", `{"1": ["a", "b"]}`},
		{"map<text, boolean>", "{'k': true}", `{"k": true}`},
		{"tuple<uuid, int>", "(null, 3)", `[null, 3]`},
	} {
		ty := MustParseType(c.ty)
		b, err := ParseLiteral(ty, c.lit)
		require.NoError(t, err, "%s %s", c.ty, c.lit)
		assert.Equal(t, c.want, string(AppendJSON(nil, ty, b)), "%s %s", c.ty, c.lit)
	}
	assert.Equal(t, "null", string(AppendJSON(nil, TextType, nil)))
	mapped := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4}
	assert.Equal(t, `"1.2.3.4"`, string(AppendJSON(nil, InetType, mapped)), "an IPv4-mapped address reads as IPv4")
}

func TestParseLiteralErrors(t *testing.T) {
	for _, c := range []struct{ ty, lit string }{
		{"int", "'abc'"}, {"int", "1 2"}, {"list<int>", "[1, null]"}, {"list<int>", "[1, 2"},
		{"map<text, int>", "{'a' 1}"}, {"set<int>", "[1]"}, {"tuple<int>", "(1, 2)"}, {"text", "'unterminated"},
		{"int", ""}, {"int", "@"}, {"uuid", "'550e8400-e29b-41d4-a716-446655440000'"},
	} {
		_, err := ParseLiteral(MustParseType(c.ty), c.lit)
		assert.ErrorIs(t, err, ErrInvalidLiteral, "%s %s", c.ty, c.lit)
	}
	b, err := ParseLiteral(IntType, " null ")
	require.NoError(t, err)
	assert.Nil(t, b)
}

func TestCollections(t *testing.T) {
	st := SetOf(IntType, true)
	b, err := EncodeSet(st, [][]byte{putInt(3, 4), putInt(-1, 4), putInt(3, 4)})
	require.NoError(t, err)
	elems, err := DecodeCollection(st, b)
	require.NoError(t, err)
	assert.Equal(t, [][]byte{putInt(-1, 4), putInt(3, 4)}, elems)

	mt := MapOf(TextType, IntType, false)
	b, err = EncodeMap(mt, [][]byte{[]byte("b"), []byte("a"), []byte("b")}, [][]byte{putInt(1, 4), putInt(2, 4), putInt(3, 4)})
	require.NoError(t, err)
	assert.Equal(t, "{'a': 2, 'b': 3}", Format(mt, b), "later duplicates win")

	_, err = EncodeSet(st, [][]byte{nil})
	assert.ErrorIs(t, err, ErrInvalidValue)

	tt := TupleOf(IntType, TextType, BooleanType)
	fields, err := DecodeTuple(tt, EncodeTuple([][]byte{putInt(1, 4)}))
	require.NoError(t, err)
	assert.Equal(t, [][]byte{putInt(1, 4), nil, nil}, fields, "missing trailing fields are null")

	for _, bad := range []string{"00", "00000001", "0000000100000004000000", "ffffffff", "00000001ffffffff", "7fffffff"} {
		raw, _ := hex.DecodeString(bad)
		assert.ErrorIs(t, Validate(ListOf(IntType, true), raw), ErrInvalidValue, bad)
	}
}

func TestValidate(t *testing.T) {
	ok := []struct {
		ty  string
		hex string
	}{{"int", ""}, {"int", "00000001"}, {"ascii", "7f"}, {"text", "c3a9"}, {"boolean", ""}, {"inet", "01020304"},
		{"timeuuid", "50554d6e29bb11e5b345feff819cdc9f"}, {"decimal", "0000000001"}, {"varint", ""}, {"tuple<int>", ""}}
	for _, c := range ok {
		raw, _ := hex.DecodeString(c.hex)
		assert.NoError(t, Validate(MustParseType(c.ty), raw), "%s %s", c.ty, c.hex)
	}
	bad := []struct {
		ty  string
		hex string
	}{{"int", "000001"}, {"ascii", "80"}, {"text", "ff"}, {"boolean", "0001"}, {"inet", "010203"}, {"smallint", ""},
		{"tinyint", ""}, {"date", ""}, {"time", ""}, {"time", "00"}, {"duration", "0000"}, {"duration", "000102"},
		{"timeuuid", "550e8400e29b41d4a716446655440000"}, {"decimal", "000000"}, {"uuid", "00"}}
	for _, c := range bad {
		raw, _ := hex.DecodeString(c.hex)
		assert.ErrorIs(t, Validate(MustParseType(c.ty), raw), ErrInvalidValue, "%s %s", c.ty, c.hex)
	}
}

func TestCompareExamples(t *testing.T) {
	lit := func(ty Type, s string) []byte {
		b, err := ParseLiteral(ty, s)
		require.NoError(t, err, s)
		return b
	}
	for _, c := range []struct {
		ty   string
		a, b string
		want int
	}{
		{"int", "-1", "1", -1},
		{"varint", "-129", "128", -1},
		{"decimal", "1.0", "1.00", 0},
		{"decimal", "-1.5", "-1.05", -1},
		{"decimal", "1E+3", "999.9", 1},
		{"double", "-0.0", "0.0", -1},
		{"double", "NaN", "Infinity", 1},
		{"float", "NaN", "NaN", 0},
		{"boolean", "false", "true", -1},
		{"text", "'a'", "'ab'", -1},
		{"text", "'z'", "'é'", -1},
		{"blob", "0x00", "0x", 1},
		{"date", "'1969-12-31'", "'1970-01-01'", -1},
		{"timestamp", "-1", "0", -1},
		// timeuuid: time first (2015 < 2016), whatever the low bytes.
		{"timeuuid", "50554d6e-29bb-11e5-ffff-feff819cdc9f", "50554d6e-29bb-11e6-0000-feff819cdc9f", -1},
		// timeuuid low bytes compare as signed bytes: 0x80 (-128) < 0x7f.
		{"timeuuid", "50554d6e-29bb-11e5-8000-000000000000", "50554d6e-29bb-11e5-7f00-000000000000", -1},
		// uuid: version first.
		{"uuid", "ffffffff-ffff-1fff-8000-000000000000", "00000000-0000-4000-8000-000000000000", -1},
		// uuid v4: unsigned bytes.
		{"uuid", "7fffffff-0000-4000-8000-000000000000", "80000000-0000-4000-8000-000000000000", -1},
		// uuid v1 low bytes unsigned (unlike timeuuid).
		{"uuid", "50554d6e-29bb-11e5-8000-000000000000", "50554d6e-29bb-11e5-7f00-000000000000", 1},
		{"frozen<list<int>>", "[1, 2]", "[1, 2, 0]", -1},
		{"frozen<list<int>>", "[2]", "[1, 5]", 1},
		{"frozen<map<int, int>>", "{1: 5}", "{1: 6}", -1},
		{"tuple<int, int>", "(1, null)", "(1, 0)", -1},
		{"tuple<int, int>", "(1)", "(1, null)", 0},
	} {
		ty := MustParseType(c.ty)
		assert.Equal(t, c.want, Compare(ty, lit(ty, c.a), lit(ty, c.b)), "%s %s %s", c.ty, c.a, c.b)
		assert.Equal(t, -c.want, Compare(ty, lit(ty, c.b), lit(ty, c.a)), "%s %s %s", c.ty, c.b, c.a)
	}
	assert.Equal(t, -1, Compare(IntType, []byte{}, putInt(-5, 4)), "empty sorts first")
}

func TestUUIDs(t *testing.T) {
	u, err := ParseUUID("550E8400-E29B-41D4-A716-446655440000")
	require.NoError(t, err)
	assert.Equal(t, "550e8400-e29b-41d4-a716-446655440000", u.String())
	_, err = ParseUUID("550e8400e29b41d4a716446655440000")
	assert.ErrorIs(t, err, ErrInvalidValue)
	// Dashes where digits belong (found by FuzzFromConstant: it panicked)
	// and other characters are refused with UUIDType's text.
	for _, bad := range []string{
		"00000000-0000-0000-0000-0000-0000000",
		"00000000-0000-0000-0000-00000000000-",
		"00000000-0000-0000-0000-00000000000g",
		"0000000--0000-0000-0000-000000000000",
	} {
		_, err = ParseUUID(bad)
		require.ErrorIs(t, err, ErrInvalidValue, bad)
		assert.Equal(t, "Unable to make UUID from '"+bad+"'", strings.TrimPrefix(err.Error(), ErrInvalidValue.Error()+": "), bad)
	}

	r := NewRandomUUID()
	assert.Equal(t, 4, r.Version())
	assert.Equal(t, byte(0x80), r[8]&0xc0)

	ts := time.Date(2024, 1, 15, 10, 30, 0, 123456789, time.UTC)
	// Cassandra UUIDGen.minTimeUUID/maxTimeUUID, recomputed independently in Python.
	assert.Equal(t, "093608b0-b391-11ee-8080-808080808080", MinTimeUUID(ts).String())
	assert.Equal(t, "09362fbf-b391-11ee-7f7f-7f7f7f7f7f7f", MaxTimeUUID(ts).String())
	assert.Equal(t, ts.Truncate(time.Millisecond), TimeUUIDTime(MinTimeUUID(ts)))
	assert.Equal(t, ts.Truncate(time.Millisecond).Add(time.Millisecond-100), TimeUUIDTime(MaxTimeUUID(ts)))

	g := NewTimeUUIDGenerator()
	prev := g.NewTimeUUID(ts)
	assert.Equal(t, 1, prev.Version())
	assert.Equal(t, ts.Truncate(100), TimeUUIDTime(prev))
	for i := 0; i < 100; i++ {
		next := g.NewTimeUUID(ts)
		require.Equal(t, 1, Compare(TimeUUIDType, next[:], prev[:]), "timeuuids for equal times must increase")
		assert.Equal(t, next[8:], prev[8:], "clock sequence and node are fixed")
		prev = next
	}
	assert.Equal(t, -1, Compare(TimeUUIDType, func() []byte { u := MinTimeUUID(ts); return u[:] }(), prev[:]))
}

func TestGoConversion(t *testing.T) {
	ts := time.Date(2024, 1, 15, 10, 30, 0, 123000000, time.UTC)
	for _, c := range []struct {
		ty string
		in any
		// out is the expected Decode result; nil means "same as in".
		out any
	}{
		{"int", int32(-5), nil},
		{"int", 7, int32(7)},
		{"bigint", int64(1) << 40, nil},
		{"smallint", int16(-300), nil},
		{"tinyint", uint8(100), int8(100)},
		{"varint", big.NewInt(-129), nil},
		{"float", float32(1.5), nil},
		{"double", 2.25, nil},
		{"decimal", DecimalValue{Unscaled: big.NewInt(1234), Scale: 2}, nil},
		{"decimal", "1.50", DecimalValue{Unscaled: big.NewInt(150), Scale: 2}},
		{"boolean", true, nil},
		{"uuid", "550e8400-e29b-41d4-a716-446655440000", UUIDValue{0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4, 0xa7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00}},
		{"timestamp", ts, nil},
		{"date", DateValue(19737), nil},
		{"date", ts, DateValue(19737)},
		{"time", 10*time.Hour + 123, nil},
		{"duration", DurationValue{Months: 1, Days: 2, Nanos: 3}, nil},
		{"blob", []byte{1, 2}, nil},
		{"inet", net.IPv4(10, 0, 0, 1).To4(), nil},
		{"inet", "::1", net.ParseIP("::1")},
		{"text", "hi", nil},
		{"list<int>", []int32{3, 1}, []any{int32(3), int32(1)}},
		{"set<text>", []string{"b", "a", "b"}, []any{"a", "b"}},
		{"map<text, int>", map[string]int{"b": 2, "a": 1}, []MapEntry{{"a", int32(1)}, {"b", int32(2)}}},
		{"tuple<int, text>", []any{1, nil}, []any{int32(1), nil}},
		{"int", EmptyValue{}, nil},
		{"int", nil, nil},
	} {
		ty := MustParseType(c.ty)
		b, err := Encode(ty, c.in)
		require.NoError(t, err, "%s %v", c.ty, c.in)
		got, err := Decode(ty, b)
		require.NoError(t, err)
		want := c.out
		if want == nil {
			want = c.in
		}
		assert.Equal(t, want, got, "%s %v", c.ty, c.in)
	}
	for _, c := range []struct {
		ty string
		in any
	}{{"int", int64(1) << 40}, {"tinyint", 200}, {"int", "x"}, {"boolean", 1}, {"timeuuid", NewRandomUUID()}, {"list<int>", []any{nil}}, {"smallint", EmptyValue{}}} {
		_, err := Encode(MustParseType(c.ty), c.in)
		assert.Error(t, err, "%s %v", c.ty, c.in)
	}
}

func TestClusteringWorkedExample(t *testing.T) {
	cols := []ClusteringColumn{{TextType, Asc}, {TimestampType, Desc}, {IntType, Asc}}
	key, err := EncodeClustering(cols, [][]byte{[]byte("a"), putInt(1000, 8), putInt(-1, 4)})
	require.NoError(t, err)
	assert.Equal(t, "40610001"+"bf7ffffffffffffc17"+"407fffffff"+"80", hex.EncodeToString(key))
	start, err := EncodeBound(cols, [][]byte{[]byte("a")}, StartInclusive)
	require.NoError(t, err)
	end, err := EncodeBound(cols, [][]byte{[]byte("a"), putInt(1000, 8)}, EndExclusive)
	require.NoError(t, err)
	assert.Equal(t, "4061000100", hex.EncodeToString(start))
	assert.Equal(t, "40610001bf7ffffffffffffc1700", hex.EncodeToString(end))
	later, _ := EncodeClustering(cols, [][]byte{[]byte("a"), putInt(2000, 8), putInt(5, 4)})
	assert.True(t, bytes.Compare(start, later) < 0 && bytes.Compare(later, end) < 0, "ts=2000 is inside ts > 1000")
	assert.True(t, bytes.Compare(key, end) > 0, "ts=1000 is outside ts > 1000")

	vals, kind, err := DecodeClustering(cols, key)
	require.NoError(t, err)
	assert.Equal(t, FullKey, kind)
	assert.Equal(t, [][]byte{[]byte("a"), putInt(1000, 8), putInt(-1, 4)}, vals)
	vals, kind, err = DecodeClustering(cols, end)
	require.NoError(t, err)
	assert.Equal(t, BeforePrefix, kind)
	assert.Len(t, vals, 2)

	_, err = EncodeClustering(cols, [][]byte{nil, putInt(1, 8), putInt(1, 4)})
	assert.ErrorIs(t, err, ErrInvalidKey)
	_, err = EncodeClustering([]ClusteringColumn{{CounterType, Asc}}, [][]byte{putInt(1, 8)})
	assert.ErrorIs(t, err, ErrInvalidKey)
	_, err = EncodeClustering(cols[:1], [][]byte{{0xff}})
	assert.ErrorIs(t, err, ErrInvalidValue)
}

// TestFormatFromConstantRoundTrip checks that what cqlsh prints for
// representative values is accepted back as a constant of the matching
// kind, as a user copying a cell from cqlsh into an INSERT would do.
func TestFormatFromConstantRoundTrip(t *testing.T) {
	for _, c := range []struct {
		ty   string
		kind ConstKind
		text string
	}{
		{"int", ConstInteger, "-42"},
		{"bigint", ConstInteger, "1705312800000"},
		{"varint", ConstInteger, "-123456789012345678901234567890"},
		{"decimal", ConstFloat, "12.340"},
		{"double", ConstFloat, "1013.25"},
		{"float", ConstFloat, "25.5"},
		{"double", ConstFloat, "1e+20"},
		{"boolean", ConstBoolean, "true"},
		{"text", ConstString, "héllo wörld"},
		{"timestamp", ConstString, "2024-01-15 10:30:00.123+0000"},
		{"timestamp", ConstString, "1969-07-20 20:17:40"},
		{"date", ConstString, "2024-01-15"},
		{"date", ConstString, "0001-01-01"},
		{"time", ConstString, "23:59:59.999999999"},
		{"uuid", ConstUUID, "550e8400-e29b-41d4-a716-446655440000"},
		{"timeuuid", ConstUUID, "50554d6e-29bb-11e5-b345-feff819cdc9f"},
		{"blob", ConstHex, "0xcafe"},
		{"inet", ConstString, "192.168.0.1"},
		{"duration", ConstDuration, "1y2mo3d4h5m6s7ms8us9ns"},
	} {
		ty := MustParseType(c.ty)
		b, err := FromConstant(ty, c.kind, c.text)
		require.NoError(t, err, c.text)
		printed := Format(ty, b)
		back, err := FromConstant(ty, c.kind, printed)
		require.NoError(t, err, "%s: cqlsh text %q", c.ty, printed)
		assert.Equal(t, b, back, "%s: %q printed as %q", c.ty, c.text, printed)
	}
}

func TestEncodeKeyInvalid(t *testing.T) {
	assert.Nil(t, EncodeKey(IntType, nil))
	assert.Nil(t, EncodeKey(FloatType, []byte{1, 2}))
	assert.Nil(t, EncodeKey(ListOf(IntType, true), []byte{0, 0, 0, 9}))
	assert.Equal(t, []byte{headerEmpty}, EncodeKey(IntType, []byte{}))
	_, err := DecodeKey(IntType, []byte{headerValue, 0x80})
	assert.ErrorIs(t, err, ErrInvalidKey)
	_, err = DecodeKey(IntType, append(EncodeKey(IntType, putInt(1, 4)), 0))
	assert.ErrorIs(t, err, ErrInvalidKey, "trailing bytes")
}
