package types

import (
	"errors"
	"fmt"
)

// Sentinel errors of the types package. Every error returned by this package
// wraps one of them, so callers classify failures with errors.Is.
var (
	// ErrInvalidLiteral reports a CQL constant that cannot be converted to
	// the requested type (wrong constant kind or unparsable text).
	ErrInvalidLiteral = errors.New("types: invalid literal")
	// ErrInvalidValue reports serialized bytes that are not a valid value of
	// the type (wrong length, bad UTF-8, truncated collection, ...).
	ErrInvalidValue = errors.New("types: invalid value")
	// ErrUnknownType reports a type name ParseType does not know, or a type
	// Cassandra would refuse (non-frozen nested collection, frozen<int>, ...).
	ErrUnknownType = errors.New("types: unknown or invalid type")
	// ErrInvalidKey reports a byte-comparable clustering key or element key
	// that cannot be decoded, or a value that cannot be part of a key.
	ErrInvalidKey = errors.New("types: invalid key")
	// ErrUnsupportedGoValue reports a Go value Encode cannot convert to the
	// requested type.
	ErrUnsupportedGoValue = errors.New("types: unsupported Go value")
)

// LiteralError describes a constant that could not be converted. It wraps
// ErrInvalidLiteral.
//
// The CQL layer renders Cassandra's message from it: when Mismatch is true
// the constant's kind cannot be assigned to the type at all and Cassandra
// says `Invalid STRING constant (abc) for "k" of type int`; otherwise Reason
// carries the text of Cassandra's MarshalException, e.g. `Unable to make int
// from '99999999999'`.
type LiteralError struct {
	Type     Type
	Kind     ConstKind
	Text     string
	Reason   string
	Mismatch bool
}

// Error returns a message naming the constant kind, its text and the type.
func (e *LiteralError) Error() string {
	if e.Mismatch || e.Reason == "" {
		return fmt.Sprintf("Invalid %s constant (%s) for type %s", e.Kind, e.Text, e.Type)
	}
	return e.Reason
}

// Is reports whether target is ErrInvalidLiteral.
func (e *LiteralError) Is(target error) bool { return target == ErrInvalidLiteral }

// ValueError describes serialized bytes that are not a valid value of Type.
// It wraps ErrInvalidValue; Reason follows Cassandra's MarshalException text
// where one exists.
type ValueError struct {
	Type   Type
	Reason string
}

// Error returns the reason, prefixed with the type.
func (e *ValueError) Error() string {
	return fmt.Sprintf("invalid %s value: %s", e.Type, e.Reason)
}

// Is reports whether target is ErrInvalidValue.
func (e *ValueError) Is(target error) bool { return target == ErrInvalidValue }

func valueErr(t Type, format string, args ...any) error {
	return &ValueError{Type: t, Reason: fmt.Sprintf(format, args...)}
}

func litMismatch(t Type, k ConstKind, text string) error {
	return &LiteralError{Type: t, Kind: k, Text: text, Mismatch: true}
}

func litErr(t Type, k ConstKind, text, format string, args ...any) error {
	return &LiteralError{Type: t, Kind: k, Text: text, Reason: fmt.Sprintf(format, args...)}
}

func keyErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidKey}, args...)...)
}

// TypeError describes a type string ParseType cannot accept. It wraps
// ErrUnknownType. Refused is set when the text names a valid construct that
// Cassandra refuses (a non-frozen collection inside a collection, ...), and
// Reason then is Cassandra's message.
type TypeError struct {
	Reason  string
	Text    string
	Refused bool
}

// Error returns the reason and the text.
func (e *TypeError) Error() string {
	return fmt.Sprintf("%s: %s in %q", ErrUnknownType, e.Reason, e.Text)
}

// Is reports whether target is ErrUnknownType.
func (e *TypeError) Is(target error) bool { return target == ErrUnknownType }
