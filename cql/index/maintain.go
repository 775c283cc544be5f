package index

import (
	"bytes"
	"context"
	"sort"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Derive is the engine.Dependent of the index: the index mutations of one
// base write (see the package doc for what they are).
func (x *Index) Derive(_ context.Context, w *engine.BaseWrite) ([]engine.DerivedMutation, error) {
	o := &out{tbl: x.Table}
	if err := x.derive(o, w.Table, w.Token, w.Mutation, &w.Before, &w.After, w.Now); err != nil {
		return nil, err
	}
	return o.mutations(), nil
}

// derive adds to o the index mutations that take the entries of the rows
// in before to those of the rows in after. m is the base mutation (its
// deletions are copied by the primary-key kinds); a build passes an empty
// before and an m without deletions.
func (x *Index) derive(o *out, base *schema.Table, token int64, m *data.Mutation, before, after *engine.BaseRows, now int64) error {
	if x.kind == kindClustering || x.kind == kindPartitionKey {
		return x.deriveKeyKind(o, base, token, m, before, after)
	}
	var b, a []entry
	var err error
	if x.static {
		if b, err = x.cellEntries(nil, base, token, m.Key, before.Static); err != nil {
			return err
		}
		if a, err = x.cellEntries(nil, base, token, m.Key, after.Static); err != nil {
			return err
		}
	} else {
		for i := range before.Rows {
			if b, err = x.cellEntries(b, base, token, m.Key, &before.Rows[i]); err != nil {
				return err
			}
		}
		for i := range after.Rows {
			if a, err = x.cellEntries(a, base, token, m.Key, &after.Rows[i]); err != nil {
				return err
			}
		}
	}
	id := func(e *entry) string { return string(e.key) + "\x00" + string(e.ck) }
	am := make(map[string]*entry, len(a))
	for i := range a {
		am[id(&a[i])] = &a[i]
	}
	bm := make(map[string]*entry, len(b))
	for i := range b {
		e := &b[i]
		bm[id(e)] = e
		if _, ok := am[id(e)]; ok {
			continue
		}
		r := data.NewRow(e.ck)
		r.Deletion = data.DeletionTime{MarkedForDeleteAt: e.liveness.Timestamp, LocalDeletionTime: now}
		o.add(e.key, r)
	}
	for i := range a {
		e := &a[i]
		if old, ok := bm[id(e)]; ok && old.liveness == e.liveness {
			continue
		}
		if err := x.validateValue(base, len(e.key)-1); err != nil {
			return err
		}
		r := data.NewRow(e.ck)
		r.Liveness = e.liveness
		o.add(e.key, r)
	}
	return nil
}

// deriveKeyKind is derive for the primary-key kinds: each touched row's
// entry mirrors the row's liveness (package doc).
func (x *Index) deriveKeyKind(o *out, base *schema.Table, token int64, m *data.Mutation, before, after *engine.BaseRows) error {
	var cks [][]byte
	for i := range before.Rows {
		cks = append(cks, before.Rows[i].Clustering)
	}
	for i := range after.Rows {
		if before.Row(after.Rows[i].Clustering) == nil {
			cks = append(cks, after.Rows[i].Clustering)
		}
	}
	sort.Slice(cks, func(i, j int) bool { return bytes.Compare(cks[i], cks[j]) < 0 })
	if err := x.deriveStaticEntry(o, base, token, m, before, after); err != nil {
		return err
	}
	for _, ck := range cks {
		v, err := x.keyValue(base, m.Key, ck)
		if err != nil {
			return err
		}
		if after.Row(ck) != nil {
			if err := x.validateValue(base, len(v)); err != nil {
				return err
			}
		}
		ick, err := x.entryClustering(base, token, m.Key, ck, nil)
		if err != nil {
			return err
		}
		var d data.DeletionTime
		wasLive := before.Row(ck) != nil
		if wasLive {
			// The deletions this write applies to a live row.
			d = m.PartitionDeletion
			for i := range m.RangeTombstones {
				if rt := &m.RangeTombstones[i]; rt.Contains(ck) {
					d = data.MaxDeletion(d, rt.Deletion)
				}
			}
		}
		r, ok := mirrorRow(ick, after.Row(ck), wasLive, d, mutationRow(m, ck))
		if !ok {
			continue
		}
		o.add(Key(v), r)
	}
	return nil
}

// deriveStaticEntry adds the entry a partition key index gives the static
// row of a table with clustering columns, so that a partition holding only
// static data is found through the index (CassandraIndex's Indexer.insertRow
// indexes a static row's primary key when the indexed column is a partition
// key column). The entry's clustering is the partition alone, encoded as a
// bound that sorts before the entries of the partition's rows, as the
// static clustering does. Like the row entries of deriveKeyKind, it mirrors
// the static row: its liveness record and an empty copy of each live cell,
// and the deletions a write applies to a live static row (partition
// deletion, cell tombstones, collection deletions), so it is live exactly
// while the static row is. (Cassandra writes it once, when the static row
// is new, and leaves a stale one to its reads; minicass keeps the index
// exact, which its reads cannot tell apart.)
func (x *Index) deriveStaticEntry(o *out, base *schema.Table, token int64, m *data.Mutation, before, after *engine.BaseRows) error {
	if x.kind != kindPartitionKey || len(base.ClusteringColumns()) == 0 || (after.Static == nil && before.Static == nil) {
		return nil
	}
	v, err := x.keyValue(base, m.Key, nil)
	if err != nil {
		return err
	}
	ick, err := types.EncodeBound(x.Table.ClusteringTypes(), [][]byte{tokenKey(token, m.Key)}, types.StartInclusive)
	if err != nil {
		return err
	}
	if after.Static != nil {
		if err := x.validateValue(base, len(v)); err != nil {
			return err
		}
	}
	r, ok := mirrorRow(ick, after.Static, before.Static != nil, m.PartitionDeletion, m.Static)
	if !ok {
		return nil
	}
	o.add(Key(v), r)
	return nil
}

// maxIndexedValue is the size an indexed value must stay below
// (FBUtilities.MAX_UNSIGNED_SHORT).
const maxIndexedValue = 65535

// validateValue refuses a write whose indexed value, of size n bytes, is
// too large for an index key (CassandraIndex.validateIndexedValue).
func (x *Index) validateValue(base *schema.Table, n int) error {
	if n >= maxIndexedValue {
		return query.Invalidf("Cannot index value of size %d for index %s on %s(%s) (maximum allowed size=%d)",
			n, x.Def.Name, base.QualifiedName(), x.Def.Column, maxIndexedValue)
	}
	return nil
}

// mirrorRow builds the index entry, at clustering ick, that mirrors a base
// row so that the entry is live exactly while the row is: the liveness
// record and an empty copy of each cell of live (the row once the write is
// applied; nil when it is not live), and, when the row was live before the
// write (wasLive), the deletion d the write applies to it (partition and
// range deletions, which the caller gathers) with the row deletion, column
// deletions and cell tombstones of the write's own row mw (nil when the write
// has none). ok is false when the entry would be empty.
func mirrorRow(ick []byte, live *data.Row, wasLive bool, d data.DeletionTime, mw *data.Row) (r data.Row, ok bool) {
	r = data.NewRow(ick)
	var cells []data.Cell
	if live != nil {
		r.Liveness = live.Liveness
		for i := range live.Cells {
			c := live.Cells[i]
			c.Value = []byte{}
			cells = append(cells, c)
		}
	}
	if wasLive {
		if mw != nil {
			d = data.MaxDeletion(d, mw.Deletion)
			r.ColumnDeletions = append(r.ColumnDeletions, mw.ColumnDeletions...)
			for i := range mw.Cells {
				c := &mw.Cells[i]
				if c.Kind != data.CellTombstone || hasCell(cells, c) {
					continue
				}
				cells = append(cells, *c)
			}
		}
		r.Deletion = d
	}
	sort.Slice(cells, func(i, j int) bool { return data.CompareID(&cells[i], &cells[j]) < 0 })
	r.Cells = cells
	return r, !r.IsEmpty()
}

func mutationRow(m *data.Mutation, ck []byte) *data.Row {
	for i := range m.Rows {
		if bytes.Equal(m.Rows[i].Clustering, ck) {
			return &m.Rows[i]
		}
	}
	return nil
}

func hasCell(cells []data.Cell, c *data.Cell) bool {
	for i := range cells {
		if data.CompareID(&cells[i], c) == 0 {
			return true
		}
	}
	return false
}
