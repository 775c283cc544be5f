package server_test

// The hostile-client suite: what an attacker or a broken client sends, in
// bounded loops, against the server's own code path (server.Serve over
// loopback TCP). Each test checks that the server stays up, answers a
// fresh client, and holds no more memory than stated.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// stuckBackend answers like the fake backend, except that a statement
// starting with "SELECT" or "INSERT" blocks until release is closed,
// ignoring its context, as a runaway computation in an executor would, and
// "HUGE" fails with an error whose text is 1 MiB long.
type stuckBackend struct {
	*fakeBackend
	release chan struct{}
	entered chan string
	ctxDone chan struct{} // closed when a blocked request's context ended
	once    sync.Once
	ctxErr  error // that context's error, set before ctxDone is closed
	hasDL   bool  // whether that context had a deadline
}

func newStuck() *stuckBackend {
	return &stuckBackend{fakeBackend: newFake(), release: make(chan struct{}), entered: make(chan string, 16), ctxDone: make(chan struct{})}
}

func (b *stuckBackend) NewSession(ctx context.Context, info server.ConnInfo) server.Session {
	return &stuckSession{fakeSession: b.fakeBackend.NewSession(ctx, info).(*fakeSession), b: b}
}

type stuckSession struct {
	*fakeSession
	b *stuckBackend
}

func (s *stuckSession) Query(ctx context.Context, q string, p *server.QueryParams) (*server.Result, error) {
	switch {
	case strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "INSERT"):
		s.b.entered <- q
		_, hasDL := ctx.Deadline()
		go func() {
			<-ctx.Done()
			s.b.once.Do(func() {
				s.b.ctxErr, s.b.hasDL = ctx.Err(), hasDL
				close(s.b.ctxDone)
			})
		}()
		<-s.b.release
		return &server.Result{Kind: wire.ResultSetKeyspace, Keyspace: "late"}, nil
	case q == "HUGE":
		return nil, &codedErr{wire.CodeInvalid, "Undefined column name " + strings.Repeat("é", 1<<19)}
	}
	return s.fakeSession.Query(ctx, q, p)
}

// dialFrom connects to srv from the loopback address src (127.0.0.0/8 is
// all loopback on Linux), so that tests can play several client hosts.
func dialFrom(t testing.TB, srv *server.Server, src string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	nc, err := d.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// probe checks that a fresh client from src completes a handshake and a
// query within a second.
func probe(t testing.TB, srv *server.Server, src string) {
	t.Helper()
	c := dialFrom(t, srv, src)
	deadline := time.Now().Add(time.Second)
	c.nc.SetDeadline(deadline)
	b, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest}, Message: &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}}).AppendTo(nil)
	require.NoError(t, err)
	q, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: 1}, Message: &frame.Query{Query: "USE ks", Params: frame.QueryParams{Consistency: wire.One}}}).AppendTo(nil)
	require.NoError(t, err)
	_, err = c.nc.Write(append(b, q...))
	require.NoError(t, err)
	for range 2 {
		var hb [frame.HeaderSize]byte
		_, err := io.ReadFull(c.br, hb[:])
		require.NoError(t, err, "a fresh client is answered within a second")
		h, _ := frame.ParseHeader(hb[:])
		_, err = c.br.Discard(int(h.Length))
		require.NoError(t, err)
	}
	c.nc.Close()
}

// heapInUse returns the bytes of heap and goroutine stacks in use after a
// garbage collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// header returns a v4 request header declaring a body of n bytes.
func header(op frame.Opcode, stream int16, n int) []byte {
	return frame.AppendHeader(nil, frame.Header{Version: frame.VersionRequest, Opcode: op, Stream: stream, Length: int32(n)})
}

func startupFrame() []byte {
	b, _ := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest}, Message: &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}}).AppendTo(nil)
	return b
}

