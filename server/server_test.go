package server_test

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// codedErr is a backend error carrying a CQL code, as the CQL layer's errors will.
type codedErr struct {
	code wire.ErrorCode
	msg  string
}

func (e *codedErr) Error() string           { return e.msg }
func (e *codedErr) CQLCode() wire.ErrorCode { return e.code }

type existsErr struct{ codedErr }

func (e *existsErr) AlreadyExistsKeyspace() string { return "ks" }
func (e *existsErr) AlreadyExistsTable() string    { return "t" }

// fakeBackend records every call and answers a handful of fixed statements.
type fakeBackend struct {
	mu       sync.Mutex
	calls    []string
	sessions []server.ConnInfo
	closed   int
	prepared map[string]string // hex id -> query
	release  map[string]chan struct{}
}

func newFake() *fakeBackend {
	return &fakeBackend{prepared: map[string]string{}, release: map[string]chan struct{}{}}
}

func (b *fakeBackend) record(s string) {
	b.mu.Lock()
	b.calls = append(b.calls, s)
	b.mu.Unlock()
}

func (b *fakeBackend) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

func (b *fakeBackend) gate(name string) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch, ok := b.release[name]
	if !ok {
		ch = make(chan struct{})
		b.release[name] = ch
	}
	return ch
}

func (b *fakeBackend) NewSession(ctx context.Context, info server.ConnInfo) server.Session {
	b.mu.Lock()
	b.sessions = append(b.sessions, info)
	b.mu.Unlock()
	return &fakeSession{b: b}
}

type fakeSession struct{ b *fakeBackend }

func (s *fakeSession) Close() error {
	s.b.mu.Lock()
	s.b.closed++
	s.b.mu.Unlock()
	return nil
}

var kvCols = []server.ColumnSpec{
	{Keyspace: "ks", Table: "kv", Name: "k", Type: types.IntType},
	{Keyspace: "ks", Table: "kv", Name: "v", Type: types.TextType},
}

func intBytes(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }

