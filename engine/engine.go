package engine

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// Engine is an open storage engine: a schema registry and, per table, the
// memtables and SSTables that hold its data, with a commit log when it has a
// data directory. It is safe for concurrent use by any number of goroutines.
type Engine struct {
	// compactSlow, when set (by tests), makes a compaction merge every
	// partition through the general merge (no narrow path,
	// partMerge.narrow), reading its inputs' partitions through their row
	// iterators alone (no onlyRows): the identity tests compare the two.
	compactSlow bool
	// compactNoSkip, when set (by tests), turns off the narrow path's
	// skip of shadowed versions (partMerge.shadowed) alone; compactSkipped
	// counts the versions skipped so far, which the tests read between
	// compactions.
	compactNoSkip  bool
	compactSkipped atomic.Int64
	opts           Options
	ts             timestamps

	closed atomic.Bool
	// reclaiming is set while a flush to reclaim commit-log space is
	// being started (logspace.go).
	reclaiming atomic.Bool

	// state is the current schema and table set, replaced as a whole on
	// every schema change (see schema.go).
	state atomic.Pointer[schemaState]
	// schemaMu serializes schema changes and guards listeners, schemaN
	// and marks.
	schemaMu  sync.Mutex
	listeners map[int]func(SchemaChange)
	nextLis   int

	// deps are the dependents of base tables (derived.go), nil while no
	// table has any; depMu serializes their changes.
	deps  atomic.Pointer[dependents]
	depMu sync.Mutex
	// customMu serializes the syncs of the custom index instances
	// (customindex.go).
	customMu sync.Mutex

	// lwt stripes the partition locks of LockPartition.
	lwt [lwtStripes]sync.Mutex

	// Storage (see durable.go). fs holds the SSTables: opts.FS for a data
	// directory, a private MemFS for an in-memory engine. log, lock and
	// the schema file exist only with a data directory.
	fs        vfs.FS
	dataDir   string
	schemaDir string
	lock      io.Closer
	log       *commitlog.Log
	schemaN   uint64
	marks     logMarks
	// cache is the block and key cache every SSTable reader shares
	// (Options.BlockCacheSize, KeyCacheSize).
	cache *sstable.Cache

	// Flushing (see flush.go).
	mem         atomic.Int64 // bytes held by all memtables
	memMu       sync.Mutex
	memCond     *sync.Cond // signalled when mem drops
	flushSem    chan struct{}
	bg          sync.WaitGroup
	releaseMu   sync.Mutex
	globalFlush atomic.Bool

	// Compaction (see compaction.go, strategy.go). bgCtx is cancelled by
	// Close, stopping background compactions; compactSem bounds them.
	bgCtx      context.Context
	bgCancel   context.CancelFunc
	compactSem chan struct{}
	throttle   *throttle // Options.CompactionThroughput; nil: unthrottled
	// shareHook, when set (by tests), is given each compaction's cpuShare
	// pacer before it runs, to replace its clock.
	shareHook func(*cpuShare)
	historyMu sync.Mutex
	history   []CompactionRecord

	// bytesFlushed and bytesCompacted count the uncompressed Data.db
	// bytes written by flushes and compactions (WriteStats).
	bytesFlushed, bytesCompacted atomic.Int64

	// compactionBegun, when set (by tests), runs once a compaction has
	// taken its view of the table's sources, before it reads them.
	compactionBegun func()
}

// WriteStats are the bytes the engine wrote to SSTables since it opened,
// uncompressed (the partition stream of Data.db, before compression): write
// amplification is (Flushed + Compacted) / bytes of mutations.
type WriteStats struct {
	// Flushed is the data bytes of the SSTables flushes wrote.
	Flushed int64
	// Compacted is the data bytes of the SSTables compactions wrote.
	Compacted int64
}

