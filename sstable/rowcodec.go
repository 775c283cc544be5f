package sstable

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/minicass/minicass/data"
)

// Row encoding of format version 2. Part of the file format.
//
// Version 1 stored rows, deletions and range tombstones in the encodings of
// package data (the commit log's), where every value is spelled out: a
// narrow row of one cell carried about 40 bytes of constants (a live row
// deletion and a cell without expiry are three 10-byte varints of
// math.MinInt64 and math.MaxInt64) and two absolute microsecond
// timestamps. Version 2 follows Cassandra's UnfilteredSerializer and
// Cell.Serializer (db/rows, read at apache/cassandra 02009b6; the layout
// is minicass's own): a flags byte says which fields are present, absent
// fields take their "nothing" value, a cell written at its row's timestamp
// or expiry says so instead of repeating them, column names are numbers
// into a per-SSTable dictionary, and timestamps, local deletion times and
// TTLs are zig-zag varint deltas against per-SSTable bases kept in
// Statistics.db (Cassandra's EncodingStats in the SerializationHeader):
//
//	deletion  := varint(markedForDeleteAt - baseTimestamp)
//	             varint(localDeletionTime - baseLocalDeletionTime)
//	row       := bytes(clustering) rowFlags:byte
//	             [varint(livenessTimestamp - baseTimestamp)]   rowFlags & 0x01
//	             [varint(livenessTTL - baseTTL)]               rowFlags & 0x02
//	             [varint(livenessExpiresAt - baseLocalDeletionTime)]  rowFlags & 0x04
//	             [deletion]                                    rowFlags & 0x08
//	             [uvarint(n) n*(column deletion)]              rowFlags & 0x10
//	             [uvarint(nCells)]                             unless rowFlags & 0x20
//	             cell*                                         (one if rowFlags & 0x20)
//	column    := uvarint(ref)  [bytes(name) if ref == 0]       -- ref > 0: dictionary[ref-1]
//	column deletion := column deletion
//	cell      := cellFlags:byte column
//	             [bytes(path)]                                 cellFlags & 0x04
//	             [varint(timestamp - baseTimestamp)]           unless cellFlags & 0x10
//	             [varint(ttl - baseTTL)]                       cellFlags & 0x40
//	             [varint(localDeletionTime - baseLocalDeletionTime)]  cellFlags & 0x80
//	             [bytes(value)]                                cellFlags & 0x08
//	rangetomb := optbytes(start) optbytes(end) deletion
//
// Row flags: 0x01 has a liveness timestamp (else NoTimestamp), 0x02 has a
// liveness TTL (else 0), 0x04 has a liveness expiry (else NoDeletionTime),
// 0x08 has a row deletion (else LiveDeletion), 0x10 has column deletions,
// 0x20 holds exactly one cell (no count), 0x40 and 0x80 reserved (0).
//
// Cell flags: 0x01 tombstone, 0x02 counter (both: invalid), 0x04 has a
// path (else nil), 0x08 has a value (else nil; an empty value is a value
// of length 0), 0x10 the row's liveness timestamp, 0x20 the row's liveness
// TTL and expiry as TTL and local deletion time (neither 0x40 nor 0x80 may
// then be set), 0x40 has a TTL (else 0), 0x80 has a local deletion time
// (else NoDeletionTime).
//
// Arithmetic on deltas wraps (two's complement), so every int64 round
// trips whatever the base; a base close to the values keeps the deltas
// short. The writer takes as base the first value of each kind it encodes.
// A TTL decodes only in (0, data.MaxTTL], or data.ExpiredTTL for a
// liveness record, as version 1 decodes it.

// Row flags (version 2).
const (
	rowHasTimestamp     = 0x01
	rowHasTTL           = 0x02
	rowHasExpiry        = 0x04
	rowHasDeletion      = 0x08
	rowHasColumnDels    = 0x10
	rowOneCell          = 0x20
	rowFlagsReserved    = 0xc0
	cellTombstone       = 0x01
	cellCounter         = 0x02
	cellHasPath         = 0x04
	cellHasValue        = 0x08
	cellRowTimestamp    = 0x10
	cellRowExpiry       = 0x20
	cellHasTTL          = 0x40
	cellHasDeletionTime = 0x80
)

// maxColumnDictionary bounds the column dictionary of one SSTable; names
// past it are written inline (column ref 0).
const maxColumnDictionary = 4096

