package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/minicass/minicass/types"
)

// Named types of other packages, as gocql's and applications' own, bind as
// their underlying values; pointers bind as what they point to.
type (
	namedUUID   [16]byte
	namedString string
	namedInt    int32
	namedBlob   []byte
)

func TestEncodeNamedAndPointerValues(t *testing.T) {
	u := namedUUID{0x5e, 0xed, 6: 0x40, 8: 0x80, 15: 1}
	s := "x"
	for _, tc := range []struct {
		typ  Type
		v    any
		want any
	}{
		{UUIDType, u, [16]byte(u)},
		{TextType, namedString("abc"), "abc"},
		{IntType, namedInt(7), int32(7)},
		{BigintType, 3 * time.Second, int64(3e9)},
		{BlobType, namedBlob{1, 2}, []byte{1, 2}},
		{TextType, &s, "x"},
		{TextType, (*string)(nil), nil},
		{ListOf(IntType, false), []namedInt{1, 2}, []int32{1, 2}},
	} {
		got, err := Encode(tc.typ, tc.v)
		require.NoError(t, err, "%T", tc.v)
		want, err := Encode(tc.typ, tc.want)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%T as %s", tc.v, tc.typ)
	}
}
