package engine

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// The schema registry. All schema state lives in one immutable schemaState
// value behind an atomic pointer: lookups load the pointer and never lock,
// and a change (serialized by schemaMu) builds a new state, copying only the
// maps it touches, and swaps the pointer. A reader or writer that loaded the
// old state keeps a consistent view; a write to a table dropped meanwhile
// lands in a store nobody reads any more, as in Cassandra.

// schemaState is one immutable version of the schema.
type schemaState struct {
	keyspaces map[string]*keyspaceState
	// stores holds the data of every table, by table ID. A store survives
	// AlterTable (same ID) and is discarded by DropTable.
	stores  map[data.TableID]*tableStore
	version types.UUIDValue
	// sum is the XOR of the digests of every keyspace definition and every
	// table definition (keyspaceDigest, tableDigest): an order-independent
	// digest of the schema that a change updates with the digests of what it
	// replaced and what replaced it (schemaDelta), so a schema change costs
	// the same however many tables the schema holds.
	sum [md5.Size]byte
	// allDurable caches whether every keyspace of the state has
	// durable_writes (computed on first use by allDurableWrites, as the
	// keyspaces never change once the state is published), so that a write
	// finds its keyspace's setting without a lookup by name in the common
	// case.
	allDurableOnce sync.Once
	allDurable     bool
	// hot caches stores by table ID for storeFor, which every write and
	// read calls: a slot (storeSlot of the ID) holds the last store found
	// there, checked against the ID before use, so that a write to a hot
	// table loads one word instead of hashing its 16-byte ID into stores
	// (a map access was some 3% of a narrow write's CPU). The cache lives
	// in the state, so it can never return a store that the current state
	// no longer holds: a schema change publishes a new state, with an empty
	// cache.
	hot [storeSlots]atomic.Pointer[tableStore]
}

// storeSlots is the number of slots of schemaState.hot.
const (
	storeSlotBits = 4
	storeSlots    = 1 << storeSlotBits
)

// storeSlot returns the slot of schemaState.hot for table id: a few bits
// of both of its halves mixed (the IDs of a node's tables may share either
// half).
func storeSlot(id data.TableID) int {
	h := binary.LittleEndian.Uint64(id[:8]) ^ binary.LittleEndian.Uint64(id[8:])
	return int((h * 0x9E3779B97F4A7C15) >> (64 - storeSlotBits))
}

// allDurableWrites reports whether every keyspace of s has durable_writes.
// It may be called only once s is published (its keyspaces fixed).
func (s *schemaState) allDurableWrites() bool {
	s.allDurableOnce.Do(func() {
		s.allDurable = true
		for _, ks := range s.keyspaces {
			if !ks.def.DurableWrites {
				s.allDurable = false
				break
			}
		}
	})
	return s.allDurable
}

// keyspaceState is a keyspace and its tables, immutable once published.
type keyspaceState struct {
	def    *schema.Keyspace
	tables map[string]*schema.Table
	// views indexes the materialized views of tables by base table ID,
	// built on first use (viewsOf).
	viewsOnce sync.Once
	views     map[data.TableID][]*schema.Table
	// sorted holds tables sorted by name, built on first use (byName).
	sortedOnce sync.Once
	sorted     []*schema.Table
}

// byName returns the keyspace's tables sorted by name. The slice is shared:
// callers must not modify it.
func (ks *keyspaceState) byName() []*schema.Table {
	ks.sortedOnce.Do(func() {
		ks.sorted = make([]*schema.Table, 0, len(ks.tables))
		for _, name := range slices.Sorted(maps.Keys(ks.tables)) {
			ks.sorted = append(ks.sorted, ks.tables[name])
		}
	})
	return ks.sorted
}

func emptySchemaState() *schemaState {
	s := &schemaState{keyspaces: map[string]*keyspaceState{}, stores: map[data.TableID]*tableStore{}}
	s.setVersion(s.fullSum())
	return s
}

