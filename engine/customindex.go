package engine

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/memtable"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Custom secondary indexes (CREATE CUSTOM INDEX ... USING 'class') name an
// implementation by class name, as Cassandra 4.1 loads a Java class that
// implements org.apache.cassandra.index.Index. minicass looks the name up in
// one registry: the engine's built-in classes (SASI, whose indexes keep no
// data and are served by a filtered scan) and the embedder's, given in
// Options.IndexClasses. A class whose indexes keep their own state in Go
// returns a CustomIndex for each index; the engine then calls that index's
// Indexer on the write path, where Cassandra's SecondaryIndexManager calls
// Index.Indexer: once per partition update applied to a memtable, with the
// memtable's rows before and after (the memtable's own, tombstones
// included; not a read of every source), under the partition's lock.
//
// The built-in secondary index is not an entry: its data lives in index
// tables kept by a Dependent of the CQL layer (package cql/index), which
// compares the live rows a read returns, not the memtable's.

// SASIIndexClass is the class name of Cassandra's SASI index, a built-in
// entry of the registry.
const SASIIndexClass = "org.apache.cassandra.index.sasi.SASIIndex"

// IndexClass is a custom index implementation, registered under its class
// name (Options.IndexClasses). It may also implement IndexOptionsValidator.
type IndexClass interface {
	// NewIndex returns the index ix of table t, built when the index
	// appears in the schema (CREATE INDEX, or the schema an engine opens
	// with) as Cassandra constructs the class with the table and the
	// index metadata. It returns nil for an index that needs no
	// callbacks (one served by a filtered scan, as SASI's).
	NewIndex(t *schema.Table, ix *schema.Index) CustomIndex
}

// IndexOptionsValidator is implemented by an IndexClass that checks the
// options of CREATE CUSTOM INDEX ... WITH OPTIONS, as a Java index class's
// static validateOptions(Map, TableMetadata). A class without it takes any
// options (4.1 logs "Validation ignored").
type IndexOptionsValidator interface {
	// ValidateOptions returns the names of the options the class does not
	// understand (refused with Cassandra's "Properties specified [...] are
	// not understood by ..."), or an error (a *query error of the CQL
	// layer, or any error, refused as a configuration error with its
	// text). options excludes class_name and target.
	ValidateOptions(t *schema.Table, options map[string]string) (unknown []string, err error)
}

// CustomIndex is one custom index of a table, as Cassandra's Index.
type CustomIndex interface {
	// Indexer returns the indexer of one partition update of the base
	// table (Index.indexerFor), or nil to skip the update. key is the
	// partition key, now the write's time in seconds.
	Indexer(key []byte, now int64) Indexer
}

// IndexDropper is implemented by a CustomIndex that wants to know when it
// leaves the schema (DROP INDEX, or its table or keyspace dropped), as
// Cassandra runs Index.getInvalidateTask.
type IndexDropper interface {
	// Dropped is called once, after the schema without the index is
	// published.
	Dropped()
}

// Indexer receives one partition update of the base table, as Cassandra's
// Index.Indexer: Begin, then PartitionDelete when the update deletes the
// partition, RangeTombstone for each of its range tombstones, InsertRow or
// UpdateRow for each row (the static row first) as the memtable merges it,
// and Finish. Rows are valid only during the call (data.Row.Clone keeps
// one). The calls run under the partition's lock and the table's store
// lock: an Indexer must not write to the engine.
type Indexer interface {
	Begin()
	PartitionDelete(d data.DeletionTime)
	RangeTombstone(rt data.RangeTombstone)
	// InsertRow is a row the memtable did not hold, as the update gives
	// it.
	InsertRow(row *data.Row)
	// UpdateRow is a row the memtable held. old carries the memtable's
	// liveness and deletion with the cells the update removes or
	// replaces, new the reconciled row's liveness and deletion with the
	// cells it adds or changes: cells the update leaves as they were are
	// in neither (SecondaryIndexManager.WriteTimeTransaction.onUpdated).
	UpdateRow(old, new *data.Row)
	// RemoveRow is part of Cassandra's interface for compaction and
	// cleanup, which minicass does not report: the engine never calls it.
	RemoveRow(row *data.Row)
	Finish()
}

