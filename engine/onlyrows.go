package engine

import "github.com/minicass/minicass/data"

// onlyRowScanner is the SSTable streaming scan's NextOnlyRow
// (sstable.Reader.ScanStream), which hands out a partition of one row
// with its row decoded.
type onlyRowScanner interface {
	NextOnlyRow(dst []byte, row *data.Row) (ps data.PartitionSource, out []byte, only, ok bool)
}

// onlyRows is a compaction input's streaming scan read through
// NextOnlyRow: a partition of one row and nothing else comes with its row
// decoded, in the iterator's own row (its bytes in the scan's chunk, or in
// the iterator's buffer when the record straddles chunks), which the next
// partition reuses, and the merge takes it without a row iterator
// (partMerge.narrow, onlyRowPart). Any other partition is the scan's, as
// its Next returns it.
type onlyRows struct {
	src  data.PartitionIterator
	ors  onlyRowScanner
	buf  []byte
	part onlyPart
}

// newOnlyRows returns src read through NextOnlyRow, or src itself when it
// has none.
func newOnlyRows(src data.PartitionIterator) data.PartitionIterator {
	ors, ok := src.(onlyRowScanner)
	if !ok {
		return src
	}
	it := &onlyRows{src: src, ors: ors}
	it.part.rows.p = &it.part
	return it
}

// Next returns the next partition; a partition of one row is valid, with
// its row, until the next call.
func (it *onlyRows) Next() (data.PartitionSource, bool) {
	p := &it.part
	row := &p.row
	ps, buf, only, ok := it.ors.NextOnlyRow(it.buf[:0], row)
	it.buf = buf
	if !ok || !only {
		return ps, ok
	}
	p.PartitionSource, p.rows.done = ps, false
	return p, true
}

func (it *onlyRows) Err() error   { return it.src.Err() }
func (it *onlyRows) Close() error { return it.src.Close() }

// onlyPart is the partition of one row onlyRows' Next returns (one,
// reused): the scan's partition, whose row is decoded.
type onlyPart struct {
	data.PartitionSource
	row  data.Row
	rows onlyRowIter
}

// Size returns the partition's size in the stream, known once NextOnlyRow
// has read it.
func (p *onlyPart) Size() uint64 {
	if sz, ok := p.PartitionSource.(interface{ Size() uint64 }); ok {
		return sz.Size()
	}
	return 0
}

// Rows returns the iterator over the one row (in either order), or over
// none when slices leave it out. A compaction reads the whole partition.
func (p *onlyPart) Rows(slices data.Slices, reverse bool) data.RowIterator {
	if len(slices) > 0 && !slices.Contains(p.row.Clustering) {
		p.rows.done = true
	}
	return &p.rows
}

// takeOnly returns the row, if the partition's row iterator has not
// returned it, and leaves that iterator at its end.
func (p *onlyPart) takeOnly() (*data.Row, data.RowIterator) {
	if p.rows.done {
		return nil, nil
	}
	p.rows.done = true
	return &p.row, &p.rows
}

// onlyRowIter iterates over an onlyPart's row.
type onlyRowIter struct {
	p    *onlyPart
	done bool
}

func (it *onlyRowIter) Next() (*data.Row, bool) {
	if it.done {
		return nil, false
	}
	it.done = true
	return &it.p.row, true
}

// EndsAfterRow reports that the row returned is the partition's last.
func (it *onlyRowIter) EndsAfterRow() bool { return it.done }

func (it *onlyRowIter) Err() error      { return nil }
func (it *onlyRowIter) OwnedRows() bool { return true }
func (it *onlyRowIter) Close() error    { return nil }
