package engine

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// Directory and file names of a data directory (see the package
// documentation).
const (
	lockFileName     = "LOCK"
	commitLogDirName = "commitlog"
	dataDirName      = "data"
)

// openStorage prepares the engine's files: for an in-memory engine a
// private MemFS for the SSTables of flushes; for a data directory the lock,
// the schema, the SSTables and the commit log, replayed.
func (e *Engine) openStorage() error {
	if e.opts.Dir == "" {
		e.fs = vfs.NewMem()
		e.dataDir = dataDirName
		return e.fs.MkdirAll(e.dataDir, 0o755)
	}
	fsys, dir := e.opts.FS, e.opts.Dir
	e.fs = fsys
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("engine: creating data directory %s: %w", dir, err)
	}
	lock, err := fsys.Lock(fsys.PathJoin(dir, lockFileName))
	if err != nil {
		if errors.Is(err, vfs.ErrLocked) {
			return fmt.Errorf("%w: %s is in use by another minicass engine or process (%w)", ErrLocked, dir, err)
		}
		return fmt.Errorf("engine: locking data directory %s: %w", dir, err)
	}
	e.lock = lock
	e.loadHistory()
	e.dataDir = fsys.PathJoin(dir, dataDirName)
	e.schemaDir = fsys.PathJoin(dir, schemaDirName)
	for _, d := range []string{e.dataDir, e.schemaDir} {
		if err := fsys.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("engine: creating %s: %w", d, err)
		}
	}
	st, marks, n, err := readSchemaFile(fsys, e.schemaDir)
	if errors.Is(err, errEmptySchemaFile) {
		e.schemaN = n // the next schema file replaces the empty one
		st, err = nil, e.checkMissingSchema(err.Error())
	} else if err == nil && st == nil {
		err = e.checkMissingSchema("no schema file in " + e.schemaDir)
	}
	if err != nil {
		return err
	}
	if err := e.checkPartitioner(st != nil); err != nil {
		return err
	}
	if st != nil {
		e.schemaN, e.marks = n, marks
		e.state.Store(st) // so that closeStorage closes what was opened
		for _, ks := range st.keyspaces {
			for _, t := range ks.tables {
				s, err := e.openTableStore(t)
				if err != nil {
					st.stores[t.ID] = s // closed by closeStorage
					return err
				}
				st.stores[t.ID] = s
			}
		}
		st.setVersion(st.fullSum())
		e.state.Store(st)
		e.syncViewDependents()
		e.syncCustomIndexes()
	}
	if err := e.removeOrphans(); err != nil {
		return err
	}
	logDir := fsys.PathJoin(dir, commitLogDirName)
	if err := e.reserveSegmentIDs(logDir); err != nil {
		return err
	}
	co := e.opts.commitLogOptions()
	co.OnRotate = e.onLogRotate
	log, err := commitlog.Open(fsys, logDir, co)
	if err != nil {
		return wrapCorruption(err)
	}
	e.log = log
	return e.replay()
}

// reserveSegmentIDs makes sure the commit log's next segment id is above
// every segment the SSTables' upper bounds and the truncation records refer
// to. The log numbers a new segment after the highest existing file, and
// Close removes an active segment without records: after every segment
// was released, a reopened log would start again at segment 1, and replay
// would then skip its records as already flushed. An empty file named after
// the highest referenced segment moves the numbering past it; commitlog.Open
// removes it as an empty last segment.
func (e *Engine) reserveSegmentIDs(logDir string) error {
	var ref uint64
	for _, s := range e.state.Load().stores {
		for _, t := range s.ssts {
			ref = max(ref, t.upper.Segment)
		}
	}
	for _, m := range []map[data.TableID]commitlog.Position{e.marks.truncated, e.marks.compactedTo} {
		for _, p := range m {
			ref = max(ref, p.Segment)
		}
	}
	if ref == 0 {
		return nil
	}
	if err := e.fs.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	names, err := e.fs.List(logDir)
	if err != nil {
		return err
	}
	for _, name := range names {
		if id, ok := commitlog.ParseSegmentFileName(name); ok && id >= ref {
			return nil
		}
	}
	f, err := e.fs.Create(e.fs.PathJoin(logDir, commitlog.SegmentFileName(ref)))
	if err != nil {
		return err
	}
	return f.Close()
}

