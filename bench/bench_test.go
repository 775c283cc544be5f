package bench

// The benchmarks behind RESULTS.md. They run only with -bench; the commands
// that produce each figure are in RESULTS.md. Loads happen before the timer
// starts (b.Loop resets it), once per fixture.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
)

// noFlush is a memtable threshold no benchmark reaches: figures "in the
// memtable" must not pay for background flushes.
const noFlush = 1 << 40

var benchValue = []byte("0123456789abcdef")

func openEngine(b *testing.B, memtable int64) *EngineStore {
	b.Helper()
	s := openFixture(b, memtable)
	b.Cleanup(func() { s.Close() })
	return s
}

// openFixture opens an engine store shared by several sub-benchmarks: the
// caller closes it once they have run.
func openFixture(b *testing.B, memtable int64) *EngineStore {
	b.Helper()
	s, err := OpenEngineStore(StoreOptions{MemtableSize: memtable})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func openCQL(b *testing.B) *CQLStore {
	b.Helper()
	s, err := OpenCQLStore(StoreOptions{MemtableSize: noFlush})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func reportRate(b *testing.B, rows int, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(rows)/s, unit)
	}
}

// BenchmarkEngineNarrowWrite inserts one single-row partition per operation
// (single goroutine, in the memtable). -benchtime=1000000x writes the 1M
// partitions of the issue.
func BenchmarkEngineNarrowWrite(b *testing.B) {
	s := openEngine(b, noFlush)
	ctx := context.Background()
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		if err := s.Write(ctx, i, 0, benchValue); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportRate(b, int(i), "rows/s")
}

// BenchmarkEngineWideWrite inserts rows round-robin into 100 partitions;
// -benchtime=1000000x gives 100 partitions x 10,000 rows.
func BenchmarkEngineWideWrite(b *testing.B) {
	s := openEngine(b, noFlush)
	ctx := context.Background()
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		if err := s.Write(ctx, i%100, i/100, benchValue); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportRate(b, int(i), "rows/s")
}

// loadNarrowStore writes n single-row partitions and flushes them if asked.
func loadNarrowStore(b *testing.B, s Store, n int, flush bool) {
	ctx := context.Background()
	for i := range n {
		if err := s.Write(ctx, int64(i), 0, benchValue); err != nil {
			b.Fatal(err)
		}
	}
	if flush {
		if err := s.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnginePointRead reads one random partition out of 100,000
// single-row partitions, from the memtable and from one SSTable.
func BenchmarkEnginePointRead(b *testing.B) {
	const n = 100_000
	for _, src := range []string{"memtable", "sstable"} {
		b.Run("src="+src, func(b *testing.B) {
			s := openEngine(b, noFlush)
			loadNarrowStore(b, s, n, src == "sstable")
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 1))
			b.ReportAllocs()
			for b.Loop() {
				got, err := s.Read(ctx, rng.Int64N(n), 0, false)
				if err != nil || got != 1 {
					b.Fatalf("read %d rows: %v", got, err)
				}
			}
		})
	}
}

// BenchmarkEngineLatest10 reads ten rows at either end of one partition of
// 1,000, 100,000 and 1,000,000 rows, in the memtable and in one SSTable.
// "forward" reads the first rows of the clustering order, "reverse" the last
// ones (ORDER BY c DESC: the latest rows of a time series).
func BenchmarkEngineLatest10(b *testing.B) {
	ctx := context.Background()
	for _, src := range []string{"memtable", "sstable"} {
		for _, width := range []int{1_000, 100_000, 1_000_000} {
			var s *EngineStore
			for _, reverse := range []bool{false, true} {
				dir := "forward"
				if reverse {
					dir = "reverse"
				}
				b.Run(fmt.Sprintf("src=%s/width=%d/%s", src, width, dir), func(b *testing.B) {
					if s == nil { // one load per source and width
						s = openFixture(b, noFlush)
						for i := range width {
							if err := s.Write(ctx, 0, int64(i), benchValue); err != nil {
								b.Fatal(err)
							}
						}
						if src == "sstable" {
							if err := s.Flush(ctx); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ReportAllocs()
					for b.Loop() {
						got, err := s.Read(ctx, 0, 10, reverse)
						if err != nil || got != 10 {
							b.Fatalf("read %d rows: %v", got, err)
						}
					}
				})
			}
			if s != nil {
				s.Close()
			}
		}
	}
}

// BenchmarkEngineMemoryPerCell reports the heap held per stored cell
// (runtime.MemStats.HeapAlloc after GC, before and after the load) for
// 1,000,000 narrow rows and for 100 partitions of 10,000 rows, each row one
// 16-byte cell. Run it with -benchtime=1x: one iteration is one load.
func BenchmarkEngineMemoryPerCell(b *testing.B) {
	const rows = 1_000_000
	for _, shape := range []string{"narrow", "wide"} {
		b.Run("shape="+shape, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				s := openEngine(b, noFlush)
				for i := range int64(rows) {
					k, c := i, int64(0)
					if shape == "wide" {
						k, c = i%100, i/100
					}
					if err := s.Write(ctx, k, c, benchValue); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/rows, "heapB/cell")
				runtime.KeepAlive(s)
				s.Close()
			}
		})
	}
}

