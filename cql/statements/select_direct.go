package statements

import (
	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/wire"
)

// directRows copies the rows of one partition into the result in one pass
// under selectPlan.direct: a streamed read without filters, aggregation,
// grouping or per-row functions, whose columns are partition key
// components, clustering values or regular columns of one cell. Every row
// the engine yields is a result row, so there is no SelRow to fill, no
// filter to ask and no emit step: each row goes straight into the result,
// packed (packDirectRows) when the run packs its rows, else as a row of values
// (appendDirect). What it records per row (position, counts, LIMIT, page,
// PER PARTITION LIMIT) is what emit records. It returns the rows it read.
func (r *selectRun) directRows(pk [][]byte, part *selPart, now int64) (int, error) {
	if r.pack {
		return r.packDirectRows(pk, part, now)
	}
	n := 0
	// The position of the last row is recorded once the rows are read, as
	// nothing reads it before: not for every row, which would write the
	// run's pointers (and pay write barriers) once a row.
	var lastCk []byte
	for !r.stopped {
		row, ok := part.next()
		if !ok {
			break
		}
		r.stats.rows++
		r.stats.liveRows++
		n++
		if err := r.appendDirect(pk, row, now); err != nil {
			r.lastKey, r.lastCk = r.curPartKey, lastCk
			return n, &query.Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
		}
		lastCk = r.keepLastCk(row.Clustering)
		r.inPart++
		r.lastInPart = r.inPart
		r.count()
		if r.ppl > 0 && r.inPart >= r.ppl {
			break
		}
	}
	if n > 0 {
		r.lastKey, r.lastCk = r.curPartKey, lastCk
	}
	return n, nil
}

// packDirectRows is directRows for a run that packs its rows (see
// selectRun.pack): each row the engine yields is packed into packed as it
// comes, in one loop. The block being filled and what sizes the next one
// (npacked, packRow, packBlobs) are kept in locals while the rows are
// packed and written back to the run only when packRoom needs them and
// once the rows are read, rather than once a row. A full key of
// fixed-width values is decoded value by value straight into packed; any
// other through the run's scratch (ckBytes), and copied from there.
func (r *selectRun) packDirectRows(pk [][]byte, part *selPart, now int64) (int, error) {
	p := r.p
	proj := p.proj
	spare := r.q.PackSpare
	buf, npacked, packRow, blobs := r.packed, r.npacked, r.packRow, r.packBlobs
	n := 0
	var lastCk []byte
	live := part.live // a streamed read's engine partition, read without selPart.next's call
	for !r.stopped {
		var row *data.Row
		var ok bool
		if live != nil {
			row, ok = live.Next()
		} else {
			row, ok = part.next()
		}
		if !ok {
			break
		}
		r.stats.rows++
		r.stats.liveRows++
		n++
		var ck [][]byte
		fixed := p.needCk && p.fixedCk != nil && p.fixedCk.Full(row.Clustering)
		if p.needCk && !fixed {
			var err error
			if ck, err = r.decodeClustering(row.Clustering); err != nil {
				r.packed, r.npacked, r.packRow, r.packBlobs = buf, npacked, packRow, blobs
				r.lastKey, r.lastCk = r.curPartKey, lastCk
				return n, &query.Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
			}
		}
		if r.packScratch || cap(buf)-len(buf) < packRow || npacked == 0 {
			r.packed, r.npacked, r.packRow, r.packBlobs = buf, npacked, packRow, blobs
			buf = r.packRoom()
		}
		start := len(buf)
		blobs = 0
		cs := row.Cells
		for i := range proj {
			pr := &proj[i]
			switch {
			case pr.from == fromCell: // selectPlan.direct admits no other
				// liveCellValue's guess, without the call when it is right.
				var v []byte
				if h := pr.cell; uint(h) < uint(len(cs)) && cs[h].Column == pr.name && cs[h].Path == nil && cs[h].IsLive(now) {
					v = cs[h].Value
				} else {
					v = liveCellValue(row, pr, now)
				}
				if spare && pr.blob {
					blobs += len(v)
				}
				buf = query.AppendPacked(buf, v)
			case fixed && pr.from == fromClustering:
				buf = query.AppendPackedLength(buf, p.fixedCk.Width(pr.pos))
				buf = p.fixedCk.AppendValue(buf, row.Clustering, pr.pos)
			default:
				buf = query.AppendPacked(buf, keyValue(pr, pk, ck))
			}
		}
		packRow = len(buf) - start
		npacked++
		lastCk = r.keepLastCk(row.Clustering)
		r.inPart++
		r.lastInPart = r.inPart
		r.count()
		if r.ppl > 0 && r.inPart >= r.ppl {
			break
		}
	}
	r.packed, r.npacked, r.packRow, r.packBlobs = buf, npacked, packRow, blobs
	if n > 0 {
		r.lastKey, r.lastCk = r.curPartKey, lastCk
	}
	return n, nil
}

