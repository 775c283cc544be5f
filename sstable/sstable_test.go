package sstable

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testPartition is a partition as the tests write it.
type testPartition struct {
	token  int64
	key    []byte
	del    data.DeletionTime
	static *data.Row
	rts    []data.RangeTombstone
	rows   []data.Row
}

func writeTable(t testing.TB, fs vfs.FS, dir string, gen int, opts WriterOptions, parts []testPartition) *Meta {
	t.Helper()
	w, err := NewWriter(fs, dir, gen, opts)
	require.NoError(t, err)
	for i := range parts {
		p := &parts[i]
		require.NoError(t, w.BeginPartition(p.token, p.key, p.del, p.static, p.rts))
		for j := range p.rows {
			require.NoError(t, w.AddRow(&p.rows[j]))
		}
		require.NoError(t, w.EndPartition())
	}
	m, err := w.Finish()
	require.NoError(t, err)
	return m
}

// randomRow returns a row with clustering ck and a few random cells.
func randomRow(rng *rand.Rand, ck []byte) data.Row {
	r := data.NewRow(ck)
	if rng.Intn(2) == 0 {
		r.Liveness = data.LivenessInfo{Timestamp: rng.Int63n(1 << 40), ExpiresAt: data.NoDeletionTime}
	}
	if rng.Intn(10) == 0 {
		r.Deletion = data.DeletionTime{MarkedForDeleteAt: rng.Int63n(1 << 40), LocalDeletionTime: 1_700_000_000 + rng.Int63n(1000)}
	}
	ncols := rng.Intn(4)
	for c := 0; c < ncols; c++ {
		cell := data.Cell{Column: "c" + strconv.Itoa(c), Timestamp: rng.Int63n(1 << 40), LocalDeletionTime: data.NoDeletionTime}
		switch rng.Intn(6) {
		case 0:
			cell.Kind = data.CellTombstone
			cell.LocalDeletionTime = 1_700_000_000 + rng.Int63n(1000)
		case 1:
			cell.TTL = int32(1 + rng.Intn(1000))
			cell.LocalDeletionTime = 1_700_000_000 + int64(cell.TTL)
			cell.Value = randBytes(rng, 8)
		default:
			cell.Value = randBytes(rng, rng.Intn(40))
		}
		r.Cells = append(r.Cells, cell)
	}
	return r
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

func ckOf(i int) []byte { return []byte(fmt.Sprintf("ck%08d", i)) }

// randomPartitions returns n partitions in token order, some wide.
func randomPartitions(rng *rand.Rand, n, maxRows int) []testPartition {
	parts := make([]testPartition, n)
	for i := range parts {
		p := &parts[i]
		p.token = rng.Int63n(1<<20) - 1<<19
		p.key = []byte("pk" + strconv.Itoa(i))
		p.del = data.LiveDeletion
		if rng.Intn(8) == 0 {
			p.del = data.DeletionTime{MarkedForDeleteAt: rng.Int63n(1 << 40), LocalDeletionTime: 1_700_000_000}
		}
		if rng.Intn(3) == 0 {
			s := randomRow(rng, nil)
			s.Clustering = []byte{}
			p.static = &s
		}
		if rng.Intn(4) == 0 {
			a, b := rng.Intn(100), rng.Intn(100)
			rt := data.RangeTombstone{Start: ckOf(min(a, b)), End: ckOf(max(a, b) + 1), Deletion: data.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 1_700_000_000}}
			if rng.Intn(3) == 0 {
				rt.Start = nil
			}
			p.rts = append(p.rts, rt)
		}
		nrows := rng.Intn(maxRows + 1)
		step := 1 + rng.Intn(3)
		for j := 0; j < nrows; j++ {
			p.rows = append(p.rows, randomRow(rng, ckOf(j*step)))
		}
	}
	sort.Slice(parts, func(i, j int) bool {
		return data.ComparePartitions(parts[i].token, parts[i].key, parts[j].token, parts[j].key) < 0
	})
	return parts
}

