package commitlog

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/require"
)

// TestCrashBatchKeepsAcknowledged crashes a log while concurrent appenders
// run under SyncBatch: every append acknowledged before the crash must be
// replayed, in an order consistent with its position, with its payload.
func TestCrashBatchKeepsAcknowledged(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for round := 0; round < 5; round++ {
		mem := vfs.NewCrashableMem()
		l, err := Open(mem, "cl", Options{SyncMode: SyncBatch, SegmentSize: 512})
		require.NoError(t, err)

		var mu sync.Mutex
		acked := map[string]Position{}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					p := fmt.Sprintf("w%d-%d", w, i)
					pos, err := l.Append([]byte(p))
					if err != nil {
						return
					}
					mu.Lock()
					acked[p] = pos
					mu.Unlock()
				}
			}()
		}
		// Let some appends happen, then crash.
		for {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= 20+rng.IntN(200) {
				break
			}
		}
		mu.Lock()
		snapshot := make(map[string]Position, len(acked))
		for k, v := range acked {
			snapshot[k] = v
		}
		mu.Unlock()
		crashed := mem.CrashClone()
		close(stop)
		wg.Wait()
		require.NoError(t, l.Close())

		got := map[string]Position{}
		var prev Position
		err = Replay(crashed, "cl", func(pos Position, p []byte) error {
			if pos.Compare(prev) <= 0 {
				return fmt.Errorf("position %v after %v", pos, prev)
			}
			prev = pos
			got[string(p)] = pos
			return nil
		})
		require.NoError(t, err, "seed %d round %d", seed, round)
		for p, pos := range snapshot {
			gpos, ok := got[p]
			require.True(t, ok, "acknowledged %q at %v lost (seed %d round %d)", p, pos, seed, round)
			require.Equal(t, pos, gpos)
		}
		// The crashed log reopens and accepts appends.
		l2, err := Open(crashed, "cl", Options{SyncMode: SyncBatch, SegmentSize: 512})
		require.NoError(t, err)
		require.NoError(t, l2.Replay(func(Position, []byte) error { return nil }))
		_, err = l2.Append([]byte("after crash"))
		require.NoError(t, err)
		require.NoError(t, l2.Close())
		_, err = replayAllNoT(crashed, "cl")
		require.NoError(t, err)
	}
}

func replayAllNoT(fsys vfs.FS, dir string) ([][]byte, error) {
	var out [][]byte
	err := Replay(fsys, dir, func(_ Position, p []byte) error {
		out = append(out, bytes.Clone(p))
		return nil
	})
	return out, err
}

// TestCrashPeriodicLosesOnlyUnsynced appends records with syncs at random
// points under SyncPeriodic and crashes: replay returns exactly a prefix of
// the appended records that includes everything up to the last sync, and
// never a torn or altered record. The crashed log is then reopened and the
// scenario continues, so torn-tail repair across restarts is exercised.
func TestCrashPeriodicLosesOnlyUnsynced(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	mem := vfs.NewCrashableMem()
	var appended [][]byte // everything that may be in the log, in order
	durable := 0          // length of the prefix known durable
	for restart := 0; restart < 10; restart++ {
		l, err := Open(mem, "cl", Options{SegmentSize: 300, NewTicker: newManualTicker().factory})
		require.NoError(t, err)
		var replayed [][]byte
		require.NoError(t, l.Replay(func(_ Position, p []byte) error {
			replayed = append(replayed, bytes.Clone(p))
			return nil
		}))
		require.GreaterOrEqual(t, len(replayed), durable, "seed %d restart %d", seed, restart)
		require.LessOrEqual(t, len(replayed), len(appended))
		for i := range replayed {
			require.Equal(t, appended[i], replayed[i], "seed %d restart %d record %d", seed, restart, i)
		}
		appended = replayed
		durable = len(replayed)

		n := rng.IntN(40)
		for i := 0; i < n; i++ {
			p := make([]byte, rng.IntN(60))
			for j := range p {
				p[j] = byte(rng.Uint32())
			}
			_, err := l.Append(p)
			require.NoError(t, err)
			appended = append(appended, p)
			if rng.IntN(8) == 0 {
				require.NoError(t, l.Sync())
				durable = len(appended)
			}
		}
		mem = mem.CrashClone() // the old log is abandoned, as after a power loss
		l.Close()
	}
}

// buildLog writes a small log of two segments and returns its files' bytes
// and the payloads.
func buildLog(t *testing.T) (map[string][]byte, []string) {
	mem := vfs.NewMem()
	l, err := Open(mem, "cl", Options{SyncMode: SyncNone, SegmentSize: 72})
	require.NoError(t, err)
	var want []string
	for i := 0; i < 6; i++ {
		p := fmt.Sprintf("payload-%d", i)
		_, err := l.Append([]byte(p))
		require.NoError(t, err)
		want = append(want, p)
	}
	require.NoError(t, l.Close())
	names, err := mem.List("cl")
	require.NoError(t, err)
	require.Len(t, names, 3)
	files := map[string][]byte{}
	for _, n := range names {
		files[n], err = readAll(mem, "cl/"+n)
		require.NoError(t, err)
	}
	return files, want
}

