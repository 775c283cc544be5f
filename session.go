package minicass

import (
	"context"
	"errors"

	"github.com/minicass/minicass/cql"
)

// Session runs statements with its own current keyspace (set by USE). It
// is safe for concurrent use.
type Session struct {
	db *DB
	s  *cql.Session
}

// Keyspace returns the current keyspace ("" before any USE).
func (s *Session) Keyspace() string { return s.s.Keyspace() }

// CQL returns the underlying executor session, for the native protocol
// server and tools.
func (s *Session) CQL() *cql.Session { return s.s }

// Exec runs one CQL statement and discards any rows. args hold bind values
// and QueryOptions (see Named, Unset, WithTimestamp). The error is an *Error
// for statements Cassandra would reject (errors.Is(err, ErrInvalid), ...),
// or wraps ErrArgument or ErrClosed.
func (s *Session) Exec(ctx context.Context, query string, args ...any) error {
	return s.Query(ctx, query, args...).Err()
}

// Query runs one CQL statement and returns its rows. It never returns nil:
// a failure is reported by Rows.Err (and Next returns false). A statement
// without bind values is parsed and run directly; with bind values it is
// prepared once (the executor caches it by keyspace and text) so the values
// are encoded with the types of their markers.
func (s *Session) Query(ctx context.Context, query string, args ...any) *Rows {
	if s.db.isClosed() {
		return errRows(ErrClosed)
	}
	ca := getCall()
	defer ca.release()
	p, values := splitArgsInto(ca, args)
	if len(values) == 0 {
		res, err := s.s.Query(ctx, query, p)
		return &Rows{res: res, err: err}
	}
	prep, err := s.prepare(ctx, query)
	if err != nil {
		return errRows(err)
	}
	rows := newRows(ca)
	ca.spareForBlobs(prep.Result)
	res, err := s.run(ctx, prep, p, values, ca)
	if err != nil {
		return errRows(err)
	}
	rows.setResult(res)
	return rows
}

// Prepare parses and validates a statement once, for repeated execution
// with Stmt.Exec and Stmt.Query.
func (s *Session) Prepare(ctx context.Context, query string) (*Stmt, error) {
	if s.db.isClosed() {
		return nil, ErrClosed
	}
	prep, err := s.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return newStmt(s, prep), nil
}

// prepare returns query prepared in the session's keyspace, from the
// executor's one statement cache (cql/plancache.go), which finds it by its
// text without hashing it.
func (s *Session) prepare(ctx context.Context, query string) (*cql.Prepared, error) {
	return s.s.Prepare(ctx, query)
}

// run binds values and executes prep; Exec uses it directly, without Rows.
// A statement that a schema change evicted from the executor's cache is
// prepared again, in the keyspace it was prepared in, and run once more
// with the values bound to its new markers, as drivers do on Unprepared.
// The execution runs in the room of ca, whose result the caller then owns.
func (s *Session) run(ctx context.Context, prep *cql.Prepared, p *cql.Params, values []any, ca *callArgs) (*cql.Result, error) {
	res, _, err := s.runPrepared(ctx, prep, p, values, ca)
	return res, err
}

// runPrepared is run, also returning the statement it ran (prep, or the
// statement prepared again).
func (s *Session) runPrepared(ctx context.Context, prep *cql.Prepared, p *cql.Params, values []any, ca *callArgs) (*cql.Result, *cql.Prepared, error) {
	if s.db.isClosed() {
		return nil, prep, ErrClosed
	}
	for retried := false; ; retried = true {
		// Only a statement with result columns (a SELECT) binds into the
		// Rows' room: a write's values may be kept by the engine, which
		// would keep the whole Rows with them.
		var binds []byte
		if len(prep.Result) > 0 {
			binds = ca.binds
		}
		if err := bindArgsIn(p, prep.Bind, values, binds); err != nil {
			return nil, prep, err
		}
		res, err := s.s.ExecutePreparedIn(ctx, prep, p, &ca.room)
		if retried || !errors.Is(err, cql.ErrUnprepared) {
			return res, prep, err
		}
		again, err := s.s.Executor().Reprepare(prep)
		if err != nil {
			// The table is gone (dropped, or a restore took it): the
			// statement stays as it was, to be prepared again later.
			return nil, prep, err
		}
		prep = again
	}
}
