// Package view computes the updates a write to a base table makes to its
// materialized views, as Cassandra 4.1's ViewUpdateGenerator and
// TableViews.generateViewUpdates compute them. It is pure: given the base
// partition's rows as they are before the write (read by the caller under
// the base partition's lock) and the write itself, it returns the mutations
// of the view tables, which the caller applies together with the base
// mutation. The view build (existing data at CREATE MATERIALIZED VIEW) is
// the same computation with nothing existing.
//
// Per base row the generator compares the row before and after the write
// (merged: the existing row reconciled with the update, the update's
// partition deletion and range tombstones applied) and chooses one action:
// none, a new view entry, an update of the entry, the deletion of the old
// entry, or both (the entry moves, when the base column in the view's key
// changes value). The view row's liveness and the timestamp of its
// deletion are computed as ViewUpdateGenerator.computeLivenessInfoForEntry
// and computeTimestampForEntryDeletion do.
package view

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Existing is a base partition as it is before a write, read by the caller
// under the base partition's lock: the rows the write touches (sorted by
// clustering key, with their tombstone cells and expired cells, only what
// deletions shadow removed, each row's deletion at least the partition's
// deletion and range tombstones covering it), the partition deletion and
// the range tombstones of the touched slices (a zero Deletion means none,
// as LiveDeletion). These are Cassandra's unfiltered rows: a new view entry
// copies the base row's tombstones, which shadow what an earlier entry of
// the same view key left.
type Existing struct {
	Rows            []data.Row
	Deletion        data.DeletionTime
	RangeTombstones []data.RangeTombstone
}

// covering returns the deletion ex holds over clustering key k: its
// partition deletion or a covering range tombstone.
func (ex *Existing) covering(k []byte) data.DeletionTime {
	del := ex.Deletion
	if del.MarkedForDeleteAt == 0 && del.LocalDeletionTime == 0 {
		del = data.LiveDeletion // the zero value
	}
	for i := range ex.RangeTombstones {
		if rt := &ex.RangeTombstones[i]; rt.Contains(k) {
			del = data.MaxDeletion(del, rt.Deletion)
		}
	}
	return del
}

// Updates returns the mutations that base mutation m, applied to the base
// partition ex, makes to views (the views of base). now is the write time
// in seconds. The merged row of each touched row is the existing row
// reconciled with m's row, m's partition deletion and range tombstones
// applied (data.MergeRows: the engine's reconciliation). The mutations are
// sorted by view, then by view partition key; each view mutation's rows are
// sorted by clustering key.
func Updates(base *schema.Table, views []*schema.Table, m *data.Mutation, ex Existing, now int64) ([]*data.Mutation, error) {
	if len(views) == 0 {
		return nil, nil
	}
	existing := ex.Rows
	pk, err := splitKey(base, m.Key)
	if err != nil {
		return nil, err
	}
	gens := make([]*generator, 0, len(views))
	for _, v := range views {
		if !matchesPartition(base, v, pk) {
			continue // TableViews.updatedViews: the view selects no row of this partition
		}
		gens = append(gens, &generator{base: base, view: v, pk: pk, now: now, parts: map[string]*data.Mutation{}})
	}
	if len(gens) == 0 {
		return nil, nil
	}
	add := func(old, upd *data.Row) error {
		merged := data.MergeRows(old, upd)
		for _, g := range gens {
			if err := g.add(old, &merged); err != nil {
				return err
			}
		}
		return nil
	}
	// Walk the update's rows and the existing rows together
	// (TableViews.generateViewUpdates), both in clustering order.
	if !sort.SliceIsSorted(m.Rows, func(a, b int) bool { return bytes.Compare(m.Rows[a].Clustering, m.Rows[b].Clustering) < 0 }) {
		rows := append([]data.Row(nil), m.Rows...)
		sort.Slice(rows, func(a, b int) bool { return bytes.Compare(rows[a].Clustering, rows[b].Clustering) < 0 })
		m = &data.Mutation{Table: m.Table, Key: m.Key, PartitionDeletion: m.PartitionDeletion, RangeTombstones: m.RangeTombstones, Static: m.Static, Rows: rows}
	}
	i, j := 0, 0
	for i < len(m.Rows) || j < len(existing) {
		var c int
		switch {
		case i >= len(m.Rows):
			c = 1
		case j >= len(existing):
			c = -1
		default:
			c = bytes.Compare(m.Rows[i].Clustering, existing[j].Clustering)
		}
		switch {
		case c < 0:
			upd := withDeletion(&m.Rows[i], updateDeletion(m, m.Rows[i].Clustering))
			empty := data.NewRow(upd.Clustering)
			empty.Deletion = ex.covering(upd.Clustering)
			if err := add(&empty, &upd); err != nil {
				return nil, err
			}
			i++
		case c > 0:
			old := &existing[j]
			j++
			del := updateDeletion(m, old.Clustering)
			if del.IsLive() {
				continue // the update does not touch this row
			}
			upd := data.NewRow(old.Clustering)
			upd.Deletion = del
			if err := add(old, &upd); err != nil {
				return nil, err
			}
		default:
			upd := withDeletion(&m.Rows[i], updateDeletion(m, m.Rows[i].Clustering))
			if err := add(&existing[j], &upd); err != nil {
				return nil, err
			}
			i++
			j++
		}
	}
	var out []*data.Mutation
	for _, g := range gens {
		out = append(out, g.mutations()...)
	}
	return out, nil
}

