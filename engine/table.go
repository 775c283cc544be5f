package engine

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/memtable"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
)

// SourceKind says what kind of storage a Source is.
type SourceKind uint8

// The source kinds.
const (
	SourceMemtable SourceKind = iota
	SourceSSTable
)

// String returns "memtable" or "sstable".
func (k SourceKind) String() string {
	if k == SourceMemtable {
		return "memtable"
	}
	return "sstable"
}

// Source is one provider of a table's data that reads merge: a memtable
// (active or being flushed) or an SSTable. SSTables plug in by implementing
// it and being attached with AddSource.
type Source interface {
	// Name identifies the source in read statistics, e.g. "memtable-1" or
	// an SSTable's Data.db file name.
	Name() string
	// Kind says what the source is.
	Kind() SourceKind
	// Partition returns the source's view of the partition (token, key).
	// When the source has nothing for it, ps is nil and skip says why it
	// was not read ("not present", "bloom filter", "token out of range").
	Partition(ctx context.Context, token int64, key []byte) (ps data.PartitionSource, skip string, err error)
	// Partitions returns an iterator over the source's partitions whose
	// token lies in r, in (token, key) order.
	Partitions(ctx context.Context, r data.TokenRange) (data.PartitionIterator, error)
}

// memtableSource adapts a memtable to Source.
type memtableSource struct {
	name string
	mt   *memtable.Memtable

	// minPos is the packed commit-log position (packPos) of the oldest
	// record applied to the memtable, 0 if none: the commit log must keep
	// it until the memtable is flushed.
	minPos atomic.Uint64
	// upper is the commit-log tail when the memtable was switched out:
	// every record of the table before it is in this memtable or an older
	// source. Set under tableStore.mu when the memtable is frozen.
	upper commitlog.Position
}

// Name returns the memtable's name.
func (s *memtableSource) Name() string { return s.name }

// Kind returns SourceMemtable.
func (s *memtableSource) Kind() SourceKind { return SourceMemtable }

// Partition returns the memtable's snapshot of the partition.
func (s *memtableSource) Partition(_ context.Context, token int64, key []byte) (data.PartitionSource, string, error) {
	ps, ok := s.mt.Get(token, key)
	if !ok {
		return nil, "not present", nil
	}
	return ps, "", nil
}

// Partitions returns a scan of the memtable.
func (s *memtableSource) Partitions(_ context.Context, r data.TokenRange) (data.PartitionIterator, error) {
	return s.mt.Scan(r), nil
}

// notePos records that the record at pos was applied to the memtable.
func (s *memtableSource) notePos(pos commitlog.Position) {
	p := packPos(pos)
	for {
		cur := s.minPos.Load()
		if cur != 0 && cur <= p {
			return
		}
		if s.minPos.CompareAndSwap(cur, p) {
			return
		}
	}
}

// packPos packs a commit-log position into a uint64 ordered as positions
// are (segment ids below 2^24, offsets below 2^40); a valid position is
// never 0 (records start after the segment header).
func packPos(p commitlog.Position) uint64 { return p.Segment<<40 | uint64(p.Offset) }

func unpackPos(v uint64) commitlog.Position {
	return commitlog.Position{Segment: v >> 40, Offset: int64(v & (1<<40 - 1))}
}