// EncodingStats are the bases a version-2 SSTable's timestamps, local
// deletion times and TTLs are encoded against (Cassandra's EncodingStats).
// They are not bounds: every value is a signed delta from its base.
type EncodingStats struct {
	Timestamp         int64
	LocalDeletionTime int64
	TTL               int32
}

// rowEncoder encodes rows in the version-2 encoding, choosing the bases as
// the first value of each kind it meets, and numbering column names as
// they come.
type rowEncoder struct {
	enc                 EncodingStats
	tsSet, ldtSet, ttlS bool
	names               []string
	refs                map[string]uint64
	// last is the index in names of the last column looked up: the cells
	// of consecutive rows mostly name the same columns in the same order.
	last int
}

func (e *rowEncoder) appendTimestamp(b []byte, ts int64) []byte {
	if !e.tsSet {
		e.enc.Timestamp, e.tsSet = ts, true
	}
	return binary.AppendVarint(b, ts-e.enc.Timestamp)
}

func (e *rowEncoder) appendLDT(b []byte, t int64) []byte {
	if !e.ldtSet {
		e.enc.LocalDeletionTime, e.ldtSet = t, true
	}
	return binary.AppendVarint(b, t-e.enc.LocalDeletionTime)
}

func (e *rowEncoder) appendTTL(b []byte, ttl int32) []byte {
	if !e.ttlS {
		e.enc.TTL, e.ttlS = ttl, true
	}
	return binary.AppendVarint(b, int64(ttl)-int64(e.enc.TTL))
}

func (e *rowEncoder) appendDeletion(b []byte, d data.DeletionTime) []byte {
	b = e.appendTimestamp(b, d.MarkedForDeleteAt)
	return e.appendLDT(b, d.LocalDeletionTime)
}

// appendColumn appends the column reference of name, adding it to the
// dictionary when there is room. The dictionary keeps a copy of name: a
// caller's column names may be strings over bytes it reuses (a flush's
// batch copies of memtable rows).
func (e *rowEncoder) appendColumn(b []byte, name string) []byte {
	if e.last < len(e.names) && e.names[e.last] == name {
		return binary.AppendUvarint(b, uint64(e.last)+1)
	}
	if e.last+1 < len(e.names) && e.names[e.last+1] == name {
		e.last++
		return binary.AppendUvarint(b, uint64(e.last)+1)
	}
	ref, ok := e.refs[name]
	if !ok {
		if len(e.names) >= maxColumnDictionary {
			b = append(b, 0)
			return appendBytes(b, []byte(name))
		}
		if e.refs == nil {
			e.refs = make(map[string]uint64)
		}
		name = strings.Clone(name)
		e.names = append(e.names, name)
		ref = uint64(len(e.names))
		e.refs[name] = ref
	}
	e.last = int(ref - 1)
	return binary.AppendUvarint(b, ref)
}

// appendRow appends the version-2 encoding of r.
func (e *rowEncoder) appendRow(b []byte, r *data.Row) []byte {
	b = appendBytes(b, r.Clustering)
	var flags byte
	l := r.Liveness
	if l.Timestamp != data.NoTimestamp {
		flags |= rowHasTimestamp
	}
	if l.TTL != 0 {
		flags |= rowHasTTL
	}
	if l.ExpiresAt != data.NoDeletionTime {
		flags |= rowHasExpiry
	}
	if r.Deletion != data.LiveDeletion {
		flags |= rowHasDeletion
	}
	if len(r.ColumnDeletions) > 0 {
		flags |= rowHasColumnDels
	}
	if len(r.Cells) == 1 {
		flags |= rowOneCell
	}
	b = append(b, flags)
	if flags&rowHasTimestamp != 0 {
		b = e.appendTimestamp(b, l.Timestamp)
	}
	if flags&rowHasTTL != 0 {
		b = e.appendTTL(b, l.TTL)
	}
	if flags&rowHasExpiry != 0 {
		b = e.appendLDT(b, l.ExpiresAt)
	}
	if flags&rowHasDeletion != 0 {
		b = e.appendDeletion(b, r.Deletion)
	}
	if flags&rowHasColumnDels != 0 {
		b = binary.AppendUvarint(b, uint64(len(r.ColumnDeletions)))
		for i := range r.ColumnDeletions {
			cd := &r.ColumnDeletions[i]
			b = e.appendColumn(b, cd.Column)
			b = e.appendDeletion(b, cd.Deletion)
		}
	}
	if flags&rowOneCell == 0 {
		b = binary.AppendUvarint(b, uint64(len(r.Cells)))
	}
	rowTS := flags&rowHasTimestamp != 0
	rowExp := flags&(rowHasTTL|rowHasExpiry) == rowHasTTL|rowHasExpiry
	for i := range r.Cells {
		b = e.appendCell(b, &r.Cells[i], &l, rowTS, rowExp)
	}
	return b
}

