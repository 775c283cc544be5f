package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// Derived tables (secondary-index tables, materialized views) are kept in
// step with a base table by Dependents registered on the base table with
// AddDependent. A write to a table without dependents takes the plain path
// of Apply (no lock, no read: one atomic load decides). A write to a table
// with dependents goes through applyDerived:
//
//  1. lock the base partition (LockPartition's stripe) unless the caller
//     holds it (ApplyLocked, for lightweight transactions);
//  2. read the base rows the mutation touches as they are (Before): the
//     rows it names, the rows its range tombstones and partition deletion
//     cover, and the static row;
//  3. read the same rows as they will be once the mutation applies (After:
//     the same read with the mutation as one more, newest source, so the
//     engine's own reconciliation decides, tombstones of older sources
//     included);
//  4. ask every dependent for its mutations (Dependent.Derive), each for
//     another table;
//  5. append the base mutation and the derived ones to the commit log as
//     ONE record (a mutation group, data.AppendMutationGroup), then apply
//     them to their memtables, base first, under every involved table's
//     store lock (taken in table-ID order).
//
// Because the group is one commit-log record, a crash keeps all of it or
// none of it, and replay applies each member to its own table unless that
// table's SSTables already hold it (each table's own commit-log upper
// bound): replay never derives again, so nothing is rebuilt twice. A
// reader of a derived table sees the derived state of some base state
// that existed (derived tables are applied after their base, and writes
// to one base partition are serialized by its lock).
//
// The derived tables must not have dependents themselves (their writes
// are applied directly) and must belong to the same engine.

// Dependent maintains derived data from the writes of one base table.
// Derive is called under the base partition's lock, once per base
// mutation, concurrently for different partitions, and must not call
// Apply or LockPartition (the lock is held).
// It returns the mutations to apply to derived tables with the base
// mutation; an error refuses the whole write (nothing is applied).
//
// A secondary index compares the indexed values of Before and After and
// emits entry upserts and tombstones; a materialized view computes view
// rows from the full base rows (cells keep their timestamps, TTLs and
// expiry) and emits view-row upserts and tombstones.
type Dependent interface {
	Derive(ctx context.Context, w *BaseWrite) ([]DerivedMutation, error)
}

// DependentFunc adapts a function to Dependent.
type DependentFunc func(ctx context.Context, w *BaseWrite) ([]DerivedMutation, error)

// Derive calls f.
func (f DependentFunc) Derive(ctx context.Context, w *BaseWrite) ([]DerivedMutation, error) {
	return f(ctx, w)
}

// DerivedMutation is a mutation of a derived table.
type DerivedMutation struct {
	// Table is the derived table; it must exist in the engine and have no
	// dependents.
	Table *schema.Table
	// Mutation is the change; the engine takes ownership of it.
	Mutation *data.Mutation
}

// BaseWrite is what a Dependent sees of one base write. Every field is
// read-only for the dependent and valid only during Derive (copy what
// must outlive it).
type BaseWrite struct {
	// Table is the base table.
	Table *schema.Table
	// Mutation is the base mutation being applied.
	Mutation *data.Mutation
	// Token is the base partition key's token.
	Token int64
	// Now is the time, in seconds, against which Before and After were
	// read (TTL expiry).
	Now int64
	// Before holds the live base rows the mutation touches as they are,
	// After the same rows once the mutation is applied.
	Before, After BaseRows
}

// BaseRows is the live view of the base rows a write touches: rows the
// mutation names, rows its range tombstones or partition deletion cover,
// and the static row. Cells keep Timestamp, TTL and LocalDeletionTime.
type BaseRows struct {
	// Static is the live static row, nil if none.
	Static *data.Row
	// Rows are the live rows in clustering order.
	Rows []data.Row
	// Deletion is the partition deletion in force (LiveDeletion if none).
	Deletion data.DeletionTime
}