// clone returns a shallow copy of s whose top-level maps may be modified.
func (s *schemaState) clone() *schemaState {
	return &schemaState{keyspaces: maps.Clone(s.keyspaces), stores: maps.Clone(s.stores), sum: s.sum}
}

// setVersion sets the schema's sum and its version: a name-based (version 3)
// UUID of the MD5 of the sum, as Cassandra derives its schema version from a
// digest of the schema tables, so equal schemas have equal versions however
// they were reached.
func (s *schemaState) setVersion(sum [md5.Size]byte) {
	s.sum = sum
	s.version = versionOf(sum)
}

// versionOf is the schema version of a schema whose sum is sum.
func versionOf(sum [md5.Size]byte) types.UUIDValue {
	u := types.UUIDValue(md5.Sum(sum[:]))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return u
}

// fullSum computes the sum of s from every definition it holds.
func (s *schemaState) fullSum() [md5.Size]byte {
	var sum [md5.Size]byte
	for _, ks := range s.keyspaces {
		xorInto(&sum, keyspaceDigest(ks.def))
		for _, t := range ks.tables {
			xorInto(&sum, tableDigest(t))
		}
	}
	return sum
}

// schemaDelta is what one schema change replaces: pairs of old and new
// definitions, nil where there is none (a creation or a drop). A change
// applies it to the sum of the schema it starts from, so its cost depends
// on what it changes, not on the size of the schema.
type schemaDelta struct {
	keyspaces [][2]*schema.Keyspace
	tables    [][2]*schema.Table
}

// sumAfter returns sum updated for the change: the digests of the old
// definitions taken out, those of the new ones put in.
func (d schemaDelta) sumAfter(sum [md5.Size]byte) [md5.Size]byte {
	for _, p := range d.keyspaces {
		for _, ks := range p {
			if ks != nil {
				xorInto(&sum, keyspaceDigest(ks))
			}
		}
	}
	for _, p := range d.tables {
		for _, t := range p {
			if t != nil {
				xorInto(&sum, tableDigest(t))
			}
		}
	}
	return sum
}

func xorInto(sum *[md5.Size]byte, d [md5.Size]byte) {
	for i := range sum {
		sum[i] ^= d[i]
	}
}

// digestMemo memoizes a digest per definition for the life of the
// definition (a published *schema.Keyspace or *schema.Table is immutable):
// the system keyspaces and tables, which every engine of the process
// shares, are digested once, and an entry goes when its definition is
// collected.
type digestMemo[T any] struct {
	m sync.Map // weak.Pointer[T] -> [md5.Size]byte
}

// get returns the memoized digest of def, computing it on first use.
func (dm *digestMemo[T]) get(def *T, compute func(*T) [md5.Size]byte) [md5.Size]byte {
	k := weak.Make(def)
	if d, ok := dm.m.Load(k); ok {
		return d.([md5.Size]byte)
	}
	d := compute(def)
	if _, loaded := dm.m.LoadOrStore(k, d); !loaded {
		runtime.AddCleanup(def, func(k weak.Pointer[T]) { dm.m.Delete(k) }, k)
	}
	return d
}

var keyspaceDigests, tableDigests = &digestMemo[schema.Keyspace]{}, &digestMemo[schema.Table]{}

// keyspaceDigest is the MD5 of a canonical description of a keyspace's own
// definition: name, replication, durable writes and user types.
func keyspaceDigest(ks *schema.Keyspace) [md5.Size]byte {
	return keyspaceDigests.get(ks, computeKeyspaceDigest)
}

func computeKeyspaceDigest(ks *schema.Keyspace) [md5.Size]byte {
	h := md5.New()
	fmt.Fprintf(h, "keyspace %q %v %v\n", ks.Name, ks.Replication, ks.DurableWrites)
	for _, t := range ks.Types {
		fmt.Fprintf(h, "type %q %q %s\n", t.UDT.Name, t.UDT.Fields, t.Params)
	}
	for _, f := range ks.Functions {
		fmt.Fprintf(h, "function %q %q %s %s %v %q %q\n", f.Name, f.ArgNames, f.ArgTypes, f.Return, f.CalledOnNullInput, f.Language, f.Body)
	}
	for _, a := range ks.Aggregates {
		fmt.Fprintf(h, "aggregate %q %s %q %s %q %x %s\n", a.Name, a.ArgTypes, a.StateFunc, a.StateType, a.FinalFunc, a.InitCond, a.Return)
	}
	var d [md5.Size]byte
	copy(d[:], h.Sum(nil))
	return d
}

