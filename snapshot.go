package minicass

import (
	"context"
	"sync"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
)

// Snapshot is a frozen copy of an in-memory DB's whole state, schema and
// data (system keyspaces included), that Restore installs again, in the
// same DB or another one, as often as wanted. Taking and restoring one copy
// no row: memtables are frozen and shared copy-on-write, SSTables are
// shared by reference (see engine.Snapshot), so both take microseconds
// whatever the data. A Snapshot is safe for concurrent use; Release lets
// go of the SSTables it pins.
type Snapshot struct{ s *engine.Snapshot }

// SnapshotStats describe what a snapshot holds (engine.SnapshotStats).
type SnapshotStats = engine.SnapshotStats

// Errors of snapshots, the engine's sentinels.
var (
	// ErrSnapshotOnDisk is returned by Snapshot, Restore and Reset for a
	// DB with a data directory: its commit log and schema file describe
	// the live state, which a restore would contradict at the next Open.
	ErrSnapshotOnDisk = engine.ErrSnapshotOnDisk
	// ErrSnapshotReleased is returned by Restore of a released snapshot.
	ErrSnapshotReleased = engine.ErrSnapshotReleased
)

// Snapshot freezes the DB's schema and data and returns them. A write
// running meanwhile is in the snapshot or not, whole per partition; take it
// while no write runs for a state consistent across tables.
func (db *DB) Snapshot() (*Snapshot, error) {
	if db.isClosed() {
		return nil, ErrClosed
	}
	s, err := db.eng.Snapshot()
	if err != nil {
		return nil, err
	}
	return &Snapshot{s: s}, nil
}

// Restore replaces the DB's schema and data with the snapshot's (taken
// from this DB or another); the snapshot stays usable. Sessions keep their
// current keyspace; prepared statements on tables the restore dropped or
// changed are prepared again, as after a schema change. The clock is not
// part of a snapshot.
func (db *DB) Restore(s *Snapshot) error {
	if db.isClosed() {
		return ErrClosed
	}
	if err := db.eng.Restore(s.s); err != nil {
		return err
	}
	return db.x.AttachIndexes()
}

// Reset empties the DB: its state becomes that of a new in-memory DB, the
// system keyspaces and nothing else.
func (db *DB) Reset() error {
	if db.isClosed() {
		return ErrClosed
	}
	if db.opts.Dir != "" {
		return ErrSnapshotOnDisk
	}
	b, err := blankState()
	if err != nil {
		return err
	}
	if err := db.eng.Restore(b); err != nil {
		return err
	}
	return db.x.AttachIndexes()
}

// blank is the state of a new in-memory node, made once per process: the
// system keyspaces' definitions are the same in every engine and hold no
// row until something writes one.
var blank struct {
	once sync.Once
	snap *engine.Snapshot
	err  error
}

// blankState returns the state of a new in-memory node.
func blankState() (*engine.Snapshot, error) {
	blank.once.Do(func() {
		eng, err := engine.Open(engine.Options{})
		if err != nil {
			blank.err = err
			return
		}
		defer eng.Close()
		if blank.err = cql.NewExecutor(eng, cql.Options{}).Bootstrap(context.Background()); blank.err != nil {
			return
		}
		blank.snap, blank.err = eng.Snapshot()
	})
	return blank.snap, blank.err
}

// Release drops the snapshot's references to SSTables; Restore of a
// released snapshot returns ErrSnapshotReleased. Calls after the first do
// nothing.
func (s *Snapshot) Release() { s.s.Release() }

// Stats returns what the snapshot holds.
func (s *Snapshot) Stats() SnapshotStats { return s.s.Stats() }
