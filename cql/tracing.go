package cql

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"
	"unicode/utf16"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Protocol tracing. A request with the native protocol's tracing flag runs
// with a Trace; RecordTrace then writes it where Cassandra's Tracing writes
// a session (tracing/TraceKeyspace.java): one row of
// system_traces.sessions and one row of system_traces.events per step, all
// expiring after a day (tracetype_query_ttl). Drivers read them back by the
// session id the response carries: the Python driver's get_query_trace
// (and so cqlsh's TRACING ON), gocql's Tracer, the Node.js driver's
// metadata.getTrace. Cassandra writes the rows asynchronously and drivers
// poll until sessions.duration is set; minicass writes them before the
// response is sent, so the first poll finds them.

// traceTTL is Cassandra's tracetype_query_ttl: one day, in seconds.
const traceTTL = 86400

// traceChunk is the number of rows RecordTrace writes in one mutation. With
// query.MaxTraceEvents events of at most a few kilobytes each, a trace is a
// few mutations, each far below the engine's mutation size limit.
const traceChunk = 100

// TraceRequest describes the request a trace belongs to.
type TraceRequest struct {
	// Client is the client's address.
	Client net.IP
	// Command is the trace type, "QUERY" for every request type.
	Command string
	// Request is the request's description: "Execute CQL3 query",
	// "Execute CQL3 prepared query" or "Execute batch of CQL3 queries".
	Request string
	// Parameters are the request's parameters (query, consistency_level,
	// page_size, ...), as Cassandra's messages list them.
	Parameters map[string]string
	// Thread names what ran the request, recorded with every event:
	// Cassandra's native transport calls its request threads
	// "Native-Transport-Requests-N".
	Thread string
}

// RecordTrace writes trace t of request r to system_traces.sessions and
// system_traces.events and returns the session id (a timeuuid of the time
// the statement started).
func (x *Executor) RecordTrace(ctx context.Context, r TraceRequest, t *query.Trace) (types.UUIDValue, error) {
	id := x.uuid.NewTimeUUID(t.Started)
	ip, _ := x.NodeAddress()
	const port = 7000 // the storage port Cassandra reports as coordinator_port and source_port
	key := id[:]
	session := virtual.Values{
		"session_id":       key,
		"client":           virtual.InetV(r.Client),
		"command":          virtual.TextV(r.Command),
		"coordinator":      virtual.InetV(ip),
		"coordinator_port": virtual.IntV(port),
		"duration":         virtual.IntV(micros(t.Duration)),
		"parameters":       virtual.TextMapV(r.Parameters),
		"request":          virtual.TextV(r.Request),
		"started_at":       virtual.TimestampV(t.Started.UnixMilli()),
	}
	events := make([]virtual.Values, len(t.Events))
	for i, e := range t.Events {
		eid := x.uuid.NewTimeUUID(t.Started.Add(e.Elapsed))
		events[i] = virtual.Values{
			"session_id":     key,
			"event_id":       eid[:],
			"activity":       virtual.TextV(e.Activity),
			"source":         virtual.InetV(ip),
			"source_elapsed": virtual.IntV(micros(e.Elapsed)),
			"source_port":    virtual.IntV(port),
			"thread":         virtual.TextV(r.Thread),
		}
	}
	ts := x.env.Engine.NewTimestamp()
	now := x.env.Engine.Clock().Now().Unix()
	for _, p := range []struct {
		table string
		rows  []virtual.Values
	}{{"sessions", []virtual.Values{session}}, {"events", events}} {
		tbl, ok := x.env.Engine.Table("system_traces", p.table)
		if !ok {
			return id, fmt.Errorf("cql: system table system_traces.%s is missing", p.table)
		}
		// The events go in mutations of traceChunk rows, so that no trace,
		// whatever its length, makes a mutation too large to apply.
		for rows := p.rows; len(rows) > 0; {
			n := min(len(rows), traceChunk)
			m, err := virtual.PartitionMutation(virtual.Partition{Table: tbl, Key: key, Rows: rows[:n]}, data.NoTimestamp, ts, now)
			if err != nil {
				return id, err
			}
			m.PartitionDeletion = data.LiveDeletion
			expire(m, traceTTL, now)
			if err := x.env.Engine.Apply(ctx, tbl, m); err != nil {
				return id, fmt.Errorf("cql: writing %s: %w", tbl.QualifiedName(), err)
			}
			rows = rows[n:]
		}
	}
	return id, nil
}

