package frame

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// v5Messages are frames of protocol v5 using its new fields.
func v5Messages() []Frame {
	req := func(m Message) Frame { return Frame{Header: Header{Version: RequestVersion(5), Stream: 3}, Message: m} }
	resp := func(m Message) Frame {
		return Frame{Header: Header{Version: ResponseVersion(5), Stream: 3}, Message: m}
	}
	cols := []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}, {Keyspace: "ks", Table: "t", Name: "d", Type: types.DurationType}}
	return []Frame{
		req(&Query{Query: "SELECT * FROM t", Params: QueryParams{Consistency: wire.One, Keyspace: "ks", NowInSeconds: 77, HasNowInSeconds: true, Version: 5}}),
		req(&Prepare{Query: "SELECT * FROM t", Keyspace: "ks"}),
		req(&Prepare{Query: "SELECT * FROM ks.t"}),
		req(&Execute{ID: []byte{1}, ResultMetadataID: []byte{2, 3}, Params: QueryParams{Consistency: wire.One, SkipMetadata: true, Version: 5, ResultMetadataID: []byte{2, 3}}}),
		req(&Batch{Type: BatchUnlogged, Entries: []BatchEntry{{Query: "INSERT INTO t (k) VALUES (1)", Values: [][]byte{}}},
			Consistency: wire.One, Keyspace: "ks", NowInSeconds: 5, HasNowInSeconds: true}),
		resp(&Result{Kind: wire.ResultRows, Columns: cols, Rows: [][][]byte{{{0, 0, 0, 1}, {2, 4, 6}}},
			MetadataChanged: true, ResultMetadataID: []byte{9, 9}}),
		resp(&Result{Kind: wire.ResultPrepared, Prepared: &Prepared{ID: []byte{1}, ResultMetadataID: []byte{2, 3},
			Bind: cols[:1], PKIndexes: []uint16{0}, ResultCols: cols}}),
		resp(&Error{Code: wire.CodeReadFailure, Message: "r", Consistency: wire.Quorum, Received: 1, BlockFor: 2, NumFailures: 1,
			Reasons: []FailureReason{{Addr: netip.MustParseAddr("127.0.0.1"), Code: 1}}, DataPresent: true}),
		resp(&Error{Code: wire.CodeWriteFailure, Message: "w", Consistency: wire.One, Received: 0, BlockFor: 1, NumFailures: 1,
			Reasons: []FailureReason{{Addr: netip.MustParseAddr("::1"), Code: 0}}, WriteType: "SIMPLE"}),
		resp(&Error{Code: wire.CodeCASWriteUnknown, Message: "cas", Consistency: wire.Serial, Received: 1, BlockFor: 2}),
	}
}

func TestV5RoundTrip(t *testing.T) {
	for _, f := range v5Messages() {
		t.Run(f.Message.Opcode().String(), func(t *testing.T) {
			b, err := f.AppendTo(nil)
			require.NoError(t, err)
			h, err := ParseHeader(b)
			require.NoError(t, err)
			back, err := Decode(h, b[HeaderSize:])
			require.NoError(t, err)
			assert.Equal(t, f.Message, back.Message)
		})
	}
}

