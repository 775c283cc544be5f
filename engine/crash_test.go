package engine

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// crashWrite is one acknowledged write of the crash tests.
type crashWrite struct{ key, ck, val string }

// survivors returns, for each write, whether the engine returns its value.
func survivors(t *testing.T, e *Engine, writes []crashWrite) []bool {
	tbl, ok := e.Table("ks", "t")
	require.True(t, ok)
	got := map[string]string{}
	for _, w := range writes {
		if _, done := got[w.key+"/"]; done {
			continue
		}
		got[w.key+"/"] = ""
		for _, row := range dump(t, e, tbl, w.key, false) {
			ck, v, _ := cutColon(row)
			got[w.key+"/"+ck] = v
		}
	}
	out := make([]bool, len(writes))
	for i, w := range writes {
		out[i] = got[w.key+"/"+w.ck] == w.val
	}
	return out
}

func cutColon(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestCrash writes random rows (each to its own clustering key) with
// random explicit flushes, background flushes (small memtables) and commit
// log rotations (small segments), simulates power failures at random
// points with CrashClone, and checks what survives: under batch sync every
// acknowledged write; under periodic sync (never synced in the test) a
// prefix of the writes, never a write without the ones before it.
func TestCrash(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	for _, mode := range []CommitLogSync{SyncBatch, SyncPeriodic} {
		t.Run(mode.String(), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			for round := 0; round < 4; round++ {
				runCrashRound(t, rng, mode, seed, round)
			}
		})
	}
}

func runCrashRound(t *testing.T, rng *rand.Rand, mode CommitLogSync, seed int64, round int) {
	opts := Options{CommitLogSync: mode, CommitLogSyncPeriod: time.Hour, CommitLogSegmentSize: 4096,
		MemtableSize: int64(2048 + rng.Intn(8192))}
	fsys := vfs.NewCrashableMem()
	e, _, tbl := openDurable(t, fsys, opts)
	var writes []crashWrite
	for step := 0; step < 300; step++ {
		switch op := rng.Intn(40); {
		case op == 0:
			require.NoError(t, e.Flush(context.Background(), "ks", "t"))
		case op == 1:
			// Crash, check, and go on from the crashed state.
			crashed := fsys.CrashClone()
			require.NoError(t, e.Close())
			fsys = crashed
			e, _, tbl = openDurable(t, fsys, opts)
			alive := survivors(t, e, writes)
			checkSurvivors(t, mode, alive, fmt.Sprintf("seed %d round %d step %d", seed, round, step))
			// Keep only what survived, as the new truth.
			var kept []crashWrite
			for i, w := range writes {
				if alive[i] {
					kept = append(kept, w)
				}
			}
			writes = kept
		default:
			w := crashWrite{key: fmt.Sprintf("k%d", rng.Intn(5)), ck: fmt.Sprintf("c%04d", step+1000*round), val: fmt.Sprintf("v%d", rng.Intn(1000))}
			put(t, e, tbl, w.key, w.ck, w.val, int64(step+1))
			writes = append(writes, w)
		}
	}
	crashed := fsys.CrashClone()
	require.NoError(t, e.Close())
	e, _, _ = openDurable(t, crashed, opts)
	checkSurvivors(t, mode, survivors(t, e, writes), fmt.Sprintf("seed %d round %d end", seed, round))
	require.NoError(t, e.Close())
}

func checkSurvivors(t *testing.T, mode CommitLogSync, alive []bool, where string) {
	t.Helper()
	lost := -1
	defer func() {
		if lost >= 0 {
			t.Logf("%s: %d of %d writes survived", where, lost, len(alive))
		}
	}()
	for i, ok := range alive {
		switch {
		case !ok && mode == SyncBatch:
			t.Fatalf("%s: acknowledged write %d of %d lost under batch sync", where, i, len(alive))
		case !ok && lost < 0:
			lost = i
		case ok && lost >= 0:
			t.Fatalf("%s: write %d survived but write %d before it was lost: not a prefix", where, i, lost)
		}
	}
}

// flipByte XORs one byte of a file of fsys.
func flipByte(t *testing.T, fsys vfs.FS, name string, off int64) {
	t.Helper()
	f, err := fsys.Open(name)
	require.NoError(t, err)
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Less(t, off, int64(len(b)), "offset inside %s", name)
	b[off] ^= 0x5a
	w, err := fsys.Create(name)
	require.NoError(t, err)
	_, err = w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
}

