package query

import (
	"time"

	"github.com/minicass/minicass/types"
)

// Execution is the state of one run of a compiled statement: the bound
// values, the time, the trace and what the run gathers as it goes. A plan
// holds none of it, so one plan may run in many executions at once; the
// session that runs it (its role and keyspace) comes with the statement
// layer's own execution, which embeds this one.
type Execution struct {
	// Params are the execution's parameters as the client sent them.
	Params *Params
	// Values are the values of the bind markers, in order.
	Values []Value
	// StmtValues are, in a protocol BATCH, each statement's values (see
	// UseStatement); nil otherwise.
	StmtValues [][]Value
	// Now is the execution's time: now(), default timestamps and TTL
	// expiry are computed from it.
	Now time.Time
	// UUIDs generates the time UUIDs of now() and currentTimeUUID().
	UUIDs *types.TimeUUIDGenerator
	// Trace records the execution's events when tracing is on (nil
	// otherwise).
	Trace *Trace
	// Warnings are server warnings gathered while the statement runs
	// (tombstone warnings, for instance), added to the result.
	Warnings []string
	// JSONCache holds the objects of the INSERT JSON bind markers decoded
	// so far, keyed by the JSON source term, so that a JSON text is decoded
	// once per execution however many columns it fills.
	JSONCache map[any]map[string][]byte
}

// NowInSec returns the time in seconds at which the statement computes
// expiry and local deletion times: the request's now_in_seconds when it
// gives one, else Now.
func (q *Execution) NowInSec() int64 {
	if q.Params != nil && q.Params.HasNowInSeconds {
		return q.Params.NowInSeconds
	}
	return q.Now.Unix()
}

// UseStatement makes the bind markers of statement i of a protocol BATCH
// take that statement's values; in a CQL BATCH every statement shares the
// batch's markers, and nothing changes.
func (q *Execution) UseStatement(i int) {
	if q.StmtValues != nil {
		q.Values = q.StmtValues[i]
	}
}