// TestHugeDeclaredFrameBeforeReady: before READY a frame may declare at
// most MaxHandshakeFrameSize; a larger one is refused at once, without
// reading (or allocating) its body.
func TestHugeDeclaredFrameBeforeReady(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	for _, op := range []frame.Opcode{frame.OpStartup, frame.OpOptions, frame.OpQuery, frame.OpAuthResponse} {
		c := dial(t, srv)
		c.sendRaw(header(op, 3, 16<<20-10))
		f := c.recv()
		requireError(t, f.Message, wire.CodeInvalid,
			fmt.Sprintf("Request is too big: length %d exceeds maximum allowed length %d.", 16<<20-1, server.DefaultMaxHandshakeFrameSize))
		c.expectClosed()
	}
	// With authentication, the limit holds until AUTH_SUCCESS.
	srv = start(t, newFake(), server.Options{Authenticator: server.Passwords{"u": "p"}})
	c := dial(t, srv)
	require.IsType(t, &frame.Authenticate{}, c.roundTrip(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}))
	c.sendRaw(header(frame.OpAuthResponse, 1, 1<<20))
	requireError(t, c.recv().Message, wire.CodeInvalid, "")
	c.expectClosed()
	// The server's side is gone too, though the client keeps its end open:
	// draining after the error is bounded by its own half-second, not by the
	// handshake timeout.
	require.Eventually(t, func() bool { return srv.NumConns() == 0 }, 5*time.Second, time.Millisecond)
}

// TestHugeDeclaredFramesDoNotAllocate is the memory attack of issue 18:
// 40 ready connections each declare a frame just under 16 MiB and send
// only a part of it. The server used to allocate the declared length
// first (40 x 16 MiB); now it holds what arrived, and the per-address
// budget keeps all but one of them from being read at all. A client from
// another address is answered throughout.
func TestHugeDeclaredFramesDoNotAllocate(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	before := heapInUse()
	const n, sent = 40, 100 << 10
	chunk := make([]byte, sent)
	for i := range n {
		c := dialFrom(t, srv, "127.0.0.1")
		c.sendRaw(startupFrame())
		c.recv()
		c.sendRaw(header(frame.OpQuery, 1, 16<<20-frame.HeaderSize-1))
		// The write blocks only if the server stops reading, which the
		// per-address budget makes it do for all connections but one.
		c.nc.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
		c.nc.Write(chunk)
		if i%10 == 0 {
			probe(t, srv, "127.0.0.2")
		}
	}
	probe(t, srv, "127.0.0.2")
	grown := heapInUse() - before
	t.Logf("heap and stacks grew by %d KiB for %d connections with 16 MiB frames declared", grown>>10, n)
	// The bound: each connection's 16 KiB read buffer and the one body
	// being read (at most twice what arrived), with 8 MiB of slack for
	// the test's own buffers and the runtime, against 640 MiB before.
	assert.Less(t, grown, int64(n*16<<10+2*sent+8<<20))
}

