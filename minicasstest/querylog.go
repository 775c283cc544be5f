package minicasstest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/parser"
)

// The query log: every request the server runs, from drivers and from the
// Go API, with its statement, decoded bound values, consistency and serial
// consistency, keyspace, paging, client timestamp, warnings and error, in
// the order they started (see cql.LogEntry). It is off until
// StartQueryLog; its cost is then about a microsecond per request.
//
//	log := srv.StartQueryLog()
//	... run the code under test ...
//	log.CheckWrites(t, gocql.LocalQuorum)
//	log.CheckNoAllowFiltering(t)
//
// The assertions look at the drivers' requests only (LogEntry.Source is
// cql.SourceClient): what a test does itself through Exec, Query or
// CheckRow is in Entries but does not count.

// LogEntry is one request in the query log.
type LogEntry = cql.LogEntry

// QueryLog is a server's query log.
type QueryLog struct{ l *cql.QueryLog }

// StartQueryLog turns the server's query log on, empty, and returns it.
// A log already on is cleared and returned.
func (s *Server) StartQueryLog() *QueryLog {
	x := s.db.Executor()
	if l := x.QueryLog(); l != nil {
		l.Clear()
		return &QueryLog{l: l}
	}
	return &QueryLog{l: x.EnableQueryLog(nil)}
}

// StopQueryLog turns the query log off; the entries recorded stay readable
// in the QueryLog StartQueryLog returned.
func (s *Server) StopQueryLog() { s.db.Executor().DisableQueryLog() }

// Entries returns every request recorded, drivers' and the Go API's.
func (q *QueryLog) Entries() []LogEntry {
	var out []LogEntry
	for _, e := range q.l.Entries() {
		if e.Source != cql.SourceInternal {
			out = append(out, e)
		}
	}
	return out
}

// Client returns the drivers' requests (the native protocol's).
func (q *QueryLog) Client() []LogEntry {
	var out []LogEntry
	for _, e := range q.l.Entries() {
		if e.Source == cql.SourceClient {
			out = append(out, e)
		}
	}
	return out
}

// Clear empties the log.
func (q *QueryLog) Clear() { q.l.Clear() }

// String lists the drivers' requests, one a line, as failures print them.
func (q *QueryLog) String() string {
	var b strings.Builder
	for _, e := range q.Client() {
		fmt.Fprintf(&b, "%s\n", describe(&e))
	}
	return b.String()
}

// describe prints an entry on one line.
func describe(e *LogEntry) string {
	s := fmt.Sprintf("#%d %s at %s", e.Seq, e.Query, e.Consistency)
	if len(e.Values) > 0 {
		s += fmt.Sprintf(" values %v", e.DecodedValues())
	}
	if e.Err != nil {
		s += fmt.Sprintf(" -> error %v", e.Err)
	}
	return s
}

// Check fails the test for every driver request that match selects and ok
// rejects, saying what was wanted (want) of it. Reads of the system
// keyspaces (a driver's own metadata queries) are left out.
func (q *QueryLog) Check(t testing.TB, want string, match, ok func(*LogEntry) bool) {
	t.Helper()
	var bad []string
	for _, e := range q.Client() {
		if systemRead(&e) {
			continue
		}
		if match(&e) && !ok(&e) {
			bad = append(bad, describe(&e))
		}
	}
	if len(bad) > 0 {
		t.Errorf("minicasstest: %d requests not %s:\n  %s", len(bad), want, strings.Join(bad, "\n  "))
	}
}

// CheckWrites fails the test unless every write (INSERT, UPDATE, DELETE,
// BATCH) a driver sent used the consistency level (a gocql.Consistency or
// wire.Consistency: they print as Cassandra names them).
func (q *QueryLog) CheckWrites(t testing.TB, level fmt.Stringer) {
	t.Helper()
	q.Check(t, "written at "+level.String(), (*LogEntry).IsWrite,
		func(e *LogEntry) bool { return e.Consistency.String() == level.String() })
}

// CheckReads fails the test unless every SELECT a driver sent used the
// consistency level.
func (q *QueryLog) CheckReads(t testing.TB, level fmt.Stringer) {
	t.Helper()
	q.Check(t, "read at "+level.String(), func(e *LogEntry) bool { return e.Kind() == "SELECT" },
		func(e *LogEntry) bool { return e.Consistency.String() == level.String() })
}

// CheckNoAllowFiltering fails the test if a driver's SELECT used ALLOW
// FILTERING.
func (q *QueryLog) CheckNoAllowFiltering(t testing.TB) {
	t.Helper()
	q.Check(t, "free of ALLOW FILTERING", func(e *LogEntry) bool { return e.Kind() == "SELECT" },
		func(e *LogEntry) bool { return !usesAllowFiltering(e.Stmt) })
}

// CheckNoErrors fails the test if a driver's request got an error.
func (q *QueryLog) CheckNoErrors(t testing.TB) {
	t.Helper()
	q.Check(t, "successful", func(*LogEntry) bool { return true }, func(e *LogEntry) bool { return e.Err == nil })
}

func usesAllowFiltering(stmt parser.Statement) bool {
	s, ok := stmt.(*parser.Select)
	return ok && s.AllowFiltering
}

// systemRead reports whether e is a SELECT of a system keyspace.
func systemRead(e *LogEntry) bool {
	s, ok := e.Stmt.(*parser.Select)
	if !ok {
		return false
	}
	ks := string(s.Table.Keyspace)
	if ks == "" {
		ks = e.Keyspace
	}
	return strings.HasPrefix(ks, "system")
}