// tableDigest is the MD5 of a canonical description of one table.
func tableDigest(t *schema.Table) [md5.Size]byte {
	return tableDigests.get(t, computeTableDigest)
}

func computeTableDigest(t *schema.Table) [md5.Size]byte {
	h := md5.New()
	fmt.Fprintf(h, "table %q %q %x %+v\n", t.Keyspace, t.Name, t.ID, t.Options)
	for _, c := range t.Columns {
		fmt.Fprintf(h, "column %q %s %s %d %v\n", c.Name, c.Type, c.Kind, c.Position, c.Desc)
	}
	for _, ix := range t.Indexes {
		fmt.Fprintf(h, "index %q %q %d %q %v\n", ix.Name, ix.Column, ix.Target, ix.Class, ix.Options)
	}
	for _, name := range slices.Sorted(maps.Keys(t.Dropped)) {
		fmt.Fprintf(h, "dropped %q %d\n", name, t.Dropped[name].DroppedAt)
	}
	for _, tr := range t.Triggers {
		fmt.Fprintf(h, "trigger %q %q\n", tr.Name, tr.Class)
	}
	if v := t.View; v != nil {
		fmt.Fprintf(h, "view %x %q %v %q %q %+v\n", v.BaseID, v.BaseName, v.IncludeAllColumns, v.WhereClause, v.BaseColumnInKey, v.Filter)
	}
	var d [md5.Size]byte
	copy(d[:], h.Sum(nil))
	return d
}

// SchemaChange describes one schema change for listeners. Table is empty
// for keyspace changes. Truncate is not a schema change and is not
// reported.
type SchemaChange struct {
	// Kind is wire.Created, wire.Updated or wire.Dropped.
	Kind wire.ChangeType
	// Target is wire.TargetKeyspace or wire.TargetTable.
	Target   wire.ChangeTarget
	Keyspace string
	Table    string
	// Version is the schema version after the change.
	Version types.UUIDValue
}

// Subscribe registers fn to be called after every schema change, in the
// order of the changes, once the change is visible to lookups. fn runs on
// the goroutine that made the change while the schema is locked: it must
// return quickly and must not change the schema (lookups are fine). The
// returned function removes the listener.
func (e *Engine) Subscribe(fn func(SchemaChange)) (cancel func()) {
	e.schemaMu.Lock()
	id := e.nextLis
	e.nextLis++
	e.listeners[id] = fn
	e.schemaMu.Unlock()
	return func() {
		e.schemaMu.Lock()
		delete(e.listeners, id)
		e.schemaMu.Unlock()
	}
}

// publish installs next as the current state (computing its version) and
// notifies listeners. The caller holds schemaMu.
func (e *Engine) publish(next *schemaState, ch SchemaChange, delta schemaDelta) {
	next.setVersion(delta.sumAfter(e.state.Load().sum))
	e.state.Store(next)
	e.syncViewDependents()
	e.syncCustomIndexes()
	ch.Version = next.version
	e.notify(ch)
}

// notify logs each of changes and calls the listeners with it, in order
// of registration. The caller holds schemaMu.
func (e *Engine) notify(changes ...SchemaChange) {
	debug := e.opts.Logger.Enabled(context.Background(), slog.LevelDebug)
	var ids []int
	if len(e.listeners) > 0 {
		ids = slices.Sorted(maps.Keys(e.listeners))
	}
	for _, ch := range changes {
		if debug {
			e.opts.Logger.Debug("schema change", "kind", ch.Kind, "target", ch.Target, "keyspace", ch.Keyspace, "table", ch.Table)
		}
		for _, id := range ids {
			e.listeners[id](ch)
		}
	}
}