// TestPartialFrames: a client that stops in the middle of a header or a
// body, before or after the handshake, holds no request up and is closed
// by the handshake timeout or the idle timeout.
func TestPartialFrames(t *testing.T) {
	srv := start(t, newFake(), server.Options{HandshakeTimeout: 200 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	var conns []*client
	for i := range 20 {
		c := dial(t, srv)
		switch i % 4 {
		case 0:
			c.sendRaw([]byte{4, 0, 0}) // half a header before STARTUP
		case 1:
			c.sendRaw(startupFrame()[:12]) // half a STARTUP
		case 2:
			c.sendRaw(startupFrame())
			c.recv()
			c.sendRaw(header(frame.OpQuery, 1, 1000)[:5]) // half a header when READY
		case 3:
			c.sendRaw(startupFrame())
			c.recv()
			c.sendRaw(append(header(frame.OpQuery, 1, 1000), make([]byte, 100)...)) // a tenth of a body
		}
		conns = append(conns, c)
	}
	probe(t, srv, "127.0.0.1")
	for _, c := range conns {
		c.expectClosed()
	}
	require.Eventually(t, func() bool { return srv.NumConns() == 0 }, 5*time.Second, time.Millisecond)
}

// TestIdleTimeoutSparesRunningRequests: a connection with a request in
// progress is not idle, however long the request runs.
func TestIdleTimeoutSparesRunningRequests(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{IdleTimeout: 50 * time.Millisecond, Timeouts: server.RequestTimeouts{Other: time.Minute}})
	c := dial(t, srv)
	c.startup()
	c.send(1, &frame.Query{Query: "WAIT idle", Params: frame.QueryParams{Consistency: wire.One}})
	require.Eventually(t, func() bool { return len(b.Calls()) == 1 }, 5*time.Second, time.Millisecond)
	// Outlive the idle timeout several times over, then release.
	time.Sleep(300 * time.Millisecond)
	close(b.gate("idle"))
	f := c.recv()
	require.IsType(t, &frame.Result{}, f.Message)
	c.expectClosed() // and then it is idle
}

// TestStrayAuthResponse: AUTH_RESPONSE in every state, with and without an
// authenticator, never drops the connection without an answer.
func TestStrayAuthResponse(t *testing.T) {
	token := []byte("\x00u\x00p")
	t.Run("no auth, before STARTUP", func(t *testing.T) {
		srv := start(t, newFake(), server.Options{})
		c := dial(t, srv)
		requireError(t, c.roundTrip(1, &frame.AuthResponse{Token: token}), wire.CodeProtocol,
			"Unexpected message AUTH_RESPONSE, expecting STARTUP or OPTIONS")
		c.startup()
		require.IsType(t, &frame.Result{}, c.query(2, "USE ks"))
	})
	t.Run("no auth, when READY", func(t *testing.T) {
		// As Cassandra's AllowAllAuthenticator: its negotiator completes at
		// once, so the answer is AUTH_SUCCESS.
		srv := start(t, newFake(), server.Options{})
		c := dial(t, srv)
		c.startup()
		for i := range 3 {
			require.IsType(t, &frame.AuthSuccess{}, c.roundTrip(int16(i), &frame.AuthResponse{Token: token}))
		}
		require.IsType(t, &frame.Result{}, c.query(5, "USE ks"))
	})
	t.Run("auth, after login", func(t *testing.T) {
		srv := start(t, newFake(), server.Options{Authenticator: server.Passwords{"u": "p"}})
		c := dial(t, srv)
		require.IsType(t, &frame.Authenticate{}, c.roundTrip(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}))
		require.IsType(t, &frame.AuthSuccess{}, c.roundTrip(1, &frame.AuthResponse{Token: token}))
		requireError(t, c.roundTrip(2, &frame.AuthResponse{Token: token}), wire.CodeProtocol,
			"Unexpected message AUTH_RESPONSE, the connection is already authenticated")
		require.IsType(t, &frame.Result{}, c.query(3, "USE ks"))
	})
}

// TestEveryMessageInEveryState sends each request opcode, with an empty
// and with a garbage body, in each handshake state: every one gets an
// answer (an error, or a result), none closes the connection without one.
func TestEveryMessageInEveryState(t *testing.T) {
	ops := []frame.Opcode{frame.OpStartup, frame.OpOptions, frame.OpQuery, frame.OpPrepare, frame.OpExecute,
		frame.OpRegister, frame.OpBatch, frame.OpAuthResponse}
	bodies := [][]byte{nil, {0xff, 0xff, 0xff, 0xff, 1, 2, 3}}
	for _, auth := range []bool{false, true} {
		opts := server.Options{}
		if auth {
			opts.Authenticator = server.Passwords{"u": "p"}
		}
		srv := start(t, newFake(), opts)
		for _, state := range []string{"established", "started", "ready"} {
			for _, op := range ops {
				for _, body := range bodies {
					c := dial(t, srv)
					switch state {
					case "started":
						c.sendRaw(startupFrame())
						c.recv()
					case "ready":
						c.sendRaw(startupFrame())
						c.recv()
						if auth {
							c.roundTrip(1, &frame.AuthResponse{Token: []byte("\x00u\x00p")})
						}
					}
					c.sendRaw(append(header(op, 7, len(body)), body...))
					f := c.recv()
					assert.Equal(t, int16(7), f.Header.Stream, "auth=%v %s %s %x", auth, state, op, body)
					c.nc.Close()
				}
			}
		}
		probe(t, srv, "127.0.0.1")
	}
}

