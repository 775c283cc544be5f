package vfs

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCrashUnsyncedTailDropped(t *testing.T) {
	m := NewCrashableMem()
	require.NoError(t, m.MkdirAll("d", 0o755))
	f, err := m.Create("d/f")
	require.NoError(t, err)
	require.NoError(t, m.SyncDir("d"))
	_, err = f.Write([]byte("synced|"))
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	_, err = f.Write([]byte("lost"))
	require.NoError(t, err)

	c := m.CrashClone()
	assert.Equal(t, "synced|", readFile(t, c, "d/f"))
	assert.Equal(t, "synced|lost", readFile(t, m, "d/f"), "the original is unchanged")

	// The clone is itself crashable and consistent.
	assert.Equal(t, "synced|", readFile(t, c.CrashClone(), "d/f"))
}

func TestCrashUnsyncedCreateLost(t *testing.T) {
	m := NewCrashableMem()
	require.NoError(t, m.MkdirAll("d", 0o755))
	writeFile(t, m, "d/f", "data") // File.Sync, but no SyncDir

	c := m.CrashClone()
	_, err := c.Stat("d/f")
	assert.ErrorIs(t, err, fs.ErrNotExist)

	require.NoError(t, m.SyncDir("d"))
	assert.Equal(t, "data", readFile(t, m.CrashClone(), "d/f"))
}

func TestCrashEntryWithoutDataSync(t *testing.T) {
	m := NewCrashableMem()
	f, err := m.Create("f")
	require.NoError(t, err)
	_, err = f.Write([]byte("unsynced"))
	require.NoError(t, err)
	require.NoError(t, m.SyncDir("/"))
	assert.Equal(t, "", readFile(t, m.CrashClone(), "f"))
}

func TestCrashUnsyncedRenameReverted(t *testing.T) {
	m := NewCrashableMem()
	require.NoError(t, m.MkdirAll("d", 0o755))
	writeFile(t, m, "d/old", "old contents")
	writeFile(t, m, "d/tmp", "new contents")
	require.NoError(t, m.SyncDir("d"))

	require.NoError(t, m.Rename("d/tmp", "d/old"))
	assert.Equal(t, "new contents", readFile(t, m, "d/old"))

	c := m.CrashClone()
	assert.Equal(t, "old contents", readFile(t, c, "d/old"))
	assert.Equal(t, "new contents", readFile(t, c, "d/tmp"))

	require.NoError(t, m.SyncDir("d"))
	c = m.CrashClone()
	assert.Equal(t, "new contents", readFile(t, c, "d/old"))
	names, err := c.List("d")
	require.NoError(t, err)
	assert.Equal(t, []string{"old"}, names)
}

func TestCrashUnsyncedRemoveReverted(t *testing.T) {
	m := NewCrashableMem()
	writeFile(t, m, "f", "keep")
	require.NoError(t, m.SyncDir(""))
	require.NoError(t, m.Remove("f"))
	assert.Equal(t, "keep", readFile(t, m.CrashClone(), "f"))
	require.NoError(t, m.SyncDir(""))
	_, err := m.CrashClone().Stat("f")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestCrashTruncateNotSynced(t *testing.T) {
	m := NewCrashableMem()
	writeFile(t, m, "f", "version one")
	require.NoError(t, m.SyncDir(""))
	f, err := m.Create("f") // truncates
	require.NoError(t, err)
	_, err = f.Write([]byte("v2"))
	require.NoError(t, err)
	assert.Equal(t, "version one", readFile(t, m.CrashClone(), "f"))
	require.NoError(t, f.Sync())
	assert.Equal(t, "v2", readFile(t, m.CrashClone(), "f"))
}

func TestNonCrashableCloneKeepsEverything(t *testing.T) {
	m := NewMem()
	f, err := m.Create("f")
	require.NoError(t, err)
	_, err = f.Write([]byte("all"))
	require.NoError(t, err)
	assert.Equal(t, "all", readFile(t, m.CrashClone(), "f"))
}

// TestCrashModelRandom runs random writes, syncs, renames and directory
// syncs against a crashable FS and a simple model of durable state, and
// compares the crash clone with the model after every step.
func TestCrashModelRandom(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	m := NewCrashableMem()
	names := []string{"a", "b", "c"}

	type file struct{ live, synced string }
	// Model: inode contents, and live/durable directory entries naming inodes.
	var inodes []*file
	liveDir := map[string]int{}
	durDir := map[string]int{}
	handles := map[int]File{}

	for step := 0; step < 300; step++ {
		name := names[rng.IntN(len(names))]
		switch rng.IntN(5) {
		case 0: // create (or truncate) and keep a handle
			f, err := m.Create(name)
			require.NoError(t, err)
			if id, ok := liveDir[name]; ok {
				inodes[id].live = ""
				handles[id] = f
			} else {
				inodes = append(inodes, &file{})
				liveDir[name] = len(inodes) - 1
				handles[len(inodes)-1] = f
			}
		case 1: // write through a handle
			if id, ok := liveDir[name]; ok && handles[id] != nil {
				s := fmt.Sprintf("%d;", step)
				f, err := m.OpenForAppend(name)
				require.NoError(t, err)
				_, err = f.Write([]byte(s))
				require.NoError(t, err)
				require.NoError(t, f.Close())
				inodes[id].live += s
			}
		case 2: // sync a file
			if id, ok := liveDir[name]; ok && handles[id] != nil {
				require.NoError(t, handles[id].Sync())
				inodes[id].synced = inodes[id].live
			}
		case 3: // rename
			to := names[rng.IntN(len(names))]
			if id, ok := liveDir[name]; ok && to != name {
				require.NoError(t, m.Rename(name, to))
				delete(liveDir, name)
				liveDir[to] = id
			}
		case 4: // sync the directory
			require.NoError(t, m.SyncDir("/"))
			durDir = map[string]int{}
			for k, v := range liveDir {
				durDir[k] = v
			}
		}

		c := m.CrashClone()
		got, err := c.List("/")
		require.NoError(t, err)
		var want []string
		for _, n := range names {
			if _, ok := durDir[n]; ok {
				want = append(want, n)
			}
		}
		require.Equal(t, want, nilIfEmpty(got), "step %d seed %d", step, seed)
		for n, id := range durDir {
			require.Equal(t, inodes[id].synced, readFile(t, c, n), "step %d file %s seed %d", step, n, seed)
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
