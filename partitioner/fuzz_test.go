package partitioner

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// refMurmur3 is a deliberately plain transcription of Cassandra's
// MurmurHash.hash3_x64_128 (h1 only), reading bytes one at a time the way
// the Java code does, so FuzzMurmur3 can compare the optimized version
// against it.
func refMurmur3(key []byte) Token {
	if len(key) == 0 {
		return MinToken
	}
	rotl := func(v uint64, n uint) uint64 { return v<<n | v>>(64-n) }
	fmix := func(k uint64) uint64 {
		k ^= k >> 33
		k *= 0xff51afd7ed558ccd
		k ^= k >> 33
		k *= 0xc4ceb9fe1a85ec53
		k ^= k >> 33
		return k
	}
	getBlock := func(off int) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(key[off+i])
		}
		return v
	}
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	nblocks := len(key) / 16
	for i := 0; i < nblocks; i++ {
		k1, k2 := getBlock(i*16), getBlock(i*16+8)
		k1 = rotl(k1*c1, 31) * c2
		h1 ^= k1
		h1 = rotl(h1, 27) + h2
		h1 = h1*5 + 0x52dce729
		k2 = rotl(k2*c2, 33) * c1
		h2 ^= k2
		h2 = rotl(h2, 31) + h1
		h2 = h2*5 + 0x38495ab5
	}
	off := nblocks * 16
	var k1, k2 uint64
	signed := func(i int) uint64 { return uint64(int64(int8(key[off+i]))) }
	rem := len(key) & 15
	for i := rem - 1; i >= 0; i-- {
		if i >= 8 {
			k2 ^= signed(i) << (8 * (i - 8))
		} else {
			k1 ^= signed(i) << (8 * i)
		}
	}
	if rem > 8 {
		h2 ^= rotl(k2*c2, 33) * c1
	}
	if rem > 0 {
		h1 ^= rotl(k1*c1, 31) * c2
	}
	h1 ^= uint64(len(key))
	h2 ^= uint64(len(key))
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	h1 += h2
	if int64(h1) == math.MinInt64 {
		return MaxToken
	}
	return Token(int64(h1))
}

func FuzzMurmur3(f *testing.F) {
	for _, v := range cassandraVectors {
		f.Add([]byte(v.hex))
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 31))
	f.Fuzz(func(t *testing.T, key []byte) {
		if got, want := Murmur3(key), refMurmur3(key); got != want {
			t.Fatalf("key %x: Murmur3 %d, reference %d", key, got, want)
		}
	})
}

func FuzzSplitCompositeKey(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 3, 'a', 'b', 'c', 0, 0, 4, 0, 0, 0, 42, 0})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 5, 'a', 0})
	f.Add([]byte{0, 1, 'a', 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := SplitCompositeKey(b)
		if err != nil {
			if !errors.Is(err, ErrMalformedComposite) {
				t.Fatalf("error %v does not wrap ErrMalformedComposite", err)
			}
			return
		}
		// A successful split must re-encode to exactly the input.
		enc, err := CompositeKey(parts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, b) {
			t.Fatalf("round trip %x -> %q -> %x", b, parts, enc)
		}
		for _, p := range parts {
			if len(p) > math.MaxUint16 {
				t.Fatalf("part of %d bytes", len(p))
			}
		}
	})
}