func TestCommitLogCorruption(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{CommitLogSegmentSize: 4096})
	for i := 0; i < 200; i++ {
		put(t, e, tbl, "k", fmt.Sprintf("c%03d", i), "value", int64(i+1))
	}
	require.NoError(t, e.Close())
	// Segment 1 is full and followed by others: damage in it is corruption.
	flipByte(t, fsys, "db/commitlog/CommitLog-1.log", 100)
	_, err := Open(Options{Dir: "db", FS: fsys})
	require.ErrorIs(t, err, ErrCorruption)
	require.ErrorIs(t, err, commitlog.ErrCorruption)
	assert.Contains(t, err.Error(), "CommitLog-1.log")
	var ce *commitlog.CorruptionError
	require.ErrorAs(t, err, &ce)
	assert.LessOrEqual(t, ce.Offset, int64(100))
	// The failed Open released the lock and nothing was served.
	_, err = Open(Options{Dir: "db", FS: fsys})
	require.ErrorIs(t, err, ErrCorruption)
}

func TestSSTableCorruption(t *testing.T) {
	for _, c := range []struct {
		comp     sstable.Component
		atOpen   bool
		sentinel error
	}{
		// Data.db is checked against Digest.crc32 at open.
		{sstable.ComponentData, true, ErrCorruption},
		{sstable.ComponentDigest, true, ErrCorruption},
		{sstable.ComponentStatistics, true, ErrCorruption},
		{sstable.ComponentFilter, true, ErrCorruption},
		{sstable.ComponentIndex, false, ErrCorruption},
	} {
		t.Run(c.comp.String(), func(t *testing.T) {
			fsys := vfs.NewMem()
			e, _, tbl := openDurable(t, fsys, Options{})
			for i := 0; i < 50; i++ {
				put(t, e, tbl, "k", fmt.Sprintf("c%03d", i), "value", int64(i+1))
			}
			require.NoError(t, e.Flush(context.Background(), "ks", "t"))
			info := e.SSTables("ks", "t")[0]
			require.NoError(t, e.Close())
			name := info.Dir + "/" + sstable.FileName(info.Gen, c.comp)
			fi, err := fsys.Stat(name)
			require.NoError(t, err)
			flipByte(t, fsys, name, fi.Size()/2)

			e2, err := Open(Options{Dir: "db", FS: fsys})
			if c.atOpen {
				require.ErrorIs(t, err, c.sentinel)
				assert.Contains(t, err.Error(), c.comp.String())
				return
			}
			require.NoError(t, err)
			defer e2.Close()
			tbl2, _ := e2.Table("ks", "t")
			p, err := e2.ReadPartition(context.Background(), tbl2, []byte("k"), ReadOptions{})
			if err == nil {
				for {
					if _, ok := p.Next(); !ok {
						break
					}
				}
				err = p.Close()
			}
			require.ErrorIs(t, err, c.sentinel)
			assert.Contains(t, err.Error(), c.comp.String())
			assert.Contains(t, err.Error(), "offset")
		})
	}
}

func TestSSTableMissingComponent(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k", "a", "1", 1)
	require.NoError(t, e.Flush(context.Background(), "ks", "t"))
	info := e.SSTables("ks", "t")[0]
	require.NoError(t, e.Close())
	require.NoError(t, fsys.Remove(info.Dir+"/"+sstable.FileName(info.Gen, sstable.ComponentIndex)))
	_, err := Open(Options{Dir: "db", FS: fsys})
	require.ErrorIs(t, err, sstable.ErrMissingComponent)
	assert.Contains(t, err.Error(), "Index.db")
}

// TestFlushWhileWriting runs writers, readers and flushes at once (run it
// with -race): every row written is read back, whatever the flushes did.
func TestFlushWhileWriting(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{MemtableSize: 16 << 10, CommitLogSegmentSize: 32 << 10, CommitLogSync: SyncBatch})
	ctx := context.Background()
	const writers, perWriter = 4, 300
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				put(t, e, tbl, fmt.Sprintf("w%d", w), fmt.Sprintf("c%04d", i), fmt.Sprintf("v%d", i), int64(i+1))
				if i%50 == 49 {
					// A reader sees every row written so far by this writer.
					rows := dump(t, e, tbl, fmt.Sprintf("w%d", w), false)
					assert.Len(t, rows, i+1)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			assert.NoError(t, e.Flush(ctx, "ks", "t"))
		}
	}()
	wg.Wait()
	check := func(e *Engine) {
		tbl, _ := e.Table("ks", "t")
		for w := 0; w < writers; w++ {
			rows := dump(t, e, tbl, fmt.Sprintf("w%d", w), true)
			require.Len(t, rows, perWriter)
			assert.Equal(t, fmt.Sprintf("c%04d:v%d", perWriter-1, perWriter-1), rows[0])
		}
	}
	check(e)
	assert.NotEmpty(t, e.SSTables("ks", "t"))
	segs := e.log.Segments()
	require.NoError(t, e.Close())
	assert.Less(t, len(segs), 10, "flushed segments are released")
	e2, _, _ := openDurable(t, fsys, Options{})
	check(e2)
	require.NoError(t, e2.Close())
}
