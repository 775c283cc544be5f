package commitlog

import (
	"fmt"
	"sync"
	"testing"

	"github.com/minicass/minicass/vfs"
)

func reportRecords(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAppend measures single-appender throughput per sync mode on the
// real disk (a temporary directory).
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []SyncMode{SyncNone, SyncPeriodic, SyncBatch} {
		for _, size := range []int{100, 1024} {
			b.Run(fmt.Sprintf("%s/%dB", mode, size), func(b *testing.B) {
				l, err := Open(vfs.Default, b.TempDir(), Options{SyncMode: mode})
				if err != nil {
					b.Fatal(err)
				}
				payload := make([]byte, size)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := l.Append(payload); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				reportRecords(b)
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkAppendBatchConcurrent measures SyncBatch with 1 and 16
// concurrent appenders on the real disk; group commit lets the 16 share
// fsyncs.
func BenchmarkAppendBatchConcurrent(b *testing.B) {
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("appenders=%d", workers), func(b *testing.B) {
			l, err := Open(vfs.Default, b.TempDir(), Options{SyncMode: SyncBatch})
			if err != nil {
				b.Fatal(err)
			}
			payload := make([]byte, 100)
			b.SetBytes(100)
			b.ResetTimer()
			var wg sync.WaitGroup
			per := b.N / workers
			for w := 0; w < workers; w++ {
				n := per
				if w == 0 {
					n += b.N % workers
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < n; i++ {
						if _, err := l.Append(payload); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			reportRecords(b)
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
