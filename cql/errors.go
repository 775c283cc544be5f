package cql

import (
	"errors"
	"fmt"
)

// ErrorCode is a CQL native protocol error code (exceptions/ExceptionCode.java).
type ErrorCode int32

// The error codes minicass returns.
const (
	CodeServer          ErrorCode = 0x0000
	CodeProtocol        ErrorCode = 0x000A
	CodeBadCredentials  ErrorCode = 0x0100
	CodeUnavailable     ErrorCode = 0x1000
	CodeOverloaded      ErrorCode = 0x1001
	CodeWriteTimeout    ErrorCode = 0x1100
	CodeReadTimeout     ErrorCode = 0x1200
	CodeReadFailure     ErrorCode = 0x1300
	CodeFunctionFailure ErrorCode = 0x1400
	CodeWriteFailure    ErrorCode = 0x1500
	CodeSyntax          ErrorCode = 0x2000
	CodeUnauthorized    ErrorCode = 0x2100
	CodeInvalid         ErrorCode = 0x2200
	CodeConfig          ErrorCode = 0x2300
	CodeAlreadyExists   ErrorCode = 0x2400
	CodeUnprepared      ErrorCode = 0x2500
)

// String returns the name cqlsh prints for the code, e.g. "Invalid query".
func (c ErrorCode) String() string {
	switch c {
	case CodeServer:
		return "Server error"
	case CodeProtocol:
		return "Protocol error"
	case CodeBadCredentials:
		return "Bad credentials"
	case CodeUnavailable:
		return "Unavailable exception"
	case CodeOverloaded:
		return "Overloaded"
	case CodeWriteTimeout:
		return "Coordinator node timed out waiting for replica nodes' responses"
	case CodeReadTimeout:
		return "Coordinator node timed out waiting for replica nodes' responses"
	case CodeReadFailure:
		return "Replica(s) failed to execute read"
	case CodeFunctionFailure:
		return "Function failure"
	case CodeWriteFailure:
		return "Replica(s) failed to execute write"
	case CodeSyntax:
		return "Syntax error in CQL query"
	case CodeUnauthorized:
		return "Unauthorized"
	case CodeInvalid:
		return "Invalid query"
	case CodeConfig:
		return "Query invalid because of configuration issue"
	case CodeAlreadyExists:
		return "Already exists"
	case CodeUnprepared:
		return "Unprepared"
	}
	return fmt.Sprintf("code 0x%04x", int32(c))
}

// ExceptionName returns the Python driver exception class cqlsh prints in
// front of an error, e.g. "InvalidRequest".
func (c ErrorCode) ExceptionName() string {
	switch c {
	case CodeSyntax:
		return "SyntaxException"
	case CodeInvalid:
		return "InvalidRequest"
	case CodeConfig:
		return "ConfigurationException"
	case CodeAlreadyExists:
		return "AlreadyExists"
	case CodeUnauthorized:
		return "Unauthorized"
	case CodeUnavailable:
		return "Unavailable"
	case CodeWriteTimeout:
		return "WriteTimeout"
	case CodeReadTimeout:
		return "ReadTimeout"
	case CodeReadFailure:
		return "ReadFailure"
	case CodeWriteFailure:
		return "WriteFailure"
	case CodeFunctionFailure:
		return "FunctionFailure"
	case CodeProtocol:
		return "ProtocolException"
	case CodeBadCredentials:
		return "AuthenticationFailed"
	case CodeUnprepared:
		return "PreparedQueryNotFound"
	case CodeOverloaded:
		return "OverloadedErrorMessage"
	}
	return "ServerError"
}

// Error is an error with a CQL code and Cassandra's message text. Every error
// the executor returns to a client is an *Error (or wraps one).
type Error struct {
	Code    ErrorCode
	Message string
	// Keyspace and Table are set for CodeAlreadyExists (Table is empty for a
	// keyspace).
	Keyspace, Table string
	// ID is the unknown statement id for CodeUnprepared.
	ID []byte
	// Function and ArgTypes name the function that failed, for
	// CodeFunctionFailure (Keyspace holds its keyspace).
	Function string
	ArgTypes []string
	// Err is an underlying cause, if any.
	Err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// CQLCode returns the protocol error code.
func (e *Error) CQLCode() int32 { return int32(e.Code) }

// AlreadyExistsKeyspace returns the keyspace of an AlreadyExists error.
func (e *Error) AlreadyExistsKeyspace() string { return e.Keyspace }

// AlreadyExistsTable returns the table of an AlreadyExists error.
func (e *Error) AlreadyExistsTable() string { return e.Table }

// UnpreparedID returns the unknown id of an Unprepared error.
func (e *Error) UnpreparedID() []byte { return e.ID }

// Is makes errors.Is(err, ErrInvalid) (and the other code sentinels) true for
// every *Error with that code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is: each matches every *Error with its code.
var (
	ErrServer        = &Error{Code: CodeServer}
	ErrSyntax        = &Error{Code: CodeSyntax}
	ErrInvalid       = &Error{Code: CodeInvalid}
	ErrConfig        = &Error{Code: CodeConfig}
	ErrAlreadyExists = &Error{Code: CodeAlreadyExists}
	ErrUnprepared    = &Error{Code: CodeUnprepared}
	ErrUnauthorized  = &Error{Code: CodeUnauthorized}
	ErrReadFailure   = &Error{Code: CodeReadFailure}
)

// invalidf returns an Invalid (0x2200) error with a formatted message.
func invalidf(format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// configf returns a ConfigurationException (0x2300) error.
func configf(format string, args ...any) *Error {
	return &Error{Code: CodeConfig, Message: fmt.Sprintf(format, args...)}
}

// AsError converts any error into an *Error: *Error values pass through,
// anything else becomes a Server error carrying its text.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeServer, Message: err.Error(), Err: err}
}
