package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/snappy"

	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// connState is the handshake state of a connection, as in Cassandra's
// ServerConnection.
type connState uint8

const (
	stateUninitialized  connState = iota // before STARTUP
	stateAuthentication                  // after STARTUP, before AUTH_SUCCESS
	stateReady
)

// conn is one client connection. The read loop (serve) decodes frames and
// handles the handshake messages itself, in order; QUERY, PREPARE, EXECUTE
// and BATCH run on the connection's workers, at most MaxRequestsPerConn at
// once.
//
// Workers: the read loop hands a request to an idle worker over the
// unbuffered channel work, or starts a new worker when none is idle and
// fewer than MaxRequestsPerConn exist, or else waits for one to become idle.
// A worker that finishes a request stays for the next one unless maxIdle
// workers are already idle. Reusing goroutines keeps their grown stacks: a
// fresh goroutine per request spent a tenth of the CPU of a prepared INSERT
// growing its stack through the CQL executor.
//
// Writes: a response is encoded by the goroutine that produced it and
// appended to wbuf under wmu. If no goroutine is writing, the appender
// becomes the writer and writes wbuf with one syscall, then whatever was
// appended meanwhile, until wbuf is empty. Responses finishing while a write
// is in progress thus leave in one syscall, with no timer and no extra
// goroutine: a lone request is written at once.
type conn struct {
	srv    *Server
	peer   *peer  // the client address's connection count and budget
	cid    uint32 // see id
	nc     net.Conn
	br     *bufio.Reader
	ctx    context.Context
	cancel context.CancelFunc

	// handshakeDeadline is when a connection not yet READY is closed;
	// zero without a HandshakeTimeout.
	handshakeDeadline time.Time
	deadlineSet       bool         // a read deadline is set on nc; read loop only
	lingering         bool         // lingerClose is draining the input; read loop only
	running           atomic.Int32 // requests handed to workers and not yet answered
	lastWrite         atomic.Int64 // UnixNano of the last write, kept only with an IdleTimeout

	// Read-loop state.
	state         connState
	inCompress    string // compression of request bodies (v3, v4) or segments (v5): "", "snappy" or "lz4"
	segments      bool   // requests arrive in v5 segments
	large         []byte // the envelope being reassembled from segments that are not self-contained
	largeLen      int    // its length, header included
	largeReserved int64  // the budget it holds
	startup       map[string]string
	session       Session
	reqs          sync.WaitGroup // running workers

	work     chan request // unbuffered: a send succeeds only to an idle worker
	nworkers atomic.Int32 // started by the read loop, decremented on exit
	idle     atomic.Int32 // workers waiting on work

	schemaEvents atomic.Bool

	// version is the protocol version responses are written in: the
	// version of the frame being answered before STARTUP, then the
	// connection's version, fixed by STARTUP.
	version atomic.Int32

	// What Clients reports: the handshake stage and user, set by the read
	// loop under infoMu, and the requests received.
	infoMu   sync.Mutex
	stage    connState
	user     string
	requests atomic.Int64

	wmu      sync.Mutex
	wcond    sync.Cond // signalled (with wmu) when a write syscall ends
	wbuf     []byte    // encoded responses waiting to be written
	spare    []byte    // the buffer being written, reused as wbuf
	writing  bool      // a goroutine is writing; guarded by wmu
	compress string    // "", "snappy" or "lz4"; guarded by wmu
	segOut   bool      // responses go out in v5 segments; guarded by wmu
	werr     error     // guarded by wmu
}

// request is a QUERY, PREPARE, EXECUTE or BATCH handed to a worker, with
// the bytes it holds of the in-flight budgets (released once answered).
type request struct {
	stream   int16
	m        frame.Message
	reserved int64
}

// Tuning of the connection loop.
const (
	// maxIdle is the number of idle workers a connection keeps. A driver
	// multiplexing 64 goroutines sends bursts of about 64 requests; keeping
	// fewer idle workers than a burst re-creates the difference every
	// burst (measured: 16 costs about 10% more CPU per INSERT than 128 at
	// 64 goroutines). An idle worker costs its stack (a few KiB, shrunk by
	// the GC when unused).
	maxIdle = 128
	// maxPending is the amount of encoded responses waiting for a slow
	// client beyond which producers wait for the writer (backpressure).
	maxPending = 1 << 20
	// maxSpare is the largest write buffer kept for reuse.
	maxSpare = 256 << 10
)

func newConn(s *Server, nc net.Conn, p *peer) *conn {
	ctx, cancel := context.WithCancel(s.ctx)
	c := &conn{
		srv:    s,
		peer:   p,
		nc:     nc,
		ctx:    ctx,
		cancel: cancel,
		work:   make(chan request),
		cid:    connIDs.Add(1),
	}
	c.br = bufio.NewReaderSize(connReader{c}, 16<<10)
	if t := s.opts.HandshakeTimeout; t > 0 {
		c.handshakeDeadline = time.Now().Add(t)
	}
	c.version.Store(frame.ProtocolVersion)
	c.wcond.L = &c.wmu
	return c
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// serve runs the read loop until the connection fails or is closed, then
// waits for the connection's requests and releases the session.
func (c *conn) serve() {
	log := c.srv.opts.Logger
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic in connection read loop", "panic", p, "stack", string(debug.Stack()))
		}
		c.cancel()
		c.nc.Close()
		if c.large != nil {
			c.unreserve(c.largeReserved)
		}
		c.reqs.Wait()
		if cl, ok := c.session.(io.Closer); ok {
			cl.Close()
		}
	}()
	for {
		if err := c.readFrame(); err != nil {
			if errors.Is(err, errClose) {
				c.waitWritten()
				c.lingerClose()
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Debug("closing connection", "remote", c.nc.RemoteAddr().String(), "err", err)
			}
			return
		}
	}
}

