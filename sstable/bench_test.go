package sstable

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/require"
)

// benchRow returns a realistic row: an int-like clustering, a timestamped
// liveness and three cells with short text-ish values.
func benchRow(rng *rand.Rand, i int) data.Row {
	r := data.NewRow(ckOf(i))
	r.Liveness = data.LivenessInfo{Timestamp: 1_700_000_000_000_000 + int64(i), ExpiresAt: data.NoDeletionTime}
	for c, name := range []string{"name", "note", "value"} {
		v := []byte(fmt.Sprintf("%s-%d-%d", name, i%1000, rng.Intn(100)))
		if c == 2 {
			v = make([]byte, 8)
			rng.Read(v[4:])
		}
		r.Cells = append(r.Cells, data.Cell{Column: name, Timestamp: r.Liveness.Timestamp, LocalDeletionTime: data.NoDeletionTime, Value: v})
	}
	return r
}

func rowBytes(rows []data.Row) int {
	n := 0
	for i := range rows {
		n += len(data.AppendRow(nil, &rows[i]))
	}
	return n
}

// BenchmarkWrite measures flush throughput in MB/s of uncompressed row data
// (data.AppendRow size) and rows/s, for narrow (1 row per partition) and
// wide (10,000 rows per partition) data with each codec.
func BenchmarkWrite(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	const total = 20000
	rows := make([]data.Row, total)
	for i := range rows {
		rows[i] = benchRow(rng, i)
	}
	size := rowBytes(rows)
	keys := make([][]byte, total)
	for i := range keys {
		keys[i] = []byte(fmt.Sprint(i))
	}
	for _, shape := range []struct {
		name    string
		perPart int
	}{{"narrow", 1}, {"wide", 10000}} {
		for _, codec := range []Codec{CodecNone, CodecS2, CodecSnappy, CodecZstd} {
			b.Run(shape.name+"/"+codec.String(), func(b *testing.B) {
				b.SetBytes(int64(size))
				var m *Meta
				for n := 0; n < b.N; n++ {
					// No require in the loop: its t.Helper() walks the
					// stack on every call and would dominate narrow
					// partitions.
					var err error
					m, err = writeBenchTable(codec, keys, rows, shape.perPart)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(total*b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(m.Stats.CompressedSize)/float64(m.Stats.DataSize), "ratio")
			})
		}
	}
}

func writeBenchTable(codec Codec, keys [][]byte, rows []data.Row, perPart int) (*Meta, error) {
	w, err := NewWriter(vfs.NewMem(), "", 1, WriterOptions{Compression: Compression{Codec: codec}})
	if err != nil {
		return nil, err
	}
	for p := 0; p < len(rows)/perPart; p++ {
		if err := w.BeginPartition(int64(p), keys[p], data.LiveDeletion, nil, nil); err != nil {
			return nil, err
		}
		for j := 0; j < perPart; j++ {
			if err := w.AddRow(&rows[p*perPart+j]); err != nil {
				return nil, err
			}
		}
		if err := w.EndPartition(); err != nil {
			return nil, err
		}
	}
	return w.Finish()
}

// BenchmarkPointRead measures Get plus reading the row of a narrow
// partition from a table of 20,000 partitions, chosen at random (mostly
// key and chunk cache misses); hot reads 64 partitions in turn (hits).
func BenchmarkPointRead(b *testing.B) {
	b.Run("random", func(b *testing.B) { benchPointRead(b, 20000) })
	b.Run("hot", func(b *testing.B) { benchPointRead(b, 64) })
}

func benchPointRead(b *testing.B, hot int) {
	rng := rand.New(rand.NewSource(1))
	fs := vfs.NewMem()
	w, err := NewWriter(fs, "", 1, WriterOptions{})
	require.NoError(b, err)
	const n = 20000
	for p := 0; p < n; p++ {
		row := benchRow(rng, p)
		require.NoError(b, w.BeginPartition(int64(p), []byte(fmt.Sprint(p)), data.LiveDeletion, nil, nil))
		require.NoError(b, w.AddRow(&row))
		require.NoError(b, w.EndPartition())
	}
	_, err = w.Finish()
	require.NoError(b, err)
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(b, err)
	defer r.Close()
	keys := make([][]byte, n)
	for p := range keys {
		keys[p] = []byte(fmt.Sprint(p))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := rng.Intn(hot) * (n / hot)
		src, found, err := r.Get(int64(p), keys[p])
		if err != nil || !found {
			b.Fatal(err, found)
		}
		it := src.Rows(nil, false)
		if _, ok := it.Next(); !ok {
			b.Fatal(it.Err())
		}
		it.Close()
	}
}

// BenchmarkLatest10 reads the first 10 rows (forward) or the last 10
// (reverse) of one wide partition of 1k, 100k or 1M rows, warm (the
// in-memory FS): the cost should not grow with the partition size.
func BenchmarkLatest10(b *testing.B) {
	for _, n := range []int{1000, 100_000, 1_000_000} {
		if testing.Short() && n > 100_000 {
			continue
		}
		rng := rand.New(rand.NewSource(1))
		fs := vfs.NewMem()
		w, err := NewWriter(fs, "", 1, WriterOptions{})
		require.NoError(b, err)
		require.NoError(b, w.BeginPartition(1, []byte("wide"), data.LiveDeletion, nil, nil))
		for i := 0; i < n; i++ {
			row := benchRow(rng, i)
			require.NoError(b, w.AddRow(&row))
		}
		require.NoError(b, w.EndPartition())
		_, err = w.Finish()
		require.NoError(b, err)
		r, err := Open(fs, "", 1, ReaderOptions{})
		require.NoError(b, err)
		for _, reverse := range []bool{false, true} {
			name := fmt.Sprintf("rows=%d/forward", n)
			if reverse {
				name = fmt.Sprintf("rows=%d/reverse", n)
			}
			b.Run(name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					src, found, err := r.Get(1, []byte("wide"))
					if err != nil || !found {
						b.Fatal(err)
					}
					it := src.Rows(nil, reverse)
					for k := 0; k < 10; k++ {
						if _, ok := it.Next(); !ok {
							b.Fatal(it.Err())
						}
					}
					it.Close()
				}
			})
		}
		r.Close()
	}
}

