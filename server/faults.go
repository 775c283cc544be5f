package server

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

// Fault injection: rules that make the server answer matching requests
// with an error, late, never, or by closing the connection, so that a test
// exercises a driver's retry policy, speculative execution and timeouts
// against a server that otherwise really executes CQL. A real Cassandra
// has no such rules: they are a test-double power (docs/compatibility.md).
//
// The rules are checked before a request runs, in the order they were
// added; the first that matches and has uses left applies. With no rule
// installed a request pays one atomic load.

// FaultRequests selects the request messages a FaultRule applies to.
type FaultRequests uint8

// The request messages a rule can match.
const (
	// FaultQuery is a QUERY: a statement sent as text (not prepared).
	FaultQuery FaultRequests = 1 << iota
	// FaultExecute is an EXECUTE of a prepared statement.
	FaultExecute
	// FaultBatch is a BATCH.
	FaultBatch
	// FaultPrepare is a PREPARE.
	FaultPrepare

	// FaultStatements, the default of FaultRule.Requests, is QUERY,
	// EXECUTE and BATCH: the requests that run statements.
	FaultStatements = FaultQuery | FaultExecute | FaultBatch
)

// FaultAction is what a matching rule does besides its delay.
type FaultAction uint8

// The actions of a rule.
const (
	// FaultAnswer answers the request: with the rule's Error when it has
	// one, else by running it normally (a delay-only rule).
	FaultAnswer FaultAction = iota
	// FaultNoAnswer never answers the request; the stream stays open
	// until the driver gives up on it or the connection closes.
	FaultNoAnswer
	// FaultClose closes the connection, with every request on it
	// unanswered.
	FaultClose
)

// String returns the action's name as the admin endpoint spells it.
func (a FaultAction) String() string {
	switch a {
	case FaultAnswer:
		return "answer"
	case FaultNoAnswer:
		return "no_answer"
	case FaultClose:
		return "close"
	}
	return fmt.Sprintf("FaultAction(%d)", uint8(a))
}

// FaultRule describes a fault: which requests it matches, and what the
// server does with them. Every criterion that is set must match (an empty
// rule matches every statement request). The zero value of each field
// means "any".
type FaultRule struct {
	// Requests are the request messages matched. Zero: FaultStatements
	// (QUERY, EXECUTE and BATCH). FaultQuery alone matches statements sent
	// as text, FaultExecute alone prepared ones.
	Requests FaultRequests
	// Query matches a statement whose text is exactly this. The text of
	// an EXECUTE is the text it was prepared from; a BATCH matches when
	// one of its statements does.
	Query string
	// Prefix matches a statement whose text starts with this, compared
	// without regard to case after leading white space.
	Prefix string
	// Pattern matches a statement whose text the regular expression (RE2
	// syntax, package regexp) matches anywhere; anchor it with ^ and $ to
	// match the whole text.
	Pattern string
	// Kinds matches requests of these kinds (ClassifyStatement's; a BATCH
	// is KindBatch, KindCounterWrite or KindCAS).
	Kinds []RequestKind
	// Consistencies matches requests at these consistency levels. A
	// PREPARE carries none and never matches a rule that sets them.
	Consistencies []wire.Consistency

	// Error is the ERROR the server answers with, every extra field as
	// given (see frame.Error for the fields of each code). An empty
	// Message takes Cassandra's message for the code. Nil: no error.
	Error *Error
	// Delay holds the request back before it runs (or is answered with
	// Error), outside its request timeout. Closing the connection ends
	// the wait.
	Delay time.Duration
	// Action is what happens after the delay. FaultNoAnswer and
	// FaultClose exclude Error.
	Action FaultAction
	// Times is how many requests the rule applies to before it removes
	// itself: 1 for a one-shot fault. Zero: until removed.
	Times int
}

// Fault is an installed FaultRule. Its methods are safe for concurrent use.
type Fault struct {
	srv  *Server
	rule FaultRule
	re   *regexp.Regexp
	// left is the number of uses left, or -1 for a rule without Times.
	left atomic.Int64
	hits atomic.Int64
}

// Rule returns the rule as it was added, with its Error's message filled.
func (f *Fault) Rule() FaultRule { return f.rule }

// Hits returns the number of requests the fault has applied to.
func (f *Fault) Hits() int64 { return f.hits.Load() }

// Active reports whether the fault is installed and has uses left.
func (f *Fault) Active() bool {
	return f.left.Load() != 0 && slices.Contains(f.srv.Faults(), f)
}

