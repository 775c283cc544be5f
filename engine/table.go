package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/memtable"
	"github.com/minicass/minicass/schema"
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

// tableStore holds the data of one table: the active memtable that takes
// writes, the memtables being flushed, and the other sources (SSTables).
type tableStore struct {
	name string // keyspace.table, for source names and logs

	// mu guards the source lists. Writers hold it shared while applying,
	// so a memtable switch (exclusive) never loses a write.
	mu       sync.RWMutex
	active   *memtableSource
	flushing []*memtableSource
	others   []Source
	gen      int
}

func newTableStore(t *schema.Table) *tableStore {
	s := &tableStore{name: t.QualifiedName()}
	s.active = s.newMemtable()
	return s
}

// newMemtable returns a fresh memtable source. The caller holds mu (or owns
// s exclusively).
func (s *tableStore) newMemtable() *memtableSource {
	s.gen++
	return &memtableSource{name: fmt.Sprintf("memtable-%d", s.gen), mt: memtable.New()}
}

// sources returns the sources to read, newest first: the active memtable,
// the flushing memtables (newest first), then the others in the order they
// were added.
func (s *tableStore) sources() []Source {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Source, 0, 1+len(s.flushing)+len(s.others))
	out = append(out, s.active)
	for i := len(s.flushing) - 1; i >= 0; i-- {
		out = append(out, s.flushing[i])
	}
	return append(out, s.others...)
}

// switchMemtable freezes the active memtable, moving it to the flushing
// list, and installs an empty one. It does nothing if the active memtable
// is empty.
func (s *tableStore) switchMemtable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active.mt.IsEmpty() {
		return false
	}
	s.flushing = append(s.flushing, s.active)
	s.active = s.newMemtable()
	return true
}

// truncate drops every source and installs an empty memtable.
func (s *tableStore) truncate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = s.newMemtable()
	s.flushing, s.others = nil, nil
}

func (e *Engine) storeFor(t *schema.Table) (*tableStore, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%w: nil table", ErrNoTable)
	}
	s, ok := e.store(t.ID)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoTable, t.QualifiedName())
	}
	return s, nil
}

// SwitchMemtable freezes the table's active memtable and starts a new one,
// the first step of a flush. The frozen memtable stays readable. Until
// SSTables land it is never released; the call exists for the flush path
// and for tests of multi-source reads. It reports whether anything was
// switched (an empty memtable is not).
func (e *Engine) SwitchMemtable(t *schema.Table) (bool, error) {
	s, err := e.storeFor(t)
	if err != nil {
		return false, err
	}
	return s.switchMemtable(), nil
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
