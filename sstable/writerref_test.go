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
// marks) with the Writer (about half of the partitions that can be written
// with AddNarrowPartition through it, the rest through BeginPartition,
// AddRow and EndPartition) and with the frozen reference writer
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
	}{
		{2000, 1, WriterOptions{}, true},
		{2000, 1, WriterOptions{IndexInterval: 4, Compression: Compression{Codec: CodecNone, ChunkLength: 256}}, true},
		{0, 0, WriterOptions{}, false},
		{1, 1, WriterOptions{}, false},
		{3000, 1, WriterOptions{}, false},
		{400, 40, WriterOptions{Compression: Compression{Codec: CodecNone, ChunkLength: 512}}, false},
		{600, 30, WriterOptions{ColumnIndexSize: 256, IndexInterval: 8, Compression: Compression{Codec: CodecS2, ChunkLength: 1024}}, false},
		{50, 400, WriterOptions{ColumnIndexSize: 64, Compression: Compression{Codec: CodecS2, ChunkLength: 4096}}, false},
	} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("n=%d/rows=%d/narrow=%v/procs=%d", c.n, c.maxRows, c.narrow, procs), func(t *testing.T) {
				parts := randomPartitions(rng, c.n, c.maxRows)
				if c.narrow {
					for i := range parts {
						p := &parts[i]
						p.del, p.static, p.rts = data.LiveDeletion, nil, nil
						if len(p.rows) == 0 {
							p.rows = append(p.rows, randomRow(rng, ckOf(rng.Intn(10))))
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
				got := vfs.NewMem()
				func() { // the sinks on the writer's goroutine (1) or their own (2)
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					writeTableNarrow(t, got, c.opts, parts, rng.Int63())
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
// seed says so, so that both paths meet in one file.
func writeTableNarrow(t *testing.T, fs vfs.FS, opts WriterOptions, parts []testPartition, seed int64) {
	t.Helper()
	coin := rand.New(rand.NewSource(seed))
	w, err := NewWriter(fs, "", 1, opts)
	require.NoError(t, err)
	narrow := 0
	for i := range parts {
		p := &parts[i]
		if len(p.rows) == 1 && p.del == data.LiveDeletion && p.static == nil && len(p.rts) == 0 && coin.Intn(2) == 0 {
			require.NoError(t, w.AddNarrowPartition(p.token, p.key, &p.rows[0]))
			narrow++
			continue
		}
		require.NoError(t, w.BeginPartition(p.token, p.key, p.del, p.static, p.rts))
		for j := range p.rows {
			require.NoError(t, w.AddRow(&p.rows[j]))
		}
		require.NoError(t, w.EndPartition())
	}
	_, err = w.Finish()
	require.NoError(t, err)
	t.Logf("%d of %d partitions through AddNarrowPartition", narrow, len(parts))
}
