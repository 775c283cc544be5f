package sstable

import (
	"encoding/binary"
	"math"

	"github.com/minicass/minicass/data"
	"github.com/spaolacci/murmur3"
)

// bloomFilter is the partition-key bloom filter of Filter.db. Key k sets
// bits (h1 + i*h2) mod nbits for i in [0, hashes), where h1, h2 is the
// 128-bit murmur3 (x64 variant, seed 0) of the key bytes: the
// Kirsch-Mitzenmacher double hashing Cassandra uses too. A filter with no
// bits (bloom_filter_fp_chance 1.0) contains everything.
//
// Filter.db body (inside the small-component framing). Part of the file
// format:
//
//	uvarint(hashes) uvarint(nbits) bits: ceil(nbits/64) uint64 words, little-endian
type bloomFilter struct {
	hashes uint64
	nbits  uint64
	words  []uint64
}

// maxBloomHashes caps the number of hash functions, as Cassandra's
// BloomCalculations does (at most 20 for its tables).
const maxBloomHashes = 20

// newBloomFilter sizes a filter for n keys and false-positive chance p.
func newBloomFilter(n int, p float64) *bloomFilter {
	if p >= 1 || n == 0 {
		return &bloomFilter{}
	}
	if p <= 0 {
		p = 1e-6
	}
	bitsPerKey := -math.Log(p) / (math.Ln2 * math.Ln2)
	k := uint64(math.Round(bitsPerKey * math.Ln2))
	k = max(1, min(k, maxBloomHashes))
	nbits := uint64(math.Ceil(bitsPerKey * float64(n)))
	nbits = max(64, (nbits+63)/64*64)
	return &bloomFilter{hashes: k, nbits: nbits, words: make([]uint64, nbits/64)}
}

func (f *bloomFilter) addHash(h1, h2 uint64) {
	for i := uint64(0); i < f.hashes; i++ {
		bit := (h1 + i*h2) % f.nbits
		f.words[bit/64] |= 1 << (bit % 64)
	}
}

// KeyHash is a partition key's bloom filter hash (see bloomFilter): a read
// over several SSTables computes it once for all their filters.
type KeyHash struct{ h1, h2 uint64 }

// HashKey returns the bloom filter hash of partition key key.
func HashKey(key []byte) KeyHash {
	h1, h2 := murmur3.Sum128(key)
	return KeyHash{h1, h2}
}

// mayContain reports whether the key of hash h may have been added.
func (f *bloomFilter) mayContain(h KeyHash) bool {
	if f.nbits == 0 {
		return true
	}
	h1, h2 := h.h1, h.h2
	for i := uint64(0); i < f.hashes; i++ {
		bit := (h1 + i*h2) % f.nbits
		if f.words[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}

func (f *bloomFilter) encode() []byte {
	b := binary.AppendUvarint(nil, f.hashes)
	b = binary.AppendUvarint(b, f.nbits)
	for _, w := range f.words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

func decodeBloomFilter(file string, body []byte) (*bloomFilter, error) {
	d := &decoder{file: file, base: headerSize, Cursor: data.Cursor{Buf: body}}
	f := &bloomFilter{hashes: d.Uvarint("hash count"), nbits: d.Uvarint("bit count")}
	if d.Err() == nil && (f.hashes > maxBloomHashes || f.nbits%64 != 0 || f.nbits/8 != uint64(d.Remaining()) || (f.nbits == 0) != (f.hashes == 0)) {
		d.Fail("filter size")
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	f.words = make([]uint64, f.nbits/64)
	for i := range f.words {
		f.words[i] = d.u64("filter word")
	}
	return f, d.finish("filter")
}

func (f *bloomFilter) addHashKey(key []byte) {
	h1, h2 := murmur3.Sum128(key)
	f.addHash(h1, h2)
}
