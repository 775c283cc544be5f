package minicass

import (
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/types"
)

// Column describes one result column (or one bind marker): its keyspace,
// table, name as the result names it (aliases respected) and CQL type.
type Column = cql.ColumnSpec

// Rows is the result of Query: an iterator over the rows of one result
// (one page when the query used PageSize). A statement that returns no rows
// (INSERT, CREATE, USE, ...) gives an empty Rows whose Err reports how it
// ran. The rows are materialized when the statement runs, so Rows holds no
// engine resources. Rows is not safe for concurrent use.
//
//	rows := db.Query(ctx, "SELECT k, v FROM ks.t WHERE k = ?", 1)
//	for rows.Next() {
//		var k int
//		var v string
//		if err := rows.Scan(&k, &v); err != nil { ... }
//	}
//	if err := rows.Err(); err != nil { ... }
type Rows struct {
	res *cql.Result
	err error
	pos int // index of the current row + 1; 0 before the first Next
	// cur and next are, while the result's rows are packed
	// (cql.Result.Packed, which Stmt.Query asks for), the offsets of the
	// current row and of the row after it; next is -1 until Scan (or the
	// following Next) has read the current row.
	cur, next int
	// blobs is the arena Scan copies blob values from (see copyBlob).
	blobs []byte
}

func errRows(err error) *Rows { return &Rows{err: err} }

// bindsRoom is the room for bound values' bytes a Rows is allocated with
// (newRows): a bigint key and an int LIMIT, say.
const bindsRoom = 16

// newRows returns the Rows of call ca: allocated with the result of the
// call's room (cql.CallRoom.Result), in which the rows of a SELECT come
// packed, and with the room for its bound values (callArgs.binds), which
// the result's values may point into.
func newRows(ca *callArgs) *Rows {
	rr := &struct {
		rows  Rows
		res   cql.Result
		binds [bindsRoom]byte
	}{}
	ca.room.Result, ca.room.PackRows = &rr.res, true
	ca.binds = rr.binds[:0]
	return &rr.rows
}

// spareForBlobs asks the call of ca for room past its packed rows
// (cql.CallRoom.PackSpare) when a result column is a blob, which Scan
// copies into *[]byte: setResult makes that room the arena of the copies.
func (ca *callArgs) spareForBlobs(cols []Column) {
	if hasBlob(cols) {
		ca.room.PackSpare = true
	}
}

// hasBlob reports whether one of cols is a blob.
func hasBlob(cols []Column) bool {
	for i := range cols {
		if cols[i].Type.Kind == types.Blob {
			return true
		}
	}
	return false
}

// setResult makes res the result of r. The room past its packed rows (the
// block's spare room, see spareForBlobs) becomes the arena Scan copies
// blob values into: res.Packed is cut to its length first, so that nothing
// appends to it there.
func (r *Rows) setResult(res *cql.Result) {
	r.res = res
	if res == nil {
		return
	}
	if p := res.Packed; cap(p) > len(p) {
		res.Packed, r.blobs = p[:len(p):len(p)], p[len(p):len(p)]
	}
}

// Next advances to the next row and reports whether there is one. It returns
// false at the end of the rows or if the statement failed (see Err).
func (r *Rows) Next() bool {
	if r.err != nil || r.res == nil || r.pos >= r.count() {
		if r.res != nil {
			r.pos = r.count() + 1
		}
		return false
	}
	if packed := r.res.Packed; packed != nil {
		if r.pos > 0 {
			if r.next < 0 {
				next, ok := query.SkipPacked(packed, r.cur, len(r.res.Columns))
				if !ok {
					r.err = errMalformedRows
					return false
				}
				r.next = next
			}
			r.cur = r.next
		}
		r.next = -1
	}
	r.pos++
	return true
}

// count returns the number of rows of the result, packed or not.
func (r *Rows) count() int {
	if r.res.Packed != nil {
		return r.res.PackedRows
	}
	return len(r.res.Rows)
}

// unpack turns packed rows into the result's Rows, for the methods that
// hand out rows of values (Row, Result, Applied).
func (r *Rows) unpack() {
	if r.res != nil && r.res.Packed != nil && !r.res.Unpack() {
		r.err = errMalformedRows
	}
}

// errMalformedRows reports packed rows that do not hold the rows they
// count, which would be a bug of the executor.
var errMalformedRows = fmt.Errorf("%w: malformed packed result rows", ErrScan)

// Err returns the error of the statement, or nil. Scan errors are returned by
// Scan and not recorded here.
func (r *Rows) Err() error { return r.err }

// Close ends the iteration and returns Err. It is optional (Rows hold no
// resources) and exists so code can defer it as with database/sql.
func (r *Rows) Close() error {
	if r.res != nil {
		r.pos = r.count() + 1
	}
	return r.err
}

