// Package cqlbackend implements the native protocol server's Backend with
// the CQL executor of package cql: one cql.Session per connection. The
// executor and the server share the protocol's vocabulary (package wire), so
// results and schema changes pass through; only the parameters and column
// specifications are converted. Errors pass through unchanged: *cql.Error
// implements the server's Coded interfaces, and the server maps it to an
// ERROR frame.
//
//	x := db.Executor()
//	srv := server.New(cqlbackend.New(x), server.Options{})
//	l, _ := net.Listen("tcp", "127.0.0.1:9042")
//	cqlbackend.Announce(x, l.Addr()) // system.local.rpc_address and rpc_port
//	go srv.Serve(l)
//
// It is a subpackage of server so that the server package itself depends on
// nothing above the frame codec.
package cqlbackend

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"sync"
	"weak"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// Backend serves CQL requests with an executor. It is safe for concurrent
// use.
type Backend struct {
	x *cql.Executor

	// kinds caches the request kind of prepared statement ids. An id is
	// the MD5 of a text (after a keyspace or alone), so an entry never goes stale; the
	// map is emptied when it reaches maxKinds entries.
	kindsMu sync.RWMutex
	kinds   map[string]server.RequestKind
}

// maxKinds bounds Backend.kinds.
const maxKinds = 10000

// New returns a Backend over x.
func New(x *cql.Executor) *Backend { return &Backend{x: x, kinds: make(map[string]server.RequestKind)} }

// NewSession returns the Session of one connection, with no current
// keyspace, logged in as info.User (anonymous when it is empty).
func (b *Backend) NewSession(ctx context.Context, info server.ConnInfo) server.Session {
	s := &Session{b: b, s: b.x.NewUserSession(info.User), user: info.User}
	if tcp, ok := info.RemoteAddr.(*net.TCPAddr); ok {
		s.client = tcp.IP
	}
	return s
}

// Authenticate checks a login against the executor's roles
// (cql.Executor.Authenticate); the Backend is the server's Authenticator
// once authentication is enabled on the executor.
func (b *Backend) Authenticate(ctx context.Context, user, password string) error {
	return b.x.Authenticate(ctx, user, password)
}

// ReportClients makes the connections of srv the rows of x's
// system_views.clients.
func ReportClients(x *cql.Executor, srv *server.Server) {
	x.SetClients(func() []cql.ConnectedClient {
		clients := srv.Clients()
		out := make([]cql.ConnectedClient, 0, len(clients))
		for _, c := range clients {
			cc := cql.ConnectedClient{Username: c.User, Stage: c.Stage, ProtocolVersion: c.ProtocolVersion,
				Options: c.Options, Requests: c.Requests}
			if tcp, ok := c.Addr.(*net.TCPAddr); ok {
				cc.Address, cc.Port, cc.Hostname = tcp.IP, tcp.Port, tcp.IP.String()
			}
			out = append(out, cc)
		}
		return out
	})
}

// Announce tells x the address clients reach it at (the listener's
// address), for system.local's rpc_address, broadcast_address and rpc_port.
// An unspecified address (0.0.0.0 or ::) is announced as 127.0.0.1, since
// drivers refuse 0.0.0.0.
func Announce(x *cql.Executor, addr net.Addr) error {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return x.SetNodeAddress(context.Background(), ip, tcp.Port)
}

// Session is one connection's session.
type Session struct {
	b      *Backend
	s      *cql.Session
	user   string
	client net.IP // the client's address, for traces
}

// in returns the session a v5 request with the keyspace flag runs in: a
// session of the same role whose current keyspace is ks. Without the flag
// (ks empty) it is the connection's own session.
func (s *Session) in(ks string) *cql.Session {
	if ks == "" {
		return s.s
	}
	o := s.s.Executor().NewUserSession(s.user)
	o.SetKeyspace(ks)
	return o
}

// Query runs one statement.
func (s *Session) Query(ctx context.Context, query string, p *server.QueryParams) (*server.Result, error) {
	var ks string
	if p != nil {
		ks = p.Keyspace
	}
	cp := params(p)
	res, err := s.in(ks).Query(ctx, query, cp)
	if err != nil {
		return nil, err
	}
	if res.Trace == nil {
		return result(res, false), nil
	}
	return s.traced(ctx, result(res, false), res.Trace, "Execute CQL3 query", cql.QueryTraceParameters(query, traceParams(p, cp))), nil
}

// Prepare prepares a statement, in keyspace when it is set.
func (s *Session) Prepare(ctx context.Context, query, keyspace string) (*server.Prepared, error) {
	prep, err := s.in(keyspace).Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return &server.Prepared{ID: prep.ID, ResultMetadataID: metadataID(prep), Bind: prep.Bind,
		PKIndexes: prep.PKIndexes, ResultCols: prep.Result}, nil
}

