package server_test

import (
	"crypto/md5"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/server/frame"
	"github.com/minicass/minicass/wire"
)

func addFault(t *testing.T, srv *server.Server, r server.FaultRule) *server.Fault {
	t.Helper()
	f, err := srv.AddFault(r)
	require.NoError(t, err)
	return f
}

var overloaded = &server.Error{Code: wire.CodeOverloaded}

// TestFaultMatching checks each criterion of a rule against QUERY
// requests: a matching request gets the rule's error, others run.
func TestFaultMatching(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    server.FaultRule
		hit     string
		miss    string
		missCL  wire.Consistency
		hitCode wire.ErrorCode
	}{
		{name: "exact", rule: server.FaultRule{Query: "INSERT"}, hit: "INSERT", miss: "INSERT "},
		{name: "prefix", rule: server.FaultRule{Prefix: "select *"}, hit: "  SELECT * FROM ks.kv", miss: "SELECT warn"},
		{name: "pattern", rule: server.FaultRule{Pattern: `FROM ks\.kv$`}, hit: "SELECT * FROM ks.kv", miss: "INSERT"},
		{name: "kind", rule: server.FaultRule{Kinds: []server.RequestKind{server.KindRange}}, hit: "SELECT * FROM ks.kv", miss: "USE ks"},
		{name: "consistency", rule: server.FaultRule{Consistencies: []wire.Consistency{wire.One}}, hit: "INSERT", miss: "INSERT", missCL: wire.Quorum},
		{name: "prepared only", rule: server.FaultRule{Requests: server.FaultExecute}, miss: "INSERT"},
		{name: "text only", rule: server.FaultRule{Requests: server.FaultQuery, Query: "INSERT"}, hit: "INSERT", miss: "USE ks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, newFake(), server.Options{})
			tc.rule.Error = overloaded
			addFault(t, srv, tc.rule)
			c := dial(t, srv)
			c.startup()
			if tc.hit != "" {
				e := requireError(t, c.query(1, tc.hit), wire.CodeOverloaded, "")
				assert.NotEmpty(t, e.Message, "a default message")
			}
			cl := tc.missCL
			if cl == 0 {
				cl = wire.One
			}
			m := c.roundTrip(2, &frame.Query{Query: tc.miss, Params: frame.QueryParams{Consistency: cl}})
			if e, ok := m.(*frame.Error); ok {
				assert.NotEqual(t, wire.CodeOverloaded, e.Code, "the rule must not match %q", tc.miss)
			}
		})
	}
}

// TestFaultErrorBody checks that every extra field of the rule's error
// reaches the client as given.
func TestFaultErrorBody(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	want := &server.Error{Code: wire.CodeWriteFailure, Message: "boom", Consistency: wire.LocalQuorum,
		Received: 1, BlockFor: 2, NumFailures: 1, WriteType: "BATCH_LOG"}
	addFault(t, srv, server.FaultRule{Query: "INSERT", Error: want})
	c := dial(t, srv)
	c.startup()
	assert.Equal(t, want, requireError(t, c.query(1, "INSERT"), wire.CodeWriteFailure, "boom"))
}

// TestFaultTimesAndRemove checks a rule's uses: N times, then gone; until
// removed; and the handle's counts.
func TestFaultTimesAndRemove(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	c := dial(t, srv)
	c.startup()
	twice := addFault(t, srv, server.FaultRule{Query: "INSERT", Times: 2, Error: overloaded})
	requireError(t, c.query(1, "INSERT"), wire.CodeOverloaded, "")
	requireError(t, c.query(2, "INSERT"), wire.CodeOverloaded, "")
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, c.query(3, "INSERT"))
	assert.Equal(t, int64(2), twice.Hits())
	assert.False(t, twice.Active())
	assert.Empty(t, srv.Faults())

	always := addFault(t, srv, server.FaultRule{Query: "INSERT", Error: overloaded})
	for i := range 3 {
		requireError(t, c.query(int16(4+i), "INSERT"), wire.CodeOverloaded, "")
	}
	assert.True(t, always.Active())
	always.Remove()
	always.Remove()
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, c.query(9, "INSERT"))
	assert.Equal(t, int64(3), always.Hits())

	// The first matching rule applies; ClearFaults removes them all.
	addFault(t, srv, server.FaultRule{Query: "INSERT", Error: &server.Error{Code: wire.CodeIsBootstrapping}})
	addFault(t, srv, server.FaultRule{Error: overloaded})
	requireError(t, c.query(10, "INSERT"), wire.CodeIsBootstrapping, "Cannot read from a bootstrapping node")
	requireError(t, c.query(11, "USE ks"), wire.CodeOverloaded, "")
	srv.ClearFaults()
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, c.query(12, "INSERT"))
}