// Build returns the view mutations that make view v hold the entries of the
// base rows given (one base partition, key and live rows), as the view
// build does (ViewBuilderTask: every row is new).
func Build(base *schema.Table, v *schema.Table, key []byte, rows []data.Row, now int64) ([]*data.Mutation, error) {
	m := &data.Mutation{Table: base.ID, Key: key, PartitionDeletion: data.LiveDeletion, Rows: rows}
	return Updates(base, []*schema.Table{v}, m, Existing{Deletion: data.LiveDeletion}, now)
}

// updateDeletion is the deletion the update makes at clustering key k: its
// partition deletion, or the range tombstone covering k that supersedes it.
func updateDeletion(m *data.Mutation, k []byte) data.DeletionTime {
	del := m.PartitionDeletion
	for i := range m.RangeTombstones {
		if rt := &m.RangeTombstones[i]; rt.Contains(k) {
			del = data.MaxDeletion(del, rt.Deletion)
		}
	}
	return del
}

// withDeletion returns a copy of r whose row deletion is at least del.
func withDeletion(r *data.Row, del data.DeletionTime) data.Row {
	out := *r
	out.Deletion = data.MaxDeletion(r.Deletion, del)
	return out
}

// splitKey returns the components of a base partition key.
func splitKey(t *schema.Table, key []byte) ([][]byte, error) {
	if len(t.PartitionKey()) == 1 {
		return [][]byte{key}, nil
	}
	return partitioner.SplitCompositeKey(key)
}

// matchesPartition reports whether the partition-key restrictions of v's
// WHERE clause accept partition key pk.
func matchesPartition(base, v *schema.Table, pk [][]byte) bool {
	for i := range v.View.Filter {
		r := &v.View.Filter[i]
		c := base.StoredColumn(r.Columns[0])
		if len(r.Columns) != 1 || c == nil || c.Kind != schema.PartitionKey {
			continue
		}
		if !r.Matches(base, func(c *schema.Column) []byte { return pk[c.Position] }) {
			return false
		}
	}
	return true
}

// generator builds the updates of one view for one base partition
// (ViewUpdateGenerator).
type generator struct {
	base, view *schema.Table
	pk         [][]byte
	now        int64
	// parts are the view mutations, by view partition key.
	parts map[string]*data.Mutation
}

type action uint8

const (
	actNone action = iota
	actNew
	actDeleteOld
	actUpdate
	actSwitch
)