// builtinIndexClasses are the registry's built-in entries.
var builtinIndexClasses = map[string]IndexClass{SASIIndexClass: scanServedClass{}}

// scanServedClass is a class whose indexes keep no data: queries they
// serve scan the table and filter (SASI in minicass).
type scanServedClass struct{}

// NewIndex returns nil: the index needs no callbacks.
func (scanServedClass) NewIndex(*schema.Table, *schema.Index) CustomIndex { return nil }

// IndexClass returns the custom index class registered as name: a built-in
// one or one of Options.IndexClasses.
func (e *Engine) IndexClass(name string) (IndexClass, bool) {
	if c, ok := builtinIndexClasses[name]; ok {
		return c, true
	}
	c, ok := e.opts.IndexClasses[name]
	return c, ok && c != nil
}

// CustomIndex returns the Go instance of the custom index named name of
// table t, or false if the index is not in the schema or its class made
// none.
func (e *Engine) CustomIndex(t *schema.Table, name string) (CustomIndex, bool) {
	s, err := e.storeFor(t)
	if err != nil {
		return nil, false
	}
	if cx := s.custom.Load(); cx != nil {
		for _, c := range cx.list {
			if c.def.Name == name {
				return c.idx, true
			}
		}
	}
	return nil, false
}

// IndexInitializer is implemented by a CustomIndex with work to do when
// it is created (Index.getInitializationTask): a build over existing data,
// say. The task runs in its own goroutine; until it returns nil the index
// serves no query (ErrIndexNotAvailable), and an error marks the build
// failed (see IndexFailureLoad).
type IndexInitializer interface {
	// InitializationTask returns the task, or nil for none (the index is
	// then queryable at once).
	InitializationTask() func() error
}

// IndexLoad is what an index whose build failed still serves
// (Index.LoadType).
type IndexLoad uint8

// The loads.
const (
	// IndexLoadAll serves reads and writes.
	IndexLoadAll IndexLoad = iota
	// IndexLoadRead serves reads only: writes are not forwarded.
	IndexLoadRead
	// IndexLoadWrite takes writes only: queries fail.
	IndexLoadWrite
	// IndexLoadNone serves neither.
	IndexLoadNone
)

func (l IndexLoad) reads() bool  { return l == IndexLoadAll || l == IndexLoadRead }
func (l IndexLoad) writes() bool { return l == IndexLoadAll || l == IndexLoadWrite }

// IndexFailureLoad is implemented by a CustomIndex that chooses what it
// serves after a failed build (Index.getSupportedLoadTypeOnFailure);
// without it, an initial build's failure leaves it IndexLoadWrite and a
// rebuild's IndexLoadAll, 4.1's default. A failed index is queryable
// again only after a rebuild succeeds.
type IndexFailureLoad interface {
	SupportedLoadOnFailure(initialBuild bool) IndexLoad
}

// IndexExpressionType is implemented by a CustomIndex that serves custom
// index expressions, WHERE expr(index, value) (4.1's
// Index.customExpressionValueType): the value has the type returned. Rows
// are not filtered by the expression (RowFilter.CustomExpression is
// satisfied by every row): a query with one returns the rows its other
// restrictions keep.
type IndexExpressionType interface {
	CustomExpressionValueType() types.Type
}

// CustomExpressionValueType returns the custom expression value type of
// the index named name of table t (IndexExpressionType), or false if its
// instance takes no expressions or it has none.
func (e *Engine) CustomExpressionValueType(t *schema.Table, name string) (types.Type, bool) {
	if c := e.customIndex(t, name); c != nil {
		if x, ok := c.idx.(IndexExpressionType); ok {
			return x.CustomExpressionValueType(), true
		}
	}
	return types.Type{}, false
}

// IndexOperator is the operator of a restriction a custom index may
// support (Cassandra's Operator, as Index.supportsExpression takes it).
type IndexOperator uint8

