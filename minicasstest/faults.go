package minicasstest

import (
	"testing"

	"github.com/minicass/minicass/server"
)

// FaultRule describes an injected fault: the requests it matches (text
// exactly, by prefix or regular expression; statement kind; consistency;
// QUERY, EXECUTE, BATCH or PREPARE) and what the server does with them
// (answer with a Cassandra error body in full, delay, never answer, close
// the connection), once, N times or until removed. See server.FaultRule.
type FaultRule = server.FaultRule

// Fault is an installed fault rule: Remove uninstalls it, Hits counts the
// requests it applied to.
type Fault = server.Fault

// Error is an ERROR response with all its extra fields, for
// FaultRule.Error; see server.Error.
type Error = server.Error

// The request messages and actions of a FaultRule (see package server).
const (
	FaultQuery      = server.FaultQuery
	FaultExecute    = server.FaultExecute
	FaultBatch      = server.FaultBatch
	FaultPrepare    = server.FaultPrepare
	FaultStatements = server.FaultStatements

	FaultAnswer   = server.FaultAnswer
	FaultNoAnswer = server.FaultNoAnswer
	FaultClose    = server.FaultClose
)

// Fault installs rule on the server and returns its handle. Rules are
// checked in the order they were added; the first that matches applies.
func (s *Server) Fault(rule FaultRule) (*Fault, error) { return s.srv.AddFault(rule) }

// MustFault installs rule, fails t if the rule is invalid, and removes the
// fault when the test ends.
func (s *Server) MustFault(t testing.TB, rule FaultRule) *Fault {
	t.Helper()
	f, err := s.srv.AddFault(rule)
	if err != nil {
		t.Fatalf("minicasstest: %v", err)
	}
	t.Cleanup(f.Remove)
	return f
}

// Faults returns the installed faults in the order they were added.
func (s *Server) Faults() []*Fault { return s.srv.Faults() }

// ClearFaults removes every fault.
func (s *Server) ClearFaults() { s.srv.ClearFaults() }
