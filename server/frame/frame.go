package frame

import (
	"encoding/binary"
	"fmt"
)

// Frame is one protocol frame: a header, the optional body prefix and a
// message.
//
// When encoding, Header.Version, Header.Stream and any request flag such as
// FlagTracing are taken from Header; Header.Opcode and Header.Length are
// computed, and FlagTracing (responses), FlagWarning and FlagCustomPayload
// are set from TracingID, Warnings and CustomPayload. FlagCompressed is
// cleared: compression is applied to the encoded body by the caller.
type Frame struct {
	Header        Header
	TracingID     *[16]byte // responses only
	Warnings      []string  // responses only
	CustomPayload map[string][]byte
	Message       Message
}

// AppendTo appends the encoded frame, header and uncompressed body, to dst.
// On error dst is returned unchanged.
func (f *Frame) AppendTo(dst []byte) ([]byte, error) {
	start := len(dst)
	h := f.Header
	h.Opcode = f.Message.Opcode()
	h.Flags &^= FlagCompressed | FlagWarning | FlagCustomPayload
	response := h.IsResponse()
	if response {
		h.Flags &^= FlagTracing
		if f.TracingID != nil {
			h.Flags |= FlagTracing
		}
		if len(f.Warnings) > 0 {
			h.Flags |= FlagWarning
		}
	}
	v := h.ProtocolVersion()
	if v < 4 {
		// Warnings and custom payloads came with v4.
		h.Flags &^= FlagWarning
	} else if f.CustomPayload != nil {
		h.Flags |= FlagCustomPayload
	}
	w := Writer{B: AppendHeader(dst, h), V: v}
	if response && f.TracingID != nil {
		w.UUID(*f.TracingID)
	}
	if h.Flags&FlagWarning != 0 {
		w.StringList(f.Warnings)
	}
	if h.Flags&FlagCustomPayload != 0 {
		w.BytesMap(f.CustomPayload)
	}
	// A Result, the common response, is encoded through a static call so
	// that w stays on the stack; an interface call would move it to the heap.
	var err error
	if res, ok := f.Message.(*Result); ok {
		err = res.encode(&w)
	} else {
		err = encodeDynamic(f.Message, &w)
	}
	if err != nil {
		return dst[:start], err
	}
	if w.err != nil {
		return dst[:start], w.err
	}
	n := len(w.B) - start - HeaderSize
	if n > MaxSpecBodyLength {
		return dst[:start], fmt.Errorf("%w: body of %d bytes exceeds the protocol limit", ErrInvalidValue, n)
	}
	binary.BigEndian.PutUint32(w.B[start+5:], uint32(n))
	return w.B, nil
}

// encodeDynamic encodes m through the Message interface. It copies w so
// that only this path allocates a Writer on the heap.
func encodeDynamic(m Message, w *Writer) error {
	hw := &Writer{B: w.B, err: w.err, V: w.V}
	err := m.encode(hw)
	w.B, w.err = hw.B, hw.err
	return err
}

// DecodeRequest decodes the message of an uncompressed request body whose
// header is h, skipping the custom payload if the header announces one. It
// is Decode without the Frame, for servers: the returned message's slices
// alias body. h must be a request header.
func DecodeRequest(h Header, body []byte) (Message, error) {
	if h.IsResponse() {
		return nil, fmt.Errorf("%w: %s is a response", ErrUnknownOpcode, h.Opcode)
	}
	r := Reader{buf: body, v: h.ProtocolVersion()}
	if h.Flags&FlagCustomPayload != 0 {
		r.BytesMap()
		if r.err != nil {
			return nil, r.err
		}
	}
	m, err := decodeRequest(h.Opcode, &r)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", h.Opcode, err)
	}
	markTracing(h, m)
	return m, nil
}

// Decode decodes an uncompressed body whose header is h. The direction bit of
// h.Version chooses between request and response messages, and its protocol
// version selects the body layout (v3, v4 or v5; it is not otherwise
// checked). The returned frame's slices alias body. Bytes after the message
// are ignored, as Cassandra does.
func Decode(h Header, body []byte) (*Frame, error) {
	r := NewReaderVersion(body, h.ProtocolVersion())
	f := &Frame{Header: h}
	f.Header.Length = int32(len(body))
	response := h.IsResponse()
	if response && h.Flags&FlagTracing != 0 {
		id := r.UUID()
		f.TracingID = &id
	}
	if response && h.Flags&FlagWarning != 0 {
		f.Warnings = r.StringList()
	}
	if h.Flags&FlagCustomPayload != 0 {
		f.CustomPayload = r.BytesMap()
	}
	if r.err != nil {
		return nil, r.err
	}
	var err error
	if response {
		f.Message, err = decodeResponse(h.Opcode, r)
	} else {
		f.Message, err = decodeRequest(h.Opcode, r)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", h.Opcode, err)
	}
	if !response {
		markTracing(h, f.Message)
	}
	return f, nil
}

// markTracing sets the fields of a request that mirror its frame rather
// than its body: the protocol version of QUERY and EXECUTE parameters, the
// result metadata id of EXECUTE in its parameters, and the Tracing field of
// a QUERY, EXECUTE or BATCH whose frame has the tracing flag.
func markTracing(h Header, m Message) {
	// As in Writer, version 0 stands for v4.
	v := h.ProtocolVersion()
	if v == ProtocolVersion {
		v = 0
	}
	switch m := m.(type) {
	case *Query:
		m.Params.Version = v
	case *Execute:
		m.Params.Version = v
		m.Params.ResultMetadataID = m.ResultMetadataID
	}
	if h.Flags&FlagTracing == 0 {
		return
	}
	switch m := m.(type) {
	case *Query:
		m.Params.Tracing = true
	case *Execute:
		m.Params.Tracing = true
	case *Batch:
		m.Tracing = true
	}
}
