package vfs

import (
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fsCase is one FS implementation under the shared conformance tests, with
// the directory to work in.
type fsCase struct {
	name string
	fs   FS
	dir  string
}

func fsCases(t *testing.T) []fsCase {
	return []fsCase{
		{"disk", Default, t.TempDir()},
		{"mem", NewMem(), "/data"},
		{"crashable", NewCrashableMem(), "data"},
		{"errorfs", NewErrorFS(NewMem(), InjectorFunc(func(Op, string) error { return nil })), "/x/y"},
	}
}

func writeFile(t *testing.T, fsys FS, name, data string) {
	t.Helper()
	f, err := fsys.Create(name)
	require.NoError(t, err)
	_, err = f.Write([]byte(data))
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
}

func readFile(t *testing.T, fsys FS, name string) string {
	t.Helper()
	f, err := fsys.Open(name)
	require.NoError(t, err)
	defer f.Close()
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(b)
}

func TestConformance(t *testing.T) {
	for _, c := range fsCases(t) {
		t.Run(c.name, func(t *testing.T) {
			fsys, dir := c.fs, c.dir
			require.NoError(t, fsys.MkdirAll(fsys.PathJoin(dir, "sub"), 0o755))
			a := fsys.PathJoin(dir, "a")

			// Create, write, read back; ReadAt.
			writeFile(t, fsys, a, "hello world")
			assert.Equal(t, "hello world", readFile(t, fsys, a))
			f, err := fsys.Open(a)
			require.NoError(t, err)
			buf := make([]byte, 5)
			n, err := f.ReadAt(buf, 6)
			require.NoError(t, err)
			assert.Equal(t, "world", string(buf[:n]))
			n, err = f.ReadAt(buf, 8)
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, "rld", string(buf[:n]))
			_, err = f.Write([]byte("x"))
			assert.Error(t, err, "write to a read-only file")
			st, err := f.Stat()
			require.NoError(t, err)
			assert.EqualValues(t, 11, st.Size())
			assert.Equal(t, "a", st.Name())
			require.NoError(t, f.Close())

			// Create truncates.
			writeFile(t, fsys, a, "hi")
			assert.Equal(t, "hi", readFile(t, fsys, a))

			// OpenForAppend appends.
			f, err = fsys.OpenForAppend(a)
			require.NoError(t, err)
			_, err = f.Write([]byte(" there"))
			require.NoError(t, err)
			require.NoError(t, f.Close())
			assert.Equal(t, "hi there", readFile(t, fsys, a))
			_, err = fsys.OpenForAppend(fsys.PathJoin(dir, "missing"))
			assert.ErrorIs(t, err, fs.ErrNotExist)

			// List is sorted and includes directories.
			writeFile(t, fsys, fsys.PathJoin(dir, "c"), "")
			writeFile(t, fsys, fsys.PathJoin(dir, "b"), "")
			names, err := fsys.List(dir)
			require.NoError(t, err)
			assert.Equal(t, []string{"a", "b", "c", "sub"}, names)

			// Rename replaces.
			require.NoError(t, fsys.Rename(a, fsys.PathJoin(dir, "b")))
			assert.Equal(t, "hi there", readFile(t, fsys, fsys.PathJoin(dir, "b")))
			_, err = fsys.Stat(a)
			assert.ErrorIs(t, err, fs.ErrNotExist)
			require.NoError(t, fsys.Rename(fsys.PathJoin(dir, "b"), fsys.PathJoin(dir, "sub", "b")))
			assert.Equal(t, "hi there", readFile(t, fsys, fsys.PathJoin(dir, "sub", "b")))

			// Stat of a directory.
			st, err = fsys.Stat(fsys.PathJoin(dir, "sub"))
			require.NoError(t, err)
			assert.True(t, st.IsDir())

			// Remove; a non-empty directory cannot be removed.
			require.NoError(t, fsys.Remove(fsys.PathJoin(dir, "c")))
			assert.ErrorIs(t, fsys.Remove(fsys.PathJoin(dir, "c")), fs.ErrNotExist)
			assert.Error(t, fsys.Remove(fsys.PathJoin(dir, "sub")))
			require.NoError(t, fsys.SyncDir(dir))

			// RemoveAll.
			require.NoError(t, fsys.RemoveAll(fsys.PathJoin(dir, "sub")))
			require.NoError(t, fsys.RemoveAll(fsys.PathJoin(dir, "sub")))
			names, err = fsys.List(dir)
			require.NoError(t, err)
			assert.Empty(t, names)

			// Errors on missing paths.
			_, err = fsys.Open(fsys.PathJoin(dir, "nope"))
			assert.ErrorIs(t, err, fs.ErrNotExist)
			_, err = fsys.Create(fsys.PathJoin(dir, "nodir", "f"))
			assert.ErrorIs(t, err, fs.ErrNotExist)
			_, err = fsys.List(fsys.PathJoin(dir, "nope"))
			assert.ErrorIs(t, err, fs.ErrNotExist)

			// Lock is exclusive until closed.
			lockName := fsys.PathJoin(dir, "LOCK")
			l1, err := fsys.Lock(lockName)
			require.NoError(t, err)
			_, err = fsys.Lock(lockName)
			assert.ErrorIs(t, err, ErrLocked)
			require.NoError(t, l1.Close())
			l2, err := fsys.Lock(lockName)
			require.NoError(t, err)
			require.NoError(t, l2.Close())
		})
	}
}