func (s *fakeSession) Query(ctx context.Context, q string, p *server.QueryParams) (*server.Result, error) {
	s.b.record(fmt.Sprintf("QUERY %s cl=%s values=%d page=%d", q, p.Consistency, len(p.Values), p.PageSize))
	switch {
	case q == "SELECT * FROM ks.kv":
		res := &server.Result{Kind: wire.ResultRows, Columns: kvCols}
		for i := range 3 {
			res.Rows = append(res.Rows, [][]byte{intBytes(i), []byte(fmt.Sprint("v", i))})
		}
		if p.PageSize > 0 && p.PagingState == nil {
			res.Rows = res.Rows[:1]
			res.PagingState = []byte("next")
		}
		return res, nil
	case q == "SELECT warn":
		return &server.Result{Kind: wire.ResultVoid, Warnings: []string{"Aggregation query used without partition key"}}, nil
	case q == "USE ks":
		return &server.Result{Kind: wire.ResultSetKeyspace, Keyspace: "ks"}, nil
	case strings.HasPrefix(q, "CREATE TABLE"):
		return &server.Result{Kind: wire.ResultSchemaChange,
			Change: &wire.SchemaChange{Change: wire.Created, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}}, nil
	case q == "INSERT":
		return nil, nil
	case q == "PANIC":
		panic("backend exploded")
	case q == "INVALID":
		return nil, &codedErr{wire.CodeInvalid, "Undefined column name x"}
	case q == "EXISTS":
		return nil, fmt.Errorf("wrapped: %w", &existsErr{codedErr{wire.CodeAlreadyExists, "Cannot add already existing table \"t\" to keyspace \"ks\""}})
	case q == "UNAVAILABLE":
		return nil, &frame.Error{Code: wire.CodeUnavailable, Message: "Cannot achieve consistency level QUORUM",
			Consistency: wire.Quorum, Required: 2, Alive: 1}
	case q == "PLAIN":
		return nil, errors.New("disk on fire")
	case q == "BADROW":
		return &server.Result{Kind: wire.ResultRows, Columns: kvCols, Rows: [][][]byte{{nil}}}, nil
	case strings.HasPrefix(q, "WAIT "):
		select {
		case <-s.b.gate(q[5:]):
			return &server.Result{Kind: wire.ResultSetKeyspace, Keyspace: q[5:]}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, &codedErr{wire.CodeSyntax, "line 1:0 no viable alternative at input '" + q + "'"}
}

func (s *fakeSession) Prepare(ctx context.Context, q, _ string) (*server.Prepared, error) {
	s.b.record("PREPARE " + q)
	id := md5.Sum([]byte(q))
	s.b.mu.Lock()
	s.b.prepared[string(id[:])] = q
	s.b.mu.Unlock()
	return &server.Prepared{ID: id[:], Bind: kvCols, PKIndexes: []uint16{0}, ResultCols: nil}, nil
}

func (s *fakeSession) Execute(ctx context.Context, id []byte, p *server.QueryParams) (*server.Result, error) {
	s.b.mu.Lock()
	q, ok := s.b.prepared[string(id)]
	s.b.mu.Unlock()
	if !ok {
		return nil, &codedErr{wire.CodeUnprepared, "Prepared query not found"}
	}
	s.b.record(fmt.Sprintf("EXECUTE %s values=%x", q, p.Values))
	return &server.Result{Kind: wire.ResultRows, Columns: kvCols, Rows: [][][]byte{{p.Values[0], p.Values[1]}}}, nil
}

func (s *fakeSession) Batch(ctx context.Context, b *server.BatchRequest) (*server.Result, error) {
	var parts []string
	for _, e := range b.Entries {
		if e.ID != nil {
			parts = append(parts, fmt.Sprintf("id:%x/%d", e.ID[:2], len(e.Values)))
		} else {
			parts = append(parts, fmt.Sprintf("%q/%d", e.Query, len(e.Values)))
		}
	}
	s.b.record(fmt.Sprintf("BATCH %s %s cl=%s ts=%d", b.Type, strings.Join(parts, ","), b.Consistency, b.DefaultTimestamp))
	return nil, nil
}

// start runs a server on a random loopback port and closes it at cleanup.
func start(t testing.TB, b server.Backend, opts server.Options) *server.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := server.New(b, opts)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		require.ErrorIs(t, <-done, server.ErrServerClosed)
	})
	require.Eventually(t, func() bool { return srv.Addr() != nil }, time.Second, time.Millisecond)
	return srv
}

// client is a tiny hand-written protocol client.
type client struct {
	t        testing.TB
	nc       net.Conn
	br       *bufio.Reader
	compress bool
}

func dial(t testing.TB, srv *server.Server) *client {
	t.Helper()
	nc, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *client) send(stream int16, m frame.Message) {
	c.t.Helper()
	b, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: stream}, Message: m}).AppendTo(nil)
	require.NoError(c.t, err)
	if c.compress {
		body := snappy.Encode(nil, b[frame.HeaderSize:])
		b = append(b[:frame.HeaderSize], body...)
		b[1] |= byte(frame.FlagCompressed)
		binary.BigEndian.PutUint32(b[5:], uint32(len(body)))
	}
	c.sendRaw(b)
}

func (c *client) sendRaw(b []byte) {
	c.t.Helper()
	_, err := c.nc.Write(b)
	require.NoError(c.t, err)
}

func (c *client) recv() *frame.Frame {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var hb [frame.HeaderSize]byte
	_, err := io.ReadFull(c.br, hb[:])
	require.NoError(c.t, err)
	h, err := frame.ParseHeader(hb[:])
	require.NoError(c.t, err)
	require.Equal(c.t, frame.VersionResponse, h.Version)
	body := make([]byte, h.Length)
	_, err = io.ReadFull(c.br, body)
	require.NoError(c.t, err)
	if h.Flags&frame.FlagCompressed != 0 {
		require.True(c.t, c.compress, "compressed frame on an uncompressed connection")
		body, err = snappy.Decode(nil, body)
		require.NoError(c.t, err)
	}
	f, err := frame.Decode(h, body)
	require.NoError(c.t, err)
	return f
}

func (c *client) roundTrip(stream int16, m frame.Message) frame.Message {
	c.t.Helper()
	c.send(stream, m)
	f := c.recv()
	require.Equal(c.t, stream, f.Header.Stream)
	return f.Message
}