func randomSlices(rng *rand.Rand, maxCK int) data.Slices {
	if rng.Intn(4) == 0 {
		return nil
	}
	var ss data.Slices
	pos := 0
	for n := rng.Intn(3) + 1; n > 0 && pos <= maxCK; n-- {
		a := pos + rng.Intn(maxCK/2+1)
		b := a + rng.Intn(maxCK/2+1) + 1
		s := data.Slice{Start: ckOf(a), End: ckOf(b)}
		if len(ss) == 0 && rng.Intn(4) == 0 {
			s.Start = nil
		}
		ss = append(ss, s)
		pos = b + 1
	}
	if rng.Intn(4) == 0 {
		ss[len(ss)-1].End = nil
	}
	return ss
}

func collectRows(t testing.TB, it data.RowIterator) []data.Row {
	t.Helper()
	var out []data.Row
	for {
		r, ok := it.Next()
		if !ok {
			break
		}
		out = append(out, cloneRow(r))
	}
	require.NoError(t, it.Err())
	require.NoError(t, it.Close())
	return out
}

func cloneRow(r *data.Row) data.Row {
	c := *r
	c.Clustering = append([]byte{}, r.Clustering...)
	c.Cells = append([]data.Cell(nil), r.Cells...)
	for i := range c.Cells {
		if c.Cells[i].Value != nil {
			c.Cells[i].Value = append([]byte{}, c.Cells[i].Value...)
		}
		if c.Cells[i].Path != nil {
			c.Cells[i].Path = append([]byte{}, c.Cells[i].Path...)
		}
	}
	c.ColumnDeletions = append([]data.ColumnDeletion(nil), r.ColumnDeletions...)
	return c
}

func expectRows(rows []data.Row, ss data.Slices, reverse bool) []data.Row {
	var out []data.Row
	for _, r := range rows {
		if ss.Contains(r.Clustering) {
			out = append(out, r)
		}
	}
	if reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// normRow makes nil and empty slices compare equal.
func normRow(r data.Row) data.Row {
	if len(r.Clustering) == 0 {
		r.Clustering = nil
	}
	if len(r.Cells) == 0 {
		r.Cells = nil
	}
	if len(r.ColumnDeletions) == 0 {
		r.ColumnDeletions = nil
	}
	for i := range r.Cells {
		if r.Cells[i].Path != nil && len(r.Cells[i].Path) == 0 {
			r.Cells[i].Path = []byte{}
		}
	}
	return r
}

func normRows(rs []data.Row) []data.Row {
	out := make([]data.Row, len(rs))
	for i, r := range rs {
		out[i] = normRow(r)
	}
	return out
}

func seed(t testing.TB) int64 {
	s := time.Now().UnixNano()
	if v := os.Getenv("SSTABLE_SEED"); v != "" {
		s, _ = strconv.ParseInt(v, 10, 64)
	}
	t.Logf("seed %d (rerun with SSTABLE_SEED=%d)", s, s)
	return s
}

// TestRoundTrip writes random partitions with each codec and small chunk
// and index sizes, then reads every partition back with Get and Scan over
// random slices in both directions and compares with what was written.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, codec := range []Codec{CodecNone, CodecS2, CodecSnappy, CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			fs := vfs.NewMem()
			require.NoError(t, fs.MkdirAll("d", 0o755))
			parts := randomPartitions(rng, 60, 300)
			opts := WriterOptions{Compression: Compression{Codec: codec, ChunkLength: 1 << (9 + rng.Intn(4))}, ColumnIndexSize: 256 + rng.Intn(2048), IndexInterval: 1 + rng.Intn(8)}
			m := writeTable(t, fs, "d", 3, opts, parts)
			require.Equal(t, uint64(len(parts)), m.Stats.Partitions)
			r, err := Open(fs, "d", 3, ReaderOptions{VerifyData: true})
			require.NoError(t, err)
			defer r.Close()
			for i := range parts {
				p := &parts[i]
				require.True(t, r.MayContain(p.key))
				src, found, err := r.Get(p.token, p.key)
				require.NoError(t, err)
				require.True(t, found, "partition %d", i)
				checkPartition(t, rng, src, p)
			}
			// Absent keys.
			for i := 0; i < 20; i++ {
				_, found, err := r.Get(rng.Int63n(1<<20)-1<<19, []byte("absent"+strconv.Itoa(i)))
				require.NoError(t, err)
				require.False(t, found)
			}
			// Scan a random token range.
			a, b := rng.Int63n(1<<20)-1<<19, rng.Int63n(1<<20)-1<<19
			tr := data.TokenRange{Start: min(a, b), End: max(a, b), StartInclusive: rng.Intn(2) == 0}
			it := r.Scan(tr)
			var got []int64
			for {
				src, ok := it.Next()
				if !ok {
					break
				}
				got = append(got, src.Token())
			}
			require.NoError(t, it.Err())
			require.NoError(t, it.Close())
			var want []int64
			for _, p := range parts {
				if tr.Contains(p.token) {
					want = append(want, p.token)
				}
			}
			require.Equal(t, want, got)
		})
	}
}