// SchemaVersion returns the current schema version (system.local
// schema_version): a UUID that changes whenever the schema does.
func (e *Engine) SchemaVersion() types.UUIDValue { return e.state.Load().version }

// Keyspace returns the keyspace named name.
func (e *Engine) Keyspace(name string) (*schema.Keyspace, bool) {
	ks, ok := e.state.Load().keyspaces[name]
	if !ok {
		return nil, false
	}
	return ks.def, true
}

// Keyspaces returns every keyspace, sorted by name.
func (e *Engine) Keyspaces() []*schema.Keyspace {
	st := e.state.Load()
	out := make([]*schema.Keyspace, 0, len(st.keyspaces))
	for _, name := range slices.Sorted(maps.Keys(st.keyspaces)) {
		out = append(out, st.keyspaces[name].def)
	}
	return out
}

// Table returns the table keyspace.name.
func (e *Engine) Table(keyspace, name string) (*schema.Table, bool) {
	ks, ok := e.state.Load().keyspaces[keyspace]
	if !ok {
		return nil, false
	}
	t, ok := ks.tables[name]
	return t, ok
}

// Tables returns the tables of keyspace sorted by name, or nil if it does
// not exist. Index tables (schema.Table.IsIndexTable) are left out, as
// Cassandra's schema tables leave them out; Table finds them by name and
// IndexTables lists them.
func (e *Engine) Tables(keyspace string) []*schema.Table {
	return e.tables(keyspace, false)
}

// IndexTables returns the index tables of keyspace sorted by name.
func (e *Engine) IndexTables(keyspace string) []*schema.Table {
	return e.tables(keyspace, true)
}

func (e *Engine) tables(keyspace string, index bool) []*schema.Table {
	ks, ok := e.state.Load().keyspaces[keyspace]
	if !ok {
		return nil
	}
	all := ks.byName()
	n := 0
	for _, t := range all {
		if t.IsIndexTable() == index {
			n++
		}
	}
	out := make([]*schema.Table, 0, n)
	for _, t := range all {
		if t.IsIndexTable() == index {
			out = append(out, t)
		}
	}
	return out
}