func (c *client) startup() {
	c.t.Helper()
	require.IsType(c.t, &frame.Ready{}, c.roundTrip(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}))
}

func (c *client) query(stream int16, q string) frame.Message {
	c.t.Helper()
	return c.roundTrip(stream, &frame.Query{Query: q, Params: frame.QueryParams{Consistency: wire.One}})
}

// expectClosed checks that the server closed the connection.
func (c *client) expectClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.br.ReadByte()
	require.ErrorIs(c.t, err, io.EOF)
}

func requireError(t testing.TB, m frame.Message, code wire.ErrorCode, msg string) *frame.Error {
	t.Helper()
	e, ok := m.(*frame.Error)
	require.True(t, ok, "want ERROR, got %T %+v", m, m)
	require.Equal(t, code, e.Code, e.Message)
	if msg != "" {
		require.Equal(t, msg, e.Message)
	}
	return e
}

func TestHandshake(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{})
	c := dial(t, srv)

	requireError(t, c.query(1, "SELECT * FROM ks.kv"), wire.CodeProtocol, "Unexpected message QUERY, expecting STARTUP or OPTIONS")
	sup := c.roundTrip(2, &frame.Options{})
	require.Equal(t, &frame.Supported{Options: map[string][]string{
		"CQL_VERSION": {"3.4.6"}, "COMPRESSION": {"snappy", "lz4"}, "PROTOCOL_VERSIONS": {"3/v3", "4/v4", "5/v5"},
	}}, sup)
	requireError(t, c.roundTrip(3, &frame.Startup{Options: map[string]string{"DRIVER_NAME": "x"}}),
		wire.CodeProtocol, "Missing value CQL_VERSION in STARTUP message")
	requireError(t, c.roundTrip(3, &frame.Startup{Options: map[string]string{"CQL_VERSION": "2.0.0"}}),
		wire.CodeProtocol, "CQL version 2.0.0 is not supported by the binary protocol (supported version are >= 3.0.0)")
	requireError(t, c.roundTrip(3, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "lzo"}}),
		wire.CodeProtocol, "Unknown compression algorithm: lzo")
	require.IsType(t, &frame.Ready{}, c.roundTrip(4, &frame.Startup{Options: map[string]string{"cql_version": "3.0.0", "DRIVER_NAME": "test"}}))
	requireError(t, c.roundTrip(5, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}),
		wire.CodeProtocol, "Unexpected message STARTUP, the connection is already initialized")
	require.IsType(t, &frame.Ready{}, c.roundTrip(6, &frame.Register{Events: []string{"TOPOLOGY_CHANGE", "STATUS_CHANGE", "SCHEMA_CHANGE"}}))

	b.mu.Lock()
	require.Len(t, b.sessions, 1)
	assert.Equal(t, "test", b.sessions[0].Options["DRIVER_NAME"])
	b.mu.Unlock()
}

func TestQueryResults(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{})
	c := dial(t, srv)
	c.startup()

	res := c.query(1, "SELECT * FROM ks.kv").(*frame.Result)
	require.Equal(t, wire.ResultRows, res.Kind)
	require.Equal(t, kvCols, res.Columns)
	require.Len(t, res.Rows, 3)
	assert.Equal(t, []byte("v2"), res.Rows[2][1])
	assert.Nil(t, res.PagingState)

	// Paging and skip metadata.
	m := c.roundTrip(2, &frame.Query{Query: "SELECT * FROM ks.kv", Params: frame.QueryParams{Consistency: wire.Quorum, PageSize: 1, SkipMetadata: true}})
	res = m.(*frame.Result)
	assert.True(t, res.NoMetadata)
	assert.Nil(t, res.Columns)
	assert.Equal(t, []byte("next"), res.PagingState)
	require.Len(t, res.Rows, 1)

	// Warnings travel in the frame.
	c.send(3, &frame.Query{Query: "SELECT warn", Params: frame.QueryParams{Consistency: wire.One}})
	f := c.recv()
	assert.Equal(t, []string{"Aggregation query used without partition key"}, f.Warnings)
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, f.Message)

	assert.Equal(t, &frame.Result{Kind: wire.ResultSetKeyspace, Keyspace: "ks"}, c.query(4, "USE ks"))
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, c.query(5, "INSERT"))
	assert.Equal(t, []string{
		"QUERY SELECT * FROM ks.kv cl=ONE values=0 page=0",
		"QUERY SELECT * FROM ks.kv cl=QUORUM values=0 page=1",
		"QUERY SELECT warn cl=ONE values=0 page=0",
		"QUERY USE ks cl=ONE values=0 page=0",
		"QUERY INSERT cl=ONE values=0 page=0",
	}, b.Calls())
}