func checkPartition(t *testing.T, rng *rand.Rand, src data.PartitionSource, p *testPartition) {
	require.Equal(t, p.key, src.Key())
	require.Equal(t, p.token, src.Token())
	require.Equal(t, p.del, src.Deletion())
	if p.static == nil {
		require.Nil(t, src.Static())
	} else {
		require.Equal(t, normRow(*p.static), normRow(*src.Static()))
	}
	require.Equal(t, len(p.rts), len(src.RangeTombstones(nil)))
	for k := 0; k < 3; k++ {
		ss := randomSlices(rng, len(p.rows)*3)
		reverse := rng.Intn(2) == 0
		got := collectRows(t, src.Rows(ss, reverse))
		require.Equal(t, normRows(expectRows(p.rows, ss, reverse)), normRows(got), "slices %q reverse %v", ss, reverse)
	}
}

func TestEmptyTable(t *testing.T) {
	fs := vfs.NewMem()
	m := writeTable(t, fs, "", 1, WriterOptions{}, nil)
	assert.Equal(t, uint64(0), m.Stats.Partitions)
	r, err := Open(fs, "", 1, ReaderOptions{VerifyData: true})
	require.NoError(t, err)
	defer r.Close()
	_, found, err := r.Get(1, []byte("k"))
	require.NoError(t, err)
	assert.False(t, found)
	it := r.Scan(data.FullRing)
	_, ok := it.Next()
	assert.False(t, ok)
	require.NoError(t, it.Err())
}

func TestWriterOrder(t *testing.T) {
	fs := vfs.NewMem()
	w, err := NewWriter(fs, "", 1, WriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.BeginPartition(5, []byte("a"), data.LiveDeletion, nil, nil))
	r1 := data.NewRow([]byte("b"))
	require.NoError(t, w.AddRow(&r1))
	r0 := data.NewRow([]byte("a"))
	require.ErrorIs(t, w.AddRow(&r0), ErrOutOfOrder)
	require.ErrorIs(t, w.EndPartition(), ErrOutOfOrder, "errors are sticky")
	require.NoError(t, w.Abort())
	names, err := fs.List("")
	require.NoError(t, err)
	assert.Empty(t, names, "Abort removes every file")

	w, err = NewWriter(fs, "", 2, WriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.BeginPartition(5, []byte("a"), data.LiveDeletion, nil, nil))
	require.NoError(t, w.EndPartition())
	require.ErrorIs(t, w.BeginPartition(5, []byte("a"), data.LiveDeletion, nil, nil), ErrOutOfOrder)
	require.NoError(t, w.Abort())

	w, err = NewWriter(fs, "", 3, WriterOptions{})
	require.NoError(t, err)
	require.ErrorIs(t, w.AddRow(&r0), ErrWriterState)
	require.NoError(t, w.Abort())

	// AddNarrowPartition checks the partition order against either path,
	// and is refused inside a partition.
	w, err = NewWriter(fs, "", 4, WriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.AddNarrowPartition(5, []byte("b"), &r0))
	require.ErrorIs(t, w.BeginPartition(5, []byte("a"), data.LiveDeletion, nil, nil), ErrOutOfOrder)
	require.NoError(t, w.Abort())
	w, err = NewWriter(fs, "", 5, WriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.BeginPartition(5, []byte("b"), data.LiveDeletion, nil, nil))
	require.NoError(t, w.EndPartition())
	require.ErrorIs(t, w.AddNarrowPartition(5, []byte("b"), &r0), ErrOutOfOrder)
	require.NoError(t, w.Abort())
	w, err = NewWriter(fs, "", 6, WriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.BeginPartition(5, []byte("b"), data.LiveDeletion, nil, nil))
	require.ErrorIs(t, w.AddNarrowPartition(6, []byte("c"), &r0), ErrWriterState)
	require.NoError(t, w.Abort())
}

