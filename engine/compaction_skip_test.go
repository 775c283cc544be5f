package engine

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// randomSkipLoad writes the same random mutations into every engine of es,
// in flushes, for partMerge.shadowed: mostly one-row partitions of one
// clustering rewritten in full (liveness, v and w) at timestamps that grow
// from flush to flush, so that the newest version often shadows the older
// ones whole, and among them what must stop the skip: columns left out,
// cells written at older or later timestamps than their row, ties (a flush
// at the last one's timestamps, in a narrow range), flushes whose
// timestamps go back, rows without liveness, expiring and expired
// liveness and cells, cell tombstones, row and collection deletions, map
// elements, counter cells (in most versions of three partitions), partition deletions, static rows, range
// tombstones, second rows, and the column w dropped and added again
// between flushes (ALTER TABLE DROP and ADD), with the clock moving past
// TTLs and gc grace.
func randomSkipLoad(t *testing.T, rng *rand.Rand, es []*Engine, clock []*ManualClock) {
	flushes := 2 + rng.IntN(4)
	base := int64(1000)
	hasW := true
	for f := 0; f < flushes; f++ {
		spread := 30
		switch rng.IntN(5) {
		case 0:
			base -= int64(rng.IntN(40)) // timestamps that go back
		case 1:
			spread = 3 // the last flush's timestamps again: ties
		default:
			base += 30 + int64(rng.IntN(40))
		}
		if rng.IntN(6) == 0 {
			// Drop w, or add it back, in every engine alike.
			droppedAt := base + int64(rng.IntN(20)) - 10
			for _, e := range es {
				tbl, _ := e.Table("ks", "t")
				var cols []*schema.Column
				if hasW {
					for _, c := range tbl.Columns {
						if c.Name != "w" {
							cp := *c
							cols = append(cols, &cp)
						}
					}
				} else {
					cols = append(cols, &schema.Column{Name: "w", Type: types.TextType, Kind: schema.Regular, Position: -1})
					for _, c := range tbl.Columns {
						cp := *c
						cols = append(cols, &cp)
					}
				}
				nt := schema.NewTable(tbl.Keyspace, tbl.Name, tbl.ID, cols, tbl.Options)
				nt.Dropped = maps.Clone(tbl.Dropped)
				if hasW {
					if nt.Dropped == nil {
						nt.Dropped = map[string]schema.DroppedColumn{}
					}
					nt.Dropped["w"] = schema.DroppedColumn{Type: types.TextType, DroppedAt: droppedAt}
				}
				require.NoError(t, e.AlterTable(nt))
			}
			hasW = !hasW
		}
		tbl, _ := es[0].Table("ks", "t")
		n := 10 + rng.IntN(40)
		for range n {
			now := clock[0].Now().Unix()
			ts := func() int64 { return base + int64(rng.IntN(spread)) }
			ttl := func() int32 { return int32(1 + rng.IntN(80)) }
			key := rng.IntN(30)
			m := &data.Mutation{Key: []byte{'k', byte('0' + key)}, PartitionDeletion: data.LiveDeletion}
			if rng.IntN(30) == 0 {
				m.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: now}
			}
			if rng.IntN(30) == 0 {
				m.RangeTombstones = []data.RangeTombstone{{Start: []byte("a"), End: []byte("b"),
					Deletion: data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: now}}}
			}
			if rng.IntN(25) == 0 {
				st := data.NewRow(nil)
				st.Cells = []data.Cell{{Column: "s", Timestamp: ts(), LocalDeletionTime: data.NoDeletionTime, Value: []byte{byte(rng.IntN(4))}}}
				m.Static = &st
			}
			cks := []string{"a"}
			switch rng.IntN(12) {
			case 0:
				cks = []string{"b"}
			case 1:
				cks = []string{"a", "b"}
			}
			for _, ck := range cks {
				r := data.NewRow([]byte(ck))
				rts := ts()
				switch k := rng.IntN(10); {
				case k < 7:
					r.Liveness = data.LivenessInfo{Timestamp: rts, ExpiresAt: data.NoDeletionTime}
				case k < 9:
					l := ttl()
					r.Liveness = data.LivenessInfo{Timestamp: rts, TTL: l, ExpiresAt: now + int64(l)}
				}
				if rng.IntN(20) == 0 {
					r.Deletion = data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: now}
				}
				if rng.IntN(20) == 0 {
					r.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: data.DeletionTime{MarkedForDeleteAt: rts - 1, LocalDeletionTime: now}}}
				}
				cell := func(col string, path []byte) data.Cell {
					c := data.Cell{Column: col, Path: path, Timestamp: rts, LocalDeletionTime: data.NoDeletionTime, Value: []byte{byte('0' + rng.IntN(4))}}
					if rng.IntN(5) == 0 {
						c.Timestamp = ts()
					}
					switch rng.IntN(10) {
					case 0:
						c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, now
					case 1, 2:
						if r.Liveness.TTL != 0 && rng.IntN(2) == 0 {
							c.TTL, c.LocalDeletionTime = r.Liveness.TTL, r.Liveness.ExpiresAt
						} else {
							c.TTL = ttl()
							c.LocalDeletionTime = now + int64(c.TTL)
						}
					}
					return c
				}
				if rng.IntN(10) == 0 {
					r.Cells = append(r.Cells, cell("m", []byte{'x' + byte(rng.IntN(2))}))
				}
				if key < 3 && rng.IntN(4) > 0 || rng.IntN(40) == 0 {
					// Counter cells, mostly in three partitions, so that
					// versions of them meet.
					r.Cells = append(r.Cells, data.Cell{Column: "n", Kind: data.CellCounter, Timestamp: rts,
						LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(int64(1 + rng.IntN(3)))})
				}
				if rng.IntN(10) > 0 {
					r.Cells = append(r.Cells, cell("v", nil))
				}
				if hasW && rng.IntN(10) > 1 {
					r.Cells = append(r.Cells, cell("w", nil))
				}
				m.Rows = append(m.Rows, r)
			}
			applyAll(t, es, tbl, m)
		}
		flushAll(t, es, clock, time.Duration(rng.IntN(40))*time.Second)
	}
}