// The operators.
const (
	IndexEQ IndexOperator = iota
	IndexLT
	IndexLTE
	IndexGT
	IndexGTE
	IndexContains
	IndexContainsKey
)

// IndexExpressionSupporter is implemented by a CustomIndex that says which
// restrictions it serves (Index.supportsExpression): a query whose only
// filtered restriction it does not support needs ALLOW FILTERING. Without
// it, a custom index serves '=' and slices on its column, as SASI does.
type IndexExpressionSupporter interface {
	SupportsExpression(column string, op IndexOperator) bool
}

// CustomIndexSupports reports whether the index named name of table t
// supports a restriction of column by op; known is false when the index
// has no Go instance or its instance does not say
// (IndexExpressionSupporter).
func (e *Engine) CustomIndexSupports(t *schema.Table, name, column string, op IndexOperator) (supported, known bool) {
	if c := e.customIndex(t, name); c != nil {
		if x, ok := c.idx.(IndexExpressionSupporter); ok {
			return x.SupportsExpression(column, op), true
		}
	}
	return false, false
}

// IndexFlusher is implemented by a CustomIndex that keeps data of its own
// to flush with its table (Index.getBlockingFlushTask, which
// SecondaryIndexManager runs for every index not backed by a table when the
// table's memtables are flushed): Flush is called once per flush of the
// table that has memtables to write, before they are written. An error is
// logged; the table's flush goes on.
type IndexFlusher interface {
	Flush() error
}

// IndexTruncater is implemented by a CustomIndex told of TRUNCATE
// (Index.getTruncateTask): Truncated is called once the table's data is
// gone, with the truncation time in milliseconds.
type IndexTruncater interface {
	Truncated(truncatedAt int64)
}

// flushCustomIndexes runs the IndexFlusher of s's indexes.
func (e *Engine) flushCustomIndexes(s *tableStore) {
	cx := s.custom.Load()
	if cx == nil {
		return
	}
	for _, c := range cx.list {
		if f, ok := c.idx.(IndexFlusher); ok {
			if err := f.Flush(); err != nil {
				e.opts.Logger.Error("custom index flush failed", "table", s.name, "index", c.def.Name, "err", err)
			}
		}
	}
}

// truncateCustomIndexes runs the IndexTruncater of s's indexes.
func (e *Engine) truncateCustomIndexes(s *tableStore) {
	cx := s.custom.Load()
	if cx == nil {
		return
	}
	at := e.opts.Clock.Now().UnixMilli()
	for _, c := range cx.list {
		if x, ok := c.idx.(IndexTruncater); ok {
			x.Truncated(at)
		}
	}
}

// IndexBlockingBuilder is implemented by a CustomIndex that says whether
// RebuildCustomIndexes rebuilds it (Index.shouldBuildBlocking); without it
// an index is rebuilt.
type IndexBlockingBuilder interface {
	ShouldBuildBlocking() bool
}

// customIndex is one live instance and its state, as
// SecondaryIndexManager keeps it: writable (its indexers are called),
// queryable (queries it serves run), and its builds in progress.
type customIndex struct {
	def       schema.Index
	idx       CustomIndex
	writable  atomic.Bool
	queryable atomic.Bool
	building  atomic.Int32
}

// newCustomIndex registers a new instance, writable, and starts its
// initial build (SecondaryIndexManager.createIndex and buildIndex).
func newCustomIndex(def schema.Index, idx CustomIndex) *customIndex {
	c := &customIndex{def: def, idx: idx}
	c.writable.Store(true)
	var task func() error
	if in, ok := idx.(IndexInitializer); ok {
		task = in.InitializationTask()
	}
	if task == nil {
		c.queryable.Store(true)
		return c
	}
	c.building.Add(1)
	go func() {
		defer c.building.Add(-1)
		if err := task(); err != nil {
			c.failed(true)
			return
		}
		c.queryable.Store(true)
	}()
	return c
}