func TestListAndRemove(t *testing.T) {
	fs := vfs.NewMem()
	require.NoError(t, fs.MkdirAll("d", 0o755))
	parts := randomPartitions(rand.New(rand.NewSource(1)), 5, 3)
	writeTable(t, fs, "d", 7, WriterOptions{}, parts)
	writeTable(t, fs, "d", 2, WriterOptions{}, parts)
	// An unfinished table (no TOC) is not listed.
	w, err := NewWriter(fs, "d", 9, WriterOptions{})
	require.NoError(t, err)
	gens, err := List(fs, "d")
	require.NoError(t, err)
	assert.Equal(t, []int{2, 7}, gens)
	require.NoError(t, w.Abort())
	require.NoError(t, Remove(fs, "d", 7))
	gens, err = List(fs, "d")
	require.NoError(t, err)
	assert.Equal(t, []int{2}, gens)
	names, err := fs.List("d")
	require.NoError(t, err)
	assert.Equal(t, len(Components), len(names))
}

func TestMissingComponent(t *testing.T) {
	for _, c := range Components {
		t.Run(c.String(), func(t *testing.T) {
			fs := vfs.NewMem()
			writeTable(t, fs, "", 1, WriterOptions{}, randomPartitions(rand.New(rand.NewSource(1)), 5, 3))
			require.NoError(t, fs.Remove(FileName(1, c)))
			_, err := Open(fs, "", 1, ReaderOptions{})
			require.ErrorIs(t, err, ErrMissingComponent)
			assert.Contains(t, err.Error(), FileName(1, c))
		})
	}
}

// TestCorruption flips every byte (or a sample of them for big files) of
// each component and checks that opening and reading everything either
// fails with ErrCorruption naming the file, or returns exactly the data
// written (a flip in a byte no reader looks at, which Verify then catches
// for Data.db).
func TestCorruption(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	parts := randomPartitions(rng, 12, 40)
	src := vfs.NewMem()
	writeTable(t, src, "", 1, WriterOptions{ColumnIndexSize: 300, IndexInterval: 4, Compression: Compression{ChunkLength: 1024}}, parts)
	for _, c := range Components {
		orig := readFile(t, src, FileName(1, c))
		step := max(1, len(orig)/150)
		for off := rng.Intn(step); off < len(orig); off += step {
			fs := vfs.NewMem()
			for _, c2 := range Components {
				b := readFile(t, src, FileName(1, c2))
				if c2 == c {
					b = append([]byte(nil), b...)
					b[off] ^= 1 << uint(rng.Intn(8))
				}
				writeFile(t, fs, FileName(1, c2), b)
			}
			err := readAll(fs, parts)
			if c == ComponentDigest || c == ComponentData {
				if err == nil {
					r, oerr := Open(fs, "", 1, ReaderOptions{})
					require.NoError(t, oerr)
					err = r.Verify()
					r.Close()
				}
			}
			if c == ComponentDigest && err == nil {
				continue // a flip in trailing whitespace of the digest
			}
			require.Error(t, err, "flip in %s at %d went unnoticed", c, off)
			require.ErrorIs(t, err, ErrCorruption, "%s at %d: %v", c, off, err)
			var ce *CorruptionError
			require.True(t, errors.As(err, &ce))
			if c != ComponentDigest {
				assert.Equal(t, FileName(1, c), ce.File, "%v", err)
			}
		}
	}
}

// readAll opens the table and reads every partition, returning the first
// error or an error if anything differs from parts.
func readAll(fs vfs.FS, parts []testPartition) error {
	r, err := Open(fs, "", 1, ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	for i := range parts {
		p := &parts[i]
		src, found, err := r.Get(p.token, p.key)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("partition %d not found", i)
		}
		for _, reverse := range []bool{false, true} {
			it := src.Rows(nil, reverse)
			var got []data.Row
			for {
				row, ok := it.Next()
				if !ok {
					break
				}
				got = append(got, normRow(cloneRow(row)))
			}
			if err := it.Err(); err != nil {
				return err
			}
			it.Close()
			want := normRows(expectRows(p.rows, nil, reverse))
			if len(want) != len(got) {
				return fmt.Errorf("served wrong data: %d rows, want %d", len(got), len(want))
			}
			for j := range want {
				if fmt.Sprint(want[j]) != fmt.Sprint(got[j]) {
					return fmt.Errorf("served wrong data in partition %d row %d", i, j)
				}
			}
		}
	}
	it := r.Scan(data.FullRing)
	n := 0
	for {
		if _, ok := it.Next(); !ok {
			break
		}
		n++
	}
	if it.Err() != nil {
		return it.Err()
	}
	if n != len(parts) {
		return fmt.Errorf("scan served %d partitions, want %d", n, len(parts))
	}
	return nil
}

