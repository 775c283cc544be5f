package sstable

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/require"
)

// TestWriterMatchesReference writes the same random partitions (narrow and
// wide, with deletions, statics, range tombstones, row indexes and chunk
// marks, a third of the rows plain: see plainRowOf) with the Writer (of
// the partitions that AddNarrowPartition can write, about half through
// it, and of those whose row is plain, a third through it and a third
// through AddPlainNarrowPartition; the rest through BeginPartition, AddRow
// and EndPartition) and with the frozen reference writer
// (refwriter_test.go) under several options, and checks that every
// component is the same byte for byte. The seed is logged; SSTABLE_SEED
// replays it. Each case runs with the sinks on the writer's goroutine
// (GOMAXPROCS 1) and on their own (GOMAXPROCS 2).
func TestWriterMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, c := range []struct {
		n, maxRows int
		opts       WriterOptions
		narrow     bool // every partition one row, no deletion, static or range tombstone
		// plain: every row plain but one in 50 (a row deletion alone),
		// with a clustering of its own, and every plain row through
		// AddPlainNarrowPartition (with narrow)
		plain bool
	}{
		{2000, 1, WriterOptions{}, true, false},
		{2000, 1, WriterOptions{}, true, true},
		{1000, 1, WriterOptions{IndexInterval: 4, Compression: Compression{Codec: CodecNone, ChunkLength: 256}}, true, true},
		{2000, 1, WriterOptions{IndexInterval: 4, Compression: Compression{Codec: CodecNone, ChunkLength: 256}}, true, false},
		{0, 0, WriterOptions{}, false, false},
		{1, 1, WriterOptions{}, false, false},
		{3000, 1, WriterOptions{}, false, false},
		{400, 40, WriterOptions{Compression: Compression{Codec: CodecNone, ChunkLength: 512}}, false, false},
		{600, 30, WriterOptions{ColumnIndexSize: 256, IndexInterval: 8, Compression: Compression{Codec: CodecS2, ChunkLength: 1024}}, false, false},
		{50, 400, WriterOptions{ColumnIndexSize: 64, Compression: Compression{Codec: CodecS2, ChunkLength: 4096}}, false, false},
	} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("n=%d/rows=%d/narrow=%v/plain=%v/procs=%d", c.n, c.maxRows, c.narrow, c.plain, procs), func(t *testing.T) {
				parts := randomPartitions(rng, c.n, c.maxRows)
				if c.narrow {
					for i := range parts {
						p := &parts[i]
						p.del, p.static, p.rts = data.LiveDeletion, nil, nil
						if len(p.rows) == 0 {
							p.rows = append(p.rows, randomRow(rng, ckOf(rng.Intn(10))))
						}
						if c.plain {
							p.rows[0].Clustering = ckOf(rng.Intn(1_000_000))
						}
					}
				}
				// Some rows get a long value: records whose length takes two
				// or three bytes, and rows longer than a chunk.
				for i := range parts {
					for j := range parts[i].rows {
						if rng.Intn(6) == 0 {
							size := []int{100, 200, 3000, 20000}[rng.Intn(4)]
							parts[i].rows[j].Cells = append(parts[i].rows[j].Cells, data.Cell{Column: "zz", Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: randBytes(rng, rng.Intn(size)+1)})
						}
					}
				}
				// A third of the rows plain (AddPlainNarrowPartition's
				// shape), some of their cells without a value or with an
				// empty one.
				for i := range parts {
					for j := range parts[i].rows {
						switch {
						case c.plain && i%50 == 0:
							// A row deletion alone, its local deletion
							// time below the plain rows' NoDeletionTime.
							r := &parts[i].rows[j]
							r.Liveness, r.ColumnDeletions, r.Cells = data.EmptyLiveness, nil, nil
							r.Deletion = data.DeletionTime{MarkedForDeleteAt: 1, LocalDeletionTime: 1_700_000_000}
						case c.plain || rng.Intn(3) == 0:
							makePlain(rng, &parts[i].rows[j])
						}
					}
				}
				got := vfs.NewMem()
				func() { // the sinks on the writer's goroutine (1) or their own (2)
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					writeTableNarrow(t, got, c.opts, parts, rng.Int63(), c.plain)
				}()
				want := vfs.NewMem()
				w, err := newRefWriter(want, "", 1, c.opts)
				require.NoError(t, err)
				for i := range parts {
					p := &parts[i]
					require.NoError(t, w.BeginPartition(p.token, p.key, p.del, p.static, p.rts))
					for j := range p.rows {
						require.NoError(t, w.AddRow(&p.rows[j]))
					}
					require.NoError(t, w.EndPartition())
				}
				_, err = w.Finish()
				require.NoError(t, err)
				for _, name := range Files(1) {
					require.Equal(t, readFile(t, want, name), readFile(t, got, name), name)
				}
			})
		}
	}
}

