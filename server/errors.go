package server

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/minicass/minicass/server/frame"
)

// Sentinel errors of package server.
var (
	// ErrServerClosed is returned by Serve and ListenAndServe after Close.
	ErrServerClosed = errors.New("server: closed")
	// ErrAlreadyServing is returned by Serve when the server already has a
	// listener.
	ErrAlreadyServing = errors.New("server: already serving")
	// ErrInvalidOptions is wrapped by the errors of Options.Validate.
	ErrInvalidOptions = errors.New("server: invalid options")
)

// Error is an ERROR response with all its extra fields. A Session may return
// one (or wrap one) to control the code and extras exactly.
type Error = frame.Error

// ErrorCode is a protocol error code.
type ErrorCode = frame.ErrorCode

// Coded is the interface backend errors implement to choose their protocol
// error code (0x2200 Invalid, 0x2000 Syntax, ...). Errors that implement none
// of the interfaces below are sent as Server errors (0x0000).
type Coded interface {
	CQLCode() int32
}

// The optional interfaces a Coded error implements to supply the extras of
// its code. They are looked up with errors.As, so wrapped errors work.
type (
	// AlreadyExistsError supplies the extras of code 0x2400.
	AlreadyExistsError interface {
		Coded
		Keyspace() string
		Table() string
	}
	// UnpreparedIDError supplies the extra of code 0x2500; when a 0x2500 error
	// does not implement it, the server uses the id of the EXECUTE.
	UnpreparedIDError interface {
		Coded
		UnpreparedID() []byte
	}
	// UnavailableError supplies the extras of code 0x1000.
	UnavailableError interface {
		Coded
		Consistency() Consistency
		Required() int32
		Alive() int32
	}
)

// UnpreparedError returns the 0x2500 error Cassandra sends for an unknown
// prepared statement id.
func UnpreparedError(id []byte) *Error {
	return &Error{
		Code: frame.ErrCodeUnprepared,
		Message: fmt.Sprintf("Prepared query with ID %s not found (either the query was not prepared on this host "+
			"(maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)",
			hex.EncodeToString(id)),
		UnpreparedID: id,
	}
}

// protocolError returns a 0x000A error with msg.
func protocolError(format string, args ...any) *Error {
	return &Error{Code: frame.ErrCodeProtocol, Message: fmt.Sprintf(format, args...)}
}

// toError converts an error returned by a Session into an ERROR message.
// executeID is the id of the EXECUTE being answered, or nil.
func toError(err error, executeID []byte) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		out := *fe
		if out.Message == "" {
			out.Message = err.Error()
		}
		if out.Code == frame.ErrCodeUnprepared && out.UnpreparedID == nil {
			out.UnpreparedID = executeID
		}
		return &out
	}
	var coded Coded
	if !errors.As(err, &coded) {
		return &Error{Code: frame.ErrCodeServer, Message: err.Error()}
	}
	out := &Error{Code: ErrorCode(coded.CQLCode()), Message: err.Error()}
	switch out.Code {
	case frame.ErrCodeAlreadyExists:
		var ae AlreadyExistsError
		if errors.As(err, &ae) {
			out.Keyspace, out.Table = ae.Keyspace(), ae.Table()
		}
	case frame.ErrCodeUnprepared:
		out.UnpreparedID = executeID
		var ue UnpreparedIDError
		if errors.As(err, &ue) {
			out.UnpreparedID = ue.UnpreparedID()
		}
	case frame.ErrCodeUnavailable:
		var ue UnavailableError
		if errors.As(err, &ue) {
			out.Consistency, out.Required, out.Alive = ue.Consistency(), ue.Required(), ue.Alive()
		}
	}
	return out
}