func readFile(t testing.TB, fs vfs.FS, name string) []byte {
	t.Helper()
	f, err := fs.Open(name)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	b := make([]byte, fi.Size())
	_, err = f.ReadAt(b, 0)
	require.NoError(t, err)
	return b
}

func writeFile(t testing.TB, fs vfs.FS, name string, b []byte) {
	t.Helper()
	f, err := fs.Create(name)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func TestStats(t *testing.T) {
	fs := vfs.NewMem()
	static := data.NewRow([]byte{})
	static.Cells = []data.Cell{{Column: "s", Timestamp: 10, LocalDeletionTime: data.NoDeletionTime, Value: []byte("x")}}
	r1 := data.NewRow([]byte("b"))
	r1.Liveness = data.LivenessInfo{Timestamp: 20, TTL: 100, ExpiresAt: 1_000_100}
	r1.Cells = []data.Cell{
		{Column: "v", Timestamp: 20, TTL: 100, LocalDeletionTime: 1_000_100, Value: []byte("y")},
		{Column: "w", Kind: data.CellTombstone, Timestamp: 30, LocalDeletionTime: 1_000_000},
	}
	r2 := data.NewRow([]byte("d"))
	r2.Deletion = data.DeletionTime{MarkedForDeleteAt: 40, LocalDeletionTime: 2_000_000}
	parts := []testPartition{
		{token: -5, key: []byte("p1"), del: data.LiveDeletion, static: &static, rows: []data.Row{r1, r2}},
		{token: 9, key: []byte("p2"), del: data.DeletionTime{MarkedForDeleteAt: 50, LocalDeletionTime: 3_000_000},
			rts: []data.RangeTombstone{{Start: []byte("a"), End: []byte("c"), Deletion: data.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 500}}}},
	}
	m := writeTable(t, fs, "", 1, WriterOptions{CommitLogUpperBound: LogPosition{Segment: 3, Offset: 77}}, parts)
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer r.Close()
	s := r.Stats()
	assert.Equal(t, m.Stats.DataSize, s.DataSize)
	assert.Equal(t, int64(5), s.MinTimestamp)
	assert.Equal(t, int64(50), s.MaxTimestamp)
	assert.Equal(t, int64(500), s.MinLocalDeletionTime)
	assert.Equal(t, data.NoDeletionTime, s.MaxLocalDeletionTime, "live cells count as NO_DELETION_TIME")
	assert.Equal(t, []byte("a"), s.MinClustering)
	assert.Equal(t, []byte("d"), s.MaxClustering)
	assert.True(t, s.ClusteringUnbounded, "a partition deletion makes clustering bounds unusable")
	assert.Equal(t, int64(-5), s.FirstToken)
	assert.Equal(t, int64(9), s.LastToken)
	assert.Equal(t, []byte("p1"), s.FirstKey)
	assert.Equal(t, []byte("p2"), s.LastKey)
	assert.Equal(t, uint64(2), s.Partitions)
	assert.Equal(t, uint64(2), s.Rows)
	assert.Equal(t, uint64(3), s.Cells)
	assert.Equal(t, uint64(1), s.ExpiringCells)
	assert.Equal(t, uint64(1), s.CellTombstones)
	assert.Equal(t, uint64(1), s.RowTombstones)
	assert.Equal(t, uint64(1), s.RangeTombstones)
	assert.Equal(t, uint64(1), s.PartitionTombstones)
	assert.Equal(t, LogPosition{3, 77}, s.CommitLogUpperBound)
	assert.Equal(t, uint64(2), s.PartitionSizes.Total())
	assert.Equal(t, uint64(2), s.CellCounts.Total())
	assert.Equal(t, int64(3), s.CellCounts.Max(), "3 cells in p1, in bucket (2,3]")
	// Drop times: tombstone 1e6, expiring 1_000_100, row del 2e6, partition del 3e6, rt 500.
	assert.InDelta(t, 2.0/6, s.DroppableTombstones(1_000_001), 1e-9)
	assert.InDelta(t, 5.0/6, s.DroppableTombstones(math.MaxInt64), 1e-9)
	assert.Equal(t, data.TokenRange{Start: -5, End: 9, StartInclusive: true}, r.TokenRange())
}

