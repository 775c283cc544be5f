package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// genMutation draws a mutation of the test table: rows with liveness,
// cells, tombstones, TTLs, collection elements and deletions of every kind.
func genMutation(t *rapid.T, now int64) *data.Mutation {
	key := rapid.SampledFrom([]string{"p1", "p2", "p3"}).Draw(t, "key")
	ts := rapid.Int64Range(1, 6).Draw(t, "ts")
	del := data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: now}
	m := &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion}
	ck := func(label string) []byte {
		return []byte(rapid.SampledFrom([]string{"a", "b", "c", "d", "e"}).Draw(t, label))
	}
	switch rapid.IntRange(0, 9).Draw(t, "kind") {
	case 0:
		m.PartitionDeletion = del
	case 1:
		s, e := ck("rt-start"), ck("rt-end")
		if string(s) > string(e) {
			s, e = e, s
		}
		rt := data.RangeTombstone{Start: s, End: e, Deletion: del}
		if rapid.Bool().Draw(t, "open-start") {
			rt.Start = nil
		}
		m.RangeTombstones = []data.RangeTombstone{rt}
	case 2:
		s := data.NewRow(nil)
		s.Cells = []data.Cell{{Column: "s", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(fmt.Sprint(ts))}}
		m.Static = &s
	default:
		r := data.NewRow(ck("ck"))
		ttl := int32(rapid.SampledFrom([]int{0, 0, 2}).Draw(t, "ttl"))
		if rapid.Bool().Draw(t, "insert") {
			r.Liveness = data.LivenessInfo{Timestamp: ts, TTL: ttl, ExpiresAt: data.NoDeletionTime}
			if ttl > 0 {
				r.Liveness.ExpiresAt = now + int64(ttl)
			}
		}
		if rapid.IntRange(0, 5).Draw(t, "row-del") == 0 {
			r.Deletion = del
		}
		if rapid.IntRange(0, 5).Draw(t, "coll-del") == 0 {
			r.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: data.DeletionTime{MarkedForDeleteAt: ts - 1, LocalDeletionTime: now}}}
		}
		for _, col := range []string{"m", "v", "w"} {
			if !rapid.Bool().Draw(t, "has-"+col) {
				continue
			}
			c := data.Cell{Column: col, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime,
				Value: []byte(rapid.StringMatching(`[a-z]{0,20}`).Draw(t, "value"))}
			if col == "m" {
				c.Path = []byte(rapid.SampledFrom([]string{"x", "y"}).Draw(t, "path"))
			}
			switch rapid.IntRange(0, 3).Draw(t, "cell-kind") {
			case 0:
				c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, now
			case 1:
				if ttl > 0 {
					c.TTL, c.LocalDeletionTime = ttl, now+int64(ttl)
				}
			}
			r.Cells = append(r.Cells, c)
		}
		m.Rows = []data.Row{r}
	}
	return m
}

// cloneMutation deep-copies m (the engine owns what it is given).
func cloneMutation(m *data.Mutation) *data.Mutation {
	b := data.AppendMutation(nil, m)
	c, err := data.DecodeMutation(b)
	if err != nil {
		panic(err)
	}
	return c
}

// readString reads a whole partition (and its static row) as text.
func readString(t testing.TB, e *Engine, key string, opts ReadOptions, now int64) string {
	tbl, _ := e.Table("ks", "t")
	p, err := e.ReadPartition(context.Background(), tbl, []byte(key), opts)
	require.NoError(t, err)
	var b strings.Builder
	drain(t, &b, p, now)
	return b.String()
}

// TestFlushRoundTrip checks that random partitions read the same from
// memtables only and after going through flushes to SSTables (at random
// points, so reads merge memtables and several SSTables), forward and
// reverse, with and without clustering slices, and through scans.
func TestFlushRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mem, clock, _ := openDurable(t, vfs.NewMem(), Options{Dir: "mem"})
		defer mem.Close()
		disk, _, _ := openDurable(t, vfs.NewMem(), Options{Clock: clock, CommitLogSync: SyncNone})
		defer disk.Close()
		now := clock.Now().Unix()
		ctx := context.Background()
		n := rapid.IntRange(1, 40).Draw(rt, "mutations")
		for i := 0; i < n; i++ {
			m := genMutation(rt, now)
			tm, _ := mem.Table("ks", "t")
			td, _ := disk.Table("ks", "t")
			require.NoError(rt, mem.Apply(ctx, tm, cloneMutation(m)))
			require.NoError(rt, disk.Apply(ctx, td, m))
			if rapid.IntRange(0, 6).Draw(rt, "flush") == 0 {
				require.NoError(rt, disk.Flush(ctx, "", ""))
			}
		}
		require.NoError(rt, disk.Flush(ctx, "", ""))
		at := now + int64(rapid.IntRange(0, 3).Draw(rt, "read-later"))
		for _, key := range []string{"p1", "p2", "p3"} {
			for _, reverse := range []bool{false, true} {
				opts := ReadOptions{Reverse: reverse, Now: at}
				if rapid.Bool().Draw(rt, "sliced") {
					opts.Slices = data.Slices{{Start: []byte("b"), End: []byte("d")}}
				}
				want := readString(t, mem, key, opts, at)
				got := readString(t, disk, key, opts, at)
				require.Equal(rt, want, got, "key %s reverse=%v slices=%q", key, reverse, opts.Slices)
			}
		}
		scan := func(e *Engine) string {
			tbl, _ := e.Table("ks", "t")
			sc, err := e.Scan(ctx, tbl, data.FullRing, ReadOptions{Now: at})
			require.NoError(rt, err)
			var b strings.Builder
			for {
				p, ok := sc.Next()
				if !ok {
					break
				}
				fmt.Fprintf(&b, "partition %s\n", p.Key())
				drain(t, &b, p, at)
			}
			require.NoError(rt, sc.Close())
			return b.String()
		}
		require.Equal(rt, scan(mem), scan(disk))
	})
}
