package types

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestEncodeIntoMatchesConstants checks the allocation-free encoder against
// the CQL constant path (FromConstant), which shares no code with it: the
// same Go value, written as a CQL literal, must give the same bytes. rapid
// prints the seed of a failing run.
func TestEncodeIntoMatchesConstants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var (
			typ  Type
			v    any
			kind ConstKind
			lit  string
		)
		switch rapid.IntRange(0, 8).Draw(t, "case") {
		case 0:
			typ = Type{Kind: rapid.SampledFrom([]Kind{Int, Bigint, Counter, Smallint, Tinyint}).Draw(t, "kind")}
			n := rapid.Int64().Draw(t, "n")
			v, kind, lit = n, ConstInteger, strconv.FormatInt(n, 10)
		case 1:
			typ = Type{Kind: Tinyint}
			n := rapid.Int8().Draw(t, "n")
			v, kind, lit = n, ConstInteger, strconv.Itoa(int(n))
		case 2:
			typ = Type{Kind: Text}
			s := rapid.String().Draw(t, "s")
			v, kind, lit = s, ConstString, s
		case 3:
			typ = Type{Kind: Ascii}
			s := rapid.StringMatching(`[ -~]*`).Draw(t, "s")
			v, kind, lit = s, ConstString, s
		case 4:
			typ = Type{Kind: Boolean}
			b := rapid.Bool().Draw(t, "b")
			v, kind, lit = b, ConstBoolean, strconv.FormatBool(b)
		case 5:
			typ = Type{Kind: Double}
			f := rapid.Float64().Draw(t, "f")
			v, kind, lit = f, ConstFloat, strconv.FormatFloat(f, 'g', -1, 64)
		case 6:
			typ = Type{Kind: Blob}
			b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
			v, kind, lit = b, ConstHex, "0x"+hexString(b)
		case 7: // int32 and int have fast paths of their own
			typ = Type{Kind: rapid.SampledFrom([]Kind{Int, Bigint, Counter, Smallint, Tinyint}).Draw(t, "kind")}
			n := rapid.Int32().Draw(t, "n")
			v, kind, lit = n, ConstInteger, strconv.FormatInt(int64(n), 10)
		case 8:
			typ = Type{Kind: rapid.SampledFrom([]Kind{Int, Bigint, Counter, Smallint, Tinyint}).Draw(t, "kind")}
			n := rapid.Int().Draw(t, "n")
			v, kind, lit = n, ConstInteger, strconv.Itoa(n)
		}
		want, werr := FromConstant(typ, kind, lit)
		n := EncodedLen(typ, v)
		if werr != nil {
			require.Equal(t, -1, n, "EncodedLen must refuse what the constant path refuses")
			return
		}
		require.Equal(t, len(want), n)
		got := make([]byte, n)
		EncodeInto(got, typ, v)
		require.Equal(t, want, got)
		enc, err := Encode(typ, v)
		require.NoError(t, err)
		require.Equal(t, want, enc)
	})
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestEncodedLenRefuses lists values the fast encoder leaves to Encode.
func TestEncodedLenRefuses(t *testing.T) {
	for _, tc := range []struct {
		typ Type
		v   any
	}{
		{Type{Kind: Int}, int64(1) << 31},
		{Type{Kind: Smallint}, 40000},
		{Type{Kind: Tinyint}, -129},
		{Type{Kind: Bigint}, uint64(1) << 63},
		{Type{Kind: Int}, "1"},
		{Type{Kind: Text}, "\xff"},
		{Type{Kind: Ascii}, "é"},
		{Type{Kind: Float}, float64(1)},
		{Type{Kind: Double}, float32(1)},
		{Type{Kind: Blob}, "00"},
		{Type{Kind: Varint}, 1},
		{Type{Kind: Timestamp}, int64(5)},
		{Type{Kind: Int}, nil},
	} {
		require.Equal(t, -1, EncodedLen(tc.typ, tc.v), "%s %T(%v)", tc.typ, tc.v, tc.v)
	}
	ts := time.UnixMilli(-1234)
	require.Equal(t, 8, EncodedLen(Type{Kind: Timestamp}, ts))
	got := make([]byte, 8)
	EncodeInto(got, Type{Kind: Timestamp}, ts)
	want, err := FromConstant(Type{Kind: Timestamp}, ConstInteger, "-1234")
	require.NoError(t, err)
	require.Equal(t, want, got)
}