// appendPlainRow appends the version-2 encoding of the plain row p (see
// Writer.AddPlainNarrowPartition): the bytes appendRow writes for the
// data.Row p stands for, whose cells all take the row's timestamp
// (cellRowTimestamp) and have no TTL or local deletion time, so that
// their flags are cellRowTimestamp and cellHasValue when they hold a
// value, and nothing follows their column but the value.
func (e *rowEncoder) appendPlainRow(b []byte, p *plainRow) []byte {
	b = appendBytes(b, p.ck)
	if len(p.columns) == 1 {
		b = append(b, rowHasTimestamp|rowOneCell)
		b = e.appendTimestamp(b, p.ts)
	} else {
		b = append(b, rowHasTimestamp)
		b = e.appendTimestamp(b, p.ts)
		b = binary.AppendUvarint(b, uint64(len(p.columns)))
	}
	for i, col := range p.columns {
		v := p.values[i]
		if v == nil {
			b = append(b, cellRowTimestamp)
			b = e.appendColumn(b, col)
			continue
		}
		b = append(b, cellRowTimestamp|cellHasValue)
		b = e.appendColumn(b, col)
		b = appendBytes(b, v)
	}
	return b
}

func (e *rowEncoder) appendCell(b []byte, c *data.Cell, l *data.LivenessInfo, rowTS, rowExp bool) []byte {
	var flags byte
	switch c.Kind {
	case data.CellTombstone:
		flags |= cellTombstone
	case data.CellCounter:
		flags |= cellCounter
	}
	if c.Path != nil {
		flags |= cellHasPath
	}
	if c.Value != nil {
		flags |= cellHasValue
	}
	if rowTS && c.Timestamp == l.Timestamp {
		flags |= cellRowTimestamp
	}
	if rowExp && c.TTL == l.TTL && c.LocalDeletionTime == l.ExpiresAt {
		flags |= cellRowExpiry
	} else {
		if c.TTL != 0 {
			flags |= cellHasTTL
		}
		if c.LocalDeletionTime != data.NoDeletionTime {
			flags |= cellHasDeletionTime
		}
	}
	b = append(b, flags)
	b = e.appendColumn(b, c.Column)
	if flags&cellHasPath != 0 {
		b = appendBytes(b, c.Path)
	}
	if flags&cellRowTimestamp == 0 {
		b = e.appendTimestamp(b, c.Timestamp)
	}
	if flags&cellHasTTL != 0 {
		b = e.appendTTL(b, c.TTL)
	}
	if flags&cellHasDeletionTime != 0 {
		b = e.appendLDT(b, c.LocalDeletionTime)
	}
	if flags&cellHasValue != 0 {
		b = appendBytes(b, c.Value)
	}
	return b
}

// appendRangeTombstone appends the version-2 encoding of rt.
func (e *rowEncoder) appendRangeTombstone(b []byte, rt *data.RangeTombstone) []byte {
	b = appendOptBytes(b, rt.Start)
	b = appendOptBytes(b, rt.End)
	return e.appendDeletion(b, rt.Deletion)
}

func appendOptBytes(b, s []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}

// rowDecoder decodes the version-2 encodings of one SSTable: its bases
// and column dictionary, from Statistics.db.
type rowDecoder struct {
	enc   EncodingStats
	names []string
}

// in reads the encodings at b[off:]: plain indexes, every read bounds
// checked; the first failure is kept (what) and every later read returns
// zero values.
type in struct {
	b    []byte
	off  int
	what string
}

func (p *in) fail(what string) {
	if p.what == "" {
		p.what = what
	}
	p.off = len(p.b)
}

func (p *in) byte1(what string) byte {
	if p.off >= len(p.b) {
		p.fail(what)
		return 0
	}
	c := p.b[p.off]
	p.off++
	return c
}

