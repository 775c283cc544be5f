// Package types is minicass's vocabulary of CQL types and values: type
// names (ParseType, Type.String), CQL constants and literals (FromConstant,
// ParseLiteral), the native-protocol value codec (Validate, Decode, Encode,
// the collection helpers), Cassandra's comparators (Compare), cqlsh-style
// printing (Format, FormatLiteral, AppendJSON), UUID helpers, and the
// byte-comparable clustering keys the storage layers sort with
// bytes.Compare. It is a leaf package: it imports no other minicass package.
//
// # Values
//
// A value is always its native-protocol serialized bytes (protocol v4 §6):
// nil is null and an empty non-nil slice is the "empty value" Cassandra
// allows for most types (it sorts before every other value). Functions never
// keep or modify the slices they are given unless they say so.
//
// # Byte-comparable clustering keys
//
// A clustering key over columns c1..cn is the concatenation of one
// component per column and a terminator byte. A component is a header
// byte and a body:
//
//	header 0x40  non-empty value, followed by its body
//	header 0x3F  the empty value (no body), so it sorts first
//
// A DESC column inverts every bit of its component (header and body), so
// its order is exactly reversed, empty value included. Bodies preserve the
// type's comparator order and are prefix-free:
//
//	int, bigint, smallint, tinyint,   big-endian, sign bit flipped
//	timestamp, time
//	date                              the serialized uint32 as is
//	boolean                           00 or 01
//	float, double                     IEEE bits: negatives inverted, positives
//	                                  with the sign bit set; NaN canonical
//	                                  (so -0.0 < 0.0 < +Inf < NaN)
//	text, ascii, blob, inet           bytes with 00 escaped as 00 FF,
//	                                  terminated by 00 01
//	varint                            sign (01 -, 02 zero, 03 +), byte length,
//	                                  magnitude; inverted when negative
//	decimal                           sign, adjusted exponent (int64, sign
//	                                  flipped), digit pairs, 00; normalised so
//	                                  1.0 and 1.00 are the same key
//	timeuuid                          reordered 60-bit time (sign flipped),
//	                                  then the low 8 bytes xor 0x80 each
//	uuid                              version byte, then the reordered time for
//	                                  version 1 or the high 8 bytes, then the
//	                                  low 8 bytes
//	frozen list, set, map, tuple      element components (map: key, value,
//	                                  ...; tuple null field: 3E, trailing
//	                                  nulls dropped), then 00
//
// A full key ends with 0x80. A bound on a prefix P of 0..n components ends
// with 0x00 (StartInclusive, EndExclusive) or 0xFF (StartExclusive,
// EndInclusive). The byte that follows enc(P) in a full key is a header
// (3F, 40, C0, BF) or the terminator 80, never 00 or FF, hence for every
// full key K with prefix P
//
//	enc(P) 00  <  K  <  enc(P) FF
//
// and a clustering slice is the half-open byte range [start, end).
//
// Worked example: PRIMARY KEY (k, name, ts, n) WITH CLUSTERING ORDER BY
// (name ASC, ts DESC, n ASC), row name='a', ts=1000 ms, n=-1:
//
//	40 61 00 01                   name: header, 'a', terminator 00 01
//	bf 7f ff ff ff ff ff fc 17    ts DESC: ~(40 80 00 00 00 00 00 03 e8)
//	40 7f ff ff ff                n: header, ff ff ff ff with sign flipped
//	80                            full key
//
// The slice name = 'a' AND ts > 1000 (ts is DESC, so later rows come first
// and "ts > 1000" is the range before the row) is [40 61 00 01 00,
// 40 61 00 01 bf 7f ff ff ff ff ff fc 17 00).
//
// EncodeKey writes a single ascending component with no terminator, for the
// element paths of non-frozen collections (map keys, set elements).
//
// Decoding gives back the exact serialized bytes except where several
// serializations compare equal: varints come back minimal, decimals
// normalised (1.00 decodes as 1), booleans as 00/01, NaNs canonical, and
// tuples with trailing null fields padded to the type's field count.
package types
