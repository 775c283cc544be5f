package sstable

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
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

// indexSinkPartitions returns enough random partitions for several Index.db
// buffers (indexFlushSize), with partition deletions, statics, range
// tombstones, row indexes (a small ColumnIndexSize) and keys long enough
// that some index entries need a length of more than one byte.
func indexSinkPartitions() []testPartition {
	parts := randomPartitions(rand.New(rand.NewSource(7)), 6000, 12)
	for i := range parts {
		if i%97 == 0 {
			parts[i].key = append(parts[i].key, bytes.Repeat([]byte{'x'}, 150+i%300)...)
		}
	}
	sort.Slice(parts, func(i, j int) bool {
		return data.ComparePartitions(parts[i].token, parts[i].key, parts[j].token, parts[j].key) < 0
	})
	return parts
}

// TestIndexSinkAsyncMatchesSync writes partitions enough for several
// Index.db buffers with the index sink writing them on the writer's
// goroutine (GOMAXPROCS 1) and on its own (GOMAXPROCS 2), checks that every
// component is the same byte for byte, and reads every partition back
// through Index.db, Summary.db and the bloom filter.
func TestIndexSinkAsyncMatchesSync(t *testing.T) {
	parts := indexSinkPartitions()
	opts := WriterOptions{ColumnIndexSize: 64, IndexInterval: 16}
	write := func(procs int) vfs.FS {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		fs := vfs.NewMem()
		writeTable(t, fs, "", 1, opts, parts)
		return fs
	}
	sync, async := write(1), write(2)
	for _, name := range Files(1) {
		require.Equal(t, readFile(t, sync, name), readFile(t, async, name), name)
	}
	idx := readFile(t, sync, FileName(1, ComponentIndex))
	require.Greater(t, len(idx), 3*indexFlushSize, "Index.db spans several buffers")
	r, err := Open(sync, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, r.Verify())
	indexed, long := 0, 0
	for i := range parts {
		p := &parts[i]
		require.True(t, r.MayContain(p.key), "bloom filter holds %q", p.key)
		got, ok, err := r.GetPartition(p.token, p.key)
		require.NoError(t, err)
		require.True(t, ok, "partition %q", p.key)
		require.Equal(t, p.del, got.Deletion())
		if got.IndexBlocks() > 1 {
			indexed++
		}
		if len(p.key) > 128 {
			long++
		}
		rows := got.Rows(nil, false)
		n := 0
		for {
			row, ok := rows.Next()
			if !ok {
				break
			}
			require.Equal(t, p.rows[n].Clustering, row.Clustering)
			n++
		}
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
		require.Equal(t, len(p.rows), n)
		got.Release()
	}
	require.Greater(t, indexed, 100, "partitions with a row index")
	require.Greater(t, long, 30, "entries with a multi-byte length")
}
