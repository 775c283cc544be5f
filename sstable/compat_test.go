package sstable

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compatPartitions are the partitions of the format-version-1 SSTable in
// testdata/v1, which the writer of version 1 (main at 1c7aa97, before
// version 2) wrote from this same function: random partitions (row
// indexes, statics, range tombstones, partition, row and cell deletions,
// expiring cells) and one partition with what randomRow never makes
// (collection cells with paths, an empty path and an empty value, column
// deletions, a counter, an expiring and an expired liveness record).
func compatPartitions() []testPartition {
	parts := randomPartitions(rand.New(rand.NewSource(19)), 40, 30)
	odd := testPartition{token: 1 << 30, key: []byte("odd"), del: data.LiveDeletion}
	r := data.NewRow(ckOf(1))
	r.Liveness = data.LivenessInfo{Timestamp: 1_700_000_000_000_000, TTL: 600, ExpiresAt: 1_700_000_600}
	r.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: data.DeletionTime{MarkedForDeleteAt: 1_699_999_999_999_999, LocalDeletionTime: 1_700_000_000}}}
	r.Cells = []data.Cell{
		{Column: "m", Path: []byte{}, Timestamp: 1_700_000_000_000_000, LocalDeletionTime: data.NoDeletionTime, Value: []byte("empty path")},
		{Column: "m", Path: []byte("k1"), Timestamp: 1_700_000_000_000_000, TTL: 600, LocalDeletionTime: 1_700_000_600, Value: []byte{}},
		{Column: "m", Path: []byte("k2"), Kind: data.CellTombstone, Timestamp: 1_700_000_000_000_001, LocalDeletionTime: 1_700_000_001},
		{Column: "n", Kind: data.CellCounter, Timestamp: math.MaxInt64 - 1, LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(-7)},
	}
	e := data.NewRow(ckOf(2))
	e.Liveness = data.ExpiredLiveness(1_700_000_000_000_002, 1_700_000_002)
	e.Deletion = data.DeletionTime{MarkedForDeleteAt: math.MinInt64 + 1, LocalDeletionTime: math.MinInt64}
	odd.rows = []data.Row{r, e}
	return append(parts, odd)
}

// compatOptions are the writer options of the SSTable in testdata/v1.
var compatOptions = WriterOptions{ColumnIndexSize: 300, IndexInterval: 4, Compression: Compression{ChunkLength: 1024}}

// TestWriteCompatFixture writes the fixture of the current format version
// when MINICASS_WRITE_V1 names a directory: it was run on main at 1c7aa97
// to make testdata/v1, and at fa2e8a0 (format version 2) to make
// generation 1 of testdata/v2; generation 2 there is the same partitions
// written by the version-2 writer with ColumnIndexSize 1 MiB and 256-byte
// chunks (compatUnindexedOptions), so that none has a row index and many
// cross chunks.
func TestWriteCompatFixture(t *testing.T) {
	dir := os.Getenv("MINICASS_WRITE_V1")
	if dir == "" {
		t.Skip("MINICASS_WRITE_V1 not set")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	writeTable(t, vfs.Default, dir, 1, compatOptions, compatPartitions())
}

// TestReadsFormatVersion1 opens the SSTable the version-1 writer wrote
// (testdata/v1) and reads every partition and row back, forward and in
// reverse, by scan and by point lookup.
func TestReadsFormatVersion1(t *testing.T) {
	r, err := Open(vfs.Default, filepath.Join("testdata", "v1"), 1, ReaderOptions{VerifyData: true})
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, 1, r.FormatVersion())
	checkContent(t, r, compatPartitions())
}

// compatUnindexedOptions are the writer options of generation 2 of
// testdata/v2.
var compatUnindexedOptions = WriterOptions{ColumnIndexSize: 1 << 20, IndexInterval: 4, Compression: Compression{ChunkLength: 256}}