// Execute runs a prepared statement. A Rows result carries the result
// metadata id of the statement's columns (nil for a statement without
// result columns, such as a conditional INSERT, whose Rows are the
// [applied] result). The metadata is skipped when the driver asked and,
// in v5, named the current id; a v5 driver naming another id gets the
// METADATA_CHANGED flag and the metadata, as Cassandra's ExecuteMessage
// decides.
func (s *Session) Execute(ctx context.Context, id []byte, p *server.QueryParams) (*server.Result, error) {
	prep := s.s.Executor().Lookup(id)
	if prep == nil {
		return nil, server.UnpreparedError(id)
	}
	cp := params(p)
	room := rooms.Get().(*cql.CallRoom)
	room.PackRows = true
	res, err := s.s.ExecutePreparedIn(ctx, prep, cp, room)
	*room = cql.CallRoom{}
	rooms.Put(room)
	if err != nil {
		return nil, err
	}
	var out *server.Result
	if res != nil && res.Kind == wire.ResultRows {
		var mdID []byte
		if len(prep.Result) > 0 {
			mdID = metadataID(prep)
		}
		skip := p != nil && p.SkipMetadata && mdID != nil
		changed := false
		if p != nil && p.Version >= 5 && mdID != nil && !bytes.Equal(mdID, p.ResultMetadataID) {
			skip, changed = false, true
		}
		out = result(res, skip)
		out.ResultMetadataID, out.MetadataChanged = mdID, changed
	} else {
		out = result(res, false)
	}
	if res.Trace == nil {
		return out, nil
	}
	return s.traced(ctx, out, res.Trace, "Execute CQL3 prepared query", cql.ExecuteTraceParameters(prep, traceParams(p, cp))), nil
}

// StatementKind returns the kind of the prepared statement id, which
// chooses its request timeout (server.ClassifyStatement of its text);
// server.KindOther for an unknown id.
func (s *Session) StatementKind(id []byte) server.RequestKind {
	b := s.b
	b.kindsMu.RLock()
	k, ok := b.kinds[string(id)]
	b.kindsMu.RUnlock()
	if ok {
		return k
	}
	prep := s.s.Executor().Lookup(id)
	if prep == nil {
		return server.KindOther
	}
	k = derived(prep).kind
	b.kindsMu.Lock()
	if len(b.kinds) >= maxKinds {
		clear(b.kinds)
	}
	b.kinds[string(id)] = k
	b.kindsMu.Unlock()
	return k
}

// preparedInfo is what the backend derives once per prepared statement.
type preparedInfo struct {
	metadataID []byte             // frame.ResultMetadataID of the result columns
	kind       server.RequestKind // server.ClassifyStatement of the text
}

// preparedInfos caches the preparedInfo of each prepared statement, keyed
// weakly so that a statement the executor evicts is not kept alive.
var preparedInfos sync.Map // weak.Pointer[cql.Prepared] -> *preparedInfo

// derived returns the preparedInfo of prep, computed once.
func derived(prep *cql.Prepared) *preparedInfo {
	k := weak.Make(prep)
	if pi, ok := preparedInfos.Load(k); ok {
		return pi.(*preparedInfo)
	}
	pi := &preparedInfo{metadataID: frame.ResultMetadataID(prep.Result), kind: server.ClassifyStatement(prep.Query)}
	if _, loaded := preparedInfos.LoadOrStore(k, pi); !loaded {
		runtime.AddCleanup(prep, func(k weak.Pointer[cql.Prepared]) { preparedInfos.Delete(k) }, k)
	}
	return pi
}

// metadataID returns the result metadata id of prep's result columns
// (frame.ResultMetadataID), computed once per prepared statement.
func metadataID(prep *cql.Prepared) []byte { return derived(prep).metadataID }

// Batch runs a BATCH request: the entries' own plans (a text entry
// compiled in the connection's keyspace, or the request's in v5, a
// prepared one as it was prepared), each with its values, as the
// connection's role.
func (s *Session) Batch(ctx context.Context, b *server.BatchRequest) (*server.Result, error) {
	typ := parser.BatchLogged
	switch b.Type {
	case frame.BatchUnlogged:
		typ = parser.BatchUnlogged
	case frame.BatchCounter:
		typ = parser.BatchCounter
	}
	p := &cql.Params{Consistency: b.Consistency, HasConsistency: true, SerialConsistency: b.SerialConsistency,
		Timestamp: b.DefaultTimestamp, HasTimestamp: b.HasTimestamp, Trace: b.Tracing,
		NowInSeconds: int64(b.NowInSeconds), HasNowInSeconds: b.HasNowInSeconds}
	entries := make([]cql.BatchEntry, len(b.Entries))
	for i, e := range b.Entries {
		entries[i].Query = e.Query
		if e.ID != nil {
			if entries[i].Prepared = s.s.Executor().Lookup(e.ID); entries[i].Prepared == nil {
				return nil, server.UnpreparedError(e.ID)
			}
		}
		entries[i].Values = make([]cql.Value, len(e.Values))
		for j, v := range e.Values {
			entries[i].Values[j] = cql.Value{Bytes: v, Unset: j < len(e.Unset) && e.Unset[j]}
		}
	}
	res, err := s.in(b.Keyspace).Batch(ctx, typ, entries, p)
	if err != nil {
		return nil, err
	}
	tp := map[string]string{"consistency_level": b.Consistency.String(), "serial_consistency_level": serial(b.SerialConsistency).String()}
	return s.traced(ctx, result(res, false), res.Trace, "Execute batch of CQL3 queries", tp), nil
}