// tableStore holds the data of one table: the active memtable that takes
// writes, the memtables being flushed, the SSTables, and the other sources
// attached with AddSource.
type tableStore struct {
	name string // keyspace.table, for source names and logs
	id   data.TableID
	// table is the current definition (replaced by AlterTable), read by
	// flushes for the table's options.
	table atomic.Pointer[schema.Table]
	// dirPath is the table's SSTable directory (dir), its path built on
	// first use from fs and dataDir, or set by setDir. The directory is
	// created when the first SSTable of the table is written (ensureDir),
	// not when the table is: a fresh node has some sixty system tables,
	// most never flushed, and most never need the path either.
	dirPath atomic.Pointer[string]
	fs      vfs.FS
	dataDir string
	// dirMade records that dir exists.
	dirMade atomic.Bool

	// mu guards the source lists. Writers hold it shared while appending
	// to the commit log and applying, so a memtable switch (exclusive)
	// never loses a write and sees every appended record applied.
	mu       sync.RWMutex
	active   *memtableSource
	flushing []*memtableSource // oldest first
	ssts     []*sstableSource  // newest first
	others   []Source
	gen      int
	// version counts the changes of the lists above, so a compaction
	// notices a flush or a switch that happened while it runs.
	version uint64

	// activeHint is active's memtable (not guarded by mu), stored by
	// newMemtable before it is made active, for writers to prefetch from
	// before they take mu (memtable.PrefetchIndex). It is only a hint: a
	// writer that loads it during a switch may prefetch from the memtable
	// just frozen, which costs a wasted prefetch and nothing else; the
	// write itself uses active under mu.
	activeHint atomic.Pointer[memtable.Memtable]

	// flushMu serializes the flushes of the table, so its SSTables are
	// completed in switch order (the commit-log upper bounds only grow),
	// and excludes flushes from Truncate and DropTable.
	flushMu sync.Mutex
	// nextGen is the generation of the next SSTable (flushes and
	// compactions allocate with allocGen). It is shared by every store a
	// Restore makes for the table (snapshot.go), so that a flush of the
	// store a Restore replaced, finishing late, never reuses a generation.
	nextGen *atomic.Int64
	// compactMu serializes the compactions of the table.
	compactMu sync.Mutex
	// obsoleteBytes is the disk size of compacted SSTables whose files
	// are not yet removed.
	obsoleteBytes atomic.Int64
	// removeMu guards the countdown of a compaction's removed inputs.
	removeMu sync.Mutex
	// compactScheduled is set while a background compaction is queued.
	compactScheduled atomic.Bool
	// stats counts reads and writes (tablestats).
	readCount, writeCount atomic.Int64
	// reads are the rows and tombstones per read (system_views),
	// allocated by the first read or statistic that needs them (histograms):
	// they are some 4 KiB, and most system tables are never read.
	reads atomic.Pointer[readHistograms]
	// flushScheduled is set while a background flush is queued.
	flushScheduled atomic.Bool
	// dropped is set once the table is dropped: flushes stop.
	dropped atomic.Bool

	// custom holds the instances of the table's custom indexes whose
	// class makes them (customindex.go), nil while there are none: a
	// write finds them with one atomic load.
	custom atomic.Pointer[customIndexes]
}

// newTableStore returns an empty store for t, whose SSTable directory is
// under dataDir in fs (tableDir).
func newTableStore(t *schema.Table, fs vfs.FS, dataDir string) *tableStore {
	s := &tableStore{name: t.QualifiedName(), id: t.ID, fs: fs, dataDir: dataDir, nextGen: new(atomic.Int64)}
	s.nextGen.Store(1)
	s.table.Store(t)
	s.active = s.newMemtable()
	return s
}

// dir returns the table's SSTable directory.
func (s *tableStore) dir() string {
	if p := s.dirPath.Load(); p != nil {
		return *p
	}
	d := tableDir(s.fs, s.dataDir, s.table.Load())
	s.dirPath.Store(&d)
	return d
}

// setDir sets the table's SSTable directory.
func (s *tableStore) setDir(dir string) { s.dirPath.Store(&dir) }

// histograms returns the table's read histograms, allocating them on
// first use.
func (s *tableStore) histograms() *readHistograms {
	if h := s.reads.Load(); h != nil {
		return h
	}
	h := new(readHistograms)
	if s.reads.CompareAndSwap(nil, h) {
		return h
	}
	return s.reads.Load()
}

// newMemtable returns a fresh memtable source. The caller holds mu (or owns
// s exclusively).
func (s *tableStore) newMemtable() *memtableSource {
	s.gen++
	name := "memtable-1" // every table's first: no string to build
	if s.gen > 1 {
		name = "memtable-" + strconv.Itoa(s.gen)
	}
	mt := memtable.New()
	s.activeHint.Store(mt)
	return &memtableSource{name: name, mt: mt}
}

// readSources are the sources of one read, newest first: the active
// memtable, the flushing memtables (newest first), the SSTables (newest
// first), then the others in the order they were added. The SSTables are
// referenced until release, so that a compaction or truncation switching
// the list meanwhile does not close them under the read.
type readSources struct {
	list []Source
	// ssts is the range of list holding the referenced SSTables.
	sstFrom, sstTo int
	released       bool
	buf            [inlineSources]Source // list starts here
}

// sources returns the sources to read now.
func (s *tableStore) sources() *readSources { return s.sourcesInto(new(readSources)) }

// sourcesInto is sources filling rs, which the caller allocated.
func (s *tableStore) sourcesInto(rs *readSources) *readSources {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// A pooled rs (a partition read's) keeps the array its list grew into
	// last time, so that a table of many SSTables allocates none per read;
	// release cleared it.
	list := rs.list[:0]
	if list == nil {
		list = rs.buf[:0]
	}
	*rs = readSources{}
	rs.list = append(list, s.active)
	for i := len(s.flushing) - 1; i >= 0; i-- {
		rs.list = append(rs.list, s.flushing[i])
	}
	rs.sstFrom = len(rs.list)
	for _, t := range s.ssts {
		t.acquire()
		rs.list = append(rs.list, t)
	}
	rs.sstTo = len(rs.list)
	rs.list = append(rs.list, s.others...)
	return rs
}

