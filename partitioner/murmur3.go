// Package partitioner maps partition keys to tokens exactly as Apache
// Cassandra's Murmur3Partitioner does, builds composite partition keys as
// CompositeType does, and simulates a token ring with vnodes and replica
// placement (SimpleStrategy, NetworkTopologyStrategy) for teaching views.
//
// # Tokens
//
// A token is the h1 half of MurmurHash3 x64_128 with seed 0 over the
// serialized partition key, read as a signed int64. Cassandra's
// implementation (utils/MurmurHash.java hash3_x64_128) widens the trailing
// len%16 bytes with Java's signed byte-to-long conversion, so a tail byte
// >= 0x80 is sign-extended before it is shifted into place. Murmur3 keeps
// that quirk; it therefore differs from reference MurmurHash3 exactly when a
// tail byte at tail index != 7 is >= 0x80. Two more rules come from
// dht/Murmur3Partitioner.java: an empty key has token MinToken without
// hashing, and a hash equal to math.MinInt64 becomes MaxToken, because
// MinToken is reserved as the ring's minimum.
//
// # What is hashed
//
// A single-column partition key hashes its value's serialized bytes as they
// are. A multi-column key hashes CompositeKey(parts): for each component a
// uint16 big-endian length, the bytes, and an end-of-component byte 0x00.
//
//	('abc', 42) -> 00 03 61 62 63 00 | 00 04 00 00 00 2a 00
package partitioner

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Token is a position on Cassandra's Murmur3 ring, a signed 64-bit integer.
type Token int64

// MinToken is the ring minimum. No key hashes to it except the empty key.
const MinToken Token = math.MinInt64

// MaxToken is the largest token.
const MaxToken Token = math.MaxInt64

// MurmurHash3 x64_128 multiplication constants.
const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// Murmur3 returns the Cassandra Murmur3Partitioner token of key, the
// serialized partition key. It does not allocate. See the package comment for
// the tail sign-extension, empty-key and MinToken rules.
func Murmur3(key []byte) Token {
	if len(key) == 0 {
		return MinToken
	}
	h1 := murmur3H1(key)
	if h1 == math.MinInt64 {
		return MaxToken
	}
	return Token(h1)
}

// murmur3H1 computes h1 of Cassandra's hash3_x64_128 with seed 0.
func murmur3H1(key []byte) int64 {
	var h1, h2 uint64
	n := len(key)
	body := key[:n&^15]
	for len(body) >= 16 {
		k1 := binary.LittleEndian.Uint64(body)
		k2 := binary.LittleEndian.Uint64(body[8:])
		body = body[16:]

		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := key[n&^15:]
	var k1, k2 uint64
	// Java widens each tail byte as a signed byte: int64(int8(b)).
	for j := len(tail) - 1; j >= 8; j-- {
		k2 ^= uint64(int64(int8(tail[j]))) << (8 * uint(j-8))
	}
	for j := min(len(tail), 8) - 1; j >= 0; j-- {
		k1 ^= uint64(int64(int8(tail[j]))) << (8 * uint(j))
	}
	if len(tail) > 8 {
		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
	}
	if len(tail) > 0 {
		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	return int64(h1)
}

// fmix64 is MurmurHash3's 64-bit finalization mix.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