// Row returns the row with clustering key c, or nil.
func (b *BaseRows) Row(c []byte) *data.Row {
	i := sort.Search(len(b.Rows), func(i int) bool { return bytes.Compare(b.Rows[i].Clustering, c) >= 0 })
	if i < len(b.Rows) && bytes.Equal(b.Rows[i].Clustering, c) {
		return &b.Rows[i]
	}
	return nil
}

// ErrDependentExists is returned by AddDependent for a name already
// registered on the table.
var ErrDependentExists = errors.New("engine: dependent already registered")

// namedDependent is one registration.
type namedDependent struct {
	name string
	dep  Dependent
}

// dependents maps a base table to its dependents; replaced as a whole on
// every change (copy on write), nil while no table has any.
type dependents map[data.TableID][]namedDependent

// AddDependent registers dependent d, named name, on base table t: from
// now on every write to t (Apply, ApplyLocked) derives through it, until
// RemoveDependent or until t is dropped (DropTable, DropKeyspace). The
// registration lives in memory only: the owner of the derived tables (the
// CQL layer, from the schema) registers again after Open and Restore.
// Registering a name twice on a table returns ErrDependentExists.
func (e *Engine) AddDependent(t *schema.Table, name string, d Dependent) error {
	if _, err := e.storeFor(t); err != nil {
		return err
	}
	e.depMu.Lock()
	defer e.depMu.Unlock()
	cur := e.deps.Load()
	next := dependents{}
	if cur != nil {
		for k, v := range *cur {
			next[k] = v
		}
	}
	for _, nd := range next[t.ID] {
		if nd.name == name {
			return fmt.Errorf("%w: %s on %s", ErrDependentExists, name, t.QualifiedName())
		}
	}
	next[t.ID] = append(slices.Clone(next[t.ID]), namedDependent{name: name, dep: d})
	e.deps.Store(&next)
	return nil
}

// RemoveDependent unregisters the dependent named name from base table t
// (no-op when absent). Writes already deriving through it finish.
func (e *Engine) RemoveDependent(t *schema.Table, name string) {
	e.depMu.Lock()
	defer e.depMu.Unlock()
	cur := e.deps.Load()
	if cur == nil {
		return
	}
	next := dependents{}
	for k, v := range *cur {
		if k != t.ID {
			next[k] = v
			continue
		}
		var kept []namedDependent
		for _, nd := range v {
			if nd.name != name {
				kept = append(kept, nd)
			}
		}
		if len(kept) > 0 {
			next[k] = kept
		}
	}
	if len(next) == 0 {
		e.deps.Store(nil)
		return
	}
	e.deps.Store(&next)
}

// forgetDependents removes the dependents of a dropped table.
func (e *Engine) forgetDependents(id data.TableID) {
	e.depMu.Lock()
	defer e.depMu.Unlock()
	cur := e.deps.Load()
	if cur == nil || (*cur)[id] == nil {
		return
	}
	next := dependents{}
	for k, v := range *cur {
		if k != id {
			next[k] = v
		}
	}
	if len(next) == 0 {
		e.deps.Store(nil)
		return
	}
	e.deps.Store(&next)
}

// HasDependents reports whether writes to table t derive.
func (e *Engine) HasDependents(t *schema.Table) bool { return e.dependentsOf(t.ID) != nil }

// Dependents returns the names of the dependents registered on table t.
func (e *Engine) Dependents(t *schema.Table) []string {
	var names []string
	for _, nd := range e.dependentsOf(t.ID) {
		names = append(names, nd.name)
	}
	return names
}

func (e *Engine) dependentsOf(id data.TableID) []namedDependent {
	if m := e.deps.Load(); m != nil {
		return (*m)[id]
	}
	return nil
}

// ApplyLocked is Apply for a caller that holds the partition's lock
// (LockPartition of t and m.Key), as a lightweight transaction does: a
// table with dependents derives without taking the lock again. For a
// table without dependents it is Apply.
func (e *Engine) ApplyLocked(ctx context.Context, t *schema.Table, m *data.Mutation) error {
	return e.apply(ctx, t, m, true)
}