func (g *generator) add(ex, merged *data.Row) error {
	switch g.action(ex, merged) {
	case actNew:
		return g.createEntry(merged)
	case actDeleteOld:
		return g.deleteOldEntry(ex, merged)
	case actUpdate:
		return g.updateEntry(ex, merged)
	case actSwitch:
		if err := g.createEntry(merged); err != nil {
			return err
		}
		return g.deleteOldEntry(ex, merged)
	}
	return nil
}

// keyColumn is the base column outside the base key that the view's key
// holds, or nil.
func (g *generator) keyColumn() *schema.Column {
	if g.view.View.BaseColumnInKey == "" {
		return nil
	}
	return g.base.StoredColumn(g.view.View.BaseColumnInKey)
}

// cell returns the simple cell of column name in r, or nil.
func cell(r *data.Row, name string) *data.Cell {
	for i := range r.Cells {
		if r.Cells[i].Column == name && r.Cells[i].Path == nil {
			return &r.Cells[i]
		}
	}
	return nil
}

func (g *generator) live(c *data.Cell) bool { return c != nil && c.IsLive(g.now) }

func (g *generator) action(ex, merged *data.Row) action {
	kc := g.keyColumn()
	if kc == nil {
		exLive, mLive := ex.HasLiveData(g.now), merged.HasLiveData(g.now)
		switch {
		case exLive && mLive:
			return actUpdate
		case exLive:
			return actDeleteOld
		case mLive:
			return actNew
		}
		return actNone
	}
	before, after := cell(ex, kc.Name), cell(merged, kc.Name)
	if before != nil && after != nil && sameCell(before, after) {
		if g.live(before) {
			return actUpdate
		}
		return actNone
	}
	if !g.live(before) {
		if g.live(after) {
			return actNew
		}
		return actNone
	}
	if !g.live(after) {
		return actDeleteOld
	}
	if types.Compare(kc.Type, before.Value, after.Value) == 0 {
		return actUpdate
	}
	return actSwitch
}

func sameCell(a, b *data.Cell) bool {
	return a.Kind == b.Kind && a.Timestamp == b.Timestamp && a.TTL == b.TTL && a.LocalDeletionTime == b.LocalDeletionTime &&
		bytes.Equal(a.Value, b.Value) && bytes.Equal(a.Path, b.Path) && a.Column == b.Column
}

// matchesFilter reports whether base row r satisfies the view's WHERE
// clause (View.matchesViewFilter).
func (g *generator) matchesFilter(r *data.Row) (bool, error) {
	var ck [][]byte
	if len(g.base.ClusteringColumns()) > 0 {
		var err error
		if ck, _, err = types.DecodeClustering(g.base.ClusteringTypes(), r.Clustering); err != nil {
			return false, err
		}
	}
	value := func(c *schema.Column) []byte {
		switch c.Kind {
		case schema.PartitionKey:
			return g.pk[c.Position]
		case schema.Clustering:
			if c.Position < len(ck) {
				return ck[c.Position]
			}
			return nil
		}
		if x := cell(r, c.Name); g.live(x) {
			return x.Value
		}
		return nil
	}
	for i := range g.view.View.Filter {
		if !g.view.View.Filter[i].Matches(g.base, value) {
			return false, nil
		}
	}
	return true, nil
}

// viewColumn reports whether base column name is a regular column of the
// view (selected, and not in the view's key).
func (g *generator) viewColumn(name string) bool {
	c := g.view.StoredColumn(name)
	return c != nil && c.Kind == schema.Regular
}

// inView reports whether base column name is a column of the view at all.
func (g *generator) inView(name string) bool { return g.view.StoredColumn(name) != nil }

func (g *generator) createEntry(r *data.Row) error {
	ok, err := g.matchesFilter(r)
	if err != nil || !ok {
		return err
	}
	row, key, err := g.newRow(r)
	if err != nil {
		return err
	}
	row.Liveness = g.liveness(r)
	row.Deletion = r.Deletion
	for _, cd := range r.ColumnDeletions {
		if g.viewColumn(cd.Column) {
			row.ColumnDeletions = append(row.ColumnDeletions, cd)
		}
	}
	for i := range r.Cells {
		if g.viewColumn(r.Cells[i].Column) {
			row.Cells = append(row.Cells, r.Cells[i])
		}
	}
	g.submit(key, row)
	return nil
}