// TestFaultPrepareAndBatch checks rules on PREPARE, EXECUTE and BATCH.
func TestFaultPrepareAndBatch(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	c := dial(t, srv)
	c.startup()
	q := "SELECT k, v FROM ks.kv WHERE k = ? AND v = ?"
	// By default a rule leaves PREPARE alone.
	addFault(t, srv, server.FaultRule{Query: q, Error: overloaded})
	res := c.roundTrip(1, &frame.Prepare{Query: q}).(*frame.Result)
	require.Equal(t, wire.ResultPrepared, res.Kind)
	srv.ClearFaults()

	addFault(t, srv, server.FaultRule{Requests: server.FaultPrepare, Prefix: "SELECT", Times: 1, Error: overloaded})
	requireError(t, c.roundTrip(2, &frame.Prepare{Query: q}), wire.CodeOverloaded, "")

	// The fake session cannot tell an id's text: only text-free rules
	// match its EXECUTEs.
	id := md5.Sum([]byte(q))
	addFault(t, srv, server.FaultRule{Requests: server.FaultExecute, Query: q, Error: overloaded})
	exec := &frame.Execute{ID: id[:], Params: frame.QueryParams{Consistency: wire.One, Values: [][]byte{intBytes(1), []byte("x")}}}
	require.IsType(t, &frame.Result{}, c.roundTrip(3, exec))
	srv.ClearFaults()
	addFault(t, srv, server.FaultRule{Requests: server.FaultExecute, Times: 1, Error: overloaded})
	requireError(t, c.roundTrip(4, exec), wire.CodeOverloaded, "")

	// A batch matches when one of its statements does.
	addFault(t, srv, server.FaultRule{Pattern: `^INSERT INTO kv`, Kinds: []server.RequestKind{server.KindBatch},
		Error: &server.Error{Code: wire.CodeWriteTimeout, Consistency: wire.Quorum, BlockFor: 1, WriteType: "BATCH"}})
	batch := &frame.Batch{Type: frame.BatchLogged, Consistency: wire.Quorum, Entries: []frame.BatchEntry{
		{Query: "UPDATE kv SET v = 'a' WHERE k = 1"}, {Query: "INSERT INTO kv (k, v) VALUES (1, 'b')"}}}
	e := requireError(t, c.roundTrip(5, batch), wire.CodeWriteTimeout, "Operation timed out - received only 0 responses.")
	assert.Equal(t, "BATCH", e.WriteType)
}

// TestFaultNoAnswerAndClose checks the actions that send nothing: the
// stream stays unanswered while the connection serves others, and a close
// ends the connection.
func TestFaultNoAnswerAndClose(t *testing.T) {
	srv := start(t, newFake(), server.Options{Timeouts: server.RequestTimeouts{Other: time.Millisecond}})
	c := dial(t, srv)
	c.startup()
	addFault(t, srv, server.FaultRule{Query: "USE ks", Action: server.FaultNoAnswer})
	c.send(1, &frame.Query{Query: "USE ks", Params: frame.QueryParams{Consistency: wire.One}})
	// The next answer on the connection is stream 2's, even though the
	// request timeout of stream 1 has long passed.
	assert.Equal(t, &frame.Result{Kind: wire.ResultVoid}, c.query(2, "INSERT"))
	srv.ClearFaults()

	addFault(t, srv, server.FaultRule{Query: "INSERT", Action: server.FaultClose, Times: 1})
	c.send(3, &frame.Query{Query: "INSERT", Params: frame.QueryParams{Consistency: wire.One}})
	c.expectClosed()

	// A delay that the connection's end cuts short.
	c2 := dial(t, srv)
	c2.startup()
	addFault(t, srv, server.FaultRule{Query: "INSERT", Delay: time.Hour})
	c2.send(1, &frame.Query{Query: "INSERT", Params: frame.QueryParams{Consistency: wire.One}})
	// A delay-only rule then runs the request: a zero delay shows it.
	addFault(t, srv, server.FaultRule{Query: "USE ks", Delay: time.Nanosecond})
	assert.Equal(t, &frame.Result{Kind: wire.ResultSetKeyspace, Keyspace: "ks"}, c2.query(2, "USE ks"))
}

// TestFaultInvalid checks that rules that cannot work are refused.
func TestFaultInvalid(t *testing.T) {
	srv := start(t, newFake(), server.Options{})
	for _, r := range []server.FaultRule{
		{Pattern: "("},
		{Delay: -1},
		{Times: -1},
		{Action: 9},
		{Action: server.FaultClose, Error: overloaded},
		{Requests: 0x80},
		{Consistencies: []wire.Consistency{99}},
	} {
		_, err := srv.AddFault(r)
		assert.ErrorIs(t, err, server.ErrInvalidFault, "%+v", r)
	}
	assert.Empty(t, srv.Faults())
}
