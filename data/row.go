package data

import (
	"bytes"
	"slices"
)

// ColumnDeletion is a deletion of a whole non-frozen collection column in
// one row (written by DELETE m or by overwriting the collection, which
// deletes at timestamp-1 before writing the new elements).
type ColumnDeletion struct {
	Column   string
	Deletion DeletionTime
}

// Row is one row of a partition, or the partition's static row (whose
// Clustering is empty).
type Row struct {
	// Clustering is the byte-comparable clustering key (types.EncodeClustering);
	// empty for the static row.
	Clustering []byte
	// Liveness is the primary-key liveness record (INSERT sets it).
	Liveness LivenessInfo
	// Deletion is the row deletion, LiveDeletion if none.
	Deletion DeletionTime
	// ColumnDeletions holds collection tombstones, sorted by column.
	ColumnDeletions []ColumnDeletion
	// Cells holds the row's cells sorted by CompareID.
	Cells []Cell
}

// NewRow returns an empty row with the given clustering key.
func NewRow(clustering []byte) Row {
	return Row{Clustering: clustering, Liveness: EmptyLiveness, Deletion: LiveDeletion}
}

// Clone returns a copy of r that shares no slice with it, for a reader
// that keeps a row past the iterator step that produced it. Column names
// are strings and so shared: whoever makes a string over bytes it owns
// (the memtable does) keeps those bytes unchanged.
func (r *Row) Clone() Row {
	c := *r
	c.Clustering = bytes.Clone(r.Clustering)
	c.ColumnDeletions = slices.Clone(r.ColumnDeletions)
	if r.Cells != nil {
		c.Cells = make([]Cell, len(r.Cells))
		for i := range r.Cells {
			c.Cells[i] = r.Cells[i]
			c.Cells[i].Value = bytes.Clone(r.Cells[i].Value)
			c.Cells[i].Path = bytes.Clone(r.Cells[i].Path)
		}
	}
	return c
}

// IsEmpty reports whether the row carries no information at all.
func (r *Row) IsEmpty() bool {
	return r.Liveness.IsEmpty() && r.Deletion.IsLive() && len(r.ColumnDeletions) == 0 && len(r.Cells) == 0
}

// ColumnDeletion returns the collection deletion recorded for column, or
// LiveDeletion.
func (r *Row) ColumnDeletion(column string) DeletionTime {
	for _, cd := range r.ColumnDeletions {
		if cd.Column == column {
			return cd.Deletion
		}
	}
	return LiveDeletion
}

// HasLiveData reports whether the row is visible at time now (seconds):
// its liveness record is live, or one of its cells is.
func (r *Row) HasLiveData(now int64) bool {
	if r.Liveness.IsLive(now) {
		return true
	}
	for i := range r.Cells {
		if r.Cells[i].IsLive(now) {
			return true
		}
	}
	return false
}

// MergeRows returns the reconciliation of two versions a and b of the same
// row: the superseding liveness, the later deletions, cells reconciled one by
// one (Reconcile), and then everything shadowed by the row's deletion or a
// collection deletion removed. Neither input is modified; the result may
// share cell memory with them.
func MergeRows(a, b *Row) Row {
	var out Row
	MergeRowsInto(&out, a, b)
	return out
}

// MergeRowsInto stores in out the reconciliation of a and b, as MergeRows
// returns it, reusing the arrays of out.Cells and out.ColumnDeletions when
// they are large enough, so that a merge loop (a compaction) allocates
// nothing per row. out must be neither a nor b, and must not share its
// arrays with them.
func MergeRowsInto(out *Row, a, b *Row) {
	cells, cds := out.Cells[:0], out.ColumnDeletions[:0]
	*out = Row{Clustering: a.Clustering, Liveness: a.Liveness, Deletion: MaxDeletion(a.Deletion, b.Deletion)}
	if b.Liveness.Supersedes(a.Liveness) {
		out.Liveness = b.Liveness
	}
	out.ColumnDeletions = appendMergedColumnDeletions(cds, a.ColumnDeletions, b.ColumnDeletions)
	cells = slices.Grow(cells, len(a.Cells)+len(b.Cells))
	i, j := 0, 0
	for i < len(a.Cells) || j < len(b.Cells) {
		switch {
		case j >= len(b.Cells):
			cells = append(cells, a.Cells[i])
			i++
		case i >= len(a.Cells):
			cells = append(cells, b.Cells[j])
			j++
		default:
			c := CompareID(&a.Cells[i], &b.Cells[j])
			switch {
			case c < 0:
				cells = append(cells, a.Cells[i])
				i++
			case c > 0:
				cells = append(cells, b.Cells[j])
				j++
			default:
				cells = append(cells, Reconcile(&a.Cells[i], &b.Cells[j]))
				i++
				j++
			}
		}
	}
	out.Cells = cells
	out.PurgeShadowed(LiveDeletion)
}

