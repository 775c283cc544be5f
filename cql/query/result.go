package query

import (
	"fmt"
	"strings"
	"time"

	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Value is one bound value: serialized bytes (nil Bytes = null), or unset.
// An unset value writes nothing (cql3/Constants.java Setter) and is an error
// where a value is required.
type Value struct {
	Bytes []byte
	Unset bool
}

// Params are the per-execution parameters of a statement, as a QUERY or
// EXECUTE message carries them.
type Params struct {
	// Values are the bound values, in bind-marker order (or matched by Names).
	Values []Value
	// Names, when set, names each entry of Values (protocol flag 0x40).
	Names []string
	// PageSize is the maximum number of rows per page; 0 or less disables
	// paging.
	PageSize int
	// PagingState resumes a previous page; it is opaque to clients.
	PagingState []byte
	// Timestamp is the client's default timestamp in microseconds, used when
	// HasTimestamp is set and the statement has no USING TIMESTAMP.
	Timestamp    int64
	HasTimestamp bool
	// Consistency is the statement's consistency level when HasConsistency
	// is set (the native protocol always gives one); without it a
	// statement runs at ONE. SerialConsistency is that of a conditional
	// statement's Paxos round, SERIAL when 0. A level the single node's
	// replicas cannot satisfy (QUORUM of a keyspace of replication factor
	// 3) is answered with Unavailable, as Cassandra's coordinator does
	// (package plan, consistency.go).
	Consistency, SerialConsistency wire.Consistency
	HasConsistency                 bool
	// Trace asks the executor to record what the statement touched.
	Trace bool
	// NowInSeconds, when HasNowInSeconds is set (protocol v5's
	// now_in_seconds), is the time in seconds since the epoch at which the
	// statement computes what has expired and the local deletion time of
	// what it deletes or gives a TTL, instead of the clock's; write
	// timestamps and now() still read the clock, as in Cassandra.
	NowInSeconds    int64
	HasNowInSeconds bool
}

// ColumnSpec describes a result column or a bind marker (types.ColumnSpec).
type ColumnSpec = types.ColumnSpec

// Result is what executing a statement returns.
type Result struct {
	Kind wire.ResultKind
	// Columns and Rows are set for wire.ResultRows; each row has one serialized
	// value per column (nil = null).
	Columns []ColumnSpec
	Rows    [][][]byte
	// Packed, when not nil, holds the result's PackedRows rows instead of
	// Rows, packed (see packed.go; Unpack makes them Rows). Only an
	// execution that asked for packed rows returns them, and only when it
	// returns rows.
	Packed     []byte
	PackedRows int
	// PagingState is non-nil when more pages follow.
	PagingState []byte
	// Keyspace is set for wire.ResultSetKeyspace.
	Keyspace string
	// Change is set for wire.ResultSchemaChange.
	Change *wire.SchemaChange
	// Warnings are server warnings (e.g. tombstone warnings, unlogged batch
	// across partitions), shown by cqlsh and sent in the protocol's
	// warnings flag.
	Warnings []string
	// Trace records what the statement touched, when Params.Trace was set.
	Trace *Trace
}

// Trace is the teaching record of a statement's execution: for reads the
// engine's read statistics, for writes the mutations applied.
type Trace struct {
	// Events are the steps in order, as cqlsh's TRACING shows them.
	Events []TraceEvent
	// Started is when the statement started, by the engine's clock.
	Started time.Time
	// Duration is how long the statement took, by the same clock.
	Duration time.Duration
	// Dropped counts the events left out once Events held MaxTraceEvents;
	// the last event then says how many.
	Dropped int
	// Reads are the statement's table reads as values (Trace.Read), one
	// per table and access, for views that draw them (traceread.go).
	Reads []TraceRead

	now func() time.Time
}

// MaxTraceEvents bounds the events of one trace, so that no statement's
// trace grows with the data it reads: a read of many partitions traces a
// summary (see cql/statements/select_read.go), and whatever passes the bound
// is counted, not kept. The last kept event is then replaced by one that
// says how many were left out.
const MaxTraceEvents = 500

// maxActivity bounds the length of one event's activity, in bytes.
const maxActivity = 2000

// TraceEvent is one step of a Trace.
type TraceEvent struct {
	// Activity says what happened, in words.
	Activity string
	// Elapsed is when it happened, counted from Trace.Started.
	Elapsed time.Duration
}

// NewTrace starts a trace timed by now.
func NewTrace(now func() time.Time) *Trace {
	return &Trace{Started: now(), now: now}
}

// Add records an event, formatted as by fmt.Sprintf. Past MaxTraceEvents
// events it only counts them (see Dropped).
func (t *Trace) Add(format string, args ...any) {
	if t == nil {
		return
	}
	if len(t.Events) >= MaxTraceEvents {
		t.Dropped++
		t.Events[len(t.Events)-1].Activity = fmt.Sprintf("... %d more events left out (a trace keeps at most %d)", t.Dropped+1, MaxTraceEvents)
		return
	}
	a := fmt.Sprintf(format, args...)
	if len(a) > maxActivity {
		a = strings.ToValidUTF8(a[:maxActivity], "") + "..."
	}
	t.Events = append(t.Events, TraceEvent{Activity: a, Elapsed: t.now().Sub(t.Started)})
}

// Finish records the statement's duration.
func (t *Trace) Finish() { t.Duration = t.now().Sub(t.Started) }

// Activities returns the events' activities in order.
func (t *Trace) Activities() []string {
	out := make([]string, len(t.Events))
	for i, e := range t.Events {
		out[i] = e.Activity
	}
	return out
}

func VoidResult() *Result { return &Result{Kind: wire.ResultVoid} }
