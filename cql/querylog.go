package cql

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// The query log. Every request the executor runs passes through
// Session.runValues, for the Go API and the native protocol server alike;
// when a QueryLog is installed (EnableQueryLog), each is recorded there
// with what its client sent and what it got: the statement, its bound
// values (copied: a server reuses its frame buffers), the consistency
// levels, keyspace, paging, client timestamp, warnings and error. Off (the
// default), the cost is one atomic load per request.
//
// The log is a plain value that a test double reads in process and that
// an admin endpoint can serve as JSON (LogEntry's fields are exported and
// self-describing; Values are decoded by DecodedValues).

// Log sources: which client made a request (LogEntry.Source).
const (
	// SourceGo is the embedded Go API (package minicass and minicasstest's
	// direct calls).
	SourceGo = "go"
	// SourceInternal is the executor's own queries (role lookups).
	SourceInternal = "internal"
	// SourceClient is any other session: the native protocol server's
	// connections, the shell.
	SourceClient = "client"
)

// LogEntry is one request the executor ran.
type LogEntry struct {
	// Seq numbers the requests in the order they started, from 1.
	Seq uint64
	// Time is the executor's clock when the request started.
	Time time.Time
	// Source says who sent the request (SourceGo, SourceInternal or
	// SourceClient).
	Source string
	// User is the role of the session ("" when anonymous).
	User string
	// Keyspace is the session's current keyspace when the request ran.
	Keyspace string
	// Query is the statement's text as the client sent it (for a
	// prepared statement, the text it was prepared from; for a protocol
	// BATCH, "BATCH of" and its entries' texts).
	Query string
	// Prepared is set for an execution of a prepared statement.
	Prepared bool
	// Stmt is the parsed statement (nil for a protocol BATCH, whose
	// entries are in Batch). It is shared with the executor: read it only.
	Stmt parser.Statement
	// Bind describes the bind markers; Values are the values bound, in
	// marker order.
	Bind   []query.ColumnSpec
	Values []query.Value
	// Batch holds the entries of a protocol BATCH, with BatchType.
	Batch     []LogBatchEntry
	BatchType parser.BatchType
	// Consistency and SerialConsistency are the levels the client asked
	// for (minicass, one node, satisfies every level).
	Consistency, SerialConsistency wire.Consistency
	// PageSize and PagingState are the paging parameters sent.
	PageSize    int
	PagingState []byte
	// Timestamp is the client's default timestamp, when HasTimestamp.
	Timestamp    int64
	HasTimestamp bool
	// Warnings are the warnings the response carried.
	Warnings []string
	// Err is the error the request got (nil on success).
	Err *query.Error
}

// LogBatchEntry is one statement of a protocol BATCH in the log.
type LogBatchEntry struct {
	Query    string
	Prepared bool
	Stmt     parser.Statement
	Bind     []query.ColumnSpec
	Values   []query.Value
}

// Kind returns the statement's kind in upper case: "SELECT", "INSERT",
// "UPDATE", "DELETE", "BATCH" (a CQL or protocol BATCH), "USE", or the
// first words of any other statement ("CREATE TABLE", "DROP KEYSPACE", ...).
func (e *LogEntry) Kind() string {
	if e.Stmt == nil {
		return "BATCH"
	}
	return StatementKind(e.Stmt)
}

// IsWrite reports whether the request is an INSERT, UPDATE, DELETE or
// BATCH.
func (e *LogEntry) IsWrite() bool {
	switch e.Kind() {
	case "INSERT", "UPDATE", "DELETE", "BATCH":
		return true
	}
	return false
}

// DecodedValues returns the bound values as Go values (types.Decode: nil
// for null, types.Unset for an unset value), or their bytes when a value
// does not decode as its marker's type.
func (e *LogEntry) DecodedValues() []any { return decodeValues(e.Bind, e.Values) }

// DecodedValues returns the entry's bound values as Go values.
func (e *LogBatchEntry) DecodedValues() []any { return decodeValues(e.Bind, e.Values) }

// Unset is the decoded form of an unset bound value.
type Unset struct{}

func decodeValues(bind []query.ColumnSpec, values []query.Value) []any {
	out := make([]any, len(values))
	for i, v := range values {
		switch {
		case v.Unset:
			out[i] = Unset{}
		case v.Bytes == nil:
			out[i] = nil
		case i < len(bind):
			if d, err := types.Decode(bind[i].Type, v.Bytes); err == nil {
				out[i] = d
			} else {
				out[i] = v.Bytes
			}
		default:
			out[i] = v.Bytes
		}
	}
	return out
}

// StatementKind returns the kind of a parsed statement (see
// LogEntry.Kind).
func StatementKind(stmt parser.Statement) string {
	switch stmt.(type) {
	case *parser.Select:
		return "SELECT"
	case *parser.Insert:
		return "INSERT"
	case *parser.Update:
		return "UPDATE"
	case *parser.Delete:
		return "DELETE"
	case *parser.Batch:
		return "BATCH"
	}
	f := strings.Fields(strings.ToUpper(stmt.String()))
	switch {
	case len(f) == 0:
		return ""
	case len(f) >= 2 && (f[0] == "CREATE" || f[0] == "ALTER" || f[0] == "DROP" || f[0] == "LIST"):
		if f[1] == "OR" || f[1] == "CUSTOM" {
			if len(f) >= 4 && f[1] == "OR" {
				return f[0] + " " + f[3]
			}
			if len(f) >= 3 {
				return f[0] + " " + f[2]
			}
		}
		return f[0] + " " + f[1]
	}
	return f[0]
}

// QueryLog holds the requests an executor ran, in order, up to a limit. It
// is safe for concurrent use.
type QueryLog struct {
	limit int
	seq   atomic.Uint64

	mu sync.Mutex
	// ring holds the entries from ring[start], n of them, wrapping.
	ring     []LogEntry
	start, n int
	dropped  int
}

