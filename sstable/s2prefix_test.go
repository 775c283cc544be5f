package sstable

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/stretchr/testify/require"
)

// s2Inputs returns blocks of the kinds a chunk holds: rows with repeated
// column names and values, runs, random bytes, and mixtures of them.
func s2Input(rng *rand.Rand) []byte {
	var b []byte
	size := rng.Intn(70000)
	for len(b) < size {
		switch rng.Intn(4) {
		case 0:
			b = append(b, bytes.Repeat([]byte{byte(rng.Intn(256))}, 1+rng.Intn(300))...)
		case 1:
			r := make([]byte, 1+rng.Intn(200))
			rng.Read(r)
			b = append(b, r...)
		case 2:
			if len(b) > 0 {
				at := rng.Intn(len(b))
				b = append(b, b[at:min(len(b), at+1+rng.Intn(100))]...)
			}
		case 3:
			b = append(b, []byte("row\x00clustering\x00value vvvvvvvvvvvvvvvvvvvvvvvv")[:1+rng.Intn(40)]...)
		}
	}
	return b[:min(len(b), size)]
}

// TestS2DecodePrefixMatchesDecode checks that every prefix decoded is the
// prefix s2.Decode returns, for blocks of each of the encoders (S2's, its
// better and best modes, and Snappy-compatible output).
func TestS2DecodePrefixMatchesDecode(t *testing.T) {
	s := seed(t)
	rng := rand.New(rand.NewSource(s))
	encoders := []func(dst, src []byte) []byte{s2.Encode, s2.EncodeBetter, s2.EncodeBest, s2.EncodeSnappy}
	for i := 0; i < 300; i++ {
		plain := s2Input(rng)
		block := encoders[i%len(encoders)](nil, plain)
		for _, n := range []int{0, len(plain), rng.Intn(len(plain) + 1), rng.Intn(len(plain) + 1)} {
			got, err := s2DecodePrefix(nil, block, n)
			require.NoError(t, err, "seed %d input %d n %d", s, i, n)
			require.True(t, bytes.Equal(plain[:n], got), "seed %d input %d n %d", s, i, n)
		}
		_, err := s2DecodePrefix(nil, block, len(plain)+1)
		require.Error(t, err, "beyond the decoded length")
	}
}

// FuzzS2DecodePrefix decodes arbitrary bytes: never a panic, and whatever
// decodes in full decodes to the same prefix.
func FuzzS2DecodePrefix(f *testing.F) {
	f.Add(s2.Encode(nil, []byte("hello hello hello hello")), 10)
	f.Add(s2.EncodeBetter(nil, bytes.Repeat([]byte("ab"), 1000)), 1500)
	f.Add([]byte{0x10, 0x01, 0x00}, 5)
	f.Fuzz(func(t *testing.T, block []byte, n int) {
		if n < 0 || n > 1<<20 {
			return
		}
		got, err := s2DecodePrefix(nil, block, n)
		full, ferr := s2.Decode(nil, block)
		if ferr == nil && n <= len(full) {
			require.NoError(t, err)
			require.True(t, bytes.Equal(full[:n], got), "prefix of %d", n)
		}
		if err == nil {
			require.Len(t, got, n)
		}
	})
}
