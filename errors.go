package minicass

import (
	"errors"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
)

// Error is the error type of every statement the executor rejects: a CQL
// protocol error code (wire.CodeInvalid, wire.CodeSyntax, ...) and Cassandra's
// message text. Use errors.As to get it, or errors.Is with the sentinels
// below to classify it.
type Error = cql.Error

// Sentinels for errors.Is. Each matches every *Error carrying its CQL code,
// whatever the message, so errors.Is(err, minicass.ErrInvalid) is true for
// any "Invalid query" (0x2200) error. They are the cql package's sentinels.
var (
	// ErrInvalid matches Invalid query errors (0x2200).
	ErrInvalid = cql.ErrInvalid
	// ErrSyntax matches syntax errors (0x2000).
	ErrSyntax = cql.ErrSyntax
	// ErrConfig matches configuration errors (0x2300), e.g. dropping a
	// keyspace that does not exist.
	ErrConfig = cql.ErrConfig
	// ErrAlreadyExists matches AlreadyExists errors (0x2400).
	ErrAlreadyExists = cql.ErrAlreadyExists
	// ErrUnprepared matches Unprepared errors (0x2500).
	ErrUnprepared = cql.ErrUnprepared
	// ErrUnauthorized matches Unauthorized errors (0x2100), e.g. writing to
	// a system keyspace.
	ErrUnauthorized = cql.ErrUnauthorized
	// ErrServer matches server errors (0x0000).
	ErrServer = cql.ErrServer
)

// Errors of the Go API itself, reported before or after a statement runs.
var (
	// ErrClosed is returned by every call on a closed DB.
	ErrClosed = errors.New("minicass: database is closed")
	// ErrArgument reports a bind argument that cannot be encoded as the type
	// of its bind marker, or an option used where it does not apply.
	ErrArgument = errors.New("minicass: bad argument")
	// ErrScan reports a Scan destination that cannot hold the column's value
	// (wrong Go type, overflow, wrong number of destinations).
	ErrScan = errors.New("minicass: cannot scan")
	// ErrNoRows is returned by Rows.ScanOne when the statement returned no
	// row.
	ErrNoRows = errors.New("minicass: no rows in result")
	// ErrLocked is returned by Open when the data directory is in use by
	// another open DB, in this process or another (the engine's sentinel).
	ErrLocked = engine.ErrLocked
	// ErrPartitionerMismatch is returned by Open when the data directory
	// was written under another partitioner than Options.Partitioner (the
	// engine's sentinel; the message is Cassandra's).
	ErrPartitionerMismatch = engine.ErrPartitionerMismatch
)
