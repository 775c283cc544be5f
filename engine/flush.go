package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
)

// Flushing. A table's active memtable is switched out (tableStore.
// switchMemtable, which records the commit-log tail as its upper bound) when
// it passes Options.MemtableSize, when all memtables together pass half of
// MemtableHardLimit (the largest is chosen), or on Flush. A background
// goroutine, at most FlushWorkers at a time, then writes the frozen
// memtables of the table to SSTables, oldest first and one at a time per
// table, so that a table's SSTables complete in switch order and the
// largest upper bound among them covers everything before it. While a
// memtable is written, reads keep merging it; once the SSTable is complete
// (TOC.txt durable) it replaces the memtable as a source, and the commit-log
// segments that no table still needs are released.

// maybeFlush starts a background flush of s if its active memtable passed
// the threshold, or of the largest memtable if all memtables together are
// past half of the hard limit.
//
// An in-memory engine (no Dir) never flushes on its own, as before
// durability: its memtables grow until Flush is called.
func (e *Engine) maybeFlush(s *tableStore) {
	if e.closed.Load() || e.opts.Dir == "" {
		return
	}
	if s.activeSize() >= e.opts.MemtableSize {
		if s.switchMemtable(e.opts.MemtableSize, e.logTail) {
			e.scheduleFlush(s)
		}
	}
	if e.mem.Load() >= e.opts.MemtableHardLimit/2 && e.globalFlush.CompareAndSwap(false, true) {
		defer e.globalFlush.Store(false)
		// As Cassandra's memtable_cleanup_threshold, only memtables not
		// already being flushed count: otherwise every write during a
		// flush would switch out a tiny memtable.
		var largest *tableStore
		var size, active int64
		for _, st := range e.state.Load().stores {
			n := st.activeSize()
			active += n
			if n > size {
				largest, size = st, n
			}
		}
		if active >= e.opts.MemtableHardLimit/2 && largest != nil && largest.switchMemtable(1, e.logTail) {
			e.scheduleFlush(largest)
		}
	}
}

// scheduleFlush flushes the frozen memtables of s in the background,
// unless a background flush of s is already queued.
func (e *Engine) scheduleFlush(s *tableStore) {
	if !s.flushScheduled.CompareAndSwap(false, true) {
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		e.flushSem <- struct{}{}
		s.flushScheduled.Store(false)
		err := e.flushStore(s)
		<-e.flushSem
		if err != nil {
			e.opts.Logger.Error("background flush failed", "table", s.name, "err", err)
		}
	}()
}

// flushStore writes the frozen memtables of s to SSTables, oldest first.
// A memtable whose flush fails stays frozen and readable, and its
// commit-log records are kept: the next flush of the table retries it.
func (e *Engine) flushStore(s *tableStore) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.RLock()
	pending := len(s.flushing) > 0
	s.mu.RUnlock()
	if pending && !s.dropped.Load() {
		// SecondaryIndexManager.flushAllNonCFSBackedIndexesBlocking.
		e.flushCustomIndexes(s)
	}
	for {
		if s.dropped.Load() {
			return nil
		}
		s.mu.RLock()
		if len(s.flushing) == 0 {
			s.mu.RUnlock()
			return nil
		}
		mt := s.flushing[0]
		s.mu.RUnlock()
		src, err := e.writeSSTable(s, mt)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrFlush, s.name, err)
		}
		s.mu.Lock()
		if len(s.flushing) == 0 || s.flushing[0] != mt {
			// Truncated meanwhile (Truncate waits for flushMu, so this
			// does not happen; kept as a guard).
			s.mu.Unlock()
			var rerr error
			src.retire(e.fs, func(err error) { rerr = err })
			return rerr
		}
		s.flushing = s.flushing[1:]
		s.ssts = append([]*sstableSource{src}, s.ssts...)
		s.version++
		s.mu.Unlock()
		e.releaseMemory(mt.mt.Size())
		if err := e.releaseLog(); err != nil {
			e.opts.Logger.Error("releasing commit log segments", "err", err)
		}
		e.scheduleCompaction(s)
	}
}

// writeSSTable writes the frozen memtable mt of s to a new SSTable and
// opens it.
func (e *Engine) writeSSTable(s *tableStore, mt *memtableSource) (*sstableSource, error) {
	t := s.table.Load()
	comp, err := sstable.CompressionFromOptions(t.Options.Compression)
	if err != nil {
		return nil, err
	}
	if err := e.ensureDir(s); err != nil {
		return nil, err
	}
	gen := s.allocGen()
	// The log says gen is unfinished until the SSTable is complete, so
	// that a crash mid-flush leaves files Open knows to remove (txnlog.go).
	txn, err := createFlushTxn(e.fs, s.dir(), gen)
	if err != nil {
		return nil, fmt.Errorf("transaction log: %w", err)
	}
	src, err := e.writeSSTableGen(s, mt, t, comp, gen)
	if err != nil {
		// The log stays: should the writer's cleanup have left files,
		// the next Open removes them.
		return nil, errors.Join(err, txn.close())
	}
	if err := txn.commit(); err != nil {
		return nil, errors.Join(err, src.r.Close(), txn.close())
	}
	if err := txn.remove(); err != nil {
		e.opts.Logger.Warn("removing a committed flush log", "table", s.name, "err", err)
	}
	return src, nil
}

