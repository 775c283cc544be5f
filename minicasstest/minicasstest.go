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
//
// Beware of mixing the two clocks once the server's is moved ahead: what the
// server stamps (srv.Exec, a DELETE without USING TIMESTAMP) is then in the
// future for the driver, and shadows the driver's later writes. Set
//
//	cluster.DefaultTimestamp = false
//
// so that the server stamps every write. A write whose client timestamp is
// more than a second behind the server's clock gets a client warning
// (gocql's Iter.Warnings), is listed by ClockWarnings, and, for a server
// made with Start, is logged to the test.
//
// ExecScript and ExecFile run a CQL script as cqlsh runs a file, and
// CheckRow compares values as their columns' types.
//
// A Template runs migrations and seed data once and starts each test's
// server in that state; Snapshot, Restore and Reset move a server between
// states in microseconds (template.go). StartQueryLog records every request
// with assertions on it (querylog.go), and EnableChecks fails a test that
// uses a data-modelling anti-pattern (antipattern.go).
package minicasstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/cqlbackend"
	"github.com/minicass/minicass/types"
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
	// Authorizer is the authorizer with Auth: CassandraAuthorizer (the
	// default, "") checks every statement against the permissions granted
	// to the session's role, as a Cassandra 4.1 node configured with
	// PasswordAuthenticator and CassandraAuthorizer; AllowAllAuthorizer
	// (cql.AllowAllAuthorizer) checks none.
	Authorizer string
	// Start is the initial time of the manual clock. Default: time.Now().
	Start time.Time
	// Partitioner is the node's partitioner (cassandra.yaml's
	// partitioner): minicass.Murmur3Partitioner, the default, or
	// minicass.ByteOrderedPartitioner, for tests written against a cluster
	// that keeps partitions in key order.
	Partitioner minicass.Partitioner
	// MaterializedViewsEnabled allows CREATE MATERIALIZED VIEW
	// (materialized_views_enabled), off by default as in Cassandra 4.1.
	MaterializedViewsEnabled bool
	// UserDefinedFunctionsEnabled allows CREATE FUNCTION
	// (user_defined_functions_enabled), off by default as in Cassandra 4.1.
	UserDefinedFunctionsEnabled bool
	// ScriptedUserDefinedFunctionsEnabled also allows LANGUAGE javascript
	// functions (scripted_user_defined_functions_enabled), off by default
	// as in Cassandra 4.1.
	ScriptedUserDefinedFunctionsEnabled bool

	// VirtualKeyspaces are keyspaces of tables implemented in Go
	// (minicass.Options.VirtualKeyspaces), which the server's clients
	// read and write as Cassandra's virtual tables. Nil: none.
	VirtualKeyspaces []minicass.VirtualKeyspace
	// Triggers are the trigger classes, implemented in Go, that the
	// server's clients may create triggers with
	// (minicass.Options.Triggers). Nil: none.
	Triggers map[string]minicass.Trigger
}

// Server is a running minicass server. Its methods are safe for concurrent
// use.
type Server struct {
	db    *minicass.DB
	srv   *server.Server
	addr  *net.TCPAddr
	clock *Clock
	// warnings are the client-timestamp warnings (clockwarn.go).
	warnings *clockWarnings
	// auth are the superusers Reset creates again (Options.Auth).
	auth map[string]string
	done chan error

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
	s.warnings.setLog(t.Logf)
	return s
}

// Run starts a server on a free loopback port. The caller must Close it.
func Run() (*Server, error) { return RunOptions(Options{}) }

// RunOptions starts a server configured by opts. The caller must Close it.
func RunOptions(opts Options) (*Server, error) { return runFrom(opts, nil) }