func TestHistogramOffsets(t *testing.T) {
	// The first offsets of Cassandra's EstimatedHistogram.
	h := NewHistogram(PartitionSizeBuckets)
	assert.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17, 20, 24, 29, 35, 42, 50, 60, 72, 86, 103, 124, 149, 179, 215}, h.Offsets[:26])
	assert.Len(t, h.Counts, PartitionSizeBuckets+1)
	for _, v := range []int64{1, 9, 10, 100, 1000} {
		h.Add(v)
	}
	assert.Equal(t, int64(10), h.Percentile(0.5))
	assert.Equal(t, int64(1109), h.Percentile(1))
}

func TestReadStats(t *testing.T) {
	fs := vfs.NewMem()
	rng := rand.New(rand.NewSource(2))
	p := testPartition{token: 1, key: []byte("wide"), del: data.LiveDeletion}
	for i := 0; i < 5000; i++ {
		p.rows = append(p.rows, randomRow(rng, ckOf(i)))
	}
	writeTable(t, fs, "", 1, WriterOptions{ColumnIndexSize: 4096}, []testPartition{p})
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer r.Close()
	part, found, err := r.GetPartition(1, []byte("wide"))
	require.NoError(t, err)
	require.True(t, found)
	require.Greater(t, part.IndexBlocks(), 10)
	// Latest 10 in reverse: one block.
	it := part.Rows(nil, true)
	for i := 0; i < 10; i++ {
		row, ok := it.Next()
		require.True(t, ok)
		require.Equal(t, ckOf(4999-i), row.Clustering)
	}
	require.NoError(t, it.Close())
	st := part.ReadStats()
	// The blocks holding the last ten rows: the last, and the one before
	// when the last holds fewer than ten.
	spanned := uint64(0)
	for i := part.IndexBlocks() - 1; i >= 0; i-- {
		b, err := part.e.block(i)
		require.NoError(t, err)
		spanned++
		if bytes.Compare(b.First, ckOf(4990)) <= 0 {
			break
		}
	}
	assert.Equal(t, spanned, st.Blocks)
	assert.LessOrEqual(t, st.Blocks, uint64(2))
	assert.Equal(t, uint64(1), st.IndexEntries)
	assert.Equal(t, uint64(1), st.FilterChecks)
	assert.LessOrEqual(t, st.Chunks, uint64(4), "header chunk plus the last block's chunks")
	// A slice in the middle touches only the blocks it intersects.
	part2, _, err := r.GetPartition(1, []byte("wide"))
	require.NoError(t, err)
	rows := collectRows(t, part2.Rows(data.Slices{{Start: ckOf(2500), End: ckOf(2510)}}, false))
	require.Len(t, rows, 10)
	assert.LessOrEqual(t, part2.ReadStats().Blocks, uint64(2))
	total := r.ReadStats()
	assert.Equal(t, uint64(2), total.FilterChecks)
	assert.Equal(t, uint64(20), total.Rows)
	// A bloom-filter miss touches nothing else.
	_, found, err = r.Get(1, []byte("nope"))
	require.NoError(t, err)
	assert.False(t, found)
}

func TestCompressionFromOptions(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		want Compression
		err  string
	}{
		{nil, Compression{DefaultCodec, 16384}, ""},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "16"}, Compression{DefaultCodec, 16384}, ""},
		{map[string]string{"class": "org.apache.cassandra.io.compress.SnappyCompressor", "chunk_length_in_kb": "64"}, Compression{CodecSnappy, 65536}, ""},
		{map[string]string{"class": "ZstdCompressor", "compression_level": "3"}, Compression{CodecZstd, 16384}, ""},
		{map[string]string{"enabled": "false"}, Compression{CodecNone, 16384}, ""},
		{map[string]string{"class": "LZ5Compressor"}, Compression{}, "Could not create Compression for type org.apache.cassandra.io.compress.LZ5Compressor"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "3"}, Compression{}, "chunk_length_in_kb must be a power of 2"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "x"}, Compression{}, "Invalid value for chunk_length_in_kb"},
		{map[string]string{"class": ""}, Compression{}, "The 'class' option must not be empty. To disable compression use 'enabled' : false"},
	} {
		got, err := CompressionFromOptions(tc.opts)
		if tc.err != "" {
			require.ErrorIs(t, err, ErrInvalidOptions)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%v", tc.opts)
	}
}

