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
// marks) with the Writer and with the frozen reference writer
// (refwriter_test.go) under several options, and checks that every
// component is the same byte for byte. The seed is logged; SSTABLE_SEED
// replays it. Each case runs with the sinks on the writer's goroutine
// (GOMAXPROCS 1) and on their own (GOMAXPROCS 2).
func TestWriterMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, c := range []struct {
		n, maxRows int
		opts       WriterOptions
	}{
		{0, 0, WriterOptions{}},
		{1, 1, WriterOptions{}},
		{3000, 1, WriterOptions{}},
		{400, 40, WriterOptions{Compression: Compression{Codec: CodecNone, ChunkLength: 512}}},
		{600, 30, WriterOptions{ColumnIndexSize: 256, IndexInterval: 8, Compression: Compression{Codec: CodecS2, ChunkLength: 1024}}},
		{50, 400, WriterOptions{ColumnIndexSize: 64, Compression: Compression{Codec: CodecS2, ChunkLength: 4096}}},
	} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("n=%d/rows=%d/procs=%d", c.n, c.maxRows, procs), func(t *testing.T) {
				parts := randomPartitions(rng, c.n, c.maxRows)
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
					writeTable(t, got, "", 1, c.opts, parts)
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
