package sstable

import (
	"math"
	"slices"
	"sort"
)

// Histogram is Cassandra's EstimatedHistogram (utils/EstimatedHistogram.java):
// counts in buckets whose upper bounds (offsets) start at 1 and grow by a
// factor of 1.2 (at least 1 each step). Bucket i counts values v with
// Offsets[i-1] < v <= Offsets[i]; the last bucket counts values above the
// last offset (overflow). nodetool tablehistograms prints percentiles from
// these buckets.
type Histogram struct {
	// Offsets are the bucket upper bounds.
	Offsets []int64
	// Counts has len(Offsets)+1 entries; the last is the overflow bucket.
	Counts []uint64
}

// Bucket counts of Cassandra's histograms (io/sstable/metadata/StatsMetadata:
// defaultPartitionSizeHistogram and defaultCellPerPartitionCountHistogram).
// Part of the file format.
const (
	PartitionSizeBuckets = 150
	CellCountBuckets     = 114
)

// histogramOffsets returns the n bucket offsets of EstimatedHistogram.newOffsets
// without the zero bucket.
func histogramOffsets(n int) []int64 {
	out := make([]int64, n)
	last := int64(1)
	out[0] = last
	for i := 1; i < n; i++ {
		next := int64(math.Round(float64(last) * 1.2))
		if next == last {
			next++
		}
		out[i] = next
		last = next
	}
	return out
}

// NewHistogram returns an empty histogram with n buckets plus overflow.
func NewHistogram(n int) Histogram {
	return Histogram{Offsets: histogramOffsets(n), Counts: make([]uint64, n+1)}
}

// Add counts v once.
func (h *Histogram) Add(v int64) {
	i, _ := slices.BinarySearch(h.Offsets, v) // the first offset >= v
	h.Counts[i]++
}

// addNear counts v once, as Add, trying first the bucket *last (the one the
// previous value went to, which the caller keeps): a writer's partitions
// are mostly alike in size and cell count, so the search is rarely needed.
func (h *Histogram) addNear(v int64, last *int) {
	i := *last
	if i >= 0 && i <= len(h.Offsets) && (i == len(h.Offsets) || v <= h.Offsets[i]) && (i == 0 || v > h.Offsets[i-1]) {
		h.Counts[i]++
		return
	}
	i, _ = slices.BinarySearch(h.Offsets, v)
	*last = i
	h.Counts[i]++
}

// Total returns the number of values counted.
func (h *Histogram) Total() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Percentile returns the upper bound of the bucket holding the p-th
// percentile (0 <= p <= 1), as EstimatedHistogram.percentile does: 0 for an
// empty histogram, and math.MaxInt64 if it falls in the overflow bucket.
func (h *Histogram) Percentile(p float64) int64 {
	total := h.Total()
	if total == 0 {
		return 0
	}
	pcount := uint64(math.Ceil(float64(total) * p))
	if pcount == 0 {
		return 0
	}
	var elements uint64
	for i, c := range h.Counts {
		elements += c
		if elements >= pcount {
			if i == len(h.Offsets) {
				return math.MaxInt64
			}
			return h.Offsets[i]
		}
	}
	return 0
}

// Min returns the lower bound of the first non-empty bucket (0 if empty).
func (h *Histogram) Min() int64 {
	for i, c := range h.Counts {
		if c > 0 {
			if i == 0 {
				return 0
			}
			return h.Offsets[i-1] + 1
		}
	}
	return 0
}

// Max returns the upper bound of the last non-empty bucket (0 if empty,
// math.MaxInt64 if the overflow bucket is used).
func (h *Histogram) Max() int64 {
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			if i == len(h.Offsets) {
				return math.MaxInt64
			}
			return h.Offsets[i]
		}
	}
	return 0
}

// DropTimeHistogram is a bounded streaming histogram of tombstone local
// deletion times (seconds), like Cassandra's StreamingTombstoneHistogram:
// at most MaxBins points, the two closest merged (weighted mean) when a new
// point would exceed it. It estimates how many tombstones are droppable at a
// given gc-before time.
type DropTimeHistogram struct {
	// Points are the bin positions, ascending; Counts their weights.
	Points []int64
	Counts []uint64
}

// DropTimeBins is the bin cap of DropTimeHistogram, as Cassandra's
// tombstone histogram default (100). Part of the file format (a reader
// rejects more).
const DropTimeBins = 100

// Add records one tombstone with local deletion time t.
func (h *DropTimeHistogram) Add(t int64) {
	i := sort.Search(len(h.Points), func(i int) bool { return h.Points[i] >= t })
	if i < len(h.Points) && h.Points[i] == t {
		h.Counts[i]++
		return
	}
	h.Points = append(h.Points, 0)
	h.Counts = append(h.Counts, 0)
	copy(h.Points[i+1:], h.Points[i:])
	copy(h.Counts[i+1:], h.Counts[i:])
	h.Points[i], h.Counts[i] = t, 1
	if len(h.Points) <= DropTimeBins {
		return
	}
	best := 0
	for j := 1; j < len(h.Points)-1; j++ {
		if h.Points[j+1]-h.Points[j] < h.Points[best+1]-h.Points[best] {
			best = j
		}
	}
	a, b := h.Counts[best], h.Counts[best+1]
	// Weighted mean, computed in float64 to avoid overflow of the product.
	p := float64(h.Points[best])*float64(a)/float64(a+b) + float64(h.Points[best+1])*float64(b)/float64(a+b)
	h.Points[best] = int64(math.Round(p))
	h.Counts[best] = a + b
	h.Points = append(h.Points[:best+1], h.Points[best+2:]...)
	h.Counts = append(h.Counts[:best+1], h.Counts[best+2:]...)
}

// Before estimates how many recorded tombstones have a local deletion time
// strictly before gcBefore.
func (h *DropTimeHistogram) Before(gcBefore int64) uint64 {
	var n uint64
	for i, p := range h.Points {
		if p < gcBefore {
			n += h.Counts[i]
		}
	}
	return n
}

// Total returns the number of tombstones recorded.
func (h *DropTimeHistogram) Total() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}