// failed is markIndexFailed: the index keeps only the load its class
// supports on failure.
func (c *customIndex) failed(initial bool) {
	load := IndexLoadAll
	if initial {
		load = IndexLoadWrite
	}
	if f, ok := c.idx.(IndexFailureLoad); ok {
		load = f.SupportedLoadOnFailure(initial)
	}
	if !load.writes() {
		c.writable.Store(false)
	}
	if !load.reads() {
		c.queryable.Store(false)
	}
}

// CustomIndexQueryable reports whether queries may use the index named
// name of table t: false while its build runs or after it failed
// (SecondaryIndexManager.isIndexQueryable); true for an index without a
// Go instance (built-in, SASI), which has no build.
func (e *Engine) CustomIndexQueryable(t *schema.Table, name string) bool {
	if c := e.customIndex(t, name); c != nil {
		return c.queryable.Load()
	}
	return true
}

// CustomIndexBuilding reports whether a build of the index named name of
// table t is in progress (SecondaryIndexManager.isIndexBuilding).
func (e *Engine) CustomIndexBuilding(t *schema.Table, name string) bool {
	if c := e.customIndex(t, name); c != nil {
		return c.building.Load() > 0
	}
	return false
}

// customIndex returns the instance named name of t, or nil.
func (e *Engine) customIndex(t *schema.Table, name string) *customIndex {
	s, err := e.storeFor(t)
	if err != nil {
		return nil
	}
	if cx := s.custom.Load(); cx != nil {
		for _, c := range cx.list {
			if c.def.Name == name {
				return c
			}
		}
	}
	return nil
}

