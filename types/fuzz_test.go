package types

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fuzzTypes are the types the fuzz targets pick from by index.
var fuzzTypes = []Type{
	AsciiType, TextType, IntType, BigintType, SmallintType, TinyintType, VarintType, FloatType, DoubleType,
	DecimalType, BooleanType, UUIDType, TimeUUIDType, TimestampType, DateType, TimeType, DurationType,
	BlobType, InetType, CounterType,
	MustParseType("list<int>"),
	MustParseType("frozen<set<text>>"),
	MustParseType("frozen<map<int, frozen<list<decimal>>>>"),
	MustParseType("tuple<int, text, frozen<set<uuid>>>"),
	MustParseType("frozen<list<frozen<tuple<varint, double, timeuuid>>>>"),
	UserTypeOf(&UserType{Keyspace: "ks", Name: "address", Fields: []string{"street", "Zip", "tags"}},
		[]Type{TextType, IntType, SetOf(TextType, false)}, true),
}

func fuzzType(i uint8) Type { return fuzzTypes[int(i)%len(fuzzTypes)] }

// FuzzFromConstant checks that any constant text converts or fails with
// ErrInvalidLiteral, and that what converts is valid and formats back to a
// literal of the same value.
func FuzzFromConstant(f *testing.F) {
	for _, s := range []struct {
		ty   uint8
		kind uint8
		text string
	}{{2, 1, "42"}, {13, 0, "2024-01-15 10:00:00+0100"}, {14, 0, "2024-01-15"}, {15, 0, "10:00:00.123"},
		{11, 4, "550e8400-e29b-41d4-a716-446655440000"}, {17, 5, "0xff"}, {8, 1, "60"}, {8, 2, "NaN"},
		{16, 6, "P0001-02-03T04:05:06"}, {16, 6, "1h30m"}, {9, 2, "1.5E-7"}, {18, 0, "::1"}, {2, 0, "abc"}} {
		f.Add(s.ty, s.kind, s.text)
	}
	f.Fuzz(func(t *testing.T, ti, kind uint8, text string) {
		ty := fuzzType(ti)
		k := ConstKind(kind % 8)
		b, err := FromConstant(ty, k, text)
		if err != nil {
			if !isInvalidLiteral(err) {
				t.Fatalf("FromConstant(%s, %s, %q): error %v does not wrap ErrInvalidLiteral", ty, k, text, err)
			}
			return
		}
		if err := Validate(ty, b); err != nil {
			t.Fatalf("FromConstant(%s, %s, %q) = %x, invalid: %v", ty, k, text, b, err)
		}
		if b == nil || (len(b) == 0 && ty.Kind != Text && ty.Kind != Ascii && ty.Kind != Blob) {
			return
		}
		lit := FormatLiteral(ty, b)
		back, err := ParseLiteral(ty, lit)
		if err != nil || Compare(ty, back, b) != 0 {
			t.Fatalf("FromConstant(%s, %s, %q) = %x: literal %s parses to %x, %v", ty, k, text, b, lit, back, err)
		}
	})
}

func isInvalidLiteral(err error) bool {
	var le *LiteralError
	return errors.Is(err, ErrInvalidLiteral) && errors.As(err, &le)
}

// FuzzParseLiteral checks that ParseLiteral never panics and that accepted
// literals give valid values that print back to an equivalent literal.
func FuzzParseLiteral(f *testing.F) {
	for _, s := range []struct {
		ty  uint8
		lit string
	}{{2, "42"}, {20, "[1, 2, 3]"}, {21, "{'a', 'b'}"}, {22, "{1: [1.5, 2E+3]}"}, {23, "(1, 'x', {550e8400-e29b-41d4-a716-446655440000})"},
		{24, "[(1, NaN, 50554d6e-29bb-11e5-b345-feff819cdc9f)]"}, {1, "$$it's$$"}, {1, "'it''s'"}, {16, "-P2W"}, {2, "null"}, {20, "[1, null]"}} {
		f.Add(s.ty, s.lit)
	}
	f.Fuzz(func(t *testing.T, ti uint8, lit string) {
		ty := fuzzType(ti)
		b, err := ParseLiteral(ty, lit)
		if err != nil {
			if !errors.Is(err, ErrInvalidLiteral) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("ParseLiteral(%s, %q): unexpected error %v", ty, lit, err)
			}
			return
		}
		if err := Validate(ty, b); err != nil {
			t.Fatalf("ParseLiteral(%s, %q) = %x, invalid: %v", ty, lit, b, err)
		}
		_ = Format(ty, b)
		_ = AppendJSON(nil, ty, b)
	})
}

