package server

import (
	"context"
	"errors"
	"net"
	"sync"

	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// Server serves the CQL native protocol v4 on the listeners given to Serve,
// executing requests through a Backend.
type Server struct {
	backend Backend
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc

	mu       sync.Mutex
	listener net.Listener
	conns    map[*conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// New returns a Server executing requests through b. Options are completed
// with EnsureDefaults; invalid options are reported by Serve.
func New(b Backend, opts Options) *Server {
	opts.EnsureDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{backend: b, opts: opts, ctx: ctx, cancel: cancel, conns: make(map[*conn]struct{})}
}

// ListenAndServe listens on the TCP address addr and calls Serve.
func (s *Server) ListenAndServe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Serve accepts connections on l until Close is called or l fails, serving
// each on its own goroutine. It returns ErrServerClosed after Close. Serve
// takes ownership of l.
func (s *Server) Serve(l net.Listener) error {
	if err := s.opts.Validate(); err != nil {
		l.Close()
		return err
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	case s.listener != nil:
		s.mu.Unlock()
		return ErrAlreadyServing
	}
	s.listener = l
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		if s.opts.MaxConnections > 0 && len(s.conns) >= s.opts.MaxConnections {
			s.mu.Unlock()
			s.opts.Logger.Warn("connection limit reached; closing new connection",
				"limit", s.opts.MaxConnections, "remote", nc.RemoteAddr().String())
			nc.Close()
			continue
		}
		c := newConn(s, nc)
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Addr returns the address of the listener, or nil before Serve.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listener == nil {
		return nil
	}
	return s.listener.Addr()
}

// NumConns returns the number of open client connections.
func (s *Server) NumConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Close stops accepting, closes every connection, cancels the contexts of
// running requests and waits for all the server's goroutines, including
// Session calls in progress, to return. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.closed = true
	var err error
	if s.listener != nil {
		err = s.listener.Close()
	}
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return err
}

// PublishSchemaChange pushes a SCHEMA_CHANGE event to every connection that
// registered for it. The server calls it itself for each Result of kind
// wire.ResultSchemaChange; a backend calls it for changes made outside the
// protocol (for example through an embedded API).
func (s *Server) PublishSchemaChange(c wire.SchemaChange) {
	ev := &frame.Event{Type: "SCHEMA_CHANGE", Change: &c}
	s.mu.Lock()
	targets := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		if c.schemaEvents.Load() {
			targets = append(targets, c)
		}
	}
	s.mu.Unlock()
	for _, c := range targets {
		c.writeMessage(-1, ev, nil)
	}
}
