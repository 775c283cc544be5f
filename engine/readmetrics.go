package engine

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Per-read histograms of a table, Cassandra's TableMetrics
// liveScannedHistogram and tombstoneScannedHistogram, which
// system_views.rows_per_read and tombstones_per_read show. Each read
// command records once when it ends: a partition read when its Partition
// is closed, a scan when its Scanner is closed.

// Shape of DecayingEstimatedHistogramReservoir.
const (
	decayBuckets        = 164              // DEFAULT_BUCKET_COUNT
	decayHalfLife       = 60 * time.Second // HALF_TIME_IN_S
	decayLandmarkPeriod = 30 * time.Minute // LANDMARK_RESET_INTERVAL_IN_NS
)

// decayOffsets are the bucket upper bounds: EstimatedHistogram.newOffsets
// (164, false), 1, 2, 3, ... growing by 1.2. Zero falls in the first
// bucket, so it reads as 1, as in Cassandra.
var decayOffsets = func() []int64 {
	out := make([]int64, decayBuckets)
	last := int64(1)
	out[0] = last
	for i := 1; i < len(out); i++ {
		next := int64(math.Round(float64(last) * 1.2))
		if next == last {
			next++
		}
		out[i], last = next, next
	}
	return out
}()

// decayZeroOffsets are the bucket upper bounds of a histogram that
// considers zeroes (EstimatedHistogram.newOffsets(164, true)): a bucket for
// 0, then decayOffsets.
var decayZeroOffsets = append([]int64{0}, decayOffsets...)

// decaySmall and decayZeroSmall are the buckets of the values below
// len(decaySmall) in decayOffsets and decayZeroOffsets: most reads record
// small counts (a row, no tombstone, an SSTable or none), which then take
// their bucket without a binary search.
var decaySmall, decayZeroSmall = smallBuckets(decayOffsets), smallBuckets(decayZeroOffsets)

func smallBuckets(offsets []int64) (out [64]uint8) {
	for v := range out {
		i, _ := slices.BinarySearch(offsets, int64(v))
		out[v] = uint8(i)
	}
	return out
}

// decayingHistogram is Cassandra's DecayingEstimatedHistogramReservoir:
// each value adds, to its bucket, a weight that grows exponentially with
// the time since a landmark (forward decay), so that a snapshot, divided
// by the current weight, counts a value recorded a minute ago half as much
// as one recorded now. The landmark and the lock belong to the
// readHistograms holding it.
type decayingHistogram struct {
	// buckets holds the decayed weights, one per offset, then overflow.
	buckets [decayBuckets + 2]int64
	count   int64 // values recorded; never decays
	// zeroes gives 0 a bucket of its own (decayZeroOffsets), as the
	// reservoirs Cassandra creates with considerZeroes do (the SSTables
	// per read): otherwise 0 falls in the first bucket and reads as 1.
	zeroes bool
}

// offsets returns the histogram's bucket upper bounds.
func (h *decayingHistogram) offsets() []int64 {
	if h.zeroes {
		return decayZeroOffsets
	}
	return decayOffsets
}

// clear forgets every value, as ClearableHistogram.clear does.
func (h *decayingHistogram) clear() {
	clear(h.buckets[:])
	h.count = 0
}

// decayWeight is forwardDecayWeight: e^(seconds since the landmark / mean
// lifetime); times are whole seconds.
func decayWeight(landmark, now int64) float64 {
	meanLifetime := decayHalfLife.Seconds() / math.Ln2
	return math.Exp(float64(now-landmark) / meanLifetime)
}

// add records v (negative values count as 0) with the given weight.
func (h *decayingHistogram) add(v int64, weight int64) {
	v = max(v, 0)
	var i int
	switch {
	case v < int64(len(decaySmall)) && h.zeroes:
		i = int(decayZeroSmall[v])
	case v < int64(len(decaySmall)):
		i = int(decaySmall[v])
	default:
		i, _ = slices.BinarySearch(h.offsets(), v) // the first offset >= v
	}
	h.buckets[i] += weight
	h.count++
}

// rescale divides the weights by f (a new landmark).
func (h *decayingHistogram) rescale(f float64) {
	for i := range h.buckets {
		h.buckets[i] = int64(math.Round(float64(h.buckets[i]) / f))
	}
}

// ReadHistogram is a snapshot of a per-read histogram: how many reads it
// has recorded, and the median, 99th percentile and maximum of the recent
// ones (bucket upper bounds, decayed; 0 when nothing recent).
type ReadHistogram struct {
	Count         int64
	P50, P99, Max int64
	// Mean is the snapshot's getMean: each recent value counted at its
	// bucket's upper bound plus half the bucket's width; NaN when nothing
	// is recent. nodetool tablestats prints it.
	Mean float64
}

