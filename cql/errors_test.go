package cql

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

// TestAsError checks the mapping of the layers' errors to CQL errors.
func TestAsError(t *testing.T) {
	assert.Nil(t, query.AsError(nil))
	inner := query.Invalidf("Undefined column name x")
	assert.Same(t, inner, query.AsError(fmt.Errorf("wrapped: %w", inner)), "an *Error passes through")

	e := query.AsError(fmt.Errorf("apply: %w", engine.ErrEmptyKey))
	assert.Equal(t, wire.CodeInvalid, e.Code)
	assert.Equal(t, "Key may not be empty", e.Message)
	assert.ErrorIs(t, e, engine.ErrEmptyKey)
	assert.ErrorIs(t, e, query.ErrInvalid)

	assert.Equal(t, wire.CodeInvalid, query.AsError(engine.ErrNoTable).Code)
	assert.Equal(t, wire.CodeReadFailure, query.AsError(engine.ErrTombstoneOverwhelming).Code)

	e = query.AsError(context.Canceled)
	assert.Equal(t, wire.CodeServer, e.Code)
	assert.Equal(t, "context canceled", e.Message)
	e = query.AsError(errors.New("disk on fire"))
	assert.Equal(t, wire.CodeServer, e.Code)
	assert.Equal(t, "disk on fire", e.Message)
	assert.ErrorIs(t, e, query.ErrServer)
	assert.NotErrorIs(t, e, query.ErrInvalid)
}

// TestBindCountErrors checks the texts of a wrong number of bound values,
// which differ by request as in Cassandra 4.1: a QUERY's is
// QueryProcessor.process's, an EXECUTE's processPrepared's, a BATCH's
// BatchMessage's.
func TestBindCountErrors(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		_, err := s.Query(ctx, q, nil)
		assert.NoError(t, err, q)
	}
	one := []query.Value{{Bytes: []byte{0, 0, 0, 1}}}
	message := func(err error) string {
		if err == nil {
			return "no error"
		}
		return query.AsError(err).Message
	}

	_, err := s.Query(ctx, "SELECT * FROM ks.t WHERE k = ? AND v = ? ALLOW FILTERING", &query.Params{Values: one})
	assert.Equal(t, "Invalid amount of bind variables", message(err))
	_, err = s.Query(ctx, "SELECT * FROM ks.t WHERE k = ?", nil)
	assert.Equal(t, "Invalid amount of bind variables", message(err))

	prep, err := s.Prepare(ctx, "SELECT * FROM ks.t WHERE k = ? AND v = ? ALLOW FILTERING")
	assert.NoError(t, err)
	_, err = s.ExecutePrepared(ctx, prep, &query.Params{Values: one})
	assert.Equal(t, "there were 2 markers(?) in CQL but 1 bound variables", message(err))

	_, err = s.Batch(ctx, parser.BatchLogged, []BatchEntry{{Query: "INSERT INTO ks.t (k, v) VALUES (?, ?)", Values: one}}, nil)
	assert.Equal(t, "There were 2 markers(?) in CQL but 1 bound variables", message(err))
}
