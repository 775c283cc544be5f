package wire

import (
	"encoding/hex"
	"fmt"
)

// ErrorCode is the [int] code at the start of an ERROR body
// (exceptions/ExceptionCode.java).
type ErrorCode int32

// The error codes of protocol v4.
const (
	CodeServer          ErrorCode = 0x0000
	CodeProtocol        ErrorCode = 0x000A
	CodeBadCredentials  ErrorCode = 0x0100
	CodeUnavailable     ErrorCode = 0x1000
	CodeOverloaded      ErrorCode = 0x1001
	CodeIsBootstrapping ErrorCode = 0x1002
	CodeTruncate        ErrorCode = 0x1003
	CodeWriteTimeout    ErrorCode = 0x1100
	CodeReadTimeout     ErrorCode = 0x1200
	CodeReadFailure     ErrorCode = 0x1300
	CodeFunctionFailure ErrorCode = 0x1400
	CodeWriteFailure    ErrorCode = 0x1500
	// CodeCASWriteUnknown (protocol v5) is a compare-and-set write whose
	// outcome is unknown (ExceptionCode.CAS_WRITE_UNKNOWN).
	CodeCASWriteUnknown ErrorCode = 0x1700
	CodeSyntax          ErrorCode = 0x2000
	CodeUnauthorized    ErrorCode = 0x2100
	CodeInvalid         ErrorCode = 0x2200
	CodeConfig          ErrorCode = 0x2300
	CodeAlreadyExists   ErrorCode = 0x2400
	CodeUnprepared      ErrorCode = 0x2500
)

// String returns the name cqlsh prints for the code between brackets, e.g.
// "Invalid query" (the Python driver's error summaries).
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
	case CodeIsBootstrapping:
		return "Is bootstrapping"
	case CodeTruncate:
		return "Truncate error"
	case CodeWriteTimeout, CodeReadTimeout:
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
// front of an error, e.g. "InvalidRequest". Codes without a class of their
// own are "ServerError".
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

// UnpreparedMessage returns the message of the Unprepared error (0x2500)
// Cassandra sends for an unknown prepared statement id
// (transport/messages/ExecuteMessage.java), with the id in lower-case hex.
func UnpreparedMessage(id []byte) string {
	return "Prepared query with ID " + hex.EncodeToString(id) + " not found (either the query was not prepared on this host " +
		"(maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)"
}

// InternalErrorMessage returns the message of the Server error (0x0000)
// Cassandra sends when a request fails with an unexpected exception, such as
// a panic in minicass: the exception class and its message
// (transport/ServerError.java: the exception's toString).
func InternalErrorMessage(cause any) string {
	return fmt.Sprintf("java.lang.RuntimeException: internal error: %v", cause)
}
