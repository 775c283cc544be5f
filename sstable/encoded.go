package sstable

import (
	"github.com/minicass/minicass/data"
)

// EncodedRows is what a merge uses of a row iterator (Partition.Rows) to
// decide on a row's encoded bytes before, or instead of, decoding it: a
// compaction that finds several versions of a row decodes the one that
// supersedes the others and only checks the others' bytes against it.
// Encoded reports whether the iterator's SSTable has the encoding the other
// methods read (format version 2 or later); when it is false, only Next
// may be used.
type EncodedRows interface {
	Encoded() bool
	// NextEncoded moves to the next row as Next does and returns its
	// encoded bytes, undecoded, and its clustering (which aliases them).
	// Both stay valid through the next call to Next or NextEncoded.
	NextEncoded() (raw, clustering []byte, ok bool)
	// DecodeEncoded decodes raw, the row NextEncoded returned last, into
	// the row Next would have returned for it (and counts it read). On
	// failure it returns false and Err reports why.
	DecodeEncoded(raw []byte) (*data.Row, bool)
	// LivenessTimestamp returns the liveness timestamp of the encoded row
	// raw (data.NoTimestamp when it has none); false if raw is malformed
	// before it.
	LivenessTimestamp(raw []byte) (int64, bool)
	// SupersededBy reports whether the encoded row raw is superseded in
	// full by the decoded row a, in the sense of engine's rowMerger: raw
	// is well formed (DecodeEncoded would succeed), has neither a row
	// deletion nor collection deletions nor counter cells, its liveness
	// does not supersede a's, and each of its cells has a cell of a with
	// the same column and path at a strictly later timestamp. It decodes
	// nothing into the iterator's row.
	SupersededBy(raw []byte, a *data.Row) bool
}

// Encoded reports whether the SSTable's rows have the version-2 encoding
// that NextEncoded's callers read.
func (it *rowIter) Encoded() bool { return it.p.r.version >= 2 }

// NextEncoded implements EncodedRows.
func (it *rowIter) NextEncoded() (raw, clustering []byte, ok bool) {
	raw, rowPos, ok := it.nextRecord()
	if !ok {
		return nil, nil, false
	}
	ck, ok := clusteringOf(raw)
	if !ok {
		it.err = it.p.r.dataErr(rowPos, nil, "bad clustering")
		return nil, nil, false
	}
	it.rawPos = rowPos
	return raw, ck, true
}

// DecodeEncoded implements EncodedRows.
func (it *rowIter) DecodeEncoded(raw []byte) (*data.Row, bool) {
	return it.decode(raw, it.rawPos)
}

// LivenessTimestamp implements EncodedRows.
func (it *rowIter) LivenessTimestamp(raw []byte) (int64, bool) {
	p := in{b: raw}
	p.bytes("clustering", true)
	flags := p.byte1("row flags")
	if p.what != "" {
		return 0, false
	}
	if flags&rowHasTimestamp == 0 {
		return data.NoTimestamp, true
	}
	ts := it.p.r.rows.timestamp(&p, "liveness timestamp")
	return ts, p.what == ""
}

// SupersededBy implements EncodedRows. It reads raw as rowDecoder.row and
// cell read it, with the same checks, so that a row it reports superseded
// would decode.
func (it *rowIter) SupersededBy(raw []byte, a *data.Row) bool {
	d := &it.p.r.rows
	if v, ok := narrowSupersededBy(d, raw, a); ok {
		return v
	}
	p := in{b: raw}
	p.bytes("clustering", true)
	flags := p.byte1("row flags")
	if flags&(rowFlagsReserved|rowHasDeletion|rowHasColumnDels) != 0 {
		return false
	}
	l := data.EmptyLiveness
	if flags&rowHasTimestamp != 0 {
		l.Timestamp = d.timestamp(&p, "liveness timestamp")
	}
	if flags&rowHasTTL != 0 {
		l.TTL = d.ttl(&p, "liveness ttl", true)
	}
	if flags&rowHasExpiry != 0 {
		l.ExpiresAt = d.ldt(&p, "liveness expiry")
	}
	if p.what != "" || l.Supersedes(a.Liveness) {
		return false
	}
	n := uint64(1)
	if flags&rowOneCell == 0 {
		if n = p.uvarint("cells"); n == 1 || n > uint64(len(p.b)-p.off)/2 {
			return false
		}
	}
	j := 0
	var c data.Cell
	for range n {
		cf := p.byte1("cell flags")
		if cf&cellCounter != 0 {
			return false // a counter, or an invalid kind
		}
		if cf&cellRowExpiry != 0 && (cf&(cellHasTTL|cellHasDeletionTime) != 0 || flags&(rowHasTTL|rowHasExpiry) != rowHasTTL|rowHasExpiry) {
			return false
		}
		if cf&cellRowTimestamp != 0 && flags&rowHasTimestamp == 0 {
			return false
		}
		c.Column = d.column(&p)
		c.Path = nil
		if cf&cellHasPath != 0 {
			c.Path = p.bytes("cell path", false)
		}
		if cf&cellRowTimestamp != 0 {
			c.Timestamp = l.Timestamp
		} else {
			c.Timestamp = d.timestamp(&p, "cell timestamp")
		}
		if cf&cellRowExpiry != 0 {
			if l.TTL > data.MaxTTL {
				return false
			}
		} else {
			if cf&cellHasTTL != 0 {
				d.ttl(&p, "cell ttl", false)
			}
			if cf&cellHasDeletionTime != 0 {
				d.ldt(&p, "cell deletion time")
			}
		}
		if cf&cellHasValue != 0 {
			p.bytes("cell value", false)
		}
		if p.what != "" {
			return false
		}
		for j < len(a.Cells) && data.CompareID(&a.Cells[j], &c) < 0 {
			j++
		}
		if j == len(a.Cells) || data.CompareID(&a.Cells[j], &c) != 0 || a.Cells[j].Timestamp <= c.Timestamp {
			return false
		}
		j++
	}
	return p.what == "" && p.off == len(raw)
}

// narrowSupersededBy is SupersededBy for the common shape of a narrow row,
// read in place: a clustering and a value shorter than 128 bytes, a
// liveness timestamp without expiry, and one regular cell at that
// timestamp, without path, TTL or deletion time, whose column is one of the
// first 127 of the dictionary. ok is false when raw has another shape; when
// it is true, raw is a row that decodes (every field read is checked as
// rowDecoder checks it).
func narrowSupersededBy(d *rowDecoder, raw []byte, a *data.Row) (superseded, ok bool) {
	if len(raw) == 0 || raw[0] >= 0x80 {
		return false, false
	}
	off := 1 + int(raw[0])
	if off >= len(raw) || raw[off] != rowHasTimestamp|rowOneCell {
		return false, false
	}
	p := in{b: raw, off: off + 1}
	ts := d.timestamp(&p, "liveness timestamp")
	off = p.off
	if p.what != "" || off+3 > len(raw) || raw[off] != cellRowTimestamp|cellHasValue {
		return false, false
	}
	ref, vl := raw[off+1], raw[off+2]
	if ref == 0 || ref >= 0x80 || int(ref) > len(d.names) || vl >= 0x80 || off+3+int(vl) != len(raw) {
		return false, false
	}
	if (data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}).Supersedes(a.Liveness) {
		return false, true
	}
	col := d.names[ref-1]
	for j := range a.Cells {
		if c := &a.Cells[j]; c.Column == col && len(c.Path) == 0 {
			return c.Timestamp > ts, true
		}
	}
	return false, true
}
