package server_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// v5client speaks protocol v5: a plain STARTUP, then segments.
type v5client struct {
	*client
	lz4 bool
}

func dialV5(t *testing.T, srv *server.Server, compression string) *v5client {
	c := &v5client{client: dial(t, srv), lz4: compression == "lz4"}
	opts := map[string]string{"CQL_VERSION": "3.0.0"}
	if compression != "" {
		opts["COMPRESSION"] = compression
	}
	b, err := (&frame.Frame{Header: frame.Header{Version: frame.RequestVersion(5)}, Message: &frame.Startup{Options: opts}}).AppendTo(nil)
	require.NoError(t, err)
	c.sendRaw(b)
	// The reply to STARTUP is a plain v5 frame.
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	hb := make([]byte, frame.HeaderSize)
	_, err = io.ReadFull(c.br, hb)
	require.NoError(t, err)
	h, _ := frame.ParseHeader(hb)
	require.Equal(t, frame.ResponseVersion(5), h.Version)
	body := make([]byte, h.Length)
	_, err = io.ReadFull(c.br, body)
	require.NoError(t, err)
	f, err := frame.Decode(h, body)
	require.NoError(t, err)
	if compression == "snappy" {
		requireError(t, f.Message, wire.CodeProtocol, "Snappy compression is not supported in protocol V5")
		return nil
	}
	require.IsType(t, &frame.Ready{}, f.Message)
	return c
}

func (c *v5client) envelope(stream int16, m frame.Message) []byte {
	b, err := (&frame.Frame{Header: frame.Header{Version: frame.RequestVersion(5), Stream: stream}, Message: m}).AppendTo(nil)
	require.NoError(c.t, err)
	return b
}

// recvEnvelopes reads one segment (or a run of segments completing one
// envelope) and returns the frames it holds.
func (c *v5client) recvEnvelopes() []*frame.Frame {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var payload []byte
	for {
		hb := make([]byte, frame.HeaderSizeOf(c.lz4))
		_, err := io.ReadFull(c.br, hb)
		require.NoError(c.t, err)
		sh, err := frame.ParseSegmentHeader(hb, c.lz4)
		require.NoError(c.t, err)
		rest := make([]byte, sh.Length+frame.SegmentTrailerSize)
		_, err = io.ReadFull(c.br, rest)
		require.NoError(c.t, err)
		p, err := frame.DecodeSegmentPayload(sh, rest, nil)
		require.NoError(c.t, err)
		payload = append(payload, p...)
		if sh.SelfContained {
			break
		}
		h, err := frame.ParseHeader(payload)
		require.NoError(c.t, err)
		if len(payload) == frame.HeaderSize+int(h.Length) {
			break
		}
	}
	var out []*frame.Frame
	for len(payload) > 0 {
		h, err := frame.ParseHeader(payload)
		require.NoError(c.t, err)
		end := frame.HeaderSize + int(h.Length)
		f, err := frame.Decode(h, payload[frame.HeaderSize:end])
		require.NoError(c.t, err)
		out = append(out, f)
		payload = payload[end:]
	}
	return out
}

func TestV5Segments(t *testing.T) {
	for _, compression := range []string{"", "lz4"} {
		t.Run("compression="+compression, func(t *testing.T) {
			srv := start(t, newFake(), server.Options{})
			c := dialV5(t, srv, compression)
			// Two envelopes in one self-contained segment.
			q := func(stream int16, s string) []byte {
				return c.envelope(stream, &frame.Query{Query: s, Params: frame.QueryParams{Consistency: wire.One}})
			}
			c.sendRaw(frame.AppendSegment(nil, append(q(1, "USE ks"), q(2, "USE ks")...), true, c.lz4))
			streams := map[int16]bool{}
			for len(streams) < 2 {
				for _, f := range c.recvEnvelopes() {
					assert.Equal(t, frame.ResponseVersion(5), f.Header.Version)
					require.IsType(t, &frame.Result{}, f.Message)
					streams[f.Header.Stream] = true
				}
			}
			// An envelope larger than a segment, split across three, and a
			// response that is as large.
			big := strings.Repeat("x", 300<<10)
			c.sendRaw(frame.AppendSegments(nil, q(3, "SELECT '"+big+"'"), c.lz4))
			fs := c.recvEnvelopes()
			require.Len(t, fs, 1)
			assert.Equal(t, int16(3), fs[0].Header.Stream)

			// A frame of another version on this connection is refused.
			b, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: 4}, Message: &frame.Options{}}).AppendTo(nil)
			require.NoError(t, err)
			c.sendRaw(frame.AppendSegment(nil, b, true, c.lz4))
			fs = c.recvEnvelopes()
			requireError(t, fs[0].Message, wire.CodeProtocol, "Invalid message version. Got 4/v4 but previous messages on this connection had version 5/v5")
			c.expectClosed()
		})
	}
}

func TestV5CorruptSegment(t *testing.T) {
	for _, compression := range []string{"", "lz4"} {
		for _, where := range []string{"header", "body"} {
			t.Run(compression+"/"+where, func(t *testing.T) {
				srv := start(t, newFake(), server.Options{})
				c := dialV5(t, srv, compression)
				seg := frame.AppendSegment(nil, c.envelope(1, &frame.Options{}), true, c.lz4)
				if where == "header" {
					seg[1] ^= 0x10
				} else {
					seg[len(seg)-5] ^= 0x01
				}
				c.sendRaw(seg)
				fs := c.recvEnvelopes()
				e := requireError(t, fs[0].Message, wire.CodeProtocol, "")
				assert.Regexp(t, "^[0-9a-f]{8} invalid, unrecoverable CRC mismatch detected in frame "+where+`\. Read -?\d+, Computed -?\d+$`, e.Message)
				c.expectClosed()
			})
		}
	}
}

func TestV5SnappyRefused(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	require.Nil(t, dialV5(t, srv, "snappy"))
}

func TestV5OversizeEnvelope(t *testing.T) {
	srv := start(t, newFake(), server.Options{MaxFrameSize: 200 << 10})
	c := dialV5(t, srv, "")
	env := c.envelope(6, &frame.Query{Query: strings.Repeat("x", 300<<10), Params: frame.QueryParams{Consistency: wire.One}})
	// Only the first segment is sent: the header it carries is enough to
	// refuse the envelope.
	c.sendRaw(frame.AppendSegment(nil, env[:frame.MaxSegmentPayload], false, false))
	fs := c.recvEnvelopes()
	e := requireError(t, fs[0].Message, wire.CodeInvalid, "")
	assert.True(t, strings.HasPrefix(e.Message, "Request is too big"), e.Message)
	c.expectClosed()
	assert.True(t, bytes.HasPrefix(env, []byte{5}))
}