// lingerClose half-closes the connection and drains what the client still
// sends for a moment, so that the error frame just written is not lost to a
// TCP reset caused by closing a socket with unread input.
func (c *conn) lingerClose() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.lingering = true // the connection's own deadlines no longer apply
	c.nc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	io.CopyN(io.Discard, c.br, 1<<20)
}

// voidResult is sent for a nil Result. It is never modified.
var voidResult = &Result{Kind: wire.ResultVoid}

// errClose ends the read loop after a fatal protocol error was answered.
var errClose = errors.New("server: connection closed after protocol error")

// headerSizeFor returns the header size a client speaking version v uses:
// 8 bytes for v1 and v2, 9 from v3.
func headerSizeFor(v byte) int {
	if v == 1 || v == 2 {
		return 8
	}
	return frame.HeaderSize
}

// versionName is the name Cassandra's ProtocolVersion prints, e.g. "5/v5".
func versionName(v int) string { return fmt.Sprintf("%d/v%d", v, v) }

// supportedVersions lists the protocol versions served, as SUPPORTED's
// PROTOCOL_VERSIONS and the unsupported-version error name them.
var supportedVersions = func() []string {
	var out []string
	for v := frame.MinProtocolVersion; v <= frame.MaxProtocolVersion; v++ {
		out = append(out, versionName(v))
	}
	return out
}()