// BenchmarkCQLCompile measures turning a statement's text into an executable
// plan: parse only (cql/parser) and parse + validate + plan (Prepare, which
// compiles the statement every time and only then caches it by id).
func BenchmarkCQLCompile(b *testing.B) {
	s := openCQL(b)
	sess := s.DB().Executor().NewSession()
	ctx := context.Background()
	for _, q := range []struct{ name, cql string }{{"insert", InsertCQL}, {"select", SelectReverseCQL}} {
		b.Run("parse/"+q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parser.Parse(q.cql); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("prepare/"+q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sess.Prepare(ctx, q.cql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAPIInsertPrepared executes a prepared INSERT of a new narrow row
// through the Go API (Stmt.Exec), from 1 and 2 goroutines.
func BenchmarkAPIInsertPrepared(b *testing.B) {
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			s := openCQL(b)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			errs := make([]error, g)
			for w := range g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < b.N; i += g {
						if err := s.Write(ctx, int64(i), 0, benchValue); err != nil {
							errs[w] = err
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			if err := errors.Join(errs...); err != nil {
				b.Fatal(err)
			}
			reportRate(b, b.N, "rows/s")
		})
	}
}

// BenchmarkAPIvsEngineInsert writes the same rows through the Go API
// (prepared INSERT) and as raw engine mutations (built and applied), in
// alternating chunks of 256 rows in one process, and reports each path's
// ns/row and their ratio (target: under 2). One op is one row on each path.
func BenchmarkAPIvsEngineInsert(b *testing.B) {
	api := openCQL(b)
	raw := openEngine(b, noFlush)
	ctx := context.Background()
	b.ResetTimer()
	interleavePaths(b, "row", func(i int) error {
		return api.Write(ctx, int64(i), 0, benchValue)
	}, func(i int) error {
		return raw.Write(ctx, int64(i), 0, benchValue)
	})
}

// interleavePaths runs op i of b.N on the Go API path (api) and on the
// engine path (raw) in alternating chunks of 256, so that both see the
// same machine, and reports each path's ns per unit and their ratio. It
// also reports the CPU time the benchmark's thread spent on each path
// (cpu-ns, and their ratio api/engine-cpu), which time the machine gives
// other processes does not inflate: on a loaded machine the wall-time
// ratio mostly measures the load. The collector's background workers run
// on other threads and are in neither; its assists are in the path that
// allocated.
func interleavePaths(b *testing.B, unit string, api, raw func(i int) error) {
	const chunk = 256
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var apiTime, rawTime, apiCPU, rawCPU time.Duration
	for done := 0; done < b.N; {
		n := min(chunk, b.N-done)
		start, startCPU := time.Now(), threadCPU(b)
		for i := done; i < done+n; i++ {
			if err := api(i); err != nil {
				b.Fatalf("api: %v", err)
			}
		}
		mid, midCPU := time.Now(), threadCPU(b)
		for i := done; i < done+n; i++ {
			if err := raw(i); err != nil {
				b.Fatalf("engine: %v", err)
			}
		}
		apiTime += mid.Sub(start)
		rawTime += time.Since(mid)
		apiCPU += midCPU - startCPU
		rawCPU += threadCPU(b) - midCPU
		done += n
	}
	b.StopTimer()
	b.ReportMetric(float64(apiTime)/float64(b.N), "api-ns/"+unit)
	b.ReportMetric(float64(rawTime)/float64(b.N), "engine-ns/"+unit)
	if rawTime > 0 {
		b.ReportMetric(float64(apiTime)/float64(rawTime), "api/engine")
	}
	b.ReportMetric(float64(apiCPU)/float64(b.N), "api-cpu-ns/"+unit)
	b.ReportMetric(float64(rawCPU)/float64(b.N), "engine-cpu-ns/"+unit)
	if rawCPU > 0 {
		b.ReportMetric(float64(apiCPU)/float64(rawCPU), "api/engine-cpu")
	}
}

// threadCPU returns the CPU time of the calling thread (the benchmark locks
// its goroutine to it).
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatalf("thread CPU clock: %v", err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkAPIvsEngineLatest10 reads the last ten rows of one partition of
// 1,000 rows (in the memtable) through the Go API (the prepared SELECT ...
// ORDER BY c DESC LIMIT 10, every row scanned) and through the engine's
// ReadPartition (Limit 10, Reverse), in alternating chunks of 256 reads in
// one process, and reports each path's ns/read and their ratio (target: at
// most 1.5). Both stores hold the same rows. One op is one read on each path.
func BenchmarkAPIvsEngineLatest10(b *testing.B) {
	api := openCQL(b)
	raw := openEngine(b, noFlush)
	ctx := context.Background()
	for i := range 1_000 {
		if err := api.Write(ctx, 0, int64(i), benchValue); err != nil {
			b.Fatal(err)
		}
		if err := raw.Write(ctx, 0, int64(i), benchValue); err != nil {
			b.Fatal(err)
		}
	}
	read := func(st Store) func(int) error {
		return func(int) error {
			if got, err := st.Read(ctx, 0, 10, true); err != nil || got != 10 {
				return fmt.Errorf("read %d rows: %v", got, err)
			}
			return nil
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	interleavePaths(b, "read", read(api), read(raw))
}

// BenchmarkAPIvsEngineLatestN is BenchmarkAPIvsEngineLatest10 for the
// last 1, 10 and 100 rows, which separates what the Go API path adds per
// read from what it adds per row.
func BenchmarkAPIvsEngineLatestN(b *testing.B) {
	api := openCQL(b)
	raw := openEngine(b, noFlush)
	ctx := context.Background()
	for i := range 1_000 {
		if err := api.Write(ctx, 0, int64(i), benchValue); err != nil {
			b.Fatal(err)
		}
		if err := raw.Write(ctx, 0, int64(i), benchValue); err != nil {
			b.Fatal(err)
		}
	}
	for _, limit := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			read := func(st Store) func(int) error {
				return func(int) error {
					if got, err := st.Read(ctx, 0, limit, true); err != nil || got != limit {
						return fmt.Errorf("read %d rows: %v", got, err)
					}
					return nil
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			interleavePaths(b, "read", read(api), read(raw))
		})
	}
}

// noAutoCompaction turns bench.t's background compaction off (Cassandra's
// compaction sub-option 'enabled'); an explicit compaction still runs.
const noAutoCompaction = `ALTER TABLE bench.t WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}`

// BenchmarkSSTableOverlap reads partitions whose rows are spread over 1, 4
// and 16 SSTables with overlapping clustering ranges (row c of a partition
// is in SSTable c mod n), so no SSTable can be skipped: a read merges n
// sources. Each of 1,000 partitions holds 160 rows. "limit=1" is a point
// read of the first row, "limit=10" the first ten. The compacted case
// compacts the 16 SSTables into one first, and is skipped while the engine
// cannot compact.
func BenchmarkSSTableOverlap(b *testing.B) {
	const partitions, rows = 1_000, 160
	ctx := context.Background()
	for _, tc := range []struct {
		sstables int
		compact  bool
	}{{1, false}, {4, false}, {16, false}, {16, true}} {
		name := fmt.Sprintf("sstables=%d", tc.sstables)
		if tc.compact {
			name += "/compacted"
		}
		var s *EngineStore
		for _, limit := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/limit=%d", name, limit), func(b *testing.B) {
				if s == nil {
					s = openFixture(b, noFlush)
					// The SSTables must stay apart: a background compaction
					// would merge them while the reads run.
					if err := s.DB().Exec(ctx, noAutoCompaction); err != nil {
						b.Fatal(err)
					}
					for f := range tc.sstables {
						for k := range int64(partitions) {
							for c := int64(f); c < rows; c += int64(tc.sstables) {
								if err := s.Write(ctx, k, c, benchValue); err != nil {
									b.Fatal(err)
								}
							}
						}
						if err := s.Flush(ctx); err != nil {
							b.Fatal(err)
						}
					}
					if tc.compact {
						if err := s.DB().Compact(ctx, "bench", "t"); err != nil {
							b.Fatal(err)
						}
					}
				}
				eng, tbl := s.Engine()
				rng := rand.New(rand.NewPCG(1, 2))
				sources := 0
				b.ReportAllocs()
				// The thread's CPU time per read (cpu-ns/op) is the figure to
				// compare on a busy machine; see interleavePaths.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				startCPU, n := threadCPU(b), 0
				for b.Loop() {
					n++
					p, err := eng.ReadPartition(ctx, tbl, Key(rng.Int64N(partitions)), engine.ReadOptions{Limit: limit})
					if err != nil {
						b.Fatal(err)
					}
					got := 0
					for {
						if _, ok := p.Next(); !ok {
							break
						}
						got++
					}
					sources = 0
					for _, st := range p.Stats().Sources {
						if st.Kind == engine.SourceSSTable && st.Read > 0 {
							sources++
						}
					}
					if err := p.Close(); err != nil || got != limit {
						b.Fatalf("read %d rows: %v", got, err)
					}
				}
				b.ReportMetric(float64(threadCPU(b)-startCPU)/float64(n), "cpu-ns/op")
				b.ReportMetric(float64(sources), "sstables/read")
			})
		}
		if s != nil {
			s.Close()
		}
	}
}
