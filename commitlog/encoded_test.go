package commitlog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/vfs"
)

// encodedLogs are the two kinds of segment AppendEncoded writes: mapped (the
// operating system's files, where the payload is encoded into the mapping)
// and written (an in-memory filesystem, through the log's scratch buffer).
func encodedLogs(t *testing.T) map[string]func() (vfs.FS, string) {
	out := map[string]func() (vfs.FS, string){
		"written": func() (vfs.FS, string) { return vfs.NewMem(), "cl" },
	}
	if canMap(t) {
		out["mapped"] = func() (vfs.FS, string) { return vfs.Default, t.TempDir() }
	}
	return out
}

// canMap reports whether this platform maps segments of the operating
// system's files (mappable, without skipping).
func canMap(t *testing.T) bool {
	f, err := os.CreateTemp(t.TempDir(), "probe")
	require.NoError(t, err)
	defer f.Close()
	m, ok, err := vfs.MapFile(f, 4096)
	require.NoError(t, err)
	if ok {
		require.NoError(t, m.Close(0))
	}
	return ok
}

// TestAppendEncoded appends records through AppendEncoded, mixed with
// Append, across several segments, and encoders that break their contract
// (too short, too long, a slice of their own): each bad one is refused with
// ErrEncodedSize and leaves no record.
// Every good record replays in order with its payload.
func TestAppendEncoded(t *testing.T) {
	for name, mk := range encodedLogs(t) {
		t.Run(name, func(t *testing.T) {
			fsys, dir := mk()
			l, err := Open(fsys, dir, Options{SyncMode: SyncNone, SegmentSize: 4 << 10})
			require.NoError(t, err)
			var want []string
			for i := range 600 {
				p := fmt.Sprintf("record %03d %s", i, bytes.Repeat([]byte{'y'}, i%53))
				var pos Position
				if i%3 == 0 {
					pos, err = l.Append([]byte(p))
				} else {
					pos, err = l.AppendEncoded(len(p), func(dst []byte) []byte { return append(dst, p...) })
				}
				require.NoError(t, err)
				want = append(want, p)
				if i%50 != 7 {
					continue
				}
				for _, bad := range []func([]byte) []byte{
					func(dst []byte) []byte { return append(dst, p[:len(p)-1]...) },
					func(dst []byte) []byte { return append(dst, p+"!"...) },
					func([]byte) []byte { return []byte(p) },
				} {
					tail := l.Tail()
					_, err := l.AppendEncoded(len(p), bad)
					require.ErrorIs(t, err, ErrEncodedSize)
					// A refused record writes nothing, though the segment may
					// have rotated first for want of room.
					if after := l.Tail(); after != tail {
						assert.Equal(t, Position{Segment: tail.Segment + 1, Offset: headerSize}, after)
					}
				}
				assert.True(t, pos.Segment < l.Tail().Segment || pos.Offset < l.Tail().Offset)
			}
			_, err = l.AppendEncoded(-1, func(dst []byte) []byte { return dst })
			require.ErrorIs(t, err, ErrEncodedSize)
			_, err = l.AppendEncoded(l.opts.MaxRecordSize+1, func(dst []byte) []byte { return dst })
			require.ErrorIs(t, err, ErrRecordTooLarge)
			require.Greater(t, len(l.Segments()), 3, "several segments")
			require.NoError(t, l.Close())
			got, err := replayAllNoT(fsys, dir)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i], string(got[i]))
			}
		})
	}
}

// TestRefusedEncodingLeavesNoBytes kills a mapped log (no Close) right
// after an encoder wrote part of a record into the mapping and was refused:
// the bytes it wrote were cleared, so the reopened log finds every record,
// cuts only zero bytes, and logs no torn tail.
func TestRefusedEncodingLeavesNoBytes(t *testing.T) {
	mappable(t)
	dir := t.TempDir()
	l, err := Open(vfs.Default, dir, Options{SyncMode: SyncNone, SegmentSize: 1 << 20})
	require.NoError(t, err)
	for i := range 10 {
		p := fmt.Sprintf("acknowledged %d", i)
		_, err := l.AppendEncoded(len(p), func(dst []byte) []byte { return append(dst, p...) })
		require.NoError(t, err)
	}
	_, err = l.AppendEncoded(100, func(dst []byte) []byte { return append(dst, bytes.Repeat([]byte{0xab}, 99)...) })
	require.ErrorIs(t, err, ErrEncodedSize)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	l2, err := Open(vfs.Default, dir, Options{SyncMode: SyncNone, Logger: logger})
	require.NoError(t, err)
	var got []string
	require.NoError(t, l2.Replay(func(_ Position, p []byte) error { got = append(got, string(p)); return nil }))
	require.Len(t, got, 10)
	assert.Equal(t, "acknowledged 9", got[9])
	assert.Contains(t, logs.String(), "cutting the unused preallocated space")
	assert.NotContains(t, logs.String(), "torn")
	require.NoError(t, l2.Close())
	require.NoError(t, l.Close())
}