// TestCompactionSkipMatchesMerge compacts the same random SSTables
// (randomSkipLoad) three ways: with the skip of shadowed versions
// (partMerge.shadowed, the default), without it (compactNoSkip: every
// version decoded and reconciled, partMerge.narrow or the general merge)
// and through the general merge alone (compactSlow), and requires the
// output files to be the same bytes. It also requires the skip to have
// been taken, and refused, in some of the trials.
func TestCompactionSkipMatchesMerge(t *testing.T) {
	seed := compactionSeed(t)
	rng := rand.New(rand.NewPCG(seed, 45))
	trials := 80
	if testing.Short() {
		trials = 20
	}
	var skipped, refused int
	for trial := range trials {
		var es []*Engine
		var clocks []*ManualClock
		g := int32(rng.IntN(60))
		for range 3 {
			e, clock, _ := newTestEngineOpts(t, Options{DisableAutoCompaction: true, CompactionThroughput: -1})
			nt, _ := e.Table("ks", "t")
			alt := *nt
			alt.Options.GCGraceSeconds = g
			require.NoError(t, e.AlterTable(&alt))
			es, clocks = append(es, e), append(clocks, clock)
		}
		randomSkipLoad(t, rng, es, clocks)
		tbl, _ := es[0].Table("ks", "t")
		es[0].compactSlow = true
		es[1].compactNoSkip = true
		for _, e := range es {
			require.NoError(t, e.Compact(context.Background(), "ks", "t"))
		}
		if n := es[2].compactSkipped.Load(); n > 0 {
			skipped++
		} else {
			refused++
		}
		require.Zero(t, es[1].compactSkipped.Load())
		requireSameOutputs(t, es, tbl, fmt.Sprintf("trial %d", trial))
	}
	t.Logf("%d trials with versions skipped, %d without", skipped, refused)
	require.Greater(t, skipped, trials/4)
	require.Greater(t, refused, 0)
}
