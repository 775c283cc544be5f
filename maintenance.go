package minicass

import (
	"context"
	"errors"
	"fmt"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
)

// The engine's maintenance operations, looked up dynamically so the Go API
// keeps compiling while the engine grows them.
type (
	flusher interface {
		Flush(ctx context.Context, keyspace, table string) error
	}
	compacter interface {
		Compact(ctx context.Context, keyspace, table string) error
	}
)

// Flush writes the memtables of one table (ks and table set), of every
// table of a keyspace (table empty) or of every table (both empty) to
// SSTables, and returns once they are durable. An unknown keyspace or table
// gives an *Error (ErrInvalid) with Cassandra's message. It returns an
// error wrapping ErrNotAvailable if the engine cannot flush.
func (db *DB) Flush(ctx context.Context, ks, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	f, ok := any(db.eng).(flusher)
	if !ok {
		return fmt.Errorf("%w: the engine has no flush yet", ErrNotAvailable)
	}
	return maintenanceError(f.Flush(ctx, ks, table), ks, table)
}

// Compact compacts the SSTables of one table, a keyspace or every table, as
// Flush selects them. It returns an error wrapping ErrNotAvailable if the
// engine cannot compact.
func (db *DB) Compact(ctx context.Context, ks, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	c, ok := any(db.eng).(compacter)
	if !ok {
		return fmt.Errorf("%w: the engine has no compaction yet", ErrNotAvailable)
	}
	return maintenanceError(c.Compact(ctx, ks, table), ks, table)
}

// maintenanceError turns the engine's unknown-name errors into nodetool's
// messages as Invalid errors.
func maintenanceError(err error, ks, table string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrNoKeyspace):
		return &cql.Error{Code: cql.CodeInvalid, Message: fmt.Sprintf("Keyspace '%s' does not exist", ks), Err: err}
	case errors.Is(err, engine.ErrNoTable):
		return &cql.Error{Code: cql.CodeInvalid, Message: fmt.Sprintf("Table '%s.%s' doesn't exist", ks, table), Err: err}
	}
	return err
}