// connReader reads from the connection under its deadlines: the handshake
// deadline until the connection is READY, and the idle timeout. When the
// idle timeout expires while a request runs or a response was written
// recently, the read is re-armed instead of failing, so that only a
// connection idle both ways is closed, as Cassandra's
// native_transport_idle_timeout does.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	c := r.c
	if c.lingering {
		return c.nc.Read(p)
	}
	for {
		d := c.readDeadline()
		if !d.IsZero() || c.deadlineSet {
			c.nc.SetReadDeadline(d)
			c.deadlineSet = !d.IsZero()
		}
		n, err := c.nc.Read(p)
		if n > 0 || err == nil || !isTimeout(err) || !c.stillActive() {
			return n, err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readDeadline returns the deadline of the next read, zero for none.
func (c *conn) readDeadline() time.Time {
	var d time.Time
	if c.state != stateReady {
		d = c.handshakeDeadline
	}
	if t := c.srv.opts.IdleTimeout; t > 0 {
		if idle := time.Now().Add(t); d.IsZero() || idle.Before(d) {
			d = idle
		}
	}
	return d
}

// stillActive reports, after a read timed out, whether the connection is
// to be kept: it is within its handshake time and not idle (a request
// runs, or it wrote within the idle timeout).
func (c *conn) stillActive() bool {
	now := time.Now()
	if c.state != stateReady && !c.handshakeDeadline.IsZero() && !now.Before(c.handshakeDeadline) {
		c.srv.opts.Logger.Info("closing connection: handshake timed out", "remote", c.nc.RemoteAddr().String(),
			"timeout", c.srv.opts.HandshakeTimeout)
		return false
	}
	t := c.srv.opts.IdleTimeout
	if t <= 0 {
		return true // the handshake deadline expired early: keep reading
	}
	if c.running.Load() > 0 || now.Sub(time.Unix(0, c.lastWrite.Load())) < t {
		return true
	}
	c.srv.opts.Logger.Debug("closing idle connection", "remote", c.nc.RemoteAddr().String(), "idle_timeout", t)
	return false
}

// reserve takes n bytes from the client address's and the global
// in-flight budgets, waiting (reading nothing more from this connection)
// until they are free, as Cassandra pauses a channel that is over its
// limits. It returns the bytes reserved: 0 before the connection is READY,
// since handshake frames are bounded by MaxHandshakeFrameSize and
// HandshakeTimeout instead, so that clients stuck on the budget of their
// address do not keep a new connection from logging in.
func (c *conn) reserve(n int64) (int64, error) {
	if c.state != stateReady {
		return 0, nil
	}
	ipb, gb := c.peer.inFlight, c.srv.inFlight
	if ipb.tryAcquire(n) {
		if gb.tryAcquire(n) {
			return n, nil
		}
	} else if err := ipb.acquire(c.ctx, n); err != nil {
		return 0, err
	}
	if err := gb.acquire(c.ctx, n); err != nil {
		ipb.release(n)
		return 0, err
	}
	return n, nil
}

// unreserve gives back bytes taken by reserve.
func (c *conn) unreserve(n int64) {
	if n > 0 {
		c.srv.inFlight.release(n)
		c.peer.inFlight.release(n)
	}
}

// readBody reads an n-byte body. Memory grows with the bytes that
// arrive, not with the declared length: a client that declares a large
// frame and sends little makes the server hold little. Bodies up to 64 KiB
// on a READY connection (whose budget holds them) are allocated at once.
func (c *conn) readBody(n int) ([]byte, error) {
	step := 64 << 10
	if c.state != stateReady {
		step = 1 << 10
	}
	if n <= step {
		body := make([]byte, n)
		_, err := io.ReadFull(c.br, body)
		return body, err
	}
	body := make([]byte, 0, step)
	for len(body) < n {
		if len(body) == cap(body) {
			body = slices.Grow(body, min(n-len(body), len(body)))
		}
		k, err := c.br.Read(body[len(body):min(cap(body), n)])
		body = body[:len(body)+k]
		if err != nil {
			return nil, err
		}
	}
	return body, nil
}

// readFrame reads and dispatches one frame, or in v5 after the handshake
// one segment and the envelopes it completes.
func (c *conn) readFrame() error {
	if c.segments {
		return c.readSegment()
	}
	first, err := c.br.Peek(1)
	if err != nil {
		return err
	}
	version := first[0] & frame.VersionMask
	if version < frame.MinProtocolVersion || version > frame.MaxProtocolVersion {
		return c.rejectVersion(version)
	}
	hb, err := c.br.Peek(frame.HeaderSize)
	if err != nil {
		return err
	}
	h, _ := frame.ParseHeader(hb)
	c.br.Discard(frame.HeaderSize)
	if err := c.checkHeader(h); err != nil {
		return err
	}
	reserved, err := c.reserve(int64(h.Length) + frame.HeaderSize)
	if err != nil {
		return err
	}
	body, err := c.readBody(int(h.Length))
	if err != nil {
		c.unreserve(reserved)
		return err // a client gone mid-frame: nothing to answer
	}
	if h.Flags&frame.FlagCompressed != 0 && h.ProtocolVersion() < 5 {
		if body, err = c.decompressBody(h, body); err != nil {
			c.unreserve(reserved)
			return err
		}
	}
	return c.decodeAndDispatch(h, body, reserved)
}

// checkHeader checks an envelope header before its body is read: version,
// direction, length and opcode. A failure is answered and closes the
// connection.
func (c *conn) checkHeader(h frame.Header) error {
	v := h.ProtocolVersion()
	if c.state == stateUninitialized {
		c.version.Store(int32(v))
	} else if cv := int(c.version.Load()); v != cv {
		c.writeMessage(h.Stream, protocolError("Invalid message version. Got %s but previous messages on this connection had version %s", versionName(v), versionName(cv)), nil)
		return errClose
	}
	if h.IsResponse() {
		c.writeMessage(h.Stream, protocolError("Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode %s", h.Opcode), nil)
		return errClose
	}
	if h.Length < 0 {
		c.writeMessage(h.Stream, protocolError("Invalid value for envelope header body length field: %d", h.Length), nil)
		return errClose
	}
	limit := c.srv.opts.MaxFrameSize
	if c.state != stateReady {
		limit = min(limit, c.srv.opts.MaxHandshakeFrameSize)
	}
	if total := int64(h.Length) + frame.HeaderSize; total > int64(limit) {
		c.writeMessage(h.Stream, &Error{
			Code:    wire.CodeInvalid,
			Message: fmt.Sprintf("Request is too big: length %d exceeds maximum allowed length %d.", total, limit),
		}, nil)
		return errClose
	}
	if !h.Opcode.IsRequest() {
		c.writeMessage(h.Stream, protocolError("Unknown opcode %d", h.Opcode), nil)
		return errClose
	}
	return nil
}

// decompressBody decompresses the body of a compressed v3 or v4 frame with
// the negotiated algorithm.
func (c *conn) decompressBody(h frame.Header, body []byte) ([]byte, error) {
	if c.inCompress == "" {
		c.writeMessage(h.Stream, protocolError("Compressed frame received but no compression was negotiated"), nil)
		return nil, errClose
	}
	var n int
	var err error
	if c.inCompress == "lz4" {
		n, err = frame.LZ4BodyLen(body)
	} else {
		n, err = snappy.DecodedLen(body)
	}
	if err == nil && n+frame.HeaderSize > c.srv.opts.MaxFrameSize {
		err = fmt.Errorf("decompressed length %d exceeds maximum allowed length %d", n+frame.HeaderSize, c.srv.opts.MaxFrameSize)
	}
	if err == nil {
		if c.inCompress == "lz4" {
			body, err = frame.DecodeLZ4Body(body)
		} else {
			body, err = snappy.Decode(nil, body)
		}
	}
	if err != nil {
		c.writeMessage(h.Stream, protocolError("Error decompressing frame: %v", err), nil)
		return nil, errClose
	}
	return body, nil
}

// decodeAndDispatch decodes a request envelope's body and dispatches it.
// reserved is the budget the envelope holds, which passes to the request.
func (c *conn) decodeAndDispatch(h frame.Header, body []byte, reserved int64) error {
	m, err := frame.DecodeRequest(h, body)
	if err != nil {
		c.unreserve(reserved)
		c.writeMessage(h.Stream, protocolError("Invalid message: %v", err), nil)
		return errClose
	}
	return c.dispatch(h.Stream, m, reserved)
}

// readSegment reads one v5 segment and dispatches the envelopes it holds
// or completes. A CRC mismatch is answered with Cassandra's fatal protocol
// error and closes the connection, as CQLMessageHandler does.
func (c *conn) readSegment() error {
	lz := c.inCompress == "lz4"
	n := frame.HeaderSizeOf(lz)
	hb, err := c.br.Peek(n)
	if err != nil {
		return err
	}
	sh, err := frame.ParseSegmentHeader(hb, lz)
	if err != nil {
		return c.segmentError(err)
	}
	c.br.Discard(n)
	rest := make([]byte, sh.Length+frame.SegmentTrailerSize)
	if _, err := io.ReadFull(c.br, rest); err != nil {
		return err
	}
	payload, err := frame.DecodeSegmentPayload(sh, rest, nil)
	if err != nil {
		return c.segmentError(err)
	}
	if !sh.SelfContained {
		return c.largeSegment(payload)
	}
	if c.large != nil {
		c.writeMessage(0, protocolError("Received a self-contained segment while a multi-segment envelope of %d bytes was incomplete", len(c.large)), nil)
		return errClose
	}
	for len(payload) > 0 {
		h, err := frame.ParseHeader(payload)
		if err != nil {
			c.writeMessage(0, protocolError("Invalid envelope in segment: %v", err), nil)
			return errClose
		}
		if err := c.checkHeader(h); err != nil {
			return err
		}
		end := frame.HeaderSize + int(h.Length)
		if end > len(payload) {
			c.writeMessage(h.Stream, protocolError("Envelope of %d bytes exceeds its self-contained segment of %d bytes", end, len(payload)), nil)
			return errClose
		}
		reserved, err := c.reserve(int64(end))
		if err != nil {
			return err
		}
		if err := c.decodeAndDispatch(h, payload[frame.HeaderSize:end:end], reserved); err != nil {
			return err
		}
		payload = payload[end:]
	}
	return nil
}

// largeSegment adds the payload of a segment that is not self-contained to
// the envelope being reassembled, and dispatches the envelope once
// complete. The first segment must hold the envelope header, whose length
// is checked against MaxFrameSize before anything is buffered.
func (c *conn) largeSegment(payload []byte) error {
	if c.large == nil {
		h, err := frame.ParseHeader(payload)
		if err != nil {
			c.writeMessage(0, protocolError("Invalid envelope in segment: %v", err), nil)
			return errClose
		}
		if err := c.checkHeader(h); err != nil {
			return err
		}
		c.largeLen = frame.HeaderSize + int(h.Length)
		reserved, err := c.reserve(int64(c.largeLen))
		if err != nil {
			return err
		}
		c.largeReserved = reserved
		// Grown as segments arrive, not allocated at the declared length.
		c.large = make([]byte, 0, min(c.largeLen, 2*frame.MaxSegmentPayload))
	}
	if len(c.large)+len(payload) > c.largeLen {
		c.writeMessage(0, protocolError("Segment overruns its envelope of %d bytes", c.largeLen), nil)
		return errClose
	}
	c.large = append(c.large, payload...)
	if len(c.large) < c.largeLen {
		return nil
	}
	env := c.large
	c.large = nil
	h, _ := frame.ParseHeader(env)
	return c.decodeAndDispatch(h, env[frame.HeaderSize:], c.largeReserved)
}

// segmentError answers a corrupt or undecodable segment with a fatal
// protocol error on stream 0 and closes the connection.
func (c *conn) segmentError(err error) error {
	var crc *frame.CRCError
	if errors.As(err, &crc) {
		c.writeMessage(0, protocolError("%s %s", c.id(), crc.Error()), nil)
	} else {
		c.writeMessage(0, protocolError("Error decoding segment: %v", err), nil)
	}
	return errClose
}

// connIDs numbers the connections of the process, for id.
var connIDs atomic.Uint32

// id names the connection in errors, as Cassandra names a channel (eight
// hex digits).
func (c *conn) id() string { return fmt.Sprintf("%08x", c.cid) }

// rejectVersion answers a frame of an unsupported protocol version and
// closes the connection. As in Cassandra's ProtocolVersion.decode, v1 and
// v2 are answered in their own version, others in the newest supported
// version (v5), in an unsegmented frame; drivers then retry lower.
func (c *conn) rejectVersion(version byte) error {
	hb := make([]byte, headerSizeFor(version))
	if _, err := io.ReadFull(c.br, hb); err != nil {
		return err
	}
	var stream int16
	if len(hb) == 8 {
		stream = int16(int8(hb[2]))
	} else {
		stream = int16(binary.BigEndian.Uint16(hb[2:4]))
	}
	respVersion := frame.MaxProtocolVersion
	if version == 1 || version == 2 {
		respVersion = int(version)
	}
	e := protocolError("Invalid or unsupported protocol version (%d); supported versions are (%s)", version, strings.Join(supportedVersions, ", "))
	body := appendErrorBody(e)
	out := []byte{frame.DirectionResponse | byte(respVersion), 0}
	if respVersion <= 2 {
		out = append(out, byte(stream))
	} else {
		out = binary.BigEndian.AppendUint16(out, uint16(stream))
	}
	out = append(out, byte(frame.OpError))
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	c.send(out)
	return errClose
}

// appendErrorBody encodes just the body of an ERROR message.
func appendErrorBody(e *Error) []byte {
	b, _ := (&frame.Frame{Header: frame.Header{Version: frame.VersionResponse}, Message: e}).AppendTo(nil)
	return b[frame.HeaderSize:]
}

// dispatch handles one decoded request according to the handshake state.
// The in-flight bytes reserved for it are released once it is answered:
// here for the messages the read loop answers itself, by the worker for
// the others.
func (c *conn) dispatch(stream int16, m frame.Message, reserved int64) (err error) {
	op := m.Opcode()
	c.requests.Add(1)
	inline := true
	defer func() {
		if p := recover(); p != nil {
			c.srv.opts.Logger.Error("panic while handling message", "op", op.String(), "panic", p, "stack", string(debug.Stack()))
			c.writeMessage(stream, &Error{Code: wire.CodeServer, Message: wire.InternalErrorMessage(p)}, nil)
			err = nil
		}
		if inline {
			c.unreserve(reserved)
		}
	}()
	switch c.state {
	case stateUninitialized:
		if op != frame.OpStartup && op != frame.OpOptions {
			c.writeMessage(stream, protocolError("Unexpected message %s, expecting STARTUP or OPTIONS", op), nil)
			return nil
		}
	case stateAuthentication:
		if op != frame.OpAuthResponse {
			c.writeMessage(stream, protocolError("Unexpected message %s, expecting SASL_RESPONSE", op), nil)
			return nil
		}
	case stateReady:
		if op == frame.OpStartup {
			c.writeMessage(stream, protocolError("Unexpected message STARTUP, the connection is already initialized"), nil)
			return nil
		}
	}
	switch m := m.(type) {
	case *frame.Options:
		c.writeMessage(stream, &frame.Supported{Options: map[string][]string{
			"CQL_VERSION":       {c.srv.opts.CQLVersion},
			"COMPRESSION":       {"snappy", "lz4"},
			"PROTOCOL_VERSIONS": supportedVersions,
		}}, nil)
	case *frame.Startup:
		c.handleStartup(stream, m)
	case *frame.AuthResponse:
		switch {
		case c.state == stateAuthentication:
			c.handleAuthResponse(stream, m)
		case c.srv.opts.Authenticator == nil:
			// As Cassandra's AllowAllAuthenticator, whose SASL negotiator
			// completes at once: the connection stays logged in as the
			// anonymous user.
			c.writeMessage(stream, &frame.AuthSuccess{}, nil)
		default:
			c.writeMessage(stream, protocolError("Unexpected message AUTH_RESPONSE, the connection is already authenticated"), nil)
		}
	case *frame.Register:
		for _, ev := range m.Events {
			switch ev {
			case "SCHEMA_CHANGE":
				c.schemaEvents.Store(true)
			case "TOPOLOGY_CHANGE", "STATUS_CHANGE":
				// A single node never changes topology or status.
			default:
				c.writeMessage(stream, protocolError("Invalid value '%s' for Type", ev), nil)
				return nil
			}
		}
		c.writeMessage(stream, &frame.Ready{}, nil)
	default:
		inline = false
		c.running.Add(1)
		if err := c.startRequest(request{stream: stream, m: m, reserved: reserved}); err != nil {
			c.running.Add(-1)
			c.unreserve(reserved)
			return err
		}
	}
	return nil
}

// startRequest hands r to an idle worker, to a new worker, or waits for a
// worker to become idle when MaxRequestsPerConn are busy.
func (c *conn) startRequest(r request) error {
	select {
	case c.work <- r:
		return nil
	default:
	}
	if int(c.nworkers.Load()) < c.srv.opts.MaxRequestsPerConn {
		c.nworkers.Add(1)
		c.reqs.Add(1)
		go c.worker(r)
		return nil
	}
	select {
	case c.work <- r:
		return nil
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
}

// worker runs r, then further requests from c.work while the connection
// lives, unless enough workers are idle already.
func (c *conn) worker(r request) {
	rt := &reqTimer{c: c}
	rt.timer = time.AfterFunc(time.Hour, rt.fire)
	rt.timer.Stop()
	defer func() {
		rt.timer.Stop()
		c.nworkers.Add(-1)
		c.reqs.Done()
	}()
	for {
		c.runRequest(r.stream, r.m, rt)
		c.unreserve(r.reserved)
		c.running.Add(-1)
		r = request{}
		if c.idle.Add(1) > maxIdle {
			c.idle.Add(-1)
			return
		}
		select {
		case r = <-c.work:
			c.idle.Add(-1)
		case <-c.ctx.Done():
			c.idle.Add(-1)
			return
		}
	}
}

func (c *conn) handleStartup(stream int16, m *frame.Startup) {
	opts := make(map[string]string, len(m.Options))
	for k, v := range m.Options {
		opts[strings.ToUpper(k)] = v
	}
	cqlVersion, ok := opts["CQL_VERSION"]
	if !ok {
		c.writeMessage(stream, protocolError("Missing value CQL_VERSION in STARTUP message"), nil)
		return
	}
	major, err := cqlMajor(cqlVersion)
	if err != nil {
		c.writeMessage(stream, protocolError("Invalid version value: %s", cqlVersion), nil)
		return
	}
	if major < 3 {
		c.writeMessage(stream, protocolError("CQL version %s is not supported by the binary protocol (supported version are >= 3.0.0)", cqlVersion), nil)
		return
	}
	compress := ""
	v5 := c.version.Load() >= 5
	if alg, ok := opts["COMPRESSION"]; ok {
		switch alg = strings.ToLower(alg); alg {
		case "snappy":
			if v5 {
				c.writeMessage(stream, protocolError("Snappy compression is not supported in protocol V5"), nil)
				return
			}
			compress = alg
		case "lz4":
			compress = alg
		default:
			c.writeMessage(stream, protocolError("Unknown compression algorithm: %s", alg), nil)
			return
		}
	}
	c.inCompress = compress
	var reply frame.Message = &frame.Ready{}
	c.infoMu.Lock()
	c.startup = opts
	c.infoMu.Unlock()
	if c.srv.opts.Authenticator != nil {
		c.setState(stateAuthentication, "")
		reply = &frame.Authenticate{Authenticator: PasswordAuthenticator}
	} else {
		c.becomeReady("")
	}
	if v5 {
		// As in Cassandra's InitialConnectionHandler, the reply to a v5
		// STARTUP is a plain frame; the connection then switches to
		// segments, compressed by the negotiated algorithm.
		c.writeMessage(stream, reply, nil)
		c.wmu.Lock()
		c.compress, c.segOut = compress, true
		c.wmu.Unlock()
		c.segments = true
		return
	}
	// As in Cassandra, the reply to a v3 or v4 STARTUP is already
	// compressed.
	c.wmu.Lock()
	c.compress = compress
	c.wmu.Unlock()
	c.writeMessage(stream, reply, nil)
}

// cqlMajor parses a version "X.Y.Z" (or "X.Y") and returns X.
func cqlMajor(v string) (int, error) {
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("bad version %q", v)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return 0, err
		}
	}
	return strconv.Atoi(parts[0])
}

// setState moves the handshake on, recording it for Clients.
func (c *conn) setState(st connState, user string) {
	c.state = st
	c.infoMu.Lock()
	c.stage, c.user = st, user
	c.infoMu.Unlock()
}

func (c *conn) becomeReady(user string) {
	c.setState(stateReady, user)
	c.session = c.srv.backend.NewSession(c.ctx, ConnInfo{RemoteAddr: c.nc.RemoteAddr(), User: user, Options: c.startup})
}

// handleAuthResponse checks a SASL PLAIN token: [authzid] NUL user NUL password.
func (c *conn) handleAuthResponse(stream int16, m *frame.AuthResponse) {
	user, pass, err := parsePlain(m.Token)
	if err != nil {
		c.writeMessage(stream, &Error{Code: wire.CodeBadCredentials, Message: err.Error()}, nil)
		return
	}
	ip := peerIP(c.nc.RemoteAddr())
	if err := c.srv.opts.Authenticator.Authenticate(c.ctx, user, pass); err != nil {
		if d := c.srv.logins.failed(ip, time.Now()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-c.ctx.Done():
				t.Stop()
				return
			}
		}
		c.writeMessage(stream, toError(err, nil, wire.CodeBadCredentials), nil)
		return
	}
	c.srv.logins.succeeded(ip)
	c.becomeReady(user)
	c.writeMessage(stream, &frame.AuthSuccess{}, nil)
}