func TestErrors(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	c := dial(t, srv)
	c.startup()
	requireError(t, c.query(1, "INVALID"), wire.CodeInvalid, "Undefined column name x")
	requireError(t, c.query(1, "NOPE"), wire.CodeSyntax, "line 1:0 no viable alternative at input 'NOPE'")
	e := requireError(t, c.query(1, "EXISTS"), wire.CodeAlreadyExists, "")
	assert.Equal(t, "ks", e.Keyspace)
	assert.Equal(t, "t", e.Table)
	e = requireError(t, c.query(1, "UNAVAILABLE"), wire.CodeUnavailable, "Cannot achieve consistency level QUORUM")
	assert.Equal(t, wire.Quorum, e.Consistency)
	assert.Equal(t, int32(2), e.Required)
	assert.Equal(t, int32(1), e.Alive)
	requireError(t, c.query(1, "PLAIN"), wire.CodeServer, "disk on fire")
	e = requireError(t, c.query(2, "PANIC"), wire.CodeServer, "")
	assert.Contains(t, e.Message, "backend exploded")
	e = requireError(t, c.query(3, "BADROW"), wire.CodeServer, "")
	assert.Contains(t, e.Message, "cannot encode response")
	// The connection survives all of them.
	require.IsType(t, &frame.Result{}, c.query(4, "USE ks"))
}

func TestPrepareExecute(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{})
	c := dial(t, srv)
	c.startup()

	q := "SELECT k, v FROM ks.kv WHERE k = ? AND v = ?"
	res := c.roundTrip(1, &frame.Prepare{Query: q}).(*frame.Result)
	require.Equal(t, wire.ResultPrepared, res.Kind)
	id := md5.Sum([]byte(q))
	require.Equal(t, id[:], res.Prepared.ID)
	require.Equal(t, kvCols, res.Prepared.Bind)
	require.Equal(t, []uint16{0}, res.Prepared.PKIndexes)

	out := c.roundTrip(2, &frame.Execute{ID: id[:], Params: frame.QueryParams{Consistency: wire.One,
		Values: [][]byte{intBytes(7), []byte("x")}, SkipMetadata: true}}).(*frame.Result)
	assert.True(t, out.NoMetadata)
	assert.Equal(t, [][][]byte{{intBytes(7), []byte("x")}}, out.Rows)

	// An unknown id is Unprepared, carrying the id even though the backend
	// error did not.
	unknown := []byte{1, 2, 3}
	e := requireError(t, c.roundTrip(3, &frame.Execute{ID: unknown, Params: frame.QueryParams{Consistency: wire.One}}),
		wire.CodeUnprepared, "Prepared query not found")
	assert.Equal(t, unknown, e.UnpreparedID)
	assert.Equal(t, []string{"PREPARE " + q, "EXECUTE " + q + " values=[00000007 78]"}, b.Calls())
}

func TestUnpreparedErrorHelper(t *testing.T) {
	e := server.UnpreparedError([]byte{0xab})
	assert.Equal(t, wire.CodeUnprepared, e.CQLCode())
	assert.Equal(t, []byte{0xab}, e.UnpreparedID)
	assert.Contains(t, e.Message, "Prepared query with ID ab not found")
}