// writeTableNarrow writes parts with a Writer as writeTable does, except
// that a partition AddNarrowPartition can write (one row, no deletion,
// static row or range tombstone) goes through it when a coin seeded with
// seed says so, or through AddPlainNarrowPartition when its row is plain
// and the coin (or allPlain) says so, so that the three paths meet in one
// file.
func writeTableNarrow(t *testing.T, fs vfs.FS, opts WriterOptions, parts []testPartition, seed int64, allPlain bool) {
	t.Helper()
	coin := rand.New(rand.NewSource(seed))
	w, err := NewWriter(fs, "", 1, opts)
	require.NoError(t, err)
	narrow, plain := 0, 0
	for i := range parts {
		p := &parts[i]
		if len(p.rows) == 1 && p.del == data.LiveDeletion && p.static == nil && len(p.rts) == 0 {
			if pr, ok := plainRowOf(&p.rows[0]); ok && (allPlain || coin.Intn(3) == 0) {
				require.NoError(t, w.AddPlainNarrowPartition(p.token, p.key, pr.ck, pr.ts, pr.columns, pr.values))
				plain++
				continue
			}
			if coin.Intn(2) == 0 {
				require.NoError(t, w.AddNarrowPartition(p.token, p.key, &p.rows[0]))
				narrow++
				continue
			}
		}
		require.NoError(t, w.BeginPartition(p.token, p.key, p.del, p.static, p.rts))
		for j := range p.rows {
			require.NoError(t, w.AddRow(&p.rows[j]))
		}
		require.NoError(t, w.EndPartition())
	}
	_, err = w.Finish()
	require.NoError(t, err)
	t.Logf("%d of %d partitions through AddNarrowPartition, %d through AddPlainNarrowPartition", narrow, len(parts), plain)
}

// plainRowOf returns the fields AddPlainNarrowPartition takes for r when r
// is plain: a liveness timestamp without TTL or expiry, no row or column
// deletion, and regular cells without path, TTL or local deletion time at
// the row's timestamp.
func plainRowOf(r *data.Row) (plainRow, bool) {
	l := r.Liveness
	if l.Timestamp == data.NoTimestamp || l.TTL != 0 || l.ExpiresAt != data.NoDeletionTime ||
		r.Deletion != data.LiveDeletion || len(r.ColumnDeletions) != 0 {
		return plainRow{}, false
	}
	p := plainRow{ck: r.Clustering, ts: l.Timestamp}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Kind != data.CellRegular || c.Path != nil || c.TTL != 0 || c.LocalDeletionTime != data.NoDeletionTime || c.Timestamp != l.Timestamp {
			return plainRow{}, false
		}
		p.columns = append(p.columns, c.Column)
		p.values = append(p.values, c.Value)
	}
	return p, true
}

// makePlain makes r plain (see plainRowOf), keeping its clustering, cell
// columns and values, except that a cell may lose its value (nil) or have
// an empty one.
func makePlain(rng *rand.Rand, r *data.Row) {
	ts := rng.Int63n(1 << 40)
	r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	r.Deletion, r.ColumnDeletions = data.LiveDeletion, nil
	for i := range r.Cells {
		c := &r.Cells[i]
		c.Kind, c.Path, c.TTL, c.LocalDeletionTime, c.Timestamp = data.CellRegular, nil, 0, data.NoDeletionTime, ts
		switch rng.Intn(8) {
		case 0:
			c.Value = nil
		case 1:
			c.Value = []byte{}
		}
	}
}