func TestV5Bytes(t *testing.T) {
	// v5 query flags are an [int]; keyspace and now_in_seconds follow the
	// timestamp.
	f := Frame{Header: Header{Version: RequestVersion(5)}, Message: &Query{Query: "q",
		Params: QueryParams{Consistency: wire.One, Keyspace: "ks", NowInSeconds: 1, HasNowInSeconds: true}}}
	b, err := f.AppendTo(nil)
	require.NoError(t, err)
	assert.Equal(t, "05000000070000001300000001710001000001800002"+hex.EncodeToString([]byte("ks"))+"00000001", hex.EncodeToString(b))

	// The Rows metadata of a changed result: flag 0x0008, then the new id
	// after the column count.
	f = Frame{Header: Header{Version: ResponseVersion(5)}, Message: &Result{Kind: wire.ResultRows,
		Columns: []ColumnSpec{{Keyspace: "k", Table: "t", Name: "c", Type: types.IntType}}, MetadataChanged: true, ResultMetadataID: []byte{0xaa}}}
	b, err = f.AppendTo(nil)
	require.NoError(t, err)
	assert.Equal(t, "00000002"+"00000009"+"00000001"+"0001aa"+"0001"+"6b"+"000174"+"000163"+"0009"+"00000000", hex.EncodeToString(b[HeaderSize:]))

	// v3 has no pk indexes in Prepared, and sends date as a custom type.
	f = Frame{Header: Header{Version: ResponseVersion(3)}, Message: &Result{Kind: wire.ResultPrepared, Prepared: &Prepared{ID: []byte{1},
		Bind: []ColumnSpec{{Keyspace: "k", Table: "t", Name: "d", Type: types.DateType}}, PKIndexes: []uint16{0}}}}
	b, err = f.AppendTo(nil)
	require.NoError(t, err)
	class := "org.apache.cassandra.db.marshal.SimpleDateType"
	assert.Equal(t, "00000004"+"000101"+"00000001"+"00000001"+"00016b000174"+"000164"+"0000"+hex.EncodeToString([]byte{0, byte(len(class))})+
		hex.EncodeToString([]byte(class))+"0000000400000000", hex.EncodeToString(b[HeaderSize:]))
	// Warnings are not sent before v4.
	f = Frame{Header: Header{Version: ResponseVersion(3)}, Warnings: []string{"w"}, Message: &Ready{}}
	b, err = f.AppendTo(nil)
	require.NoError(t, err)
	assert.Equal(t, "830000000200000000", hex.EncodeToString(b))
}

func TestResultMetadataID(t *testing.T) {
	// No columns: the MD5 of nothing, Cassandra's ResultMetadata.EMPTY id.
	assert.Equal(t, "d41d8cd98f00b204e9800998ecf8427e", hex.EncodeToString(ResultMetadataID(nil)))
	a := ResultMetadataID([]ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}})
	b := ResultMetadataID([]ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.IntType}, {Keyspace: "ks", Table: "t", Name: "v", Type: types.TextType}})
	c := ResultMetadataID([]ColumnSpec{{Keyspace: "ks", Table: "t", Name: "k", Type: types.BigintType}})
	assert.NotEqual(t, a, b)
	assert.NotEqual(t, a, c)
	assert.Equal(t, a, ResultMetadataID([]ColumnSpec{{Keyspace: "other", Table: "u", Name: "k", Type: types.IntType}}), "names and types only, as Cassandra")
}

func segmentPayloads(rng *rand.Rand) [][]byte {
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	return [][]byte{{}, {1}, bytes.Repeat([]byte("abc"), 1000), random(1000), random(MaxSegmentPayload),
		bytes.Repeat([]byte{7}, MaxSegmentPayload)}
}

func TestSegmentRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lz := range []bool{false, true} {
		for _, p := range segmentPayloads(rng) {
			for _, sc := range []bool{false, true} {
				seg := AppendSegment([]byte("prefix"), p, sc, lz)[len("prefix"):]
				h, err := ParseSegmentHeader(seg, lz)
				require.NoError(t, err)
				assert.Equal(t, sc, h.SelfContained)
				assert.Len(t, seg, HeaderSizeOf(lz)+h.Length+SegmentTrailerSize)
				got, err := DecodeSegmentPayload(h, seg[HeaderSizeOf(lz):], nil)
				require.NoError(t, err)
				assert.Equal(t, len(p), len(got))
				assert.True(t, bytes.Equal(p, got), "lz4 %v, %d bytes", lz, len(p))
				if lz && len(p) == 3000 {
					assert.Less(t, h.Length, 100, "compressible payload compressed")
				}
			}
		}
	}
}

