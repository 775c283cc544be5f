package sstable

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Codec is a chunk compression algorithm of Data.db.
type Codec uint8

// The codecs. The values (except CodecDefault, which is never stored) are
// written in CompressionInfo.db and are part of the file format.
const (
	// CodecDefault selects DefaultCodec; it is what the zero Compression
	// means.
	CodecDefault Codec = 0
	// CodecNone stores chunks uncompressed (still with their CRC32C).
	CodecNone Codec = 1
	// CodecS2 is klauspost/compress S2 block compression.
	CodecS2 Codec = 2
	// CodecSnappy is Snappy block compression (written by S2's Snappy
	// compatible encoder).
	CodecSnappy Codec = 3
	// CodecZstd is Zstandard at its default level.
	CodecZstd Codec = 4
)

// DefaultCodec is the codec used when none is chosen, and the one
// Cassandra's LZ4Compressor (its default) maps to. Measured with
// BenchmarkWrite on synthetic rows, S2 and Snappy are equal within noise
// (ratio 0.274 on wide partitions, about 150 MB/s of row data on a shared
// 2-core machine); S2 is kept because it is the maintained format of
// klauspost/compress and its block decoder also reads Snappy blocks.
const DefaultCodec = CodecS2

// String returns the codec's name.
func (c Codec) String() string {
	switch c {
	case CodecDefault:
		return "default"
	case CodecNone:
		return "none"
	case CodecS2:
		return "s2"
	case CodecSnappy:
		return "snappy"
	case CodecZstd:
		return "zstd"
	}
	return "Codec(" + strconv.Itoa(int(c)) + ")"
}

// DefaultChunkLength is the uncompressed size of a Data.db chunk, as
// Cassandra's default chunk_length_in_kb of 16.
const DefaultChunkLength = 16 << 10

// maxChunkLength bounds the chunk length a file may declare, so a corrupt
// CompressionInfo.db cannot make a reader allocate without limit.
const maxChunkLength = 64 << 20

// Compression is the chunk compression of a Data.db file. The zero value is
// DefaultCodec with DefaultChunkLength.
type Compression struct {
	Codec Codec
	// ChunkLength is the uncompressed length of a chunk in bytes, a power
	// of two (0 means DefaultChunkLength).
	ChunkLength int
}

func (c Compression) withDefaults() Compression {
	if c.Codec == CodecDefault {
		c.Codec = DefaultCodec
	}
	if c.ChunkLength == 0 {
		c.ChunkLength = DefaultChunkLength
	}
	return c
}

func (c Compression) validate() error {
	if c.Codec > CodecZstd {
		return fmt.Errorf("%w: unknown codec %d", ErrInvalidOptions, c.Codec)
	}
	if c.ChunkLength <= 0 || c.ChunkLength&(c.ChunkLength-1) != 0 || c.ChunkLength > maxChunkLength {
		return fmt.Errorf("%w: chunk length %d must be a power of 2 up to %d", ErrInvalidOptions, c.ChunkLength, maxChunkLength)
	}
	return nil
}

// compressorClasses maps Cassandra compressor classes (short names; full
// names are reduced to them) to codecs. LZ4Compressor, Cassandra's default,
// has no implementation in klauspost/compress and maps to DefaultCodec;
// DeflateCompressor maps to Zstd, the closest ratio-oriented codec. Both are
// recorded in docs/compatibility.md.
var compressorClasses = map[string]Codec{
	"LZ4Compressor":     DefaultCodec,
	"SnappyCompressor":  CodecSnappy,
	"ZstdCompressor":    CodecZstd,
	"DeflateCompressor": CodecZstd,
	"NoopCompressor":    CodecNone,
}

// compressionOptionKeys are the keys of the compression map this package
// understands; Cassandra accepts some more per compressor (such as
// compression_level for Zstd, lz4_high_compressor_level) which are accepted
// and ignored.
var ignoredCompressionKeys = map[string]bool{
	"crc_check_chance":          true,
	"min_compress_ratio":        true,
	"compression_level":         true,
	"lz4_compressor_type":       true,
	"lz4_high_compressor_level": true,
	"max_compressed_length":     true,
}

