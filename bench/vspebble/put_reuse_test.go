package vspebble

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// BenchmarkPutReuse is BenchmarkPut's minicass side written as a pebble
// caller writes: the buffers of the key, the clustering and the mutation
// are reused from row to row (a data.MutationBuilder), which engine.Apply
// allows since it keeps nothing of a mutation once it returns. The key is
// still formatted afresh for each row, as on pebble's side.
func BenchmarkPutReuse(b *testing.B) {
	ctx := context.Background()
	for _, sh := range putShapes {
		b.Run(sh.name+"/store=minicass", func(b *testing.B) {
			w := newMinicassWriter(b, freshDir(b, "put"))
			defer w.eng.Close()
			ckTypes := w.tbl.ClusteringTypes()
			var mb data.MutationBuilder
			var key, ck []byte
			cv := [][]byte{make([]byte, 4)}
			b.ReportAllocs()
			var cpu cpuClock
			cpu.begin()
			for i := 0; b.Loop(); i++ {
				p, c := i, 0
				if sh.rows > 1 {
					p, c = i%sh.partitions, i/sh.partitions
				}
				binary.BigEndian.PutUint32(cv[0], uint32(c))
				var err error
				if ck, err = types.AppendClustering(ck[:0], ckTypes, cv); err != nil {
					b.Fatal(err)
				}
				key = append(key[:0], writeKey(p)...)
				ts := w.eng.NewTimestamp()
				mb.Reset(w.tbl.ID, key)
				mb.AddRow(ck, data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime})
				if err := mb.AddCell(data.Cell{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}); err != nil {
					b.Fatal(err)
				}
				if err := w.eng.Apply(ctx, w.tbl, mb.Mutation()); err != nil {
					b.Fatal(err)
				}
			}
			cpu.end()
			cpu.reportNs(b)
		})
	}
}