// TestManyIdleConnections opens 2,000 connections that never send a byte,
// with a fresh client answered within a second throughout and memory
// bounded by 48 KiB a connection (a 16 KiB read buffer, the goroutine's
// stack and the bookkeeping).
func TestManyIdleConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 connections")
	}
	srv := start(t, newFake(), server.Options{})
	before := heapInUse()
	const n = 2000
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, nc := range conns {
			nc.Close()
		}
	})
	for i := range n {
		nc, err := net.Dial("tcp", srv.Addr().String())
		require.NoError(t, err)
		conns = append(conns, nc)
		if i%500 == 499 {
			probe(t, srv, "127.0.0.2")
		}
	}
	require.Eventually(t, func() bool { return srv.NumConns() == n }, 10*time.Second, time.Millisecond)
	probe(t, srv, "127.0.0.2")
	grown := heapInUse() - before
	t.Logf("heap and stacks grew by %d KiB for %d idle connections (%d B each)", grown>>10, n, grown/n)
	assert.Less(t, grown, int64(n*48<<10))
}

// TestConnectionLimitPerIP refuses a client address its connection beyond
// MaxConnectionsPerIP, and no other address.
func TestConnectionLimitPerIP(t *testing.T) {
	srv := start(t, newFake(), server.Options{MaxConnectionsPerIP: 2})
	a1, a2 := dialFrom(t, srv, "127.0.0.1"), dialFrom(t, srv, "127.0.0.1")
	a1.startup()
	a2.startup()
	a3 := dialFrom(t, srv, "127.0.0.1")
	a3.expectClosed()
	b1 := dialFrom(t, srv, "127.0.0.3")
	b1.startup()
	a1.nc.Close()
	require.Eventually(t, func() bool { return srv.NumConns() == 2 }, 5*time.Second, time.Millisecond)
	a4 := dialFrom(t, srv, "127.0.0.1")
	a4.startup()
}

