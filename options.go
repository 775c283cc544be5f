package minicass

import (
	"fmt"
	"log/slog"
	"time"
)

// Clock gives the current time. The engine reads it for write timestamps,
// TTL expiry and now(); a test passes a manual clock (NewManualClock) to
// make rows expire without waiting.
type Clock interface {
	Now() time.Time
}

// Options configure a DB. The zero value works: an in-memory database on
// the real clock that logs nothing.
type Options struct {
	// Dir is the data directory. Empty (the default) keeps everything in
	// memory and writes nothing to disk.
	Dir string
	// Clock gives the time. Nil (the default) is the real time.
	Clock Clock
	// Logger receives engine and executor warnings. Nil (the default)
	// discards them.
	Logger *slog.Logger
	// MemtableSize is the memtable size, in bytes, above which it is flushed
	// to an SSTable. Zero (the default) uses the engine's default.
	MemtableSize int64
	// ClusterName is the cluster_name of system.local (default
	// "Test Cluster").
	ClusterName string
}

// Validate reports options that cannot work.
func (o *Options) Validate() error {
	if o.MemtableSize < 0 {
		return fmt.Errorf("%w: negative MemtableSize %d", ErrArgument, o.MemtableSize)
	}
	return nil
}
