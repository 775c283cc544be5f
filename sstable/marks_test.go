package sstable

import (
	"math/rand"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChunkMarks writes random partitions too small for a row index but
// larger than a chunk, so that their index entries carry chunk marks
// (format version 3), and reads each back by point lookup and by scan,
// over random slices in both directions, against what was written. It
// then checks what a reverse read of the last row of such a partition
// reads: one chunk, the last, and no header when the header is plain.
func TestChunkMarks(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, chunk := range []int{256, 512, 1024} {
		fs := vfs.NewMem()
		parts := randomPartitions(rng, 40, 120)
		opts := WriterOptions{Compression: Compression{Codec: CodecS2, ChunkLength: chunk}, ColumnIndexSize: 1 << 20, IndexInterval: 4}
		writeTable(t, fs, "", 1, opts, parts)
		r, err := Open(fs, "", 1, ReaderOptions{VerifyData: true, Cache: NewCache(CacheOptions{BlockCacheSize: -1, KeyCacheSize: -1})})
		require.NoError(t, err)
		marked, plain := 0, 0
		for i := range parts {
			p := &parts[i]
			src, found, err := r.GetPartition(p.token, p.key)
			require.NoError(t, err)
			require.True(t, found)
			checkPartition(t, rng, src, p)
			e := &src.e
			require.Zero(t, e.numBlocks())
			assert.Equal(t, p.static == nil && len(p.rts) == 0, e.plainHeader, "partition %s", p.key)
			// The marks the rows' records call for: the first record
			// starting in each chunk after the rows' first.
			var want []uint64
			fwd := src.Rows(nil, false).(*rowIter)
			prevChunk := (e.pos + e.rowsOff) / uint64(chunk)
			for {
				if _, ok := fwd.Next(); !ok {
					break
				}
				if c := fwd.rowPos / uint64(chunk); c != prevChunk {
					want = append(want, fwd.rowPos-e.pos)
					prevChunk = c
				}
			}
			require.NoError(t, fwd.Close())
			marks := e.markPositions(nil)
			require.Equal(t, want, marks, "partition %s", p.key)
			src.Release()
			if len(marks) == 0 {
				continue
			}
			marked++
			lastChunk := (e.pos + e.length - 2) / uint64(chunk)

			// The last row alone, in reverse: the last segment starts in
			// the last chunk a record starts in.
			src, _, err = r.GetPartition(p.token, p.key)
			require.NoError(t, err)
			lookup := src.ReadStats().Chunks
			it := src.Rows(nil, true)
			row, ok := it.Next()
			require.True(t, ok)
			assert.Equal(t, p.rows[len(p.rows)-1].Clustering, row.Clustering)
			require.NoError(t, it.Close())
			total := src.ReadStats().Chunks
			lastStart := (e.pos + marks[len(marks)-1]) / uint64(chunk)
			assert.LessOrEqual(t, total-lookup, lastChunk-lastStart+1, "partition %s: chunks read by the reverse read", p.key)
			if e.plainHeader {
				plain++
				assert.Zero(t, lookup, "partition %s: a plain header is not read", p.key)
			} else {
				assert.NotZero(t, lookup, "partition %s: the header is read", p.key)
			}
			src.Release()
		}
		assert.NotZero(t, marked, "chunk %d: no partition with chunk marks", chunk)
		assert.NotZero(t, plain, "chunk %d: no plain header among them", chunk)
		it := r.Scan(data.FullRing)
		n := 0
		for {
			src, ok := it.Next()
			if !ok {
				break
			}
			checkPartition(t, rng, src, &parts[n])
			n++
		}
		require.NoError(t, it.Err())
		require.NoError(t, it.Close())
		assert.Equal(t, len(parts), n)
		require.NoError(t, r.Close())
	}
}

// TestPlainHeaderRowIndex: a point read of a partition with a row index
// and a plain header (format version 3) does not read the header's chunk;
// a reverse read of the last row then reads only the chunks of the last
// block, and the rows read back match what was written.
func TestPlainHeaderRowIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	fs := vfs.NewMem()
	parts := randomPartitions(rng, 30, 200)
	const chunk = 512
	opts := WriterOptions{Compression: Compression{Codec: CodecS2, ChunkLength: chunk}, ColumnIndexSize: 700, IndexInterval: 4}
	writeTable(t, fs, "", 1, opts, parts)
	r, err := Open(fs, "", 1, ReaderOptions{VerifyData: true, Cache: NewCache(CacheOptions{BlockCacheSize: -1, KeyCacheSize: -1})})
	require.NoError(t, err)
	defer r.Close()
	indexed := 0
	for i := range parts {
		p := &parts[i]
		src, found, err := r.GetPartition(p.token, p.key)
		require.NoError(t, err)
		require.True(t, found)
		e := &src.e
		if e.numBlocks() == 0 || !e.plainHeader {
			checkPartition(t, rng, src, p)
			src.Release()
			continue
		}
		indexed++
		assert.Zero(t, src.ReadStats().Chunks, "partition %s: a plain header is not read", p.key)
		last, err := e.block(e.numBlocks() - 1)
		require.NoError(t, err)
		it := src.Rows(nil, true)
		row, ok := it.Next()
		require.True(t, ok)
		assert.Equal(t, p.rows[len(p.rows)-1].Clustering, row.Clustering)
		require.NoError(t, it.Close())
		first, end := (e.pos+last.Offset)/chunk, (e.pos+last.Offset+last.Length-1)/chunk
		assert.LessOrEqual(t, src.ReadStats().Chunks, end-first+1, "partition %s: chunks read", p.key)
		checkPartition(t, rng, src, p)
		src.Release()
	}
	assert.NotZero(t, indexed, "no partition with a row index and a plain header")
}
