package engine

import (
	"context"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// BenchmarkReadManySSTables reads a partition whose data is spread over 8
// SSTables, as a time series is after 8 flushes (each holding the next
// 1,000 rows of the partition "ts" of table series) and as a row rewritten
// between flushes is (the row "hot"/"c" of table rewritten, one version per
// SSTable): the 10 latest rows (reverse), the 10 first, and the rewritten
// row by name. A read that opens only the SSTables it must touches one of
// the 8 (the sstables/op metric). The two tables are apart because an
// SSTable's clustering bounds cover all its partitions, as Cassandra's do.
func BenchmarkReadManySSTables(b *testing.B) {
	ctx := context.Background()
	e, err := Open(Options{Clock: NewManualClock(testStart), DisableAutoCompaction: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}); err != nil {
		b.Fatal(err)
	}
	columns := func() []*schema.Column {
		return []*schema.Column{
			{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
			{Name: "c", Type: types.TextType, Kind: schema.Clustering, Position: 0},
			{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
		}
	}
	tbl := schema.NewTable("ks", "series", data.TableID{7}, columns(), schema.DefaultOptions())
	hot := schema.NewTable("ks", "rewritten", data.TableID{8}, columns(), schema.DefaultOptions())
	for _, t := range []*schema.Table{tbl, hot} {
		if err := e.CreateTable(t); err != nil {
			b.Fatal(err)
		}
	}
	const sstables, perSSTable = 8, 1000
	ts := int64(1)
	for f := 0; f < sstables; f++ {
		for i := 0; i < perSSTable; i++ {
			if err := e.Apply(ctx, tbl, benchMutation([]byte("ts"), u64(f*perSSTable+i), ts)); err != nil {
				b.Fatal(err)
			}
			ts++
		}
		if err := e.Apply(ctx, hot, benchMutation([]byte("hot"), []byte("c"), ts)); err != nil {
			b.Fatal(err)
		}
		ts++
		if err := e.Flush(ctx, "ks", ""); err != nil {
			b.Fatal(err)
		}
	}
	read := func(b *testing.B, tbl *schema.Table, key []byte, opts ReadOptions, want int) {
		opened := -1
		if p, err := e.ReadPartition(ctx, tbl, key, opts); err == nil {
			for {
				if _, ok := p.Next(); !ok {
					break
				}
			}
			_ = p.Close()
			opened = sstablesOpened(p.Stats())
		}
		defer func() { b.ReportMetric(float64(opened), "sstables/op") }()
		b.ReportAllocs()
		for b.Loop() {
			p, err := e.ReadPartition(ctx, tbl, key, opts)
			if err != nil {
				b.Fatal(err)
			}
			n := countRows(p)
			p.Release()
			if n != want {
				b.Fatalf("read %d rows, want %d", n, want)
			}
		}
	}
	b.Run("latest10", func(b *testing.B) { read(b, tbl, []byte("ts"), ReadOptions{Reverse: true, Limit: 10}, 10) })
	b.Run("first10", func(b *testing.B) { read(b, tbl, []byte("ts"), ReadOptions{Limit: 10}, 10) })
	point := data.Slices{{Start: []byte("c"), End: []byte("c\x00")}}
	b.Run("rewritten-row", func(b *testing.B) { read(b, hot, []byte("hot"), ReadOptions{Slices: point, Names: true}, 1) })
}

// sstablesOpened counts the SSTables a read opened.
func sstablesOpened(st *ReadStats) int {
	n := 0
	for _, src := range st.Sources {
		if src.Kind == SourceSSTable && src.Read > 0 {
			n++
		}
	}
	return n
}
