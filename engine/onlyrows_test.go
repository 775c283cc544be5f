package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/sstable"
)

// drainTrace reads it as a compaction does, and returns what it saw as
// text: each partition's header, its rows (the first through
// EndsAfterRow's look when it has one, as partMerge.narrow reads it), its
// size once its rows are read, and the errors. With skip, every third
// partition's rows are left after the first, for Next to skip. Each row is
// printed again after the next call to its iterator's Next, whose bytes a
// merge may still hold then.
func drainTrace(t *testing.T, it data.PartitionIterator, skip bool) string {
	t.Helper()
	var b strings.Builder
	for n := 0; ; n++ {
		ps, ok := it.Next()
		if !ok {
			fmt.Fprintf(&b, "end err=%v\n", it.Err())
			break
		}
		fmt.Fprintf(&b, "partition %d %q del %+v rts %+v\n", ps.Token(), ps.Key(), ps.Deletion(), ps.RangeTombstones(nil))
		if st := ps.Static(); st != nil {
			fmt.Fprintf(&b, "  static %+v\n", *st)
		}
		rows := ps.Rows(nil, false)
		// prev holds the previous row's byte slices, held holds what they
		// said then.
		var prev [][]byte
		var held []string
		for i := 0; ; i++ {
			r, ok := rows.Next()
			for j, p := range prev {
				require.Equal(t, held[j], string(p), "partition %q row %d: its bytes changed", ps.Key(), i-1)
			}
			if !ok {
				fmt.Fprintf(&b, "  rows end err=%v\n", rows.Err())
				break
			}
			fmt.Fprintf(&b, "  row %+v\n", *r)
			// The iterator may decode the next row into the same struct
			// and cells, but not into the bytes they refer to.
			prev, held = append(prev[:0], r.Clustering), append(held[:0], string(r.Clustering))
			for _, c := range r.Cells {
				prev, held = append(prev, c.Path, c.Value), append(held, string(c.Path), string(c.Value))
			}
			if i == 0 {
				if e, ok := rows.(endsAfterRow); ok {
					fmt.Fprintf(&b, "  ends after row: %v\n", e.EndsAfterRow())
				}
			}
			if skip && n%3 == 0 {
				break
			}
		}
		if sz, ok := ps.(interface{ Size() uint64 }); ok && !(skip && n%3 == 0) {
			fmt.Fprintf(&b, "  size %d\n", sz.Size())
		}
		require.NoError(t, rows.Close())
	}
	require.NoError(t, it.Close())
	return b.String()
}

// TestOnlyRowsMatchesScan reads random SSTables (narrow and wide
// partitions, deletions, static rows, range tombstones, TTLs, collections)
// through their streaming scan's row iterators and through onlyRows
// (NextOnlyRow), and requires the same trace (partitions, rows, sizes,
// EndsAfterRow, row bytes that stay valid through the next row) and the
// same read statistics.
func TestOnlyRowsMatchesScan(t *testing.T) {
	seed := compactionSeed(t)
	rng := rand.New(rand.NewPCG(seed, 45))
	for trial := range 12 {
		e, clock, tbl := newTestEngineOpts(t, Options{DisableAutoCompaction: true, CompactionThroughput: -1})
		randomCompactionLoad(t, rng, []*Engine{e}, []*ManualClock{clock}, tbl, trial%2 == 0)
		s, _ := e.store(tbl.ID)
		s.mu.RLock()
		ssts := append([]*sstableSource(nil), s.ssts...)
		s.mu.RUnlock()
		require.NotEmpty(t, ssts)
		for _, x := range ssts {
			for _, skip := range []bool{false, true} {
				before := x.r.ReadStats()
				want := drainTrace(t, x.r.ScanStream(e.Token), skip)
				wantSt := readStatsSince(x.r.ReadStats(), before)
				before = x.r.ReadStats()
				got := drainTrace(t, newOnlyRows(x.r.ScanStream(e.Token)), skip)
				require.Equal(t, want, got, "trial %d, SSTable %d, onlyRows, skip %v", trial, x.r.Gen(), skip)
				if !skip {
					require.Equal(t, wantSt, readStatsSince(x.r.ReadStats(), before), "trial %d, SSTable %d, onlyRows: read statistics", trial, x.r.Gen())
				}
			}
		}
	}
}

// readStatsSince returns the counts of now that came after then.
func readStatsSince(now, then sstable.ReadStats) sstable.ReadStats {
	return sstable.ReadStats{
		FilterChecks: now.FilterChecks - then.FilterChecks, FilterNegatives: now.FilterNegatives - then.FilterNegatives,
		IndexEntries: now.IndexEntries - then.IndexEntries, IndexBytes: now.IndexBytes - then.IndexBytes,
		Chunks: now.Chunks - then.Chunks, DataBytes: now.DataBytes - then.DataBytes,
		Blocks: now.Blocks - then.Blocks, Rows: now.Rows - then.Rows,
	}
}