// snapshot is DecayingEstimatedHistogramReservoir's snapshot with the
// current weight f: getValue(0.5), getValue(0.99) and getMax over the
// decayed counts. The overflow bucket reads as math.MaxInt64.
func (h *decayingHistogram) snapshot(f float64) ReadHistogram {
	out, _ := h.snapshotPoints(f)
	return out
}

// snapshotPoints is snapshot with the points nodetool tablehistograms
// prints (Percentiles: the 50th to 99th percentiles, Min and Max).
func (h *decayingHistogram) snapshotPoints(f float64) (ReadHistogram, Percentiles) {
	out := ReadHistogram{Count: h.count, Mean: math.NaN()}
	var pts Percentiles
	if h.count == 0 {
		return out, pts
	}
	offs := h.offsets()
	n := len(offs) // the overflow bucket
	var decayed [decayBuckets + 2]int64
	var total int64
	for i, b := range h.buckets[:n+1] {
		decayed[i] = int64(math.Round(float64(b) / f))
		total += decayed[i]
	}
	value := func(q float64) int64 {
		if decayed[n] > 0 {
			return math.MaxInt64
		}
		want := int64(math.Ceil(float64(total) * q))
		if want == 0 {
			return 0
		}
		var sum int64
		for i, c := range decayed[:n] {
			if sum += c; sum >= want {
				return offs[i]
			}
		}
		return 0
	}
	out.P50, out.P99 = value(0.5), value(0.99)
	pts.P50, pts.P75, pts.P95, pts.P98, pts.P99 = out.P50, value(0.75), value(0.95), value(0.98), out.P99
	if decayed[n] == 0 && total > 0 {
		var sum int64
		for i, c := range decayed[:n] {
			lower := int64(0)
			if i > 0 {
				lower = offs[i-1]
			}
			sum += c * (offs[i] + (offs[i]-lower)>>1)
		}
		out.Mean = float64(sum) / float64(total)
	}
	for i := n; i >= 0; i-- {
		if decayed[i] > 0 {
			out.Max = math.MaxInt64
			if i < n {
				out.Max = offs[i]
			}
			break
		}
	}
	pts.Max = out.Max
	for i := 0; i <= n; i++ {
		if decayed[i] > 0 {
			pts.Min = math.MaxInt64
			if i < n {
				pts.Min = offs[i]
			}
			break
		}
	}
	return out, pts
}

// readHistograms are a table's two per-read histograms, with their common
// landmark. The weight of the current second is cached: recording costs a
// lock and two additions.
type readHistograms struct {
	mu               sync.Mutex
	rows, tombstones decayingHistogram
	// sstables is Cassandra's sstablesPerReadHistogram: the SSTables each
	// partition read opened (ReadStats.SSTablesIterated), zeroes counted;
	// scans do not record in it.
	sstables decayingHistogram
	landmark int64 // unix seconds; 0 before the first record
	second   int64 // the time weight is for
	weight   int64
}

// record counts one finished read command, as ReadCommand's
// MetricRecording does: the live rows returned, and the tombstones met:
// deleted and expired cells, row deletions, and range tombstones (two
// markers each); partition deletions are not counted. The read's time
// (st.now, unix seconds) dates it.
func (h *readHistograms) record(st *ReadStats) {
	t := st.Tombstones
	rows, tombstones := int64(st.RowsReturned), int64(t.Cell+t.Collection+t.Row+2*t.Range+st.ExpiredCells)
	now := st.now
	h.mu.Lock()
	if h.landmark == 0 || now-h.landmark > int64(decayLandmarkPeriod/time.Second) {
		if h.landmark != 0 {
			f := decayWeight(h.landmark, now)
			h.rows.rescale(f)
			h.tombstones.rescale(f)
			h.sstables.rescale(f)
		}
		h.landmark, h.second, h.weight = now, now, 1
	}
	if now != h.second {
		h.second, h.weight = now, int64(math.Round(decayWeight(h.landmark, now)))
	}
	h.rows.add(rows, h.weight)
	h.tombstones.add(tombstones, h.weight)
	if st.partitionRead {
		h.sstables.zeroes = true
		h.sstables.add(int64(st.SSTablesIterated), h.weight)
	}
	h.mu.Unlock()
}

// sstablesSnapshot returns the histogram of SSTables per partition read
// at now (unix seconds).
func (h *readHistograms) sstablesSnapshot(now int64) (ReadHistogram, Percentiles) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := 1.0
	if h.landmark != 0 {
		f = decayWeight(h.landmark, now)
	}
	h.sstables.zeroes = true
	return h.sstables.snapshotPoints(f)
}

// clearSSTables empties the histogram of SSTables per read.
func (h *readHistograms) clearSSTables() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sstables.clear()
}

// snapshot returns the histograms of rows and tombstones per read at now
// (unix seconds).
func (h *readHistograms) snapshot(now int64) (rows, tombstones ReadHistogram) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := 1.0
	if h.landmark != 0 {
		f = decayWeight(h.landmark, now)
	}
	return h.rows.snapshot(f), h.tombstones.snapshot(f)
}
