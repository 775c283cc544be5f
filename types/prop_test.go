package types

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// refCompare is an independent reference for Compare, written from
// Cassandra's comparators without the key encoding.
func refCompare(ty Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return boolCmp(len(a) != 0, len(b) != 0)
	}
	switch ty.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
		return big.NewInt(signedInt(a)).Cmp(big.NewInt(signedInt(b)))
	case Varint:
		return decodeVarint(a).Cmp(decodeVarint(b))
	case Decimal:
		da, db := decodeDecimal(a), decodeDecimal(b)
		if abs64(int64(da.Scale)) > 2000 || abs64(int64(db.Scale)) > 2000 {
			return Compare(ty, a, b) // too large for exact rationals
		}
		return da.Rat().Cmp(db.Rat())
	case Float, Double:
		var x, y float64
		if ty.Kind == Float {
			x, y = float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
		} else {
			x, y = math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b))
		}
		switch {
		case x != x && y != y:
			return 0
		case x != x:
			return 1
		case y != y:
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		case x == 0 && y == 0:
			return boolCmp(!math.Signbit(x), !math.Signbit(y))
		}
		return 0
	case Boolean:
		return boolCmp(a[0] != 0, b[0] != 0)
	case TimeUUID, UUID:
		ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
		la, lb := binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:])
		reorder := func(m uint64) int64 { return int64(m<<48 | (m<<16)&0xFFFF00000000 | m>>32) }
		if ty.Kind == TimeUUID {
			if c := cmp.Compare(reorder(ma), reorder(mb)); c != 0 {
				return c
			}
			return cmp.Compare(int64(la^0x0080808080808080), int64(lb^0x0080808080808080))
		}
		va, vb := int(ma>>12&0xf), int(mb>>12&0xf)
		if va != vb {
			return cmp.Compare(int64(va), int64(vb))
		}
		if va == 1 {
			if c := cmp.Compare(reorder(ma), reorder(mb)); c != 0 {
				return c
			}
		} else if c := cmp.Compare(ma, mb); c != 0 {
			return c
		}
		return cmp.Compare(la, lb)
	case List, Set, Map:
		ea, _ := DecodeCollection(ty, a)
		eb, _ := DecodeCollection(ty, b)
		for i := 0; i < len(ea) && i < len(eb); i++ {
			et := ty.Params[0]
			if ty.Kind == Map {
				et = ty.Params[i%2]
			}
			if c := refCompare(et, ea[i], eb[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(int64(len(ea)), int64(len(eb)))
	case Tuple:
		fa, _ := DecodeTuple(ty, a)
		fb, _ := DecodeTuple(ty, b)
		for i := range fa {
			if fa[i] == nil || fb[i] == nil {
				if c := boolCmp(fa[i] != nil, fb[i] != nil); c != 0 {
					return c
				}
				continue
			}
			if c := refCompare(ty.Params[i], fa[i], fb[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	return bytes.Compare(a, b)
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// sameValue reports whether a round trip gave back v: the exact bytes, or
// for types containing decimals (which the key encoding normalises) an equal
// value by the comparator.
func sameValue(ty Type, v, got []byte) bool {
	if containsKind(ty, Decimal) {
		return Compare(ty, v, got) == 0
	}
	return bytes.Equal(v, got)
}

func TestPropKeyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genOpts{keyOnly: true, maxDepth: 2}
		ty := drawType(t, o, 0, "type")
		small := rapid.Bool().Draw(t, "small")
		a := drawValue(t, ty, o, small, "a")
		b := drawValue(t, ty, o, small, "b")
		want := refCompare(ty, a, b)
		if got := sign(Compare(ty, a, b)); got != want {
			t.Fatalf("Compare(%s, %x, %x) = %d, reference says %d", ty, a, b, got, want)
		}
		ka, kb := EncodeKey(ty, a), EncodeKey(ty, b)
		if got := sign(bytes.Compare(ka, kb)); got != want {
			t.Fatalf("%s: keys %x %x of %s, %s order %d, comparator %d", ty, ka, kb, Format(ty, a), Format(ty, b), got, want)
		}
		back, err := DecodeKey(ty, ka)
		if err != nil {
			t.Fatalf("DecodeKey(%s, %x): %v", ty, ka, err)
		}
		if !sameValue(ty, a, back) {
			t.Fatalf("DecodeKey(%s) = %x, want %x", ty, back, a)
		}
		// The normalised value encodes to the same key.
		if again := EncodeKey(ty, back); !bytes.Equal(again, ka) {
			t.Fatalf("re-encoding %x gave %x, want %x", back, again, ka)
		}
	})
}

func compareRows(cols []ClusteringColumn, a, b [][]byte) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		c := refCompare(cols[i].Type, a[i], b[i])
		if cols[i].Order == Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	if len(a) < len(b) {
		return -1
	}
	return 0
}

func TestPropClustering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genOpts{keyOnly: true, maxDepth: 1}
		n := rapid.IntRange(0, 3).Draw(t, "ncols")
		cols := make([]ClusteringColumn, n)
		for i := range cols {
			cols[i] = ClusteringColumn{Type: drawType(t, o, 0, "type"), Order: Order(rapid.IntRange(0, 1).Draw(t, "order"))}
		}
		small := rapid.Bool().Draw(t, "small")
		draw := func(label string) [][]byte {
			vals := make([][]byte, n)
			for i := range vals {
				vals[i] = drawValue(t, cols[i].Type, o, small, fmt.Sprintf("%s%d", label, i))
			}
			return vals
		}
		a, b := draw("a"), draw("b")
		ka, err := EncodeClustering(cols, a)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := EncodeClustering(cols, b)
		if err != nil {
			t.Fatal(err)
		}
		want := compareRows(cols, a, b)
		if got := sign(bytes.Compare(ka, kb)); got != want {
			t.Fatalf("cols %v: keys %x vs %x order %d, comparators say %d", cols, ka, kb, got, want)
		}
		vals, kind, err := DecodeClustering(cols, ka)
		if err != nil || kind != FullKey || len(vals) != n {
			t.Fatalf("DecodeClustering(%x) = %v, %v, %v", ka, vals, kind, err)
		}
		checkAppendDecoded(t, cols, ka, vals, kind, err)
		for i := range vals {
			if !sameValue(cols[i].Type, a[i], vals[i]) {
				t.Fatalf("column %d decoded %x, want %x", i, vals[i], a[i])
			}
		}

		// Bounds on a prefix of a, checked against b's key and a's key.
		p := rapid.IntRange(0, n).Draw(t, "prefix")
		for kind := StartInclusive; kind <= EndExclusive; kind++ {
			bound, err := EncodeBound(cols, a[:p], kind)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(bound, ka) || bytes.Equal(bound, kb) {
				t.Fatalf("bound %x equals a key", bound)
			}
			for _, k := range []struct {
				key  []byte
				vals [][]byte
			}{{ka, a}, {kb, b}} {
				c := compareRows(cols, k.vals[:p], a[:p]) // the key's prefix vs P
				var inside bool
				switch kind {
				case StartInclusive:
					inside = bytes.Compare(k.key, bound) > 0
					if inside != (c >= 0) {
						t.Fatalf("start-inclusive %x vs key %x: %v, prefix cmp %d", bound, k.key, inside, c)
					}
				case StartExclusive:
					inside = bytes.Compare(k.key, bound) > 0
					if inside != (c > 0) {
						t.Fatalf("start-exclusive %x vs key %x: %v, prefix cmp %d", bound, k.key, inside, c)
					}
				case EndInclusive:
					inside = bytes.Compare(k.key, bound) < 0
					if inside != (c <= 0) {
						t.Fatalf("end-inclusive %x vs key %x: %v, prefix cmp %d", bound, k.key, inside, c)
					}
				case EndExclusive:
					inside = bytes.Compare(k.key, bound) < 0
					if inside != (c < 0) {
						t.Fatalf("end-exclusive %x vs key %x: %v, prefix cmp %d", bound, k.key, inside, c)
					}
				}
			}
			vals, got, err := DecodeClustering(cols, bound)
			wantKind := BeforePrefix
			if kind == StartExclusive || kind == EndInclusive {
				wantKind = AfterPrefix
			}
			if err != nil || got != wantKind || len(vals) != p {
				t.Fatalf("DecodeClustering(bound %x) = %d values, %v, %v", bound, len(vals), got, err)
			}
		}
	})
}

func TestPropGoRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genOpts{maxDepth: 2}
		ty := drawType(t, o, 0, "type")
		v := drawValue(t, ty, o, rapid.Bool().Draw(t, "small"), "v")
		if err := Validate(ty, v); err != nil {
			t.Fatalf("generated invalid %s %x: %v", ty, v, err)
		}
		goV, err := Decode(ty, v)
		if err != nil {
			t.Fatalf("Decode(%s, %x): %v", ty, v, err)
		}
		back, err := Encode(ty, goV)
		if err != nil {
			t.Fatalf("Encode(%s, %#v): %v", ty, goV, err)
		}
		if !bytes.Equal(back, v) {
			t.Fatalf("Encode(Decode(%s %x)) = %x", ty, v, back)
		}
	})
}

func TestPropLiteralRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genOpts{noEmpty: true, maxDepth: 2}
		ty := drawType(t, o, 0, "type")
		v := drawValue(t, ty, o, rapid.Bool().Draw(t, "small"), "v")
		lit := FormatLiteral(ty, v)
		back, err := ParseLiteral(ty, lit)
		if err != nil {
			t.Fatalf("ParseLiteral(%s, %s): %v", ty, lit, err)
		}
		if !bytes.Equal(back, v) {
			t.Fatalf("%s literal %s parsed to %x, want %x", ty, lit, back, v)
		}
		// cqlsh formatting and JSON never fail on valid values.
		_ = Format(ty, v)
		if js := AppendJSON(nil, ty, v); len(js) == 0 {
			t.Fatalf("empty JSON for %s", lit)
		}
	})
}
