package engine

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// compactionSeed returns the seed of a randomized compaction test: the
// environment's MINICASS_SEED when set, else the time; it is logged so a
// failure can be replayed.
func compactionSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MINICASS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seed = n
	}
	t.Logf("seed %d (MINICASS_SEED=%d to replay)", seed, seed)
	return seed
}

// tableFiles returns the contents of every file of table t's directory.
func tableFiles(t *testing.T, e *Engine, tbl *schema.Table) map[string]string {
	t.Helper()
	s, ok := e.store(tbl.ID)
	require.True(t, ok)
	names, err := e.fs.List(s.dir())
	require.NoError(t, err)
	out := map[string]string{}
	for _, n := range names {
		f, err := e.fs.Open(e.fs.PathJoin(s.dir(), n))
		require.NoError(t, err)
		b, err := io.ReadAll(f)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		out[n] = string(b)
	}
	return out
}

// randomCompactionLoad writes the same random mutations into every engine
// of es, in flushes: regular, tombstone and expiring cells, expiring and
// expired liveness, row, collection, range and partition deletions, static
// rows, map elements, timestamps that tie and that go back, with the clock
// advancing past TTLs and gc grace between flushes. narrow makes most
// partitions one row (one clustering), mostly single-cell overwrites of the
// same columns: the narrow path's case (partMerge.narrow).
func randomCompactionLoad(t *testing.T, rng *rand.Rand, es []*Engine, clock []*ManualClock, tbl *schema.Table, narrow bool) {
	cks := []string{"a", "b", "c", "d", "e"}
	flushes := 2 + rng.IntN(4)
	base := int64(1000)
	for f := 0; f < flushes; f++ {
		base += int64(rng.IntN(40))
		n := 5 + rng.IntN(40)
		for range n {
			now := clock[0].Now().Unix()
			ts := func() int64 { return base + int64(rng.IntN(30)) }
			ttl := func() int32 { return int32(1 + rng.IntN(80)) }
			keys := 10
			if narrow {
				keys = 40 // mostly partitions of one row (partMerge.narrow)
			}
			m := &data.Mutation{Key: []byte{'k', byte('0' + rng.IntN(keys))}, PartitionDeletion: data.LiveDeletion}
			if !narrow && rng.IntN(25) == 0 {
				m.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: now}
			}
			if !narrow && rng.IntN(12) == 0 {
				i := rng.IntN(len(cks))
				j := i + 1 + rng.IntN(len(cks)-i)
				rt := data.RangeTombstone{Deletion: data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: now}}
				if rng.IntN(4) > 0 {
					rt.Start = []byte(cks[i])
				}
				if j < len(cks) && rng.IntN(4) > 0 {
					rt.End = []byte(cks[j])
				}
				m.RangeTombstones = append(m.RangeTombstones, rt)
			}
			if !narrow && rng.IntN(6) == 0 {
				st := data.NewRow(nil)
				c := data.Cell{Column: "s", Timestamp: ts(), LocalDeletionTime: data.NoDeletionTime, Value: []byte{byte(rng.IntN(4))}}
				switch rng.IntN(5) {
				case 0:
					c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, now
				case 1:
					c.TTL = ttl()
					c.LocalDeletionTime = now + int64(c.TTL)
				}
				st.Cells = []data.Cell{c}
				m.Static = &st
			}
			rows := 1 + rng.IntN(3)
			if narrow {
				rows = 1
			}
			perm := rng.Perm(len(cks))[:rows]
			slices.Sort(perm)
			if narrow && rng.IntN(8) > 0 {
				perm = []int{0} // one clustering: one row per partition
			}
			for _, ci := range perm {
				r := data.NewRow([]byte(cks[ci]))
				rts := ts()
				switch k := rng.IntN(10); {
				case k < 6:
					r.Liveness = data.LivenessInfo{Timestamp: rts, ExpiresAt: data.NoDeletionTime}
				case k < 8:
					l := ttl()
					r.Liveness = data.LivenessInfo{Timestamp: rts, TTL: l, ExpiresAt: now + int64(l)}
				}
				if !narrow && rng.IntN(12) == 0 {
					r.Deletion = data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: now}
				}
				if !narrow && rng.IntN(10) == 0 {
					r.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: data.DeletionTime{MarkedForDeleteAt: ts() - 1, LocalDeletionTime: now}}}
				}
				cell := func(col string, path []byte) data.Cell {
					c := data.Cell{Column: col, Path: path, Timestamp: rts, LocalDeletionTime: data.NoDeletionTime, Value: []byte{byte('0' + rng.IntN(4))}}
					if rng.IntN(3) == 0 {
						c.Timestamp = ts()
					}
					switch rng.IntN(8) {
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
				if !narrow && rng.IntN(4) == 0 {
					for _, p := range []string{"x", "y"} {
						if rng.IntN(2) == 0 {
							r.Cells = append(r.Cells, cell("m", []byte(p)))
						}
					}
				}
				if !narrow || rng.IntN(8) > 0 {
					r.Cells = append(r.Cells, cell("v", nil))
				}
				if (!narrow && rng.IntN(2) == 0) || rng.IntN(10) == 0 {
					r.Cells = append(r.Cells, cell("w", nil))
				}
				m.Rows = append(m.Rows, r)
			}
			applyAll(t, es, tbl, m)
		}
		flushAll(t, es, clock, time.Duration(rng.IntN(40))*time.Second)
	}
}

