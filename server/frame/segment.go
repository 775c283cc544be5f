package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/pierrec/lz4/v4"
)

// Protocol v5 segments. After the handshake of a v5 connection (the reply
// to STARTUP), both directions carry frames ("envelopes") inside segments,
// as Cassandra's FrameEncoderCrc / FrameEncoderLZ4 and their decoders
// write and read them. All segment integers are little-endian.
//
// Uncompressed segment:
//
//	bytes 0-2  header: bits 0-16 payload length, bit 17 self-contained,
//	           bits 18-23 padding (zero)
//	bytes 3-5  CRC24 of bytes 0-2
//	payload    at most MaxSegmentPayload bytes
//	4 bytes    CRC32 of the payload
//
// LZ4 segment (STARTUP asked for COMPRESSION lz4):
//
//	bytes 0-4  header: bits 0-16 compressed length, bits 17-33 uncompressed
//	           length (0: the payload is stored uncompressed), bit 34
//	           self-contained, bits 35-39 padding
//	bytes 5-7  CRC24 of bytes 0-4
//	payload    the compressed length of bytes: an LZ4 block, no size prefix
//	4 bytes    CRC32 of the (compressed) payload
//
// A self-contained segment holds one or more whole envelopes. An envelope
// longer than a segment's payload is cut into consecutive segments that are
// not self-contained and hold only that envelope's bytes.
//
// CRC24 uses polynomial 0x1974F0B, initial value 0x875060, and reads the
// header bytes least significant bit first; CRC32 is IEEE CRC-32 primed
// with the bytes FA 2D 55 CA (Cassandra's net/Crc.java).
//
// Worked example: an empty self-contained uncompressed segment is
//
//	00 00 02    length 0, self-contained
//	xx xx xx    CRC24 of 00 00 02
//	(no payload)
//	yy yy yy yy CRC32 of nothing (the CRC of the primer alone)
const (
	// MaxSegmentPayload is the largest (uncompressed) segment payload.
	MaxSegmentPayload = 1<<17 - 1
	// SegmentHeaderSize and LZ4SegmentHeaderSize are the header sizes of the
	// two segment formats, CRC24 included; SegmentTrailerSize is the CRC32.
	SegmentHeaderSize    = 6
	LZ4SegmentHeaderSize = 8
	SegmentTrailerSize   = 4
)

const (
	crc24Init = 0x875060
	crc24Poly = 0x1974F0B
)

// crc32Primer is the CRC32 state after the bytes FA 2D 55 CA.
var crc32Primer = crc32.Update(0, crc32.IEEETable, []byte{0xFA, 0x2D, 0x55, 0xCA})

// crc24 computes the CRC24 of the low n bytes of v, least significant byte
// first.
func crc24(v uint64, n int) uint32 {
	crc := uint32(crc24Init)
	for ; n > 0; n-- {
		crc ^= uint32(v&0xff) << 16
		v >>= 8
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= crc24Poly
			}
		}
	}
	return crc & 0xFFFFFF
}

func payloadCRC(b []byte) uint32 { return crc32.Update(crc32Primer, crc32.IEEETable, b) }

// ErrCorruptSegment is wrapped by the errors of a segment whose header or
// payload CRC does not match.
var ErrCorruptSegment = errors.New("frame: corrupt segment")

// CRCError is a CRC mismatch in a segment's header (Header set) or payload.
// Read and Computed are the two checksums, as Java ints print them.
type CRCError struct {
	Header         bool
	Read, Computed int32
}

// Error returns Cassandra's description, without its connection id.
func (e *CRCError) Error() string {
	where := "body"
	if e.Header {
		where = "header"
	}
	return fmt.Sprintf("invalid, unrecoverable CRC mismatch detected in frame %s. Read %d, Computed %d", where, e.Read, e.Computed)
}

// Unwrap makes errors.Is(err, ErrCorruptSegment) hold.
func (e *CRCError) Unwrap() error { return ErrCorruptSegment }

// SegmentHeader is a decoded segment header.
type SegmentHeader struct {
	// Length is the number of payload bytes on the wire (compressed, for an
	// LZ4 segment that is compressed).
	Length int
	// Uncompressed is the payload length after decompression: 0 for an LZ4
	// segment stored uncompressed, and for every uncompressed segment.
	Uncompressed int
	// SelfContained is set when the payload holds whole envelopes.
	SelfContained bool
}