func (p *in) uvarint(what string) uint64 {
	if p.off < len(p.b) && p.b[p.off] < 0x80 {
		v := uint64(p.b[p.off])
		p.off++
		return v
	}
	v, n := binary.Uvarint(p.b[min(p.off, len(p.b)):])
	if n <= 0 {
		p.fail(what)
		return 0
	}
	p.off += n
	return v
}

func (p *in) varint(what string) int64 {
	u := p.uvarint(what)
	return int64(u>>1) ^ -int64(u&1)
}

// bytes reads a length-prefixed string; empty reads as nil when nilEmpty,
// else as a non-nil empty slice.
func (p *in) bytes(what string, nilEmpty bool) []byte {
	n := p.uvarint(what)
	if n > uint64(len(p.b)-p.off) {
		p.fail(what)
		return nil
	}
	if n == 0 {
		if nilEmpty || p.what != "" {
			return nil
		}
		return []byte{}
	}
	end := p.off + int(n)
	s := p.b[p.off:end:end]
	p.off = end
	return s
}

// optBytes reads optbytes: 0 nil, else length+1.
func (p *in) optBytes(what string) []byte {
	n := p.uvarint(what)
	switch {
	case n == 0 || p.what != "":
		return nil
	case n-1 > uint64(len(p.b)-p.off):
		p.fail(what)
		return nil
	}
	end := p.off + int(n-1)
	s := p.b[p.off:end:end]
	p.off = end
	if s == nil {
		s = []byte{}
	}
	return s
}

func (d *rowDecoder) timestamp(p *in, what string) int64 {
	return d.enc.Timestamp + p.varint(what)
}

func (d *rowDecoder) ldt(p *in, what string) int64 {
	return d.enc.LocalDeletionTime + p.varint(what)
}

// ttl reads a TTL, which must be in (0, MaxTTL], or ExpiredTTL for a
// liveness record.
func (d *rowDecoder) ttl(p *in, what string, liveness bool) int32 {
	v := int64(d.enc.TTL) + p.varint(what)
	if v <= 0 || v > data.MaxTTL && !(liveness && v == int64(data.ExpiredTTL)) {
		p.fail(what)
		return 0
	}
	return int32(v)
}

func (d *rowDecoder) deletion(p *in, what string) data.DeletionTime {
	return data.DeletionTime{MarkedForDeleteAt: d.timestamp(p, what), LocalDeletionTime: d.ldt(p, what)}
}

// column reads a column reference. A name written inline (past the
// dictionary's bound) is a fresh string.
func (d *rowDecoder) column(p *in) string {
	ref := p.uvarint("column")
	if ref == 0 {
		return string(p.bytes("column name", true))
	}
	if ref > uint64(len(d.names)) {
		p.fail("column reference")
		return ""
	}
	return d.names[ref-1]
}

// decodeRow decodes a whole version-2 row from b into r, reusing r's cell
// and column-deletion arrays as data.Decoder.RowInto does, and returns ""
// or what was bad. r is overwritten field by field, also on failure.
func (d *rowDecoder) decodeRow(b []byte, r *data.Row) string {
	p := in{b: b}
	d.row(&p, r)
	if p.what == "" && p.off != len(b) {
		return "trailing bytes after row"
	}
	return p.what
}

func (d *rowDecoder) row(p *in, r *data.Row) {
	cells, cds := r.Cells[:0], r.ColumnDeletions[:0]
	r.Cells, r.ColumnDeletions = nil, nil
	r.Clustering = p.bytes("clustering", true)
	flags := p.byte1("row flags")
	if flags&rowFlagsReserved != 0 {
		p.fail("row flags")
	}
	r.Liveness = data.EmptyLiveness
	if flags&rowHasTimestamp != 0 {
		r.Liveness.Timestamp = d.timestamp(p, "liveness timestamp")
	}
	if flags&rowHasTTL != 0 {
		r.Liveness.TTL = d.ttl(p, "liveness ttl", true)
	}
	if flags&rowHasExpiry != 0 {
		r.Liveness.ExpiresAt = d.ldt(p, "liveness expiry")
	}
	r.Deletion = data.LiveDeletion
	if flags&rowHasDeletion != 0 {
		r.Deletion = d.deletion(p, "row deletion")
	}
	if flags&rowHasColumnDels != 0 {
		n := p.uvarint("column deletions")
		// Each takes at least 3 bytes (column ref, two varints).
		if n == 0 || n > uint64(len(p.b)-p.off)/3 {
			p.fail("column deletions")
			return
		}
		if uint64(cap(cds)) < n {
			cds = make([]data.ColumnDeletion, n)
		}
		cds = cds[:n]
		for i := range cds {
			cds[i].Column = d.column(p)
			cds[i].Deletion = d.deletion(p, "column deletion")
		}
		r.ColumnDeletions = cds
	}
	n := uint64(1)
	if flags&rowOneCell == 0 {
		// Each cell takes at least 2 bytes (flags, column ref).
		if n = p.uvarint("cells"); n == 1 || n > uint64(len(p.b)-p.off)/2 {
			p.fail("cells")
			return
		}
	}
	if n == 0 || p.what != "" {
		return
	}
	if uint64(cap(cells)) < n {
		cells = make([]data.Cell, n)
	}
	cells = cells[:n]
	for i := range cells {
		d.cell(p, &cells[i], &r.Liveness, flags)
	}
	r.Cells = cells
}

