package partitioner

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
)

// Partitioner is a node's partitioner: how a partition key maps to its
// token, and so the order in which a node keeps and scans its partitions
// (cassandra.yaml's partitioner). The zero value is Murmur3Partitioner,
// Cassandra 4.1's default. A node's partitioner never changes once its data
// is written: Cassandra refuses to open SSTables written under another one.
type Partitioner uint8

const (
	// Murmur3Partitioner (org.apache.cassandra.dht.Murmur3Partitioner)
	// hashes the key: its token is Murmur3(key), a bigint.
	Murmur3Partitioner Partitioner = iota
	// ByteOrderedPartitioner (org.apache.cassandra.dht.ByteOrderedPartitioner)
	// orders partitions by their key's bytes, compared unsigned: its token
	// (BytesToken) is the key itself, a blob, and the empty key has the
	// minimum token, the empty blob.
	ByteOrderedPartitioner
)

// partitionerPackage is the Java package Cassandra's partitioners live in:
// a cassandra.yaml partitioner without a dot names a class of it
// (FBUtilities.newPartitioner).
const partitionerPackage = "org.apache.cassandra.dht."

// ClassName returns the partitioner's Java class name, as system.local's
// partitioner column, DESCRIBE CLUSTER and nodetool describecluster print it.
func (p Partitioner) ClassName() string {
	switch p {
	case ByteOrderedPartitioner:
		return partitionerPackage + "ByteOrderedPartitioner"
	default:
		return partitionerPackage + "Murmur3Partitioner"
	}
}

// String returns the class name (ClassName).
func (p Partitioner) String() string { return p.ClassName() }

// Parse returns the partitioner cassandra.yaml's partitioner setting names:
// a class name, qualified or not (a name without a dot is a class of
// org.apache.cassandra.dht, as FBUtilities.newPartitioner reads it). ok is
// false for any other name, including Cassandra's partitioners minicass does
// not offer (RandomPartitioner, OrderPreservingPartitioner).
func Parse(name string) (p Partitioner, ok bool) {
	if !strings.Contains(name, ".") {
		name = partitionerPackage + name
	}
	for _, p := range []Partitioner{Murmur3Partitioner, ByteOrderedPartitioner} {
		if name == p.ClassName() {
			return p, true
		}
	}
	return 0, false
}

// OrdersKeys reports whether the partitioner orders partitions by their key
// bytes (IPartitioner.preservesOrder), so that its token is the key.
func (p Partitioner) OrdersKeys() bool { return p == ByteOrderedPartitioner }

// Token returns the 64-bit token minicass keeps and orders a partition of
// key by (its memtables, SSTable index entries and scans order partitions
// by this token, then by the key's bytes). Under Murmur3Partitioner it is
// Murmur3(key), Cassandra's token. Under ByteOrderedPartitioner it is
// BytePrefixToken(key): Cassandra's token there is the key itself, and this
// order-preserving prefix of it, with ties broken by the key's bytes, gives
// the partitions exactly the key-byte order of BytesToken.
func (p Partitioner) Token(key []byte) Token {
	if p == ByteOrderedPartitioner {
		return BytePrefixToken(key)
	}
	return Murmur3(key)
}

// BytePrefixToken maps a byte string to a token so that the order of tokens
// agrees with the unsigned lexicographic order of the strings: a <= b
// implies BytePrefixToken(a) <= BytePrefixToken(b). The first seven bytes of
// b, padded with zero bytes, are the high 56 bits of an unsigned 64-bit
// value whose low byte is 1 for a non-empty string and 0 for the empty one;
// flipping its top bit makes the unsigned order the signed order of Token.
// The empty string alone maps to MinToken (the ring's minimum, as the empty
// key is BytesToken's minimum), and no string maps to MaxToken.
//
//	""            -> 80 00 00 00 00 00 00 00 ^ 80.. = MinToken
//	00            -> 00 00 00 00 00 00 00 01 ^ 80.. = MinToken+1
//	00 00 00 01   -> 00 00 00 01 00 00 00 01 ^ 80..
//	ff ff ... ff  -> ff ff ff ff ff ff ff 01 ^ 80.. = MaxToken-254
//
// Strings that share their first seven bytes share a token; their order is
// the order of their bytes, which ComparePartitions compares next. The
// proof of agreement: where two padded prefixes first differ, either both
// strings have a byte there (which orders them), or one has ended there,
// and being a prefix of the other it is the smaller, as its zero pad is.
func BytePrefixToken(b []byte) Token {
	if len(b) == 0 {
		return MinToken
	}
	var buf [8]byte
	copy(buf[:7], b)
	buf[7] = 1
	return Token(binary.BigEndian.Uint64(buf[:]) ^ 1<<63)
}

// TokenString returns the token of key as Cassandra prints it
// (Token.toString): Murmur3's in decimal, ByteOrderedPartitioner's
// BytesToken in lower-case hex without a prefix ("" for the minimum).
func (p Partitioner) TokenString(key []byte) string {
	if p == ByteOrderedPartitioner {
		return hex.EncodeToString(key)
	}
	return strconv.FormatInt(int64(Murmur3(key)), 10)
}
