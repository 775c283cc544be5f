package vspebble

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// putShapes are the write shapes of BenchmarkPut: the flush benchmarks'
// narrow and wide (10 partitions), and wide100, rows round-robin into 100
// partitions (-benchtime 1000000x writes issue 19's 100 x 10,000).
var putShapes = append(writeShapes[:len(writeShapes):len(writeShapes)], struct {
	name             string
	partitions, rows int
}{"wide100", 100, writeRows / 100})

// BenchmarkPut times one row written through the engine with its commit log
// (SyncNone: appended to the file, not synced) against one pebble Set with
// its WAL (NoSync), each building its key from the same logical row, in the
// write shapes: narrow (a new partition per row), wide (rows of 10
// partitions in turn) and wide100 (of 100). Issue 19's target is at most
// 1.0x pebble's time. The memtables are large enough that neither flushes
// while measured. Besides
// wall time it reports the process's CPU per row (cpu-ns/op: every
// goroutine, the collector included), steadier on a shared machine.
func BenchmarkPut(b *testing.B) {
	ctx := context.Background()
	for _, sh := range putShapes {
		b.Run(sh.name+"/store=minicass", func(b *testing.B) {
			w := newMinicassWriter(b, freshDir(b, "put"))
			defer w.eng.Close()
			ckTypes := w.tbl.ClusteringTypes()
			m := &data.Mutation{Table: w.tbl.ID, PartitionDeletion: data.LiveDeletion}
			b.ReportAllocs()
			var cpu cpuClock
			cpu.begin()
			for i := 0; b.Loop(); i++ {
				p, c := i, 0
				if sh.rows > 1 {
					p, c = i%sh.partitions, i/sh.partitions
				}
				ck, err := types.EncodeClustering(ckTypes, [][]byte{binary.BigEndian.AppendUint32(nil, uint32(c))})
				if err != nil {
					b.Fatal(err)
				}
				ts := w.eng.NewTimestamp()
				m.Key = []byte(writeKey(p))
				m.Rows = []data.Row{{Clustering: ck, Deletion: data.LiveDeletion,
					Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
					Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}}}}
				if err := w.eng.Apply(ctx, w.tbl, m); err != nil {
					b.Fatal(err)
				}
			}
			cpu.end()
			cpu.reportNs(b)
		})
		b.Run(sh.name+"/store=pebble", func(b *testing.B) {
			db := newPebbleWriter(b, freshDir(b, "put"))
			defer db.Close()
			var key []byte
			b.ReportAllocs()
			var cpu cpuClock
			cpu.begin()
			for i := 0; b.Loop(); i++ {
				p, c := i, 0
				if sh.rows > 1 {
					p, c = i%sh.partitions, i/sh.partitions
				}
				key = pebbleKey(key[:0], writeKey(p), int32(c))
				if err := db.Set(key, value, pebble.NoSync); err != nil {
					b.Fatal(err)
				}
			}
			cpu.end()
			cpu.reportNs(b)
		})
	}
}

// reportNs reports the CPU time per operation in nanoseconds (cpu-ns/op).
func (c *cpuClock) reportNs(b *testing.B) {
	b.ReportMetric(float64(c.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkPutParallel is BenchmarkPut's narrow shape with 8 writers per
// CPU, each writing its own partitions: the commit log's mutex, held while
// a record is written into the segment, is then contended.
func BenchmarkPutParallel(b *testing.B) {
	ctx := context.Background()
	w := newMinicassWriter(b, freshDir(b, "putpar"))
	defer w.eng.Close()
	ckTypes := w.tbl.ClusteringTypes()
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	var cpu cpuClock
	cpu.begin()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1))
			ck, err := types.EncodeClustering(ckTypes, [][]byte{binary.BigEndian.AppendUint32(nil, 0)})
			if err != nil {
				b.Error(err)
				return
			}
			ts := w.eng.NewTimestamp()
			m := &data.Mutation{Table: w.tbl.ID, PartitionDeletion: data.LiveDeletion, Key: []byte(writeKey(i)),
				Rows: []data.Row{{Clustering: ck, Deletion: data.LiveDeletion,
					Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
					Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}}}}}
			if err := w.eng.Apply(ctx, w.tbl, m); err != nil {
				b.Error(err)
				return
			}
		}
	})
	cpu.end()
	cpu.reportNs(b)
}