// Columns describes the result columns, in order; nil for a statement that
// returns no rows or failed.
func (r *Rows) Columns() []Column {
	if r.res == nil {
		return nil
	}
	return r.res.Columns
}

// Len returns the number of rows in the result (in the page, when paging).
func (r *Rows) Len() int {
	if r.res == nil {
		return 0
	}
	return r.count()
}

// Warnings returns the server warnings of the statement (those cqlsh prints
// after "Warnings :"), or nil.
func (r *Rows) Warnings() []string {
	if r.res == nil {
		return nil
	}
	return r.res.Warnings
}

// Trace returns the trace events of a statement run with the Tracing option,
// or nil.
func (r *Rows) Trace() []string {
	if r.res == nil || r.res.Trace == nil {
		return nil
	}
	return r.res.Trace.Activities()
}

// PagingState returns the opaque state that fetches the next page (pass it
// with the PagingState option along with the same query, values and
// PageSize), or nil when this page is the last one.
func (r *Rows) PagingState() []byte {
	if r.res == nil {
		return nil
	}
	return r.res.PagingState
}

// Result returns the executor's result for the statement: its kind (rows,
// void, set keyspace, schema change), the schema change it made, and the
// rows in serialized form. It is nil if the statement failed. The result is
// shared with the Rows: do not modify it.
func (r *Rows) Result() *cql.Result {
	r.unpack()
	return r.res
}

// Scan copies the columns of the current row into dest, one pointer per
// column. Supported destinations, by column type:
//
//	text, ascii            *string, *[]byte
//	int, bigint, smallint, tinyint, counter
//	                       *int, *int8 ... *int64, *uint ... *uint64 (range
//	                       checked), *float64, *big.Int
//	varint                 *big.Int, *int ... *int64 (range checked), *string
//	float                  *float32, *float64; double: *float64
//	decimal                *types.DecimalValue, *float64, *string
//	boolean                *bool
//	uuid, timeuuid         *types.UUIDValue, *[16]byte, *string
//	timestamp              *time.Time (UTC), *int64 (milliseconds)
//	date                   *types.DateValue, *time.Time (midnight UTC), *string
//	time                   *time.Duration (since midnight), *int64
//	duration               *types.DurationValue, *string
//	blob                   *[]byte (a copy), *string
//	inet                   *net.IP, *string
//	list, set              *[]T (T any destination above); a set also into
//	                       *map[T]bool or *map[T]struct{}
//	map                    *map[K]V, *[]types.MapEntry
//	tuple                  *[]any, *[]T, *[N]T
//	user type              *struct (fields by `cql` tag, else lower-cased
//	                       name, as gocql matches them), *map[string]T
//	any type               *any (types.Decode's Go value), an Unmarshaler,
//	                       or **T (nil for null)
//
// Null, and the empty value of a non-text type, store the zero value (nil
// for a pointer, slice, map or *any), as gocql does. Errors wrap ErrScan and
// name the column.
func (r *Rows) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if r.res == nil || r.pos < 1 || r.pos > r.count() {
		return fmt.Errorf("%w: Scan called without a successful Next", ErrScan)
	}
	if packed := r.res.Packed; packed != nil {
		return r.scanPacked(packed, dest)
	}
	return scanRow(r.res.Columns, r.res.Rows[r.pos-1], dest, &r.blobs, len(r.res.Rows)-r.pos+1)
}

// ScanOne scans the first row into dest and closes the rows. It returns
// the statement's error, or ErrNoRows if there is no row.
func (r *Rows) ScanOne(dest ...any) error {
	defer r.Close()
	if !r.Next() {
		if r.err != nil {
			return r.err
		}
		return ErrNoRows
	}
	return r.Scan(dest...)
}

// Applied reports whether a conditional statement (INSERT ... IF NOT
// EXISTS, UPDATE ... IF, DELETE ... IF, a BATCH with conditions) was
// applied: the "[applied]" column of its result. When it was not, the row
// also holds the current values of the columns in the conditions, which
// Row and Scan read (Scan's first destination receives [applied]). It
// returns the statement's error, or an error wrapping ErrScan if the
// statement was not conditional.
func (r *Rows) Applied() (bool, error) {
	r.unpack()
	if r.err != nil {
		return false, r.err
	}
	if r.res == nil || len(r.res.Columns) == 0 || r.res.Columns[0].Name != "[applied]" || len(r.res.Rows) == 0 {
		return false, fmt.Errorf("%w: the statement is not conditional (no [applied] column)", ErrScan)
	}
	var applied bool
	if err := scanValue(&applied, r.res.Columns[0].Type, r.res.Rows[0][0]); err != nil {
		return false, err
	}
	if r.pos == 0 {
		r.pos = 1
	}
	return applied, nil
}