// parsePlain decodes a SASL PLAIN token the way Cassandra's
// PlainTextSaslAuthenticator does: the password follows the last NUL, the
// user the one before it.
func parsePlain(tok []byte) (user, pass string, err error) {
	i := bytes.LastIndexByte(tok, 0)
	if i < 0 {
		return "", "", errors.New("Password must not be null")
	}
	pass = string(tok[i+1:])
	rest := tok[:i]
	j := bytes.LastIndexByte(rest, 0)
	user = string(rest[j+1:])
	if user == "" {
		return "", "", errors.New("Authentication ID must not be null")
	}
	if pass == "" {
		return "", "", errors.New("Password must not be null")
	}
	return user, pass, nil
}

// runRequest executes one QUERY, PREPARE, EXECUTE or BATCH and writes the
// response. A panic in the Session is answered with a Server error.
func (c *conn) runRequest(stream int16, m frame.Message, rt *reqTimer) {
	ctx, cl, kind := c.ctx, wire.Consistency(0), KindOther
	switch m := m.(type) {
	case *frame.Query:
		cl, kind = m.Params.Consistency, ClassifyStatement(m.Query)
	case *frame.Execute:
		cl = m.Params.Consistency
		if k, ok := c.session.(StatementKinder); ok {
			kind = k.StatementKind(m.ID)
		}
	case *frame.Batch:
		cl, kind = m.Consistency, batchKind(m, c.session)
	}
	if c.srv.faults.rules.Load() != nil {
		if f := c.srv.matchFault(m, c.session, kind); f != nil && c.applyFault(stream, f) {
			return
		}
	}
	ctx = rt.start(stream, kind, cl)
	defer func() {
		if p := recover(); p != nil {
			c.srv.opts.Logger.Error("panic while executing request", "op", m.Opcode().String(), "panic", p, "stack", string(debug.Stack()))
			if rt.finish() {
				c.writeMessage(stream, &Error{Code: wire.CodeServer, Message: wire.InternalErrorMessage(p)}, nil)
			}
		}
	}()
	var (
		res       *Result
		err       error
		executeID []byte
		skipMeta  bool
	)
	switch m := m.(type) {
	case *frame.Query:
		skipMeta = m.Params.SkipMetadata
		res, err = c.session.Query(ctx, m.Query, &m.Params)
	case *frame.Prepare:
		var p *Prepared
		p, err = c.session.Prepare(ctx, m.Query, m.Keyspace)
		if err == nil {
			if p == nil {
				err = errors.New("backend returned no prepared statement")
			} else {
				if p.ResultMetadataID == nil && c.version.Load() >= 5 {
					q := *p
					q.ResultMetadataID = frame.ResultMetadataID(p.ResultCols)
					p = &q
				}
				res = &Result{Kind: wire.ResultPrepared, Prepared: p}
			}
		}
	case *frame.Execute:
		executeID = m.ID
		skipMeta = m.Params.SkipMetadata
		res, err = c.session.Execute(ctx, m.ID, &m.Params)
	case *frame.Batch:
		res, err = c.session.Batch(ctx, m)
	default:
		err = protocolError("Unexpected message %s", m.Opcode())
	}
	if !rt.finish() {
		return // answered with a timeout error already
	}
	if err != nil {
		c.writeMessage(stream, toError(err, executeID, wire.CodeServer), nil)
		return
	}
	if res == nil {
		res = voidResult
	}
	// A backend that knows the result metadata id decides about v5's
	// skip-metadata itself (see Result); without an id, v5 sends the
	// metadata, as Cassandra does for conditional statements.
	if res.Kind == wire.ResultRows && skipMeta && !res.NoMetadata && !res.MetadataChanged &&
		(c.version.Load() < 5 || res.ResultMetadataID != nil) {
		r := *res
		r.NoMetadata = true
		res = &r
	}
	c.writeFrame(frame.Frame{Header: frame.Header{Version: frame.ResponseVersion(int(c.version.Load())), Stream: stream}, Warnings: res.Warnings, TracingID: res.TracingID, Message: res})
	if res.Kind == wire.ResultSchemaChange && res.Change != nil {
		c.srv.PublishSchemaChange(*res.Change)
	}
}