// CreateKeyspace registers a new keyspace. It returns ErrKeyspaceExists if
// one of that name exists.
func (e *Engine) CreateKeyspace(ks *schema.Keyspace) error {
	if ks == nil || ks.Name == "" {
		return fmt.Errorf("%w: keyspace without a name", ErrInvalidSchema)
	}
	if err := e.checkOpen(); err != nil {
		return err
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	cur := e.state.Load()
	if _, ok := cur.keyspaces[ks.Name]; ok {
		return fmt.Errorf("%w: %s", ErrKeyspaceExists, ks.Name)
	}
	next := cur.clone()
	next.keyspaces[ks.Name] = &keyspaceState{def: ks, tables: map[string]*schema.Table{}}
	if err := e.persistSchema(next); err != nil {
		return err
	}
	e.publish(next, SchemaChange{Kind: wire.Created, Target: wire.TargetKeyspace, Keyspace: ks.Name},
		schemaDelta{keyspaces: [][2]*schema.Keyspace{{nil, ks}}})
	return nil
}

// AlterKeyspace replaces the definition of an existing keyspace (matched by
// name: its options, or its user-defined types for CREATE, ALTER and DROP
// TYPE) and of the given tables of it (same IDs: the tables whose columns
// use a changed type) in one schema change. It returns ErrNoKeyspace,
// ErrNoTable or ErrTableIDMismatch.
func (e *Engine) AlterKeyspace(ks *schema.Keyspace, tables ...*schema.Table) error {
	if ks == nil || ks.Name == "" {
		return fmt.Errorf("%w: keyspace without a name", ErrInvalidSchema)
	}
	return e.replace(ks.Name, ks, tables, SchemaChange{Kind: wire.Updated, Target: wire.TargetKeyspace, Keyspace: ks.Name})
}

// replace installs, in one schema change announced as ch, a new definition
// of keyspace name (def, or the current one if def is nil) and of the given
// tables of it, which must exist with the same IDs.
func (e *Engine) replace(name string, def *schema.Keyspace, tables []*schema.Table, ch SchemaChange) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	cur := e.state.Load()
	old, ok := cur.keyspaces[name]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, name)
	}
	if def == nil {
		def = old.def
	}
	var delta schemaDelta
	if def != old.def {
		delta.keyspaces = [][2]*schema.Keyspace{{old.def, def}}
	}
	tbls := old.tables
	if len(tables) > 0 {
		tbls = maps.Clone(old.tables)
		for _, t := range tables {
			o, ok := tbls[t.Name]
			if !ok || t.Keyspace != name {
				return fmt.Errorf("%w: %s", ErrNoTable, t.QualifiedName())
			}
			if o.ID != t.ID {
				return fmt.Errorf("%w: %s", ErrTableIDMismatch, t.QualifiedName())
			}
			delta.tables = append(delta.tables, [2]*schema.Table{o, t})
			tbls[t.Name] = t
		}
	}
	next := cur.clone()
	next.keyspaces[name] = &keyspaceState{def: def, tables: tbls}
	if err := e.persistSchema(next); err != nil {
		return err
	}
	var altered []*tableStore
	for _, t := range tables {
		if s, ok := cur.stores[t.ID]; ok {
			s.table.Store(t)
			altered = append(altered, s)
		}
	}
	for tn, it := range tbls {
		// The flush of a table takes its index tables with it
		// (ColumnFamilyStore.concatWithIndexes).
		for _, t := range tables {
			if tn != t.Name && schema.OwnsTable(t.Name, tn) {
				if s, ok := cur.stores[it.ID]; ok {
					altered = append(altered, s)
				}
			}
		}
	}
	e.publish(next, ch, delta)
	// A table whose definition changed switches out its memtable, which
	// is flushed, as Cassandra 4.1's ColumnFamilyStore.reload does:
	// AbstractAllocatorMemtable.shouldSwitch(SCHEMA_CHANGE) compares its
	// initial ClusteringComparator by identity with the new
	// TableMetadata's, which every definition builds anew. A write after
	// the change lands in a new memtable (custom indexes see it as a new
	// row); the flush here is synchronous where Cassandra's runs in the
	// background. The change is made: a failed flush is logged (the data
	// stays in its frozen memtable, and the next flush retries it).
	for _, s := range altered {
		if s.switchMemtable(1, e.logTail) {
			if err := e.flushStore(s); err != nil {
				e.opts.Logger.Error("flush after a schema change failed", "table", s.name, "err", err)
			}
		}
	}
	return nil
}

// DropKeyspace removes a keyspace, its tables and their data. It returns
// ErrNoKeyspace if there is none. Listeners get one keyspace event.
func (e *Engine) DropKeyspace(name string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	cur := e.state.Load()
	old, ok := cur.keyspaces[name]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, name)
	}
	for _, t := range old.byName() {
		if err := e.autoSnapshot(cur.stores[t.ID], SnapshotDropPrefix); err != nil {
			return err
		}
	}
	next := cur.clone()
	delete(next.keyspaces, name)
	saved := e.marks.clone()
	delta := schemaDelta{keyspaces: [][2]*schema.Keyspace{{old.def, nil}}}
	for _, t := range old.tables {
		delete(next.stores, t.ID)
		e.marks.forget(t.ID)
		delta.tables = append(delta.tables, [2]*schema.Table{t, nil})
	}
	if err := e.persistSchema(next); err != nil {
		e.marks = saved
		return err
	}
	e.publish(next, SchemaChange{Kind: wire.Dropped, Target: wire.TargetKeyspace, Keyspace: name}, delta)
	var errs []error
	for _, t := range old.tables {
		e.forgetDependents(t.ID)
		errs = append(errs, e.dropStore(cur.stores[t.ID]))
	}
	errs = append(errs, e.removeKeyspaceDir(e.fs.PathJoin(e.dataDir, name)))
	return errors.Join(errs...)
}

