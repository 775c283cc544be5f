package data

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Cursor reads the primitive encodings shared by the row and mutation
// encoding of this package and by the SSTable component bodies: varints
// (encoding/binary: signed zig-zag, unsigned plain), single bytes, raw byte
// runs and uvarint-length-prefixed byte strings. It keeps only the first
// failure, as the name of the field being read and the offset where it
// started; every read after a failure returns a zero value. Callers turn
// the failure into their own error type (see Decoder.Err). Byte slices that
// a Cursor returns alias Buf and have their capacity clipped to their
// length.
type Cursor struct {
	// Buf is the input.
	Buf []byte
	// Off is the number of bytes of Buf already read.
	Off int

	failed   bool
	failWhat string
	failAt   int
}

// Fail records a failure reading what at the current offset, unless an
// earlier failure is already recorded.
func (c *Cursor) Fail(what string) {
	if !c.failed {
		c.failed, c.failWhat, c.failAt = true, what, c.Off
	}
}

// Failed reports whether a read has failed.
func (c *Cursor) Failed() bool { return c.failed }

// Failure returns the first failure: what was being read and at which
// offset. ok is false when no read has failed.
func (c *Cursor) Failure() (what string, at int, ok bool) {
	return c.failWhat, c.failAt, c.failed
}

// Remaining returns the number of bytes not yet read.
func (c *Cursor) Remaining() int { return len(c.Buf) - c.Off }

// Uvarint reads an unsigned varint.
func (c *Cursor) Uvarint(what string) uint64 {
	if c.failed {
		return 0
	}
	v, n := uvarint(c.Buf[c.Off:])
	if n <= 0 {
		c.Fail(what)
		return 0
	}
	c.Off += n
	return v
}

// Varint reads a signed (zig-zag) varint.
func (c *Cursor) Varint(what string) int64 {
	if c.failed {
		return 0
	}
	ux, n := uvarint(c.Buf[c.Off:])
	if n <= 0 {
		c.Fail(what)
		return 0
	}
	c.Off += n
	v := int64(ux >> 1)
	if ux&1 != 0 {
		v = ^v
	}
	return v
}

// uvarint is binary.Uvarint (same results, errors included) reading eight
// bytes at a time when b holds ten: the row encodings are full of long
// varints (microsecond timestamps, and the MinInt64 and MaxInt64 of live
// deletions and of no expiry, ten bytes each), which a byte loop decodes
// slowly.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1 // lengths, counts, kinds: most varints
	}
	if len(b) < binary.MaxVarintLen64 {
		return binary.Uvarint(b)
	}
	x := binary.LittleEndian.Uint64(b)
	if x|1 == math.MaxUint64 && b[8] == 0xff && b[9] == 1 {
		// The zig-zag forms of math.MinInt64 and math.MaxInt64 (live
		// deletions, no expiry, no deletion time): eight bytes that are
		// the value itself, then ff 01.
		return x, 10
	}
	if m := ^x & 0x8080808080808080; m != 0 {
		// The varint ends in byte n-1 (n <= 8): drop the bytes after it.
		n := bits.TrailingZeros64(m)/8 + 1
		if n < 8 {
			x &= 1<<(8*n) - 1
		}
		return compact7(x), n
	}
	// Eight continuation bytes: 56 bits, then one or two more bytes.
	v := compact7(x)
	if b8 := b[8]; b8 < 0x80 {
		return v | uint64(b8)<<56, 9
	} else if b9 := b[9]; b9 < 0x80 {
		if b9 > 1 {
			return 0, -10 // overflow, as binary.Uvarint
		}
		return v | uint64(b8&0x7f)<<56 | uint64(b9)<<63, 10
	}
	if len(b) == binary.MaxVarintLen64 {
		return 0, 0 // the input ends inside the varint
	}
	return 0, -11 // overflow: more than ten bytes
}

// compact7 gathers the low seven bits of each byte of x, least
// significant first.
func compact7(x uint64) uint64 {
	return x&0x7f | x>>1&0x3f80 | x>>2&0x1fc000 | x>>3&0xfe00000 |
		x>>4&0x7f0000000 | x>>5&0x3f800000000 | x>>6&0x1fc0000000000 | x>>7&0xfe000000000000
}

// Byte reads one byte.
func (c *Cursor) Byte(what string) byte {
	if c.failed {
		return 0
	}
	if c.Off >= len(c.Buf) {
		c.Fail(what)
		return 0
	}
	b := c.Buf[c.Off]
	c.Off++
	return b
}

// Raw reads the next n bytes.
func (c *Cursor) Raw(n uint64, what string) []byte {
	if c.failed {
		return nil
	}
	if n > uint64(len(c.Buf)-c.Off) {
		c.Fail(what)
		return nil
	}
	s := c.Buf[c.Off : c.Off+int(n) : c.Off+int(n)]
	c.Off += int(n)
	return s
}

// Bytes reads a uvarint length and that many bytes. An empty string reads
// as a non-nil empty slice.
func (c *Cursor) Bytes(what string) []byte { return c.Raw(c.Uvarint(what), what) }

// Count reads an element count (a uvarint) and fails unless that many
// elements, each at least minSize bytes long, fit in the remaining input;
// it guards allocations against corrupt counts.
func (c *Cursor) Count(what string, minSize int) int {
	n := c.Uvarint(what)
	// n*minSize > Remaining, without a division (n is at most a few
	// bytes' worth once it is known not to exceed Remaining).
	if rem := uint64(c.Remaining()); !c.failed && (n > rem || n*uint64(minSize) > rem) {
		c.Fail(what)
		return 0
	}
	return int(n)
}
