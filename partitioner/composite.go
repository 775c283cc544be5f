package partitioner

import (
	"encoding/binary"
	"fmt"
)

// maxComponentLen is the largest component a uint16 length prefix can hold.
const maxComponentLen = 0xffff

// CompositeKey encodes the components of a multi-column partition key as
// Cassandra's CompositeType does (db/marshal/CompositeType.java build): for
// each component a uint16 big-endian length, the bytes, then an
// end-of-component byte 0x00. An empty component encodes as 00 00 00. Zero
// parts encode as an empty slice. It returns an error wrapping
// ErrPartTooLarge if a part is longer than 65535 bytes.
//
// A single-column partition key is not wrapped: its token is Murmur3 of the
// value's bytes as they are.
func CompositeKey(parts [][]byte) ([]byte, error) {
	n := 0
	for _, p := range parts {
		n += 3 + len(p)
	}
	return AppendCompositeKey(make([]byte, 0, n), parts)
}

// AppendCompositeKey appends the CompositeKey encoding of parts to dst and
// returns the extended slice. On error dst is returned unchanged (its length
// is restored) together with an error wrapping ErrPartTooLarge.
func AppendCompositeKey(dst []byte, parts [][]byte) ([]byte, error) {
	for i, p := range parts {
		if len(p) > maxComponentLen {
			return dst, fmt.Errorf("%w: component %d is %d bytes", ErrPartTooLarge, i, len(p))
		}
	}
	for _, p := range parts {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(p)))
		dst = append(dst, p...)
		dst = append(dst, 0)
	}
	return dst, nil
}

// SplitCompositeKey decodes a CompositeKey encoding into its components. The
// returned slices alias b; copy them if b will be modified. An empty b
// decodes to no components. Malformed input (a truncated length or
// component, or an end-of-component byte other than 0x00) returns an error
// wrapping ErrMalformedComposite that names the offset.
func SplitCompositeKey(b []byte) ([][]byte, error) {
	var parts [][]byte
	off := 0
	for off < len(b) {
		if len(b)-off < 2 {
			return nil, fmt.Errorf("%w: truncated length at offset %d", ErrMalformedComposite, off)
		}
		n := int(binary.BigEndian.Uint16(b[off:]))
		off += 2
		if len(b)-off < n+1 {
			return nil, fmt.Errorf("%w: component of %d bytes at offset %d overruns %d-byte key",
				ErrMalformedComposite, n, off, len(b))
		}
		parts = append(parts, b[off:off+n:off+n])
		off += n
		if b[off] != 0 {
			return nil, fmt.Errorf("%w: end-of-component byte 0x%02x at offset %d, want 0x00",
				ErrMalformedComposite, b[off], off)
		}
		off++
	}
	return parts, nil
}