// Row returns the current row (the zero Row before Next or after the end).
// The Row stays valid after Next.
func (r *Rows) Row() Row {
	r.unpack()
	if r.res == nil || r.pos < 1 || r.pos > len(r.res.Rows) {
		return Row{}
	}
	return Row{cols: r.res.Columns, vals: r.res.Rows[r.pos-1]}
}

// All returns an iterator over the remaining rows, for range loops. If the
// statement failed it yields its error once, with a zero Row.
//
//	for row, err := range db.Query(ctx, "SELECT * FROM ks.t").All() { ... }
func (r *Rows) All() iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		if r.err != nil {
			yield(Row{}, r.err)
			return
		}
		for r.Next() {
			if !yield(r.Row(), nil) {
				return
			}
		}
	}
}

func scanRow(cols []Column, vals [][]byte, dest []any, arena *[]byte, rowsLeft int) error {
	if len(dest) != len(cols) {
		return fmt.Errorf("%w: %d destinations for %d columns", ErrScan, len(dest), len(cols))
	}
	for i, d := range dest {
		if err := scanValueInto(d, &cols[i].Type, vals[i], arena, rowsLeft); err != nil {
			return fmt.Errorf("column %s (%s): %w", cols[i].Name, cols[i].Type, err)
		}
	}
	return nil
}

// scanPacked is Scan of the current row of packed rows: scanRow, reading
// each value from packed as it goes. A blob scanned into *[]byte is copied
// into the arena here when it fits the arena's room (copyBlob's first
// case), by reslicing the arena rather than through copyBlob.
func (r *Rows) scanPacked(packed []byte, dest []any) error {
	cols := r.res.Columns
	if len(dest) != len(cols) {
		return fmt.Errorf("%w: %d destinations for %d columns", ErrScan, len(dest), len(cols))
	}
	off, left := r.cur, r.res.PackedRows-r.pos+1
	for i, d := range dest {
		v, next, ok := query.NextPacked(packed, off)
		if !ok {
			return errMalformedRows
		}
		off = next
		t := &cols[i].Type
		// The two commonest destinations of a row's scan are served here,
		// without a call a value: what scanValueInto does for them.
		switch d := d.(type) {
		case *[]byte:
			if d != nil && t.Kind == types.Blob {
				if n, room := len(v), len(r.blobs); n > 0 && n <= blobArenaBlock/4 && cap(r.blobs)-room >= n {
					end := room + n
					r.blobs = r.blobs[:end]
					copy(r.blobs[room:end], v)
					*d = r.blobs[room:end:end]
					continue
				}
				*d = copyBlob(&r.blobs, v, left)
				continue
			}
		case *int64:
			if d != nil && len(v) == 8 && (t.Kind == types.Bigint || t.Kind == types.Counter || t.Kind == types.Timestamp) {
				*d = int64(binary.BigEndian.Uint64(v))
				continue
			}
		}
		if err := scanValueInto(d, t, v, &r.blobs, left); err != nil {
			return fmt.Errorf("column %s (%s): %w", cols[i].Name, cols[i].Type, err)
		}
	}
	r.next = off
	return nil
}

// Row is one result row: its columns and serialized values.
type Row struct {
	cols []Column
	vals [][]byte
}

// Columns describes the row's columns.
func (r Row) Columns() []Column { return r.cols }

// Len returns the number of columns.
func (r Row) Len() int { return len(r.vals) }

// Bytes returns the serialized value of column i (nil for null). The bytes
// must not be modified.
func (r Row) Bytes(i int) []byte { return r.vals[i] }

// Get returns column i decoded with types.Decode (nil for null, the Go forms
// listed there otherwise). Invalid bytes give nil.
func (r Row) Get(i int) any {
	v, err := types.Decode(r.cols[i].Type, r.vals[i])
	if err != nil {
		return nil
	}
	return v
}

// Value returns the column named name decoded as Get does, and whether the
// row has such a column.
func (r Row) Value(name string) (any, bool) {
	for i, c := range r.cols {
		if c.Name == name {
			return r.Get(i), true
		}
	}
	return nil, false
}

// Map returns the row as a map from column name to decoded value.
func (r Row) Map() map[string]any {
	m := make(map[string]any, len(r.cols))
	for i, c := range r.cols {
		m[c.Name] = r.Get(i)
	}
	return m
}

// Scan copies the row's columns into dest as Rows.Scan does.
func (r Row) Scan(dest ...any) error { return scanRow(r.cols, r.vals, dest, nil, 1) }

// String formats the row with CQL literals, e.g. "k=1 v='a'".
func (r Row) String() string {
	var b []byte
	for i, c := range r.cols {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, c.Name...)
		b = append(b, '=')
		b = append(b, types.FormatLiteral(c.Type, r.vals[i])...)
	}
	return string(b)
}
