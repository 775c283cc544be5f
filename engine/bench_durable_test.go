package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
)

// benchCodecs are the compression maps the flush benchmark compares.
var benchCodecs = []struct {
	name string
	opts map[string]string
}{
	{"none", map[string]string{"enabled": "false"}},
	{"lz4(default)", nil},
	{"snappy", map[string]string{"class": "SnappyCompressor"}},
	{"zstd", map[string]string{"class": "ZstdCompressor"}},
}

// BenchmarkFlush measures writing a 100,000-row memtable to an SSTable,
// narrow (one row per partition) and wide (100 partitions of 1,000 rows), per
// codec, on the in-memory filesystem and (fs=disk) on the real disk in a
// temporary directory, fsyncs included. MB/s counts the uncompressed Data.db
// stream written (Stats.DataSize).
func BenchmarkFlush(b *testing.B) {
	ctx := context.Background()
	const rows = 100_000
	for _, fsName := range []string{"mem", "disk"} {
		for _, shape := range []string{"narrow", "wide"} {
			for _, c := range benchCodecs {
				if fsName == "disk" && c.name != benchCodecs[1].name {
					continue // the default codec only: the disk adds the same cost to each
				}
				benchFlush(b, ctx, fsName, shape, c.name, c.opts, rows)
			}
		}
	}
}

func benchFlush(b *testing.B, ctx context.Context, fsName, shape, codec string, compression map[string]string, rows int) {
	b.Run(fmt.Sprintf("fs=%s/%s/%s", fsName, shape, codec), func(b *testing.B) {
		var payload int64
		for b.Loop() {
			b.StopTimer()
			var fsys vfs.FS = vfs.NewMem()
			dir := "db"
			if fsName == "disk" {
				fsys, dir = vfs.Default, b.TempDir()
			}
			e, _, tbl := openDurable(b, fsys, Options{Dir: dir, CommitLogSync: SyncNone, MemtableSize: 1 << 40})
			opts := tbl.Options
			opts.Compression = compression
			alt := schema.NewTable("ks", "t", tbl.ID, tbl.Columns, opts)
			if err := e.AlterTable(alt); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < rows; i++ {
				key, ck := u64(i), []byte("c")
				if shape == "wide" {
					key, ck = u64(i%100), u64(i/100)
				}
				if err := e.Apply(ctx, alt, benchMutation(key, ck, int64(i))); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			if err := e.Flush(ctx, "ks", "t"); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			payload = int64(e.SSTables("ks", "t")[0].Stats.DataSize)
			_ = e.Close()
			b.StartTimer()
		}
		b.SetBytes(payload)
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkSSTableLatest10 reads ten rows at one end of a flushed wide
// partition (the memtable is empty), forward and reverse, warm.
func BenchmarkSSTableLatest10(b *testing.B) {
	ctx := context.Background()
	for _, width := range []int{1000, 100_000, 1_000_000} {
		e, _, tbl := openDurable(b, vfs.NewMem(), Options{CommitLogSync: SyncNone, MemtableSize: 1 << 40})
		for i := 0; i < width; i++ {
			_ = e.Apply(ctx, tbl, benchMutation([]byte("wide"), u64(i), 1))
		}
		if err := e.Flush(ctx, "ks", "t"); err != nil {
			b.Fatal(err)
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
					if err := p.Close(); err != nil || n != 10 {
						b.Fatalf("read %d rows: %v", n, err)
					}
				}
			})
		}
		_ = e.Close()
	}
}

// BenchmarkSSTablePointRead reads one narrow partition out of 100,000 in
// one SSTable.
func BenchmarkSSTablePointRead(b *testing.B) {
	ctx := context.Background()
	e, _, tbl := openDurable(b, vfs.NewMem(), Options{CommitLogSync: SyncNone, MemtableSize: 1 << 40})
	defer e.Close()
	for i := 0; i < 100_000; i++ {
		_ = e.Apply(ctx, tbl, benchMutation(u64(i), []byte("c"), 1))
	}
	if err := e.Flush(ctx, "ks", "t"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p, err := e.ReadPartition(ctx, tbl, u64(i%100_000), ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := p.Next(); !ok {
			b.Fatal("missing row")
		}
		p.Close()
	}
}

// BenchmarkApplyCommitLog measures Apply of a narrow row with the commit
// log per sync mode, on the in-memory filesystem (so the figure is the
// engine's overhead: encoding, framing, group-commit coordination) and,
// for batch, on disk in a temporary directory (real fsyncs).
func BenchmarkApplyCommitLog(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		fs   func(b *testing.B) (vfs.FS, string)
		mode CommitLogSync
	}{
		{"memory-engine", nil, SyncNone},
		{"none", func(*testing.B) (vfs.FS, string) { return vfs.NewMem(), "db" }, SyncNone},
		{"periodic", func(*testing.B) (vfs.FS, string) { return vfs.NewMem(), "db" }, SyncPeriodic},
		{"batch", func(*testing.B) (vfs.FS, string) { return vfs.NewMem(), "db" }, SyncBatch},
		{"batch-disk", func(b *testing.B) (vfs.FS, string) { return vfs.Default, b.TempDir() }, SyncBatch},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var e *Engine
			var tbl *schema.Table
			if c.fs == nil {
				e, _, tbl = newTestEngine(b)
			} else {
				fsys, dir := c.fs(b)
				e, _, tbl = openDurable(b, fsys, Options{Dir: dir, CommitLogSync: c.mode, MemtableSize: 1 << 40})
				defer e.Close()
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := e.Apply(ctx, tbl, benchMutation(u64(i), []byte("c"), int64(i))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ = data.FullRing