// flakyListener fails its first failures Accepts with err, then accepts
// from the real listener.
type flakyListener struct {
	net.Listener
	mu       sync.Mutex
	failures int
	err      error
	calls    int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.calls++
	if l.failures > 0 {
		l.failures--
		l.mu.Unlock()
		return nil, l.err
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAcceptErrorsRetried: accept errors (here EMFILE, what 1,100 idle
// connections under a 1,024 open-file limit caused) are logged and
// retried with a growing pause; Serve goes on serving.
func TestAcceptErrorsRetried(t *testing.T) {
	for _, err := range []error{
		&net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE},
		errors.New("some permanent-looking failure"),
	} {
		real, lerr := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, lerr)
		fl := &flakyListener{Listener: real, failures: 6, err: err}
		var logs syncBuffer
		srv := server.New(newFake(), server.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		done := make(chan error, 1)
		go func() { done <- srv.Serve(fl) }()
		require.Eventually(t, func() bool { return srv.Addr() != nil }, time.Second, time.Millisecond)
		probe(t, srv, "127.0.0.1")
		out := logs.String()
		assert.Equal(t, 6, strings.Count(out, "accept failed; retrying"), out)
		for _, d := range []string{"5ms", "10ms", "20ms", "40ms", "80ms", "160ms"} {
			assert.Contains(t, out, "retry_in="+d)
		}
		require.NoError(t, srv.Close())
		require.ErrorIs(t, <-done, server.ErrServerClosed)
	}
}

// TestRequestTimeouts: a request still running at its deadline is answered
// with Cassandra's timeout error for its kind, its context is cancelled,
// and its late result is dropped; the connection goes on.
func TestRequestTimeouts(t *testing.T) {
	b := newStuck()
	srv := start(t, b, server.Options{Timeouts: server.RequestTimeouts{Read: 20 * time.Millisecond, Write: 20 * time.Millisecond}})
	t.Cleanup(func() { close(b.release) })
	c := dial(t, srv)
	c.startup()
	e := requireError(t, c.roundTrip(1, &frame.Query{Query: "SELECT * FROM ks.t WHERE k = 1", Params: frame.QueryParams{Consistency: wire.Quorum}}),
		wire.CodeReadTimeout, "Operation timed out - received only 0 responses.")
	assert.Equal(t, wire.Quorum, e.Consistency)
	assert.Equal(t, int32(0), e.Received)
	assert.Equal(t, int32(1), e.BlockFor)
	<-b.ctxDone // the request's context was cancelled
	assert.ErrorIs(t, b.ctxErr, context.DeadlineExceeded)
	assert.True(t, b.hasDL, "the request's context carries its deadline")
	e = requireError(t, c.roundTrip(2, &frame.Query{Query: "INSERT INTO ks.t (k) VALUES (1)", Params: frame.QueryParams{Consistency: wire.One}}),
		wire.CodeWriteTimeout, "Operation timed out - received only 0 responses.")
	assert.Equal(t, "SIMPLE", e.WriteType)
	require.IsType(t, &frame.Result{}, c.query(3, "USE ks"))
}

func TestClassifyStatement(t *testing.T) {
	for q, want := range map[string]server.RequestKind{
		"SELECT * FROM ks.t WHERE k = 1":                                      server.KindRead,
		"select v from t where k in (1, 2)":                                   server.KindRead,
		"SELECT * FROM ks.t":                                                  server.KindRange,
		"SELECT * FROM t WHERE token(k) > 0":                                  server.KindRange,
		"SELECT * FROM t WHERE \"token\" = 1":                                 server.KindRead,
		"SELECT 'where' FROM t":                                               server.KindRange,
		"  /* c */ -- x\n SELECT * FROM t // WHERE\n":                         server.KindRange,
		"INSERT INTO t (k) VALUES (1)":                                        server.KindWrite,
		"INSERT INTO t (k) VALUES (1) IF NOT EXISTS":                          server.KindCAS,
		"UPDATE t SET v = 'if' WHERE k = 1":                                   server.KindWrite,
		"UPDATE t SET v = 1 WHERE k = 1 IF v = 0":                             server.KindCAS,
		"DELETE FROM t WHERE k = 1 IF EXISTS":                                 server.KindCAS,
		"DELETE FROM t WHERE k = $$ IF $$":                                    server.KindWrite,
		"BEGIN BATCH INSERT INTO t (k) VALUES (1); APPLY BATCH":               server.KindBatch,
		"BEGIN UNLOGGED BATCH APPLY BATCH":                                    server.KindBatch,
		"BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = 1; APPLY BATCH": server.KindCounterWrite,
		"BEGIN BATCH UPDATE t SET v = 1 WHERE k = 1 IF v = 0; APPLY BATCH":    server.KindCAS,
		"TRUNCATE ks.t":                      server.KindTruncate,
		"CREATE TABLE t (k int PRIMARY KEY)": server.KindOther,
		"USE ks":                             server.KindOther,
		"":                                   server.KindOther,
		"'unterminated":                      server.KindOther,
	} {
		assert.Equal(t, want, server.ClassifyStatement(q), q)
	}
	d := server.DefaultRequestTimeouts
	assert.Equal(t, 5*time.Second, d.For(server.KindRead))
	assert.Equal(t, 10*time.Second, d.For(server.KindRange))
	assert.Equal(t, 2*time.Second, d.For(server.KindWrite))
	assert.Equal(t, 2*time.Second, d.For(server.KindBatch))
	assert.Equal(t, 5*time.Second, d.For(server.KindCounterWrite))
	assert.Equal(t, time.Second, d.For(server.KindCAS))
	assert.Equal(t, 60*time.Second, d.For(server.KindTruncate))
	assert.Equal(t, 10*time.Second, d.For(server.KindOther))
}

// TestShutdownBounded: Close returns within ShutdownTimeout even when a
// request ignores its cancelled context.
func TestShutdownBounded(t *testing.T) {
	b := newStuck()
	defer close(b.release)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := server.New(b, server.Options{ShutdownTimeout: 100 * time.Millisecond, Timeouts: server.RequestTimeouts{Read: time.Hour}})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	require.Eventually(t, func() bool { return srv.Addr() != nil }, time.Second, time.Millisecond)
	c := dial(t, srv)
	c.startup()
	c.send(1, &frame.Query{Query: "SELECT * FROM t WHERE k = 1", Params: frame.QueryParams{Consistency: wire.One}})
	<-b.entered
	require.ErrorIs(t, srv.Close(), server.ErrShutdownTimeout)
	require.ErrorIs(t, <-done, server.ErrServerClosed)
	<-b.ctxDone
}

// TestHugeErrorText: an error whose text is longer than a [string] holds
// (a 1 MiB identifier in "Undefined column name ...") is sent with its
// text cut, with its code, instead of an encoding failure.
func TestHugeErrorText(t *testing.T) {
	srv := start(t, newStuck(), server.Options{})
	c := dial(t, srv)
	c.startup()
	e := requireError(t, c.query(1, "HUGE"), wire.CodeInvalid, "")
	assert.LessOrEqual(t, len(e.Message), 65535)
	assert.True(t, strings.HasPrefix(e.Message, "Undefined column name éé"))
	assert.True(t, strings.HasSuffix(e.Message, "é..."), e.Message[len(e.Message)-10:])
	require.IsType(t, &frame.Result{}, c.query(2, "USE ks"))
}

// TestInFlightBudgetPausesReading: a connection whose next frame does not
// fit its address's budget is not read until an earlier request is
// answered; the frame is then served.
func TestInFlightBudgetPausesReading(t *testing.T) {
	b := newStuck()
	srv := start(t, b, server.Options{MaxRequestDataInFlightPerIP: 3000, Timeouts: server.RequestTimeouts{Read: time.Hour}})
	c := dial(t, srv)
	c.startup()
	big := "SELECT * FROM t WHERE k = '" + strings.Repeat("x", 2000) + "'"
	c.send(1, &frame.Query{Query: big, Params: frame.QueryParams{Consistency: wire.One}})
	require.Equal(t, big, <-b.entered)
	// The second frame does not fit beside the first: it stays unread
	// while the first runs, and the third, behind it, too.
	c.send(2, &frame.Query{Query: big, Params: frame.QueryParams{Consistency: wire.One}})
	c.send(3, &frame.Query{Query: "USE ks", Params: frame.QueryParams{Consistency: wire.One}})
	// A client from another address is not held up.
	probe(t, srv, "127.0.0.2")
	select {
	case q := <-b.entered:
		t.Fatalf("second request ran while the budget was spent: %.20s", q)
	default:
	}
	close(b.release)
	got := map[int16]bool{}
	for range 3 {
		got[c.recv().Header.Stream] = true
	}
	assert.Equal(t, map[int16]bool{1: true, 2: true, 3: true}, got)
}

// TestPanicsLogged: a panic in a Session is answered with a Server error
// and logged with its stack through Options.Logger.
func TestPanicsLogged(t *testing.T) {
	var logs syncBuffer
	srv := start(t, newFake(), server.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c := dial(t, srv)
	c.startup()
	requireError(t, c.query(1, "PANIC"), wire.CodeServer, "")
	require.IsType(t, &frame.Result{}, c.query(2, "USE ks"))
	out := logs.String()
	assert.Contains(t, out, `level=ERROR msg="panic while executing request" op=QUERY panic="backend exploded"`)
	assert.Contains(t, out, "stack=")
}

// FuzzClassifyStatement: any text has a kind, found in one pass.
func FuzzClassifyStatement(f *testing.F) {
	for _, q := range []string{"SELECT * FROM t WHERE token(k) > 0", "INSERT INTO t (k) VALUES (1) IF NOT EXISTS",
		"BEGIN COUNTER BATCH APPLY BATCH", "'unterminated", "/* open", "$$ open", "\"q\"\"x\" WHERE"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		k := server.ClassifyStatement(q)
		assert.LessOrEqual(t, k, server.KindTruncate)
		assert.Positive(t, server.DefaultRequestTimeouts.For(k))
	})
}

// pipeListener hands net.Pipe connections to Serve.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9042} }

func (l *pipeListener) dial() net.Conn {
	c, s := net.Pipe()
	l.conns <- s
	return c
}

// FuzzConnection sends arbitrary bytes on a connection, raw, after a
// STARTUP, and after a v5 STARTUP (segments): the server answers or closes
// the connection, and no panic reaches its read loop's last-resort recover.
func FuzzConnection(f *testing.F) {
	q, _ := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: 1}, Message: &frame.Query{Query: "USE ks", Params: frame.QueryParams{Consistency: wire.One}}}).AppendTo(nil)
	f.Add(byte(0), q)
	f.Add(byte(1), q)
	f.Add(byte(1), header(frame.OpAuthResponse, 2, 4))
	f.Add(byte(2), []byte{0, 0, 0, 0, 0, 0})
	f.Add(byte(0), []byte{4, 0, 0, 1, 7, 0, 0xff, 0xff, 0xff})
	var logs syncBuffer
	l := newPipeListener()
	srv := server.New(newFake(), server.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), HandshakeTimeout: time.Second,
		IdleTimeout: time.Second, Timeouts: server.RequestTimeouts{Other: time.Second}})
	go srv.Serve(l)
	f.Cleanup(func() { srv.Close() })
	v5Startup, _ := (&frame.Frame{Header: frame.Header{Version: 5}, Message: &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}}).AppendTo(nil)
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		c := l.dial()
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		read := make(chan struct{})
		go func() {
			io.Copy(io.Discard, c)
			close(read)
		}()
		switch mode % 3 {
		case 1:
			c.Write(startupFrame())
		case 2:
			c.Write(v5Startup)
		}
		c.Write(data)
		c.Close()
		<-read
		require.NotContains(t, logs.String(), "panic")
	})
}