// reqTimer times the requests of one worker: start arms it with the
// request's timeout, and either finish (the request returned) or fire (the
// deadline passed) answers the request, whichever comes first. The timer
// and the timer goroutine's closure are the worker's, reused by each of
// its requests; a request costs one context.
type reqTimer struct {
	c     *conn
	timer *time.Timer

	mu       sync.Mutex
	active   bool // a request runs and is not answered
	stream   int16
	kind     RequestKind
	cl       wire.Consistency
	timeout  time.Duration
	deadline time.Time
	ctx      *requestContext // the running request's context
}

// start arms the timer for a request and returns its context.
func (rt *reqTimer) start(stream int16, kind RequestKind, cl wire.Consistency) context.Context {
	d := rt.c.srv.opts.Timeouts.For(kind)
	deadline := time.Now().Add(d)
	ctx := &requestContext{parent: rt.c.ctx, deadline: deadline}
	rt.mu.Lock()
	rt.active, rt.stream, rt.kind, rt.cl, rt.timeout, rt.ctx = true, stream, kind, cl, d, ctx
	rt.deadline = deadline
	rt.mu.Unlock()
	rt.timer.Reset(d)
	return ctx
}

// requestContext is the context of one request: its connection's context
// with the request's deadline, cancelled by the request's timer or its end.
// It costs one allocation where context.WithDeadline costs a timer, a
// closure and a registration with the parent: the worker's reqTimer is the
// timer, and the parent is consulted only when asked (Err), or watched only
// once someone waits on Done. context.Cause of it reports its
// connection's cause, not DeadlineExceeded; Err is exact.
type requestContext struct {
	parent   context.Context
	deadline time.Time

	mu   sync.Mutex
	err  error
	done chan struct{} // made by the first Done
	stop func() bool   // stops watching the parent
}