// DefaultQueryLogLimit is the number of entries a QueryLog keeps by
// default; older ones are dropped first.
const DefaultQueryLogLimit = 100_000

// NewQueryLog returns an empty log keeping the last limit entries
// (DefaultQueryLogLimit when limit <= 0).
func NewQueryLog(limit int) *QueryLog {
	if limit <= 0 {
		limit = DefaultQueryLogLimit
	}
	return &QueryLog{limit: limit}
}

// Entries returns a copy of the entries, in the order the requests started.
func (l *QueryLog) Entries() []LogEntry {
	l.mu.Lock()
	out := make([]LogEntry, 0, l.n)
	for i := 0; i < l.n; i++ {
		out = append(out, l.ring[(l.start+i)%len(l.ring)])
	}
	l.mu.Unlock()
	slices.SortStableFunc(out, func(a, b LogEntry) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return out
}

// Len returns the number of entries held.
func (l *QueryLog) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Dropped returns the number of entries dropped for the limit.
func (l *QueryLog) Dropped() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// Clear removes every entry.
func (l *QueryLog) Clear() {
	l.mu.Lock()
	l.ring, l.start, l.n, l.dropped = nil, 0, 0, 0
	l.mu.Unlock()
}

func (l *QueryLog) add(e LogEntry) {
	l.mu.Lock()
	switch {
	case l.n < len(l.ring):
		l.ring[(l.start+l.n)%len(l.ring)] = e
		l.n++
	case len(l.ring) < l.limit:
		// Grow (only while start is 0: the ring has not wrapped yet).
		l.ring = append(l.ring, e)
		l.n++
	default:
		l.ring[l.start] = e
		l.start = (l.start + 1) % len(l.ring)
		l.dropped++
	}
	l.mu.Unlock()
}

// EnableQueryLog installs log (NewQueryLog(0) when nil) as the executor's
// query log and returns it: every request from then on is recorded there.
func (x *Executor) EnableQueryLog(log *QueryLog) *QueryLog {
	if log == nil {
		log = NewQueryLog(0)
	}
	x.qlog.Store(log)
	return log
}

// DisableQueryLog stops recording requests.
func (x *Executor) DisableQueryLog() { x.qlog.Store(nil) }

// QueryLog returns the executor's query log, nil when disabled.
func (x *Executor) QueryLog() *QueryLog { return x.qlog.Load() }

// request describes a request for the log: what runValues does not know
// from the plan.
type request struct {
	text     string
	prepared bool
	batch    []BatchEntry
	plans    []plan.Plan // of batch's entries
	bType    parser.BatchType

	// room is the memory the caller lends the execution (nil: none).
	room *CallRoom
}

// copyValues copies values and their bytes.
func copyValues(vs []query.Value) []query.Value {
	if vs == nil {
		return nil
	}
	n := 0
	for _, v := range vs {
		n += len(v.Bytes)
	}
	buf := make([]byte, 0, n)
	out := make([]query.Value, len(vs))
	for i, v := range vs {
		out[i] = v
		if v.Bytes != nil {
			start := len(buf)
			buf = append(buf, v.Bytes...)
			out[i].Bytes = buf[start:len(buf):len(buf)]
		}
	}
	return out
}

// logStart returns the entry of a request about to run.
func (s *Session) logStart(log *QueryLog, req *request, stmt parser.Statement, binds []query.ColumnSpec, values []query.Value, stmtValues [][]query.Value, p *query.Params, now time.Time) LogEntry {
	e := LogEntry{Seq: log.seq.Add(1), Time: now, Source: s.source(), User: s.user,
		Keyspace: s.Keyspace(), Stmt: stmt, Bind: binds, Values: copyValues(values),
		Consistency: p.Consistency, SerialConsistency: p.SerialConsistency, PageSize: p.PageSize,
		PagingState: slices.Clone(p.PagingState), Timestamp: p.Timestamp, HasTimestamp: p.HasTimestamp}
	if req != nil {
		e.Query, e.Prepared = req.text, req.prepared
		if req.batch != nil {
			e.Query = batchText(req.batch).String()
			e.BatchType = req.bType
			e.Batch = make([]LogBatchEntry, len(req.batch))
			for i, b := range req.batch {
				be := LogBatchEntry{Query: b.Query, Bind: req.plans[i].Binds()}
				if b.Prepared != nil {
					be.Query, be.Prepared, be.Stmt = b.Prepared.Query, true, b.Prepared.stmt
				} else if st, err := parser.Parse(b.Query); err == nil {
					be.Stmt = st
				}
				if i < len(stmtValues) {
					be.Values = copyValues(stmtValues[i])
				}
				e.Batch[i] = be
			}
		}
	}
	return e
}

// source returns the session's LogEntry.Source.
func (s *Session) source() string {
	if s.label != "" {
		return s.label
	}
	return SourceClient
}

// SetSource names the client of the session's requests in the query log
// (LogEntry.Source); the Go API's sessions are SourceGo. Call it before
// the session runs anything.
func (s *Session) SetSource(source string) { s.label = source }

// rejected logs a request refused before it ran (a syntax error, an
// unknown table, wrong bind values, an unprepared id), when the log is on,
// and returns err.
func (s *Session) rejected(req *request, stmt parser.Statement, p *query.Params, err error) error {
	log := s.x.qlog.Load()
	if log == nil {
		return err
	}
	if p == nil {
		p = &query.Params{}
	}
	e := s.logStart(log, req, stmt, nil, p.Values, nil, p, s.x.env.Engine.Clock().Now())
	e.Err = query.AsError(err)
	log.add(e)
	return err
}
