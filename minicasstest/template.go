package minicasstest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql"
)

// Snapshots and templates. A Snapshot freezes the server's whole state,
// schema and data, and Restore puts it back, in this server or another, in
// microseconds whatever the data (see minicass.Snapshot): a test that
// needs a clean slate restores instead of dropping keyspaces, and the
// "keyspace already exists" of a reused node does not arise.
//
// A Template runs migrations and seed data once per test binary and starts
// each test's server from the result:
//
//	var tpl = minicasstest.NewTemplate(func(srv *minicasstest.Server) error {
//		return srv.ExecFile("testdata/schema.cql")
//	})
//
//	func TestOrders(t *testing.T) {
//		t.Parallel()
//		srv := tpl.Start(t) // a server of its own, in the template's state
//		...
//	}

// Snapshot freezes the server's schema and data (see minicass.DB.Snapshot).
// Take it while no request runs for a state consistent across tables.
func (s *Server) Snapshot() (*minicass.Snapshot, error) { return s.db.Snapshot() }

// Restore replaces the server's schema and data with the snapshot's, which
// stays usable (see minicass.DB.Restore). Connected drivers keep their
// connections; a driver caches schema metadata, which a restore does not
// announce to it, and prepares again the statements on tables the restore
// dropped or changed when the server answers Unprepared.
func (s *Server) Restore(snap *minicass.Snapshot) error { return s.db.Restore(snap) }

// Reset empties the server: its state becomes that of a server started
// with Start (system keyspaces; with Options.Auth, its superusers), even
// for one started from a template.
func (s *Server) Reset() error {
	if err := s.db.Reset(); err != nil {
		return err
	}
	if s.auth != nil {
		return s.db.Executor().EnableAuthentication(context.Background(), cql.AuthOptions{Superusers: s.auth, LogRounds: 4})
	}
	return nil
}

// MustReset is Reset failing the test on error.
func (s *Server) MustReset(t testing.TB) {
	t.Helper()
	if err := s.Reset(); err != nil {
		t.Fatalf("minicasstest: reset: %v", err)
	}
}

// Template is a state made once, by a setup function run on a server of
// its own, that servers start from. It is safe for concurrent use.
type Template struct {
	opts  Options
	setup func(*Server) error

	once sync.Once
	snap *minicass.Snapshot
	// clock is the setup server's time when the snapshot was taken.
	clock time.Time
	err   error
}

// NewTemplate returns a template whose state setup makes (migrations, seed
// data). setup runs once, at the first Start or Run, on a server started
// with the zero Options (so that a driver may run it too); its error fails
// every Start.
func NewTemplate(setup func(srv *Server) error) *Template {
	return NewTemplateOptions(Options{}, setup)
}

// NewTemplateOptions is NewTemplate with Options, used for the setup
// server and for every server the template starts (each gets a free port
// when Addr is empty).
func NewTemplateOptions(opts Options, setup func(srv *Server) error) *Template {
	return &Template{opts: opts, setup: setup}
}

// prepare runs the setup once and snapshots its result; the setup server
// is closed then (the snapshot keeps what it needs).
func (tpl *Template) prepare() error {
	tpl.once.Do(func() {
		srv, err := RunOptions(tpl.opts)
		if err != nil {
			tpl.err = fmt.Errorf("minicasstest: template: %w", err)
			return
		}
		defer srv.Close()
		if err := tpl.setup(srv); err != nil {
			tpl.err = fmt.Errorf("minicasstest: template setup: %w", err)
			return
		}
		tpl.clock = srv.Now()
		if tpl.snap, err = srv.Snapshot(); err != nil {
			tpl.err = fmt.Errorf("minicasstest: template: %w", err)
		}
	})
	return tpl.err
}

// Snapshot returns the template's state, running the setup first if it has
// not run. The snapshot belongs to the template: do not release it.
func (tpl *Template) Snapshot() (*minicass.Snapshot, error) {
	if err := tpl.prepare(); err != nil {
		return nil, err
	}
	return tpl.snap, nil
}

// Run starts a server in the template's state. The caller must Close it.
// Its Reset empties it; Restore(tpl.Snapshot()) goes back to the template.
func (tpl *Template) Run() (*Server, error) {
	snap, err := tpl.Snapshot()
	if err != nil {
		return nil, err
	}
	opts := tpl.opts
	if now := time.Now(); opts.Start.IsZero() && tpl.clock.After(now) {
		// The setup moved its clock ahead: start there, or the data's
		// TTLs would last longer than the setup meant.
		opts.Start = tpl.clock
	}
	return runFrom(opts, snap)
}

// Start is Run for a test: the server stops when the test ends, and a
// failure (of the setup too) fails the test.
func (tpl *Template) Start(t testing.TB) *Server {
	t.Helper()
	s, err := tpl.Run()
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { s.Close() })
	s.warnings.setLog(t.Logf)
	return s
}

// Close releases the template's snapshot; servers started from it are
// unaffected. Start and Run fail afterwards.
func (tpl *Template) Close() {
	tpl.once.Do(func() {})
	if tpl.snap != nil {
		tpl.snap.Release()
	}
	if tpl.err == nil {
		tpl.err = fmt.Errorf("minicasstest: template closed")
	}
}