func (rc *requestContext) Deadline() (time.Time, bool) { return rc.deadline, true }
func (rc *requestContext) Value(key any) any           { return rc.parent.Value(key) }

func (rc *requestContext) Err() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.err == nil {
		if err := rc.parent.Err(); err != nil {
			rc.setErrLocked(err)
		}
	}
	return rc.err
}

func (rc *requestContext) Done() <-chan struct{} {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.done == nil {
		rc.done = make(chan struct{})
		if rc.err != nil {
			close(rc.done)
		} else {
			rc.stop = context.AfterFunc(rc.parent, func() { rc.cancelWith(rc.parent.Err()) })
		}
	}
	return rc.done
}

// cancel ends the context: with DeadlineExceeded once the deadline has
// passed (the timer fired), with Canceled otherwise (the request ended).
func (rc *requestContext) cancel() {
	err := context.Canceled
	if !time.Now().Before(rc.deadline) {
		err = context.DeadlineExceeded
	}
	rc.cancelWith(err)
}

func (rc *requestContext) cancelWith(err error) {
	rc.mu.Lock()
	rc.setErrLocked(err)
	rc.mu.Unlock()
}

func (rc *requestContext) setErrLocked(err error) {
	if rc.err != nil {
		return
	}
	rc.err = err
	if rc.done != nil {
		close(rc.done)
	}
	if rc.stop != nil {
		rc.stop()
		rc.stop = nil
	}
}

