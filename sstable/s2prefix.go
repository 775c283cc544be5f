package sstable

import (
	"encoding/binary"
	"errors"
)

// This file decodes a prefix of an S2 (or Snappy) block: the first n bytes
// of what s2.Decode would return, without decoding the rest. A read that
// needs only the start of a chunk (a partition's last rows are followed,
// in the same chunk, by the next partitions' rows) then pays for the bytes
// it uses: a reverse read of a partition's last segment decodes its chunk
// up to the partition's end, into a buffer of that size.
//
// The block format (Snappy's, with S2's repeat extension) is a uvarint of
// the decoded length, then elements, each starting with a tag byte whose
// two low bits give its kind:
//
//	00 literal: length-1 in the tag's upper six bits when below 60, else
//	   in the 1-4 little-endian bytes after the tag (60-63); the literal
//	   bytes follow.
//	01 copy with a 1-byte offset: length-4 in tag bits 2-4, offset bits
//	   8-10 in tag bits 5-7 and bits 0-7 in the next byte. Offset 0 (S2's
//	   extension) repeats the last offset: length codes 0-4 mean 4-8
//	   bytes, 5 takes one more byte b (b+8), 6 two (b+260), 7 three
//	   (b+65540).
//	10 copy with a 2-byte little-endian offset, length-1 in the tag's upper
//	   six bits.
//	11 copy with a 4-byte little-endian offset, likewise.
//
// A copy's offset counts back from the current output position and may be
// shorter than its length (the copy then repeats its own output).

// errS2Corrupt reports a block that cannot be decoded.
var errS2Corrupt = errors.New("s2: corrupt block")

// s2DecodePrefix decodes the first n bytes of the S2 block src into
// dst[:n] (a new buffer if dst is too small) and returns them. n must not
// exceed the block's decoded length. Elements past the n-th byte are not
// read, so corruption there goes unnoticed: the chunk's CRC guards it.
func s2DecodePrefix(dst, src []byte, n int) ([]byte, error) {
	total, l := binary.Uvarint(src)
	if l <= 0 || n < 0 || uint64(n) > total {
		return nil, errS2Corrupt
	}
	dst = grow(dst[:0], n)[:n]
	s, d, offset := l, 0, 0
	for d < n {
		if s >= len(src) {
			return nil, errS2Corrupt
		}
		tag := src[s]
		var length int
		switch tag & 3 {
		case 0: // literal
			x := int(tag >> 2)
			s++
			if x >= 60 {
				k := x - 59 // bytes of the length
				if s+k > len(src) {
					return nil, errS2Corrupt
				}
				x = 0
				for j := k - 1; j >= 0; j-- {
					x = x<<8 | int(src[s+j])
				}
				s += k
			}
			length = x + 1
			if length <= 0 || length > len(src)-s {
				return nil, errS2Corrupt
			}
			c := min(length, n-d)
			copy(dst[d:], src[s:s+c])
			d += c
			s += length
			continue
		case 1: // copy, 1-byte offset, or S2's repeat
			if s+2 > len(src) {
				return nil, errS2Corrupt
			}
			o := int(tag&0xe0)<<3 | int(src[s+1])
			length = int(tag>>2&7) + 4
			s += 2
			if o != 0 {
				offset = o
				break
			}
			switch length - 4 {
			case 5:
				if s+1 > len(src) {
					return nil, errS2Corrupt
				}
				length = int(src[s]) + 8
				s++
			case 6:
				if s+2 > len(src) {
					return nil, errS2Corrupt
				}
				length = int(binary.LittleEndian.Uint16(src[s:])) + 1<<8 + 4
				s += 2
			case 7:
				if s+3 > len(src) {
					return nil, errS2Corrupt
				}
				length = int(src[s]) | int(src[s+1])<<8 | int(src[s+2])<<16
				length += 1<<16 + 4
				s += 3
			}
		case 2: // copy, 2-byte offset
			if s+3 > len(src) {
				return nil, errS2Corrupt
			}
			length = int(tag>>2) + 1
			offset = int(binary.LittleEndian.Uint16(src[s+1:]))
			s += 3
		case 3: // copy, 4-byte offset
			if s+5 > len(src) {
				return nil, errS2Corrupt
			}
			length = int(tag>>2) + 1
			offset = int(binary.LittleEndian.Uint32(src[s+1:]))
			s += 5
		}
		if offset <= 0 || offset > d {
			return nil, errS2Corrupt
		}
		c := min(length, n-d)
		if offset >= c {
			copy(dst[d:d+c], dst[d-offset:])
		} else {
			for j := d; j < d+c; j++ {
				dst[j] = dst[j-offset]
			}
		}
		d += c
	}
	return dst, nil
}