func (d *rowDecoder) cell(p *in, c *data.Cell, l *data.LivenessInfo, rowFlags byte) {
	flags := p.byte1("cell flags")
	switch {
	case flags&(cellTombstone|cellCounter) == cellTombstone|cellCounter:
		p.fail("cell kind")
	case flags&cellTombstone != 0:
		c.Kind = data.CellTombstone
	case flags&cellCounter != 0:
		c.Kind = data.CellCounter
	default:
		c.Kind = data.CellRegular
	}
	if flags&cellRowExpiry != 0 && (flags&(cellHasTTL|cellHasDeletionTime) != 0 || rowFlags&(rowHasTTL|rowHasExpiry) != rowHasTTL|rowHasExpiry) {
		p.fail("cell flags")
	}
	if flags&cellRowTimestamp != 0 && rowFlags&rowHasTimestamp == 0 {
		p.fail("cell flags")
	}
	c.Column = d.column(p)
	c.Path = nil
	if flags&cellHasPath != 0 {
		c.Path = p.bytes("cell path", false)
	}
	if flags&cellRowTimestamp != 0 {
		c.Timestamp = l.Timestamp
	} else {
		c.Timestamp = d.timestamp(p, "cell timestamp")
	}
	c.TTL, c.LocalDeletionTime = 0, data.NoDeletionTime
	switch {
	case flags&cellRowExpiry != 0:
		if l.TTL > data.MaxTTL {
			p.fail("cell ttl") // the row's is ExpiredTTL, which no cell has
		}
		c.TTL, c.LocalDeletionTime = l.TTL, l.ExpiresAt
	default:
		if flags&cellHasTTL != 0 {
			c.TTL = d.ttl(p, "cell ttl", false)
		}
		if flags&cellHasDeletionTime != 0 {
			c.LocalDeletionTime = d.ldt(p, "cell deletion time")
		}
	}
	c.Value = nil
	if flags&cellHasValue != 0 {
		c.Value = p.bytes("cell value", false)
	}
}

// decodeRangeTombstone decodes a version-2 range tombstone.
func (d *rowDecoder) rangeTombstone(p *in) data.RangeTombstone {
	start := p.optBytes("range start")
	end := p.optBytes("range end")
	return data.RangeTombstone{Start: start, End: end, Deletion: d.deletion(p, "range deletion")}
}