// TestAppendEncodedDoesNotAllocate checks that encoding into a mapped
// segment allocates nothing.
func TestAppendEncodedDoesNotAllocate(t *testing.T) {
	mappable(t)
	l, err := Open(vfs.Default, t.TempDir(), Options{SyncMode: SyncNone})
	require.NoError(t, err)
	defer l.Close()
	payload := make([]byte, 100)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := l.AppendEncoded(len(payload), func(dst []byte) []byte { return append(dst, payload...) }); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// TestAppendEncodedPanicAndRotate checks what append's deferred calls do:
// an encoder that panics leaves the log's mutex free (the log appends
// again), and OnRotate runs once per rotation, also for an append that
// rotated and was then refused, after the mutex is released (it may call
// the log).
func TestAppendEncodedPanicAndRotate(t *testing.T) {
	for name, mk := range encodedLogs(t) {
		t.Run(name, func(t *testing.T) {
			fsys, dir := mk()
			var l *Log
			rotations := 0
			l, err := Open(fsys, dir, Options{SyncMode: SyncNone, SegmentSize: 4 << 10, OnRotate: func() {
				rotations++
				_ = l.Tail() // takes the mutex: deadlocks if it were held
			}})
			require.NoError(t, err)
			var want []string
			for i := range 400 {
				p := fmt.Sprintf("record %03d %s", i, bytes.Repeat([]byte{'z'}, i%61))
				switch i % 37 {
				case 5:
					func() {
						defer func() { assert.NotNil(t, recover()) }()
						_, _ = l.AppendEncoded(len(p), func([]byte) []byte { panic("encoder") })
					}()
				case 11:
					_, err := l.AppendEncoded(len(p), func(dst []byte) []byte { return dst })
					require.ErrorIs(t, err, ErrEncodedSize)
				}
				_, err := l.AppendEncoded(len(p), func(dst []byte) []byte { return append(dst, p...) })
				require.NoError(t, err)
				want = append(want, p)
			}
			segs := len(l.Segments())
			require.Greater(t, segs, 3, "several segments")
			require.NoError(t, l.Close())
			assert.GreaterOrEqual(t, rotations, segs-1)
			got, err := replayAllNoT(fsys, dir)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i], string(got[i]))
			}
		})
	}
}

// TestRecordFramingMatchesAppendRecord checks the framing of every record
// the log writes byte for byte against appendRecord, the plain framing
// function: a run of records of one size (where the segment reuses its
// length CRC), sizes that change by one and across the length bytes'
// boundaries (255, 256, 65,535, 65,536), empty records (the first one too, which a zero remembered length would match), and random sizes
// with repeats, through Append and AppendEncoded, across rotations (a new
// segment starts with no remembered length).
func TestRecordFramingMatchesAppendRecord(t *testing.T) {
	sizes := []int{0, 0, 5, 5, 5, 0, 0, 6, 5, 255, 256, 255, 256, 256, 65535, 65536, 65536, 1, 0, 1}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 400 {
		n := rng.IntN(300)
		for range 1 + rng.IntN(4) {
			sizes = append(sizes, n)
		}
	}
	for name, mk := range encodedLogs(t) {
		t.Run(name, func(t *testing.T) {
			fsys, dir := mk()
			l, err := Open(fsys, dir, Options{SyncMode: SyncNone, SegmentSize: 256 << 10})
			require.NoError(t, err)
			var want [][]byte
			for i, n := range sizes {
				p := make([]byte, n)
				for j := range p {
					p[j] = byte(rng.Uint32())
				}
				if i%2 == 0 {
					_, err = l.Append(p)
				} else {
					_, err = l.AppendEncoded(n, func(dst []byte) []byte { return append(dst, p...) })
				}
				require.NoError(t, err)
				want = append(want, p)
			}
			segs := l.Segments()
			require.Greater(t, len(segs), 1, "several segments")
			require.NoError(t, l.Close())
			i := 0
			for _, s := range segs {
				f, err := fsys.Open(filepath.Join(dir, s.Name))
				require.NoError(t, err)
				data, err := io.ReadAll(f)
				require.NoError(t, err)
				require.NoError(t, f.Close())
				for off := headerSize; off < len(data); {
					if binary.LittleEndian.Uint32(data[off:]) == syncMarkerTag {
						off += syncMarkerSize
						continue
					}
					require.Less(t, i, len(want), "segment %d offset %d", s.ID, off)
					frame := appendRecord(nil, want[i])
					require.LessOrEqual(t, off+len(frame), len(data), "record %d", i)
					require.Equal(t, frame[:recordHeaderSize], data[off:off+recordHeaderSize], "record %d (%d bytes): length and checksum", i, len(want[i]))
					require.Equal(t, frame, data[off:off+len(frame)], "record %d", i)
					off += len(frame)
					i++
				}
			}
			require.Equal(t, len(want), i, "every record framed")
		})
	}
}
