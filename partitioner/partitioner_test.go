package partitioner

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

func TestParse(t *testing.T) {
	for name, want := range map[string]Partitioner{
		"Murmur3Partitioner":                              Murmur3Partitioner,
		"org.apache.cassandra.dht.Murmur3Partitioner":     Murmur3Partitioner,
		"ByteOrderedPartitioner":                          ByteOrderedPartitioner,
		"org.apache.cassandra.dht.ByteOrderedPartitioner": ByteOrderedPartitioner,
	} {
		p, ok := Parse(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, p, name)
	}
	for _, name := range []string{"RandomPartitioner", "OrderPreservingPartitioner", "dht.Murmur3Partitioner", "murmur3partitioner", ""} {
		_, ok := Parse(name)
		assert.False(t, ok, name)
	}
	assert.Equal(t, "org.apache.cassandra.dht.Murmur3Partitioner", Partitioner(0).ClassName(), "the zero value is Murmur3")
	assert.Equal(t, "org.apache.cassandra.dht.ByteOrderedPartitioner", ByteOrderedPartitioner.String())
}

func TestTokenString(t *testing.T) {
	assert.Equal(t, "-3485513579396041028", Murmur3Partitioner.TokenString([]byte{0, 0, 0, 0}))
	assert.Equal(t, "0000002a", ByteOrderedPartitioner.TokenString([]byte{0, 0, 0, 42}))
	assert.Equal(t, "", ByteOrderedPartitioner.TokenString(nil), "the minimum BytesToken")
}

func TestBytePrefixTokenEdges(t *testing.T) {
	assert.Equal(t, MinToken, BytePrefixToken(nil))
	assert.Equal(t, MinToken+1, BytePrefixToken([]byte{0}))
	assert.Equal(t, MaxToken-254, BytePrefixToken(bytes.Repeat([]byte{0xff}, 9)))
	assert.Equal(t, BytePrefixToken([]byte("abcdefg")), BytePrefixToken([]byte("abcdefgh")), "seven bytes decide")
	assert.Equal(t, ByteOrderedPartitioner.Token([]byte("k")), BytePrefixToken([]byte("k")))
	assert.Equal(t, Murmur3([]byte("k")), Murmur3Partitioner.Token([]byte("k")))
}

// TestBytePrefixTokenOrder checks the property the engine relies on: under
// ByteOrderedPartitioner, ordering by (token, key bytes) is ordering by key
// bytes, unsigned, as BytesToken.compareTo orders tokens.
func TestBytePrefixTokenOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Short strings over a small alphabet, so that prefixes and
		// zero pads collide often.
		gen := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 0x7f, 0x80, 0xff}), 0, 10)
		a, b := gen.Draw(t, "a"), gen.Draw(t, "b")
		ta, tb := BytePrefixToken(a), BytePrefixToken(b)
		want := bytes.Compare(a, b)
		got := 0
		switch {
		case ta < tb:
			got = -1
		case ta > tb:
			got = 1
		default:
			got = bytes.Compare(a, b)
		}
		if got != want {
			t.Fatalf("(token, bytes) order %d, byte order %d: %x (%d) vs %x (%d)", got, want, a, ta, b, tb)
		}
		if len(a) > 0 && ta == MinToken {
			t.Fatalf("non-empty %x maps to MinToken", a)
		}
	})
}