// TestCompactionNarrowMatchesGeneral compacts the same random SSTables with
// the narrow path (partMerge.narrow, one plain row per version, taken from
// the scan's NextOnlyRow through onlyRows when it is a partition's only
// row) and with the general merge alone (compactSlow, through the scan's
// row iterators), and requires the output files to be the same bytes. gc_grace_seconds is short, so that
// tombstones and expired cells are purged in some compactions and kept in
// others.
func TestCompactionNarrowMatchesGeneral(t *testing.T) {
	seed := compactionSeed(t)
	rng := rand.New(rand.NewPCG(seed, 44))
	trials := 60
	if testing.Short() {
		trials = 15
	}
	for trial := range trials {
		narrow := trial%2 == 0
		var es []*Engine
		var clocks []*ManualClock
		var tbl *schema.Table
		for range 2 {
			e, clock, _ := newTestEngineOpts(t, Options{DisableAutoCompaction: true, CompactionThroughput: -1})
			nt, _ := e.Table("ks", "t")
			alt := *nt
			alt.Options.GCGraceSeconds = int32(rng.IntN(60))
			require.NoError(t, e.AlterTable(&alt))
			tbl, _ = e.Table("ks", "t")
			es, clocks = append(es, e), append(clocks, clock)
		}
		// The engines got the same gc grace only if the draws agree: use
		// the last's for the others too.
		g := tbl.Options.GCGraceSeconds
		for _, e := range es[:len(es)-1] {
			t0, _ := e.Table("ks", "t")
			alt := *t0
			alt.Options.GCGraceSeconds = g
			require.NoError(t, e.AlterTable(&alt))
		}

		randomCompactionLoad(t, rng, es, clocks, tbl, narrow)
		require.Equal(t, tableFiles(t, es[0], tbl), tableFiles(t, es[1], tbl), "trial %d: inputs differ", trial)
		if os.Getenv("DUMPIN") != "" {
			t.Logf("inputs now=%d:\n%s", clocks[0].Now().Unix(), dumpTable(t, es[0], tbl))
		}
		es[0].compactSlow = true
		for _, e := range es {
			require.NoError(t, e.Compact(context.Background(), "ks", "t"))
		}
		requireSameOutputs(t, es, tbl, fmt.Sprintf("trial %d (narrow %v)", trial, narrow))
	}
}

// applyAll applies m to every engine of es, which hold the same table.
func applyAll(t *testing.T, es []*Engine, tbl *schema.Table, m *data.Mutation) {
	t.Helper()
	for _, e := range es {
		require.NoError(t, e.Apply(context.Background(), tbl, m))
	}
}

// flushAll flushes ks.t in every engine of es, then moves each engine's
// clock on by d.
func flushAll(t *testing.T, es []*Engine, clock []*ManualClock, d time.Duration) {
	t.Helper()
	for i, e := range es {
		require.NoError(t, e.Flush(context.Background(), "ks", "t"))
		clock[i].Advance(d)
	}
}

// requireSameOutputs requires every engine of es to hold the same SSTable
// files of tbl, byte for byte, as the first (the reference), which must
// hold some; when they differ, the SSTables' contents are compared first,
// as text, which says where. what names the case in the failure.
func requireSameOutputs(t *testing.T, es []*Engine, tbl *schema.Table, what string) {
	t.Helper()
	want := tableFiles(t, es[0], tbl)
	require.NotEmpty(t, want)
	for i, e := range es[1:] {
		got := tableFiles(t, e, tbl)
		if !reflect.DeepEqual(want, got) {
			require.Equal(t, dumpTable(t, es[0], tbl), dumpTable(t, e, tbl), "%s, engine %d: outputs differ", what, i+1)
		}
		require.Equal(t, want, got, "%s, engine %d: outputs differ", what, i+1)
	}
}

// dumpTable returns the contents of every SSTable of tbl, as text.
func dumpTable(t *testing.T, e *Engine, tbl *schema.Table) string {
	s, _ := e.store(tbl.ID)
	var b strings.Builder
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, x := range s.ssts {
		it := x.r.Scan(data.FullRing)
		for {
			ps, ok := it.Next()
			if !ok {
				break
			}
			fmt.Fprintf(&b, "partition %q del %+v rts %+v\n", ps.Key(), ps.Deletion(), ps.RangeTombstones(nil))
			if st := ps.Static(); st != nil {
				fmt.Fprintf(&b, "  static %+v\n", *st)
			}
			rows := ps.Rows(nil, false)
			for {
				r, ok := rows.Next()
				if !ok {
					break
				}
				fmt.Fprintf(&b, "  row %+v\n", *r)
			}
			require.NoError(t, rows.Close())
		}
		require.NoError(t, it.Err())
		require.NoError(t, it.Close())
	}
	return b.String()
}