// TestReadsFormatVersion2 opens the SSTables the version-2 writer wrote
// (testdata/v2: index entries without chunk marks or the plain-header
// flag) and reads every partition and row back, forward and in reverse, by
// scan and by point lookup; the same partitions written now (version 3)
// read the same.
func TestReadsFormatVersion2(t *testing.T) {
	for gen, opts := range map[int]WriterOptions{1: compatOptions, 2: compatUnindexedOptions} {
		r, err := Open(vfs.Default, filepath.Join("testdata", "v2"), gen, ReaderOptions{VerifyData: true})
		require.NoError(t, err)
		assert.Equal(t, 2, r.FormatVersion())
		checkContent(t, r, compatPartitions())
		require.NoError(t, r.Close())

		fs := vfs.NewMem()
		writeTable(t, fs, "", gen, opts, compatPartitions())
		r, err = Open(fs, "", gen, ReaderOptions{VerifyData: true})
		require.NoError(t, err)
		assert.Equal(t, FormatVersion, r.FormatVersion())
		checkContent(t, r, compatPartitions())
		require.NoError(t, r.Close())
	}
}

// checkContent reads everything of r and compares it with parts.
func checkContent(t *testing.T, r *Reader, parts []testPartition) {
	t.Helper()
	it := r.Scan(data.FullRing)
	n := 0
	for {
		src, ok := it.Next()
		if !ok {
			break
		}
		require.Less(t, n, len(parts))
		want := &parts[n]
		n++
		assert.Equal(t, want.token, src.Token())
		assert.Equal(t, want.key, src.Key())
		assert.Equal(t, want.del, src.Deletion())
		if want.static == nil {
			assert.Nil(t, src.Static())
		} else if assert.NotNil(t, src.Static()) {
			ws := normRow(*want.static)
			ws.Clustering = nil
			assert.Equal(t, ws, normRow(*src.Static()))
		}
		assert.Equal(t, len(want.rts), len(src.RangeTombstones(nil)))
		for i, rt := range src.RangeTombstones(nil) {
			assert.Equal(t, want.rts[i], rt)
		}
		for _, reverse := range []bool{false, true} {
			got := collectRows(t, src.Rows(nil, reverse))
			exp := expectRows(want.rows, nil, reverse)
			require.Equal(t, len(exp), len(got), "partition %s", want.key)
			for i := range exp {
				assert.Equal(t, normRow(exp[i]), normRow(got[i]), "partition %s row %d", want.key, i)
			}
		}
		p, found, err := r.Get(want.token, want.key)
		require.NoError(t, err)
		require.True(t, found)
		got := collectRows(t, p.Rows(nil, false))
		assert.Equal(t, len(want.rows), len(got))
	}
	require.NoError(t, it.Err())
	require.NoError(t, it.Close())
	assert.Equal(t, len(parts), n)
}

// TestUnsupportedVersion: a table whose components all carry a version
// this build does not read (a newer build's) is refused with
// ErrUnsupportedVersion naming the file, not reported as corruption; a
// table whose components disagree on the version is corrupt.
func TestUnsupportedVersion(t *testing.T) {
	fs := vfs.NewMem()
	writeTable(t, fs, "", 1, compatOptions, compatPartitions())
	original := map[Component][]byte{}
	for _, c := range Components {
		original[c] = readFile(t, fs, FileName(1, c))
	}
	// withVersion returns component c's bytes with version v in the
	// header (and, for a small component, its trailer recomputed).
	withVersion := func(c Component, v uint16) []byte {
		b := append([]byte(nil), original[c]...)
		binary.LittleEndian.PutUint16(b[4:], v)
		if c != ComponentData && c != ComponentIndex {
			n := len(b) - trailerSize
			binary.LittleEndian.PutUint32(b[n:], crc32c(b[:n]))
		}
		return b
	}
	binaries := []Component{ComponentData, ComponentIndex, ComponentSummary, ComponentFilter, ComponentStatistics, ComponentCompressionInfo}
	for _, c := range binaries {
		writeFile(t, fs, FileName(1, c), withVersion(c, FormatVersion+1))
	}
	_, err := Open(fs, "", 1, ReaderOptions{})
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	assert.NotErrorIs(t, err, ErrCorruption)
	assert.Contains(t, err.Error(), "format version 4; this build reads versions 1 to 3")

	for _, odd := range binaries {
		for _, c := range binaries {
			b := original[c]
			if c == odd {
				b = withVersion(c, 1)
			}
			writeFile(t, fs, FileName(1, c), b)
		}
		_, err := Open(fs, "", 1, ReaderOptions{})
		require.ErrorIs(t, err, ErrCorruption, "%s of version 1 among version 3", odd)
		var ce *CorruptionError
		require.ErrorAs(t, err, &ce)
		// The first component read (Summary.db) sets the version the
		// others are compared with: the error names both files.
		assert.Contains(t, err.Error(), FileName(1, odd))
	}
}