// finish ends the request and reports whether the caller is to answer it
// (false: fire answered it with a timeout error).
func (rt *reqTimer) finish() bool {
	rt.timer.Stop()
	rt.mu.Lock()
	ok, ctx := rt.active, rt.ctx
	rt.active, rt.ctx = false, nil
	rt.mu.Unlock()
	if ctx != nil {
		ctx.cancel()
	}
	return ok
}

// fire answers the running request with its timeout error and cancels its
// context. A fire left over from an earlier request (its timer stopped
// too late) finds the deadline of the current request not reached and
// does nothing.
func (rt *reqTimer) fire() {
	rt.mu.Lock()
	if !rt.active || time.Now().Before(rt.deadline) {
		rt.mu.Unlock()
		return
	}
	rt.active = false
	stream, kind, cl, d, ctx := rt.stream, rt.kind, rt.cl, rt.timeout, rt.ctx
	rt.ctx = nil
	rt.mu.Unlock()
	ctx.cancel()
	rt.c.srv.opts.Logger.Debug("request timed out", "remote", rt.c.nc.RemoteAddr().String(), "timeout", d)
	rt.c.writeMessage(stream, timeoutError(kind, cl, d), nil)
}

// batchKind is the kind of a BATCH: a counter batch, a batch with a
// conditional statement, or a plain batch.
func batchKind(b *frame.Batch, s Session) RequestKind {
	k, _ := s.(StatementKinder)
	for _, e := range b.Entries {
		ek := KindOther
		if e.ID != nil && k != nil {
			ek = k.StatementKind(e.ID)
		} else if e.ID == nil {
			ek = ClassifyStatement(e.Query)
		}
		if ek == KindCAS {
			return KindCAS
		}
	}
	if b.Type == frame.BatchCounter {
		return KindCounterWrite
	}
	return KindBatch
}

// writeMessage encodes m as a response on stream and sends it. If m cannot
// be encoded (a malformed Result from the backend), a Server error is sent
// instead. Write errors are remembered and end the connection.
func (c *conn) writeMessage(stream int16, m frame.Message, warnings []string) {
	c.writeFrame(frame.Frame{Header: frame.Header{Version: frame.ResponseVersion(int(c.version.Load())), Stream: stream}, Warnings: warnings, Message: m})
}

