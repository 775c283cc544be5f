package query

import (
	"errors"
	"fmt"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

// Error is an error with a CQL code and Cassandra's message text. Every error
// the executor returns to a client is an *Error (or wraps one).
type Error struct {
	Code    wire.ErrorCode
	Message string
	// Keyspace and Table are set for wire.CodeAlreadyExists (Table is empty for a
	// keyspace).
	Keyspace, Table string
	// ID is the unknown statement id for wire.CodeUnprepared.
	ID []byte
	// Function and ArgTypes name the function that failed, for
	// wire.CodeFunctionFailure (Keyspace holds its keyspace).
	Function string
	ArgTypes []string
	// Consistency, Received, BlockFor, DataPresent and WriteType are the
	// extras of wire.CodeReadTimeout and wire.CodeWriteTimeout (WriteType
	// for writes only).
	Consistency wire.Consistency
	Received    int32
	BlockFor    int32
	DataPresent bool
	WriteType   string
	// Required and Alive are the extras of wire.CodeUnavailable, with
	// Consistency: the replicas the level requires and those alive.
	Required, Alive int32
	// Err is an underlying cause, if any.
	Err error
}

// TimeoutExtras returns the consistency, received and required responses,
// whether data was present (reads) and the write type (writes) of a
// ReadTimeout or WriteTimeout error.
func (e *Error) TimeoutExtras() (cl wire.Consistency, received, blockFor int32, dataPresent bool, writeType string) {
	return e.Consistency, e.Received, e.BlockFor, e.DataPresent, e.WriteType
}

// UnavailableExtras returns the consistency level, the required and the
// alive replicas of an Unavailable error.
func (e *Error) UnavailableExtras() (cl wire.Consistency, required, alive int32) {
	return e.Consistency, e.Required, e.Alive
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// CQLCode returns the protocol error code.
func (e *Error) CQLCode() wire.ErrorCode { return e.Code }

// AlreadyExistsKeyspace returns the keyspace of an AlreadyExists error.
func (e *Error) AlreadyExistsKeyspace() string { return e.Keyspace }

// AlreadyExistsTable returns the table of an AlreadyExists error.
func (e *Error) AlreadyExistsTable() string { return e.Table }

// UnpreparedID returns the unknown id of an Unprepared error.
func (e *Error) UnpreparedID() []byte { return e.ID }

// FunctionFailure returns the keyspace, name and argument types of the
// function that failed, for a FunctionFailure error.
func (e *Error) FunctionFailure() (keyspace, function string, argTypes []string) {
	return e.Keyspace, e.Function, e.ArgTypes
}

// Is makes errors.Is(err, ErrInvalid) (and the other code sentinels) true for
// every *Error with that code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is: each matches every *Error with its code.
var (
	ErrServer        = &Error{Code: wire.CodeServer}
	ErrSyntax        = &Error{Code: wire.CodeSyntax}
	ErrInvalid       = &Error{Code: wire.CodeInvalid}
	ErrConfig        = &Error{Code: wire.CodeConfig}
	ErrAlreadyExists = &Error{Code: wire.CodeAlreadyExists}
	ErrUnprepared    = &Error{Code: wire.CodeUnprepared}
	ErrUnauthorized  = &Error{Code: wire.CodeUnauthorized}
)

// Invalidf returns an Invalid (0x2200) error with a formatted message.
func Invalidf(format string, args ...any) *Error {
	return &Error{Code: wire.CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// Configf returns a ConfigurationException (0x2300) error.
func Configf(format string, args ...any) *Error {
	return &Error{Code: wire.CodeConfig, Message: fmt.Sprintf(format, args...)}
}

// AsError converts any error into the *Error Cassandra gives for the same
// condition; it is the one mapping from the errors of the layers below
// (engine sentinels, context errors) to CQL errors. *Error values pass
// through, wrapped or not; an error it does not know becomes a Server error
// carrying its text. AsError(nil) is nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, engine.ErrEmptyKey):
		return &Error{Code: wire.CodeInvalid, Message: "Key may not be empty", Err: err}
	case errors.Is(err, engine.ErrKeyTooLarge), errors.Is(err, engine.ErrInvalidTTL),
		errors.Is(err, engine.ErrTTLTooLarge), errors.Is(err, engine.ErrExpirationOverflow),
		errors.Is(err, engine.ErrMutationTooLarge), errors.Is(err, engine.ErrInvalidMutation),
		errors.Is(err, engine.ErrNoTable):
		return &Error{Code: wire.CodeInvalid, Message: err.Error(), Err: err}
	case errors.Is(err, engine.ErrIndexNotAvailable):
		// IndexNotAvailableException fails the local read: the client
		// gets a ReadFailure whose reason, in 4.1's
		// RequestFailureReason.forException, is UNKNOWN.
		return &Error{Code: wire.CodeReadFailure, Message: "Operation failed - received 0 responses and 1 failures: UNKNOWN from localhost/127.0.0.1:7000", Err: err}
	case errors.Is(err, engine.ErrTombstoneOverwhelming):
		// TombstoneOverwhelmingException reaches the client as a
		// ReadFailure from the one replica.
		return &Error{Code: wire.CodeReadFailure, Message: "Operation failed - received 0 responses and 1 failures: READ_TOO_MANY_TOMBSTONES from localhost/127.0.0.1:7000", Err: err}
	}
	// Anything else, context.Canceled and DeadlineExceeded included, is a
	// Server error.
	return &Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
}
