package cql

import "github.com/minicass/minicass/cql/query"

// The values a statement runs with and returns, and the error vocabulary,
// live in package query so that the statement packages below the facade
// share them; these aliases keep them at their public names.
type (
	// Value is one bound or returned value (see query.Value).
	Value = query.Value
	// Params are the parameters of one execution (see query.Params).
	Params = query.Params
	// ColumnSpec describes a bind marker or a result column.
	ColumnSpec = query.ColumnSpec
	// Result is what a statement returns.
	Result = query.Result
	// Trace is the record of one traced execution.
	Trace = query.Trace
	// TraceEvent is one event of a Trace.
	TraceEvent = query.TraceEvent
	// Error is an error with a CQL code and Cassandra's message text.
	Error = query.Error
)

// Sentinels for errors.Is: each matches every *Error with its code.
var (
	ErrServer        = query.ErrServer
	ErrSyntax        = query.ErrSyntax
	ErrInvalid       = query.ErrInvalid
	ErrConfig        = query.ErrConfig
	ErrAlreadyExists = query.ErrAlreadyExists
	ErrUnprepared    = query.ErrUnprepared
	ErrUnauthorized  = query.ErrUnauthorized
)

// AsError converts any error into the *Error Cassandra gives for the same
// condition (see query.AsError). AsError(nil) is nil.
func AsError(err error) *Error { return query.AsError(err) }
