package engine

import (
	"fmt"
	"io"
	"log/slog"
)

// DefaultMemtableSize is the default Options.MemtableSize: 64 MiB.
const DefaultMemtableSize = 64 << 20

// Options configure an engine. The zero value is valid: an in-memory engine
// on the system clock that logs nothing.
type Options struct {
	// Clock gives the time for write timestamps, TTL expiry and deletion
	// times. Nil (the default) is the system clock; tests pass a
	// ManualClock.
	Clock Clock
	// MemtableSize is the size, in bytes, above which a table's memtable is
	// switched out and flushed. 0 means DefaultMemtableSize. Until SSTables
	// land nothing is flushed; the threshold is recorded for the flush
	// path.
	MemtableSize int64
	// Logger receives the engine's log records. Nil discards them.
	Logger *slog.Logger

	// Durable storage. The fields below belong to the commit log and SSTable
	// layers, which are not built yet: Dir must be empty for now (Open
	// returns ErrNotDurable otherwise). The filesystem (a vfs.FS), the
	// commit-log sync mode (periodic 10 s, batch, group) and segment size
	// will be added next to Dir when durability lands.

	// Dir is the data directory; "" (the default) keeps everything in
	// memory.
	Dir string
}

// EnsureDefaults fills in the defaults of unset fields and returns o.
func (o Options) EnsureDefaults() Options {
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.MemtableSize == 0 {
		o.MemtableSize = DefaultMemtableSize
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Validate reports whether o can open an engine.
func (o Options) Validate() error {
	if o.MemtableSize < 0 {
		return fmt.Errorf("%w: negative MemtableSize %d", ErrInvalidOptions, o.MemtableSize)
	}
	if o.Dir != "" {
		return fmt.Errorf("%w: Dir %q", ErrNotDurable, o.Dir)
	}
	return nil
}
