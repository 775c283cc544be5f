package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/minicass/minicass/data"
)

func benchMutation(key, ck []byte, ts int64) *data.Mutation {
	r := data.Row{Clustering: ck, Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}, Deletion: data.LiveDeletion,
		Cells: []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte("0123456789abcdef")}}}
	return &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}
}

func u64(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

// BenchmarkApplyNarrow writes one single-row partition per operation.
func BenchmarkApplyNarrow(b *testing.B) {
	e, _, tbl := newTestEngine(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := e.Apply(ctx, tbl, benchMutation(u64(i), []byte("c"), int64(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyWide writes rows into 100 partitions in turn.
func BenchmarkApplyWide(b *testing.B) {
	e, _, tbl := newTestEngine(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := e.Apply(ctx, tbl, benchMutation(u64(i%100), u64(i/100), int64(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPointRead reads one narrow partition out of 100,000.
func BenchmarkPointRead(b *testing.B) {
	e, _, tbl := newTestEngine(b)
	ctx := context.Background()
	for i := 0; i < 100_000; i++ {
		_ = e.Apply(ctx, tbl, benchMutation(u64(i), []byte("c"), 1))
	}
	b.ReportAllocs()
	// The CPU time of the benchmark's thread (cpu-ns/op) is the figure to
	// read on a shared machine, where the wall time measures the load.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var start time.Duration
	i := 0
	for ; b.Loop(); i++ {
		if i == 0 {
			start = threadCPU(b)
		}
		p, err := e.ReadPartition(ctx, tbl, u64(i%100_000), ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := p.Next(); !ok {
			b.Fatal("missing row")
		}
		p.Close()
	}
	b.ReportMetric(float64(threadCPU(b)-start)/float64(i), "cpu-ns/op")
}

// threadCPU returns the CPU time of the calling thread (a benchmark locks
// its goroutine to it).
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatalf("thread CPU clock: %v", err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkLatest10 reads ten rows at one end of a wide partition.
func BenchmarkLatest10(b *testing.B) {
	ctx := context.Background()
	for _, width := range []int{1000, 100_000, 1_000_000} {
		e, _, tbl := newTestEngine(b)
		for i := 0; i < width; i++ {
			_ = e.Apply(ctx, tbl, benchMutation([]byte("wide"), u64(i), 1))
		}
		for _, reverse := range []bool{false, true} {
			b.Run(fmt.Sprintf("width=%d/reverse=%v", width, reverse), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					p, err := e.ReadPartition(ctx, tbl, []byte("wide"), ReadOptions{Reverse: reverse, Limit: 10})
					if err != nil {
						b.Fatal(err)
					}
					n := countRows(p)
					p.Close()
					if n != 10 {
						b.Fatalf("read %d rows", n)
					}
				}
			})
		}
	}
}

// BenchmarkMemoryPerCell reports heap bytes per stored cell for narrow rows
// with one 16-byte value.
func BenchmarkMemoryPerCell(b *testing.B) {
	ctx := context.Background()
	const n = 100_000
	for b.Loop() {
		e, _, tbl := newTestEngine(b)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := 0; i < n; i++ {
			_ = e.Apply(ctx, tbl, benchMutation(u64(i), []byte("c"), 1))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/cell")
		runtime.KeepAlive(e)
	}
}

// countRows reads p to its end and returns how many rows it gave; the
// read benchmarks use it to check each read's row count.
func countRows(p *Partition) int {
	n := 0
	for {
		if _, ok := p.Next(); !ok {
			return n
		}
		n++
	}
}