// CompressionFromOptions maps a table's compression option map, as in
// WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '16'},
// to a Compression. {'enabled': 'false'} selects CodecNone. Class names may
// be short or fully qualified (org.apache.cassandra.io.compress.X). An
// unknown class fails with Cassandra's message, "Could not create
// Compression for type org.apache.cassandra.io.compress.X"; a chunk length
// that is not a positive power of two fails as Cassandra's does. A nil or
// empty map gives the default (LZ4Compressor, 16 KiB).
func CompressionFromOptions(opts map[string]string) (Compression, error) {
	out := Compression{Codec: DefaultCodec, ChunkLength: DefaultChunkLength}
	if v, ok := opts["enabled"]; ok && !strings.EqualFold(strings.TrimSpace(v), "true") {
		out.Codec = CodecNone
		return out, nil
	}
	if v, ok := opts["chunk_length_in_kb"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return Compression{}, fmt.Errorf("%w: Invalid value for chunk_length_in_kb", ErrInvalidOptions)
		}
		if n <= 0 {
			return Compression{}, fmt.Errorf("%w: Invalid negative or null chunk_length_in_kb", ErrInvalidOptions)
		}
		if n&(n-1) != 0 {
			return Compression{}, fmt.Errorf("%w: chunk_length_in_kb must be a power of 2", ErrInvalidOptions)
		}
		if n > maxChunkLength>>10 {
			return Compression{}, fmt.Errorf("%w: Value of chunk_length_in_kb is too large (%d)", ErrInvalidOptions, n)
		}
		out.ChunkLength = n << 10
	}
	class, hasClass := opts["class"]
	if hasClass {
		if class == "" {
			return Compression{}, fmt.Errorf("%w: The 'class' option must not be empty. To disable compression use 'enabled' : false", ErrInvalidOptions)
		}
		short := class
		if i := strings.LastIndexByte(class, '.'); i >= 0 {
			if class[:i] != "org.apache.cassandra.io.compress" {
				return Compression{}, fmt.Errorf("%w: Could not create Compression for type %s", ErrInvalidOptions, class)
			}
			short = class[i+1:]
		}
		codec, ok := compressorClasses[short]
		if !ok {
			return Compression{}, fmt.Errorf("%w: Could not create Compression for type org.apache.cassandra.io.compress.%s", ErrInvalidOptions, short)
		}
		out.Codec = codec
	}
	for k := range opts {
		switch {
		case k == "class" || k == "enabled" || k == "chunk_length_in_kb" || ignoredCompressionKeys[k]:
		default:
			return Compression{}, fmt.Errorf("%w: Unknown compression options %s", ErrInvalidOptions, k)
		}
	}
	return out, nil
}

var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdDec  *zstd.Decoder
	zstdErr  error
)

// zstdCodecs returns the process-wide Zstd encoder and decoder; their
// EncodeAll and DecodeAll methods are safe for concurrent use.
func zstdCodecs() (*zstd.Encoder, *zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdEnc, zstdErr = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if zstdErr != nil {
			return
		}
		zstdDec, zstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxChunkLength))
	})
	return zstdEnc, zstdDec, zstdErr
}

// compressChunk appends the compressed form of src to dst.
func compressChunk(c Codec, dst, src []byte) ([]byte, error) {
	switch c {
	case CodecNone:
		return append(dst, src...), nil
	case CodecS2:
		n := s2.MaxEncodedLen(len(src))
		dst = grow(dst, n)
		out := s2.Encode(dst[len(dst):len(dst)+n], src)
		return dst[:len(dst)+len(out)], nil
	case CodecSnappy:
		n := s2.MaxEncodedLen(len(src))
		dst = grow(dst, n)
		out := s2.EncodeSnappy(dst[len(dst):len(dst)+n], src)
		return dst[:len(dst)+len(out)], nil
	case CodecZstd:
		enc, _, err := zstdCodecs()
		if err != nil {
			return nil, err
		}
		return enc.EncodeAll(src, dst), nil
	}
	return nil, fmt.Errorf("%w: unknown codec %d", ErrInvalidOptions, c)
}

var errDecodedLength = errors.New("decoded length differs from the chunk length")

// decompressChunk decompresses src, whose uncompressed length must be n,
// into dst[:0] and returns it.
// decompressChunkPrefix is decompressChunk returning only the first need
// bytes of the n when need < n and the codec can stop early (S2 and
// Snappy); other codecs decode in full.
func decompressChunkPrefix(c Codec, dst, src []byte, n, need int) ([]byte, error) {
	if need >= n || (c != CodecS2 && c != CodecSnappy) {
		return decompressChunk(c, dst, src, n)
	}
	if l, err := s2.DecodedLen(src); err != nil {
		return nil, err
	} else if l != n {
		return nil, errDecodedLength
	}
	return s2DecodePrefix(dst, src, need)
}

func decompressChunk(c Codec, dst, src []byte, n int) ([]byte, error) {
	switch c {
	case CodecNone:
		if len(src) != n {
			return nil, errDecodedLength
		}
		return append(dst[:0], src...), nil
	case CodecS2, CodecSnappy:
		l, err := s2.DecodedLen(src)
		if err != nil {
			return nil, err
		}
		if l != n {
			return nil, errDecodedLength
		}
		dst = grow(dst[:0], n)
		return s2.Decode(dst[:n], src)
	case CodecZstd:
		_, dec, err := zstdCodecs()
		if err != nil {
			return nil, err
		}
		out, err := dec.DecodeAll(src, dst[:0])
		if err != nil {
			return nil, err
		}
		if len(out) != n {
			return nil, errDecodedLength
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown codec %d", c)
}

// grow returns b with room for n more bytes.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n+len(b)/4)
	copy(nb, b)
	return nb
}
