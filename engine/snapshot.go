package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// Snapshots. A Snapshot is the whole state of an in-memory engine, schema
// and data, frozen at one moment, that Restore installs again, in the same
// engine or in another one, any number of times. Taking one copies no row:
//
//   - the schema is one immutable schemaState value (schema.go): the
//     snapshot keeps the pointer;
//   - each table's active memtable, if it holds anything, is switched out
//     (as the first step of a flush, tableStore.switchMemtable) and from
//     then on no write reaches it: a frozen memtable is immutable, so the
//     snapshot and every store restored from it share it, each store
//     writing into a new active memtable of its own;
//   - the SSTables are immutable too; the snapshot takes a reference on
//     each (sstableSource.refs), so that a compaction, truncation or drop
//     of the live table, or the engine's Close, leaves them open and their
//     files in place until the snapshot and every store listing them let
//     go. The first snapshot to pin an SSTable records its home filesystem,
//     so that a retire in another engine removes the files where they are.
//
// Restore builds a new store for every table of the snapshot (its frozen
// memtables and referenced SSTables, a fresh active memtable) and swaps the
// whole schemaState in one step; the replaced stores are retired as a
// dropped table's are. Both cost a few microseconds per table, whatever
// the rows they hold. Reads then merge one more memtable per snapshot the
// data went through: a template restored once per test adds one.
//
// Snapshots are for in-memory engines (Options.Dir empty): a data
// directory's commit log and schema file describe the live state, which
// a Restore would silently contradict at the next Open.

// Errors of snapshots.
var (
	// ErrSnapshotOnDisk is returned by Snapshot and Restore for an engine
	// with a data directory.
	ErrSnapshotOnDisk = errors.New("engine: snapshots need an in-memory engine (no data directory)")
	// ErrSnapshotReleased is returned by Restore of a released snapshot.
	ErrSnapshotReleased = errors.New("engine: snapshot released")
)

// Snapshot is a frozen copy of an engine's schema and data (see Snapshot).
// It is safe for concurrent use: any number of Restores may run from it at
// once, in any engines. Release lets go of the SSTables it pins.
type Snapshot struct {
	state  *schemaState
	tables map[data.TableID]*tableSnapshot
	// lastTS is the last write timestamp the engine handed out: a
	// Restore moves the target's timestamps past it, so that a write
	// after the restore supersedes what the snapshot holds even when the
	// target's clock is behind the snapshot's.
	lastTS int64
	// part is the partitioner of the engine snapshotted, whose tokens its
	// memtables and SSTables keep.
	part partitioner.Partitioner

	mu       sync.RWMutex // guards released against Restore
	released bool
}

// tableSnapshot is one table's sources in a snapshot.
type tableSnapshot struct {
	mems    []*memtableSource // oldest first, as tableStore.flushing
	ssts    []*sstableSource  // newest first, each referenced
	others  []Source
	gen     int
	nextGen *atomic.Int64
	// dir is the table's directory in the engine snapshotted; an engine
	// with the same data directory name (every in-memory one) uses it.
	dir     string
	dataDir string
}

// SnapshotStats describe what a snapshot holds.
type SnapshotStats struct {
	// Keyspaces and Tables count the schema's keyspaces and tables,
	// system ones included.
	Keyspaces, Tables int
	// Memtables and SSTables count the frozen sources the snapshot holds.
	Memtables, SSTables int
	// Partitions is the number of partitions in its memtables (a
	// partition in several of them counts in each); MemtableBytes their
	// estimated size.
	Partitions    int
	MemtableBytes int64
}

// Stats returns what the snapshot holds.
func (s *Snapshot) Stats() SnapshotStats {
	st := SnapshotStats{Keyspaces: len(s.state.keyspaces)}
	for _, ks := range s.state.keyspaces {
		st.Tables += len(ks.tables)
	}
	for _, t := range s.tables {
		st.Memtables += len(t.mems)
		st.SSTables += len(t.ssts)
		for _, m := range t.mems {
			st.Partitions += m.mt.Len()
			st.MemtableBytes += m.mt.Size()
		}
	}
	return st
}

