package engine

import (
	"bytes"

	"github.com/minicass/minicass/data"
)

// onlyRowPart is a compaction input's partition of one row and nothing
// else whose row is decoded already (an onlyRows' onlyPart): takeOnly
// returns the row, if its row iterator has not, and that iterator, left
// at its end; a nil row otherwise.
type onlyRowPart interface {
	takeOnly() (*data.Row, data.RowIterator)
}

// endsAfterRow is sstable's streamed row iterator's look past its current
// row (rowIter.EndsAfterRow).
type endsAfterRow interface{ EndsAfterRow() bool }

// narrow merges the rows of a partition with no partition deletion, static
// row or range tombstone when every version holds one row (owned by its
// iterator) of one clustering: it reconciles them as rowMerger.next would
// (the one row itself, the dominant version, or MergeRowsInto in source
// order) without the merger, and purges the result as partMerge.next does.
// fast is false when the versions are of another shape: the rows read are
// then handed to the merger (pm.m), ahead of the rest of their iterators,
// and the caller goes on with the general merge. The caller closes the
// merger (pm.m) after writing the row, which may alias its sources' bytes.
func (pm *partMerge) narrow(parts []data.PartitionSource) (r *data.Row, ok, fast bool) {
	m := &pm.m
	m.initArrays()
	if r, ok, done := pm.shadowed(parts); done {
		return r, ok, true
	}
	fast = true
	for i, ps := range parts {
		if op, isOnly := ps.(onlyRowPart); isOnly {
			if row, end := op.takeOnly(); row != nil {
				// A partition of one row and nothing else, decoded by
				// the scan's NextOnlyRow: the row, owned, and its
				// iterator at its end, as Next and EndsAfterRow would
				// leave it.
				m.iters = append(m.iters, end)
				m.heads = append(m.heads, row)
				m.srcIdx = append(m.srcIdx, i)
				m.owned = append(m.owned, true)
				pm.stats.RowsRead++
				pm.stats.CellsRead += len(row.Cells)
				pm.stats.Sources[i].Rows++
				if fast && i > 0 && !bytes.Equal(row.Clustering, m.heads[0].Clustering) {
					fast = false
				}
				continue
			}
		}
		it := ps.Rows(nil, false)
		o, isOwned := it.(ownedRows)
		owned := isOwned && o.OwnedRows()
		row, got := it.Next()
		m.iters = append(m.iters, it)
		m.heads = append(m.heads, row)
		m.srcIdx = append(m.srcIdx, i)
		m.owned = append(m.owned, owned)
		if !got {
			m.heads[i] = nil
			fast = false
			if err := it.Err(); err != nil && m.err == nil {
				m.err = wrapCorruption(err)
			}
			continue
		}
		pm.stats.RowsRead++
		pm.stats.CellsRead += len(row.Cells)
		pm.stats.Sources[i].Rows++
		if !fast {
			continue
		}
		e, isE := it.(endsAfterRow)
		if !owned || !isE || (i > 0 && !bytes.Equal(row.Clustering, m.heads[0].Clustering)) || !e.EndsAfterRow() {
			fast = false
		}
	}
	if !fast {
		// The rows read are the merger's heads, as add would leave
		// them: the general merge goes on from there.
		return nil, false, false
	}
	for i := range m.heads {
		m.same = append(m.same, i)
	}
	r = m.heads[0]
	if len(m.same) > 1 {
		r = m.reconcile()
	}
	m.same = m.same[:0]
	r.PurgeShadowed(pm.del)
	pm.p.row(r)
	if r.IsEmpty() {
		return nil, false, true
	}
	return r, true, true
}

// shadowed is narrow for versions that are all onlyParts, none of them
// decoded yet, when one of them shadows all the others whole: that one
// (the version of the input with the largest maximum timestamp, pm.maxTS)
// is decoded, and each of the others is read where its record lies only
// as far as it takes to show (sstable's OnlyRowShadowedBy) that
// rowMerger.dominant would choose the decoded row and return it as it is.
// The decoded row must not have an empty liveness, a row or column
// deletion or a counter cell; each other version must be of its
// clustering, without a row or column deletion, with a liveness timestamp
// below its own and only cells it holds (same column and path) at
// strictly later timestamps. Every version then carries a liveness
// timestamp below the decoded one's (an empty liveness's is NoTimestamp),
// so dominant picks the decoded row, and its checks pass: the general
// narrow path would return that row, then purged as here. The others are
// consumed undecoded (onlyPart.skip); their rows and cells are counted as
// if read. done is false, with nothing consumed, when the versions are of
// another shape; the one decoded stays decoded for the general path.
func (pm *partMerge) shadowed(parts []data.PartitionSource) (r *data.Row, ok, done bool) {
	if len(parts) < 2 || len(pm.maxTS) != len(parts) || pm.noSkip {
		return nil, false, false
	}
	w := 0
	for i, ps := range parts {
		op, isOnly := ps.(*onlyPart)
		if !isOnly || op.state != onlyPending || op.rows.done {
			return nil, false, false
		}
		if pm.maxTS[i] > pm.maxTS[w] {
			w = i
		}
	}
	wp := parts[w].(*onlyPart)
	if !wp.decode() {
		return nil, false, false
	}
	a := &wp.row
	if a.Liveness.IsEmpty() || a.Deletion != data.LiveDeletion || len(a.ColumnDeletions) > 0 {
		return nil, false, false
	}
	for i := range a.Cells {
		if a.Cells[i].Kind == data.CellCounter {
			return nil, false, false
		}
	}
	cells := len(a.Cells)
	for i, ps := range parts {
		if i == w {
			continue
		}
		n, ok := ps.(*onlyPart).shadowedBy(a)
		if !ok {
			return nil, false, false
		}
		cells += n
	}
	for i, ps := range parts {
		if i != w {
			ps.(*onlyPart).skip()
		}
		pm.stats.Sources[i].Rows++
	}
	wp.rows.done = true
	pm.stats.RowsRead += len(parts)
	pm.stats.CellsRead += cells
	pm.skipped += len(parts) - 1
	a.PurgeShadowed(pm.del)
	pm.p.row(a)
	if a.IsEmpty() {
		return nil, false, true
	}
	return a, true, true
}
