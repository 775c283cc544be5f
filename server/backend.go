package server

import (
	"context"
	"net"

	"github.com/minicass/minicass/server/frame"
)

// Backend is what the server needs from the CQL layer. The server calls
// NewSession once per connection, when the connection is ready (after STARTUP
// and, if enabled, authentication), and uses that Session for every request
// of the connection.
type Backend interface {
	NewSession(ctx context.Context, info ConnInfo) Session
}

// ConnInfo describes the connection a Session serves.
type ConnInfo struct {
	// RemoteAddr is the client's address.
	RemoteAddr net.Addr
	// User is the authenticated user name, empty when authentication is off.
	User string
	// Options are the STARTUP options (CQL_VERSION, DRIVER_NAME, ...), keys
	// upper-cased.
	Options map[string]string
}

// Session executes the requests of one connection. Its methods are called
// concurrently (one goroutine per in-flight request), so a Session must be
// safe for concurrent use; ctx is cancelled when the connection closes.
//
// A nil *Result with a nil error is sent as a Void result. Errors are sent
// as ERROR frames: see the package documentation for how codes and extras are
// chosen. If a Session also implements io.Closer, Close is called once when
// the connection ends.
type Session interface {
	// Query runs one CQL statement with its parameters; p.Keyspace, when
	// set (v5), is the keyspace it runs in instead of the connection's.
	Query(ctx context.Context, query string, p *QueryParams) (*Result, error)
	// Prepare prepares a statement and returns its id and metadata.
	// keyspace is the keyspace of a v5 PREPARE with the keyspace flag,
	// in which the statement's unqualified names resolve instead of the
	// connection's; "" when absent.
	Prepare(ctx context.Context, query, keyspace string) (*Prepared, error)
	// Execute runs a prepared statement. An unknown id must return an error
	// with code 0x2500 (see UnpreparedError). A Rows result should carry
	// the ResultMetadataID of its columns when the statement is not
	// conditional; in v5 the Session then sets MetadataChanged when
	// p.ResultMetadataID differs, and honours SkipMetadata otherwise.
	Execute(ctx context.Context, id []byte, p *QueryParams) (*Result, error)
	// Batch runs a BATCH request; the result is normally Void (Rows for a
	// conditional batch). b.Keyspace is as QueryParams.Keyspace.
	Batch(ctx context.Context, b *BatchRequest) (*Result, error)
}

// QueryParams are the decoded <query_parameters> of QUERY and EXECUTE.
// Values are nil for null; see frame.QueryParams for each field.
type QueryParams = frame.QueryParams

// Result is what a Session returns; see frame.Result for the fields used by
// each Kind (a wire.ResultKind). Warnings are sent in the response frame (flag 0x08).
type Result = frame.Result

// ColumnSpec describes a result column or a bind marker.
type ColumnSpec = frame.ColumnSpec

// Prepared is a prepared statement: its id, bind markers, partition key bind
// indexes and result columns.
type Prepared = frame.Prepared

// BatchRequest is a decoded BATCH request.
type BatchRequest = frame.Batch

// BatchEntry is one statement of a BatchRequest.
type BatchEntry = frame.BatchEntry