// writeFrame is writeMessage for a response frame f with its header's
// stream and version, warnings and tracing id set.
func (c *conn) writeFrame(f frame.Frame) {
	bp := bufPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxSpare {
			bufPool.Put(bp)
		}
	}()
	out, err := f.AppendTo((*bp)[:0])
	if err != nil {
		if e, ok := f.Message.(*Error); ok {
			// An error text naming a huge identifier: cut its strings
			// to what a [string] holds.
			f.Message = fitError(e)
		} else {
			c.srv.opts.Logger.Error("cannot encode response", "op", f.Message.Opcode().String(), "err", err)
			f = frame.Frame{Header: f.Header, Message: fitError(&Error{Code: wire.CodeServer,
				Message: "cannot encode response: " + err.Error()})}
		}
		if out, err = f.AppendTo((*bp)[:0]); err != nil {
			c.srv.opts.Logger.Error("cannot encode error response", "err", err)
			return
		}
	}
	*bp = out
	c.send(out)
}

// maxString is the longest [string] of the protocol, in bytes.
const maxString = 1<<16 - 1

// fitError returns e with every string cut to maxString bytes (at a UTF-8
// boundary, the message ending in "..."), so that it can be encoded.
func fitError(e *Error) *Error {
	out := *e
	out.Message = truncateString(out.Message)
	out.Keyspace, out.Table, out.Function = truncateString(out.Keyspace), truncateString(out.Table), truncateString(out.Function)
	out.WriteType = truncateString(out.WriteType)
	if len(out.ArgTypes) > maxString {
		out.ArgTypes = out.ArgTypes[:maxString]
	}
	if out.ArgTypes != nil {
		out.ArgTypes = slices.Clone(out.ArgTypes)
		for i, a := range out.ArgTypes {
			out.ArgTypes[i] = truncateString(a)
		}
	}
	if len(out.UnpreparedID) > maxString {
		out.UnpreparedID = out.UnpreparedID[:maxString]
	}
	return &out
}

// truncateString cuts s to at most maxString bytes at a rune boundary,
// ending it with "..." when cut.
func truncateString(s string) string {
	if len(s) <= maxString {
		return s
	}
	n := maxString - len("...")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// send appends the encoded frame b to the pending output, compressing its
// body if the connection negotiated compression, and writes the pending
// output unless another goroutine is already writing (that one writes b
// too, when its current syscall ends). b is copied: the caller keeps it.
func (c *conn) send(b []byte) {
	c.wmu.Lock()
	for len(c.wbuf) > maxPending && c.writing && c.werr == nil {
		c.wcond.Wait()
	}
	if c.werr != nil {
		c.wmu.Unlock()
		return
	}
	switch {
	case c.segOut:
		c.wbuf = frame.AppendSegments(c.wbuf, b, c.compress == "lz4")
	case c.compress == "lz4":
		start := len(c.wbuf)
		c.wbuf = append(c.wbuf, b[:frame.HeaderSize]...)
		c.wbuf = frame.AppendLZ4Body(c.wbuf, b[frame.HeaderSize:])
		c.wbuf[start+1] |= byte(frame.FlagCompressed)
		binary.BigEndian.PutUint32(c.wbuf[start+5:start+9], uint32(len(c.wbuf)-start-frame.HeaderSize))
	case c.compress == "snappy":
		start := len(c.wbuf)
		body := b[frame.HeaderSize:]
		c.wbuf = slices.Grow(c.wbuf, frame.HeaderSize+snappy.MaxEncodedLen(len(body)))
		c.wbuf = append(c.wbuf, b[:frame.HeaderSize]...)
		dst := c.wbuf[len(c.wbuf):cap(c.wbuf)]
		enc := snappy.Encode(dst, body)
		c.wbuf = c.wbuf[:len(c.wbuf)+len(enc)]
		c.wbuf[start+1] |= byte(frame.FlagCompressed)
		binary.BigEndian.PutUint32(c.wbuf[start+5:start+9], uint32(len(enc)))
	default:
		c.wbuf = append(c.wbuf, b...)
	}
	if c.writing {
		c.wmu.Unlock()
		return
	}
	c.writing = true
	for len(c.wbuf) > 0 && c.werr == nil {
		out := c.wbuf
		c.wbuf = c.spare[:0]
		c.spare = nil
		c.wmu.Unlock()
		err := c.writeOut(out)
		c.wmu.Lock()
		if cap(out) <= maxSpare {
			c.spare = out[:0]
		}
		if err != nil {
			c.werr = err
			c.wbuf = nil
			c.nc.Close()
		}
		c.wcond.Broadcast()
	}
	c.writing = false
	c.wcond.Broadcast()
	c.wmu.Unlock()
}

// writeOut writes b to the connection with the write timeout, if any.
func (c *conn) writeOut(b []byte) error {
	if t := c.srv.opts.WriteTimeout; t > 0 {
		c.nc.SetWriteDeadline(time.Now().Add(t))
	}
	_, err := c.nc.Write(b)
	if c.srv.opts.IdleTimeout > 0 {
		c.lastWrite.Store(time.Now().UnixNano())
	}
	return err
}

// waitWritten waits until no response is pending: everything sent before
// was written, or writing failed.
func (c *conn) waitWritten() {
	c.wmu.Lock()
	for c.writing {
		c.wcond.Wait()
	}
	c.wmu.Unlock()
}
