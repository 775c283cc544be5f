package types

import "encoding/binary"

// FixedClustering decodes the full clustering keys of a table whose
// clustering columns are all fixed-width integer types (int, bigint,
// smallint, tinyint, counter, timestamp, time). Every such key whose values
// are all non-empty has the same length and its components the same
// offsets, so a key is decoded by checking its headers and copying its
// bodies, without reading the types again. It is built once, when a
// statement compiles, and never changes.
type FixedClustering struct {
	cols []fixedColumn
	// size is the length of a full key with every value non-empty: a
	// header and a body per column, then the terminator.
	size int
}

// fixedColumn is one component of a FixedClustering key.
type fixedColumn struct {
	// off is the offset of the component's header in the key, n the length
	// of its body.
	off, n int
	// mask is 0xff for a descending column (header and body are stored
	// inverted), else 0.
	mask byte
}

// NewFixedClustering returns the decoder for keys of cols, and false when
// some column is not a fixed-width integer type (or there is none).
func NewFixedClustering(cols []ClusteringColumn) (*FixedClustering, bool) {
	if len(cols) == 0 {
		return nil, false
	}
	f := &FixedClustering{cols: make([]fixedColumn, len(cols))}
	off := 0
	for i, c := range cols {
		switch c.Type.Kind {
		case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
		default:
			return nil, false
		}
		var mask byte
		if c.Order == Desc {
			mask = 0xff
		}
		n := intSize(c.Type.Kind)
		f.cols[i] = fixedColumn{off: off, n: n, mask: mask}
		off += 1 + n
	}
	f.size = off + 1
	return f, true
}

// Full reports whether key is a full key whose values are all non-empty:
// one Append decodes, and AppendValue reads a value of.
func (f *FixedClustering) Full(key []byte) bool {
	if len(key) != f.size || key[f.size-1] != termFull {
		return false
	}
	for i := range f.cols {
		c := &f.cols[i]
		if key[c.off]^c.mask != headerValue {
			return false
		}
	}
	return true
}

// Width returns the length of the values of column i.
func (f *FixedClustering) Width(i int) int { return f.cols[i].n }

// AppendValue appends the value of column i of key, a Full key, to buf:
// the bytes Append would give it.
func (f *FixedClustering) AppendValue(buf, key []byte, i int) []byte {
	c := &f.cols[i]
	if c.n == 8 {
		// A bigint's body is one word: flipped (descending) and its sign
		// bit restored in a register.
		u := binary.BigEndian.Uint64(key[c.off+1:])
		u ^= uint64(c.mask) * 0x0101010101010101
		return binary.BigEndian.AppendUint64(buf, u^1<<63)
	}
	return f.appendValue(buf, key, c)
}

// appendValue is AppendValue of column c, of any width.
func (f *FixedClustering) appendValue(buf, key []byte, c *fixedColumn) []byte {
	start := len(buf)
	buf = append(buf, key[c.off+1:c.off+1+c.n]...)
	v := buf[start:]
	if c.mask != 0 {
		for j := range v {
			v[j] ^= 0xff
		}
	}
	v[0] ^= 0x80
	return buf
}

// Append decodes key as AppendDecodedClustering does, appending the values
// to values and their bytes to buf, which it grows only when buf has less
// room than the key's length. It returns false, having appended nothing,
// when key is not a full key whose values are all non-empty; the caller
// then decodes it with AppendDecodedClustering, which also reports what is
// wrong with a malformed key.
func (f *FixedClustering) Append(values [][]byte, buf []byte, key []byte) ([][]byte, []byte, bool) {
	if len(key) != f.size || key[f.size-1] != termFull {
		return values, buf, false
	}
	for i := range f.cols {
		c := &f.cols[i]
		if key[c.off]^c.mask != headerValue {
			return values, buf, false
		}
	}
	for i := range f.cols {
		c := &f.cols[i]
		start := len(buf)
		buf = append(buf, key[c.off+1:c.off+1+c.n]...)
		v := buf[start:len(buf):len(buf)]
		if c.mask != 0 {
			for j := range v {
				v[j] ^= 0xff
			}
		}
		v[0] ^= 0x80
		values = append(values, v)
	}
	return values, buf, true
}