func (g *generator) updateEntry(ex, merged *data.Row) error {
	ok, err := g.matchesFilter(ex)
	if err != nil {
		return err
	}
	if !ok {
		return g.createEntry(merged)
	}
	if ok, err = g.matchesFilter(merged); err != nil {
		return err
	}
	if !ok {
		return g.deleteOldEntryInternal(ex, merged)
	}
	row, key, err := g.newRow(merged)
	if err != nil {
		return err
	}
	row.Liveness = g.liveness(merged)
	row.Deletion = merged.Deletion
	g.addDifferentCells(&row, ex, merged)
	g.submit(key, row)
	return nil
}

// addDifferentCells adds to row the view's cells of merged that ex does
// not hold as they are, and the collection deletions merged adds.
func (g *generator) addDifferentCells(row *data.Row, ex, merged *data.Row) {
	for _, cd := range merged.ColumnDeletions {
		if g.viewColumn(cd.Column) && cd.Deletion.Supersedes(ex.ColumnDeletion(cd.Column)) {
			row.ColumnDeletions = append(row.ColumnDeletions, cd)
		}
	}
	j := 0
	for i := range merged.Cells {
		c := &merged.Cells[i]
		if !g.viewColumn(c.Column) {
			continue
		}
		for j < len(ex.Cells) && data.CompareID(&ex.Cells[j], c) < 0 {
			j++
		}
		if j < len(ex.Cells) && data.CompareID(&ex.Cells[j], c) == 0 && sameCell(&ex.Cells[j], c) {
			continue
		}
		row.Cells = append(row.Cells, *c)
	}
}

func (g *generator) deleteOldEntry(ex, merged *data.Row) error {
	ok, err := g.matchesFilter(ex)
	if err != nil || !ok {
		return err
	}
	return g.deleteOldEntryInternal(ex, merged)
}

func (g *generator) deleteOldEntryInternal(ex, merged *data.Row) error {
	row, key, err := g.newRow(ex)
	if err != nil {
		return err
	}
	ts := g.deletionTimestamp(ex, merged)
	if ts > merged.Deletion.MarkedForDeleteAt {
		// The entry ends by a column outside the base row's deletion
		// (the view's key column, or an unselected column): an expired
		// liveness record at that timestamp says so.
		row.Liveness = data.ExpiredLiveness(ts, g.now)
	}
	row.Deletion = merged.Deletion
	g.addDifferentCells(&row, ex, merged)
	g.submit(key, row)
	return nil
}

// liveness computes the view row's primary-key liveness from base row r
// (computeLivenessInfoForEntry).
func (g *generator) liveness(r *data.Row) data.LivenessInfo {
	if kc := g.keyColumn(); kc != nil {
		c := cell(r, kc.Name)
		return data.LivenessInfo{Timestamp: c.Timestamp, TTL: c.TTL, ExpiresAt: c.LocalDeletionTime}
	}
	bl := r.Liveness
	if g.view.View.IncludeAllColumns {
		return bl
	}
	ts := bl.Timestamp
	nonExpiring := false
	var biggest *data.Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		if g.inView(c.Column) || !g.live(c) {
			continue
		}
		ts = max(ts, c.Timestamp)
		if !c.IsExpiring() {
			nonExpiring = true
		} else if biggest == nil || c.LocalDeletionTime > biggest.LocalDeletionTime {
			biggest = c
		}
	}
	if bl.IsLive(g.now) && !bl.IsExpiring() || nonExpiring {
		return data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	}
	if biggest == nil {
		return bl
	}
	if biggest.LocalDeletionTime > bl.ExpiresAt || !bl.IsLive(g.now) {
		return data.LivenessInfo{Timestamp: ts, TTL: biggest.TTL, ExpiresAt: biggest.LocalDeletionTime}
	}
	return bl
}