func TestBatch(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{})
	c := dial(t, srv)
	c.startup()
	m := c.roundTrip(1, &frame.Batch{Type: frame.BatchUnlogged, Consistency: wire.Quorum, HasTimestamp: true, DefaultTimestamp: 42,
		SerialConsistency: wire.LocalSerial, Entries: []frame.BatchEntry{
			{Query: "INSERT INTO kv (k, v) VALUES (?, ?)", Values: [][]byte{intBytes(1), nil}},
			{ID: []byte{0xca, 0xfe, 0}, Values: [][]byte{nil}, Unset: []bool{true}},
		}})
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, m)
	assert.Equal(t, []string{`BATCH UNLOGGED "INSERT INTO kv (k, v) VALUES (?, ?)"/2,id:cafe/1 cl=QUORUM ts=42`}, b.Calls())
}

func TestSchemaChangeEvent(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	listener := dial(t, srv)
	listener.startup()
	require.IsType(t, &frame.Ready{}, listener.roundTrip(1, &frame.Register{Events: []string{"SCHEMA_CHANGE"}}))
	quiet := dial(t, srv)
	quiet.startup()

	change := &wire.SchemaChange{Change: wire.Created, Target: wire.TargetTable, Keyspace: "ks", Name: "t"}
	assert.Equal(t, &frame.Result{Kind: wire.ResultSchemaChange, Change: change}, quiet.query(1, "CREATE TABLE ks.t (k int PRIMARY KEY)"))
	ev := listener.recv()
	assert.Equal(t, int16(-1), ev.Header.Stream)
	assert.Equal(t, &frame.Event{Type: "SCHEMA_CHANGE", Change: change}, ev.Message)

	// The backend can publish changes itself.
	srv.PublishSchemaChange(wire.SchemaChange{Change: wire.Dropped, Target: wire.TargetKeyspace, Keyspace: "old"})
	ev = listener.recv()
	assert.Equal(t, &frame.Event{Type: "SCHEMA_CHANGE", Change: &wire.SchemaChange{Change: wire.Dropped, Target: wire.TargetKeyspace, Keyspace: "old"}}, ev.Message)

	// The unregistered connection got nothing: its next frame is its own reply.
	assert.IsType(t, &frame.Result{}, quiet.query(2, "USE ks"))
}

func TestCompression(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	c := dial(t, srv)
	c.send(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "snappy"}})
	c.compress = true // READY is already compressed, as in Cassandra
	f := c.recv()
	require.IsType(t, &frame.Ready{}, f.Message)
	res := c.query(1, "SELECT * FROM ks.kv").(*frame.Result)
	require.Len(t, res.Rows, 3)

	// A corrupt compressed body is a protocol error that closes the connection.
	c.sendRaw([]byte{4, byte(frame.FlagCompressed), 0, 9, byte(frame.OpQuery), 0, 0, 0, 3, 0xff, 0xff, 0xff})
	f = c.recv()
	requireError(t, f.Message, wire.CodeProtocol, "")
	assert.Equal(t, int16(9), f.Header.Stream)
	c.expectClosed()
}

func TestAuth(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{Authenticator: server.Passwords{"cassandra": "secret"}})

	c := dial(t, srv)
	m := c.roundTrip(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	require.Equal(t, &frame.Authenticate{Authenticator: "org.apache.cassandra.auth.PasswordAuthenticator"}, m)
	requireError(t, c.query(1, "USE ks"), wire.CodeProtocol, "Unexpected message QUERY, expecting SASL_RESPONSE")
	requireError(t, c.roundTrip(2, &frame.AuthResponse{Token: []byte("\x00cassandra\x00wrong")}),
		wire.CodeBadCredentials, "Provided username cassandra and/or password are incorrect")
	requireError(t, c.roundTrip(2, &frame.AuthResponse{Token: []byte("\x00nobody\x00secret")}),
		wire.CodeBadCredentials, "Provided username nobody and/or password are incorrect")
	requireError(t, c.roundTrip(2, &frame.AuthResponse{Token: []byte("garbage")}), wire.CodeBadCredentials, "Password must not be null")
	require.Equal(t, &frame.AuthSuccess{}, c.roundTrip(3, &frame.AuthResponse{Token: []byte("\x00cassandra\x00secret")}))
	require.IsType(t, &frame.Result{}, c.query(4, "USE ks"))

	b.mu.Lock()
	defer b.mu.Unlock()
	require.Len(t, b.sessions, 1)
	assert.Equal(t, "cassandra", b.sessions[0].User)
}