// RebuildCustomIndexes rebuilds the named custom indexes of table t from
// its SSTables, blocking, as SecondaryIndexManager.rebuildIndexesBlocking:
// the indexes whose class builds blocking (IndexBlockingBuilder) become
// writable (the table is flushed first if one was not, so no write escapes
// both the rebuild and the indexer) and unqueryable; then every partition
// of the SSTables is read whole (memtables included) and given to each
// index's Indexer (Begin, InsertRow of the static row, PartitionDelete of
// the partition deletion, InsertRow of each row, RangeTombstone of each
// range tombstone, Finish); then they are queryable again. Names without
// a Go instance are ignored.
func (e *Engine) RebuildCustomIndexes(ctx context.Context, t *schema.Table, names ...string) error {
	s, err := e.storeFor(t)
	if err != nil {
		return err
	}
	var todo []*customIndex
	if cx := s.custom.Load(); cx != nil {
		for _, c := range cx.list {
			if !slices.Contains(names, c.def.Name) {
				continue
			}
			if b, ok := c.idx.(IndexBlockingBuilder); ok && !b.ShouldBuildBlocking() {
				continue
			}
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	needsFlush := false
	for _, c := range todo {
		if !c.writable.Swap(true) {
			needsFlush = true
		}
	}
	if needsFlush {
		if err := e.Flush(ctx, t.Keyspace, t.Name); err != nil {
			return err
		}
	}
	for _, c := range todo {
		c.building.Add(1)
		c.queryable.Store(false)
	}
	err = e.buildCustomIndexes(ctx, t, s, todo)
	for _, c := range todo {
		if err != nil {
			c.failed(false)
		} else {
			c.queryable.Store(true)
		}
		c.building.Add(-1)
	}
	return err
}

// buildCustomIndexes gives every partition of s's SSTables to the
// indexers of cs (SecondaryIndexManager.indexPartition).
func (e *Engine) buildCustomIndexes(ctx context.Context, t *schema.Table, s *tableStore, cs []*customIndex) error {
	s.mu.RLock()
	ssts := slices.Clone(s.ssts)
	for _, sst := range ssts {
		sst.acquire()
	}
	s.mu.RUnlock()
	defer func() {
		for _, sst := range ssts {
			sst.release()
		}
	}()
	type pkey struct {
		token int64
		key   []byte
	}
	var keys []pkey
	seen := map[string]bool{}
	for _, sst := range ssts {
		it, err := sst.Partitions(ctx, data.FullRing)
		if err != nil {
			return err
		}
		for {
			p, ok := it.Next()
			if !ok {
				break
			}
			if k := string(p.Key()); !seen[k] {
				seen[k] = true
				keys = append(keys, pkey{p.Token(), bytes.Clone(p.Key())})
			}
		}
		err = errors.Join(it.Err(), it.Close())
		if err != nil {
			return err
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return data.ComparePartitions(keys[i].token, keys[i].key, keys[j].token, keys[j].key) < 0
	})
	now := e.Now()
	for _, k := range keys {
		ex, static, err := e.readRawStatic(ctx, t, s, k.key, nil, now)
		if err != nil {
			return err
		}
		var ixs []Indexer
		for _, c := range cs {
			if ixr := c.idx.Indexer(k.key, now); ixr != nil {
				ixs = append(ixs, ixr)
			}
		}
		if len(ex.Rows) == 0 && static == nil && ex.Deletion.IsLive() && len(ex.RangeTombstones) == 0 {
			continue
		}
		rows := ex.Rows
		for _, ixr := range ixs {
			ixr.Begin()
		}
		if static != nil && !static.IsEmpty() {
			for _, ixr := range ixs {
				ixr.InsertRow(static)
			}
		}
		for _, ixr := range ixs {
			ixr.PartitionDelete(ex.Deletion)
		}
		for i := range rows {
			for _, ixr := range ixs {
				ixr.InsertRow(&rows[i])
			}
		}
		for i := range ex.RangeTombstones {
			for _, ixr := range ixs {
				ixr.RangeTombstone(ex.RangeTombstones[i])
			}
		}
		for _, ixr := range ixs {
			ixr.Finish()
		}
	}
	return nil
}

// customIndexes are the instances of a table store's custom indexes; the
// store holds nil while it has none.
type customIndexes struct {
	list []*customIndex
}

// syncCustomIndexes makes every store's custom index instances those of
// its table's definition: a new index gets a new instance, a dropped one
// is told (IndexDropper), and an index whose class and options are
// unchanged keeps its instance. It runs after each schema publish.
func (e *Engine) syncCustomIndexes() {
	if len(e.opts.IndexClasses) == 0 {
		return // no class of the registry makes instances
	}
	e.customMu.Lock()
	defer e.customMu.Unlock()
	st := e.state.Load()
	for _, s := range st.stores {
		e.syncStoreIndexes(s)
	}
}

// syncStoreIndexes is syncCustomIndexes for one store.
func (e *Engine) syncStoreIndexes(s *tableStore) {
	t := s.table.Load()
	cur := s.custom.Load()
	var prev []*customIndex
	if cur != nil {
		prev = cur.list
	}
	var next []*customIndex
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if ix.Class == "" {
			continue
		}
		j := slices.IndexFunc(prev, func(c *customIndex) bool { return c.def.Name == ix.Name })
		if j >= 0 && sameIndex(&prev[j].def, ix) {
			next = append(next, prev[j])
			prev = slices.Delete(slices.Clone(prev), j, j+1)
			continue
		}
		class, ok := e.IndexClass(ix.Class)
		if !ok {
			continue
		}
		if idx := class.NewIndex(t, ix); idx != nil {
			next = append(next, newCustomIndex(cloneIndex(ix), idx))
		}
	}
	if len(next) == 0 {
		s.custom.Store(nil)
	} else {
		s.custom.Store(&customIndexes{list: next})
	}
	for _, c := range prev {
		if d, ok := c.idx.(IndexDropper); ok {
			d.Dropped()
		}
	}
}

// dropStoreIndexes tells the instances of a dropped table's indexes.
func dropStoreIndexes(s *tableStore) {
	cx := s.custom.Swap(nil)
	if cx == nil {
		return
	}
	for _, c := range cx.list {
		if d, ok := c.idx.(IndexDropper); ok {
			d.Dropped()
		}
	}
}

func sameIndex(a, b *schema.Index) bool {
	if a.Column != b.Column || a.Target != b.Target || a.Class != b.Class || len(a.Options) != len(b.Options) {
		return false
	}
	for k, v := range a.Options {
		if w, ok := b.Options[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func cloneIndex(ix *schema.Index) schema.Index {
	c := *ix
	if ix.Options != nil {
		c.Options = make(map[string]string, len(ix.Options))
		for k, v := range ix.Options {
			c.Options[k] = v
		}
	}
	return c
}

// applyIndexed applies m to memtable mt, telling the indexers of cx's
// indexes, and returns the memtable's growth (memtable.Apply's).
func applyIndexed(mt *memtable.Memtable, token int64, m *data.Mutation, cx *customIndexes, now int64) int {
	var arr [4]Indexer
	ixs := arr[:0]
	for _, c := range cx.list {
		if !c.writable.Load() {
			continue
		}
		if ixr := c.idx.Indexer(m.Key, now); ixr != nil {
			ixs = append(ixs, ixr)
		}
	}
	if len(ixs) == 0 {
		return mt.Apply(token, m)
	}
	for _, ixr := range ixs {
		ixr.Begin()
	}
	if !m.PartitionDeletion.IsLive() {
		for _, ixr := range ixs {
			ixr.PartitionDelete(m.PartitionDeletion)
		}
	}
	for i := range m.RangeTombstones {
		for _, ixr := range ixs {
			ixr.RangeTombstone(m.RangeTombstones[i])
		}
	}
	n := mt.ApplyObserved(token, m, indexObserver(ixs))
	for _, ixr := range ixs {
		ixr.Finish()
	}
	return n
}

// indexObserver forwards the memtable's row merges to indexers.
type indexObserver []Indexer

// RowInserted calls InsertRow.
func (o indexObserver) RowInserted(row *data.Row) {
	for _, ixr := range o {
		ixr.InsertRow(row)
	}
}

// RowUpdated calls UpdateRow with the difference of the two rows.
func (o indexObserver) RowUpdated(existing, merged *data.Row) {
	old, new := rowDelta(existing, merged)
	for _, ixr := range o {
		ixr.UpdateRow(&old, &new)
	}
}

// rowDelta is WriteTimeTransaction.onUpdated's diff of a memtable row and
// its reconciliation: old holds the existing row's liveness and deletion
// and the cells that go or change (a cell is cleaned up when its value or
// timestamp differs, not when only its expiry does), new the merged row's
// liveness and deletion and the cells that are new or differ.
func rowDelta(existing, merged *data.Row) (old, new data.Row) {
	old = data.Row{Clustering: existing.Clustering, Liveness: existing.Liveness, Deletion: existing.Deletion}
	new = data.Row{Clustering: merged.Clustering, Liveness: merged.Liveness, Deletion: merged.Deletion}
	i, j := 0, 0
	for i < len(merged.Cells) || j < len(existing.Cells) {
		switch {
		case j >= len(existing.Cells):
			new.Cells = append(new.Cells, merged.Cells[i])
			i++
		case i >= len(merged.Cells):
			old.Cells = append(old.Cells, existing.Cells[j])
			j++
		default:
			m, o := &merged.Cells[i], &existing.Cells[j]
			switch c := data.CompareID(m, o); {
			case c < 0:
				new.Cells = append(new.Cells, *m)
				i++
			case c > 0:
				old.Cells = append(old.Cells, *o)
				j++
			default:
				if !sameCell(m, o) {
					new.Cells = append(new.Cells, *m)
				}
				if !bytes.Equal(m.Value, o.Value) || m.Timestamp != o.Timestamp {
					old.Cells = append(old.Cells, *o)
				}
				i++
				j++
			}
		}
	}
	return old, new
}

// sameCell reports whether two cells of one column and path are equal
// (Cassandra's Cell.equals).
func sameCell(a, b *data.Cell) bool {
	return a.Kind == b.Kind && a.Timestamp == b.Timestamp && a.TTL == b.TTL &&
		a.LocalDeletionTime == b.LocalDeletionTime && bytes.Equal(a.Value, b.Value)
}