// deletionTimestamp is the timestamp of the deletion of the view entry of
// ex (computeTimestampForEntryDeletion).
func (g *generator) deletionTimestamp(ex, merged *data.Row) int64 {
	del := merged.Deletion
	if kc := g.keyColumn(); kc != nil {
		before := cell(ex, kc.Name)
		if del.Deletes(before.Timestamp) {
			return del.MarkedForDeleteAt
		}
		return before.Timestamp
	}
	ts := max(del.MarkedForDeleteAt, ex.Liveness.Timestamp)
	if g.view.View.IncludeAllColumns {
		return ts
	}
	for i := range ex.Cells {
		if c := &ex.Cells[i]; !g.inView(c.Column) {
			ts = max(ts, c.Timestamp)
		}
	}
	return ts
}

// newRow starts the view row of base row r: its view partition key and
// clustering key, from the base key and, for the view's key column, r's
// cell (startNewUpdate).
func (g *generator) newRow(r *data.Row) (data.Row, []byte, error) {
	var ck [][]byte
	if len(g.base.ClusteringColumns()) > 0 {
		var err error
		if ck, _, err = types.DecodeClustering(g.base.ClusteringTypes(), r.Clustering); err != nil {
			return data.Row{}, nil, err
		}
	}
	value := func(name string) ([]byte, error) {
		c := g.base.StoredColumn(name)
		switch c.Kind {
		case schema.PartitionKey:
			return g.pk[c.Position], nil
		case schema.Clustering:
			return ck[c.Position], nil
		}
		x := cell(r, name)
		if x == nil || x.Value == nil {
			return nil, fmt.Errorf("view: base row has no value for %s, in the key of %s", name, g.view.QualifiedName())
		}
		return x.Value, nil
	}
	vpk := g.view.PartitionKey()
	parts := make([][]byte, len(vpk))
	for i, c := range vpk {
		v, err := value(c.Name)
		if err != nil {
			return data.Row{}, nil, err
		}
		parts[i] = v
	}
	key := parts[0]
	if len(parts) > 1 {
		var err error
		if key, err = partitioner.CompositeKey(parts); err != nil {
			return data.Row{}, nil, err
		}
	}
	vck := g.view.ClusteringColumns()
	cvals := make([][]byte, len(vck))
	for i, c := range vck {
		v, err := value(c.Name)
		if err != nil {
			return data.Row{}, nil, err
		}
		cvals[i] = v
	}
	clustering, err := types.EncodeClustering(g.view.ClusteringTypes(), cvals)
	if err != nil {
		return data.Row{}, nil, err
	}
	return data.NewRow(clustering), key, nil
}

// submit adds row to the view mutation of key, merging it with a row of the
// same clustering key already there.
func (g *generator) submit(key []byte, row data.Row) {
	if row.IsEmpty() {
		return
	}
	m := g.parts[string(key)]
	if m == nil {
		m = &data.Mutation{Table: g.view.ID, Key: key, PartitionDeletion: data.LiveDeletion}
		g.parts[string(key)] = m
	}
	for i := range m.Rows {
		if bytes.Equal(m.Rows[i].Clustering, row.Clustering) {
			m.Rows[i] = data.MergeRows(&m.Rows[i], &row)
			return
		}
	}
	m.Rows = append(m.Rows, row)
}

// mutations returns the generator's view mutations, sorted by key, their
// rows by clustering key.
func (g *generator) mutations() []*data.Mutation {
	keys := make([]string, 0, len(g.parts))
	for k := range g.parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*data.Mutation, 0, len(keys))
	for _, k := range keys {
		m := g.parts[k]
		sort.Slice(m.Rows, func(i, j int) bool { return bytes.Compare(m.Rows[i].Clustering, m.Rows[j].Clustering) < 0 })
		out = append(out, m)
	}
	return out
}
