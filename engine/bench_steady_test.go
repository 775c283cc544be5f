package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// BenchmarkSteadyLatest10 isolates the read of bench/steady: the 10
// greatest clusterings (a reverse read, LIMIT 10) of one of many
// partitions whose rows are spread over every SSTable, the clusterings of
// each SSTable interleaved with the others' (steady's clustering is the
// writing client's number, then its counter, so the greatest rows of a
// partition were written at all times). Each partition holds 240 rows of
// 100-byte values (about 28 KB, steady's partitions at the end of its two
// minutes) spread evenly over 1 to 8 SSTables, and the block cache (2 MiB)
// holds a small share of the data, as steady's 32 MiB do of its 200 MiB and
// more. The sub-benchmarks vary the number of SSTables and the row-index
// granularity (column_index_size): a partition below it has no row index,
// so a reverse read walks the whole of it in every SSTable (as Cassandra
// 4.1's SSTableReversedIterator does for an unindexed partition).
func BenchmarkSteadyLatest10(b *testing.B) {
	const partitions, rows = 1000, 240
	ctx := context.Background()
	value := []byte(strings.Repeat("v", 100))
	for _, sstables := range []int{1, 2, 4, 8} {
		perSSTable := rows / sstables
		for _, cis := range []int{64 << 10, 4 << 10} {
			b.Run(fmt.Sprintf("sstables=%d/column_index=%dKiB", sstables, cis>>10), func(b *testing.B) {
				e, err := Open(Options{Clock: NewManualClock(testStart), DisableAutoCompaction: true, ColumnIndexSize: cis, BlockCacheSize: 2 << 20})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				if err := e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
					Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}); err != nil {
					b.Fatal(err)
				}
				tbl := schema.NewTable("ks", "t", data.TableID{9}, []*schema.Column{
					{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
					{Name: "c", Type: types.BigintType, Kind: schema.Clustering, Position: 0},
					{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
				}, schema.DefaultOptions())
				if err := e.CreateTable(tbl); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(19, 19))
				var counter [64]int
				ts := int64(1)
				for f := 0; f < sstables; f++ {
					for i := 0; i < partitions*perSSTable; i++ {
						client := rng.IntN(64)
						counter[client]++
						r := data.Row{Clustering: u64(client<<20 | counter[client]), Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}, Deletion: data.LiveDeletion,
							Cells: []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}}}
						m := &data.Mutation{Key: []byte(fmt.Sprintf("p%d", rng.IntN(partitions))), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{r}}
						if err := e.Apply(ctx, tbl, m); err != nil {
							b.Fatal(err)
						}
						ts++
					}
					if err := e.Flush(ctx, "ks", ""); err != nil {
						b.Fatal(err)
					}
				}
				keys := make([][]byte, partitions)
				for i := range keys {
					keys[i] = []byte(fmt.Sprintf("p%d", i))
				}
				b.ReportAllocs()
				// The process CPU time of the reads (with the collector's),
				// steadier than ns/op on a shared machine; the setup's
				// garbage is collected first.
				runtime.GC()
				start := processCPU()
				for i := 0; b.Loop(); i++ {
					p, err := e.ReadPartition(ctx, tbl, keys[(i*7919)%partitions], ReadOptions{Reverse: true, Limit: 10})
					if err != nil {
						b.Fatal(err)
					}
					n := countRows(p)
					p.Release()
					if n != 10 {
						b.Fatalf("read %d rows, want 10", n)
					}
				}
				b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e3, "cpu-µs/op")
			})
		}
	}
}

// processCPU returns the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