// FuzzDecode feeds arbitrary bytes to Validate and, when they are valid, to
// Decode, Format, FormatLiteral, AppendJSON, Compare and the key encoding,
// none of which may panic; valid values must compare equal to themselves,
// survive Encode(Decode(v)) and the element key round trip.
func FuzzDecode(f *testing.F) {
	for _, s := range []struct {
		ty uint8
		b  []byte
	}{{2, []byte{0, 0, 0, 42}}, {6, []byte{0xff, 0x7f}}, {9, []byte{0, 0, 0, 2, 4, 0xd2}}, {16, []byte{0, 0, 0xfc, 9, 0xd2, 0x92, 0x29, 0xe0, 0}},
		{20, []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1}}, {23, []byte{0, 0, 0, 4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}},
		{22, []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0}}, {1, []byte{0xff}}, {0, nil}} {
		f.Add(s.ty, s.b)
	}
	f.Fuzz(func(t *testing.T, ti uint8, b []byte) {
		ty := fuzzType(ti)
		_ = Format(ty, b)
		_ = AppendJSON(nil, ty, b)
		_ = Compare(ty, b, b)
		if err := Validate(ty, b); err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("Validate(%s, %x): %v does not wrap ErrInvalidValue", ty, b, err)
			}
			return
		}
		v, err := Decode(ty, b)
		if err != nil {
			t.Fatalf("Decode(%s, %x) after Validate: %v", ty, b, err)
		}
		_ = FormatLiteral(ty, b)
		if Compare(ty, b, b) != 0 {
			t.Fatalf("Compare(%s, %x, itself) != 0", ty, b)
		}
		// Encode writes the canonical form: sets and maps sorted and
		// de-duplicated as Cassandra stores them (Normalize), so it is the
		// normalized input that a round trip must give back. Durations may
		// use non-minimal vints, which Cassandra accepts and compares
		// bytewise; their decoded values must still agree.
		back, err := Encode(ty, v)
		if err != nil {
			t.Fatalf("Encode(Decode(%s, %x)): %v", ty, b, err)
		}
		canon, err := Normalize(ty, b)
		if err != nil {
			t.Fatalf("Normalize(%s, %x) after Validate: %v", ty, b, err)
		}
		if Compare(ty, back, canon) != 0 {
			v2, _ := Decode(ty, back)
			if !containsKind(ty, Duration) || !reflect.DeepEqual(v, v2) {
				t.Fatalf("Encode(Decode(%s, %x)) = %x, want the normalized %x", ty, b, back, canon)
			}
		}
		if b == nil || checkKeyType(ty) != nil {
			return
		}
		k := EncodeKey(ty, b)
		kb, err := DecodeKey(ty, k)
		if err != nil || Compare(ty, kb, b) != 0 || !bytes.Equal(EncodeKey(ty, kb), k) {
			t.Fatalf("key round trip of %s %x: key %x decoded %x, %v", ty, b, k, kb, err)
		}
	})
}

// FuzzDecodeClustering feeds arbitrary keys to DecodeClustering for a few
// column layouts: no panics, AppendDecodedClustering agrees, and whatever
// decodes as a key re-encodes without error into a key that decodes to the
// same values.
func FuzzDecodeClustering(f *testing.F) {
	layouts := [][]ClusteringColumn{
		{{TextType, Asc}, {TimestampType, Desc}, {IntType, Asc}},
		{{DecimalType, Desc}, {VarintType, Asc}},
		{{MustParseType("frozen<list<tuple<int, text>>>"), Desc}, {UUIDType, Asc}, {DoubleType, Desc}},
		{},
		{{BigintType, Desc}, {SmallintType, Asc}, {TinyintType, Desc}, {TimeType, Asc}},
	}
	f.Add(uint8(0), []byte{0x40, 0x61, 0x00, 0x01, 0xbf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfc, 0x17, 0x40, 0x7f, 0xff, 0xff, 0xff, 0x80})
	f.Add(uint8(0), []byte{0x40, 0x61, 0x00, 0x01, 0x00})
	f.Add(uint8(1), []byte{0xbc, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf4, 0xff, 0x40, 0x03, 0x01, 0x05, 0x80})
	f.Add(uint8(2), []byte{0xff})
	f.Add(uint8(3), []byte{0x80})
	f.Add(uint8(4), []byte{0xbf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x40, 0x80, 0x02, 0xbf, 0x7c, 0x40, 0x80, 0, 0, 0, 0, 0, 0, 0x07, 0x80})
	f.Add(uint8(4), []byte{0xbf, 0x7f, 0xff})
	f.Fuzz(func(t *testing.T, li uint8, key []byte) {
		cols := layouts[int(li)%len(layouts)]
		vals, kind, err := DecodeClustering(cols, key)
		checkAppendDecoded(t, cols, key, vals, kind, err)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("DecodeClustering(%x): %v does not wrap ErrInvalidKey", key, err)
			}
			return
		}
		var again []byte
		switch kind {
		case FullKey:
			again, err = EncodeClustering(cols, vals)
		case BeforePrefix:
			again, err = EncodeBound(cols, vals, StartInclusive)
		default:
			again, err = EncodeBound(cols, vals, EndInclusive)
		}
		if err != nil {
			t.Fatalf("re-encoding decoded key %x: %v", key, err)
		}
		vals2, kind2, err := DecodeClustering(cols, again)
		if err != nil || kind2 != kind || len(vals2) != len(vals) {
			t.Fatalf("re-encoded %x does not decode back: %v", again, err)
		}
		for i := range vals {
			if Compare(cols[i].Type, vals[i], vals2[i]) != 0 {
				t.Fatalf("column %d: %x then %x", i, vals[i], vals2[i])
			}
		}
	})
}

