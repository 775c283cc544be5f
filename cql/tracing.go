package cql

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
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
