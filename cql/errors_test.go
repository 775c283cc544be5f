package cql

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
