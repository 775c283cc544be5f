package frame

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the size in bytes of a frame header of protocols v3 to v5
// (an "envelope" header in v5's terms). It is part of the wire format.
const HeaderSize = 9

// The version byte of a frame: the low 7 bits are the protocol version and the
// high bit is set for responses. These values are part of the wire format.
const (
	// ProtocolVersion is the default protocol version of this codec: a
	// Header whose version byte is zero, a Writer and a Reader with no
	// version, speak v4.
	ProtocolVersion = 4
	// MinProtocolVersion and MaxProtocolVersion bound the versions this
	// codec speaks, as Cassandra 4.1 does (v3 to v5).
	MinProtocolVersion = 3
	MaxProtocolVersion = 5
	// VersionRequest is the version byte of a v4 request frame.
	VersionRequest byte = 0x04
	// VersionResponse is the version byte of a v4 response frame.
	VersionResponse byte = 0x84
	// DirectionResponse is the bit of the version byte that marks a response.
	DirectionResponse byte = 0x80
	// VersionMask extracts the protocol version from a version byte.
	VersionMask byte = 0x7f
)

// MaxSpecBodyLength is the largest body length the v4 specification allows
// (256 MB). Servers usually enforce a smaller limit of their own.
const MaxSpecBodyLength = 256 << 20

// Flags is the flags byte of a frame header.
type Flags uint8

// The header flags of protocol v4. They are part of the wire format.
const (
	// FlagCompressed marks a compressed body (only after STARTUP negotiated it).
	FlagCompressed Flags = 0x01
	// FlagTracing asks for tracing in a request, and announces a tracing
	// [uuid] at the start of a response body.
	FlagTracing Flags = 0x02
	// FlagCustomPayload announces a [bytes map] before the message.
	FlagCustomPayload Flags = 0x04
	// FlagWarning announces a [string list] of warnings in a response body.
	FlagWarning Flags = 0x08
	// FlagBeta marks a beta protocol version (USE_BETA). No version this
	// codec speaks is beta, so it is ignored, as Cassandra 4.1 ignores it on
	// v5 and below.
	FlagBeta Flags = 0x10
)

// Opcode identifies the message carried by a frame.
type Opcode uint8

// The opcodes of protocol v4. They are part of the wire format.
const (
	OpError         Opcode = 0x00
	OpStartup       Opcode = 0x01
	OpReady         Opcode = 0x02
	OpAuthenticate  Opcode = 0x03
	OpOptions       Opcode = 0x05
	OpSupported     Opcode = 0x06
	OpQuery         Opcode = 0x07
	OpResult        Opcode = 0x08
	OpPrepare       Opcode = 0x09
	OpExecute       Opcode = 0x0A
	OpRegister      Opcode = 0x0B
	OpEvent         Opcode = 0x0C
	OpBatch         Opcode = 0x0D
	OpAuthChallenge Opcode = 0x0E
	OpAuthResponse  Opcode = 0x0F
	OpAuthSuccess   Opcode = 0x10
)

var opcodeNames = [...]string{
	OpError: "ERROR", OpStartup: "STARTUP", OpReady: "READY", OpAuthenticate: "AUTHENTICATE",
	OpOptions: "OPTIONS", OpSupported: "SUPPORTED", OpQuery: "QUERY", OpResult: "RESULT",
	OpPrepare: "PREPARE", OpExecute: "EXECUTE", OpRegister: "REGISTER", OpEvent: "EVENT",
	OpBatch: "BATCH", OpAuthChallenge: "AUTH_CHALLENGE", OpAuthResponse: "AUTH_RESPONSE",
	OpAuthSuccess: "AUTH_SUCCESS",
}

// String returns the specification's name of the opcode, e.g. "QUERY".
func (o Opcode) String() string {
	if int(o) < len(opcodeNames) && opcodeNames[o] != "" {
		return opcodeNames[o]
	}
	return fmt.Sprintf("OPCODE(0x%02x)", uint8(o))
}

// IsRequest reports whether clients send the opcode to servers.
func (o Opcode) IsRequest() bool {
	switch o {
	case OpStartup, OpOptions, OpQuery, OpPrepare, OpExecute, OpRegister, OpBatch, OpAuthResponse:
		return true
	}
	return false
}

// IsResponse reports whether servers send the opcode to clients.
func (o Opcode) IsResponse() bool {
	switch o {
	case OpError, OpReady, OpAuthenticate, OpSupported, OpResult, OpEvent, OpAuthChallenge, OpAuthSuccess:
		return true
	}
	return false
}

// Header is a decoded frame header. Version is the raw version byte
// (direction bit included); Length is the body length in bytes.
type Header struct {
	Version byte
	Flags   Flags
	Stream  int16
	Opcode  Opcode
	Length  int32
}

// IsResponse reports whether the direction bit of the version byte is set.
func (h Header) IsResponse() bool { return h.Version&DirectionResponse != 0 }

// ProtocolVersion returns the protocol version number without the direction
// bit; a zero version byte is v4 (ProtocolVersion).
func (h Header) ProtocolVersion() int {
	if v := int(h.Version & VersionMask); v != 0 {
		return v
	}
	return ProtocolVersion
}

// RequestVersion and ResponseVersion return the version byte of a request
// and of a response frame of protocol version v.
func RequestVersion(v int) byte  { return byte(v) & VersionMask }
func ResponseVersion(v int) byte { return byte(v)&VersionMask | DirectionResponse }

// ParseHeader decodes the 9-byte header at the start of b. It checks only the
// sizes: the caller decides what to do with an unsupported version, an
// unknown opcode or an oversize length, because the right protocol error
// depends on them. A negative length is returned as is.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("%w: header needs %d bytes, have %d", ErrShortBuffer, HeaderSize, len(b))
	}
	return Header{
		Version: b[0],
		Flags:   Flags(b[1]),
		Stream:  int16(binary.BigEndian.Uint16(b[2:4])),
		Opcode:  Opcode(b[4]),
		Length:  int32(binary.BigEndian.Uint32(b[5:9])),
	}, nil
}

// AppendHeader appends the 9-byte encoding of h to dst.
func AppendHeader(dst []byte, h Header) []byte {
	dst = append(dst, h.Version, byte(h.Flags))
	dst = binary.BigEndian.AppendUint16(dst, uint16(h.Stream))
	dst = append(dst, byte(h.Opcode))
	return binary.BigEndian.AppendUint32(dst, uint32(h.Length))
}
