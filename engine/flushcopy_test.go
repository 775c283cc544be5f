package engine

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/memtable"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// refCopyMemtable is copyMemtable as it was before the pipeline (frozen):
// one loop on the caller's goroutine.
func refCopyMemtable(w *sstable.Writer, mt *memtableSource, done func(key []byte, size, rows int64)) error {
	it := mt.mt.ScanReuse(data.FullRing)
	defer it.Close()
	var purged data.Row
	for {
		ps, ok := it.Next()
		if !ok {
			return it.Err()
		}
		pdel := ps.Deletion()
		rts := ps.RangeTombstones(nil)
		if !pdel.IsLive() && len(rts) > 0 {
			kept := make([]data.RangeTombstone, 0, len(rts))
			for _, rt := range rts {
				if rt.Deletion.Supersedes(pdel) {
					kept = append(kept, rt)
				}
			}
			rts = kept
		}
		static := ps.Static()
		if static != nil && !pdel.IsLive() {
			static = purgedCopy(new(data.Row), static, pdel)
			if static.IsEmpty() {
				static = nil
			}
		}
		if err := w.BeginPartition(ps.Token(), ps.Key(), pdel, static, rts); err != nil {
			return err
		}
		size := int64(len(ps.Key()))
		if static != nil {
			size += int64(static.Size())
		}
		var n int64
		rows := ps.Rows(nil, false)
		for {
			r, ok := rows.Next()
			if !ok {
				break
			}
			if outer := coveringDeletion(pdel, rts, r.Clustering); !outer.IsLive() {
				if r = purgedCopy(&purged, r, outer); r.IsEmpty() {
					continue
				}
			}
			if err := w.AddRow(r); err != nil {
				_ = rows.Close()
				return err
			}
			size += int64(r.Size())
			n++
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		if err := w.EndPartition(); err != nil {
			return err
		}
		done(ps.Key(), size, n)
	}
}

// flushCopySeed returns the test's seed: MINICASS_FLUSH_SEED, or the time.
func flushCopySeed(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("MINICASS_FLUSH_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d (MINICASS_FLUSH_SEED replays it)", seed)
	return seed
}

// randomFlushMemtable fills a memtable with n partitions: narrow and wide
// ones (some wider than a flush batch), rows of many cells (more cells
// than a batch holds), partition deletions that shadow rows and statics,
// range tombstones, row and collection deletions, TTLs and tombstones.
func randomFlushMemtable(rng *rand.Rand, n int) *memtable.Memtable {
	m := memtable.New()
	ts := func() int64 { return int64(rng.Intn(10) + 1) }
	del := func() data.DeletionTime { return data.DeletionTime{MarkedForDeleteAt: ts(), LocalDeletionTime: 1000} }
	ck := func(i int) []byte { return []byte(fmt.Sprintf("c%06d", i)) }
	for p := 0; p < n; p++ {
		key := []byte(fmt.Sprintf("k%d", p))
		token := int64(rng.Intn(1 << 20))
		rows := 1
		switch rng.Intn(20) {
		case 0:
			rows = rng.Intn(2500) + 1
		case 1, 2:
			rows = rng.Intn(20) + 1
		case 3:
			rows = 0
		}
		for muts := rng.Intn(3) + 1; muts > 0; muts-- {
			mu := &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion}
			switch rng.Intn(8) {
			case 0:
				mu.PartitionDeletion = del()
			case 1:
				s, e := rng.Intn(rows+1), rng.Intn(rows+1)
				if s > e {
					s, e = e, s
				}
				rt := data.RangeTombstone{Start: ck(s), End: ck(e + 1), Deletion: del()}
				if rng.Intn(3) == 0 {
					rt.Start = nil
				}
				if rng.Intn(3) == 0 {
					rt.End = nil
				}
				mu.RangeTombstones = []data.RangeTombstone{rt}
			case 2:
				s := data.NewRow(nil)
				s.Cells = []data.Cell{{Column: "s", Timestamp: ts(), LocalDeletionTime: data.NoDeletionTime, Value: []byte("st")}}
				mu.Static = &s
			}
			for i := 0; i < rows; i++ {
				if rows > 1 && rng.Intn(2) == 0 {
					continue
				}
				r := data.NewRow(ck(i))
				t := ts()
				if rng.Intn(4) != 0 {
					r.Liveness = data.LivenessInfo{Timestamp: t, ExpiresAt: data.NoDeletionTime}
				}
				if rng.Intn(20) == 0 {
					r.Deletion = del()
				}
				if rng.Intn(20) == 0 {
					r.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: del()}}
				}
				cols := []string{"a", "b", "v"}
				if rng.Intn(400) == 0 {
					cols = nil
					for c := 0; c < 3000; c++ {
						cols = append(cols, fmt.Sprintf("x%05d", c))
					}
				}
				for _, col := range cols {
					if rng.Intn(3) == 0 {
						continue
					}
					c := data.Cell{Column: col, Timestamp: t, LocalDeletionTime: data.NoDeletionTime, Value: []byte(fmt.Sprint(rng.Intn(1000)))}
					switch rng.Intn(6) {
					case 0:
						c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, 1000
					case 1:
						c.TTL, c.LocalDeletionTime = 60, 2000
					}
					r.Cells = append(r.Cells, c)
				}
				mu.Rows = append(mu.Rows, r)
			}
			m.Apply(token, mu)
		}
	}
	return m
}

type doneCall struct {
	key        string
	size, rows int64
}

// TestCopyMemtableMatchesReference flushes random memtables with
// copyMemtable (its walk on a goroutine of its own with GOMAXPROCS 2, in
// turn with the writer with GOMAXPROCS 1) and with the frozen one-loop copy,
// and checks that every component is the same byte for byte and that done
// sees the same partitions, sizes and row counts. Most narrow partitions'
// rows are plain (memtable.PlainRow) and take the writer's
// AddPlainNarrowPartition. The seed is logged;
// MINICASS_FLUSH_SEED replays it.
func TestCopyMemtableMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(flushCopySeed(t)))
	for _, n := range []int{0, 1, 7, 200, 1200} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("partitions=%d/procs=%d", n, procs), func(t *testing.T) {
				mt := &memtableSource{mt: randomFlushMemtable(rng, n)}
				flush := func(copyFn func(*sstable.Writer, *memtableSource, func([]byte, int64, int64)) error) (vfs.FS, []doneCall) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					fs := vfs.NewMem()
					require.NoError(t, fs.MkdirAll("d", 0o755))
					w, err := sstable.NewWriter(fs, "d", 1, sstable.WriterOptions{ColumnIndexSize: 512, ExpectedPartitions: mt.mt.Len()})
					require.NoError(t, err)
					var calls []doneCall
					require.NoError(t, copyFn(w, mt, func(key []byte, size, rows int64) {
						calls = append(calls, doneCall{string(key), size, rows})
					}))
					_, err = w.Finish()
					require.NoError(t, err)
					return fs, calls
				}
				wantFS, wantCalls := flush(refCopyMemtable)
				gotFS, gotCalls := flush(copyMemtable)
				require.Equal(t, wantCalls, gotCalls)
				for _, name := range sstable.Files(1) {
					require.Equal(t, readFile(t, wantFS, "d/"+name), readFile(t, gotFS, "d/"+name), name)
				}
			})
		}
	}
}