// writeSSTableGen writes mt to SSTable gen and opens it.
func (e *Engine) writeSSTableGen(s *tableStore, mt *memtableSource, t *schema.Table, comp sstable.Compression, gen int) (*sstableSource, error) {
	w, err := sstable.NewWriter(e.fs, s.dir(), gen, sstable.WriterOptions{
		Compression:         comp,
		ColumnIndexSize:     e.opts.ColumnIndexSize,
		BloomFilterFPChance: t.Options.BloomFilterFPChance,
		CommitLogUpperBound: sstable.LogPosition{Segment: int64(mt.upper.Segment), Offset: mt.upper.Offset},
		ExpectedPartitions:  mt.mt.Len(),
	})
	if err != nil {
		return nil, err
	}
	file := sstable.FileName(gen, sstable.ComponentData)
	if err := copyMemtable(w, mt, func(key []byte, size, rows int64) {
		e.warnLargePartition(s, key, size, rows, file)
	}); err != nil {
		return nil, errors.Join(err, w.Abort())
	}
	if _, err := w.Finish(); err != nil {
		return nil, errors.Join(err, w.Abort())
	}
	// Just written and synced: its digest was computed from these bytes.
	r, err := sstable.Open(e.fs, s.dir(), gen, e.justWrittenReaderOptions())
	if err != nil {
		return nil, wrapCorruption(err)
	}
	src := newSSTableSource(r)
	src.created = e.Now()
	e.bytesFlushed.Add(int64(src.stats.DataSize))
	return src, nil
}

// coveringDeletion returns the newest of the partition deletion pdel and
// the deletions of the range tombstones in rts that contain clustering ck.
func coveringDeletion(pdel data.DeletionTime, rts []data.RangeTombstone, ck []byte) data.DeletionTime {
	d := pdel
	for i := range rts {
		if rts[i].Contains(ck) {
			d = data.MaxDeletion(d, rts[i].Deletion)
		}
	}
	return d
}

// purgedCopy copies r into buf, with slices of its own, and removes from
// the copy what outer and the row's own deletions shadow
// (data.Row.PurgeShadowed); r itself is not changed.
func purgedCopy(buf *data.Row, r *data.Row, outer data.DeletionTime) *data.Row {
	cells, cds := buf.Cells[:0], buf.ColumnDeletions[:0]
	*buf = *r
	buf.Cells = append(cells, r.Cells...)
	buf.ColumnDeletions = append(cds, r.ColumnDeletions...)
	if r.ColumnDeletions == nil {
		buf.ColumnDeletions = nil
	}
	buf.PurgeShadowed(outer)
	return buf
}

// releaseMemory subtracts n bytes from the memtable total and wakes writers
// waiting for memory.
func (e *Engine) releaseMemory(n int64) {
	e.mem.Add(-n)
	e.memMu.Lock()
	e.memCond.Broadcast()
	e.memMu.Unlock()
}

// waitForMemory blocks a write while the memtables hold more than
// MemtableHardLimit, until flushes free memory or ctx ends.
func (e *Engine) waitForMemory(ctx context.Context, s *tableStore) error {
	if e.mem.Load() < e.opts.MemtableHardLimit || e.opts.Dir == "" {
		return nil
	}
	e.maybeFlush(s)
	stop := context.AfterFunc(ctx, func() {
		e.memMu.Lock()
		e.memCond.Broadcast()
		e.memMu.Unlock()
	})
	defer stop()
	e.memMu.Lock()
	defer e.memMu.Unlock()
	for e.mem.Load() >= e.opts.MemtableHardLimit {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.closed.Load() {
			return ErrClosed
		}
		e.memCond.Wait()
	}
	return nil
}

// releaseLog deletes the commit-log segments that hold no record still
// needed: the oldest record of every table's unflushed memtables bounds
// what is kept.
func (e *Engine) releaseLog() error {
	if e.log == nil {
		return nil
	}
	e.releaseMu.Lock()
	defer e.releaseMu.Unlock()
	// The tail is read first: a record appended later lies after it, and
	// one appended earlier is noted in its memtable by the time the
	// store's lock is taken (writers hold it shared from append to note).
	bound := e.log.Tail()
	for _, s := range e.state.Load().stores {
		s.mu.Lock()
		for _, m := range append(s.flushing[:len(s.flushing):len(s.flushing)], s.active) {
			if p := m.minPos.Load(); p != 0 {
				if up := unpackPos(p); up.Compare(bound) < 0 {
					bound = up
				}
			}
		}
		s.mu.Unlock()
	}
	return e.log.ReleaseBefore(bound)
}

