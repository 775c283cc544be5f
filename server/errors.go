package server

import (
	"errors"
	"fmt"

	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// Sentinel errors of package server.
var (
	// ErrServerClosed is returned by Serve and ListenAndServe after Close.
	ErrServerClosed = errors.New("server: closed")
	// ErrAlreadyServing is returned by Serve when the server already has a
	// listener.
	ErrAlreadyServing = errors.New("server: already serving")
	// ErrShutdownTimeout is returned by Close when requests were still
	// running ShutdownTimeout after their contexts were cancelled.
	ErrShutdownTimeout = errors.New("server: shutdown timed out with requests still running")
	// ErrInvalidOptions is wrapped by the errors of Options.Validate.
	ErrInvalidOptions = errors.New("server: invalid options")
)

// Error is an ERROR response with all its extra fields. A Session may return
// one (or wrap one) to control the code and extras exactly.
type Error = frame.Error

// Coded is the interface backend errors implement to choose their protocol
// error code (wire.CodeInvalid, wire.CodeSyntax, ...). Errors that implement
// none of the interfaces below are sent as Server errors (0x0000); *cql.Error
// implements all that apply to it.
type Coded interface {
	CQLCode() wire.ErrorCode
}

// The optional interfaces a Coded error implements to supply the extras of
// its code. They are looked up with errors.As, so wrapped errors work.
type (
	// AlreadyExistsError supplies the extras of code 0x2400: the keyspace,
	// and the table (empty when the keyspace already exists).
	AlreadyExistsError interface {
		Coded
		AlreadyExistsKeyspace() string
		AlreadyExistsTable() string
	}
	// UnpreparedIDError supplies the extra of code 0x2500; when a 0x2500 error
	// does not implement it, the server uses the id of the EXECUTE.
	UnpreparedIDError interface {
		Coded
		UnpreparedID() []byte
	}
	// FunctionFailureError supplies the extras of code 0x1400: the keyspace
	// and name of the function that failed, and its argument types.
	FunctionFailureError interface {
		Coded
		FunctionFailure() (keyspace, function string, argTypes []string)
	}
	// TimeoutError supplies the extras of the timeout and failure codes
	// (0x1100 WriteTimeout, 0x1200 ReadTimeout, 0x1300 ReadFailure, 0x1500
	// WriteFailure, 0x1700 CASWriteUnknown): the consistency level, the
	// replicas that answered and those required, whether the data was
	// present, and the write type.
	TimeoutError interface {
		Coded
		TimeoutExtras() (cl wire.Consistency, received, blockFor int32, dataPresent bool, writeType string)
	}
	// UnavailableError supplies the extras of code 0x1000: the consistency
	// level, the replicas it requires and those alive.
	UnavailableError interface {
		Coded
		UnavailableExtras() (cl wire.Consistency, required, alive int32)
	}
)

// UnpreparedError returns the 0x2500 error Cassandra sends for an unknown
// prepared statement id.
func UnpreparedError(id []byte) *Error {
	return &Error{Code: wire.CodeUnprepared, Message: wire.UnpreparedMessage(id), UnpreparedID: id}
}

// protocolError returns a 0x000A error with msg.
func protocolError(format string, args ...any) *Error {
	return &Error{Code: wire.CodeProtocol, Message: fmt.Sprintf(format, args...)}
}

// toError converts an error returned by a Session or an Authenticator into
// an ERROR message; it is the one place where errors become ERROR frames.
// executeID is the id of the EXECUTE being answered, or nil. An error that
// carries no code gets code uncoded: a Server error for requests, Bad
// credentials for logins.
func toError(err error, executeID []byte, uncoded wire.ErrorCode) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		out := *fe
		if out.Message == "" {
			out.Message = err.Error()
		}
		if out.Code == wire.CodeUnprepared && out.UnpreparedID == nil {
			out.UnpreparedID = executeID
		}
		return &out
	}
	var coded Coded
	if !errors.As(err, &coded) {
		return &Error{Code: uncoded, Message: err.Error()}
	}
	out := &Error{Code: coded.CQLCode(), Message: err.Error()}
	switch out.Code {
	case wire.CodeAlreadyExists:
		var ae AlreadyExistsError
		if errors.As(err, &ae) {
			out.Keyspace, out.Table = ae.AlreadyExistsKeyspace(), ae.AlreadyExistsTable()
		}
	case wire.CodeUnprepared:
		out.UnpreparedID = executeID
		var ue UnpreparedIDError
		if errors.As(err, &ue) && ue.UnpreparedID() != nil {
			out.UnpreparedID = ue.UnpreparedID()
		}
	case wire.CodeFunctionFailure:
		var fe FunctionFailureError
		if errors.As(err, &fe) {
			out.Keyspace, out.Function, out.ArgTypes = fe.FunctionFailure()
		}
	case wire.CodeUnavailable:
		var ue UnavailableError
		if errors.As(err, &ue) {
			out.Consistency, out.Required, out.Alive = ue.UnavailableExtras()
		}
	case wire.CodeWriteTimeout, wire.CodeReadTimeout, wire.CodeReadFailure, wire.CodeWriteFailure, wire.CodeCASWriteUnknown:
		var te TimeoutError
		if errors.As(err, &te) {
			out.Consistency, out.Received, out.BlockFor, out.DataPresent, out.WriteType = te.TimeoutExtras()
		}
	}
	return out
}