func TestUnsupportedVersion(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	const msg = "Invalid or unsupported protocol version (%d); supported versions are (3/v3, 4/v4, 5/v5)"
	tests := []struct {
		name        string
		raw         []byte
		respVersion byte
		v           int
	}{
		{"python 0x42 (v66)", []byte{0x42, 0, 0, 0, 5, 0, 0, 0, 0}, 0x85, 66},
		{"python 0x41", []byte{0x41, 0, 0, 0, 5, 0, 0, 0, 0}, 0x85, 65},
		{"v6 beta flag", []byte{0x06, 0x10, 0, 3, 5, 0, 0, 0, 0}, 0x85, 6},
		{"v6", []byte{0x06, 0, 0, 3, 5, 0, 0, 0, 0}, 0x85, 6},
		{"v0", []byte{0x00, 0, 0, 3, 5, 0, 0, 0, 0}, 0x85, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, srv)
			c.sendRaw(tt.raw)
			c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			var hb [9]byte
			_, err := io.ReadFull(c.br, hb[:])
			require.NoError(t, err)
			assert.Equal(t, tt.respVersion, hb[0])
			assert.Equal(t, tt.raw[2:4], hb[2:4], "stream id echoed")
			assert.Equal(t, byte(frame.OpError), hb[4])
			body := make([]byte, binary.BigEndian.Uint32(hb[5:]))
			_, err = io.ReadFull(c.br, body)
			require.NoError(t, err)
			f, err := frame.Decode(frame.Header{Version: 0x84, Opcode: frame.OpError}, body)
			require.NoError(t, err)
			requireError(t, f.Message, wire.CodeProtocol, fmt.Sprintf(msg, tt.v))
			c.expectClosed()
		})
	}
	t.Run("v2 with its 8-byte header", func(t *testing.T) {
		c := dial(t, srv)
		c.sendRaw([]byte{0x02, 0, 7, 5, 0, 0, 0, 0})
		c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		var hb [8]byte
		_, err := io.ReadFull(c.br, hb[:])
		require.NoError(t, err)
		assert.Equal(t, []byte{0x82, 0, 7, 0}, hb[:4])
		body := make([]byte, binary.BigEndian.Uint32(hb[4:]))
		_, err = io.ReadFull(c.br, body)
		require.NoError(t, err)
		f, err := frame.Decode(frame.Header{Version: 0x84, Opcode: frame.OpError}, body)
		require.NoError(t, err)
		requireError(t, f.Message, wire.CodeProtocol, fmt.Sprintf(msg, 2))
		c.expectClosed()
	})
}

func TestOversizeFrame(t *testing.T) {
	srv := start(t, newFake(), server.Options{MaxFrameSize: 1024})
	c := dial(t, srv)
	c.startup()
	c.send(5, &frame.Query{Query: strings.Repeat("x", 2000), Params: frame.QueryParams{Consistency: wire.One}})
	f := c.recv()
	assert.Equal(t, int16(5), f.Header.Stream)
	requireError(t, f.Message, wire.CodeInvalid, "Request is too big: length 2016 exceeds maximum allowed length 1024.")
	c.expectClosed()
}

func TestMalformedFrames(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	good := dial(t, srv)
	good.startup()
	tests := []struct {
		name string
		raw  []byte
		msg  string
	}{
		{"truncated query body", []byte{4, 0, 0, 1, 7, 0, 0, 0, 4, 0, 0, 0, 9}, ""},
		{"unknown opcode", []byte{4, 0, 0, 1, 0x33, 0, 0, 0, 0}, "Unknown opcode 51"},
		{"response direction", []byte{0x84, 0, 0, 1, 2, 0, 0, 0, 0}, "Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode READY"},
		{"negative length", []byte{4, 0, 0, 1, 5, 0xff, 0xff, 0xff, 0xff}, "Invalid value for envelope header body length field: -1"},
		{"compressed without negotiation", []byte{4, 1, 0, 1, 5, 0, 0, 0, 1, 0}, "Compressed frame received but no compression was negotiated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, srv)
			c.startup()
			c.sendRaw(tt.raw)
			f := c.recv()
			assert.Equal(t, int16(1), f.Header.Stream)
			requireError(t, f.Message, wire.CodeProtocol, tt.msg)
			c.expectClosed()
		})
	}
	// Other connections are unaffected.
	require.IsType(t, &frame.Result{}, good.query(1, "USE ks"))
}