// closeStorage closes the commit log, the SSTables and the lock.
func (e *Engine) closeStorage() error {
	var errs []error
	if e.log != nil {
		errs = append(errs, e.log.Close())
	}
	for _, s := range e.state.Load().stores {
		s.mu.Lock()
		for _, t := range s.ssts {
			// The list's reference: a snapshot (or a Restore in another
			// engine) holding the SSTable keeps it open.
			errs = append(errs, t.releaseErr())
		}
		s.ssts = nil
		s.mu.Unlock()
	}
	if e.lock != nil {
		errs = append(errs, e.lock.Close())
		e.lock = nil
	}
	return errors.Join(errs...)
}

// wrapCorruption marks errors of damaged files with ErrCorruption.
func wrapCorruption(err error) error {
	if err != nil && (errors.Is(err, commitlog.ErrCorruption) || errors.Is(err, sstable.ErrCorruption)) && !errors.Is(err, ErrCorruption) {
		return fmt.Errorf("%w: %w", ErrCorruption, err)
	}
	return err
}

// TableDirName returns the directory name of a table's SSTables under the
// data directory's data/<keyspace>/, as Cassandra's <table>-<32 hex digits
// of the id>.
func TableDirName(t *schema.Table) string { return t.Name + "-" + hex.EncodeToString(t.ID[:]) }

// tableDir returns the SSTable directory of t.
func (e *Engine) tableDir(t *schema.Table) string { return tableDir(e.fs, e.dataDir, t) }

// tableDir returns the SSTable directory of t under dataDir in fs.
func tableDir(fs vfs.FS, dataDir string, t *schema.Table) string {
	return fs.PathJoin(dataDir, t.Keyspace, TableDirName(t))
}

// openTableStore creates the store of t and opens its SSTables, deleting
// incomplete ones (a flush cut by a crash) and those the table's
// truncation record covers.
func (e *Engine) openTableStore(t *schema.Table) (*tableStore, error) {
	dir := e.tableDir(t)
	s := newTableStore(t, e.fs, e.dataDir)
	s.setDir(dir)
	if _, err := e.fs.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// Never flushed: nothing on disk (see tableStore.dir).
		return s, nil
	} else if err != nil {
		return s, err
	}
	s.dirMade.Store(true)
	// Finish or roll back the compactions a crash interrupted, before the
	// SSTables are listed (see txnlog.go).
	if _, err := replayTxns(e.fs, dir); err != nil {
		return s, fmt.Errorf("engine: replaying compaction logs of %s in %s: %w", s.name, dir, err)
	}
	gens, err := sstable.List(e.fs, dir)
	if err != nil {
		return s, fmt.Errorf("engine: listing SSTables of %s in %s: %w", s.name, dir, err)
	}
	names, err := e.fs.List(dir)
	if err != nil {
		return s, err
	}
	// A generation with files but no TOC.txt is removed only when it is
	// known to be unfinished: one of its files has a temporary name (a
	// TOC.txt.tmp left by a crash before its rename; the transaction logs
	// replayed above already removed the outputs of unfinished flushes and
	// compactions). Otherwise its TOC.txt was lost: the generation is
	// recovered if every component is there and intact, as Cassandra
	// rewrites a missing TOC from the components it discovers, and Open is
	// refused if not. Data is never deleted on a guess.
	maxGen := 0
	noTOC := map[int]bool{} // generation -> has a temporary file
	for _, name := range names {
		g, ok := parseGen(name)
		if !ok {
			continue
		}
		maxGen = max(maxGen, g)
		if !slices.Contains(gens, g) {
			noTOC[g] = noTOC[g] || strings.HasSuffix(name, ".tmp")
		}
	}
	for _, g := range slices.Sorted(maps.Keys(noTOC)) {
		if noTOC[g] {
			e.opts.Logger.Warn("removing an unfinished SSTable (a temporary file says its write did not complete)",
				"table", s.name, "dir", dir, "generation", g)
			for _, name := range names {
				if ng, ok := parseGen(name); ok && ng == g {
					if err := e.fs.Remove(e.fs.PathJoin(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
						return s, err
					}
				}
			}
			continue
		}
		if err := sstable.Recover(e.fs, dir, g); err != nil {
			return s, wrapCorruption(fmt.Errorf("engine: SSTable %d of %s in %s has no %s and cannot be recovered "+
				"(no transaction log or temporary file says it is unfinished, so it is kept; "+
				"restore the missing file or move the generation's files away): %w",
				g, s.name, dir, sstable.FileName(g, sstable.ComponentTOC), err))
		}
		e.opts.Logger.Warn("recovered an SSTable whose TOC.txt was missing: every component was found and verified, TOC.txt rewritten",
			"table", s.name, "dir", dir, "generation", g)
		gens = append(gens, g)
	}
	slices.Sort(gens)
	s.nextGen.Store(int64(maxGen + 1))
	trunc, truncated := e.marks.truncated[t.ID]
	for _, g := range gens {
		r, err := sstable.Open(e.fs, dir, g, e.readerOptions())
		if err != nil {
			return s, wrapCorruption(fmt.Errorf("engine: opening SSTable %d of %s in %s: %w", g, s.name, dir, err))
		}
		src := newSSTableSource(r)
		src.created = e.Now()
		if truncated && src.upper.Compare(trunc) <= 0 {
			// Written before the table was truncated: the truncation
			// record was saved but the files were not yet deleted.
			if err := errors.Join(r.Close(), sstable.Remove(e.fs, dir, g)); err != nil {
				return s, err
			}
			continue
		}
		s.ssts = append([]*sstableSource{src}, s.ssts...)
	}
	return s, nil
}