// PayloadSize returns the size of the decoded payload.
func (h SegmentHeader) PayloadSize() int {
	if h.Uncompressed > 0 {
		return h.Uncompressed
	}
	return h.Length
}

// HeaderSizeOf returns the segment header size of the format: LZ4 or not.
func HeaderSizeOf(lz4 bool) int {
	if lz4 {
		return LZ4SegmentHeaderSize
	}
	return SegmentHeaderSize
}

// ParseSegmentHeader decodes and checks the segment header at the start of
// b, in the LZ4 format when lz4 is set. A CRC mismatch is a *CRCError.
func ParseSegmentHeader(b []byte, lz4 bool) (SegmentHeader, error) {
	n := HeaderSizeOf(lz4)
	if len(b) < n {
		return SegmentHeader{}, fmt.Errorf("%w: segment header needs %d bytes, have %d", ErrShortBuffer, n, len(b))
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if lz4 {
		read, computed := uint32(v>>40)&0xFFFFFF, crc24(v, 5)
		if read != computed {
			return SegmentHeader{}, &CRCError{Header: true, Read: int32(read), Computed: int32(computed)}
		}
		h := SegmentHeader{Length: int(v & 0x1FFFF), Uncompressed: int(v>>17) & 0x1FFFF, SelfContained: v&(1<<34) != 0}
		return h, nil
	}
	read, computed := uint32(v>>24)&0xFFFFFF, crc24(v, 3)
	if read != computed {
		return SegmentHeader{}, &CRCError{Header: true, Read: int32(read), Computed: int32(computed)}
	}
	return SegmentHeader{Length: int(v & 0x1FFFF), SelfContained: v&(1<<17) != 0}, nil
}

// DecodeSegmentPayload checks the CRC32 of a segment's payload and returns
// the payload, decompressed if the header says so. rest holds the payload
// and the trailer (h.Length + SegmentTrailerSize bytes). An uncompressed
// payload aliases rest; a decompressed one is appended to dst[:0].
func DecodeSegmentPayload(h SegmentHeader, rest, dst []byte) ([]byte, error) {
	if len(rest) < h.Length+SegmentTrailerSize {
		return nil, fmt.Errorf("%w: segment needs %d bytes, have %d", ErrShortBuffer, h.Length+SegmentTrailerSize, len(rest))
	}
	payload := rest[:h.Length:h.Length]
	read := binary.LittleEndian.Uint32(rest[h.Length:])
	if computed := payloadCRC(payload); read != computed {
		return nil, &CRCError{Read: int32(read), Computed: int32(computed)}
	}
	if h.Uncompressed == 0 {
		return payload, nil
	}
	if cap(dst) < h.Uncompressed {
		dst = make([]byte, h.Uncompressed)
	}
	dst = dst[:h.Uncompressed]
	n, err := lz4.UncompressBlock(payload, dst)
	if err != nil {
		return nil, fmt.Errorf("%w: LZ4 segment: %v", ErrInvalidValue, err)
	}
	if n != h.Uncompressed {
		return nil, fmt.Errorf("%w: LZ4 segment decompressed to %d bytes, header says %d", ErrInvalidValue, n, h.Uncompressed)
	}
	return dst, nil
}

// AppendSegment appends one segment carrying payload (at most
// MaxSegmentPayload bytes) to dst, in the LZ4 format when lz4 is set. An
// LZ4 payload that does not shrink is stored uncompressed, as Cassandra
// does.
func AppendSegment(dst, payload []byte, selfContained, lz4 bool) []byte {
	if len(payload) > MaxSegmentPayload {
		panic(fmt.Sprintf("frame: segment payload of %d bytes", len(payload)))
	}
	if !lz4 {
		h := uint64(len(payload))
		if selfContained {
			h |= 1 << 17
		}
		h |= uint64(crc24(h, 3)) << 24
		dst = appendLE(dst, h, SegmentHeaderSize)
		dst = append(dst, payload...)
		return binary.LittleEndian.AppendUint32(dst, payloadCRC(payload))
	}
	start := len(dst)
	dst = appendLE(dst, 0, LZ4SegmentHeaderSize)
	n := compressInto(&dst, payload)
	uncompressed := len(payload)
	if n == 0 {
		dst = append(dst, payload...)
		n, uncompressed = len(payload), 0
	}
	h := uint64(n) | uint64(uncompressed)<<17
	if selfContained {
		h |= 1 << 34
	}
	h |= uint64(crc24(h, 5)) << 40
	binary.LittleEndian.PutUint64(dst[start:], h)
	return binary.LittleEndian.AppendUint32(dst, payloadCRC(dst[start+LZ4SegmentHeaderSize:]))
}

// compressInto appends the LZ4 block of src to *dst and returns its length,
// or 0 (appending nothing) when the block would not be smaller than src.
func compressInto(dst *[]byte, src []byte) int {
	if len(src) == 0 {
		return 0
	}
	b := *dst
	start := len(b)
	bound := lz4.CompressBlockBound(len(src))
	if cap(b)-start < bound {
		nb := make([]byte, start, start+bound+SegmentTrailerSize)
		copy(nb, b)
		b = nb
	}
	n, err := lz4.CompressBlock(src, b[start:start+bound], nil)
	if err != nil || n == 0 || n >= len(src) {
		*dst = b[:start]
		return 0
	}
	*dst = b[:start+n]
	return n
}

// AppendSegments appends an envelope (or several whole ones) as segments:
// one self-contained segment when it fits, else consecutive segments that
// are not self-contained, each with at most MaxSegmentPayload bytes.
func AppendSegments(dst, envelopes []byte, lz4 bool) []byte {
	if len(envelopes) <= MaxSegmentPayload {
		return AppendSegment(dst, envelopes, true, lz4)
	}
	for len(envelopes) > 0 {
		n := min(len(envelopes), MaxSegmentPayload)
		dst = AppendSegment(dst, envelopes[:n], false, lz4)
		envelopes = envelopes[n:]
	}
	return dst
}

func appendLE(dst []byte, v uint64, n int) []byte {
	for i := range n {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// LZ4 bodies of protocol v4 and below: a compressed frame body is the
// uncompressed length as a big-endian [int], then an LZ4 block, as
// Cassandra's transport Compressor.LZ4Compressor writes it.

// AppendLZ4Body appends the v4 LZ4 compression of body to dst.
func AppendLZ4Body(dst, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
	if len(body) == 0 {
		return dst
	}
	start := len(dst)
	bound := lz4.CompressBlockBound(len(body))
	if cap(dst)-start < bound {
		nb := make([]byte, start, start+bound)
		copy(nb, dst)
		dst = nb
	}
	n, err := lz4.CompressBlock(body, dst[start:start+bound], nil)
	if err != nil || n == 0 {
		// Incompressible: an LZ4 block of literals only, which the block
		// format always allows.
		return appendLiteralBlock(dst[:start], body)
	}
	return dst[:start+n]
}

// appendLiteralBlock appends body as an LZ4 block made of one literal run.
func appendLiteralBlock(dst, body []byte) []byte {
	n := len(body)
	if n < 15 {
		dst = append(dst, byte(n<<4))
	} else {
		dst = append(dst, 0xF0)
		for n -= 15; n >= 255; n -= 255 {
			dst = append(dst, 255)
		}
		dst = append(dst, byte(n))
	}
	return append(dst, body...)
}

// LZ4BodyLen returns the uncompressed length a v4 LZ4 body announces.
func LZ4BodyLen(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, fmt.Errorf("%w: LZ4 body of %d bytes", ErrShortBuffer, len(b))
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 {
		return 0, fmt.Errorf("%w: LZ4 body of negative length %d", ErrInvalidValue, n)
	}
	return int(n), nil
}

// DecodeLZ4Body decompresses a v4 LZ4 body. The caller bounds the
// announced length (LZ4BodyLen) first.
func DecodeLZ4Body(b []byte) ([]byte, error) {
	n, err := LZ4BodyLen(b)
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	m, err := lz4.UncompressBlock(b[4:], out)
	if err != nil {
		return nil, fmt.Errorf("%w: LZ4 body: %v", ErrInvalidValue, err)
	}
	if m != n {
		return nil, fmt.Errorf("%w: LZ4 body decompressed to %d bytes, announced %d", ErrInvalidValue, m, n)
	}
	return out, nil
}
