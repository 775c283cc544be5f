package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// TestSSTableSelectionMatchesCompacted checks the SSTable selection of
// partition reads (skips by timestamp and clustering bounds, lazy opening
// at lower bounds, names reads that stop early) against the same reads
// after a major compaction, when one SSTable holds everything: random
// inserts, cell updates, row, range and partition deletions, some written
// with older timestamps, flushed at random into many SSTables, then random
// reads (slices, points by name with queried columns, reverse, limits).
// A names read compares only the queried columns, the cells it promises.
func TestSSTableSelectionMatchesCompacted(t *testing.T) {
	skips := map[string]int{}
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { checkSelectionSeed(t, seed, skips) })
	}
	// The reads did exercise each way of not opening an SSTable.
	for _, reason := range []string{skipLowerBound, skipComplete, skipClustering, skipTimestamp} {
		require.Positive(t, skips[reason], "no SSTable skipped for %q: %v", reason, skips)
	}
}

func checkSelectionSeed(t *testing.T, seed uint64, skips map[string]int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 99))
	e, err := Open(Options{Clock: NewManualClock(testStart), DisableAutoCompaction: true})
	require.NoError(t, err)
	defer e.Close()
	require.NoError(t, e.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
	tbl := schema.NewTable("ks", "sel", data.TableID{9}, []*schema.Column{
		{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "c", Type: types.TextType, Kind: schema.Clustering, Position: 0},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
		{Name: "w", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	require.NoError(t, e.CreateTable(tbl))
	keys := []string{"a", "b", "c"}
	ck := func(i int) []byte { return []byte(fmt.Sprintf("c%02d", i)) }
	now := testStart.Unix()
	ts := int64(1000)
	for op := 0; op < 120; op++ {
		ts += 10
		wts := ts
		if rng.IntN(5) == 0 {
			wts = ts - int64(rng.IntN(300)) // an older write
		}
		m := &data.Mutation{Key: []byte(keys[rng.IntN(len(keys))]), PartitionDeletion: data.LiveDeletion}
		c := ck(rng.IntN(20))
		cell := func(col string) data.Cell {
			return data.Cell{Column: col, Timestamp: wts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(fmt.Sprint(col, wts))}
		}
		switch k := rng.IntN(10); {
		case k < 4: // INSERT
			r := data.Row{Clustering: c, Liveness: data.LivenessInfo{Timestamp: wts, ExpiresAt: data.NoDeletionTime}, Deletion: data.LiveDeletion}
			r.Cells = []data.Cell{cell("v")}
			if rng.IntN(2) == 0 {
				r.Cells = append(r.Cells, cell("w"))
			}
			m.Rows = []data.Row{r}
		case k < 6: // UPDATE one cell
			col := []string{"v", "w"}[rng.IntN(2)]
			m.Rows = []data.Row{{Clustering: c, Liveness: data.EmptyLiveness, Deletion: data.LiveDeletion, Cells: []data.Cell{cell(col)}}}
		case k < 7: // DELETE a cell
			col := []string{"v", "w"}[rng.IntN(2)]
			m.Rows = []data.Row{{Clustering: c, Liveness: data.EmptyLiveness, Deletion: data.LiveDeletion,
				Cells: []data.Cell{{Column: col, Kind: data.CellTombstone, Timestamp: wts, LocalDeletionTime: now}}}}
		case k < 8: // DELETE a row
			m.Rows = []data.Row{{Clustering: c, Liveness: data.EmptyLiveness, Deletion: data.DeletionTime{MarkedForDeleteAt: wts, LocalDeletionTime: now}}}
		case k < 9: // DELETE a range
			lo, hi := rng.IntN(20), rng.IntN(20)
			m.RangeTombstones = []data.RangeTombstone{{Start: ck(min(lo, hi)), End: ck(max(lo, hi) + 1), Deletion: data.DeletionTime{MarkedForDeleteAt: wts, LocalDeletionTime: now}}}
		default: // DELETE the partition
			if rng.IntN(3) == 0 {
				m.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: wts, LocalDeletionTime: now}
			} else {
				m.Rows = []data.Row{{Clustering: c, Liveness: data.LivenessInfo{Timestamp: wts, ExpiresAt: data.NoDeletionTime}, Deletion: data.LiveDeletion, Cells: []data.Cell{cell("v"), cell("w")}}}
			}
		}
		require.NoError(t, e.Apply(ctx, tbl, m))
		if rng.IntN(8) == 0 {
			require.NoError(t, e.Flush(ctx, "ks", "sel"))
		}
	}
	type read struct {
		key  string
		opts ReadOptions
	}
	var reads []read
	for i := 0; i < 150; i++ {
		o := ReadOptions{Reverse: rng.IntN(2) == 0, Now: testStart.Add(time.Second).Unix()}
		if rng.IntN(3) == 0 {
			o.Limit = 1 + rng.IntN(4)
		}
		switch rng.IntN(3) {
		case 0:
		case 1:
			lo, hi := rng.IntN(20), rng.IntN(20)
			o.Slices = data.Slices{{Start: ck(min(lo, hi)), End: ck(max(lo, hi) + 1)}}
		case 2:
			o.Names = true
			for _, j := range rng.Perm(20)[:1+rng.IntN(3)] {
				o.Slices = append(o.Slices, data.Slice{Start: ck(j), End: append(ck(j), 0)})
			}
			slices.SortFunc(o.Slices, func(a, b data.Slice) int { return strings.Compare(string(a.Start), string(b.Start)) })
			o.Queried = [][]string{nil, {"v"}, {"w"}, {"v", "w"}}[rng.IntN(4)]
		}
		reads = append(reads, read{keys[rng.IntN(len(keys))], o})
	}
	run := func() []string {
		out := make([]string, len(reads))
		for i, r := range reads {
			p, err := e.ReadPartition(ctx, tbl, []byte(r.key), r.opts)
			require.NoError(t, err)
			var b strings.Builder
			for {
				row, ok := p.Next()
				if !ok {
					break
				}
				fmt.Fprintf(&b, "%s:", row.Clustering)
				for _, c := range row.Cells {
					if r.opts.Queried == nil || slices.Contains(r.opts.Queried, c.Column) {
						fmt.Fprintf(&b, " %s=%s@%d", c.Column, c.Value, c.Timestamp)
					}
				}
				b.WriteString("; ")
			}
			require.NoError(t, p.Close())
			for _, src := range p.Stats().Sources {
				if src.Kind == SourceSSTable && src.Read == 0 && src.Skipped > 0 {
					skips[src.SkipReason]++
				}
			}
			out[i] = b.String()
		}
		return out
	}
	spread := run()
	require.NoError(t, e.Flush(ctx, "ks", "sel"))
	require.NoError(t, e.Compact(ctx, "ks", "sel"))
	compacted := run()
	for i := range reads {
		require.Equal(t, compacted[i], spread[i], "seed %d: read %d of %q with %+v", seed, i, reads[i].key, reads[i].opts)
	}
}