// Remove uninstalls the fault; requests already held by it are not
// affected. Removing it again does nothing.
func (f *Fault) Remove() { f.srv.removeFault(f) }

// faultSet is the server's installed faults, in the order they were added.
type faultSet struct {
	mu    sync.Mutex
	rules atomic.Pointer[[]*Fault] // copied on write
}

// AddFault installs rule and returns its handle. A rule that cannot work
// (a bad Pattern, a negative Delay or Times, an Error with an action that
// sends none) is refused with an error wrapping ErrInvalidFault.
func (s *Server) AddFault(rule FaultRule) (*Fault, error) {
	f := &Fault{srv: s, rule: rule}
	if rule.Pattern != "" {
		re, err := regexp.Compile(rule.Pattern)
		if err != nil {
			return nil, fmt.Errorf("%w: pattern: %v", ErrInvalidFault, err)
		}
		f.re = re
	}
	switch {
	case rule.Delay < 0:
		return nil, fmt.Errorf("%w: negative delay %v", ErrInvalidFault, rule.Delay)
	case rule.Times < 0:
		return nil, fmt.Errorf("%w: negative times %d", ErrInvalidFault, rule.Times)
	case rule.Action > FaultClose:
		return nil, fmt.Errorf("%w: unknown action %d", ErrInvalidFault, rule.Action)
	case rule.Error != nil && rule.Action != FaultAnswer:
		return nil, fmt.Errorf("%w: action %s sends no error", ErrInvalidFault, rule.Action)
	case rule.Requests&^(FaultStatements|FaultPrepare) != 0:
		return nil, fmt.Errorf("%w: unknown requests %#x", ErrInvalidFault, uint8(rule.Requests))
	}
	for _, cl := range rule.Consistencies {
		if !cl.Valid() {
			return nil, fmt.Errorf("%w: unknown consistency %d", ErrInvalidFault, cl)
		}
	}
	if rule.Requests == 0 {
		f.rule.Requests = FaultStatements
	}
	if rule.Error != nil {
		e := *rule.Error
		if e.Message == "" {
			e.Message = defaultFaultMessage(&e)
		}
		f.rule.Error = &e
	}
	f.left.Store(int64(rule.Times))
	if rule.Times == 0 {
		f.left.Store(-1)
	}
	fs := &s.faults
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var rules []*Fault
	if p := fs.rules.Load(); p != nil {
		rules = slices.Clone(*p)
	}
	rules = append(rules, f)
	fs.rules.Store(&rules)
	return f, nil
}

// Faults returns the installed faults in the order they were added.
func (s *Server) Faults() []*Fault {
	if p := s.faults.rules.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	s.faults.rules.Store(nil)
	s.faults.mu.Unlock()
}

func (s *Server) removeFault(f *Fault) {
	fs := &s.faults
	fs.mu.Lock()
	defer fs.mu.Unlock()
	p := fs.rules.Load()
	if p == nil {
		return
	}
	i := slices.Index(*p, f)
	if i < 0 {
		return
	}
	rules := slices.Delete(slices.Clone(*p), i, i+1)
	if len(rules) == 0 {
		fs.rules.Store(nil)
	} else {
		fs.rules.Store(&rules)
	}
}

// ErrInvalidFault is wrapped by the errors of AddFault.
var ErrInvalidFault = errors.New("server: invalid fault rule")

// defaultFaultMessage is Cassandra 4.1's message for an error of e's code
// on a single node, used when a rule's Error has none.
func defaultFaultMessage(e *Error) string {
	switch e.Code {
	case wire.CodeUnavailable:
		return fmt.Sprintf("Cannot achieve consistency level %s", e.Consistency)
	case wire.CodeWriteTimeout, wire.CodeReadTimeout:
		return fmt.Sprintf("Operation timed out - received only %d responses.", e.Received)
	case wire.CodeReadFailure, wire.CodeWriteFailure:
		return fmt.Sprintf("Operation failed - received %d responses and %d failures", e.Received, max(e.NumFailures, int32(len(e.Reasons))))
	case wire.CodeOverloaded:
		return "Server is in overloaded state. Cannot accept more requests at this point"
	case wire.CodeIsBootstrapping:
		return "Cannot read from a bootstrapping node"
	case wire.CodeFunctionFailure:
		return fmt.Sprintf("execution of '%s.%s[%s]' failed", e.Keyspace, e.Function, strings.Join(e.ArgTypes, ", "))
	case wire.CodeTruncate:
		return "Error during truncate"
	case wire.CodeServer:
		return "java.lang.RuntimeException: fault injected by a minicass fault rule"
	}
	return e.Code.String()
}

