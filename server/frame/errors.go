package frame

import "errors"

// Sentinel errors returned by the codec. Every decoding error wraps one of
// them, so callers classify failures with errors.Is.
var (
	// ErrShortBuffer means a header or body ended before a value it announced.
	ErrShortBuffer = errors.New("frame: not enough bytes")
	// ErrInvalidValue means a length, kind or enum in the body is out of range.
	ErrInvalidValue = errors.New("frame: invalid value")
	// ErrUnknownOpcode means the header carries an opcode the codec does not know
	// for the frame's direction.
	ErrUnknownOpcode = errors.New("frame: unknown opcode")
	// ErrUnsupportedType means an [option] names a type this codec cannot
	// represent with types.Type (a custom class other than DurationType, or a UDT).
	ErrUnsupportedType = errors.New("frame: unsupported type")
)