func validTable(t *schema.Table) error {
	if t == nil || t.Name == "" || t.Keyspace == "" {
		return fmt.Errorf("%w: table without a name", ErrInvalidSchema)
	}
	if len(t.PartitionKey()) == 0 {
		return fmt.Errorf("%w: table %s has no partition key", ErrInvalidSchema, t.QualifiedName())
	}
	return nil
}

// CreateTable registers a new table in its keyspace, with empty data. It
// returns ErrNoKeyspace or ErrTableExists.
func (e *Engine) CreateTable(t *schema.Table) error {
	if err := validTable(t); err != nil {
		return err
	}
	if err := e.checkOpen(); err != nil {
		return err
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	cur := e.state.Load()
	ks, ok := cur.keyspaces[t.Keyspace]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, t.Keyspace)
	}
	if _, ok := ks.tables[t.Name]; ok {
		return fmt.Errorf("%w: %s", ErrTableExists, t.QualifiedName())
	}
	if _, ok := cur.stores[t.ID]; ok {
		return fmt.Errorf("%w: table id %x is in use", ErrTableExists, t.ID)
	}
	next := e.withTable(cur, t)
	if err := e.persistSchema(next); err != nil {
		return err
	}
	e.publish(next, SchemaChange{Kind: wire.Created, Target: wire.TargetTable, Keyspace: t.Keyspace, Table: t.Name},
		schemaDelta{tables: [][2]*schema.Table{{nil, t}}})
	return nil
}

// CreateView registers materialized view v (a table whose View is set) of
// an existing base table of the same keyspace, with empty data; the caller
// builds it from the base table's data (package view). It returns
// ErrNoKeyspace, ErrNoTable (no base table) or ErrTableExists.
func (e *Engine) CreateView(v *schema.Table) error {
	if v == nil || v.View == nil {
		return fmt.Errorf("%w: not a view", ErrInvalidSchema)
	}
	base, ok := e.Table(v.Keyspace, v.View.BaseName)
	if !ok || base.ID != v.View.BaseID {
		return fmt.Errorf("%w: base table %s.%s of view %s", ErrNoTable, v.Keyspace, v.View.BaseName, v.Name)
	}
	return e.CreateTable(v)
}

// ViewsOf returns the materialized views of base table t, sorted by name.
func (e *Engine) ViewsOf(t *schema.Table) []*schema.Table {
	ks, ok := e.state.Load().keyspaces[t.Keyspace]
	if !ok {
		return nil
	}
	return ks.viewsOf(t.ID)
}

// viewsOf returns the views of the table with ID id, sorted by name. The
// index is built once per keyspace state, on first use.
func (ks *keyspaceState) viewsOf(id data.TableID) []*schema.Table {
	ks.viewsOnce.Do(func() {
		for _, t := range ks.byName() {
			if t.View != nil {
				if ks.views == nil {
					ks.views = map[data.TableID][]*schema.Table{}
				}
				ks.views[t.View.BaseID] = append(ks.views[t.View.BaseID], t)
			}
		}
	})
	return ks.views[id]
}

// AlterTables replaces the definitions of existing tables of one keyspace
// (same IDs) in one schema change, announced as an update of the first:
// ALTER TABLE of a base table that changes its views too (a column added
// to a SELECT * view, a key column renamed). It returns ErrNoKeyspace,
// ErrNoTable or ErrTableIDMismatch.
func (e *Engine) AlterTables(tables ...*schema.Table) error {
	if len(tables) == 0 {
		return nil
	}
	for _, t := range tables {
		if err := validTable(t); err != nil {
			return err
		}
	}
	t := tables[0]
	return e.replace(t.Keyspace, nil, tables, SchemaChange{Kind: wire.Updated, Target: wire.TargetTable, Keyspace: t.Keyspace, Table: t.Name})
}

