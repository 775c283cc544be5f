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

// TestSinkAsyncMatchesSync writes the same partitions with the sink on the
// writer's goroutine (GOMAXPROCS 1) and on its own, handed chunks in
// batches (GOMAXPROCS 2), for chunk counts around the batch size and far
// past the number of buffers, and checks that every component is the same
// byte for byte.
func TestSinkAsyncMatchesSync(t *testing.T) {
	for _, n := range []int{0, 1, sinkBatch - 1, sinkBatch, sinkBatch + 1, 3*sinkBatch + 2, 40} {
		for _, codec := range []Codec{CodecNone, CodecS2} {
			t.Run(fmt.Sprintf("chunks=%d/codec=%d", n, codec), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(n)))
				var parts []testPartition
				const chunkLen = 512
				// Each partition is more than 200 bytes of stream (a
				// 200-byte value, random so that s2 does not shrink it
				// away, and random cells).
				for p := 0; p < n*chunkLen/200; p++ {
					r := randomRow(rng, []byte{byte(p)})
					r.Cells = append(r.Cells, data.Cell{Column: "v", Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: randBytes(rng, 200)})
					parts = append(parts, testPartition{token: int64(p), key: []byte(fmt.Sprintf("k%05d", p)),
						del: data.LiveDeletion, rows: []data.Row{r}})
				}
				opts := WriterOptions{Compression: Compression{Codec: codec, ChunkLength: chunkLen}}
				write := func(procs int) vfs.FS {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					fs := vfs.NewMem()
					m := writeTable(t, fs, "", 1, opts, parts)
					require.GreaterOrEqual(t, int(m.Stats.DataSize/chunkLen)+1, n, "chunks written")
					return fs
				}
				sync, async := write(1), write(2)
				for _, name := range Files(1) {
					require.Equal(t, readFile(t, sync, name), readFile(t, async, name), name)
				}
			})
		}
	}
}
