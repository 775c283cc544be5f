package data

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCursorReads(t *testing.T) {
	b := binary.AppendUvarint(nil, 300)
	b = binary.AppendVarint(b, -5)
	b = append(b, 7)
	b = appendBytes(b, []byte("ab"))
	b = appendBytes(b, nil)
	c := Cursor{Buf: b}
	assert.Equal(t, uint64(300), c.Uvarint("u"))
	assert.Equal(t, int64(-5), c.Varint("v"))
	assert.Equal(t, byte(7), c.Byte("b"))
	ab := c.Bytes("ab")
	assert.Equal(t, []byte("ab"), ab)
	assert.Equal(t, 2, cap(ab), "returned slices are clipped")
	empty := c.Bytes("empty")
	assert.NotNil(t, empty)
	assert.Empty(t, empty)
	assert.Equal(t, 0, c.Remaining())
	assert.False(t, c.Failed())
}

func TestCursorKeepsFirstFailure(t *testing.T) {
	c := Cursor{Buf: []byte{0x05, 'x'}}
	assert.Nil(t, c.Bytes("name"), "length 5 with one byte left")
	assert.True(t, c.Failed())
	assert.Zero(t, c.Uvarint("later"))
	assert.Zero(t, c.Byte("later"))
	what, at, ok := c.Failure()
	require.True(t, ok)
	assert.Equal(t, "name", what)
	assert.Equal(t, 1, at, "the offset where the failed read stood")

	c = Cursor{Buf: []byte{0x80}}
	assert.Zero(t, c.Varint("truncated"))
	what, at, _ = c.Failure()
	assert.Equal(t, "truncated", what)
	assert.Equal(t, 0, at)

	c = Cursor{Buf: []byte{0x03, 1, 2}}
	assert.Zero(t, c.Count("n", 1), "three elements cannot fit in two bytes")
	assert.True(t, c.Failed())
}

// uvarintCases are inputs around every length boundary of the fast varint
// path: short inputs, the 8-, 9- and 10-byte forms, overflow and
// truncation.
func uvarintCases() [][]byte {
	cases := [][]byte{nil, {0}, {0x80}, {0x80, 0}, {0xff, 0x01}}
	for _, v := range []uint64{0, 1, 127, 128, 1<<56 - 1, 1 << 56, 1<<63 - 1, 1 << 63, math.MaxUint64 - 1, math.MaxUint64, 1_700_000_000_000_000} {
		cases = append(cases, binary.AppendUvarint(nil, v), append(binary.AppendUvarint(nil, v), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
	}
	over := bytes.Repeat([]byte{0xff}, 12)
	cases = append(cases, over, over[:10], over[:9], append(bytes.Repeat([]byte{0xff}, 9), 2), append(bytes.Repeat([]byte{0xff}, 9), 0x02, 0, 0))
	return cases
}

// TestUvarintMatchesBinary checks the fast varint decoder against
// encoding/binary on every boundary case, and the Varint zig-zag on top.
func TestUvarintMatchesBinary(t *testing.T) {
	for _, b := range uvarintCases() {
		wv, wn := binary.Uvarint(b)
		gv, gn := uvarint(b)
		require.Equal(t, [2]any{wv, wn}, [2]any{gv, gn}, "% x", b)
		sv, sn := binary.Varint(b)
		c := Cursor{Buf: b}
		got := c.Varint("v")
		if sn > 0 {
			require.Equal(t, sv, got, "% x", b)
			require.Equal(t, sn, c.Off)
		} else {
			require.True(t, c.Failed(), "% x", b)
		}
	}
}

// FuzzUvarint compares the fast varint decoder with encoding/binary.
func FuzzUvarint(f *testing.F) {
	for _, b := range uvarintCases() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wv, wn := binary.Uvarint(b)
		gv, gn := uvarint(b)
		if wv != gv || wn != gn {
			t.Fatalf("% x: uvarint = %d, %d; binary.Uvarint = %d, %d", b, gv, gn, wv, wn)
		}
	})
}
