package engine

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecayOffsets(t *testing.T) {
	assert.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17, 20, 24, 29, 35, 42, 50, 60, 72, 86, 103}, decayOffsets[:22])
	assert.Equal(t, int64(18165375903306), decayOffsets[len(decayOffsets)-1], "EstimatedHistogram.newOffsets(164, false)")
}

// TestReadHistograms checks the decaying reservoir: values read as their
// bucket's upper bound (0 as 1), recent values weigh more, a minute halves
// a value's weight, old values fade to nothing while the count stays, and
// the landmark moves after 30 minutes without changing what is seen.
func TestReadHistograms(t *testing.T) {
	start := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC).Unix()
	var h readHistograms
	rows, tombs := h.snapshot(start)
	assert.True(t, math.IsNaN(rows.Mean) && math.IsNaN(tombs.Mean), "no mean without reads")
	assert.Equal(t, ReadHistogram{}, noMean(rows))
	assert.Equal(t, ReadHistogram{}, noMean(tombs))

	for i := 0; i < 98; i++ {
		h.record(&ReadStats{RowsReturned: 10, now: start})
	}
	h.record(&ReadStats{RowsReturned: 100, Tombstones: TombstoneStats{Row: 1, Range: 2, Partition: 7}, ExpiredCells: 3, now: start})
	h.record(&ReadStats{RowsReturned: 1000, now: start})
	rows, tombs = h.snapshot(start)
	assert.Equal(t, ReadHistogram{Count: 100, P50: 10, P99: 103, Max: 1109}, noMean(rows))
	// 0 tombstones reads as 1; 1 row + 2 ranges (4 markers) + 3 expired = 8.
	assert.Equal(t, ReadHistogram{Count: 100, P50: 1, P99: 1, Max: 8}, noMean(tombs))
	// The mean counts each value at its bucket's bound plus half its width:
	// 99 zeros as 1, the 8 as 8.
	assert.InDelta(t, (99*1+8)/100.0, tombs.Mean, 1e-9)

	// A minute later, 100 reads of 1000 rows weigh twice the old 100.
	later := start + 60
	for i := 0; i < 100; i++ {
		h.record(&ReadStats{RowsReturned: 1000, now: later})
	}
	rows, _ = h.snapshot(later)
	assert.Equal(t, int64(200), rows.Count)
	assert.Equal(t, int64(1109), rows.P50)

	// Half an hour later everything has faded; the counts stay.
	quiet := later + 31*60
	rows, tombs = h.snapshot(quiet)
	assert.Equal(t, ReadHistogram{Count: 200}, noMean(rows))
	assert.Equal(t, ReadHistogram{Count: 200}, noMean(tombs))
	assert.True(t, math.IsNaN(rows.Mean))

	// The next record moves the landmark; values read as before.
	h.record(&ReadStats{RowsReturned: 5, now: quiet})
	rows, _ = h.snapshot(quiet)
	assert.Equal(t, ReadHistogram{Count: 201, P50: 5, P99: 5, Max: 5, Mean: 5}, rows)
	assert.Equal(t, quiet, h.landmark)

	// Past the last offset is the overflow bucket.
	h.record(&ReadStats{RowsReturned: math.MaxInt32 * 10000, now: quiet})
	rows, _ = h.snapshot(quiet)
	assert.Equal(t, int64(math.MaxInt64), rows.Max)
}

// TestReadsRecorded checks that partition reads and scans record once each
// into TableStats.
func TestReadsRecorded(t *testing.T) {
	e, _, tbl := newTestEngine(t)
	ctx := context.Background()
	put(t, e, tbl, "a", "c1", "x", 1)
	put(t, e, tbl, "a", "c2", "y", 2)
	put(t, e, tbl, "b", "c1", "z", 3)
	for _, key := range []string{"a", "a", "missing"} {
		p, err := e.ReadPartition(ctx, tbl, []byte(key), ReadOptions{})
		require.NoError(t, err)
		for _, ok := p.Next(); ok; _, ok = p.Next() {
		}
		require.NoError(t, p.Close())
	}
	sc, err := e.Scan(ctx, tbl, data.FullRing, ReadOptions{})
	require.NoError(t, err)
	for p, ok := sc.Next(); ok; p, ok = sc.Next() {
		for _, ok := p.Next(); ok; _, ok = p.Next() {
		}
	}
	require.NoError(t, sc.Close())
	st, err := e.TableStats("ks", "t")
	require.NoError(t, err)
	assert.Equal(t, ReadHistogram{Count: 4, P50: 2, P99: 3, Max: 3, Mean: 2}, st.RowsPerRead, "2, 2, 0 and a scan of 3")
	assert.Equal(t, ReadHistogram{Count: 4, P50: 1, P99: 1, Max: 1, Mean: 1}, st.TombstonesPerRead)
}

// noMean returns h without its mean, which may be NaN.
func noMean(h ReadHistogram) ReadHistogram {
	h.Mean = 0
	return h
}

// TestDecayingHistogramSmallValues checks that the bucket lookup for small
// values (decaySmall) picks the bucket the binary search over the offsets
// picks, with and without a bucket for zero.
func TestDecayingHistogramSmallValues(t *testing.T) {
	for _, zeroes := range []bool{false, true} {
		for v := int64(-1); v < 200; v++ {
			var h decayingHistogram
			h.zeroes = zeroes
			h.add(v, 1)
			want, _ := slices.BinarySearch(h.offsets(), max(v, 0))
			for i, w := range h.buckets {
				if got := w == 1; got != (i == want) {
					t.Fatalf("zeroes=%v: value %d in bucket %d, want bucket %d", zeroes, v, i, want)
				}
			}
		}
	}
}
