package frame

import (
	"testing"

	driverlz4 "github.com/apache/cassandra-gocql-driver/v2/lz4"
)

// lz4Request is the size of a typical small request body (a prepared
// INSERT's EXECUTE).
var lz4Request = []byte("INSERT INTO app.kv (k, v) VALUES (?, ?) -- a typical small request body with some bytes 0123456789")

// BenchmarkLZ4Body measures the server's v4 LZ4 body compression of a small
// body: pooled compressor state, no allocation.
func BenchmarkLZ4Body(b *testing.B) {
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		dst = AppendLZ4Body(dst[:0], lz4Request)
	}
}

// BenchmarkLZ4BodyGocqlV2 measures the same compression as gocql v2's lz4
// package does it, for comparison: it declares a fresh lz4.Compressor (a
// 136 KiB hash table) for every frame, so each compressed request costs a
// 139 KB allocation and its zeroing. This, not the server, is why lz4 is
// several times slower than no compression end to end with that driver
// (bench/RESULTS.md).
func BenchmarkLZ4BodyGocqlV2(b *testing.B) {
	b.ReportAllocs()
	var c driverlz4.LZ4Compressor
	var dst []byte
	for b.Loop() {
		var err error
		if dst, err = c.AppendCompressedWithLength(dst[:0], lz4Request); err != nil {
			b.Fatal(err)
		}
	}
}