// applyDerived is Apply's path for a table with dependents deps.
func (e *Engine) applyDerived(ctx context.Context, t *schema.Table, s *tableStore, m *data.Mutation, deps []namedDependent, locked bool) error {
	token := e.Token(m.Key)
	if !locked {
		unlock := e.LockPartition(t, m.Key)
		defer unlock()
	}
	w := &BaseWrite{Table: t, Mutation: m, Token: token, Now: e.Now()}
	sl := touchedSlices(m)
	// Both reads see the same sources (the partition's writers are
	// excluded by its lock, so nothing changes in between).
	srcs := s.sources()
	var err error
	w.Before, err = e.readTouched(ctx, t, srcs, m.Key, token, sl, w.Now, nil)
	if err == nil {
		w.After, err = e.readTouched(ctx, t, srcs, m.Key, token, sl, w.Now, newMutationSource(token, m))
	}
	srcs.release()
	if err != nil {
		return err
	}
	var derived []DerivedMutation
	for _, nd := range deps {
		ms, err := nd.dep.Derive(ctx, w)
		if err != nil {
			return fmt.Errorf("engine: deriving %s from %s: %w", nd.name, t.QualifiedName(), err)
		}
		derived = append(derived, ms...)
	}
	group := make([]groupMember, 0, 1+len(derived))
	group = append(group, groupMember{t: t, s: s, m: m, token: token})
	for _, d := range derived {
		if d.Mutation == nil || d.Mutation.IsEmpty() {
			continue
		}
		ds, err := e.storeFor(d.Table)
		if err != nil {
			return fmt.Errorf("engine: derived table of %s: %w", t.QualifiedName(), err)
		}
		if d.Mutation.Table != (data.TableID{}) && d.Mutation.Table != d.Table.ID {
			return fmt.Errorf("%w: derived mutation for table %x applied to %s", ErrInvalidMutation, d.Mutation.Table, d.Table.QualifiedName())
		}
		if err := validateMutation(d.Mutation); err != nil {
			return fmt.Errorf("engine: derived mutation of %s for %s: %w", t.QualifiedName(), d.Table.QualifiedName(), err)
		}
		d.Mutation.Table = d.Table.ID
		group = append(group, groupMember{t: d.Table, s: ds, m: d.Mutation, token: e.Token(d.Mutation.Key)})
	}
	if len(group) == 1 {
		return e.applyPlain(ctx, t, s, m, e.Token(m.Key))
	}
	return e.applyGroup(ctx, group)
}

// groupMember is one mutation of a group applied together.
type groupMember struct {
	t     *schema.Table
	s     *tableStore
	m     *data.Mutation
	token int64
}

// applyGroup logs group as one commit-log record and applies its members,
// in order, under the store locks of every table involved.
func (e *Engine) applyGroup(ctx context.Context, group []groupMember) error {
	for _, g := range group {
		if err := e.waitForMemory(ctx, g.s); err != nil {
			return err
		}
	}
	logged := e.log != nil && e.durableWrites(group[0].t.Keyspace)
	var ms []*data.Mutation
	if logged {
		ms = make([]*data.Mutation, len(group))
		for i := range group {
			ms[i] = group[i].m
		}
	}
	// Lock every store once, in table-ID order (no cycle with another
	// group or a memtable switch waiting on one of them).
	stores := make([]*tableStore, 0, len(group))
	for _, g := range group {
		if !slices.Contains(stores, g.s) {
			stores = append(stores, g.s)
		}
	}
	slices.SortFunc(stores, func(a, b *tableStore) int { return bytes.Compare(a.id[:], b.id[:]) })
	for _, st := range stores {
		st.mu.RLock()
	}
	unlock := func() {
		for _, st := range stores {
			st.mu.RUnlock()
		}
	}
	if logged {
		// Encoded straight into the commit log's segment, as applyPlain
		// does.
		pos, err := e.log.AppendEncoded(data.MutationGroupSize(ms), func(dst []byte) []byte {
			return data.AppendMutationGroup(dst, ms)
		})
		if err != nil {
			unlock()
			return fmt.Errorf("engine: commit log append for %s: %w", group[0].t.QualifiedName(), err)
		}
		for _, st := range stores {
			st.active.notePos(pos)
		}
	}
	sizes := make([]int, len(group))
	for i, g := range group {
		if cx := g.s.custom.Load(); cx != nil {
			sizes[i] = applyIndexed(g.s.active.mt, g.token, g.m, cx, e.Now())
		} else {
			sizes[i] = g.s.active.mt.Apply(g.token, g.m)
		}
	}
	unlock()
	for i, g := range group {
		g.s.writeCount.Add(1)
		e.mem.Add(int64(sizes[i]))
	}
	for _, st := range stores {
		if st.active.mt.Size() >= e.opts.MemtableSize || e.mem.Load() >= e.opts.MemtableHardLimit/2 {
			e.maybeFlush(st)
		}
	}
	return nil
}

