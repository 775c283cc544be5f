package data

import (
	"encoding/binary"
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
