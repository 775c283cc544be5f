package engine

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"time"
)

// Table snapshots on disk: Cassandra 4.1's auto_snapshot.
//
// Before DROP TABLE, DROP KEYSPACE (for each of its tables) and TRUNCATE
// remove a table's data, an engine with a data directory and
// Options.DisableAutoSnapshot unset flushes the table and copies its live
// SSTables into a snapshot directory of the table's directory, as
// Cassandra's ColumnFamilyStore.snapshot does before it lets the data go.
// The snapshot is named as Cassandra names it,
// "<prefix>-<milliseconds since the epoch>-<table>", the prefix "dropped"
// for a drop and "truncated" for a truncation, the time from the engine's
// clock. The layout, part of the on-disk format:
//
//	<data>/<keyspace>/<table>-<id>/snapshots/<name>/<SSTable component files>
//	<data>/<keyspace>/<table>-<id>/snapshots/<name>/manifest.json
//
// manifest.json is Cassandra's SnapshotManifest: {"files": [the Data.db
// names], "created_at": RFC 3339 time, "expires_at": RFC 3339 time}, with
// expires_at only for a snapshot taken with Options.AutoSnapshotTTL. The
// files are copies, not hard links (vfs.FS has none; a copy costs the disk
// space a link would not). A dropped table's directory keeps its
// snapshots directory and nothing else; Open keeps and logs it as it does
// any directory of a table not in the schema.
//
// An in-memory engine takes no automatic snapshot: it has no files to keep
// once the process ends, and a snapshot held in memory would keep the data
// of every dropped or truncated table for the life of the engine (a test
// suite's thousands of DROP TABLEs); Snapshot (snapshot.go) is its way to
// keep a state.

// Names of the snapshot layout (part of the on-disk format).
const (
	snapshotsDirName     = "snapshots"
	snapshotManifestName = "manifest.json"
	// SnapshotDropPrefix and SnapshotTruncatePrefix begin the names of the
	// snapshots taken before a drop and a truncation (Cassandra's
	// SnapshotType.DROP and TRUNCATE labels).
	SnapshotDropPrefix     = "dropped"
	SnapshotTruncatePrefix = "truncated"
)

// TableSnapshot describes one snapshot directory of a table.
type TableSnapshot struct {
	// Keyspace and Table name the table the snapshot is of, and Name the
	// snapshot (its directory).
	Keyspace, Table, Name string
	// Dir is the snapshot's directory.
	Dir string
	// Files lists the Data.db files of the SSTables it holds.
	Files []string
	// CreatedAt is when it was taken; ExpiresAt when it expires, zero for a
	// snapshot without a TTL.
	CreatedAt, ExpiresAt time.Time
}

// IsExpiring reports whether the snapshot has a TTL (Cassandra's
// TableSnapshot.isExpiring).
func (s TableSnapshot) IsExpiring() bool { return !s.ExpiresAt.IsZero() }

// IsExpired reports whether the snapshot has a TTL that has run out at now
// (TableSnapshot.isExpired: its expiry is before now).
func (s TableSnapshot) IsExpired(now time.Time) bool {
	return s.IsExpiring() && s.ExpiresAt.Before(now)
}