// touchedSlices returns the clustering slices of the rows m touches, nil
// (every row) when m deletes the partition, and an empty non-nil Slices
// when it touches no row.
func touchedSlices(m *data.Mutation) data.Slices {
	if !m.PartitionDeletion.IsLive() {
		return nil
	}
	out := make(data.Slices, 0, len(m.Rows)+len(m.RangeTombstones))
	for i := range m.Rows {
		c := m.Rows[i].Clustering
		out = append(out, data.Slice{Start: c, End: append(append(make([]byte, 0, len(c)+1), c...), 0)})
	}
	for _, rt := range m.RangeTombstones {
		if rt.Start == nil && rt.End == nil {
			return nil
		}
		out = append(out, data.Slice{Start: rt.Start, End: rt.End})
	}
	sort.Slice(out, func(i, j int) bool { return data.CompareStarts(out[i].Start, out[j].Start) < 0 })
	merged := out[:0]
	for _, sl := range out {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if last.End == nil {
				continue
			}
			if sl.Start == nil || bytes.Compare(sl.Start, last.End) <= 0 {
				if sl.End == nil || bytes.Compare(sl.End, last.End) > 0 {
					last.End = sl.End
				}
				continue
			}
		}
		merged = append(merged, sl)
	}
	return merged
}

// readTouched reads the live rows of slices (none when slices is empty but
// not nil) and the static row of partition key of t, with extra as the
// newest source when not nil. The rows are copied. The read is internal:
// it counts in no table statistic.
func (e *Engine) readTouched(ctx context.Context, t *schema.Table, srcs *readSources, key []byte, token int64, sl data.Slices, now int64, extra *mutationSource) (BaseRows, error) {
	out := BaseRows{Deletion: data.LiveDeletion}
	var st ReadStats
	opts := ReadOptions{Slices: sl, Now: now}
	rs := e.resolve(&opts, &st)
	st.warnAt, st.failAt = 0, 0
	rs.dropped = t.Dropped
	var partsBuf [inlineSources + 1]part
	parts := partsBuf[:0]
	if extra != nil {
		parts = append(parts, part{src: extra, ps: extra.ps})
		out.Deletion = data.MaxDeletion(out.Deletion, extra.ps.Deletion())
	}
	for _, src := range srcs.list {
		ps, _, err := src.Partition(ctx, token, key)
		if err != nil {
			return out, fmt.Errorf("engine: reading %s from %s: %w", t.QualifiedName(), src.Name(), err)
		}
		if ps == nil {
			continue
		}
		parts = append(parts, part{src: src, ps: ps})
		out.Deletion = data.MaxDeletion(out.Deletion, ps.Deletion())
	}
	if len(parts) == 0 {
		return out, nil
	}
	var p Partition
	e.openPartition(&p, ctx, token, key, parts, &opts, rs, nil)
	defer p.Close()
	if r := p.Static(); r != nil {
		c := r.Clone()
		out.Static = &c
	}
	if sl == nil || len(sl) > 0 {
		for {
			r, ok := p.Next()
			if !ok {
				break
			}
			out.Rows = append(out.Rows, r.Clone())
		}
	}
	return out, p.Close()
}

