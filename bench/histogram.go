package bench

import (
	"math/bits"
	"time"
)

// Histogram records latencies in log-linear buckets: each power of two of
// nanoseconds is split into 16 equal buckets, so a quantile is within 1/16
// (6.25%) of the true value, as in HdrHistogram with one significant digit.
// Values under 16 ns have a bucket each. Record does not allocate. The zero
// value is empty and ready to use; a Histogram is not safe for concurrent
// use (merge per-goroutine histograms with Merge).
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    uint64
	max    uint64
}

const (
	histSubBits = 4
	histSub     = 1 << histSubBits
	// histBuckets covers every uint64: 16 exact buckets, then 16 per
	// power of two from 2^4 to 2^63.
	histBuckets = histSub + (64-histSubBits)*histSub
)

// bucketOf returns the bucket of v.
func bucketOf(v uint64) int {
	if v < histSub {
		return int(v)
	}
	e := bits.Len64(v) - 1 // 2^e <= v < 2^(e+1), e >= 4
	sub := (v >> (e - histSubBits)) & (histSub - 1)
	return histSub + (e-histSubBits)*histSub + int(sub)
}

// bucketLow returns the smallest value of bucket i.
func bucketLow(i int) uint64 {
	if i < histSub {
		return uint64(i)
	}
	e := (i-histSub)/histSub + histSubBits
	sub := uint64((i - histSub) % histSub)
	return 1<<e | sub<<(e-histSubBits)
}

// Record adds one latency; negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucketOf(v)]++
	h.n++
	h.sum += v
	h.max = max(h.max, v)
}

// Merge adds the latencies recorded in o.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Count returns the number of latencies recorded.
func (h *Histogram) Count() int { return int(h.n) }

// Mean returns the mean latency, 0 for an empty histogram.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / h.n)
}

// Max returns the largest latency recorded.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Quantile returns the latency below which a fraction q (0..1) of the
// recorded latencies fall: the low edge of the bucket holding the
// ceil(q*n)-th smallest latency (the exact value for latencies under 16 ns),
// never more than Max. It returns 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	rank := uint64(q * float64(h.n))
	if float64(rank) < q*float64(h.n) || rank == 0 {
		rank++
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(bucketLow(i), h.max))
		}
	}
	return time.Duration(h.max)
}