// shadowedBy reads the version-2 row record b as decodeRow would, without
// storing it, and reports whether it decodes and a merge with a would
// reduce it to a unchanged (package engine's rowMerger.dominant, for the
// decoded row): it is a's clustering, has no row or column deletion, its
// liveness timestamp is below a's (NoTimestamp when it has none; a's is not
// empty, which the caller checks), and each of its cells is neither a
// counter nor of a path, and a holds a cell of its column and path
// (data.CompareID) with a strictly later timestamp. cells is the number of
// its cells. Anything decodeRow would reject reads as false (its checks,
// on a cursor of its own: this runs for most versions a narrow compaction
// reads), so that a false answer sends the record to decodeRow, which says
// what is wrong.
func (d *rowDecoder) shadowedBy(b []byte, a *data.Row) (cells int, ok bool) {
	l, off := skimUvarint(b, 0)
	if off < 0 || l > uint64(len(b)-off) {
		return 0, false
	}
	cl := b[off : off+int(l)]
	off += int(l)
	if off >= len(b) {
		return 0, false
	}
	flags := b[off]
	off++
	if flags&(rowFlagsReserved|rowHasDeletion|rowHasColumnDels) != 0 || !bytes.Equal(cl, a.Clustering) {
		return 0, false
	}
	var u uint64
	lts := data.NoTimestamp
	if flags&rowHasTimestamp != 0 {
		if u, off = skimUvarint(b, off); off < 0 {
			return 0, false
		}
		lts = d.enc.Timestamp + unzigzag(u)
	}
	var lttl int64
	if flags&rowHasTTL != 0 {
		if u, off = skimUvarint(b, off); off < 0 {
			return 0, false
		}
		// As rowDecoder.ttl checks a liveness TTL.
		if lttl = int64(d.enc.TTL) + unzigzag(u); lttl <= 0 || lttl > data.MaxTTL && lttl != int64(data.ExpiredTTL) {
			return 0, false
		}
	}
	if flags&rowHasExpiry != 0 {
		if _, off = skimUvarint(b, off); off < 0 {
			return 0, false
		}
	}
	if lts >= a.Liveness.Timestamp {
		return 0, false
	}
	n := uint64(1)
	if flags&rowOneCell == 0 {
		// Each cell takes at least 2 bytes (flags, column ref).
		if n, off = skimUvarint(b, off); off < 0 || n == 1 || n > uint64(len(b)-off)/2 {
			return 0, false
		}
	}
	j := 0
	for range n {
		if off >= len(b) {
			return 0, false
		}
		cf := b[off]
		off++
		if cf&(cellCounter|cellHasPath) != 0 ||
			cf&cellRowExpiry != 0 && (cf&(cellHasTTL|cellHasDeletionTime) != 0 || flags&(rowHasTTL|rowHasExpiry) != rowHasTTL|rowHasExpiry) ||
			cf&cellRowTimestamp != 0 && flags&rowHasTimestamp == 0 {
			return 0, false
		}
		var ref uint64
		if ref, off = skimUvarint(b, off); off < 0 || ref > uint64(len(d.names)) {
			return 0, false
		}
		var col string
		if ref == 0 {
			// A name written inline (a column past the dictionary's
			// bound), as rowDecoder.column reads it.
			if l, off = skimUvarint(b, off); off < 0 || l > uint64(len(b)-off) {
				return 0, false
			}
			col = string(b[off : off+int(l)])
			off += int(l)
		} else {
			col = d.names[ref-1]
		}
		ts := lts
		if cf&cellRowTimestamp == 0 {
			if u, off = skimUvarint(b, off); off < 0 {
				return 0, false
			}
			ts = d.enc.Timestamp + unzigzag(u)
		}
		if cf&cellRowExpiry != 0 {
			if lttl > data.MaxTTL {
				return 0, false // the row's is ExpiredTTL, which no cell has
			}
		} else {
			if cf&cellHasTTL != 0 {
				if u, off = skimUvarint(b, off); off < 0 {
					return 0, false
				}
				if v := int64(d.enc.TTL) + unzigzag(u); v <= 0 || v > data.MaxTTL {
					return 0, false
				}
			}
			if cf&cellHasDeletionTime != 0 {
				if _, off = skimUvarint(b, off); off < 0 {
					return 0, false
				}
			}
		}
		if cf&cellHasValue != 0 {
			if l, off = skimUvarint(b, off); off < 0 || l > uint64(len(b)-off) {
				return 0, false
			}
			off += int(l)
		}
		// data.CompareID against a cell of col without a path: below it
		// exactly when the column sorts first (no path sorts below none),
		// equal when the column is col and the path empty. Equality is
		// tried first: the column is mostly a's next.
		for j < len(a.Cells) && a.Cells[j].Column != col {
			if a.Cells[j].Column > col {
				return 0, false
			}
			j++
		}
		if j == len(a.Cells) || len(a.Cells[j].Path) != 0 || a.Cells[j].Timestamp <= ts {
			return 0, false
		}
		j++
	}
	if off != len(b) {
		return 0, false
	}
	return int(n), true
}

// skimUvarint reads the uvarint at b[off:] as in.uvarint does
// (binary.Uvarint: at most 10 bytes, the last at most 1), and returns it
// and the offset after it, or a negative offset when there is none. Small
// enough to be inlined.
func skimUvarint(b []byte, off int) (uint64, int) {
	var v uint64
	for i := 0; i < binary.MaxVarintLen64 && off < len(b); i++ {
		c := b[off]
		off++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			return v | uint64(c)<<(7*i), off
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	return 0, -1
}

// unzigzag is in.varint's zig-zag decoding.
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
