// Package minicasstest runs a minicass server inside a Go test, in the
// spirit of miniredis: an in-memory database behind a real CQL native
// protocol listener (v3 to v5) on a free loopback port, so code under test talks to
// it with an unmodified driver (gocql, ...), while the test seeds data,
// checks rows and moves the clock directly.
//
//	func TestUsers(t *testing.T) {
//		srv := minicasstest.Start(t) // stopped by t.Cleanup
//		srv.MustExec(t, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
//		cluster := gocql.NewCluster(srv.Host())
//		cluster.Port = srv.Port()
//		...
//		srv.FastForward(25 * time.Hour) // expire TTLs without sleeping
//		srv.CheckRow(t, "SELECT name FROM app.users WHERE id = ?", []any{1}, "alice")
//	}
//
// gocql holds each request for ClusterConfig.WriteCoalesceWaitTime (200µs by
// default) hoping to write several at once; an otherwise idle Go process
// wakes for so short a timer only at the next millisecond, so a test doing
// one request at a time spends about 1 ms per request waiting. Setting
//
//	cluster.WriteCoalesceWaitTime = 0
//
// makes such tests about 20 times faster; many concurrent goroutines lose
// nothing either (the server writes responses that finish together in one
// syscall).
//
// The server's clock is manual: it starts at the real time and moves only
// with FastForward and SetTime. Write timestamps, TTL expiry and now() all
// read it, and the driver's client-side timestamps (gocql sends them by
// default) do not affect expiry, which the server computes from its clock.
package minicasstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
)

// Clock is the server's manual clock (minicass.ManualClock). It is safe
// for concurrent use.
type Clock = minicass.ManualClock

// Options configure Run. The zero value works.
type Options struct {
	// Addr is the listen address. Default "127.0.0.1:0" (a free port).
	Addr string
	// Auth enables password authentication (PasswordAuthenticator) with
	// these users and passwords, each a superuser role; CREATE ROLE adds
	// more. Passwords are hashed with bcrypt's cheapest cost (4 log rounds,
	// Cassandra's default is 10), so a server starts in milliseconds.
	// Default nil: no authentication.
	Auth map[string]string
	// Start is the initial time of the manual clock. Default: time.Now().
	Start time.Time
}

// Server is a running minicass server. Its methods are safe for concurrent
// use.
type Server struct {
	db    *minicass.DB
	srv   *server.Server
	addr  *net.TCPAddr
	clock *Clock
	done  chan error

	closeOnce sync.Once
	closeErr  error
}

// Start runs a server on a free loopback port and stops it when the test
// ends. It fails the test if the server cannot start.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := RunOptions(Options{})
	if err != nil {
		t.Fatalf("minicasstest: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Run starts a server on a free loopback port. The caller must Close it.
func Run() (*Server, error) { return RunOptions(Options{}) }

// RunOptions starts a server configured by opts. The caller must Close it.
func RunOptions(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	clock := minicass.NewManualClock(opts.Start)
	db, err := minicass.Open(minicass.Options{Clock: clock})
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := cqlbackend.Announce(db.Executor(), l.Addr()); err != nil {
		l.Close()
		db.Close()
		return nil, err
	}
	backend := cqlbackend.New(db.Executor())
	var sopts server.Options
	if opts.Auth != nil {
		if err := db.Executor().EnableAuthentication(context.Background(), cql.AuthOptions{Superusers: opts.Auth, LogRounds: 4}); err != nil {
			l.Close()
			db.Close()
			return nil, err
		}
		sopts.Authenticator = backend
	}
	srv := server.New(backend, sopts)
	cqlbackend.ReportClients(db.Executor(), srv)
	s := &Server{db: db, srv: srv, addr: l.Addr().(*net.TCPAddr), clock: clock, done: make(chan error, 1)}
	go func() { s.done <- srv.Serve(l) }()
	return s, nil
}

// Close stops the server, closes its connections and the database. It is
// safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		err := s.srv.Close()
		if serr := <-s.done; serr != nil && !errors.Is(serr, server.ErrServerClosed) && err == nil {
			err = serr
		}
		if derr := s.db.Close(); err == nil {
			err = derr
		}
		s.closeErr = err
	})
	return s.closeErr
}

// Addr returns the listen address as "host:port".
func (s *Server) Addr() string { return s.addr.String() }

// Host returns the listen IP address as a string, e.g. "127.0.0.1".
func (s *Server) Host() string { return s.addr.IP.String() }

// Port returns the listen port.
func (s *Server) Port() int { return s.addr.Port }

// DB returns the database behind the server, for direct access.
func (s *Server) DB() *minicass.DB { return s.db }

// Now returns the server clock's time.
func (s *Server) Now() time.Time { return s.clock.Now() }

// FastForward moves the server clock forward by d: cells whose TTL ends
// within d expire at once.
func (s *Server) FastForward(d time.Duration) { s.clock.Advance(d) }

// SetTime sets the server clock. Moving it backwards is allowed but makes
// new writes lose against later-timestamped ones, as on a real node.
func (s *Server) SetTime(t time.Time) { s.clock.Set(t) }

// Exec runs a statement directly, without the network.
func (s *Server) Exec(query string, args ...any) error {
	return s.db.Exec(context.Background(), query, args...)
}

// Query runs a statement directly and returns its rows (all of them).
func (s *Server) Query(query string, args ...any) *minicass.Rows {
	return s.db.Query(context.Background(), query, args...)
}

// MustExec runs statements directly and fails the test on the first error.
func (s *Server) MustExec(t testing.TB, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if err := s.Exec(q); err != nil {
			t.Fatalf("minicasstest: %s: %v", q, err)
		}
	}
}

// Flush writes every memtable to SSTables (in memory: the server's engine
// has no data directory) and returns once they are written.
func (s *Server) Flush() error { return s.db.Flush(context.Background(), "", "") }

// Rows runs query with args and returns its rows as Go values (see
// minicass.Row.Get), or the error.
func (s *Server) Rows(query string, args ...any) ([][]any, error) {
	rows := s.Query(query, args...)
	var out [][]any
	for rows.Next() {
		r := rows.Row()
		vals := make([]any, r.Len())
		for i := range vals {
			vals[i] = r.Get(i)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}

// CheckRow fails the test unless query (with args) returns exactly one row
// whose values are want. Values are compared by their fmt.Sprint form, so
// want may use untyped constants: 1 matches an int column's int32(1).
func (s *Server) CheckRow(t testing.TB, query string, args []any, want ...any) {
	t.Helper()
	rows, err := s.Rows(query, args...)
	if err != nil {
		t.Fatalf("minicasstest: %s: %v", query, err)
	}
	if len(rows) != 1 {
		t.Fatalf("minicasstest: %s: got %d rows, want 1: %v", query, len(rows), rows)
	}
	wantRow := []any(want)
	if got, w := fmt.Sprintf("%v", rows[0]), fmt.Sprintf("%v", wantRow); got != w {
		t.Errorf("minicasstest: %s: got row %s, want %s", query, got, w)
	}
}

// CheckCount fails the test unless query (with args) returns n rows.
func (s *Server) CheckCount(t testing.TB, query string, args []any, n int) {
	t.Helper()
	rows, err := s.Rows(query, args...)
	if err != nil {
		t.Fatalf("minicasstest: %s: %v", query, err)
	}
	if len(rows) != n {
		t.Errorf("minicasstest: %s: got %d rows, want %d: %v", query, len(rows), n, rows)
	}
}