// FuzzFromJSON checks that any JSON value converts to a valid value of the
// type or fails with ErrInvalidValue, never panicking, and that what
// converts writes back as JSON that reads back to the same value (decimals
// aside, which Cassandra reads through doubles).
func FuzzFromJSON(f *testing.F) {
	for _, s := range []struct {
		ty  uint8
		doc string
	}{
		{2, `123`}, {2, `"12"`}, {4, `1e9`}, {6, `123123123123123123123`}, {9, `1.5`}, {10, `"TRUE"`},
		{13, `1388534400000`}, {13, `"2014-01-01 00:00:00Z"`}, {14, `"+10000-01-01"`}, {16, `"1h"`},
		{17, `"0xcafe"`}, {20, `[1, 2]`}, {21, `"[\"a\"]"`}, {22, `{"1": [1.5]}`}, {23, `[1, "a", ["6bddc89a-5644-11e4-97fc-56847afe9799"]]`},
	} {
		f.Add(s.ty, s.doc)
	}
	f.Fuzz(func(t *testing.T, i uint8, doc string) {
		ty := fuzzType(i)
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		b, err := FromJSON(ty, v)
		if err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("FromJSON(%s, %s): error %v does not wrap ErrInvalidValue", ty, doc, err)
			}
			return
		}
		if b == nil {
			return
		}
		if err := Validate(ty, b); err != nil {
			t.Fatalf("FromJSON(%s, %s) = %x, invalid: %v", ty, doc, b, err)
		}
		if len(b) == 0 || containsKind(ty, Decimal) || ty.Kind == Boolean {
			return // "" is false for boolean and the empty value elsewhere
		}
		js := AppendJSON(nil, ty, b)
		if string(js) == `""` {
			return // a zero duration writes as "", which Cassandra cannot read back either
		}
		dec = json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		var again any
		if err := dec.Decode(&again); err != nil {
			t.Fatalf("AppendJSON(%s, %x) = %s: not JSON: %v", ty, b, js, err)
		}
		back, err := FromJSON(ty, again)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("%s: %s -> %x -> %s -> %x, %v", ty, doc, b, js, back, err)
		}
	})
}

// checkAppendDecoded checks that AppendDecodedClustering, given reused
// buffers holding stale values, decodes key as DecodeClustering did (vals,
// kind, err): the same error, or the same kind and the same values (null
// and empty kept apart), after the values already in the buffers.
func checkAppendDecoded(t interface {
	Helper()
	Fatalf(string, ...any)
}, cols []ClusteringColumn, key []byte, vals [][]byte, kind KeyKind, err error) {
	t.Helper()
	stale := [][]byte{[]byte("stale")}
	buf := append(make([]byte, 0, 3), "xyz"...)
	got, buf2, kind2, err2 := AppendDecodedClustering(stale, buf, cols, key)
	if err != nil || err2 != nil {
		if err == nil || err2 == nil || err.Error() != err2.Error() {
			t.Fatalf("AppendDecodedClustering(%x): error %v, DecodeClustering's %v", key, err2, err)
		}
		return
	}
	if kind2 != kind || len(got) != len(vals)+1 || string(got[0]) != "stale" || string(buf2[:3]) != "xyz" {
		t.Fatalf("AppendDecodedClustering(%x) = %q, %v; DecodeClustering %q, %v", key, got, kind2, vals, kind)
	}
	for i, v := range vals {
		if !bytes.Equal(got[i+1], v) || (got[i+1] == nil) != (v == nil) {
			t.Fatalf("AppendDecodedClustering(%x) column %d: %x, DecodeClustering %x", key, i, got[i+1], v)
		}
	}
}