func TestMidFrameDisconnect(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{})
	c := dial(t, srv)
	c.startup()
	require.Equal(t, 1, srv.NumConns())
	c.sendRaw([]byte{4, 0, 0, 1, 7, 0, 0, 1, 0, 0, 0}) // announces 256 bytes, sends 2
	c.nc.Close()
	require.Eventually(t, func() bool { return srv.NumConns() == 0 }, 5*time.Second, time.Millisecond)
	b.mu.Lock()
	assert.Equal(t, 1, b.closed, "session closed")
	b.mu.Unlock()
}

func TestConcurrentStreams(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{})
	c := dial(t, srv)
	c.startup()
	c.send(10, &frame.Query{Query: "WAIT a", Params: frame.QueryParams{Consistency: wire.One}})
	c.send(11, &frame.Query{Query: "WAIT b", Params: frame.QueryParams{Consistency: wire.One}})
	// A fast query overtakes both.
	c.send(12, &frame.Query{Query: "USE ks", Params: frame.QueryParams{Consistency: wire.One}})
	f := c.recv()
	require.Equal(t, int16(12), f.Header.Stream)
	close(b.gate("b"))
	f = c.recv()
	require.Equal(t, int16(11), f.Header.Stream)
	assert.Equal(t, "b", f.Message.(*frame.Result).Keyspace)
	close(b.gate("a"))
	f = c.recv()
	require.Equal(t, int16(10), f.Header.Stream)
	assert.Equal(t, "a", f.Message.(*frame.Result).Keyspace)
}

// TestMaxRequestsPerConn checks that a connection runs at most
// MaxRequestsPerConn requests at once: a further request waits for a busy
// one to finish, and idle workers are reused.
func TestMaxRequestsPerConn(t *testing.T) {
	b := newFake()
	srv := start(t, b, server.Options{MaxRequestsPerConn: 2})
	c := dial(t, srv)
	c.startup()
	for i, name := range []string{"a", "b", "c"} {
		c.send(int16(10+i), &frame.Query{Query: "WAIT " + name, Params: frame.QueryParams{Consistency: wire.One}})
	}
	require.Eventually(t, func() bool { return len(b.Calls()) == 2 }, 5*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	require.Len(t, b.Calls(), 2, "a third request ran while two were busy")
	close(b.gate("a"))
	f := c.recv()
	require.Equal(t, int16(10), f.Header.Stream)
	require.Eventually(t, func() bool { return len(b.Calls()) == 3 }, 5*time.Second, time.Millisecond)
	close(b.gate("b"))
	close(b.gate("c"))
	got := map[int16]bool{c.recv().Header.Stream: true, c.recv().Header.Stream: true}
	assert.Equal(t, map[int16]bool{11: true, 12: true}, got)
	// The workers are idle now and serve the next requests.
	for i := range 5 {
		require.IsType(t, &frame.Result{}, c.query(int16(20+i), "USE ks"))
	}
}

// TestPipelinedCompressed sends many requests without waiting on a
// compressed connection: responses written together in one syscall must
// each be a complete compressed frame.
func TestPipelinedCompressed(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	c := dial(t, srv)
	c.send(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "snappy"}})
	c.compress = true
	require.IsType(t, &frame.Ready{}, c.recv().Message)
	const n = 200
	for i := range n {
		c.send(int16(i), &frame.Query{Query: "SELECT * FROM ks.kv", Params: frame.QueryParams{Consistency: wire.One}})
	}
	seen := map[int16]bool{}
	for range n {
		f := c.recv()
		require.Len(t, f.Message.(*frame.Result).Rows, 3)
		seen[f.Header.Stream] = true
	}
	assert.Len(t, seen, n)
}