func TestBloomFilterFPRate(t *testing.T) {
	f := newBloomFilter(10000, 0.01)
	for i := 0; i < 10000; i++ {
		f.addHashKey([]byte("key" + strconv.Itoa(i)))
	}
	fp := 0
	for i := 0; i < 10000; i++ {
		if f.mayContain(HashKey([]byte("other" + strconv.Itoa(i)))) {
			fp++
		}
	}
	assert.Less(t, fp, 200, "false positives out of 10000 at fp chance 0.01")
	for i := 0; i < 10000; i++ {
		require.True(t, f.mayContain(HashKey([]byte("key"+strconv.Itoa(i)))))
	}
	assert.True(t, newBloomFilter(10, 1).mayContain(HashKey([]byte("x"))), "fp chance 1 keeps no filter")
	_ = bytes.Compare
}

// TestLayout checks the layout of the worked example of FORMAT.md.
func TestLayout(t *testing.T) {
	fs := vfs.NewMem()
	r := data.NewRow([]byte{0x80, 0, 0, 1})
	r.Liveness = data.LivenessInfo{Timestamp: 5, ExpiresAt: data.NoDeletionTime}
	r.Cells = []data.Cell{{Column: "v", Timestamp: 5, LocalDeletionTime: data.NoDeletionTime, Value: []byte{0, 0, 0, 42}}}
	writeTable(t, fs, "", 1, WriterOptions{Compression: Compression{Codec: CodecNone}}, []testPartition{{token: -3, key: []byte("k"), del: data.LiveDeletion, rows: []data.Row{r}}})
	rd, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer rd.Close()
	var sb bytes.Buffer
	require.NoError(t, Layout(&sb, rd))
	assert.Equal(t, `sstable xa generation 1, format version 3: 1 partitions, stream 19 bytes, Data.db 32 bytes, codec none, chunk 16384
chunk 0: file [8, 32) stream [0, 19)
partition 6b token -3: position 0 length 19 rows at 3 index entry at 8
`, sb.String())
	// The bytes of FORMAT.md's worked example.
	assert.Equal(t, "4d43534403000100"+"00"+"016b"+"00"+"0e"+"0480000001"+"21"+"00"+"18"+"01"+"040000002a"+"00"+"e8342967",
		hex.EncodeToString(readFile(t, fs, FileName(1, ComponentData))))
	assert.Equal(t, "4d43534903000200"+"07"+"016b05"+"001303"+"08"+"b54491f0",
		hex.EncodeToString(readFile(t, fs, FileName(1, ComponentIndex))))
	assert.Equal(t, "4d43534303000600"+"01808001"+"132001"+"0800000000000000"+"2f596c58",
		hex.EncodeToString(readFile(t, fs, FileName(1, ComponentCompressionInfo))))
	stats := readFile(t, fs, FileName(1, ComponentStatistics))
	assert.Equal(t, "0a0000"+"010176", hex.EncodeToString(stats[len(stats)-4-6:len(stats)-4]))
	st := rd.Stats()
	assert.Equal(t, EncodingStats{Timestamp: 5}, st.Encoding)
	assert.Equal(t, []string{"v"}, st.ColumnNames)
}

// syncingFS makes every directory entry durable the moment a file is
// created, as a concurrent writer's SyncDir of the same directory would,
// and keeps a crash image taken at each TOC creation: the state a power
// failure would leave before the new file's contents are synced.
type syncingFS struct {
	*vfs.MemFS
	crashes []*vfs.MemFS
}

func (s *syncingFS) Create(name string) (vfs.File, error) {
	f, err := s.MemFS.Create(name)
	if err == nil {
		if err := s.SyncDir(path.Dir(name)); err != nil {
			return nil, err
		}
		if strings.Contains(name, "TOC") {
			s.crashes = append(s.crashes, s.CrashClone())
		}
	}
	return f, err
}