// WriteStats returns the bytes written to SSTables so far.
func (e *Engine) WriteStats() WriteStats {
	return WriteStats{Flushed: e.bytesFlushed.Load(), Compacted: e.bytesCompacted.Load()}
}

// readerOptions returns the options SSTable readers are opened with: the
// engine's shared cache.
func (e *Engine) readerOptions() sstable.ReaderOptions {
	return sstable.ReaderOptions{Cache: e.cache}
}

// justWrittenReaderOptions are the reader options of an SSTable this
// process has just written and synced (a flush or compaction output): its
// digest was computed from these bytes, so Open skips checking it.
func (e *Engine) justWrittenReaderOptions() sstable.ReaderOptions {
	o := e.readerOptions()
	o.SkipDigest = true
	return o
}

// CacheStats returns what the engine's block and key caches hold.
func (e *Engine) CacheStats() sstable.CacheStats { return e.cache.Stats() }

// Open returns a new engine configured by opts (see Options; the zero value
// works). With a data directory it takes the directory's LOCK (ErrLocked if
// another engine holds it), loads the schema file, opens every table's
// SSTables and replays the commit log over them before returning.
func Open(opts Options) (*Engine, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{opts: opts.EnsureDefaults(), listeners: map[int]func(SchemaChange){},
		marks: newLogMarks()}
	e.cache = sstable.NewCache(sstable.CacheOptions{BlockCacheSize: e.opts.BlockCacheSize, KeyCacheSize: e.opts.KeyCacheSize})
	e.memCond = sync.NewCond(&e.memMu)
	e.flushSem = make(chan struct{}, e.opts.FlushWorkers)
	e.compactSem = make(chan struct{}, e.opts.CompactionWorkers)
	e.throttle = newThrottle(e.opts.CompactionThroughput)
	e.bgCtx, e.bgCancel = context.WithCancel(context.Background())
	e.state.Store(emptySchemaState())
	if err := e.openStorage(); err != nil {
		e.closed.Store(true)
		e.bgCancel()
		return nil, errors.Join(err, e.closeStorage())
	}
	if !e.opts.DisableAutoCompaction && e.opts.CompactionCheckPeriod > 0 {
		e.bg.Add(1)
		go e.checkCompactions()
	}
	return e, nil
}

// Close closes the engine: it flushes the tables of keyspaces created with
// durable_writes = false (whose writes bypass the commit log), waits for
// running flushes, syncs and closes the commit log and releases the data
// directory. Data of durable keyspaces still in memtables is recovered from
// the commit log by the next Open. Later calls that read or write return
// ErrClosed; a second Close returns ErrClosed too.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return ErrClosed
	}
	e.bgCancel()
	var errs []error
	if e.log != nil {
		st := e.state.Load()
		for _, ks := range st.keyspaces {
			if ks.def.DurableWrites {
				continue
			}
			for _, t := range ks.tables {
				if s, ok := st.stores[t.ID]; ok {
					s.switchMemtable(0, e.logTail)
					errs = append(errs, e.flushStore(s))
				}
			}
		}
	}
	e.bg.Wait()
	errs = append(errs, e.closeStorage())
	return errors.Join(errs...)
}

// Options returns the engine's options, with defaults filled in.
func (e *Engine) Options() Options { return e.opts }

func (e *Engine) checkOpen() error {
	if e.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Token returns the token the engine keeps and orders the partition of a
// serialized partition key by: its partitioner's (Options.Partitioner,
// partitioner.Partitioner.Token). It is the one place the engine asks.
func (e *Engine) Token(key []byte) int64 { return int64(e.opts.Partitioner.Token(key)) }

// Partitioner returns the engine's partitioner (Options.Partitioner).
func (e *Engine) Partitioner() partitioner.Partitioner { return e.opts.Partitioner }

// store returns the data of table id in the current state.
func (e *Engine) store(id data.TableID) (*tableStore, bool) {
	ts, ok := e.state.Load().stores[id]
	return ts, ok
}