// expire makes every row and cell of m expire ttl seconds after now.
func expire(m *data.Mutation, ttl int32, now int64) {
	for i := range m.Rows {
		r := &m.Rows[i]
		r.Liveness.TTL, r.Liveness.ExpiresAt = ttl, now+int64(ttl)
		for j := range r.Cells {
			r.Cells[j].TTL, r.Cells[j].LocalDeletionTime = ttl, now+int64(ttl)
		}
	}
}

// micros returns d in whole microseconds, as an int column holds it.
func micros(d time.Duration) int32 { return int32(d.Microseconds()) }

// QueryTraceParameters are the parameters Cassandra's QueryMessage records in
// the trace session of a QUERY of text q with parameters p (nil: only the
// query): the page size when the request pages, the consistency level, the
// serial consistency level (SERIAL unless the request names one) and the
// query.
func QueryTraceParameters(q string, p *query.Params) map[string]string {
	m := map[string]string{"query": q}
	if p == nil {
		return m
	}
	if p.PageSize > 0 {
		m["page_size"] = strconv.Itoa(p.PageSize)
	}
	m["consistency_level"] = p.Consistency.String()
	serial := p.SerialConsistency
	if serial == 0 {
		serial = wire.Serial
	}
	m["serial_consistency_level"] = serial.String()
	return m
}

// traceBoundValueLimit is the length (in UTF-16 code units, as Java counts a
// String) past which a bound value's literal is cut in a trace.
const traceBoundValueLimit = 1000

// ExecuteTraceParameters are the parameters Cassandra 4.1's
// ExecuteMessage.traceQuery records in the trace session of an execution of
// prep with parameters p: those of QueryTraceParameters for the statement's
// text, and each bound value as bound_var_<i>_<marker name> (bound_var_0_id,
// bound_var_0_key(m)), written as the CQL literal of the marker's type
// (CQL3Type.toCQLLiteral: null for a null value) and, when longer than 1,000
// characters, cut there and closed with "...'". Values that do not match the
// markers (a wrong count, an unknown name) add no bound_var entry: the
// execution itself refuses them.
func ExecuteTraceParameters(prep *Prepared, p *query.Params) map[string]string {
	m := QueryTraceParameters(prep.Query, p)
	if p == nil {
		return m
	}
	values, err := bindValues(nil, prep.Bind, p, true)
	if err != nil {
		return m
	}
	for i, spec := range prep.Bind {
		v := values[i]
		lit := "null"
		switch {
		case v.Unset:
			// An unset value is Cassandra's UNSET_BYTE_BUFFER, an empty
			// buffer, whose literal is the type's empty value.
			lit = types.FormatLiteral(spec.Type, []byte{})
		case v.Bytes != nil:
			lit = types.FormatLiteral(spec.Type, v.Bytes)
		}
		m["bound_var_"+strconv.Itoa(i)+"_"+spec.Name] = cutUTF16(lit, traceBoundValueLimit, "...'")
	}
	return m
}

// cutUTF16 returns s unchanged when it has at most n UTF-16 code units, and
// otherwise its first n code units followed by tail, as Java's
// String.substring(0, n) + tail. A character outside the Basic Multilingual
// Plane counts two units; one cut in half is left out.
func cutUTF16(s string, n int, tail string) string {
	units := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if units+w > n {
			return s[:i] + tail
		}
		units += w
	}
	return s
}
