package minicass

import (
	"context"
	"errors"
	"fmt"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

// Flush writes the memtables of one table (ks and table set), of every
// table of a keyspace (table empty) or of every table (both empty) to
// SSTables, and returns once they are durable. An unknown keyspace or table
// gives an *Error (ErrInvalid) with Cassandra's message.
func (db *DB) Flush(ctx context.Context, ks, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	if err := db.checkNotVirtual(ks); err != nil {
		return err
	}
	return maintenanceError(db.eng.Flush(ctx, ks, table), ks, table)
}

// Compact runs a major compaction of the SSTables of one table, a keyspace or
// every table, as Flush selects them, and returns once it is done.
func (db *DB) Compact(ctx context.Context, ks, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	if err := db.checkNotVirtual(ks); err != nil {
		return err
	}
	return maintenanceError(db.eng.Compact(ctx, ks, table), ks, table)
}

// checkNotVirtual refuses a maintenance operation on a virtual keyspace
// with StorageService.getValidKeyspace's text: its tables have no data to
// flush or compact.
func (db *DB) checkNotVirtual(ks string) error {
	if ks != "" && db.x.IsVirtualKeyspace(ks) {
		return &cql.Error{Code: wire.CodeInvalid, Message: fmt.Sprintf("Cannot perform any operations against virtual keyspace %s", ks)}
	}
	return nil
}

// maintenanceError turns the engine's unknown-name errors into nodetool's
// messages as Invalid errors.
func maintenanceError(err error, ks, table string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrNoKeyspace):
		return &cql.Error{Code: wire.CodeInvalid, Message: fmt.Sprintf("Keyspace '%s' does not exist", ks), Err: err}
	case errors.Is(err, engine.ErrNoTable):
		return &cql.Error{Code: wire.CodeInvalid, Message: fmt.Sprintf("Table '%s.%s' doesn't exist", ks, table), Err: err}
	}
	return err
}
