package minicass

import (
	"context"
	"fmt"
)

// Flush writes the memtables of one table (ks and table set), of every
// table of a keyspace (table empty) or of every table (both empty) to
// SSTables. It returns an error wrapping ErrNotAvailable while the engine
// offers no flush.
func (db *DB) Flush(ctx context.Context, ks, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	return fmt.Errorf("%w: the engine has no flush yet", ErrNotAvailable)
}

// Compact compacts the SSTables of one table, a keyspace or every table, as
// Flush selects them. It returns an error wrapping ErrNotAvailable while the
// engine offers no compaction.
func (db *DB) Compact(ctx context.Context, ks, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	return fmt.Errorf("%w: the engine has no compaction yet", ErrNotAvailable)
}