// Snapshot freezes the engine's schema and data (see the comment above)
// and returns them. Writes that run meanwhile are each in the snapshot or
// not, whole per partition; each table is frozen at its own instant, so a
// snapshot consistent across tables is taken while no write runs. Schema
// changes wait for it. It returns ErrSnapshotOnDisk for an engine with a
// data directory.
func (e *Engine) Snapshot() (*Snapshot, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if e.opts.Dir != "" {
		return nil, ErrSnapshotOnDisk
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	st := e.state.Load()
	snap := &Snapshot{state: st, tables: make(map[data.TableID]*tableSnapshot, len(st.stores)), lastTS: e.ts.last.Load(), part: e.opts.Partitioner}
	home := &homeFS{fs: e.fs}
	for id, s := range st.stores {
		ts := s.freeze(home)
		ts.dataDir = e.dataDir
		snap.tables[id] = ts
	}
	return snap, nil
}

// freeze switches out the active memtable if it holds anything and returns
// the store's sources, the SSTables referenced for the snapshot.
func (s *tableStore) freeze(home *homeFS) *tableSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active.mt.IsEmpty() {
		s.flushing = append(s.flushing, s.active)
		s.active = s.newMemtable()
		s.version++
	}
	t := &tableSnapshot{mems: slices.Clone(s.flushing), ssts: slices.Clone(s.ssts), others: slices.Clone(s.others),
		gen: s.gen, nextGen: s.nextGen, dir: s.dir()}
	for _, sst := range t.ssts {
		sst.acquire()
		sst.home.CompareAndSwap(nil, home)
	}
	return t
}

// Release drops the snapshot's references to its SSTables: those no live
// table lists any more are closed and their files removed. Restore of a
// released snapshot returns ErrSnapshotReleased; a second Release does
// nothing. The memtables go with the last store or snapshot holding them.
func (s *Snapshot) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return
	}
	s.released = true
	for _, t := range s.tables {
		for _, sst := range t.ssts {
			sst.release()
		}
	}
}

// Restore replaces the engine's schema and data with the snapshot's, taken
// from this engine or another one; the snapshot stays usable. Reads and
// writes running meanwhile finish on the state they started with (a write
// may be lost with it, as one racing a DROP TABLE). Schema listeners hear
// one change per keyspace created, dropped or changed. It returns
// ErrSnapshotOnDisk for an engine with a data directory and
// ErrSnapshotReleased for a released snapshot. Every dependent
// (AddDependent) is forgotten: the owner of the derived tables registers
// those of the restored schema again.
func (e *Engine) Restore(snap *Snapshot) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	if e.opts.Dir != "" {
		return ErrSnapshotOnDisk
	}
	snap.mu.RLock()
	defer snap.mu.RUnlock()
	if snap.released {
		return ErrSnapshotReleased
	}
	if snap.part != e.opts.Partitioner {
		if st := snap.Stats(); st.Partitions > 0 || st.SSTables > 0 {
			// Its partitions are ordered by another partitioner's tokens.
			return fmt.Errorf("%w: the snapshot's data was written under %s, the engine runs %s",
				ErrPartitionerMismatch, snap.part.ClassName(), e.opts.Partitioner.ClassName())
		}
	}
	e.depMu.Lock()
	e.deps.Store(nil)
	e.depMu.Unlock()
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	cur := e.state.Load()
	next := &schemaState{keyspaces: snap.state.keyspaces, stores: make(map[data.TableID]*tableStore, len(snap.tables)),
		version: snap.state.version, sum: snap.state.sum}
	var mem, freed int64
	var retired []*sstableSource
	for _, ks := range snap.state.keyspaces {
		for _, t := range ks.tables {
			ts := snap.tables[t.ID]
			if ts == nil {
				return fmt.Errorf("engine: snapshot without the data of %s", t.QualifiedName())
			}
			if old := cur.stores[t.ID]; old != nil {
				added, released, gone := old.reset(t, ts)
				next.stores[t.ID] = old
				mem, freed, retired = mem+added, freed+released, append(retired, gone...)
				continue
			}
			dir := ts.dir
			if ts.dataDir != e.dataDir || dir == "" {
				dir = e.tableDir(t)
			}
			if err := e.fs.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("engine: creating %s: %w", dir, err)
			}
			s, n := ts.store(t, dir)
			next.stores[t.ID] = s
			mem += n
		}
	}
	e.mem.Add(mem)
	e.releaseMemory(freed)
	e.ts.next(snap.lastTS)
	e.state.Store(next)
	e.syncViewDependents()
	e.syncCustomIndexes()
	for _, ch := range keyspaceChanges(cur, next) {
		ch.Version = next.version
		for _, id := range slices.Sorted(maps.Keys(e.listeners)) {
			e.listeners[id](ch)
		}
	}
	var errs []error
	for _, src := range retired {
		errs = append(errs, e.retireSSTable(src))
	}
	for id, s := range cur.stores {
		if _, kept := next.stores[id]; !kept {
			errs = append(errs, e.retireStore(s))
		}
	}
	return errors.Join(errs...)
}

