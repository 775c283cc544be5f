package memtable

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/minicass/minicass/data"
)

func benchKey(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

// BenchmarkApplyNarrow inserts one single-row partition per operation.
func BenchmarkApplyNarrow(b *testing.B) {
	m := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := benchKey(i)
		m.Apply(int64(i*7919), &data.Mutation{Key: k, PartitionDeletion: data.LiveDeletion,
			Rows: []data.Row{{Clustering: k[:0:0], Liveness: data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime},
				Deletion: data.LiveDeletion, Cells: []data.Cell{cell("v", 1, "0123456789abcdef")}}}})
	}
}

// narrowMutation returns a mutation writing one narrow row (one 16-byte
// cell, a liveness record) to a new partition keyed by i.
func narrowMutation(i int) *data.Mutation {
	k := benchKey(i)
	return &data.Mutation{Key: k, PartitionDeletion: data.LiveDeletion,
		Rows: []data.Row{{Clustering: k[:0:0], Liveness: data.LivenessInfo{Timestamp: 1, ExpiresAt: data.NoDeletionTime},
			Deletion: data.LiveDeletion, Cells: []data.Cell{cell("v", 1, "0123456789abcdef")}}}}
}

// BenchmarkApplyNarrowParallel inserts single-row partitions from two
// goroutines at once, each on its own keys; ns/op is per insert.
func BenchmarkApplyNarrowParallel(b *testing.B) {
	const writers = 2
	m := New()
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < b.N; i += writers {
				m.Apply(int64(i*7919), narrowMutation(i))
			}
		}(w)
	}
	wg.Wait()
}

// BenchmarkPointRead reads the row of one narrow partition out of 100,000.
func BenchmarkPointRead(b *testing.B) {
	const n = 100_000
	m := New()
	keys := make([][]byte, n)
	for i := 0; i < n; i++ {
		keys[i] = benchKey(i)
		m.Apply(int64(i*7919), narrowMutation(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		j := i % n
		ps, ok := m.Get(int64(j*7919), keys[j])
		if !ok {
			b.Fatal("missing partition")
		}
		it := ps.Rows(nil, false)
		if _, ok := it.Next(); !ok {
			b.Fatal("missing row")
		}
		it.Close()
	}
}

// BenchmarkApplyWide appends rows to 100 partitions in turn.
func BenchmarkApplyWide(b *testing.B) {
	m := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := i % 100
		m.Apply(int64(p), &data.Mutation{Key: benchKey(p), PartitionDeletion: data.LiveDeletion,
			Rows: []data.Row{row(string(benchKey(i/100)), cell("v", 1, "0123456789abcdef"))}})
	}
}

// BenchmarkLatest10 reads the last ten rows of a partition of the given
// width, forward (first ten) and reverse (last ten).
func BenchmarkLatest10(b *testing.B) {
	for _, width := range []int{1000, 100_000, 1_000_000} {
		m := New()
		for i := 0; i < width; i++ {
			m.Apply(1, &data.Mutation{Key: []byte("k"), PartitionDeletion: data.LiveDeletion,
				Rows: []data.Row{row(string(benchKey(i)), cell("v", 1, "x"))}})
		}
		for _, reverse := range []bool{false, true} {
			b.Run(fmt.Sprintf("width=%d/reverse=%v", width, reverse), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					ps, _ := m.Get(1, []byte("k"))
					it := ps.Rows(nil, reverse)
					for j := 0; j < 10; j++ {
						if _, ok := it.Next(); !ok {
							b.Fatal("short partition")
						}
					}
					it.Close()
				}
			})
		}
	}
}

// BenchmarkMemoryPerCell reports the heap bytes per stored cell of a
// memtable of narrow partitions holding one 16-byte value each.
func BenchmarkMemoryPerCell(b *testing.B) {
	const n = 200_000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := New()
		for i := 0; i < n; i++ {
			k := benchKey(i)
			m.Apply(int64(i*7919), &data.Mutation{Key: k, PartitionDeletion: data.LiveDeletion,
				Rows: []data.Row{row("", cell("v", 1, "0123456789abcdef"))}})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/cell")
		b.ReportMetric(float64(m.Size())/n, "estB/cell")
		runtime.KeepAlive(m)
	}
}

// BenchmarkScanNarrow walks 100,000 single-row partitions and their rows,
// as a flush does, with Scan (a snapshot allocated per partition) and with
// ScanReuse (snapshots reused and taken ahead).
func BenchmarkScanNarrow(b *testing.B) {
	const parts = 100_000
	m := New()
	for i := 0; i < parts; i++ {
		m.Apply(int64(uint64(i)*0x9E3779B97F4A7C15), narrowMutation(i))
	}
	for _, bc := range []struct {
		name string
		scan func(data.TokenRange) data.PartitionIterator
	}{{"Scan", m.Scan}, {"ScanReuse", m.ScanReuse}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				it := bc.scan(data.FullRing)
				n, cells := 0, 0
				for {
					ps, ok := it.Next()
					if !ok {
						break
					}
					rows := ps.Rows(nil, false)
					for {
						r, ok := rows.Next()
						if !ok {
							break
						}
						cells += len(r.Cells) + len(ps.Key())
					}
					_ = rows.Close()
					n++
				}
				_ = it.Close()
				if n != parts || cells == 0 {
					b.Fatalf("walked %d partitions, want %d", n, parts)
				}
			}
			b.ReportMetric(float64(parts)*float64(b.N)/b.Elapsed().Seconds(), "partitions/s")
		})
	}
}
