package engine

import (
	"math/rand/v2"
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

// ownedSliceRows is a data.RowIterator that hands out a fresh copy of each
// row and claims ownedRows, as sstable's row iterator does.
type ownedSliceRows struct {
	sliceRows
	row data.Row
}

func (s *ownedSliceRows) Next() (*data.Row, bool) {
	r, ok := s.sliceRows.Next()
	if !ok {
		return nil, false
	}
	s.row = r.Clone()
	return &s.row, true
}

func (s *ownedSliceRows) OwnedRows() bool { return true }

// normalRow makes empty slices nil, so that rows compare by content.
func normalRow(r data.Row) data.Row {
	r = r.Clone()
	if len(r.Cells) == 0 {
		r.Cells = nil
	}
	if len(r.ColumnDeletions) == 0 {
		r.ColumnDeletions = nil
	}
	return r
}

// TestRowMergerDominantMatchesMerge checks the merger's path that returns
// one owned version as it is (rowMerger.dominant) against data.MergeRowsInto
// folded over the versions, for random versions of one row: liveness
// records (empty, expiring, at equal timestamps), row and collection
// deletions, and regular, tombstone, expiring and counter cells. It also
// checks that the path is taken, and not taken, in some of the cases.
func TestRowMergerDominantMatchesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 4))
	ts := func() int64 { return int64(rng.IntN(4)) }
	cell := func(col string) data.Cell {
		c := data.Cell{Column: col, Timestamp: ts(), LocalDeletionTime: data.NoDeletionTime, Value: []byte{byte(rng.IntN(3))}}
		switch rng.IntN(8) {
		case 0:
			c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, 100+int64(rng.IntN(3))
		case 1:
			c.TTL, c.LocalDeletionTime = 10, 100+int64(rng.IntN(3))
		case 2:
			if rng.IntN(4) == 0 {
				c.Kind = data.CellCounter
			}
		}
		return c
	}
	version := func() data.Row {
		r := data.NewRow([]byte("k"))
		switch rng.IntN(4) {
		case 0:
		case 1:
			r.Liveness = data.LivenessInfo{Timestamp: ts(), TTL: 10, ExpiresAt: 100 + int64(rng.IntN(3))}
		default:
			r.Liveness = data.LivenessInfo{Timestamp: ts(), ExpiresAt: data.NoDeletionTime}
		}
		if rng.IntN(10) == 0 {
			r.Deletion = data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: 100}
		}
		if rng.IntN(10) == 0 {
			r.ColumnDeletions = []data.ColumnDeletion{{Column: "b", Deletion: data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: 100}}}
		}
		for _, col := range []string{"a", "b", "c"} {
			if rng.IntN(3) > 0 {
				r.Cells = append(r.Cells, cell(col))
			}
		}
		return r
	}
	taken, merged := 0, 0
	for n := range 20000 {
		k := 2 + rng.IntN(3)
		versions := make([]data.Row, k)
		for i := range versions {
			versions[i] = version()
		}
		want := normalRow(versions[0])
		for _, v := range versions[1:] {
			var out data.Row
			data.MergeRowsInto(&out, &want, &v)
			want = normalRow(out)
		}
		var st ReadStats
		st.Sources = make([]SourceStats, k)
		m := &rowMerger{stats: &st}
		for i := range versions {
			m.add(&ownedSliceRows{sliceRows: sliceRows{rows: versions[i : i+1]}}, i)
		}
		got, ok := m.next()
		require.True(t, ok)
		if got == &m.merged[0] || got == &m.merged[1] {
			merged++
		} else {
			taken++
		}
		require.Equal(t, want, normalRow(*got), "case %d: %+v", n, versions)
		_, ok = m.next()
		require.False(t, ok)
		require.NoError(t, m.close())
	}
	assert.Greater(t, taken, 300, "versions one of which supersedes the others")
	assert.Greater(t, merged, 1000, "versions that need a merge")
}