// faultRequest is what a rule is matched against.
type faultRequest struct {
	op    FaultRequests
	texts []string // the statement texts (several for a BATCH); "" when unknown
	kind  RequestKind
	cl    wire.Consistency
	hasCL bool
}

// StatementTexter is implemented by a Session that can tell the text of a
// prepared statement from its id, so that fault rules match an EXECUTE
// (and a BATCH's prepared entries) by text. Without it, only rules that
// test no text match those.
type StatementTexter interface {
	StatementText(id []byte) (string, bool)
}

// describeFault returns what rules are matched against for m, and false
// for messages no rule applies to.
func describeFault(m frame.Message, s Session, kind RequestKind) (faultRequest, bool) {
	text := func(id []byte) string {
		if t, ok := s.(StatementTexter); ok {
			if q, ok := t.StatementText(id); ok {
				return q
			}
		}
		return ""
	}
	switch m := m.(type) {
	case *frame.Query:
		return faultRequest{op: FaultQuery, texts: []string{m.Query}, kind: kind, cl: m.Params.Consistency, hasCL: true}, true
	case *frame.Execute:
		return faultRequest{op: FaultExecute, texts: []string{text(m.ID)}, kind: kind, cl: m.Params.Consistency, hasCL: true}, true
	case *frame.Batch:
		texts := make([]string, len(m.Entries))
		for i, e := range m.Entries {
			if e.ID != nil {
				texts[i] = text(e.ID)
			} else {
				texts[i] = e.Query
			}
		}
		return faultRequest{op: FaultBatch, texts: texts, kind: kind, cl: m.Consistency, hasCL: true}, true
	case *frame.Prepare:
		return faultRequest{op: FaultPrepare, texts: []string{m.Query}, kind: ClassifyStatement(m.Query)}, true
	}
	return faultRequest{}, false
}

// matches reports whether f's rule matches r.
func (f *Fault) matches(r *faultRequest) bool {
	rule := &f.rule
	if rule.Requests&r.op == 0 {
		return false
	}
	if len(rule.Kinds) > 0 && !slices.Contains(rule.Kinds, r.kind) {
		return false
	}
	if len(rule.Consistencies) > 0 && (!r.hasCL || !slices.Contains(rule.Consistencies, r.cl)) {
		return false
	}
	if rule.Query == "" && rule.Prefix == "" && f.re == nil {
		return true
	}
	return slices.ContainsFunc(r.texts, f.matchesText)
}

func (f *Fault) matchesText(q string) bool {
	rule := &f.rule
	if rule.Query != "" && q != rule.Query {
		return false
	}
	if rule.Prefix != "" {
		t := strings.TrimLeft(q, " \t\r\n")
		if len(t) < len(rule.Prefix) || !strings.EqualFold(t[:len(rule.Prefix)], rule.Prefix) {
			return false
		}
	}
	return f.re == nil || f.re.MatchString(q)
}

// take uses one of f's uses, and reports false when none is left. The
// use that exhausts the fault removes it.
func (f *Fault) take() bool {
	for {
		n := f.left.Load()
		if n == 0 {
			return false
		}
		if n < 0 {
			f.hits.Add(1)
			return true
		}
		if f.left.CompareAndSwap(n, n-1) {
			f.hits.Add(1)
			if n == 1 {
				f.Remove()
			}
			return true
		}
	}
}

// matchFault returns the fault that applies to m, if any, having used one
// of its uses.
func (s *Server) matchFault(m frame.Message, sess Session, kind RequestKind) *Fault {
	p := s.faults.rules.Load()
	if p == nil {
		return nil
	}
	r, ok := describeFault(m, sess, kind)
	if !ok {
		return nil
	}
	for _, f := range *p {
		if f.matches(&r) && f.take() {
			return f
		}
	}
	return nil
}

// applyFault carries out fault f for the request on stream, and reports
// whether the request is done with (answered, abandoned or its connection
// closed); false means that it is to run normally.
func (c *conn) applyFault(stream int16, f *Fault) bool {
	rule := &f.rule
	if rule.Delay > 0 {
		t := time.NewTimer(rule.Delay)
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			return true
		}
	}
	switch rule.Action {
	case FaultNoAnswer:
		return true
	case FaultClose:
		c.cancel()
		c.nc.Close()
		return true
	}
	if rule.Error != nil {
		c.writeMessage(stream, rule.Error, nil)
		return true
	}
	return false
}