// withTable returns a copy of cur with table t added to its keyspace, which
// must exist, and an empty store for its data.
func (e *Engine) withTable(cur *schemaState, t *schema.Table) *schemaState {
	ks := cur.keyspaces[t.Keyspace]
	next := cur.clone()
	tables := maps.Clone(ks.tables)
	tables[t.Name] = t
	next.keyspaces[t.Keyspace] = &keyspaceState{def: ks.def, tables: tables}
	next.stores[t.ID] = newTableStore(t, e.fs, e.dataDir)
	return next
}

// AlterTable replaces the definition of an existing table, keeping its data.
// The new definition must carry the table's ID (ErrTableIDMismatch
// otherwise). It returns ErrNoKeyspace or ErrNoTable.
func (e *Engine) AlterTable(t *schema.Table) error {
	if err := validTable(t); err != nil {
		return err
	}
	return e.replace(t.Keyspace, nil, []*schema.Table{t}, SchemaChange{Kind: wire.Updated, Target: wire.TargetTable, Keyspace: t.Keyspace, Table: t.Name})
}

// DropTable removes a table and its data. It returns ErrNoKeyspace or
// ErrNoTable.
func (e *Engine) DropTable(keyspace, name string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	cur := e.state.Load()
	ks, ok := cur.keyspaces[keyspace]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, keyspace)
	}
	old, ok := ks.tables[name]
	if !ok {
		return fmt.Errorf("%w: %s.%s", ErrNoTable, keyspace, name)
	}
	if err := e.autoSnapshot(cur.stores[old.ID], SnapshotDropPrefix); err != nil {
		return err
	}
	next := cur.clone()
	tables := maps.Clone(ks.tables)
	delete(tables, name)
	next.keyspaces[keyspace] = &keyspaceState{def: ks.def, tables: tables}
	delete(next.stores, old.ID)
	saved := e.marks.clone()
	e.marks.forget(old.ID)
	if err := e.persistSchema(next); err != nil {
		e.marks = saved
		return err
	}
	e.publish(next, SchemaChange{Kind: wire.Dropped, Target: wire.TargetTable, Keyspace: keyspace, Table: name},
		schemaDelta{tables: [][2]*schema.Table{{old, nil}}})
	e.forgetDependents(old.ID)
	return e.dropStore(cur.stores[old.ID])
}

// dropStore discards the data of a dropped table: it stops its flushes,
// closes its SSTables and deletes its directory. Replay skips the table's
// commit-log records, since the table is no longer in the schema.
func (e *Engine) dropStore(s *tableStore) error {
	if s == nil {
		return nil
	}
	s.dropped.Store(true)
	dropStoreIndexes(s)
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	dropped, freed := s.truncate(nil)
	e.releaseMemory(freed)
	var errs []error
	for _, src := range dropped {
		// Reads in flight keep their reference; the directory goes now
		// (open files stay readable), the readers close with the last
		// reference.
		src.retire(nil, nil)
	}
	errs = append(errs, e.removeTableData(s.dir()), e.releaseLog())
	return errors.Join(errs...)
}

// Truncate removes every row of a table, keeping its definition. Writes
// that race with Truncate may land before or after it. It returns
// ErrNoKeyspace or ErrNoTable.
func (e *Engine) Truncate(keyspace, name string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	st := e.state.Load()
	ks, ok := st.keyspaces[keyspace]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, keyspace)
	}
	t, ok := ks.tables[name]
	if !ok {
		return fmt.Errorf("%w: %s.%s", ErrNoTable, keyspace, name)
	}
	store, ok := st.stores[t.ID]
	if !ok {
		return fmt.Errorf("%w: %s.%s", ErrNoTable, keyspace, name)
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	if err := e.autoSnapshot(store, SnapshotTruncatePrefix); err != nil {
		return err
	}
	store.flushMu.Lock()
	defer store.flushMu.Unlock()
	var pos commitlog.Position
	dropped, freed := store.truncate(func() commitlog.Position {
		pos = e.logTail()
		return pos
	})
	e.releaseMemory(freed)
	// SecondaryIndexManager.truncateAllIndexesBlocking.
	e.truncateCustomIndexes(store)
	if e.log != nil {
		// Saved before the SSTables are deleted: if a crash comes
		// between the two, Open deletes the SSTables the record covers
		// and replay skips the records before it.
		e.marks.truncated[t.ID] = pos
		if err := e.persistSchema(e.state.Load()); err != nil {
			return err
		}
	}
	var errs []error
	for _, src := range dropped {
		// The files go with the last reference: now, or when the reads
		// in flight finish.
		src.retire(e.fs, func(err error) {
			if err != nil {
				e.opts.Logger.Error("removing truncated SSTable", "table", store.name, "err", err)
			}
		})
	}
	errs = append(errs, e.releaseLog())
	return errors.Join(errs...)
}