func mergeColumnDeletions(a, b []ColumnDeletion) []ColumnDeletion {
	// The result is always a new slice: PurgeShadowed filters it in place,
	// and a or b may belong to a row that readers share (a memtable row).
	return appendMergedColumnDeletions(nil, a, b)
}

// appendMergedColumnDeletions appends to dst the union of a and b (sorted
// by column), the later deletion where both name a column. The result is
// nil when both are empty.
func appendMergedColumnDeletions(dst, a, b []ColumnDeletion) []ColumnDeletion {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i].Column < b[j].Column):
			dst = append(dst, a[i])
			i++
		case i >= len(a) || b[j].Column < a[i].Column:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, ColumnDeletion{Column: a[i].Column, Deletion: MaxDeletion(a[i].Deletion, b[j].Deletion)})
			i++
			j++
		}
	}
	return dst
}

// PurgeShadowed removes, in place, what a deletion covering the row (outer:
// a partition deletion or range tombstone, or LiveDeletion) together with the
// row's own deletion and collection deletions shadow: cells and liveness with
// a timestamp at or below them. Deletions that outer supersedes are dropped
// too, since outer already records them.
func (r *Row) PurgeShadowed(outer DeletionTime) {
	if !outer.IsLive() && !r.Deletion.Supersedes(outer) {
		r.Deletion = LiveDeletion
	}
	del := MaxDeletion(r.Deletion, outer)
	if del.Deletes(r.Liveness.Timestamp) {
		r.Liveness = EmptyLiveness
	}
	if len(r.ColumnDeletions) > 0 {
		kept := r.ColumnDeletions[:0]
		for _, cd := range r.ColumnDeletions {
			if cd.Deletion.Supersedes(del) {
				kept = append(kept, cd)
			}
		}
		r.ColumnDeletions = kept
	}
	// Filtered in place; a cell is written only when one before it went,
	// so that a row that loses nothing is not rewritten.
	kept := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		if del.Deletes(c.Timestamp) {
			continue
		}
		if c.Path != nil && len(r.ColumnDeletions) > 0 && r.ColumnDeletion(c.Column).Deletes(c.Timestamp) {
			continue
		}
		if kept != i {
			r.Cells[kept] = *c
		}
		kept++
	}
	r.Cells = r.Cells[:kept]
}

// RangeTombstone deletes every row whose clustering key K satisfies
// Start <= K < End in bytes.Compare order. The bounds are byte-comparable
// clustering bounds (types.EncodeBound), so inclusive and exclusive ends are
// already folded into the bytes. A nil Start means from the first row, a nil
// End to the last.
type RangeTombstone struct {
	Start, End []byte
	Deletion   DeletionTime
}

// Contains reports whether the clustering key k lies inside the range.
func (rt *RangeTombstone) Contains(k []byte) bool {
	if rt.Start != nil && bytes.Compare(k, rt.Start) < 0 {
		return false
	}
	return rt.End == nil || bytes.Compare(k, rt.End) < 0
}

// CompareStarts orders range tombstone start bounds: a nil (unbounded)
// start first, then bytes.Compare order.
func CompareStarts(a, b []byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return bytes.Compare(a, b)
}

// CompareEnds orders range tombstone end bounds: bytes.Compare order, then
// a nil (unbounded) end last.
func CompareEnds(a, b []byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return bytes.Compare(a, b)
}
