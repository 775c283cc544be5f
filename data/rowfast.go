package data

// rowFast decodes a row at the start of b as Decoder.RowInto does, in
// fewer instructions: plain indexes instead of a Cursor, the one-byte
// varints (lengths, counts, kinds, zero TTLs) read in place. It returns the
// number of bytes read, or -1 when b is not a row it decodes exactly as
// RowInto would (any malformed or out-of-range field): the caller then
// decodes it with the Cursor, which reports the failure. r's cell and
// column-deletion arrays are reused as RowInto reuses them.
func rowFast(b []byte, r *Row, names *ColumnNames) int {
	off := 0
	var ok bool
	var clustering []byte
	if clustering, off, ok = fastBytes(b, off); !ok {
		return -1
	}
	var lts, lexp int64
	var lttl uint64
	if lts, off, ok = fastVarint(b, off); !ok {
		return -1
	}
	if lttl, off, ok = fastUvarint(b, off); !ok || lttl > MaxTTL {
		return -1
	}
	if lexp, off, ok = fastVarint(b, off); !ok {
		return -1
	}
	var del DeletionTime
	if del.MarkedForDeleteAt, off, ok = fastVarint(b, off); !ok {
		return -1
	}
	if del.LocalDeletionTime, off, ok = fastVarint(b, off); !ok {
		return -1
	}
	var ncd uint64
	if ncd, off, ok = fastUvarint(b, off); !ok || ncd > uint64(len(b)-off)/3 {
		return -1
	}
	// r keeps its arrays until the row is read whole: the Cursor reuses
	// them if this fails.
	cells, cds := r.Cells[:0], r.ColumnDeletions[:0]
	var outCells []Cell
	var outCDs []ColumnDeletion
	if ncd > 0 {
		n := int(ncd)
		if cap(cds) < n {
			cds = make([]ColumnDeletion, n)
		}
		cds = cds[:n]
		for i := range cds {
			var col []byte
			if col, off, ok = fastBytes(b, off); !ok {
				return -1
			}
			cd := &cds[i]
			cd.Column = names.intern(col)
			if cd.Deletion.MarkedForDeleteAt, off, ok = fastVarint(b, off); !ok {
				return -1
			}
			if cd.Deletion.LocalDeletionTime, off, ok = fastVarint(b, off); !ok {
				return -1
			}
		}
		outCDs = cds
	}
	var nc uint64
	if nc, off, ok = fastUvarint(b, off); !ok || nc > uint64(len(b)-off)/7 {
		return -1
	}
	if nc > 0 {
		n := int(nc)
		if cap(cells) < n {
			cells = make([]Cell, n)
		}
		cells = cells[:n]
		for i := range cells {
			if off, ok = fastCell(b, off, &cells[i], names); !ok {
				return -1
			}
		}
		outCells = cells
	}
	r.Cells, r.ColumnDeletions = outCells, outCDs
	r.Clustering = clustering
	r.Liveness = LivenessInfo{Timestamp: lts, TTL: int32(lttl), ExpiresAt: lexp}
	r.Deletion = del
	return off
}

// fastCell decodes one cell at off into c, as Decoder.cell does.
func fastCell(b []byte, off int, c *Cell, names *ColumnNames) (int, bool) {
	col, off, ok := fastBytes(b, off)
	if !ok {
		return off, false
	}
	c.Column = names.intern(col)
	if c.Path, off, ok = fastOptBytes(b, off); !ok {
		return off, false
	}
	if off >= len(b) || b[off] > byte(CellCounter) {
		return off, false
	}
	c.Kind = CellKind(b[off])
	off++
	if c.Timestamp, off, ok = fastVarint(b, off); !ok {
		return off, false
	}
	if off < len(b) && b[off] == 0 {
		c.TTL, off = 0, off+1
	} else {
		var ttl uint64
		if ttl, off, ok = uvarintAt(b, off); !ok || ttl > MaxTTL {
			return off, false
		}
		c.TTL = int32(ttl)
	}
	if c.LocalDeletionTime, off, ok = fastVarint(b, off); !ok {
		return off, false
	}
	c.Value, off, ok = fastOptBytes(b, off)
	return off, ok
}

// fastUvarint reads an unsigned varint at off.
func fastUvarint(b []byte, off int) (uint64, int, bool) {
	if off < len(b) && b[off] < 0x80 {
		return uint64(b[off]), off + 1, true
	}
	return uvarintAt(b, off)
}

// uvarintAt is fastUvarint's longer path (off <= len(b)).
func uvarintAt(b []byte, off int) (uint64, int, bool) {
	v, n := uvarint(b[off:])
	if n <= 0 {
		return 0, off, false
	}
	return v, off + n, true
}

// fastVarint reads a signed (zig-zag) varint at off.
func fastVarint(b []byte, off int) (int64, int, bool) {
	ux, n := uvarint(b[off:])
	return int64(ux>>1) ^ -int64(ux&1), off + n, n > 0
}

// fastBytes reads a length-prefixed byte string at off; an empty one reads
// as nil, as Decoder.bytes reads it.
func fastBytes(b []byte, off int) ([]byte, int, bool) {
	var n uint64
	if off < len(b) && b[off] < 0x80 {
		n, off = uint64(b[off]), off+1
	} else {
		var ok bool
		if n, off, ok = uvarintAt(b, off); !ok {
			return nil, off, false
		}
	}
	if n > uint64(len(b)-off) {
		return nil, off, false
	}
	if n == 0 {
		return nil, off, true
	}
	end := off + int(n)
	return b[off:end:end], end, true
}

// fastOptBytes reads an optional byte string at off, as Decoder.optBytes.
func fastOptBytes(b []byte, off int) ([]byte, int, bool) {
	var n uint64
	if off < len(b) && b[off] < 0x80 {
		n, off = uint64(b[off]), off+1
	} else {
		var ok bool
		if n, off, ok = uvarintAt(b, off); !ok {
			return nil, off, false
		}
	}
	switch {
	case n == 0:
		return nil, off, true
	case n == 1:
		return []byte{}, off, true
	case n-1 > uint64(len(b)-off):
		return nil, off, false
	}
	end := off + int(n-1)
	return b[off:end:end], end, true
}