// keyValue is the value of projection pr, of a key or clustering column,
// in a direct read's row: a key component (pk, the result's own bytes) or
// a decoded clustering value (ck, in the run's buffers). The other columns
// of a direct read are cells (liveCellValue).
func keyValue(pr *projection, pk, ck [][]byte) []byte {
	if pr.from == fromKey {
		return pk[pr.col.Position]
	}
	return ck[pr.col.Position]
}

// appendDirect appends row to the result's rows: the clustering is decoded
// straight into the result's value blocks (selectRun.decodeClustering), key
// components are the key's own bytes, and cell values are copied as
// project copies them.
func (r *selectRun) appendDirect(pk [][]byte, row *data.Row, now int64) error {
	p := r.p
	var ck [][]byte
	if p.needCk {
		var err error
		if ck, err = r.decodeClustering(row.Clustering); err != nil {
			return err
		}
	}
	vals := r.rowValues(len(p.proj))
	for i := range p.proj {
		pr := &p.proj[i]
		if pr.from == fromCell { // selectPlan.direct admits no other
			vals[i] = r.copyValue(liveCellValue(row, pr, now))
		} else {
			vals[i] = keyValue(pr, pk, ck)
		}
	}
	r.rows = append(r.rows, vals)
	return nil
}

// keepLastCk returns the clustering c of the row just projected as the
// paging state needs it once the next row is read: nil unless the read is
// paged, else a copy in ckBuf (the row's clustering lives in the engine's
// buffers). Only ckBuf's length is written when c fits its room, not a
// pointer.
func (r *selectRun) keepLastCk(c []byte) []byte {
	if r.pageSize <= 0 || len(c) == 0 {
		return nil
	}
	if len(c) <= cap(r.ckBuf) {
		r.ckBuf = r.ckBuf[:len(c)]
		copy(r.ckBuf, c)
	} else {
		r.ckBuf = append(r.ckBuf[:0], c...)
	}
	return r.ckBuf
}

// packSelRow packs the projection of sr (a row project would append to
// rows) into packed.
func (r *selectRun) packSelRow(sr *expr.SelRow) {
	buf := r.packRoom()
	start := len(buf)
	for i := range r.p.proj {
		pr := &r.p.proj[i]
		var v []byte
		switch pr.from {
		case fromKey:
			v = sr.Pk[pr.col.Position]
		case fromClustering:
			if sr.Ck != nil {
				v = sr.Ck[pr.col.Position]
			}
		case fromCell:
			v = sr.CellValue(pr.col)
		default:
			v = sr.Value(pr.col)
		}
		buf = query.AppendPacked(buf, v)
	}
	r.packed, r.packRow = buf, len(buf)-start
	r.npacked++
}

// packRoom returns packed with room for the next row. The first row is
// packed into the run's scratch (packArr), and the result's block is then
// sized by it: the room is by the size of the last row, for every row still expected when
// LIMIT or the page bounds them (so that a short result takes one
// allocation of its size), but grows by at most the bytes packed so far (or
// 16 KiB), so that a result of large rows that ends early reserves little
// more than it used. Otherwise it is for 8 rows, then
// doubles. Either way the copies of a growing result add up to about its
// size. Appending past the room still works (append grows it). A caller
// that asked for spare room (plan.Execution.PackSpare) gets, past the rows
// each block is for, as many bytes as their blob values take, by the last
// row's (packBlobs). packedOut returns the rows packed, out of the scratch.
func (r *selectRun) packRoom() []byte {
	if r.npacked == 0 {
		r.packScratch = true
		return r.packArr[:0]
	}
	buf, row := r.packed, r.packRow
	if !r.packScratch && cap(buf)-len(buf) >= row {
		return buf
	}
	rows, bounded := r.rowsExpected() // unbounded: 8 rows
	step := row * rows
	if bounded {
		step = min(step, max(len(buf), maxArenaBlock))
	} else {
		step = max(step, len(buf))
	}
	size := len(buf) + max(step, row)
	if r.packBlobs > 0 {
		// Spare room for the blob copies of the rows packed and of those
		// the block is for, by the last row's.
		size += r.packBlobs * (r.npacked + max(step, row)/row)
	}
	grown := make([]byte, len(buf), size)
	copy(grown, buf)
	r.packScratch = false
	return grown
}

// packedOut returns the rows packed, in a block of their own (the run's
// scratch is copied out, with the spare room the caller asked for).
func (r *selectRun) packedOut() []byte {
	if r.packScratch {
		return append(make([]byte, 0, len(r.packed)+r.packBlobs), r.packed...)
	}
	return r.packed
}

// liveCellValue is expr.SelRow.CellValue of projection pr (fromCell) for
// row at time now. It looks at the cell of pr's guess (projection.cell)
// first: when that is the column's cell (a one-cell column has no other),
// the search by name is not needed.
func liveCellValue(row *data.Row, pr *projection, now int64) []byte {
	cs := row.Cells
	if h := pr.cell; uint(h) < uint(len(cs)) {
		if c := &cs[h]; c.Column == pr.name && c.Path == nil && c.IsLive(now) {
			return c.Value
		}
	}
	return expr.LiveCellValue(cs, pr.col.Name, now)
}
