package query

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
)

// TestTraceRead checks that a traced read's partitions sum into one entry
// per table and access, with each source's skips counted by reason, the
// first keys kept, and the filter's counts.
func TestTraceRead(t *testing.T) {
	var none *Trace
	none.Read("ks.t", AccessScan, "", nil, &engine.ReadStats{})
	none.Filtered("ks.t", 1, 1)

	tr := NewTrace(time.Now)
	formatted := 0
	for i := 0; i < 10; i++ {
		reason := "bloom filter"
		if i%2 == 0 {
			reason = "token out of range"
		}
		st := &engine.ReadStats{Partitions: 1, RowsRead: 3, CellsRead: 6, RowsReturned: 2, Sources: []engine.SourceStats{
			{Name: "memtable-1", Kind: engine.SourceMemtable, Read: 1, Rows: 1},
			{Name: "xa-2-big-Data.db", Kind: engine.SourceSSTable, Skipped: 1, SkipReason: reason},
			{Name: "xa-1-big-Data.db", Kind: engine.SourceSSTable, Read: 1, Rows: 2},
		}}
		tr.Read("ks.t", AccessScan, "t_v", func() string { formatted++; return "k = " + string(rune('a'+i)) }, st)
	}
	tr.Filtered("ks.t", 20, 4)
	require.Len(t, tr.Reads, 1)
	r := tr.Reads[0]
	assert.Equal(t, AccessScan, r.Access)
	assert.Equal(t, "t_v", r.Index)
	assert.Equal(t, []string{"k = a", "k = b", "k = c", "k = d", "k = e", "k = f", "k = g", "k = h"}, r.Keys)
	assert.Equal(t, 8, formatted, "keys past the first 8 are not formatted")
	assert.Equal(t, 10, r.Stats.Partitions)
	assert.Equal(t, 60, r.Stats.CellsRead)
	assert.Equal(t, 10, r.Stats.Sources[0].Read)
	assert.Equal(t, 10, r.Stats.Sources[1].Skipped)
	assert.Equal(t, []SourceSkip{
		{Source: "xa-2-big-Data.db", Reason: "token out of range", Partitions: 5},
		{Source: "xa-2-big-Data.db", Reason: "bloom filter", Partitions: 5},
	}, r.Skips("xa-2-big-Data.db"))
	assert.Empty(t, r.Skips("xa-1-big-Data.db"))
	assert.True(t, r.Filtered)
	assert.Equal(t, [2]int{20, 4}, [2]int{r.RowsExamined, r.RowsMatched})

	// Another access of the same table is another entry; filtering
	// without a read made one is recorded as a scan's.
	tr.Read("ks.t", AccessPartition, "", nil, &engine.ReadStats{Partitions: 1})
	tr.Filtered("ks.u", 3, 1)
	require.Len(t, tr.Reads, 3)
	assert.Equal(t, AccessPartition, tr.Reads[1].Access)
	assert.Equal(t, TraceRead{Table: "ks.u", Access: AccessScan, Filtered: true, RowsExamined: 3, RowsMatched: 1}, tr.Reads[2])
}

// TestTraceIndexChecked checks that the rows an index read named are
// counted on the table's index read, not on a scan of it.
func TestTraceIndexChecked(t *testing.T) {
	var none *Trace
	none.IndexChecked("ks.t", 1, 1)
	tr := &Trace{}
	tr.Read("ks.t", AccessIndex, "t_v", nil, &engine.ReadStats{Partitions: 2})
	tr.IndexChecked("ks.t", 3, 2)
	require.Len(t, tr.Reads, 1)
	assert.Equal(t, AccessIndex, tr.Reads[0].Access)
	assert.Equal(t, "t_v", tr.Reads[0].Index)
	assert.True(t, tr.Reads[0].Filtered)
	assert.Equal(t, 3, tr.Reads[0].RowsExamined)
	assert.Equal(t, 2, tr.Reads[0].RowsMatched)
}
