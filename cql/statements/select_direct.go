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
// filter to ask and no emit step: the clustering is decoded straight into
// the result's value blocks (selectRun.decodeClustering), key components
// are the key's own bytes, and cell values are copied as project copies
// them. What it records per row (position, counts, LIMIT, page, PER
// PARTITION LIMIT) is what emit records. It returns the rows it read.
func (r *selectRun) directRows(pk [][]byte, part *selPart, now int64) (int, error) {
	p := r.p
	proj := p.proj
	n := 0
	// The position of the last row is recorded once the rows are read, as
	// nothing reads it before: not for every row, which would write the
	// run's pointers (and pay write barriers) once a row.
	var lastCk []byte
	defer func() {
		if n > 0 {
			r.lastKey, r.lastCk = r.curPartKey, lastCk
		}
	}()
	for !r.stopped {
		row, ok := part.next()
		if !ok {
			break
		}
		r.stats.rows++
		r.stats.liveRows++
		n++
		var ck [][]byte
		if p.needCk {
			var err error
			if ck, err = r.decodeClustering(row.Clustering); err != nil {
				return n, &query.Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
			}
		}
		vals := r.rowValues(len(proj))
		for i := range proj {
			pr := &proj[i]
			switch pr.from {
			case fromKey:
				vals[i] = pk[pr.col.Position]
			case fromClustering:
				vals[i] = ck[pr.col.Position]
			default: // fromCell: selectPlan.direct admits no other
				vals[i] = r.copyValue(liveCellValue(row, pr.col.Name, now))
			}
		}
		r.rows = append(r.rows, vals)
		// The row's clustering lives in the engine's buffers; only a
		// paging state reads it once the next row is read.
		lastCk = nil
		if c := row.Clustering; r.pageSize > 0 && len(c) > 0 {
			if len(c) <= cap(r.ckBuf) {
				r.ckBuf = r.ckBuf[:len(c)] // a length, not a pointer, written
				copy(r.ckBuf, c)
			} else {
				r.ckBuf = append(r.ckBuf[:0], c...)
			}
			lastCk = r.ckBuf
		}
		r.inPart++
		r.lastInPart = r.inPart
		r.count()
		if r.ppl > 0 && r.inPart >= r.ppl {
			break
		}
	}
	return n, nil
}

// liveCellValue is expr.SelRow.CellValue for row at time now.
func liveCellValue(row *data.Row, name string, now int64) []byte {
	return expr.LiveCellValue(row.Cells, name, now)
}
