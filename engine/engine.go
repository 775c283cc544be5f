package engine

import (
	"sync"
	"sync/atomic"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
)

// Engine is an open storage engine: a schema registry and, per table, the
// memtables (and later SSTables) that hold its data. It is safe for
// concurrent use by any number of goroutines.
type Engine struct {
	opts Options
	ts   timestamps

	closed atomic.Bool

	// state is the current schema and table set, replaced as a whole on
	// every schema change (see schema.go).
	state atomic.Pointer[schemaState]
	// schemaMu serializes schema changes and guards listeners.
	schemaMu  sync.Mutex
	listeners map[int]func(SchemaChange)
	nextLis   int

	// lwt stripes the partition locks of LockPartition.
	lwt [lwtStripes]sync.Mutex
}

// Open returns a new engine configured by opts (see Options; the zero value
// works).
func Open(opts Options) (*Engine, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{opts: opts.EnsureDefaults(), listeners: map[int]func(SchemaChange){}}
	e.state.Store(emptySchemaState())
	return e, nil
}

// Close closes the engine. Later calls that read or write return ErrClosed;
// a second Close returns ErrClosed too.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return ErrClosed
	}
	return nil
}

// Options returns the engine's options, with defaults filled in.
func (e *Engine) Options() Options { return e.opts }

func (e *Engine) checkOpen() error {
	if e.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Token returns the Murmur3 token of a serialized partition key.
func Token(key []byte) int64 { return int64(partitioner.Murmur3(key)) }

// store returns the data of table id in the current state.
func (e *Engine) store(id data.TableID) (*tableStore, bool) {
	ts, ok := e.state.Load().stores[id]
	return ts, ok
}