// parseGen returns the generation of an SSTable component file name
// (xa-<gen>-big-<component>).
func parseGen(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, sstable.VersionString+"-")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	g, err := strconv.Atoi(num)
	return g, err == nil && g > 0
}

// checkMissingSchema decides what a data directory without a usable
// schema file (why says what was found) may do: start empty if it holds no
// data, or if Options.AllowMissingSchema says so (the data is kept, and
// logged); otherwise refuse with ErrSchemaMissing.
func (e *Engine) checkMissingSchema(why string) error {
	found, err := e.dataFiles()
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	if e.opts.AllowMissingSchema {
		e.opts.Logger.Warn("starting with an empty schema although the data directory holds data (AllowMissingSchema): "+
			"the data is kept on disk but unreachable until its tables are restored", "reason", why,
			"files", len(found), "first", found[0])
		return nil
	}
	return fmt.Errorf("%w: %s, but %s holds data (%d files, e.g. %s): refusing to start with an empty schema, "+
		"which would leave that data unreachable; restore the schema file, or set AllowMissingSchema to start anyway "+
		"(the data is kept)", ErrSchemaMissing, why, e.opts.Dir, len(found), found[0])
}

// dataFiles lists the SSTable component files under the data directory and
// the commit-log segments holding more than a header.
func (e *Engine) dataFiles() ([]string, error) {
	var out []string
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		names, err := e.fs.List(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, n := range names {
			p := e.fs.PathJoin(dir, n)
			if depth < 2 {
				if err := walk(p, depth+1); err != nil {
					return err
				}
			} else if _, ok := parseGen(n); ok {
				out = append(out, p)
			}
		}
		return nil
	}
	if err := walk(e.dataDir, 0); err != nil {
		return nil, err
	}
	logDir := e.fs.PathJoin(e.opts.Dir, commitLogDirName)
	names, err := e.fs.List(logDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, n := range names {
		if _, ok := commitlog.ParseSegmentFileName(n); ok {
			p := e.fs.PathJoin(logDir, n)
			if st, err := e.fs.Stat(p); err == nil && st.Size() > 20 {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// removeOrphans deals with the directories of tables and keyspaces that
// are not in the schema. Those of a DROP that a crash interrupted are
// harmless (a table recreated under the same name has a new id, so a new
// directory), but they may also be data whose schema was lost: as
// Cassandra, which never deletes unknown table directories at startup,
// they are kept and logged, not deleted.
func (e *Engine) removeOrphans() error {
	st := e.state.Load()
	keyspaces, err := e.fs.List(e.dataDir)
	if err != nil {
		return err
	}
	for _, ksName := range keyspaces {
		ksDir := e.fs.PathJoin(e.dataDir, ksName)
		ks, ok := st.keyspaces[ksName]
		if !ok {
			e.opts.Logger.Warn("keeping the directory of a keyspace not in the schema (an interrupted DROP, or data whose schema was lost)",
				"dir", ksDir)
			continue
		}
		want := map[string]bool{}
		for _, t := range ks.tables {
			want[TableDirName(t)] = true
		}
		dirs, err := e.fs.List(ksDir)
		if err != nil {
			return err
		}
		for _, d := range dirs {
			if !want[d] {
				e.opts.Logger.Warn("keeping the directory of a table not in the schema (an interrupted DROP, or data whose schema was lost)",
					"dir", e.fs.PathJoin(ksDir, d))
			}
		}
	}
	return nil
}

// replay applies the commit log's records to the memtables, skipping for
// each table what its SSTables hold (their commit-log upper bound) and
// what a truncation removed, and the records of tables that no longer
// exist. It then schedules flushes for memtables over the threshold.
func (e *Engine) replay() error {
	st := e.state.Load()
	skip := map[data.TableID]commitlog.Position{}
	for id, s := range st.stores {
		p := e.marks.floor(id)
		for _, t := range s.ssts {
			if t.upper.Compare(p) > 0 {
				p = t.upper
			}
		}
		skip[id] = p
	}
	var replayed, skipped int
	err := e.log.Replay(func(pos commitlog.Position, payload []byte) error {
		ms, err := data.DecodeMutations(bytes.Clone(payload))
		if err == nil {
			for _, m := range ms {
				if err = validateMutation(m); err != nil {
					break
				}
			}
		}
		if err != nil {
			if e.opts.IgnoreCommitLogReplayErrors {
				// The checksum passed, so this is no torn write:
				// Cassandra's "Unexpected error deserializing mutation",
				// skipped only under the option.
				e.opts.Logger.Error("Ignoring commit log replay error (IgnoreCommitLogReplayErrors): undecodable record skipped",
					"file", e.fs.PathJoin(e.opts.Dir, commitLogDirName, commitlog.SegmentFileName(pos.Segment)),
					"offset", pos.Offset, "size", len(payload), "err", err)
				skipped++
				return nil
			}
			return fmt.Errorf("%w: commit log record at %v (%s): %w", ErrCorruption, pos, commitlog.SegmentFileName(pos.Segment), err)
		}
		// A group (a base write and its derived mutations) applies each
		// member to its own table, skipped where that table's SSTables
		// already hold it: nothing is derived again.
		for _, m := range ms {
			s, ok := st.stores[m.Table]
			if !ok || pos.Compare(skip[m.Table]) < 0 {
				skipped++
				continue
			}
			var n int
			if cx := s.custom.Load(); cx != nil {
				// Replay updates the indexes, as Cassandra's
				// CommitLogReplayer applies with updateIndexes.
				n = applyIndexed(s.active.mt, e.Token(m.Key), m, cx, e.Now())
			} else {
				n = s.active.mt.Apply(e.Token(m.Key), m)
			}
			s.active.notePos(pos)
			e.mem.Add(int64(n))
			replayed++
		}
		return nil
	})
	if err != nil {
		return wrapCorruption(err)
	}
	e.opts.Logger.Info("commit log replayed", "dir", e.opts.Dir, "applied", replayed, "skipped", skipped)
	// Segments whose records were all flushed before the restart go now.
	if err := e.releaseLog(); err != nil {
		return err
	}
	for _, s := range st.stores {
		e.maybeFlush(s)
	}
	return nil
}

// persistSchema writes the schema file for next (a no-op for an in-memory
// engine). The caller holds schemaMu.
func (e *Engine) persistSchema(next *schemaState) error {
	if e.schemaDir == "" {
		return nil
	}
	b, err := encodeSchema(next, e.marks)
	if err != nil {
		return err
	}
	if err := writeSchemaFile(e.fs, e.schemaDir, e.schemaN+1, b); err != nil {
		return fmt.Errorf("engine: writing schema file in %s: %w", e.schemaDir, err)
	}
	e.schemaN++
	return nil
}

// logTail returns the commit log's tail, the zero Position without a log.
func (e *Engine) logTail() commitlog.Position {
	if e.log == nil {
		return commitlog.Position{}
	}
	return e.log.Tail()
}

// ensureDir creates the directory of s's SSTables unless it exists, before
// the first SSTable or transaction log of the table is written there.
func (e *Engine) ensureDir(s *tableStore) error {
	if s.dirMade.Load() {
		return nil
	}
	if err := e.fs.MkdirAll(s.dir(), 0o755); err != nil {
		return fmt.Errorf("engine: creating %s: %w", s.dir(), err)
	}
	s.dirMade.Store(true)
	return nil
}