// snapshotManifest is manifest.json.
type snapshotManifest struct {
	Files     []string   `json:"files"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// autoSnapshot takes the automatic snapshot of store s before its data is
// dropped or truncated (prefix SnapshotDropPrefix or
// SnapshotTruncatePrefix): it flushes the table and copies its SSTables.
// It does nothing for an in-memory engine or with auto snapshots off. The
// caller holds the schema lock and not the store's flush lock.
func (e *Engine) autoSnapshot(s *tableStore, prefix string) error {
	if s == nil || e.opts.Dir == "" || e.opts.DisableAutoSnapshot {
		return nil
	}
	s.switchMemtable(0, e.logTail)
	if err := e.flushStore(s); err != nil {
		return err
	}
	now := e.Clock().Now()
	t := s.table.Load()
	name := prefix + "-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + t.Name
	dir := e.fs.PathJoin(s.dir(), snapshotsDirName, name)
	if err := e.fs.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s.mu.RLock()
	ssts := append([]*sstableSource(nil), s.ssts...)
	for _, src := range ssts {
		src.acquire()
	}
	s.mu.RUnlock()
	defer func() {
		for _, src := range ssts {
			src.release()
		}
	}()
	m := snapshotManifest{Files: []string{}, CreatedAt: now.UTC()}
	if ttl := e.opts.AutoSnapshotTTL; ttl > 0 {
		exp := now.Add(ttl).UTC()
		m.ExpiresAt = &exp
	}
	for _, src := range ssts {
		for _, f := range src.r.Files() {
			if err := e.copyFile(e.fs.PathJoin(src.r.Dir(), f), e.fs.PathJoin(dir, f)); err != nil {
				return fmt.Errorf("engine: snapshot %s of %s: %w", name, s.name, err)
			}
		}
		m.Files = append(m.Files, src.name)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	f, err := e.fs.Create(e.fs.PathJoin(dir, snapshotManifestName))
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close(), e.fs.SyncDir(dir))
}

// copyFile copies the file from to the new file to, synced.
func (e *Engine) copyFile(from, to string) error {
	src, err := e.fs.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := e.fs.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	return errors.Join(err, dst.Close())
}

// removeTableData removes a dropped table's directory, or, when it holds
// snapshots, everything in it but them.
func (e *Engine) removeTableData(dir string) error {
	names, err := e.fs.List(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	keep := false
	var errs []error
	for _, n := range names {
		if n == snapshotsDirName {
			keep = true
			continue
		}
		errs = append(errs, e.fs.RemoveAll(e.fs.PathJoin(dir, n)))
	}
	if !keep {
		errs = append(errs, e.fs.RemoveAll(dir))
	}
	return errors.Join(errs...)
}

// Snapshots lists the snapshots of the tables named table of keyspace,
// live or dropped (every table directory of that name, whatever its id),
// sorted by table directory and name; every table's when table is empty.
// An in-memory engine has none. A snapshot whose manifest cannot be read
// is listed without its times and files.
func (e *Engine) Snapshots(keyspace, table string) ([]TableSnapshot, error) {
	if e.opts.Dir == "" {
		return nil, nil
	}
	ksDir := e.fs.PathJoin(e.dataDir, keyspace)
	dirs, err := e.fs.List(ksDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []TableSnapshot
	for _, d := range dirs {
		name, ok := tableOfDir(d)
		if !ok || (table != "" && name != table) {
			continue
		}
		snapDir := e.fs.PathJoin(ksDir, d, snapshotsDirName)
		snaps, err := e.fs.List(snapDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, sn := range snaps {
			ts := TableSnapshot{Keyspace: keyspace, Table: name, Name: sn, Dir: e.fs.PathJoin(snapDir, sn)}
			if m, err := e.readManifest(e.fs.PathJoin(ts.Dir, snapshotManifestName)); err == nil {
				ts.Files, ts.CreatedAt = m.Files, m.CreatedAt
				if m.ExpiresAt != nil {
					ts.ExpiresAt = *m.ExpiresAt
				}
			}
			out = append(out, ts)
		}
	}
	return out, nil
}

// ClearExpiredSnapshots removes the snapshots of keyspace whose TTL has run
// out by the engine's clock, as Cassandra's snapshot manager does
// periodically, and returns them.
func (e *Engine) ClearExpiredSnapshots(keyspace string) ([]TableSnapshot, error) {
	snaps, err := e.Snapshots(keyspace, "")
	if err != nil {
		return nil, err
	}
	now := e.Clock().Now()
	var out []TableSnapshot
	for _, s := range snaps {
		if s.IsExpired(now) {
			if err := e.fs.RemoveAll(s.Dir); err != nil {
				return out, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func (e *Engine) readManifest(path string) (snapshotManifest, error) {
	var m snapshotManifest
	f, err := e.fs.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	body, err := io.ReadAll(f)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(body, &m)
}

// tableOfDir returns the table name of a table directory's name
// (TableDirName: the name, a dash and the id's 32 hex digits).
func tableOfDir(d string) (string, bool) {
	const idLen = 32
	if len(d) < idLen+2 || d[len(d)-idLen-1] != '-' {
		return "", false
	}
	if _, err := hex.DecodeString(d[len(d)-idLen:]); err != nil {
		return "", false
	}
	return d[:len(d)-idLen-1], true
}

// removeKeyspaceDir removes a dropped keyspace's directory once its tables'
// directories are gone, keeping it while one holds snapshots.
func (e *Engine) removeKeyspaceDir(dir string) error {
	names, err := e.fs.List(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if _, ok := tableOfDir(n); ok {
			errs = append(errs, e.removeTableData(e.fs.PathJoin(dir, n)))
		} else {
			errs = append(errs, e.fs.RemoveAll(e.fs.PathJoin(dir, n)))
		}
	}
	if rest, err := e.fs.List(dir); err == nil && len(rest) == 0 {
		errs = append(errs, e.fs.Remove(dir))
	} else if err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
