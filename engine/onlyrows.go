package engine

import "github.com/minicass/minicass/data"

// onlyRowScanner is the SSTable streaming scan's NextOnlyRecord
// (sstable.Reader.ScanStream), which hands out a partition of one row
// with its row record found, to be decoded (DecodeOnlyRow) or shown to be
// shadowed by another version without being decoded (OnlyRowShadowedBy).
type onlyRowScanner interface {
	NextOnlyRecord(dst []byte) (ps data.PartitionSource, out []byte, only, ok bool)
	DecodeOnlyRow(row *data.Row) bool
	OnlyRowShadowedBy(a *data.Row) (cells int, ok bool)
}

// onlyRows is a compaction input's streaming scan read through
// NextOnlyRecord: a partition of one row and nothing else comes with its
// row record found, decoded on first use into the iterator's own row (its
// bytes in the scan's chunk, or in the iterator's buffer when the record
// straddles chunks), which the next partition reuses, and the merge takes
// it without a row iterator (partMerge.narrow, onlyRowPart), or skips it
// undecoded when another version shadows it whole (partMerge.shadowed).
// Any other partition is the scan's, as its Next returns it.
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
	it.part.ors = ors
	return it
}

// Next returns the next partition; a partition of one row is valid, with
// its row, until the next call.
func (it *onlyRows) Next() (data.PartitionSource, bool) {
	p := &it.part
	ps, buf, only, ok := it.ors.NextOnlyRecord(it.buf[:0])
	it.buf = buf
	if !ok || !only {
		return ps, ok
	}
	p.PartitionSource, p.rows.done, p.state = ps, false, onlyPending
	p.token, p.key = ps.Token(), ps.Key()
	return p, true
}

func (it *onlyRows) Err() error   { return it.src.Err() }
func (it *onlyRows) Close() error { return it.src.Close() }

// onlyPart is the partition of one row onlyRows' Next returns (one,
// reused): the scan's partition, whose row is decoded on first use. Its
// header holds no partition deletion, static row or range tombstone
// (NextOnlyRecord's only), which partMerge relies on; its token and key
// are the scan partition's, kept for the merge's comparisons.
type onlyPart struct {
	data.PartitionSource
	token int64
	key   []byte
	ors   onlyRowScanner
	state onlyState
	row   data.Row
	rows  onlyRowIter
}

// onlyState is where an onlyPart's row record is.
type onlyState uint8

const (
	onlyPending onlyState = iota // found, not decoded
	onlyDecoded                  // decoded into row
	onlySkipped                  // shadowed by another version, never decoded
	onlyFailed                   // does not decode: read through the scan's Rows
)

// Token returns the partition's token.
func (p *onlyPart) Token() int64 { return p.token }

// Key returns the partition's key, valid until the next partition.
func (p *onlyPart) Key() []byte { return p.key }

// decode decodes the row if it is pending and reports whether it is there.
func (p *onlyPart) decode() bool {
	if p.state == onlyPending {
		p.state = onlyFailed
		if p.ors.DecodeOnlyRow(&p.row) {
			p.state = onlyDecoded
		}
	}
	return p.state == onlyDecoded
}

// shadowedBy reports whether the row, still undecoded, is shadowed
// by a (OnlyRowShadowedBy), and the number of its cells; it is not
// consumed (skip does that).
func (p *onlyPart) shadowedBy(a *data.Row) (cells int, ok bool) {
	if p.state != onlyPending || p.rows.done {
		return 0, false
	}
	return p.ors.OnlyRowShadowedBy(a)
}

// skip consumes the row undecoded, after shadowedBy said it may: the
// partition's row iterator is left at its end.
func (p *onlyPart) skip() {
	p.state, p.rows.done = onlySkipped, true
}

// Size returns the partition's size in the stream, known once NextOnlyRecord
// has read it.
func (p *onlyPart) Size() uint64 {
	if sz, ok := p.PartitionSource.(interface{ Size() uint64 }); ok {
		return sz.Size()
	}
	return 0
}

// Rows returns the iterator over the one row (in either order), or over
// none when slices leave it out. A compaction reads the whole partition.
// When the row does not decode, it is the scan's own row iterator, which
// says what is wrong.
func (p *onlyPart) Rows(slices data.Slices, reverse bool) data.RowIterator {
	if p.state != onlySkipped && !p.decode() {
		return p.PartitionSource.Rows(slices, reverse)
	}
	if len(slices) > 0 && !slices.Contains(p.row.Clustering) {
		p.rows.done = true
	}
	return &p.rows
}

// takeOnly returns the row, if the partition's row iterator has not
// returned it, and leaves that iterator at its end.
func (p *onlyPart) takeOnly() (*data.Row, data.RowIterator) {
	if p.rows.done || !p.decode() {
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