func TestSegmentsSplit(t *testing.T) {
	env := bytes.Repeat([]byte{1, 2, 3}, MaxSegmentPayload)
	for _, lz := range []bool{false, true} {
		b := AppendSegments(nil, env, lz)
		var got []byte
		n := 0
		for len(b) > 0 {
			h, err := ParseSegmentHeader(b, lz)
			require.NoError(t, err)
			assert.False(t, h.SelfContained)
			p, err := DecodeSegmentPayload(h, b[HeaderSizeOf(lz):], nil)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(p), MaxSegmentPayload)
			got = append(got, p...)
			b = b[HeaderSizeOf(lz)+h.Length+SegmentTrailerSize:]
			n++
		}
		assert.Equal(t, 3, n)
		assert.Equal(t, env, got)
	}
}

func TestSegmentCorrupt(t *testing.T) {
	for _, lz := range []bool{false, true} {
		seg := AppendSegment(nil, []byte("hello world"), true, lz)
		bad := bytes.Clone(seg)
		bad[0] ^= 1
		_, err := ParseSegmentHeader(bad, lz)
		var ce *CRCError
		require.ErrorAs(t, err, &ce)
		assert.True(t, ce.Header)
		assert.True(t, errors.Is(err, ErrCorruptSegment))
		assert.Contains(t, err.Error(), "invalid, unrecoverable CRC mismatch detected in frame header. Read ")

		bad = bytes.Clone(seg)
		bad[len(bad)-6] ^= 0x40
		h, err := ParseSegmentHeader(bad, lz)
		require.NoError(t, err)
		_, err = DecodeSegmentPayload(h, bad[HeaderSizeOf(lz):], nil)
		require.ErrorAs(t, err, &ce)
		assert.False(t, ce.Header)
		assert.Contains(t, err.Error(), "detected in frame body")

		_, err = DecodeSegmentPayload(h, seg[HeaderSizeOf(lz):len(seg)-1], nil)
		assert.ErrorIs(t, err, ErrShortBuffer)
	}
}

func TestLZ4Body(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range segmentPayloads(rng) {
		b := AppendLZ4Body(nil, p)
		n, err := LZ4BodyLen(b)
		require.NoError(t, err)
		assert.Equal(t, len(p), n)
		got, err := DecodeLZ4Body(b)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(p, got))
	}
	_, err := DecodeLZ4Body([]byte{0, 0, 0, 9, 0xff})
	assert.ErrorIs(t, err, ErrInvalidValue)
	_, err = DecodeLZ4Body([]byte{0x80, 0, 0, 0})
	assert.ErrorIs(t, err, ErrInvalidValue)
}

// FuzzSegmentDecode feeds arbitrary bytes as a segment of either format.
// Properties: decoding never panics; a segment that decodes re-encodes to
// one that decodes to the same payload and flag.
func FuzzSegmentDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range segmentPayloads(rng)[:4] {
		f.Add(AppendSegment(nil, p, true, false), false)
		f.Add(AppendSegment(nil, p, false, true), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, lz bool) {
		h, err := ParseSegmentHeader(b, lz)
		if err != nil {
			return
		}
		p, err := DecodeSegmentPayload(h, b[HeaderSizeOf(lz):], nil)
		if err != nil {
			return
		}
		again := AppendSegment(nil, p, h.SelfContained, lz)
		h2, err := ParseSegmentHeader(again, lz)
		if err != nil {
			t.Fatalf("re-encoded header: %v", err)
		}
		p2, err := DecodeSegmentPayload(h2, again[HeaderSizeOf(lz):], nil)
		if err != nil || !bytes.Equal(p, p2) || h2.SelfContained != h.SelfContained {
			t.Fatalf("re-encoded segment: %v", err)
		}
	})
}

// FuzzLZ4Body feeds arbitrary bytes as a v4 LZ4 body. Properties: decoding
// never panics; a body that decodes re-encodes to one that decodes equal.
func FuzzLZ4Body(f *testing.F) {
	f.Add(AppendLZ4Body(nil, []byte("hello hello hello hello")))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := LZ4BodyLen(b); err != nil || n > 1<<20 {
			return // the server refuses these before decompressing
		}
		p, err := DecodeLZ4Body(b)
		if err != nil {
			return
		}
		p2, err := DecodeLZ4Body(AppendLZ4Body(nil, p))
		if err != nil || !bytes.Equal(p, p2) {
			t.Fatalf("re-encoded body: %v", err)
		}
	})
}
