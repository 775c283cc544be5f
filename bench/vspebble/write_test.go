package vspebble

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// The flush and compaction benchmarks write 100,000 rows in one of two
// shapes, narrow (100,000 one-row partitions) or wide (10 partitions of
// 10,000 rows), with the same 8-byte text keys, int clustering and 20-byte
// value as the read benchmarks. Their MB/s is logical: the bytes of key,
// clustering value and value of every row written (32 per row), the same
// count for both stores.
const writeRows = 100_000

// writeShapes are the shapes: partitions × rows per partition.
var writeShapes = []struct {
	name             string
	partitions, rows int
}{{"narrow", writeRows, 1}, {"wide", 10, writeRows / 10}}

// logicalRowBytes is a row's logical size: 8-byte key, 4-byte clustering
// value, 20-byte value.
const logicalRowBytes = 8 + 4 + 20

func writeKey(p int) string { return fmt.Sprintf("w%07d", p) }

// minicassWriter is an engine on a fresh data directory with table
// bench.kv, background compaction off (the benchmark compacts explicitly).
type minicassWriter struct {
	eng *engine.Engine
	tbl *schema.Table
	ck  []byte
}

func newMinicassWriter(b *testing.B, dir string) *minicassWriter {
	opts := engine.Options{Dir: dir, CommitLogSync: engine.SyncNone, MemtableSize: 1 << 40,
		DisableAutoCompaction: true, BlockCacheSize: cacheSize}
	configureMinicass(&opts)
	eng, err := engine.Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := eng.CreateKeyspace(&schema.Keyspace{Name: "bench", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}); err != nil {
		b.Fatal(err)
	}
	tbl := schema.NewTable("bench", "kv", data.TableID{0xbe}, []*schema.Column{
		{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "c", Type: types.IntType, Kind: schema.Clustering, Position: 0},
		{Name: "v", Type: types.BlobType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	if err := eng.CreateTable(tbl); err != nil {
		b.Fatal(err)
	}
	tbl, _ = eng.Table("bench", "kv")
	return &minicassWriter{eng: eng, tbl: tbl}
}

// load writes every row of the shape once, with fresh timestamps.
func (w *minicassWriter) load(b *testing.B, partitions, rowsPer int) {
	ctx := context.Background()
	ckTypes := w.tbl.ClusteringTypes()
	m := &data.Mutation{Table: w.tbl.ID, PartitionDeletion: data.LiveDeletion, Rows: make([]data.Row, 1)}
	for p := range partitions {
		key := []byte(writeKey(p))
		for c := range rowsPer {
			ck, err := types.EncodeClustering(ckTypes, [][]byte{binary.BigEndian.AppendUint32(nil, uint32(c))})
			if err != nil {
				b.Fatal(err)
			}
			ts := w.eng.NewTimestamp()
			m.Key = key
			m.Rows[0] = data.Row{Clustering: ck, Deletion: data.LiveDeletion,
				Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
				Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}}}
			if err := w.eng.Apply(ctx, w.tbl, m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func (w *minicassWriter) flush(b *testing.B) {
	if err := w.eng.Flush(context.Background(), "bench", "kv"); err != nil {
		b.Fatal(err)
	}
}

// newPebbleWriter opens pebble on a fresh directory with a memtable that
// holds the whole load and automatic compactions off.
func newPebbleWriter(b *testing.B, dir string) *pebble.DB {
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref()
	db, err := pebble.Open(dir, &pebble.Options{Cache: cache, MemTableSize: 256 << 20, DisableAutomaticCompactions: true})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func loadPebble(b *testing.B, db *pebble.DB, partitions, rowsPer int) {
	var key []byte
	for p := range partitions {
		k := writeKey(p)
		for c := range rowsPer {
			key = pebbleKey(key[:0], k, int32(c))
			if err := db.Set(key, value, pebble.NoSync); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// cpuClock sums the process's CPU time (user and system, every goroutine:
// background compression, fsyncs and the collector included) over the
// timed parts of a benchmark, which a shared machine's load disturbs less
// than wall time. It is reported as cpu-ms/op.
type cpuClock struct {
	start, total time.Duration
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *cpuClock) begin() { c.start = processCPU() }
func (c *cpuClock) end()   { c.total += processCPU() - c.start }

func (c *cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(c.total.Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
}

// sstableSizes sums the sizes of the SSTables a benchmark wrote: the
// partition stream (Data.db uncompressed) and the files on disk, reported
// per row written.
type sstableSizes struct {
	rows, stream, disk int64
}

func (s *sstableSizes) add(infos []engine.SSTableInfo) {
	for _, in := range infos {
		s.rows += int64(in.Stats.Rows)
		s.stream += int64(in.Stats.DataSize)
		s.disk += in.DiskSize
	}
}

func (s *sstableSizes) report(b *testing.B) {
	if s.rows > 0 {
		b.ReportMetric(float64(s.stream)/float64(s.rows), "stream-B/row")
		b.ReportMetric(float64(s.disk)/float64(s.rows), "disk-B/row")
	}
}

// freshDir returns an empty directory under the benchmark's root.
func freshDir(b *testing.B, name string) string {
	dir, err := os.MkdirTemp(tmpRoot, name+"-")
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkFlush times the flush of a memtable holding 100,000 rows to one
// SSTable on disk (fsyncs included), narrow and wide: minicass's
// Engine.Flush against pebble's DB.Flush. Loading the memtable is untimed.
func BenchmarkFlush(b *testing.B) {
	for _, sh := range writeShapes {
		b.Run(sh.name+"/store=minicass", func(b *testing.B) {
			var cpu cpuClock
			var sizes sstableSizes
			for b.Loop() {
				b.StopTimer()
				dir := freshDir(b, "flush-minicass")
				w := newMinicassWriter(b, dir)
				w.load(b, sh.partitions, sh.rows)
				b.StartTimer()
				cpu.begin()
				w.flush(b)
				cpu.end()
				b.StopTimer()
				sizes.add(w.eng.SSTables("bench", "kv"))
				_ = w.eng.Close()
				_ = os.RemoveAll(dir)
				b.StartTimer()
			}
			b.SetBytes(writeRows * logicalRowBytes)
			cpu.report(b)
			sizes.report(b)
		})
		b.Run(sh.name+"/store=pebble", func(b *testing.B) {
			var cpu cpuClock
			for b.Loop() {
				b.StopTimer()
				dir := freshDir(b, "flush-pebble")
				db := newPebbleWriter(b, dir)
				loadPebble(b, db, sh.partitions, sh.rows)
				b.StartTimer()
				cpu.begin()
				if err := db.Flush(); err != nil {
					b.Fatal(err)
				}
				cpu.end()
				b.StopTimer()
				_ = db.Close()
				_ = os.RemoveAll(dir)
				b.StartTimer()
			}
			b.SetBytes(writeRows * logicalRowBytes)
			cpu.report(b)
		})
	}
}

// compactionInputs is the number of overlapping SSTables a compaction
// merges: each holds a version of every row, so the output keeps one in
// four.
const compactionInputs = 4

// BenchmarkCompaction times the major compaction of four overlapping
// SSTables on disk, each a flush of the same 100,000 rows (newer
// timestamps each time), into one: minicass's Engine.Compact
// (unthrottled) against pebble's DB.Compact over the whole key range.
// MB/s is the logical bytes of the input rows (four versions of each).
func BenchmarkCompaction(b *testing.B) {
	const inBytes = compactionInputs * writeRows * logicalRowBytes
	for _, sh := range writeShapes {
		b.Run(sh.name+"/store=minicass", func(b *testing.B) {
			var cpu cpuClock
			for b.Loop() {
				b.StopTimer()
				dir := freshDir(b, "compact-minicass")
				w := newMinicassWriter(b, dir)
				for range compactionInputs {
					w.load(b, sh.partitions, sh.rows)
					w.flush(b)
				}
				if n := len(w.eng.SSTables("bench", "kv")); n != compactionInputs {
					b.Fatalf("%d SSTables, want %d", n, compactionInputs)
				}
				b.StartTimer()
				cpu.begin()
				if err := w.eng.Compact(context.Background(), "bench", "kv"); err != nil {
					b.Fatal(err)
				}
				cpu.end()
				b.StopTimer()
				if n := len(w.eng.SSTables("bench", "kv")); n != 1 {
					b.Fatalf("%d SSTables after compaction, want 1", n)
				}
				_ = w.eng.Close()
				_ = os.RemoveAll(dir)
				b.StartTimer()
			}
			b.SetBytes(inBytes)
			cpu.report(b)
		})
		b.Run(sh.name+"/store=pebble", func(b *testing.B) {
			var cpu cpuClock
			for b.Loop() {
				b.StopTimer()
				dir := freshDir(b, "compact-pebble")
				db := newPebbleWriter(b, dir)
				for range compactionInputs {
					loadPebble(b, db, sh.partitions, sh.rows)
					if err := db.Flush(); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				cpu.begin()
				if err := db.Compact([]byte("w"), []byte("x"), false); err != nil {
					b.Fatal(err)
				}
				cpu.end()
				b.StopTimer()
				_ = db.Close()
				_ = os.RemoveAll(dir)
				b.StartTimer()
			}
			b.SetBytes(inBytes)
			cpu.report(b)
		})
	}
}

// BenchmarkForegroundDuringCompaction measures foreground writes (one-row
// partitions, engine.Apply) while nothing else runs ("idle") and while a
// major compaction of four overlapping SSTables of 100,000 rows runs
// ("compacting"), and reports the foreground's rate and latency
// percentiles. Each operation is one run of 20,000 writes; "compacting"
// starts the compaction with them and keeps writing until both are done.
func BenchmarkForegroundDuringCompaction(b *testing.B) {
	const writes = 20_000
	for _, mode := range []string{"idle", "compacting"} {
		b.Run(mode, func(b *testing.B) {
			var lat []time.Duration
			var elapsed time.Duration
			var n int
			for b.Loop() {
				b.StopTimer()
				dir := freshDir(b, "fg-minicass")
				w := newMinicassWriter(b, dir)
				for range compactionInputs {
					w.load(b, writeRows, 1)
					w.flush(b)
				}
				ctx := context.Background()
				done := make(chan error, 1)
				b.StartTimer()
				start := time.Now()
				if mode == "compacting" {
					go func() { done <- w.eng.Compact(ctx, "bench", "kv") }()
				} else {
					done <- nil
				}
				m := &data.Mutation{Table: w.tbl.ID, PartitionDeletion: data.LiveDeletion, Rows: make([]data.Row, 1)}
				ck, _ := types.EncodeClustering(w.tbl.ClusteringTypes(), [][]byte{{0, 0, 0, 0}})
				compacted := false
				for i := 0; i < writes || !compacted; i++ {
					if !compacted {
						select {
						case err := <-done:
							if err != nil {
								b.Fatal(err)
							}
							compacted = true
						default:
						}
					}
					ts := w.eng.NewTimestamp()
					m.Key = []byte(fmt.Sprintf("f%07d", i))
					m.Rows[0] = data.Row{Clustering: ck, Deletion: data.LiveDeletion,
						Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
						Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}}}
					t0 := time.Now()
					if err := w.eng.Apply(ctx, w.tbl, m); err != nil {
						b.Fatal(err)
					}
					if i < writes || !compacted {
						lat = append(lat, time.Since(t0))
						n++
					}
				}
				elapsed += time.Since(start)
				b.StopTimer()
				_ = w.eng.Close()
				_ = os.RemoveAll(dir)
				b.StartTimer()
			}
			slices.Sort(lat)
			b.ReportMetric(float64(n)/elapsed.Seconds(), "writes/s")
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