// listStats adds the entry of source i of the list to st, the stats of a
// read whose Sources lists the sources before i and no other, and returns
// its index there. Memtable and SSTable names are unique (a generation
// each), so they are added without a search; the sources added by
// AddSource may share a name, which shares an entry.
func (rs *readSources) listStats(st *ReadStats, i int) int {
	if i < rs.sstTo {
		return st.addSource(rs.list[i])
	}
	return st.sourceIndex(rs.list[i])
}

// release drops the read's SSTable references; calls after the first do
// nothing. The read's goroutine calls it.
func (rs *readSources) release() {
	if rs.released {
		return
	}
	rs.released = true
	for _, t := range rs.list[rs.sstFrom:rs.sstTo] {
		t.(*sstableSource).release()
	}
	// The list is not read after release; clearing it lets a pooled rs keep
	// its array without keeping the sources alive.
	clear(rs.list)
}

// allocGen returns a new SSTable generation of the table.
func (s *tableStore) allocGen() int { return int(s.nextGen.Add(1) - 1) }

// switchMemtable freezes the active memtable, moving it to the flushing
// list, and installs an empty one. It does nothing if the active memtable
// is empty or holds less than minSize bytes. tail gives the commit-log
// position recorded as the frozen memtable's upper bound; it is called
// while no write to the table is in flight.
func (s *tableStore) switchMemtable(minSize int64, tail func() commitlog.Position) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active.mt.IsEmpty() || s.active.mt.Size() < minSize {
		return false
	}
	if tail != nil {
		s.active.upper = tail()
	}
	s.flushing = append(s.flushing, s.active)
	s.active = s.newMemtable()
	s.version++
	return true
}

// activeSize returns the bytes held by the active memtable.
func (s *tableStore) activeSize() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.active.mt.Size()
}

// memBytes returns the bytes held by the table's memtables. The caller
// holds mu.
func (s *tableStore) memBytes() int64 {
	n := s.active.mt.Size()
	for _, m := range s.flushing {
		n += m.mt.Size()
	}
	return n
}

// truncate drops every source and installs an empty memtable. It returns
// the SSTables dropped and the memtable bytes released. mark, if not nil,
// is called while no write to the table is in flight.
func (s *tableStore) truncate(mark func() commitlog.Position) ([]*sstableSource, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mark != nil {
		mark()
	}
	freed := s.memBytes()
	dropped := s.ssts
	s.active = s.newMemtable()
	s.flushing, s.others, s.ssts = nil, nil, nil
	s.version++
	return dropped, freed
}

func (e *Engine) storeFor(t *schema.Table) (*tableStore, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%w: nil table", ErrNoTable)
	}
	st := e.state.Load()
	slot := &st.hot[storeSlot(t.ID)]
	if s := slot.Load(); s != nil && s.id == t.ID {
		return s, nil
	}
	s, ok := st.stores[t.ID]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoTable, t.QualifiedName())
	}
	slot.Store(s)
	return s, nil
}

// SwitchMemtable freezes the table's active memtable and starts a new one,
// the first step of a flush. The frozen memtable stays readable until a
// flush (Flush, or the next background flush of the table) writes it to an
// SSTable. It reports whether anything was switched (an empty memtable is
// not).
func (e *Engine) SwitchMemtable(t *schema.Table) (bool, error) {
	s, err := e.storeFor(t)
	if err != nil {
		return false, err
	}
	return s.switchMemtable(0, e.logTail), nil
}

// AddSource attaches a read source (an SSTable) to a table. Reads merge it
// after the memtables.
func (e *Engine) AddSource(t *schema.Table, src Source) error {
	s, err := e.storeFor(t)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.others = append(s.others, src)
	s.version++
	s.mu.Unlock()
	return nil
}

// MemtableStats describes a table's memtables.
type MemtableStats struct {
	// Size is the estimated bytes held by the active memtable.
	Size int64
	// Partitions is the number of partitions in the active memtable.
	Partitions int
	// Flushing is the number of frozen memtables awaiting flush.
	Flushing int
}

// MemtableStats returns the state of a table's memtables.
func (e *Engine) MemtableStats(t *schema.Table) (MemtableStats, error) {
	s, err := e.storeFor(t)
	if err != nil {
		return MemtableStats{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return MemtableStats{Size: s.active.mt.Size(), Partitions: s.active.mt.Len(), Flushing: len(s.flushing)}, nil
}
