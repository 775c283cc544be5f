package commitlog

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/vfs"
)

// batchLog appends payloads to a batch-synced log in a crashable MemFS and
// returns the durable state after a crash (no Close: the log is abandoned
// as at a power loss), with the last segment's bytes.
func batchLog(t *testing.T, payloads ...string) (*vfs.MemFS, []byte) {
	t.Helper()
	mem := vfs.NewCrashableMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	for _, p := range payloads {
		_, err := l.Append([]byte(p))
		require.NoError(t, err)
	}
	crashed := mem.CrashClone()
	data, err := readAll(crashed, "cl/CommitLog-1.log")
	require.NoError(t, err)
	return crashed, data
}

// TestBadByteInLastAcknowledgedRecord flips each byte of the last record
// acknowledged under SyncBatch: replay must never return fewer records
// without an error (the acknowledged record silently dropped, as before
// sync markers), and Open must refuse the log, naming the file and offset.
func TestBadByteInLastAcknowledgedRecord(t *testing.T) {
	mem, data := batchLog(t, "insert", "delete-acknowledged")
	lastStart := headerSize + recordHeaderSize + len("insert") + syncMarkerSize
	lastEnd := lastStart + recordHeaderSize + len("delete-acknowledged")
	for off := lastStart; off < lastEnd; off++ {
		bad := bytes.Clone(data)
		bad[off] ^= 0x40
		writeRaw(t, mem, "cl/CommitLog-1.log", bad)
		got, err := replayAllNoT(mem, "cl")
		var ce *CorruptionError
		require.ErrorAs(t, err, &ce, "byte %d: the acknowledged record was dropped silently (%d records)", off, len(got))
		assert.Equal(t, "cl/CommitLog-1.log", ce.File)
		assert.Equal(t, int64(lastStart), ce.Offset)
		assert.Contains(t, ce.Reason, "followed by a sync marker")
		_, err = Open(mem, "cl", Options{})
		require.ErrorIs(t, err, ErrCorruption, "byte %d", off)
	}
}

// TestReplaySkipsAreLogged checks that a torn tail cut by Open is logged
// with the file, offset and size, and that IgnoreReplayErrors skips
// corruption in an earlier record (logging it) and replays the records
// after it, as Cassandra's cassandra.commitlog.ignorereplayerrors does.
func TestReplaySkipsAreLogged(t *testing.T) {
	mem, data := batchLog(t, "one", "two", "three")
	// A torn write after the last sync: a record header and half a payload.
	torn := append(bytes.Clone(data), 10, 0, 0, 0, 1, 2, 3, 4, 'x', 'y')
	writeRaw(t, mem, "cl/CommitLog-1.log", torn)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	l, err := Open(mem, "cl", Options{Logger: logger})
	require.NoError(t, err)
	var got []string
	require.NoError(t, l.Replay(func(_ Position, p []byte) error { got = append(got, string(p)); return nil }))
	require.NoError(t, l.Close())
	assert.Equal(t, []string{"one", "two", "three"}, got)
	assert.Contains(t, logs.String(), "torn tail")
	assert.Contains(t, logs.String(), "file=cl/CommitLog-1.log")
	assert.Contains(t, logs.String(), "offset="+strconv.Itoa(len(data)))
	assert.Contains(t, logs.String(), "size=10")

	// Corruption in the first record: refused without the option...
	mem, data = batchLog(t, "one", "two", "three")
	bad := bytes.Clone(data)
	bad[headerSize+recordHeaderSize] ^= 0xff
	writeRaw(t, mem, "cl/CommitLog-1.log", bad)
	_, err = Open(mem, "cl", Options{})
	require.ErrorIs(t, err, ErrCorruption)
	// ...skipped and logged with it, the later records replayed.
	logs.Reset()
	l, err = Open(mem, "cl", Options{Logger: logger, IgnoreReplayErrors: true})
	require.NoError(t, err)
	got = nil
	require.NoError(t, l.Replay(func(_ Position, p []byte) error { got = append(got, string(p)); return nil }))
	assert.Equal(t, []string{"two", "three"}, got)
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "Ignoring commit log replay error")
	assert.Contains(t, logs.String(), "offset=20")
	assert.Contains(t, logs.String(), "size=11") // the record's 8 + 3 bytes
	require.NoError(t, l.Close())

	// A damaged header skips its whole segment under the option.
	mem, data = batchLog(t, "one")
	bad = bytes.Clone(data)
	bad[0] = 'X'
	writeRaw(t, mem, "cl/CommitLog-1.log", bad)
	_, err = replayWithCount(mem, ReplayOptions{})
	require.ErrorIs(t, err, ErrCorruption)
	logs.Reset()
	n, err := replayWithCount(mem, ReplayOptions{Logger: logger, IgnoreReplayErrors: true})
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Contains(t, logs.String(), "bad magic")
}

// TestVersion1SegmentsStillRead writes a format 1 segment by hand (no sync
// markers) and replays it with version 1's rule: a bad last record with
// nothing valid after it is a torn tail.
func TestVersion1SegmentsStillRead(t *testing.T) {
	var seg []byte
	seg = append(seg, segmentMagic...)
	seg = binary.LittleEndian.AppendUint32(seg, formatVersion1)
	seg = binary.LittleEndian.AppendUint64(seg, 1)
	seg = binary.LittleEndian.AppendUint32(seg, crc32.Checksum(seg, castagnoli))
	seg = appendRecord(seg, []byte("old"))
	seg = appendRecord(seg, []byte("format"))
	mem := vfs.NewMem()
	require.NoError(t, mem.MkdirAll("cl", 0o755))
	writeRaw(t, mem, "cl/CommitLog-1.log", seg)
	got, err := replayAllNoT(mem, "cl")
	require.NoError(t, err)
	require.Len(t, got, 2)
	seg[len(seg)-1] ^= 1
	writeRaw(t, mem, "cl/CommitLog-1.log", seg)
	got, err = replayAllNoT(mem, "cl")
	require.NoError(t, err)
	require.Len(t, got, 1)
}

func replayWithCount(fsys vfs.FS, opts ReplayOptions) (int, error) {
	n := 0
	err := ReplayWith(fsys, "cl", opts, func(Position, []byte) error { n++; return nil })
	return n, err
}