// runFrom starts a server configured by opts whose state, when from is not
// nil, is restored from it before it listens (Template.Run).
func runFrom(opts Options, from *minicass.Snapshot) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	clock := minicass.NewManualClock(opts.Start)
	db, err := minicass.Open(minicass.Options{Clock: clock, From: from, Partitioner: opts.Partitioner, MaterializedViewsEnabled: opts.MaterializedViewsEnabled,
		UserDefinedFunctionsEnabled: opts.UserDefinedFunctionsEnabled, ScriptedUserDefinedFunctionsEnabled: opts.ScriptedUserDefinedFunctionsEnabled,
		VirtualKeyspaces: opts.VirtualKeyspaces, Triggers: opts.Triggers})
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
	warnings := &clockWarnings{}
	cqlb := cqlbackend.New(db.Executor())
	backend := &clockCheck{Backend: cqlb, now: clock.Now, warnings: warnings, text: func(id []byte) string {
		if p := db.Executor().Lookup(id); p != nil {
			return p.Query
		}
		return ""
	}}
	var sopts server.Options
	if opts.Auth != nil {
		authorizer := opts.Authorizer
		if authorizer == "" {
			authorizer = cql.CassandraAuthorizer
		}
		if err := db.Executor().EnableAuthentication(context.Background(), cql.AuthOptions{Superusers: opts.Auth, LogRounds: 4, Authorizer: authorizer}); err != nil {
			l.Close()
			db.Close()
			return nil, err
		}
		sopts.Authenticator = cqlb
	}
	srv := server.New(backend, sopts)
	cqlbackend.ReportClients(db.Executor(), srv)
	s := &Server{db: db, srv: srv, addr: l.Addr().(*net.TCPAddr), clock: clock, warnings: warnings, auth: opts.Auth, done: make(chan error, 1)}
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

// ExecScript runs the statements of a CQL script in order, as cqlsh runs a
// file (see minicass.Session.ExecScript), on a session of its own: a USE
// in the script applies to the script's statements only.
func (s *Server) ExecScript(script string) error {
	return s.db.Session().ExecScript(context.Background(), script)
}

// ExecFile runs the CQL script in the file at path (see ExecScript).
func (s *Server) ExecFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return s.ExecScript(string(b))
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
// whose values are want. Each wanted value is encoded for its column's CQL
// type as a bound value would be (so 1 matches an int column, a gocql.UUID
// a uuid column, nil a null) and compared with the row's value byte for
// byte: a value of another type, such as the text "1" for an int column,
// does not match.
func (s *Server) CheckRow(t testing.TB, query string, args []any, want ...any) {
	t.Helper()
	rows := s.Query(query, args...)
	var found []minicass.Row
	for rows.Next() {
		found = append(found, rows.Row())
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("minicasstest: %s: %v", query, err)
	}
	if len(found) != 1 {
		t.Fatalf("minicasstest: %s: got %d rows, want 1: %v", query, len(found), found)
	}
	if msg := rowMismatch(found[0], want); msg != "" {
		t.Errorf("minicasstest: %s: %s", query, msg)
	}
}

// rowMismatch describes how row differs from want, or returns "".
func rowMismatch(row minicass.Row, want []any) string {
	cols := row.Columns()
	if len(want) != len(cols) {
		return fmt.Sprintf("got %d columns %v, want %d values %v", len(cols), row, len(want), want)
	}
	for i, c := range cols {
		if _, isString := want[i].(string); isString && numeric(c.Type) {
			return fmt.Sprintf("column %s (%s): the wanted value %q is a string, not a %s", c.Name, c.Type, want[i], c.Type)
		}
		w, err := types.Encode(c.Type, want[i])
		if err != nil {
			return fmt.Sprintf("column %s (%s): the wanted value %#v is not a %s: %v", c.Name, c.Type, want[i], c.Type, err)
		}
		got := row.Bytes(i)
		if (w == nil) != (got == nil) || !bytes.Equal(w, got) {
			return fmt.Sprintf("column %s (%s): got %s, want %s", c.Name, c.Type, formatCell(c.Type, got), formatCell(c.Type, w))
		}
	}
	return ""
}

// numeric reports whether t is a number or a boolean, which a wanted
// value must give as a Go number or bool, not as text.
func numeric(t types.Type) bool {
	switch t.Kind {
	case types.Int, types.Bigint, types.Smallint, types.Tinyint, types.Varint, types.Counter,
		types.Float, types.Double, types.Decimal, types.Boolean:
		return true
	}
	return false
}

func formatCell(t types.Type, b []byte) string {
	if b == nil {
		return "null"
	}
	return types.Format(t, b)
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
