package minicass

import (
	"context"
	"sync"

	"github.com/minicass/minicass/cql"
)

// maxCachedStatements bounds the statements a Session keeps prepared for
// Query with bind values.
const maxCachedStatements = 1024

// Session runs statements with its own current keyspace (set by USE). It
// is safe for concurrent use.
type Session struct {
	db *DB
	s  *cql.Session

	mu       sync.Mutex
	prepared map[string]*cql.Prepared // by keyspace + "\x00" + query text
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
// prepared once per session and keyspace (cached by its text) so the values
// are encoded with the types of their markers.
func (s *Session) Query(ctx context.Context, query string, args ...any) *Rows {
	if s.db.isClosed() {
		return errRows(ErrClosed)
	}
	p, values := splitArgs(args)
	if len(values) == 0 {
		res, err := s.s.Query(ctx, query, p)
		return &Rows{res: res, err: err}
	}
	prep, err := s.prepare(ctx, query)
	if err != nil {
		return errRows(err)
	}
	return s.execute(ctx, prep, p, values)
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
	return &Stmt{s: s, prep: prep}, nil
}

func (s *Session) prepare(ctx context.Context, query string) (*cql.Prepared, error) {
	// The cache key is built on the stack for texts up to 256 bytes (a
	// lookup by string(bytes) does not allocate); only a miss stores it.
	var buf [256]byte
	key := append(append(append(buf[:0], s.Keyspace()...), 0), query...)
	s.mu.Lock()
	prep := s.prepared[string(key)]
	s.mu.Unlock()
	if prep != nil {
		return prep, nil
	}
	prep, err := s.s.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.prepared) >= maxCachedStatements {
		// Queries built with literals would grow the cache forever: start
		// over, as a driver's bounded statement cache evicts.
		clear(s.prepared)
	}
	s.prepared[string(key)] = prep
	s.mu.Unlock()
	return prep, nil
}

func (s *Session) execute(ctx context.Context, prep *cql.Prepared, p *cql.Params, values []any) *Rows {
	res, err := s.run(ctx, prep, p, values)
	if err != nil {
		return errRows(err)
	}
	return &Rows{res: res}
}

// run binds values and executes prep; Exec uses it directly, without Rows.
func (s *Session) run(ctx context.Context, prep *cql.Prepared, p *cql.Params, values []any) (*cql.Result, error) {
	if s.db.isClosed() {
		return nil, ErrClosed
	}
	if err := bindArgs(p, prep.Bind, values); err != nil {
		return nil, err
	}
	return s.s.ExecutePrepared(ctx, prep, p)
}
