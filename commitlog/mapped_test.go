package commitlog

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/vfs"
)

// mappable reports whether this platform maps segments of the operating
// system's files (Linux), skipping the test otherwise.
func mappable(t *testing.T) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "probe")
	require.NoError(t, err)
	defer f.Close()
	m, ok, err := vfs.MapFile(f, 4096)
	require.NoError(t, err)
	if !ok {
		t.Skip("segments are not mapped on this platform or filesystem")
	}
	require.NoError(t, m.Close(0))
}

// TestMappedSegments appends across several segments of the operating
// system's filesystem in each sync mode: the active segment is preallocated
// to the segment size, closed segments are cut to the bytes written, and
// every record replays in order after a reopen.
func TestMappedSegments(t *testing.T) {
	mappable(t)
	for _, mode := range []SyncMode{SyncNone, SyncPeriodic, SyncBatch} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			dir := t.TempDir()
			const segSize = 16 << 10
			l, err := Open(vfs.Default, dir, Options{SyncMode: mode, SegmentSize: segSize})
			require.NoError(t, err)
			var want []string
			for i := range 1000 {
				p := fmt.Sprintf("record %03d %s", i, bytes.Repeat([]byte{'x'}, i%97))
				_, err := l.Append([]byte(p))
				require.NoError(t, err)
				want = append(want, p)
			}
			segs := l.Segments()
			require.Greater(t, len(segs), 3, "several segments")
			for _, s := range segs {
				st, err := os.Stat(filepath.Join(dir, s.Name))
				require.NoError(t, err)
				if s.Active {
					assert.Equal(t, int64(segSize), st.Size(), "the active segment is preallocated")
				} else {
					assert.Equal(t, s.Size, st.Size(), "a closed segment is cut to what was written")
				}
			}
			require.NoError(t, l.Close())
			last := segs[len(segs)-1]
			st, err := os.Stat(filepath.Join(dir, last.Name))
			require.NoError(t, err)
			assert.Less(t, st.Size(), int64(segSize), "Close cuts the last segment")

			got, err := replayAllNoT(vfs.Default, dir)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i], string(got[i]))
			}
		})
	}
}

// TestMappedSegmentSurvivesAKilledProcess leaves a mapped segment as a
// killed process leaves it (appended, never closed, never synced, its file
// still at the preallocated size): a new Open finds every record, cuts the
// zero tail with an informational record, and logs no torn tail.
func TestMappedSegmentSurvivesAKilledProcess(t *testing.T) {
	mappable(t)
	dir := t.TempDir()
	l, err := Open(vfs.Default, dir, Options{SyncMode: SyncNone, SegmentSize: 1 << 20})
	require.NoError(t, err)
	for i := range 100 {
		_, err := l.Append([]byte(fmt.Sprintf("acknowledged %d", i)))
		require.NoError(t, err)
	}
	// No Close: the bytes are only in the shared mapping (the page cache).
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	l2, err := Open(vfs.Default, dir, Options{SyncMode: SyncNone, Logger: logger})
	require.NoError(t, err)
	var got []string
	require.NoError(t, l2.Replay(func(_ Position, p []byte) error { got = append(got, string(p)); return nil }))
	require.Len(t, got, 100)
	assert.Equal(t, "acknowledged 99", got[99])
	assert.Contains(t, logs.String(), "cutting the unused preallocated space")
	assert.NotContains(t, logs.String(), "torn")
	require.NoError(t, l2.Close())
	require.NoError(t, l.Close())
}

// TestPreallocatedTailIsNotLogged checks replay and Dump on a last segment
// ending in zero bytes (a mapped segment never cut): the records are read,
// nothing is logged as skipped, and Dump names the space.
func TestPreallocatedTailIsNotLogged(t *testing.T) {
	files, want := buildLog(t)
	mem := vfs.NewMem()
	require.NoError(t, mem.MkdirAll("cl", 0o755))
	for n, data := range files {
		if n == "CommitLog-3.log" {
			data = append(bytes.Clone(data), make([]byte, 64<<10)...)
		}
		writeRaw(t, mem, "cl/"+n, data)
	}
	var logs bytes.Buffer
	got := 0
	err := ReplayWith(mem, "cl", ReplayOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		func(Position, []byte) error { got++; return nil })
	require.NoError(t, err)
	assert.Equal(t, len(want), got)
	assert.Empty(t, logs.String())
	var dump bytes.Buffer
	require.NoError(t, Dump(&dump, mem, "cl"))
	assert.Contains(t, dump.String(), "preallocated space, 65536 zero bytes")
}