// BenchmarkScanNarrow reads every partition and row of a table of 100,000
// narrow partitions (8-byte keys, murmur3 tokens, one row with a 20-byte
// value, s2), as a compaction reads an input: through the index
// (ScanReuse) and from the partition stream alone (ScanStream), in the same
// process, so that the two can be compared round by round.
func BenchmarkScanNarrow(b *testing.B) {
	const n = 100_000
	fs := vfs.NewMem()
	w, err := NewWriter(fs, "", 1, WriterOptions{Compression: Compression{Codec: CodecS2}})
	require.NoError(b, err)
	tokenOf := func(key []byte) int64 { return int64(partitioner.Murmur3(key)) }
	keys := make([][]byte, n)
	for p := range keys {
		keys[p] = []byte(fmt.Sprintf("w%07d", p))
	}
	sort.Slice(keys, func(i, j int) bool {
		return data.ComparePartitions(tokenOf(keys[i]), keys[i], tokenOf(keys[j]), keys[j]) < 0
	})
	for p, key := range keys {
		r := data.NewRow(ckOf(0))
		r.Liveness = data.LivenessInfo{Timestamp: 1_700_000_000_000_000 + int64(p), ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: r.Liveness.Timestamp, LocalDeletionTime: data.NoDeletionTime, Value: []byte("0123456789abcdefghij")}}
		require.NoError(b, w.BeginPartition(tokenOf(key), key, data.LiveDeletion, nil, nil))
		require.NoError(b, w.AddRow(&r))
		require.NoError(b, w.EndPartition())
	}
	_, err = w.Finish()
	require.NoError(b, err)
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(b, err)
	defer r.Close()
	for _, mode := range []string{"index", "stream"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				var it data.PartitionIterator
				if mode == "index" {
					it = r.ScanReuse(data.FullRing)
				} else {
					it = r.ScanStream(tokenOf)
				}
				parts, rows := 0, 0
				for {
					p, ok := it.Next()
					if !ok {
						break
					}
					parts++
					ri := p.Rows(nil, false)
					for {
						if _, ok := ri.Next(); !ok {
							break
						}
						rows++
					}
					if err := ri.Close(); err != nil {
						b.Fatal(err)
					}
				}
				if it.Err() != nil || parts != n || rows != n {
					b.Fatalf("%d partitions, %d rows: %v", parts, rows, it.Err())
				}
				_ = it.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/partition")
		})
	}
}
