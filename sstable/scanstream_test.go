package sstable

import (
	"bytes"
	"math/rand"
	"strconv"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/require"
)

// streamPartitions returns random partitions, some with static rows too
// large for a streaming scan's first header window.
func streamPartitions(rng *rand.Rand, n, maxRows int) []testPartition {
	parts := randomPartitions(rng, n, maxRows)
	for i := range parts {
		if rng.Intn(6) == 0 {
			s := data.NewRow([]byte{})
			s.Cells = []data.Cell{{Column: "s", Timestamp: 7, LocalDeletionTime: data.NoDeletionTime, Value: bytes.Repeat([]byte{'s'}, 100+rng.Intn(3000))}}
			parts[i].static = &s
		}
	}
	return parts
}

// openStreamTable writes parts to generation 1 of a new in-memory
// directory, with codec and random chunk, column index and index interval
// sizes, and opens it (closed when the test ends). It returns the reader,
// the partitions' tokens by key, and their sizes as the index-driven scan
// reports them, in order.
func openStreamTable(t *testing.T, rng *rand.Rand, codec Codec, parts []testPartition) (*Reader, map[string]int64, []uint64) {
	t.Helper()
	fs := vfs.NewMem()
	opts := WriterOptions{Compression: Compression{Codec: codec, ChunkLength: 1 << (9 + rng.Intn(3))}, ColumnIndexSize: 256 + rng.Intn(1024), IndexInterval: 1 + rng.Intn(8)}
	writeTable(t, fs, "", 1, opts, parts)
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	tokens := map[string]int64{}
	for _, p := range parts {
		tokens[string(p.key)] = p.token
	}
	var sizes []uint64
	idx := r.Scan(data.FullRing)
	for {
		src, ok := idx.Next()
		if !ok {
			break
		}
		sizes = append(sizes, src.(*Partition).Size())
	}
	require.NoError(t, idx.Err())
	require.NoError(t, idx.Close())
	return r, tokens, sizes
}

// TestScanStreamMatchesScan reads random tables (each codec, small chunks
// and row-index blocks) with ScanStream, which reads the partition stream
// alone, and checks every partition against what was written and against
// the index-driven scan: key, token, deletion, static row, range
// tombstones, rows read forward to the end, partly, in reverse, through
// slices or not at all, the partition's size once its end is known, and its
// key and deletion still after its rows are read.
func TestScanStreamMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, codec := range []Codec{CodecNone, CodecS2, CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			parts := streamPartitions(rng, 80, 200)
			r, tokens, sizes := openStreamTable(t, rng, codec, parts)

			it := r.ScanStream(func(key []byte) int64 { return tokens[string(key)] })
			i := 0
			for ; ; i++ {
				src, ok := it.Next()
				if !ok {
					break
				}
				require.Less(t, i, len(parts))
				p := &parts[i]
				require.Equal(t, p.key, src.Key())
				require.Equal(t, p.token, src.Token())
				require.Equal(t, p.del, src.Deletion())
				if p.static == nil {
					require.Nil(t, src.Static())
				} else {
					require.Equal(t, normRow(*p.static), normRow(*src.Static()))
				}
				require.Equal(t, len(p.rts), len(src.RangeTombstones(nil)))
				switch mode := rng.Intn(5); mode {
				case 0: // the rows are never asked for
				case 1: // a few rows forward
					rows := src.Rows(nil, false)
					want := normRows(p.rows)
					for k := 0; k < len(want) && k < 3; k++ {
						row, ok := rows.Next()
						require.True(t, ok)
						require.Equal(t, want[k], normRow(cloneRow(row)))
					}
					require.NoError(t, rows.Err())
					if rng.Intn(2) == 0 {
						require.NoError(t, rows.Close())
					}
				case 2: // reverse, all of them
					got := collectRows(t, src.Rows(nil, true))
					require.Equal(t, normRows(expectRows(p.rows, nil, true)), normRows(got))
					require.Equal(t, sizes[i], src.(*Partition).Size())
				case 3: // through slices
					ss := randomSlices(rng, len(p.rows)*3)
					got := collectRows(t, src.Rows(ss, false))
					require.Equal(t, normRows(expectRows(p.rows, ss, false)), normRows(got), "slices %q", ss)
				default: // forward to the end, as a compaction reads
					got := collectRows(t, src.Rows(nil, false))
					require.Equal(t, normRows(p.rows), normRows(got))
					require.Equal(t, sizes[i], src.(*Partition).Size())
				}
				// The key (decoded in place from a chunk, then copied)
				// outlives the chunk reads of the rows.
				require.Equal(t, p.key, src.Key())
				require.Equal(t, p.del, src.Deletion())
			}
			require.NoError(t, it.Err())
			require.NoError(t, it.Close())
			require.Equal(t, len(parts), i)
		})
	}
}

// TestScanStreamChecksOrder: a streaming scan refuses partitions that do
// not come in increasing (token, key) order, which is what it finds when
// its tokens are not those the table was written with.
func TestScanStreamChecksOrder(t *testing.T) {
	fs := vfs.NewMem()
	var parts []testPartition
	for i := 0; i < 20; i++ {
		// Tokens increase while keys decrease.
		parts = append(parts, testPartition{token: int64(i), key: []byte("k" + strconv.Itoa(900-i)), del: data.LiveDeletion,
			rows: []data.Row{randomRow(rand.New(rand.NewSource(int64(i))), ckOf(1))}})
	}
	writeTable(t, fs, "", 1, WriterOptions{}, parts)
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer r.Close()
	it := r.ScanStream(func([]byte) int64 { return 0 })
	n := 0
	for {
		if _, ok := it.Next(); !ok {
			break
		}
		n++
	}
	require.ErrorIs(t, it.Err(), ErrCorruption)
	require.Contains(t, it.Err().Error(), "does not follow")
	require.Equal(t, 1, n)
}
