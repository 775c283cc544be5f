package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackedRoundTrip packs rows with null, empty and non-empty values and
// reads them back value by value, row by row and unpacked.
func TestPackedRoundTrip(t *testing.T) {
	rows := [][][]byte{
		{{0, 0, 0, 1}, {0xca, 0xfe}, nil},
		{{}, nil, []byte("abc")},
	}
	var buf []byte
	for _, row := range rows {
		for _, v := range row {
			buf = AppendPacked(buf, v)
		}
	}
	require.Equal(t, []byte{
		0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0xca, 0xfe, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3, 'a', 'b', 'c',
	}, buf)

	off := 0
	for _, row := range rows {
		vals := make([][]byte, 3)
		next := off
		for i := range vals {
			var ok bool
			vals[i], next, ok = NextPacked(buf, next)
			require.True(t, ok)
		}
		skipped, ok := SkipPacked(buf, off, 3)
		require.True(t, ok)
		require.Equal(t, next, skipped)
		for i, v := range row {
			require.Equal(t, v == nil, vals[i] == nil, "null stays null, empty stays empty")
			require.Equal(t, v, vals[i])
			require.Equal(t, len(vals[i]), cap(vals[i]), "capped at its length")
		}
		off = next
	}
	require.Equal(t, len(buf), off)

	res := &Result{Columns: make([]ColumnSpec, 3), Packed: buf, PackedRows: 2}
	require.True(t, res.Unpack())
	require.Nil(t, res.Packed)
	require.Equal(t, rows, res.Rows)
	require.Nil(t, res.Rows[0][2])
	require.NotNil(t, res.Rows[1][0])

	// Truncated or miscounted rows are refused and leave the result alone.
	for _, bad := range []*Result{
		{Columns: make([]ColumnSpec, 3), Packed: buf[:len(buf)-1], PackedRows: 2},
		{Columns: make([]ColumnSpec, 3), Packed: buf, PackedRows: 1},
		{Columns: make([]ColumnSpec, 3), Packed: buf, PackedRows: 3},
	} {
		packed := bad.Packed
		require.False(t, bad.Unpack())
		require.Equal(t, packed, bad.Packed)
		require.Nil(t, bad.Rows)
	}
	_, _, ok := NextPacked([]byte{0, 0, 0, 5, 1}, 0)
	require.False(t, ok, "a length past the end")
	_, ok = SkipPacked([]byte{0, 0, 0, 5, 1}, 0, 1)
	require.False(t, ok)
}