// TestCorruptionEveryByte flips every byte of a small three-segment log, one
// at a time, and checks that replay either reports corruption or returns a
// prefix of the original payloads (a torn tail in the last segment), never
// a wrong payload; damage in a non-last segment, or before a valid record,
// must be reported.
func TestCorruptionEveryByte(t *testing.T) {
	files, want := buildLog(t)
	names := []string{"CommitLog-1.log", "CommitLog-2.log", "CommitLog-3.log"}
	for fi, name := range names {
		for off := range files[name] {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				mem := vfs.NewMem()
				require.NoError(t, mem.MkdirAll("cl", 0o755))
				for _, n := range names {
					data := bytes.Clone(files[n])
					if n == name {
						data[off] ^= mask
					}
					writeRaw(t, mem, "cl/"+n, data)
				}
				got, err := replayAllNoT(mem, "cl")
				if err != nil {
					var ce *CorruptionError
					require.True(t, errors.As(err, &ce), "%s@%d: %v", name, off, err)
					require.ErrorIs(t, err, ErrCorruption)
					require.Equal(t, "cl/"+name, ce.File)
					require.LessOrEqual(t, ce.Offset, int64(off))
				} else {
					require.Equal(t, len(names)-1, fi, "damage at %s@%d in a non-last segment went unnoticed", name, off)
				}
				require.LessOrEqual(t, len(got), len(want))
				for i := range got {
					require.Equal(t, want[i], string(got[i]), "%s@%d^%02x: wrong payload", name, off, mask)
				}
				if err == nil {
					// Damage anywhere before the closing sync marker of
					// the last segment is followed by valid data (a record
					// or that marker), so it must be reported: a bad byte
					// in the last record is not a torn tail.
					markerStart := len(files[name]) - syncMarkerSize
					require.GreaterOrEqual(t, off, markerStart, "%s@%d: corruption before a sync marker not reported", name, off)
					require.Len(t, got, len(want), "%s@%d: a damaged sync marker loses no record", name, off)
				}
			}
		}
	}
}

// TestTornTailEveryLength truncates the last segment at every length:
// replay never fails and returns exactly the records that are complete.
func TestTornTailEveryLength(t *testing.T) {
	files, want := buildLog(t)
	last := files["CommitLog-3.log"]
	for n := 0; n <= len(last); n++ {
		mem := vfs.NewMem()
		require.NoError(t, mem.MkdirAll("cl", 0o755))
		writeRaw(t, mem, "cl/CommitLog-1.log", files["CommitLog-1.log"])
		writeRaw(t, mem, "cl/CommitLog-2.log", files["CommitLog-2.log"])
		writeRaw(t, mem, "cl/CommitLog-3.log", last[:n])
		got, err := replayAllNoT(mem, "cl")
		require.NoError(t, err, "truncated to %d", n)
		complete := 4 // records in segments 1 and 2
		for off, i := headerSize, 4; i < len(want); i++ {
			off += 8 + len(want[i])
			if off <= n {
				complete++
			}
		}
		require.Len(t, got, complete, "truncated to %d", n)

		// The same truncation in a non-last segment is corruption.
		mem = vfs.NewMem()
		require.NoError(t, mem.MkdirAll("cl", 0o755))
		writeRaw(t, mem, "cl/CommitLog-1.log", files["CommitLog-1.log"])
		writeRaw(t, mem, "cl/CommitLog-2.log", last[:n])
		writeRaw(t, mem, "cl/CommitLog-3.log", last)
		_, err = replayAllNoT(mem, "cl")
		if n != len(last) {
			require.ErrorIs(t, err, ErrCorruption, "truncated to %d", n)
		}
	}
}

func TestZeroTailIsTorn(t *testing.T) {
	files, want := buildLog(t)
	mem := vfs.NewMem()
	require.NoError(t, mem.MkdirAll("cl", 0o755))
	for n, data := range files {
		if n == "CommitLog-3.log" {
			data = append(bytes.Clone(data), make([]byte, 100)...)
		}
		writeRaw(t, mem, "cl/"+n, data)
	}
	got, err := replayAllNoT(mem, "cl")
	require.NoError(t, err)
	require.Len(t, got, len(want))
}

// TestShortWriteThenReopen interrupts a record half-way (a short write
// under SyncBatch), checks the log refuses further appends, then reopens the
// directory: the partial record is a torn tail, cut by Open, and the log
// continues cleanly.
func TestShortWriteThenReopen(t *testing.T) {
	mem := vfs.NewMem()
	// Write 1 is the header, 2 and 4 the first records (3 and 5 their sync
	// markers), 6 is cut short.
	efs := vfs.NewErrorFS(mem, vfs.ShortWriteOnNth(6, 11))
	l, err := Open(efs, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	for _, p := range []string{"one", "two"} {
		_, err := l.Append([]byte(p))
		require.NoError(t, err)
	}
	_, err = l.Append([]byte("three-is-cut"))
	require.ErrorIs(t, err, ErrFailed)
	require.ErrorIs(t, err, vfs.ErrInjected)
	_, err = l.Append([]byte("four"))
	require.ErrorIs(t, err, ErrFailed)
	require.NoError(t, l.Close())

	l, err = Open(mem, "cl", Options{SyncMode: SyncBatch})
	require.NoError(t, err)
	var got []string
	require.NoError(t, l.Replay(func(_ Position, p []byte) error { got = append(got, string(p)); return nil }))
	require.Equal(t, []string{"one", "two"}, got)
	_, err = l.Append([]byte("five"))
	require.NoError(t, err)
	require.NoError(t, l.Close())
	all, err := replayAllNoT(mem, "cl")
	require.NoError(t, err)
	require.Len(t, all, 3)
	require.Equal(t, "five", string(all[2]))
}