// TestTOCNeverTorn crashes right after TOC.txt's directory entry became
// durable but before its contents did. The table must then be absent
// (List does not report it), never listed with a torn TOC. TOC.txt written
// in place failed this: found by TestCrash with concurrent flushes.
func TestTOCNeverTorn(t *testing.T) {
	fsys := &syncingFS{MemFS: vfs.NewCrashableMem()}
	require.NoError(t, fsys.MkdirAll("d", 0o755))
	parts := randomPartitions(rand.New(rand.NewSource(1)), 5, 3)
	writeTable(t, fsys, "d", 3, WriterOptions{}, parts)
	require.Len(t, fsys.crashes, 1)
	crashed := fsys.crashes[0]
	gens, err := List(crashed, "d")
	require.NoError(t, err)
	assert.Empty(t, gens, "a table whose TOC is not yet durable must not be listed")
	// The finished table opens, in the live FS and after a crash.
	for _, f := range []vfs.FS{fsys, fsys.CrashClone()} {
		gens, err := List(f, "d")
		require.NoError(t, err)
		require.Equal(t, []int{3}, gens)
		r, err := Open(f, "d", 3, ReaderOptions{})
		require.NoError(t, err)
		require.NoError(t, r.Close())
	}
}

// TestWriterFailuresLeaveNothing fails each create, write, sync, directory
// sync, rename and close a Writer makes, one at a time: the failing call
// (NewWriter or Finish) returns the injected error, and Abort leaves the
// directory empty, the files Finish writes, which NewWriter creates on a
// goroutine (precreate), included. A run that injects nothing finishes a
// table that opens.
func TestWriterFailuresLeaveNothing(t *testing.T) {
	parts := randomPartitions(rand.New(rand.NewSource(1)), 50, 3)
	for _, op := range []vfs.Op{vfs.OpCreate, vfs.OpWrite, vfs.OpSync, vfs.OpSyncDir, vfs.OpRename, vfs.OpClose} {
		for n := 1; ; n++ {
			mem := vfs.NewMem()
			require.NoError(t, mem.MkdirAll("d", 0o755))
			var hit atomic.Bool
			nth := vfs.OnNth(op, n)
			efs := vfs.NewErrorFS(mem, vfs.InjectorFunc(func(o vfs.Op, name string) error {
				err := nth.MaybeError(o, name)
				if err != nil {
					hit.Store(true)
				}
				return err
			}))
			err := func() error {
				w, err := NewWriter(efs, "d", 1, WriterOptions{})
				if err != nil {
					return err
				}
				for i := range parts {
					p := &parts[i]
					if err := w.BeginPartition(p.token, p.key, p.del, p.static, p.rts); err != nil {
						return errors.Join(err, w.Abort())
					}
					for j := range p.rows {
						if err := w.AddRow(&p.rows[j]); err != nil {
							return errors.Join(err, w.Abort())
						}
					}
					if err := w.EndPartition(); err != nil {
						return errors.Join(err, w.Abort())
					}
				}
				if _, err := w.Finish(); err != nil {
					return errors.Join(err, w.Abort())
				}
				return nil
			}()
			if !hit.Load() {
				require.NoError(t, err, "%s #%d", op, n)
				r, err := Open(mem, "d", 1, ReaderOptions{})
				require.NoError(t, err)
				require.NoError(t, r.Close())
				require.Greater(t, n, 1, "no %s at all", op)
				break
			}
			require.ErrorIs(t, err, vfs.ErrInjected, "%s #%d", op, n)
			names, lerr := mem.List("d")
			require.NoError(t, lerr)
			assert.Empty(t, names, "after a failed %s #%d and Abort", op, n)
		}
	}
}

// TestHistogramAddNear checks that addNear counts every value in the
// bucket Add chooses, whatever bucket it is told to try first.
func TestHistogramAddNear(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	want, got := NewHistogram(CellCountBuckets), NewHistogram(CellCountBuckets)
	last := 0
	for range 10000 {
		var v int64
		switch rng.Intn(4) {
		case 0:
			v = rng.Int63()
		case 1:
			v = int64(rng.Intn(3)) - 1
		default:
			v = int64(rng.Intn(5000))
		}
		if rng.Intn(50) == 0 {
			last = rng.Intn(len(got.Counts)+4) - 2
		}
		want.Add(v)
		got.addNear(v, &last)
	}
	require.Equal(t, want.Counts, got.Counts)
}
