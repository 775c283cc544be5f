package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/google/btree"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Schema is the CQL of the table every store holds (keyspace bench).
const Schema = `CREATE TABLE bench.t (k bigint, c bigint, v blob, PRIMARY KEY (k, c))`

const createKeyspace = `CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`

// Store kinds, as Config.Store and Config.Peer name them.
const (
	StoreEngine = "engine"
	StoreCQL    = "cql"
	StoreBTree  = "btree"
	StoreNone   = "none"
)

// Store is what a workload drives: the table bench.t at one layer.
// Implementations are safe for concurrent use.
type Store interface {
	// Name is the store kind ("engine", "cql", "btree").
	Name() string
	// Write upserts the row (k, c) with value v. The store may keep v: the
	// caller must not modify it afterwards.
	Write(ctx context.Context, k, c int64, v []byte) error
	// Read reads the rows of partition k in clustering order (reverse if
	// asked), at most limit of them (0: all), and returns how many it read.
	Read(ctx context.Context, k int64, limit int, reverse bool) (int, error)
	// Flush writes what is in memory to SSTables (a no-op for the btree).
	Flush(ctx context.Context) error
	// Close releases the store and any data directory it created.
	Close() error
}

// StoreOptions configure OpenStore.
type StoreOptions struct {
	// Dir, when set, is a directory under which a durable store creates
	// its own fresh data directory (removed by Close). Empty keeps the
	// data in memory (SSTables of flushes in an in-memory filesystem).
	Dir string
	// MemtableSize is the engine's memtable flush threshold in bytes; 0 is
	// the engine's default (64 MiB). Benchmarks that measure the memtable
	// set it high so nothing is flushed behind their back.
	MemtableSize int64
}

// OpenStore opens a new, empty store of the given kind ("engine", "cql" or
// "btree"). It returns an error wrapping ErrUnknownStore for another kind.
func OpenStore(kind string, opts StoreOptions) (Store, error) {
	switch kind {
	case StoreBTree:
		return NewBTreeStore(), nil
	case StoreEngine:
		return OpenEngineStore(opts)
	case StoreCQL:
		return OpenCQLStore(opts)
	}
	return nil, fmt.Errorf("%w: %q (want engine, cql or btree)", ErrUnknownStore, kind)
}

// dbStore is the part of the engine and CQL stores that owns the database.
type dbStore struct {
	db  *minicass.DB
	dir string // created by openDB, removed by close
}

// openDB opens a database with keyspace bench and table bench.t.
func openDB(opts StoreOptions) (dbStore, error) {
	var s dbStore
	mo := minicass.Options{MemtableSize: opts.MemtableSize}
	if opts.Dir != "" {
		dir, err := os.MkdirTemp(opts.Dir, "minicass-bench-")
		if err != nil {
			return s, err
		}
		s.dir, mo.Dir = dir, dir
	}
	db, err := minicass.Open(mo)
	if err != nil {
		s.close()
		return s, err
	}
	s.db = db
	ctx := context.Background()
	for _, q := range []string{createKeyspace, Schema} {
		if err := db.Exec(ctx, q); err != nil {
			s.close()
			return s, err
		}
	}
	return s, nil
}

// DB returns the store's database.
func (s *dbStore) DB() *minicass.DB { return s.db }

// Flush flushes table bench.t.
func (s *dbStore) Flush(ctx context.Context) error { return s.db.Flush(ctx, "bench", "t") }

func (s *dbStore) close() error {
	var err error
	if s.db != nil {
		err = s.db.Close()
		s.db = nil
	}
	if s.dir != "" {
		if rerr := os.RemoveAll(s.dir); err == nil {
			err = rerr
		}
		s.dir = ""
	}
	return err
}

// EngineStore drives the storage engine directly: Write builds the mutation
// the CQL layer builds for INSERT INTO bench.t (k, c, v) VALUES (?, ?, ?)
// (a row liveness record and one cell, timestamped by the engine) and
// applies it; Read is engine.ReadPartition.
type EngineStore struct {
	dbStore
	eng  *engine.Engine
	tbl  *schema.Table
	ckey []types.ClusteringColumn
}

// OpenEngineStore opens an EngineStore on a new database.
func OpenEngineStore(opts StoreOptions) (*EngineStore, error) {
	d, err := openDB(opts)
	if err != nil {
		return nil, err
	}
	eng := d.db.Engine()
	tbl, ok := eng.Table("bench", "t")
	if !ok {
		d.close()
		return nil, fmt.Errorf("bench: table bench.t missing after CREATE TABLE")
	}
	return &EngineStore{dbStore: d, eng: eng, tbl: tbl, ckey: tbl.ClusteringTypes()}, nil
}

// Name returns "engine".
func (s *EngineStore) Name() string { return StoreEngine }

// Engine returns the store's engine and the table's definition.
func (s *EngineStore) Engine() (*engine.Engine, *schema.Table) { return s.eng, s.tbl }

// Key returns the serialized partition key of k (a bigint).
func Key(k int64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(k)) }

// Mutation returns the mutation of the row (k, c, v) at timestamp ts, as the
// CQL layer builds it for an INSERT.
//
// Like the CQL layer's single-row plans, it allocates the mutation and its
// row together, the clustering key at its final size and the cells on
// their own (the memtable keeps the row's clustering and cells, not the
// mutation).
func (s *EngineStore) Mutation(k, c int64, v []byte, ts int64) (*data.Mutation, error) {
	var cb [8]byte
	binary.BigEndian.PutUint64(cb[:], uint64(c))
	ck, err := types.EncodeClustering(s.ckey, [][]byte{cb[:]})
	if err != nil {
		return nil, err
	}
	h := new(struct {
		m   data.Mutation
		row [1]data.Row
	})
	h.m = data.Mutation{Table: s.tbl.ID, Key: Key(k), PartitionDeletion: data.LiveDeletion, Rows: h.row[:]}
	r := &h.row[0]
	r.Clustering = ck
	r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	r.Deletion = data.LiveDeletion
	r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: v}}
	return &h.m, nil
}

