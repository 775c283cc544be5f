package cql

import (
	"context"
	"errors"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/wire"
)

// Requests run under their context: the engine checks it while it reads
// (every partition of a scan, every 256 rows of a partition) and before it
// writes, and the work above it is bounded by the statement's size
// (parser.MaxDepth bounds expressions). A request whose context is
// cancelled or past its deadline (the server's request timeouts, a client
// gone, shutdown) stops and answers as Cassandra answers a request that
// timed out: a read with ReadTimeout, a write with WriteTimeout and its
// write type, one node answering none of the one response required.

// timeoutMessage is RequestTimeoutException's message for no response.
const timeoutMessage = "Operation timed out - received only 0 responses."

// timedOut returns the timeout error for a statement stopped by its
// context's error err, or nil when err is not a context's.
func timedOut(stmt any, p *query.Params, err error) *query.Error {
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	cl := wire.One
	if p != nil && p.Consistency != 0 {
		cl = p.Consistency
	}
	write := func(writeType string, conds parser.Conditions) *query.Error {
		if conds.IfExists || conds.IfNotExists || len(conds.If) > 0 {
			return &query.Error{Code: wire.CodeWriteTimeout, Consistency: wire.Serial, BlockFor: 1, WriteType: "CAS", Err: err,
				Message: "CAS operation timed out: received 0 of 1 required responses after 0 contention retries"}
		}
		return &query.Error{Code: wire.CodeWriteTimeout, Message: timeoutMessage, Consistency: cl, BlockFor: 1, WriteType: writeType, Err: err}
	}
	switch st := stmt.(type) {
	case *parser.Select:
		return &query.Error{Code: wire.CodeReadTimeout, Message: timeoutMessage, Consistency: cl, BlockFor: 1, Err: err}
	case *parser.Insert:
		return write("SIMPLE", st.Conditions)
	case *parser.Update:
		return write("SIMPLE", st.Conditions)
	case *parser.Delete:
		return write("SIMPLE", st.Conditions)
	case *parser.Batch:
		wt := "BATCH"
		switch st.Type {
		case parser.BatchUnlogged:
			wt = "UNLOGGED_BATCH"
		case parser.BatchCounter:
			wt = "COUNTER"
		}
		for _, s := range st.Statements {
			if e := write(wt, conditionsOf(s)); e.WriteType == "CAS" {
				return e
			}
		}
		return write(wt, parser.Conditions{})
	case *parser.Truncate:
		return &query.Error{Code: wire.CodeTruncate, Message: "Error during truncate: Truncate timed out - received only 0 responses", Err: err}
	case batchText:
		return write("BATCH", parser.Conditions{})
	}
	return nil
}

// conditionsOf returns the IF conditions of a statement in a BATCH.
func conditionsOf(s parser.Statement) parser.Conditions {
	switch s := s.(type) {
	case *parser.Insert:
		return s.Conditions
	case *parser.Update:
		return s.Conditions
	case *parser.Delete:
		return s.Conditions
	}
	return parser.Conditions{}
}