// mutationSource is a mutation seen as the newest source of its partition,
// for the read of the rows as they will be once it is applied.
type mutationSource struct {
	ps *mutationPartition
}

func newMutationSource(token int64, m *data.Mutation) *mutationSource {
	p := &mutationPartition{m: m, token: token}
	if len(m.RangeTombstones) > 0 {
		p.rts = slices.Clone(m.RangeTombstones)
		slices.SortStableFunc(p.rts, func(a, b data.RangeTombstone) int { return data.CompareStarts(a.Start, b.Start) })
	}
	p.rows = make([]data.Row, 0, len(m.Rows))
	for i := range m.Rows {
		p.rows = append(p.rows, m.Rows[i])
	}
	slices.SortStableFunc(p.rows, func(a, b data.Row) int { return bytes.Compare(a.Clustering, b.Clustering) })
	// Rows of one clustering (a batch may hold several) merge.
	merged := p.rows[:0]
	for _, r := range p.rows {
		if n := len(merged); n > 0 && bytes.Equal(merged[n-1].Clustering, r.Clustering) {
			merged[n-1] = data.MergeRows(&merged[n-1], &r)
			continue
		}
		merged = append(merged, r)
	}
	p.rows = merged
	return &mutationSource{ps: p}
}

func (s *mutationSource) Name() string     { return "mutation" }
func (s *mutationSource) Kind() SourceKind { return SourceMemtable }
func (s *mutationSource) Partition(context.Context, int64, []byte) (data.PartitionSource, string, error) {
	return s.ps, "", nil
}
func (s *mutationSource) Partitions(context.Context, data.TokenRange) (data.PartitionIterator, error) {
	return nil, errors.New("engine: a mutation source is read by partition")
}

// mutationPartition is the data.PartitionSource of a mutationSource.
type mutationPartition struct {
	m     *data.Mutation
	token int64
	rts   []data.RangeTombstone
	rows  []data.Row
}

func (p *mutationPartition) Key() []byte                 { return p.m.Key }
func (p *mutationPartition) Token() int64                { return p.token }
func (p *mutationPartition) Deletion() data.DeletionTime { return p.m.PartitionDeletion }
func (p *mutationPartition) Static() *data.Row {
	if p.m.Static == nil || p.m.Static.IsEmpty() {
		return nil
	}
	return p.m.Static
}
func (p *mutationPartition) RangeTombstones(data.Slices) []data.RangeTombstone { return p.rts }
func (p *mutationPartition) Rows(sl data.Slices, reverse bool) data.RowIterator {
	it := &mutationRows{rows: p.rows, sl: sl}
	if reverse {
		it.rows = slices.Clone(p.rows)
		slices.Reverse(it.rows)
	}
	return it
}

// mutationRows iterates rows of a mutationPartition; each row returned is
// a copy the merge may change.
type mutationRows struct {
	rows []data.Row
	sl   data.Slices
	cur  data.Row
}

func (it *mutationRows) Next() (*data.Row, bool) {
	for len(it.rows) > 0 && !it.sl.Contains(it.rows[0].Clustering) {
		it.rows = it.rows[1:]
	}
	if len(it.rows) == 0 {
		return nil, false
	}
	it.cur = it.rows[0]
	it.cur.Cells = slices.Clone(it.cur.Cells)
	it.cur.ColumnDeletions = slices.Clone(it.cur.ColumnDeletions)
	it.rows = it.rows[1:]
	return &it.cur, true
}
func (it *mutationRows) Err() error   { return nil }
func (it *mutationRows) Close() error { return nil }