// reset gives the live store s of table t the snapshot's sources, in
// place, as Truncate empties a store: a store object survives a restore
// (reads and writes in flight on it finish as with Truncate), and a table
// that neither the restore nor anything since changed costs a lock. It
// waits for the store's running flush and compaction (a compaction
// judging what to purge against the sources it saw must not commit into
// the restored ones). The active memtable is replaced only if it holds
// something. reset returns the bytes of memtables added and released and
// the SSTables the store no longer lists (their references to drop).
func (s *tableStore) reset(t *schema.Table, ts *tableSnapshot) (added, released int64, gone []*sstableSource) {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.table.Store(t)
	released = s.memBytes()
	if !s.active.mt.IsEmpty() {
		s.active = s.newMemtable()
	} else {
		released -= s.active.mt.Size()
	}
	s.gen = max(s.gen, ts.gen)
	gone = s.ssts
	s.flushing = slices.Clone(ts.mems)
	s.ssts = slices.Clone(ts.ssts)
	s.others = slices.Clone(ts.others)
	for _, sst := range s.ssts {
		sst.acquire()
	}
	for _, m := range s.flushing {
		added += m.mt.Size()
	}
	s.version++
	return added, released, gone
}

// store returns a new store of table t over the snapshot's sources, with an
// empty active memtable, and the bytes of its memtables. It continues the
// memtable names and the generation counter of the store snapshotted.
func (ts *tableSnapshot) store(t *schema.Table, dir string) (*tableStore, int64) {
	s := &tableStore{name: t.QualifiedName(), id: t.ID, gen: ts.gen, nextGen: ts.nextGen}
	s.setDir(dir)
	s.table.Store(t)
	s.active = s.newMemtable()
	s.flushing = slices.Clone(ts.mems)
	s.ssts = slices.Clone(ts.ssts)
	s.others = slices.Clone(ts.others)
	for _, sst := range s.ssts {
		sst.acquire()
	}
	var n int64
	for _, m := range s.flushing {
		n += m.mt.Size()
	}
	return s, n
}

// retireSSTable drops the reference a store's list held on src, marking it
// obsolete: its files go with the last reference (a snapshot's, or another
// store's that lists it).
func (e *Engine) retireSSTable(src *sstableSource) error {
	var err error
	src.retire(e.fs, func(rerr error) { err = rerr })
	return err
}

// retireStore discards a store that a Restore replaced, as DropTable's
// dropStore does, except that its SSTables are retired one by one (a
// snapshot or the new store may still list them: their files stay until
// the last reference) rather than by removing the table's directory, which
// the new store uses.
func (e *Engine) retireStore(s *tableStore) error {
	s.dropped.Store(true)
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	// As truncate, but the active memtable stays: no snapshot holds it
	// (freeze switches it out), and a write racing the restore may still
	// land in it.
	s.mu.Lock()
	freed := s.memBytes()
	dropped := s.ssts
	s.flushing, s.others, s.ssts = nil, nil, nil
	s.version++
	s.mu.Unlock()
	e.releaseMemory(freed)
	var mu sync.Mutex
	var errs []error
	for _, src := range dropped {
		src.retire(e.fs, func(err error) {
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	return errors.Join(errs...)
}

// keyspaceChanges lists the keyspaces created, dropped or changed from cur
// to next, in name order, as schema changes.
func keyspaceChanges(cur, next *schemaState) []SchemaChange {
	var out []SchemaChange
	names := slices.Sorted(maps.Keys(cur.keyspaces))
	for n := range next.keyspaces {
		if _, ok := cur.keyspaces[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		a, b := cur.keyspaces[n], next.keyspaces[n]
		switch {
		case a == nil:
			out = append(out, SchemaChange{Kind: wire.Created, Target: wire.TargetKeyspace, Keyspace: n})
		case b == nil:
			out = append(out, SchemaChange{Kind: wire.Dropped, Target: wire.TargetKeyspace, Keyspace: n})
		case a != b && (a.def != b.def || !maps.Equal(a.tables, b.tables)):
			out = append(out, SchemaChange{Kind: wire.Updated, Target: wire.TargetKeyspace, Keyspace: n})
		}
	}
	return out
}