func TestMemClosedFile(t *testing.T) {
	m := NewMem()
	f, err := m.Create("f")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = f.Write([]byte("x"))
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, f.Close(), ErrClosed)
}

func TestMemConcurrent(t *testing.T) {
	m := NewMem()
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			name := m.PathJoin("d", string(rune('a'+g)))
			err := m.MkdirAll("d", 0o755)
			for i := 0; i < 100 && err == nil; i++ {
				var f File
				if f, err = m.Create(name); err == nil {
					_, err = f.Write([]byte("data"))
					f.Close()
				}
				_, _ = m.List("d")
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		require.NoError(t, <-done)
	}
	names, err := m.List("d")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d"}, names)
}

func TestErrorFSOnNth(t *testing.T) {
	e := NewErrorFS(NewMem(), OnNth(OpWrite, 2))
	f, err := e.Create("f")
	require.NoError(t, err)
	_, err = f.Write([]byte("one"))
	require.NoError(t, err)
	_, err = f.Write([]byte("two"))
	require.ErrorIs(t, err, ErrInjected)
	_, err = f.Write([]byte("three"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, "onethree", readFile(t, e, "f"), "a failed write writes nothing")
}

func TestErrorFSEveryOp(t *testing.T) {
	for op := Op(0); op < numOps; op++ {
		t.Run(op.String(), func(t *testing.T) {
			mem := NewMem()
			require.NoError(t, mem.MkdirAll("d", 0o755))
			writeFile(t, mem, "d/f", "x")
			e := NewErrorFS(mem, FromNth(op, 1))
			var err error
			switch op {
			case OpCreate:
				_, err = e.Create("d/g")
			case OpOpen:
				_, err = e.Open("d/f")
			case OpOpenForAppend:
				_, err = e.OpenForAppend("d/f")
			case OpRemove:
				err = e.Remove("d/f")
			case OpRemoveAll:
				err = e.RemoveAll("d")
			case OpRename:
				err = e.Rename("d/f", "d/g")
			case OpMkdirAll:
				err = e.MkdirAll("e", 0o755)
			case OpList:
				_, err = e.List("d")
			case OpStat:
				_, err = e.Stat("d/f")
			case OpLock:
				_, err = e.Lock("d/LOCK")
			case OpSyncDir:
				err = e.SyncDir("d")
			default:
				var f File
				f, err = e.OpenForAppend("d/f")
				require.NoError(t, err)
				switch op {
				case OpRead:
					_, err = f.Read(make([]byte, 1))
				case OpWrite:
					_, err = f.Write([]byte("y"))
				case OpSync:
					err = f.Sync()
				case OpClose:
					err = f.Close()
				}
			}
			require.True(t, errors.Is(err, ErrInjected), "op %s: %v", op, err)
			// The wrapped FS is unchanged by the failed operation.
			assert.Equal(t, "x", readFile(t, mem, "d/f"))
		})
	}
}

func TestErrorFSShortWrite(t *testing.T) {
	e := NewErrorFS(NewMem(), ShortWriteOnNth(2, 3))
	f, err := e.Create("f")
	require.NoError(t, err)
	_, err = f.Write([]byte("first|"))
	require.NoError(t, err)
	n, err := f.Write([]byte("second"))
	require.ErrorIs(t, err, ErrInjected)
	var sw *ShortWriteError
	require.True(t, errors.As(err, &sw))
	assert.Equal(t, 3, n)
	require.NoError(t, f.Close())
	assert.Equal(t, "first|sec", readFile(t, e, "f"))
}
