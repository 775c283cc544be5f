package engine

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
)

// benchEngine returns an in-memory engine with table ks.t and background
// compaction off, so that the SSTables loaded stay as they are.
func benchEngine(b *testing.B) (*Engine, *schema.Table) {
	e, err := Open(Options{Clock: NewManualClock(testStart), DisableAutoCompaction: true, CompactionThroughput: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	if err := e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}); err != nil {
		b.Fatal(err)
	}
	tbl := testTable("t", data.TableID{1})
	if err := e.CreateTable(tbl); err != nil {
		b.Fatal(err)
	}
	return e, tbl
}

// loadSSTables writes rows partitions × rowsPer rows into n SSTables of an
// in-memory engine: every SSTable holds a version of every row, so each
// partition overlaps n SSTables. It returns the Data.db bytes written.
func loadSSTables(b *testing.B, e *Engine, n, partitions, rowsPer int) int64 {
	b.Helper()
	ctx := context.Background()
	tbl, _ := e.Table("ks", "t")
	ts := int64(0)
	for f := 0; f < n; f++ {
		for p := 0; p < partitions; p++ {
			for r := 0; r < rowsPer; r++ {
				ts++
				if err := e.Apply(ctx, tbl, benchMutation(u64(p), u64(r), ts)); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := e.Flush(ctx, "ks", "t"); err != nil {
			b.Fatal(err)
		}
	}
	var size int64
	for _, in := range e.SSTables("ks", "t") {
		size += int64(in.Stats.CompressedSize)
	}
	return size
}

// BenchmarkCompaction measures major-compaction throughput (input Data.db
// bytes per second) of four overlapping SSTables, for narrow partitions
// (one row each) and wide ones (2,000 rows each).
func BenchmarkCompaction(b *testing.B) {
	for _, bc := range []struct {
		name             string
		partitions, rows int
	}{{"narrow", 20000, 1}, {"wide", 10, 2000}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			var in int64
			for b.Loop() {
				b.StopTimer()
				e, _ := benchEngine(b)
				in = loadSSTables(b, e, 4, bc.partitions, bc.rows)
				b.StartTimer()
				if err := e.Compact(ctx, "ks", "t"); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = e.Close()
				b.StartTimer()
			}
			b.SetBytes(in)
		})
	}
}

// BenchmarkCompactionAppend measures major-compaction throughput (input
// Data.db bytes per second) of four SSTables that each add new rows to the
// same 1,000 partitions (input f holds rows 50f to 50f+49 of every one), the
// shape of a time series or of bench/steady's writes: partitions overlap in
// every input, rows in none, so every row is written out as it was read.
func BenchmarkCompactionAppend(b *testing.B) {
	const inputs, partitions, rows = 4, 1_000, 50
	ctx := context.Background()
	var in int64
	for b.Loop() {
		b.StopTimer()
		e, tbl := benchEngine(b)
		in = 0
		ts := int64(0)
		for f := range inputs {
			for p := range partitions {
				for r := range rows {
					ts++
					if err := e.Apply(ctx, tbl, benchMutation(u64(p), u64(f*rows+r), ts)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := e.Flush(ctx, "ks", "t"); err != nil {
				b.Fatal(err)
			}
		}
		for _, s := range e.SSTables("ks", "t") {
			in += int64(s.Stats.CompressedSize)
		}
		runtime.GC()
		b.StartTimer()
		if err := e.Compact(ctx, "ks", "t"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if n := len(e.SSTables("ks", "t")); n != 1 {
			b.Fatalf("%d SSTables after compaction, want 1", n)
		}
		_ = e.Close()
		b.StartTimer()
	}
	b.SetBytes(in)
}

// BenchmarkPointReadOverlapping reads one row of a partition present in
// 1, 4 or 16 SSTables, before and after a major compaction.
func BenchmarkPointReadOverlapping(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		for _, compacted := range []bool{false, true} {
			name := fmt.Sprintf("sstables=%d/compacted=%v", n, compacted)
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				e, tbl := benchEngine(b)
				loadSSTables(b, e, n, 1000, 4)
				if got := len(e.SSTables("ks", "t")); got != n {
					b.Fatalf("%d SSTables, want %d", got, n)
				}
				if compacted {
					if err := e.Compact(ctx, "ks", "t"); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					p, err := e.ReadPartition(ctx, tbl, u64(i%1000), ReadOptions{Limit: 1})
					if err != nil {
						b.Fatal(err)
					}
					if _, ok := p.Next(); !ok {
						b.Fatal("no row")
					}
					if err := p.Close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkWriteAmplificationSTCS writes 200,000 narrow rows (100,000
// distinct) with 256 KiB memtables, background flushes and STCS background
// compaction (min_sstable_size lowered so that tiering shows at this
// scale) and reports the bytes written to SSTables by flushes and
// compactions per byte of mutations (write-amp; mutation bytes as
// data.Mutation.Size estimates them, a little above their SSTable
// encoding) and the compaction bytes per flushed byte.
func BenchmarkWriteAmplificationSTCS(b *testing.B) {
	for b.Loop() {
		ctx := context.Background()
		e, _, tbl := openDurable(b, vfs.NewMem(), Options{CommitLogSync: SyncNone, MemtableSize: 256 << 10})
		nt := *tbl
		nt.Options.Compaction = map[string]string{"class": "SizeTieredCompactionStrategy", "min_sstable_size": "65536"}
		if err := e.AlterTable(&nt); err != nil {
			b.Fatal(err)
		}
		var mutBytes int64
		for i := 0; i < 200000; i++ {
			m := benchMutation(u64(i%100000), []byte("c"), int64(i+1))
			mutBytes += int64(m.Size())
			if err := e.Apply(ctx, &nt, m); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Flush(ctx, "ks", "t"); err != nil {
			b.Fatal(err)
		}
		// Finish the compactions due, then close.
		if _, err := e.CompactPending(ctx, "ks", "t"); err != nil {
			b.Fatal(err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		ws := e.WriteStats()
		b.ReportMetric(float64(ws.Flushed+ws.Compacted)/float64(mutBytes), "write-amp")
		b.ReportMetric(float64(ws.Compacted)/float64(ws.Flushed), "compacted/flushed")
		b.ReportMetric(float64(len(e.CompactionHistory())), "compactions")
	}
}

// BenchmarkCompactionNarrowCPU isolates the per-partition cost of a narrow
// major compaction: four SSTables that each hold a version of the same
// 100,000 single-row partitions are compacted into one. It reports the
// process CPU time (every goroutine, user and system) of the compaction
// alone, per output partition; the loading is outside the figure.
func BenchmarkCompactionNarrowCPU(b *testing.B) {
	const partitions = 100_000
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		e, _ := benchEngine(b)
		loadSSTables(b, e, 4, partitions, 1)
		// The loading's garbage is collected before, not during, the
		// compaction measured.
		runtime.GC()
		b.StartTimer()
		start := processCPU()
		if err := e.Compact(ctx, "ks", "t"); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - start
		b.StopTimer()
		if n := len(e.SSTables("ks", "t")); n != 1 {
			b.Fatalf("%d SSTables after compaction, want 1", n)
		}
		_ = e.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/partitions, "cpu-ns/partition")
}