// Write applies the mutation of the row (k, c, v).
func (s *EngineStore) Write(ctx context.Context, k, c int64, v []byte) error {
	m, err := s.Mutation(k, c, v, s.eng.NewTimestamp())
	if err != nil {
		return err
	}
	return s.eng.Apply(ctx, s.tbl, m)
}

// Read reads partition k through engine.ReadPartition.
func (s *EngineStore) Read(ctx context.Context, k int64, limit int, reverse bool) (int, error) {
	p, err := s.eng.ReadPartition(ctx, s.tbl, Key(k), engine.ReadOptions{Limit: limit, Reverse: reverse})
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		if _, ok := p.Next(); !ok {
			break
		}
		n++
	}
	// The engine's own best use: the partition's memory goes back to the
	// engine's pool, as the CQL layer gives it back.
	err = p.Close()
	p.Release()
	return n, err
}

// Close closes the database.
func (s *EngineStore) Close() error { return s.close() }

// CQLStore drives the Go API: prepared statements on one session, rows
// scanned into Go values as an application would.
type CQLStore struct {
	dbStore
	insert, sel, selRev *minicass.Stmt
}

// The statements of CQLStore.
const (
	InsertCQL        = `INSERT INTO bench.t (k, c, v) VALUES (?, ?, ?)`
	SelectCQL        = `SELECT c, v FROM bench.t WHERE k = ? LIMIT ?`
	SelectReverseCQL = `SELECT c, v FROM bench.t WHERE k = ? ORDER BY c DESC LIMIT ?`
	maxCQLLimit      = math.MaxInt32
)

// OpenCQLStore opens a CQLStore on a new database.
func OpenCQLStore(opts StoreOptions) (*CQLStore, error) {
	d, err := openDB(opts)
	if err != nil {
		return nil, err
	}
	s := &CQLStore{dbStore: d}
	ctx := context.Background()
	for _, p := range []struct {
		st **minicass.Stmt
		q  string
	}{{&s.insert, InsertCQL}, {&s.sel, SelectCQL}, {&s.selRev, SelectReverseCQL}} {
		if *p.st, err = d.db.Prepare(ctx, p.q); err != nil {
			d.close()
			return nil, err
		}
	}
	return s, nil
}

// Name returns "cql".
func (s *CQLStore) Name() string { return StoreCQL }

// Write executes the prepared INSERT.
func (s *CQLStore) Write(ctx context.Context, k, c int64, v []byte) error {
	return s.insert.Exec(ctx, k, c, v)
}

// Read executes the prepared SELECT (ORDER BY c DESC when reverse) and
// scans every row.
func (s *CQLStore) Read(ctx context.Context, k int64, limit int, reverse bool) (int, error) {
	st := s.sel
	if reverse {
		st = s.selRev
	}
	if limit <= 0 {
		limit = maxCQLLimit
	}
	rows := st.Query(ctx, k, int32(min(limit, maxCQLLimit)))
	var (
		c int64
		v []byte
		n int
	)
	for rows.Next() {
		if err := rows.Scan(&c, &v); err != nil {
			rows.Close()
			return n, err
		}
		n++
	}
	return n, rows.Close()
}

// Close closes the database.
func (s *CQLStore) Close() error { return s.close() }

// btreeItem is one row of the BTreeStore.
type btreeItem struct {
	k, c int64
	v    []byte
}

func btreeLess(a, b btreeItem) bool {
	if a.k != b.k {
		return a.k < b.k
	}
	return a.c < b.c
}

// BTreeStore is the peer: one ordered in-memory tree of (k, c) -> v behind a
// RWMutex, with no timestamps, no tombstones, no merge and no copies.
type BTreeStore struct {
	mu sync.RWMutex
	t  *btree.BTreeG[btreeItem]
}

// NewBTreeStore returns an empty BTreeStore.
func NewBTreeStore() *BTreeStore {
	return &BTreeStore{t: btree.NewG(32, btreeLess)}
}

// Name returns "btree".
func (s *BTreeStore) Name() string { return StoreBTree }

// Write inserts or replaces the row (k, c).
func (s *BTreeStore) Write(_ context.Context, k, c int64, v []byte) error {
	s.mu.Lock()
	s.t.ReplaceOrInsert(btreeItem{k: k, c: c, v: v})
	s.mu.Unlock()
	return nil
}

// Read walks the rows of partition k.
func (s *BTreeStore) Read(_ context.Context, k int64, limit int, reverse bool) (int, error) {
	n := 0
	visit := func(it btreeItem) bool {
		if it.k != k {
			return false
		}
		n++
		return limit <= 0 || n < limit
	}
	s.mu.RLock()
	if reverse {
		s.t.DescendLessOrEqual(btreeItem{k: k, c: math.MaxInt64}, visit)
	} else {
		s.t.AscendGreaterOrEqual(btreeItem{k: k, c: math.MinInt64}, visit)
	}
	s.mu.RUnlock()
	return n, nil
}

// Flush does nothing: the btree has no SSTables.
func (s *BTreeStore) Flush(context.Context) error { return nil }

// Close does nothing.
func (s *BTreeStore) Close() error { return nil }
