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