// traceParams is cp, the parameters of request parameters p, for the trace
// of the request: nil when the request had none, so that the trace records
// only its query.
func traceParams(p *server.QueryParams, cp *cql.Params) *cql.Params {
	if p == nil {
		return nil
	}
	return cp
}

// serial is the serial consistency in effect: SERIAL unless the request
// names one, as in Cassandra's QueryOptions.
func serial(c wire.Consistency) wire.Consistency {
	if c == 0 {
		return wire.Serial
	}
	return c
}

// traced records trace t of a request (when the client asked for one) and
// returns out carrying the tracing session id. A trace that cannot be
// written does not fail the request, which has run: the result carries a
// warning instead.
func (s *Session) traced(ctx context.Context, out *server.Result, t *cql.Trace, request string, params map[string]string) *server.Result {
	if t == nil {
		return out
	}
	if out == nil {
		out = &server.Result{Kind: wire.ResultVoid}
	}
	req := cql.TraceRequest{Client: s.client, Command: "QUERY", Request: request, Thread: "Native-Transport-Requests-1", Parameters: params}
	id, err := s.s.Executor().RecordTrace(ctx, req, t)
	if err != nil {
		out.Warnings = append(out.Warnings, "Tracing session not recorded: "+err.Error())
		return out
	}
	tid := [16]byte(id)
	out.TracingID = &tid
	return out
}

// paramsBlock holds a cql.Params and room for a few values, so that the
// parameters of a typical statement take one allocation instead of two.
type paramsBlock struct {
	p    cql.Params
	vals [4]cql.Value
}

// params converts the protocol's query parameters. The values alias p's.
func params(p *server.QueryParams) *cql.Params {
	if p == nil {
		return &cql.Params{}
	}
	blk := &paramsBlock{}
	out := &blk.p
	*out = cql.Params{
		Names:             p.Names,
		PageSize:          int(p.PageSize),
		PagingState:       p.PagingState,
		Timestamp:         p.DefaultTimestamp,
		HasTimestamp:      p.HasTimestamp,
		Consistency:       p.Consistency,
		HasConsistency:    true,
		SerialConsistency: p.SerialConsistency,
		Trace:             p.Tracing,
		NowInSeconds:      int64(p.NowInSeconds),
		HasNowInSeconds:   p.HasNowInSeconds,
	}
	if n := len(p.Values); n > 0 {
		if n <= len(blk.vals) {
			out.Values = blk.vals[:n:n]
		} else {
			out.Values = make([]cql.Value, n)
		}
		for i, v := range p.Values {
			out.Values[i] = cql.Value{Bytes: v, Unset: i < len(p.Unset) && p.Unset[i]}
		}
	}
	return out
}

// rooms recycles the executions' memory of Execute (cql.CallRoom): the
// result does not live in it, so it goes back as soon as the execution
// returns. The rows of a SELECT come packed in the protocol's row
// encoding, which the server writes as they are.
var rooms = sync.Pool{New: func() any { return new(cql.CallRoom) }}

// result converts an executor result. A Void result without warnings is
// returned as nil, which the server sends as Void without allocating.
func result(r *cql.Result, noMetadata bool) *server.Result {
	if r == nil || (r.Kind == wire.ResultVoid && len(r.Warnings) == 0) {
		return nil
	}
	out := &server.Result{Kind: r.Kind, Warnings: r.Warnings}
	switch r.Kind {
	case wire.ResultRows:
		out.Rows, out.PagingState = r.Rows, r.PagingState
		out.Packed, out.PackedRows = r.Packed, r.PackedRows
		out.NoMetadata = noMetadata
		out.Columns = r.Columns
		if out.Columns == nil {
			out.Columns = []server.ColumnSpec{}
		}
	case wire.ResultSetKeyspace:
		out.Keyspace = r.Keyspace
	case wire.ResultSchemaChange:
		out.Change = r.Change
	}
	return out
}

// The executor's errors carry the extras of their codes to the ERROR frame.
var (
	_ server.AlreadyExistsError   = (*cql.Error)(nil)
	_ server.UnpreparedIDError    = (*cql.Error)(nil)
	_ server.FunctionFailureError = (*cql.Error)(nil)
	_ server.TimeoutError         = (*cql.Error)(nil)
)

// StatementText returns the text of the prepared statement id, so that the
// server's fault rules match an EXECUTE by the statement it runs.
func (s *Session) StatementText(id []byte) (string, bool) {
	if prep := s.s.Executor().Lookup(id); prep != nil {
		return prep.Query, true
	}
	return "", false
}

var (
	_ server.StatementTexter = (*Session)(nil)
	_ server.StatementKinder = (*Session)(nil)
)
