package cql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

// explode is the function whose panic TestPanicIsLogged recovers; its name
// must appear in the logged stack.
func explode() { panic("boom") }

// TestPanicIsLogged runs a statement whose execution panics: the statement
// returns Cassandra's server error text with ErrInternal as its cause, and
// the executor's logger receives the panic value, the statement and the
// stack of the panic.
func TestPanicIsLogged(t *testing.T) {
	eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
	require.NoError(t, err)
	defer eng.Close()
	var buf bytes.Buffer
	x := NewExecutor(eng, Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	buf.Reset() // only what the statement logs
	s := x.NewSession()
	stmt, err := parser.Parse("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	require.NoError(t, err)
	pl := explodingPlan{}

	res, err := s.run(context.Background(), pl, stmt, nil, nil)
	assert.Nil(t, res)
	var e *query.Error
	require.True(t, errors.As(err, &e), "%T", err)
	assert.Equal(t, wire.CodeServer, e.Code)
	assert.Equal(t, "java.lang.RuntimeException: internal error: boom", e.Message)
	assert.ErrorIs(t, err, ErrInternal)
	assert.ErrorIs(t, err, query.ErrServer)
	assert.NotEmpty(t, fuzzFailure(err), "the fuzz targets fail on a recovered panic")

	var rec struct {
		Level, Msg, Panic, Statement, Stack string
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
	assert.Equal(t, "ERROR", rec.Level)
	assert.Equal(t, "cql: panic while executing a statement", rec.Msg)
	assert.Equal(t, "boom", rec.Panic)
	assert.Equal(t, stmt.String(), rec.Statement)
	assert.Contains(t, rec.Stack, "runtime/debug.Stack")
	assert.Contains(t, rec.Stack, "cql.explode", "the stack is the panic's")
	assert.Contains(t, rec.Stack, "cql.(*Session).run")
}

// explodingPlan is a plan whose execution panics.
type explodingPlan struct{}

func (explodingPlan) Binds() []query.ColumnSpec   { return nil }
func (explodingPlan) Columns() []query.ColumnSpec { return nil }
func (explodingPlan) PKIndexes() []uint16         { return nil }
func (explodingPlan) Exec(context.Context, *plan.Execution) (*query.Result, error) {
	explode()
	return nil, nil
}

// TestFuzzFailure checks the property the fuzz targets enforce on every
// statement's error.
func TestFuzzFailure(t *testing.T) {
	assert.Empty(t, fuzzFailure(nil))
	assert.Empty(t, fuzzFailure(query.Invalidf("Undefined column name x")))
	assert.Empty(t, fuzzFailure(fmt.Errorf("wrapped: %w", &query.Error{Code: wire.CodeSyntax, Message: "line 1:0"})))
	assert.Equal(t, "untyped error *errors.errorString: disk on fire", fuzzFailure(errors.New("disk on fire")))
	assert.Equal(t, "panic during execution: java.lang.RuntimeException: internal error: boom",
		fuzzFailure(&query.Error{Code: wire.CodeServer, Message: wire.InternalErrorMessage("boom"), Err: ErrInternal}))
}

// TestStatementText checks that a statement that cannot be printed does not
// make the panic's log record panic.
func TestStatementText(t *testing.T) {
	assert.Equal(t, "?", statementText(nil))
	assert.Equal(t, "?", statementText(panicky{}))
	assert.Equal(t, "USE ks", statementText(mustParse(t, "USE ks")))
}

type panicky struct{}

func (panicky) String() string { panic("cannot print") }

func mustParse(t *testing.T, q string) parser.Statement {
	t.Helper()
	stmt, err := parser.Parse(q)
	require.NoError(t, err)
	return stmt
}
