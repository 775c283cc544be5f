// Package minicass is an embedded, in-process Cassandra: Cassandra's data
// model and storage path driven by CQL from Go, with the results, ordering,
// TTL behaviour and error codes and messages of Apache Cassandra 4.x.
//
// # Usage
//
//	db, err := minicass.Open(minicass.Options{}) // in memory; Options.Dir for disk
//	if err != nil { ... }
//	defer db.Close()
//
//	err = db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
//	err = db.Exec(ctx, `CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`)
//	err = db.Exec(ctx, `INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)`, 1, 2, "x")
//
//	rows := db.Query(ctx, `SELECT c, v FROM ks.t WHERE k = ?`, 1)
//	for rows.Next() {
//		var c int
//		var v string
//		err = rows.Scan(&c, &v)
//	}
//	err = rows.Err()
//
// # Statements and arguments
//
// Exec and Query take one CQL statement and variadic args that mix bind
// values (positional, Named, Unset, nil for null) and QueryOptions
// (PageSize, PagingState, WithTimestamp, Tracing). A statement with bind
// values is prepared once per session and cached by its text; Prepare gives
// an explicit Stmt. Values are encoded with the type of their bind marker
// (see types.Encode); Rows.Scan lists the Go types each CQL type scans into.
//
// Query never returns nil: the statement's error is reported by Rows.Err
// (Next returns false), so a loop over the rows ends with one error check,
// as with bufio.Scanner. Exec returns the error directly.
//
// # Sessions
//
// DB.Exec, DB.Query and DB.Prepare share the DB's default session, whose
// current keyspace is set by USE. DB.Session returns a session with its own
// current keyspace. DB, Session and Stmt are safe for concurrent use; Rows
// is not.
//
// # Paging
//
// Without PageSize a query returns all its rows. With PageSize(n) it
// returns at most n rows and Rows.PagingState the opaque state to pass back
// with PagingState for the next page; the state is nil after the last page.
//
// # Time
//
// Options.Clock replaces the real clock for write timestamps, TTL expiry
// and now(): with a ManualClock a test advances time to make rows expire.
// WithTimestamp sets a statement's write timestamp as a driver's client
// timestamp does.
//
// # Errors
//
// Statements Cassandra would reject return an *Error (an alias of
// cql.Error) carrying Cassandra's error code and message; classify them with
// errors.Is and the sentinels ErrInvalid, ErrSyntax, ErrAlreadyExists,
// ErrConfig, ErrUnauthorized. Errors of the Go API itself wrap ErrArgument
// (a bind value of the wrong Go type), ErrScan (a Scan destination that
// cannot hold the value), ErrNoRows (ScanOne on an empty result) or
// ErrClosed.
package minicass
