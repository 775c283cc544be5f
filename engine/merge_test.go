package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
)

// sliceRows is a data.RowIterator over rows that it shares with the
// caller (it does not claim ownedRows), as a memtable's iterator does.
type sliceRows struct {
	rows []data.Row
	i    int
}

func (s *sliceRows) Next() (*data.Row, bool) {
	if s.i >= len(s.rows) {
		return nil, false
	}
	s.i++
	return &s.rows[s.i-1], true
}
func (s *sliceRows) Err() error   { return nil }
func (s *sliceRows) Close() error { return nil }

// mergeTestRow is a row with a liveness record and one cell of column v,
// both at ts.
func mergeTestRow(ck string, ts int64, v string) data.Row {
	r := data.NewRow([]byte(ck))
	r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(v)}}
	return r
}

// TestRowMergerMergedRowsKeepTheirArrays checks that a row the merger
// returns after reconciling several sources is the newest version of
// each cell, and that a caller who puts arrays of its own into that row
// (as it may: the row is the caller's until the next call) does not get
// them overwritten by the next merge, which uses the merger's own arrays.
func TestRowMergerMergedRowsKeepTheirArrays(t *testing.T) {
	var st ReadStats
	st.Sources = make([]SourceStats, 3)
	m := &rowMerger{stats: &st}
	for i := range 3 {
		ts := int64(i + 1)
		m.add(&sliceRows{rows: []data.Row{mergeTestRow("a", ts, "a"+string(rune('0'+i))), mergeTestRow("b", 10+ts, "b"+string(rune('0'+i)))}}, i)
	}
	defer func() { require.NoError(t, m.close()) }()

	a, ok := m.next()
	require.True(t, ok)
	assert.Equal(t, []byte("a"), a.Clustering)
	assert.Equal(t, int64(3), a.Liveness.Timestamp)
	require.Len(t, a.Cells, 1)
	assert.Equal(t, []byte("a2"), a.Cells[0].Value, "the newest version")

	mine := make([]data.Cell, 1, 4)
	mine[0] = data.Cell{Column: "mine", Timestamp: 99, Value: []byte("kept")}
	myCDs := make([]data.ColumnDeletion, 0, 4)
	a.Cells, a.ColumnDeletions = mine, myCDs

	b, ok := m.next()
	require.True(t, ok)
	assert.Equal(t, []byte("b"), b.Clustering)
	assert.Equal(t, int64(13), b.Liveness.Timestamp)
	require.Len(t, b.Cells, 1)
	assert.Equal(t, []byte("b2"), b.Cells[0].Value)
	assert.Equal(t, data.Cell{Column: "mine", Timestamp: 99, Value: []byte("kept")}, mine[:4][0], "the caller's array is not reused")
	assert.Equal(t, data.Cell{}, mine[:4][1], "nothing written past the caller's cells")

	_, ok = m.next()
	assert.False(t, ok)
	assert.Equal(t, 6, st.RowsRead)
}
