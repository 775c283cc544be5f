package minicasstest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/wire"
)

// The client-timestamp trap. gocql stamps each write with the real clock
// (ClusterConfig.DefaultTimestamp, on by default), while everything the
// server stamps itself (srv.Exec, srv.MustExec, any statement without a
// client timestamp) reads the server's manual clock. Once FastForward or
// SetTime has moved that clock ahead, a DELETE the test runs through the
// server is stamped in the future and silently shadows every later write
// the driver sends, until the real clock catches up. minicasstest cannot
// change the driver's timestamps, but it sees them: a write whose client
// timestamp is more than clockSkewWarning behind the server's clock gets a
// client warning in its response (drivers expose them: gocql's
// Iter.Warnings), the server keeps it (Server.ClockWarnings), and a server
// made with Start logs it once to the test.

// clockSkewWarning is how far behind the server's clock a client timestamp
// must be to be warned about: well beyond any real clock skew between a
// test and its in-process server.
const clockSkewWarning = time.Second

// clockWarnings collects the warnings of one server.
type clockWarnings struct {
	mu   sync.Mutex
	msgs []string
	// log, when set, receives the first warning (Start's t.Logf).
	log func(format string, args ...any)
}

func (w *clockWarnings) setLog(log func(format string, args ...any)) {
	w.mu.Lock()
	w.log = log
	w.mu.Unlock()
}

func (w *clockWarnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.msgs) == 0 && w.log != nil {
		w.log("minicasstest: %s", msg)
	}
	if len(w.msgs) < 100 {
		w.msgs = append(w.msgs, msg)
	}
}

// ClockWarnings returns the warnings given so far about writes whose client
// timestamp was behind the server's clock (at most the first 100).
func (s *Server) ClockWarnings() []string {
	s.warnings.mu.Lock()
	defer s.warnings.mu.Unlock()
	return append([]string(nil), s.warnings.msgs...)
}

// clockCheck is a server.Backend that checks the client timestamps of the
// requests its sessions run.
type clockCheck struct {
	server.Backend
	now func() time.Time
	// text returns the text of a prepared statement, "" if unknown.
	text     func(id []byte) string
	warnings *clockWarnings
}

func (b *clockCheck) NewSession(ctx context.Context, info server.ConnInfo) server.Session {
	return &clockCheckSession{Session: b.Backend.NewSession(ctx, info), b: b}
}

type clockCheckSession struct {
	server.Session
	b *clockCheck
}

// check returns the warning for a request with client timestamp ts
// (microseconds), or "".
func (s *clockCheckSession) check(has bool, ts int64, query string) string {
	if !has || !isWrite(query) {
		return ""
	}
	now := s.b.now()
	behind := time.Duration(now.UnixMicro()-ts) * time.Microsecond
	if behind <= clockSkewWarning {
		return ""
	}
	msg := fmt.Sprintf("a client timestamp is %v behind the server's clock (%s, moved by FastForward or SetTime): "+
		"what the server stamps itself (srv.Exec, a DELETE without USING TIMESTAMP) wins over this write until the real clock catches up; "+
		"set cluster.DefaultTimestamp = false so that the server stamps every write",
		behind.Round(time.Millisecond), now.UTC().Format(time.RFC3339))
	s.b.warnings.add(msg)
	return msg
}

func warn(res *server.Result, err error, msg string) (*server.Result, error) {
	if msg == "" || err != nil {
		return res, err
	}
	if res == nil {
		res = &server.Result{Kind: wire.ResultVoid}
	}
	res.Warnings = append(res.Warnings, msg)
	return res, nil
}

func (s *clockCheckSession) Query(ctx context.Context, query string, p *server.QueryParams) (*server.Result, error) {
	msg := ""
	if p != nil {
		msg = s.check(p.HasTimestamp, p.DefaultTimestamp, query)
	}
	res, err := s.Session.Query(ctx, query, p)
	return warn(res, err, msg)
}

func (s *clockCheckSession) Execute(ctx context.Context, id []byte, p *server.QueryParams) (*server.Result, error) {
	msg := ""
	if p != nil {
		msg = s.check(p.HasTimestamp, p.DefaultTimestamp, s.b.text(id))
	}
	res, err := s.Session.Execute(ctx, id, p)
	return warn(res, err, msg)
}

func (s *clockCheckSession) Batch(ctx context.Context, b *server.BatchRequest) (*server.Result, error) {
	msg := s.check(b.HasTimestamp, b.DefaultTimestamp, "BATCH")
	res, err := s.Session.Batch(ctx, b)
	return warn(res, err, msg)
}

// isWrite reports whether query is a write, by its first word: reads carry
// the driver's timestamp too, harmlessly.
func isWrite(query string) bool {
	f := strings.Fields(query)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "INSERT", "UPDATE", "DELETE", "BEGIN", "BATCH":
		return true
	}
	return false
}

// StatementKind passes the wrapped session's statement kinds through, so
// that an EXECUTE keeps the request timeout of its statement.
func (s *clockCheckSession) StatementKind(id []byte) server.RequestKind {
	if k, ok := s.Session.(server.StatementKinder); ok {
		return k.StatementKind(id)
	}
	return server.KindOther
}

// StatementText passes the wrapped session's statement texts through, so
// that fault rules match an EXECUTE by its text.
func (s *clockCheckSession) StatementText(id []byte) (string, bool) {
	if t, ok := s.Session.(server.StatementTexter); ok {
		return t.StatementText(id)
	}
	return "", false
}
