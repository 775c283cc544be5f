package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

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

	// inFlight is the global budget of request bytes
	// (MaxRequestDataInFlight).
	inFlight *budget
	// logins delays the answers to failed logins (login.go).
	logins *loginThrottle

	mu       sync.Mutex
	listener net.Listener
	conns    map[*conn]struct{}
	peers    map[string]*peer // by client IP
	closed   bool
	wg       sync.WaitGroup

	faults faultSet // see AddFault
}

// peer is what the server keeps per client address: its connections and
// its budget of request bytes (MaxRequestDataInFlightPerIP).
type peer struct {
	conns    int
	inFlight *budget
}

// New returns a Server executing requests through b. Options are completed
// with EnsureDefaults; invalid options are reported by Serve.
func New(b Backend, opts Options) *Server {
	opts.EnsureDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{backend: b, opts: opts, ctx: ctx, cancel: cancel, conns: make(map[*conn]struct{}),
		peers: make(map[string]*peer), inFlight: newBudget(opts.MaxRequestDataInFlight), logins: newLoginThrottle(opts.FailedLoginDelay)}
}

// ListenAndServe listens on the TCP address addr and calls Serve.
func (s *Server) ListenAndServe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Serve accepts connections on l until Close is called, serving each on
// its own goroutine. It returns ErrServerClosed after Close. Serve takes
// ownership of l.
//
// An accept error (such as running out of file descriptors) is logged and
// retried after a pause that starts at 5 ms and doubles up to 1 s while
// errors continue, as net/http's Server does; it does not end Serve. Only
// a closed listener does, returning the error unless Close closed it.
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

	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			if delay == 0 {
				delay = 5 * time.Millisecond
			} else if delay *= 2; delay > time.Second {
				delay = time.Second
			}
			s.opts.Logger.Error("accept failed; retrying", "err", err, "retry_in", delay)
			select {
			case <-time.After(delay):
			case <-s.ctx.Done():
				return ErrServerClosed
			}
			continue
		}
		delay = 0
		s.accept(nc)
	}
}

// accept registers and starts a new connection, or closes it when a
// connection limit is reached.
func (s *Server) accept(nc net.Conn) {
	ip := peerIP(nc.RemoteAddr())
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return
	}
	p := s.peers[ip]
	var refuse string
	switch {
	case s.opts.MaxConnections > 0 && len(s.conns) >= s.opts.MaxConnections:
		refuse = fmt.Sprintf("Exceeded maximum native connection limit of %d by using %d connections",
			s.opts.MaxConnections, len(s.conns)+1)
	case s.opts.MaxConnectionsPerIP > 0 && p != nil && p.conns >= s.opts.MaxConnectionsPerIP:
		refuse = fmt.Sprintf("Exceeded maximum native connection limit per ip of %d by using %d connections",
			s.opts.MaxConnectionsPerIP, p.conns+1)
	}
	if refuse != "" {
		s.mu.Unlock()
		s.opts.Logger.Warn(refuse, "remote", nc.RemoteAddr().String())
		nc.Close()
		return
	}
	if p == nil {
		p = &peer{inFlight: newBudget(s.opts.MaxRequestDataInFlightPerIP)}
		s.peers[ip] = p
	}
	p.conns++
	c := newConn(s, nc, p)
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		c.serve()
		s.mu.Lock()
		delete(s.conns, c)
		if p.conns--; p.conns == 0 {
			delete(s.peers, ip)
		}
		s.mu.Unlock()
	}()
}

// peerIP returns the IP of a client address, the key of the per-address
// limits; the whole address for addresses that are not TCP.
func peerIP(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
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
// Session calls in progress, to return, but no longer than
// Options.ShutdownTimeout: a Session call that ignores its cancelled
// context is then abandoned, and Close returns ErrShutdownTimeout. It is
// safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.wait()
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
	if werr := s.wait(); werr != nil {
		return werr
	}
	return err
}

// wait waits for the server's goroutines, at most ShutdownTimeout.
func (s *Server) wait() error {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(s.opts.ShutdownTimeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		s.opts.Logger.Error("shutdown timed out; abandoning running requests", "timeout", s.opts.ShutdownTimeout)
		return ErrShutdownTimeout
	}
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