// TestV5HugeDeclaredEnvelopes is the memory attack in v5 segments: 20
// connections each start an envelope declaring 15 MiB and send two
// segments of it. The server holds what arrived.
func TestV5HugeDeclaredEnvelopes(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	before := heapInUse()
	const n = 20
	for i := range n {
		c := dialV5(t, srv, "")
		env := frame.AppendHeader(nil, frame.Header{Version: frame.RequestVersion(5), Opcode: frame.OpQuery, Stream: 1, Length: 15 << 20})
		env = append(env, make([]byte, 2*frame.MaxSegmentPayload-len(env))...)
		c.nc.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
		c.nc.Write(frame.AppendSegment(nil, env[:frame.MaxSegmentPayload], false, false))
		c.nc.Write(frame.AppendSegment(nil, env[frame.MaxSegmentPayload:], false, false))
		if i%5 == 0 {
			probe(t, srv, "127.0.0.2")
		}
	}
	probe(t, srv, "127.0.0.2")
	grown := heapInUse() - before
	t.Logf("heap and stacks grew by %d KiB for %d v5 connections with 15 MiB envelopes declared", grown>>10, n)
	// What arrived (2 segments of 128 KiB each), the buffer grown to hold
	// it (at most twice), the read buffers, and 8 MiB of slack: against
	// 300 MiB if the declared length were allocated.
	assert.Less(t, grown, int64(n*(4*frame.MaxSegmentPayload+32<<10)+8<<20))
}