// Flush writes the memtables of one table (keyspace and table set; its
// index tables too, schema.OwnsTable, as Cassandra flushes a table's
// indexes with it), of
// every table of a keyspace (table empty) or of every table (both empty)
// to SSTables, and returns once they are durable. Writes continue
// meanwhile (into new memtables). It returns ErrNoKeyspace or ErrNoTable
// for a name that does not exist, and an error wrapping ErrFlush if
// writing failed (the data stays in memory and in the commit log).
func (e *Engine) Flush(ctx context.Context, keyspace, table string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	st := e.state.Load()
	var stores []*tableStore
	for name, ks := range st.keyspaces {
		if keyspace != "" && name != keyspace {
			continue
		}
		for tn, t := range ks.tables {
			if table != "" && !schema.OwnsTable(table, tn) {
				continue
			}
			if s, ok := st.stores[t.ID]; ok {
				stores = append(stores, s)
			}
		}
	}
	if keyspace != "" {
		ks, ok := st.keyspaces[keyspace]
		if !ok {
			return fmt.Errorf("%w: %s", ErrNoKeyspace, keyspace)
		}
		if _, ok := ks.tables[table]; table != "" && !ok {
			return fmt.Errorf("%w: %s.%s", ErrNoTable, keyspace, table)
		}
	} else if table != "" {
		return fmt.Errorf("%w: table %q without a keyspace", ErrNoTable, table)
	}
	var errs []error
	for _, s := range stores {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.switchMemtable(0, e.logTail)
		errs = append(errs, e.flushStore(s))
	}
	return errors.Join(errs...)
}

// SSTableInfo describes one SSTable of a table, for teaching views
// (nodetool tablestats, system_views.sstables) and tests.
type SSTableInfo struct {
	// Name is the Data.db file name, as read statistics name the source.
	Name string
	// Dir is the table's directory; Gen the SSTable's generation.
	Dir string
	Gen int
	// Files lists the component file names, in TOC order.
	Files []string
	// Sizes are the sizes in bytes of the component files, in the order of
	// Files (-1 for a file that could not be read).
	Sizes []int64
	// DiskSize is the total size in bytes of the component files.
	DiskSize int64
	// CommitLogUpperBound is the commit-log position the SSTable covers.
	CommitLogUpperBound commitlog.Position
	// Stats is the SSTable's metadata (Statistics.db); do not modify it.
	Stats *sstable.Stats
}

// SSTables lists the SSTables of keyspace.table, newest first. It returns
// nil for a table that does not exist.
func (e *Engine) SSTables(keyspace, table string) []SSTableInfo {
	t, ok := e.Table(keyspace, table)
	if !ok {
		return nil
	}
	s, ok := e.store(t.ID)
	if !ok {
		return nil
	}
	s.mu.RLock()
	ssts := append([]*sstableSource(nil), s.ssts...)
	s.mu.RUnlock()
	out := make([]SSTableInfo, 0, len(ssts))
	for _, src := range ssts {
		info := SSTableInfo{Name: src.name, Dir: src.r.Dir(), Gen: src.r.Gen(), Files: src.r.Files(),
			CommitLogUpperBound: src.upper, Stats: src.stats}
		for _, f := range info.Files {
			size := int64(-1)
			if fi, err := e.fs.Stat(e.fs.PathJoin(info.Dir, f)); err == nil {
				size = fi.Size()
				info.DiskSize += size
			}
			info.Sizes = append(info.Sizes, size)
		}
		out = append(out, info)
	}
	return out
}

// InspectSSTable calls fn with the reader of the SSTable of keyspace.table
// whose Data.db file is named name, keeping the reader open while fn runs
// (a compaction meanwhile replaces the SSTable but does not close it). fn
// must only read. It returns ErrNoTable for a table that does not exist,
// an error naming the SSTable when the table has no such live SSTable, and
// fn's error.
func (e *Engine) InspectSSTable(keyspace, table, name string, fn func(r *sstable.Reader) error) error {
	t, ok := e.Table(keyspace, table)
	if !ok {
		return ErrNoTable
	}
	s, ok := e.store(t.ID)
	if !ok {
		return ErrNoTable
	}
	var src *sstableSource
	s.mu.RLock()
	for _, c := range s.ssts {
		if c.name == name {
			src = c
			src.acquire()
			break
		}
	}
	s.mu.RUnlock()
	if src == nil {
		return fmt.Errorf("engine: %s.%s has no live SSTable %q", keyspace, table, name)
	}
	defer src.release()
	return fn(src.r)
}