// CreateMissing creates those of keyspaces that do not exist, and those of
// tables (tables of these keyspaces) that do not exist, writing the schema
// file once for all of them: it is how a node installs its system keyspaces,
// where one CreateKeyspace and one CreateTable per table would write and
// sync the schema file some ninety times on a fresh data directory. An
// existing keyspace keeps its definition. Listeners get one event per
// keyspace or table created, in order, after the file is written.
func (e *Engine) CreateMissing(keyspaces []*schema.Keyspace, tables []*schema.Table) error {
	names := make(map[string]bool, len(keyspaces))
	for _, ks := range keyspaces {
		if ks == nil || ks.Name == "" {
			return fmt.Errorf("%w: keyspace without a name", ErrInvalidSchema)
		}
		names[ks.Name] = true
	}
	for _, t := range tables {
		if err := validTable(t); err != nil {
			return err
		}
		if !names[t.Keyspace] {
			return fmt.Errorf("%w: table %s is not of the keyspaces created", ErrInvalidSchema, t.QualifiedName())
		}
	}
	if err := e.checkOpen(); err != nil {
		return err
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	// The whole batch is built into one new state and installed once: a
	// state per change would copy the registry's maps once per table (the
	// system keyspaces hold dozens), making a fresh engine's open quadratic
	// in their number. Listeners still hear one change per keyspace and per
	// table, each with the version the schema had after it.
	cur := e.state.Load()
	next := cur.clone()
	sum := cur.sum
	var changes []SchemaChange
	owned := map[string]bool{} // keyspaces whose state next owns
	for _, ks := range keyspaces {
		if _, ok := next.keyspaces[ks.Name]; ok {
			continue
		}
		next.keyspaces[ks.Name] = &keyspaceState{def: ks, tables: map[string]*schema.Table{}}
		owned[ks.Name] = true
		sum = schemaDelta{keyspaces: [][2]*schema.Keyspace{{nil, ks}}}.sumAfter(sum)
		changes = append(changes, SchemaChange{Kind: wire.Created, Target: wire.TargetKeyspace, Keyspace: ks.Name, Version: versionOf(sum)})
	}
	for _, t := range tables {
		kst := next.keyspaces[t.Keyspace]
		if _, ok := kst.tables[t.Name]; ok {
			continue
		}
		if _, ok := next.stores[t.ID]; ok {
			return fmt.Errorf("%w: table id %x is in use", ErrTableExists, t.ID)
		}
		if !owned[t.Keyspace] {
			kst = &keyspaceState{def: kst.def, tables: maps.Clone(kst.tables)}
			next.keyspaces[t.Keyspace] = kst
			owned[t.Keyspace] = true
		}
		kst.tables[t.Name] = t
		next.stores[t.ID] = newTableStore(t, e.fs, e.dataDir)
		sum = schemaDelta{tables: [][2]*schema.Table{{nil, t}}}.sumAfter(sum)
		changes = append(changes, SchemaChange{Kind: wire.Created, Target: wire.TargetTable, Keyspace: t.Keyspace, Table: t.Name, Version: versionOf(sum)})
	}
	if len(changes) == 0 {
		return nil
	}
	next.setVersion(sum)
	if err := e.persistSchema(next); err != nil {
		return err
	}
	e.state.Store(next)
	e.syncViewDependents()
	e.syncCustomIndexes()
	e.notify(changes...)
	return nil
}
