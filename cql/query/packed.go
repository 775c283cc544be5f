package query

import "encoding/binary"

// Packed rows.
//
// A Result may hold its rows packed (Result.Packed) instead of as a slice
// of rows of values (Result.Rows): one byte slice with the rows one after
// the other, each row its values in column order, each value in the form
// the native protocol gives a [bytes] of a ROWS result (section 4.2.5.2 of
// the v4 specification):
//
//	value := length:int32 (big-endian) bytes[length]   a value, empty when length is 0
//	       | 0xff 0xff 0xff 0xff                       null (length -1)
//
// For example two rows of (bigint 1, blob 0xcafe) and (bigint 2, null):
//
//	00 00 00 08 00 00 00 00 00 00 00 01  00 00 00 02 ca fe
//	00 00 00 08 00 00 00 00 00 00 00 02  ff ff ff ff
//
// The packed form holds a result in one allocation without pointers (which
// the collector does not scan) where Rows takes one slice header per row
// and per value. Only an execution that asks for it gets it (see
// plan.Execution.PackRows); Unpack turns it into Rows.

// nullLength is the length a packed null value is written with.
const nullLength = 0xffffffff

// AppendPacked appends v to buf as one packed value (nil is null; an empty
// non-nil v is the empty value).
func AppendPacked(buf, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(buf, nullLength)
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
	return append(buf, v...)
}

// AppendPackedLength appends the length of a packed value of n bytes (n
// >= 0) to buf, whose bytes the caller appends next.
func AppendPackedLength(buf []byte, n int) []byte {
	return binary.BigEndian.AppendUint32(buf, uint32(n))
}

// NextPacked returns the packed value of buf at off and the offset of the
// value after it. The value is buf's (capped at its length: appending to it
// reallocates), nil for null, empty and not nil for the empty value. ok is
// false when buf holds no whole value at off.
func NextPacked(buf []byte, off int) (v []byte, next int, ok bool) {
	if off < 0 || len(buf)-off < 4 {
		return nil, off, false
	}
	n := binary.BigEndian.Uint32(buf[off:])
	off += 4
	if n == nullLength {
		return nil, off, true
	}
	if uint64(n) > uint64(len(buf)-off) {
		return nil, off, false
	}
	end := off + int(n)
	return buf[off:end:end], end, true
}

// SkipPacked returns the offset of the packed row after the row of n
// values at off. ok is false when buf holds no whole row there.
func SkipPacked(buf []byte, off, n int) (next int, ok bool) {
	for range n {
		if off < 0 || len(buf)-off < 4 {
			return off, false
		}
		l := binary.BigEndian.Uint32(buf[off:])
		off += 4
		if l == nullLength {
			continue
		}
		if uint64(l) > uint64(len(buf)-off) {
			return off, false
		}
		off += int(l)
	}
	return off, true
}

// Unpack turns packed rows into Rows, whose values then point into the
// packed bytes (no value is copied), and clears Packed. A result without
// packed rows is left as it is. It reports false, leaving the result as it
// was, when Packed does not hold PackedRows rows of len(Columns) values.
func (r *Result) Unpack() bool {
	if r.Packed == nil {
		return true
	}
	ncols := len(r.Columns)
	rows := make([][][]byte, r.PackedRows)
	vals := make([][]byte, r.PackedRows*ncols)
	off := 0
	for i := range rows {
		row := vals[i*ncols : (i+1)*ncols : (i+1)*ncols]
		for j := range row {
			v, next, ok := NextPacked(r.Packed, off)
			if !ok {
				return false
			}
			row[j], off = v, next
		}
		rows[i] = row
	}
	if off != len(r.Packed) {
		return false
	}
	r.Rows, r.Packed, r.PackedRows = rows, nil, 0
	return true
}