func TestManyConcurrentClients(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := dial(t, srv)
			c.startup()
			for i := range 50 {
				c.send(int16(i), &frame.Query{Query: "SELECT * FROM ks.kv", Params: frame.QueryParams{Consistency: wire.One}})
			}
			seen := map[int16]bool{}
			for range 50 {
				f := c.recv()
				assert.Len(t, f.Message.(*frame.Result).Rows, 3)
				seen[f.Header.Stream] = true
			}
			assert.Len(t, seen, 50)
		})
	}
	wg.Wait()
}

func TestCloseCancelsBlockedRequests(t *testing.T) {
	b := newFake()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := server.New(b, server.Options{})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	require.Eventually(t, func() bool { return srv.Addr() != nil }, time.Second, time.Millisecond)
	c := dial(t, srv)
	c.startup()
	c.send(1, &frame.Query{Query: "WAIT never", Params: frame.QueryParams{Consistency: wire.One}})
	require.Eventually(t, func() bool { return len(b.Calls()) == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, srv.Close())
	require.ErrorIs(t, <-done, server.ErrServerClosed)
	require.NoError(t, srv.Close(), "second Close")
	require.ErrorIs(t, srv.Serve(l), server.ErrServerClosed)
}

func TestMaxConnections(t *testing.T) {
	srv := start(t, newFake(), server.Options{MaxConnections: 1})
	c1 := dial(t, srv)
	c1.startup()
	c2 := dial(t, srv)
	c2.expectClosed()
	require.IsType(t, &frame.Result{}, c1.query(1, "USE ks"))
}

func TestOptionsValidate(t *testing.T) {
	o := server.Options{MaxFrameSize: 1 << 30}
	require.ErrorIs(t, o.Validate(), server.ErrInvalidOptions)
	var z server.Options
	z.EnsureDefaults()
	require.NoError(t, z.Validate())
	assert.Equal(t, server.DefaultMaxFrameSize, z.MaxFrameSize)
}

// BenchmarkQueryRoundTrip measures one QUERY over loopback TCP against the
// fake backend, request encoding and response decoding on the client
// included. Allocations are counted for the whole process.
func BenchmarkQueryRoundTrip(b *testing.B) {
	srv := start(b, newFake(), server.Options{})
	c := dial(b, srv)
	c.startup()
	req, err := (&frame.Frame{Header: frame.Header{Version: frame.VersionRequest, Stream: 1},
		Message: &frame.Query{Query: "SELECT * FROM ks.kv", Params: frame.QueryParams{Consistency: wire.One}}}).AppendTo(nil)
	require.NoError(b, err)
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.nc.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c.br, buf[:frame.HeaderSize]); err != nil {
			b.Fatal(err)
		}
		n := binary.BigEndian.Uint32(buf[5:9])
		if _, err := io.ReadFull(c.br, buf[:n]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestClients lists connections through their handshake: established
// before STARTUP, authenticating, then ready with the user and the STARTUP
// options, with the requests counted.
func TestClients(t *testing.T) {
	srv := start(t, newFake(), server.Options{Authenticator: server.Passwords{"cassandra": "secret"}})
	c := dial(t, srv)
	stageOf := func() server.Client {
		t.Helper()
		var cl server.Client
		require.Eventually(t, func() bool {
			cls := srv.Clients()
			if len(cls) != 1 {
				return false
			}
			cl = cls[0]
			return true
		}, 5*time.Second, time.Millisecond)
		return cl
	}
	assert.Equal(t, "established", stageOf().Stage)
	c.roundTrip(0, &frame.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "DRIVER_NAME": "test"}})
	cl := stageOf()
	assert.Equal(t, "authenticating", cl.Stage)
	assert.Equal(t, "", cl.User)
	assert.Equal(t, "test", cl.Options["DRIVER_NAME"])
	c.roundTrip(1, &frame.AuthResponse{Token: []byte("\x00cassandra\x00secret")})
	cl = stageOf()
	assert.Equal(t, "ready", cl.Stage)
	assert.Equal(t, "cassandra", cl.User)
	assert.Equal(t, int64(2), cl.Requests)
	assert.Equal(t, 4, cl.ProtocolVersion)
}
