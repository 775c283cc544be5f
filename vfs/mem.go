package vfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemFS is an in-memory FS, safe for concurrent use. Paths are slash
// separated; relative and absolute names denote the same tree ("a/b" and
// "/a/b" are one file). The root always exists.
//
// # Crash model
//
// A MemFS made by NewCrashableMem tracks durability; CrashClone returns a new
// crashable MemFS holding only what is durable, as if the power had failed:
//
//   - File contents: a file's durable contents are its contents as of its
//     last File.Sync (empty if never synced). Writes and truncations
//     (Create of an existing file) after that are lost.
//   - Directory entries: the creation (Create, Lock), Rename and Remove of an
//     entry in directory D become durable only at the next SyncDir(D). Until
//     then a crash reverts them: an unsynced new file disappears, an
//     unsynced rename is undone (the file is back under its old name, and a
//     file it replaced reappears), an unsynced removal is undone. A rename
//     across directories needs SyncDir of both.
//   - Directories made by MkdirAll are durable at once (a simplification:
//     real filesystems need an fsync of the parent).
//   - The two are independent: a synced file whose directory entry was
//     never synced is lost; a durable entry whose file was never synced is
//     empty.
//
// A MemFS made by NewMem does no tracking; its CrashClone copies the current
// state in full.
type MemFS struct {
	mu        sync.Mutex
	root      *memNode
	crashable bool
	locks     map[string]bool
}

// memNode is a file or a directory. All fields are guarded by MemFS.mu.
type memNode struct {
	isDir   bool
	modTime time.Time

	// Files.
	data []byte
	// synced holds the durable contents (crashable FS only). syncedStale
	// is set when data was changed below len(synced), so the next Sync
	// must copy everything rather than append the new tail.
	synced      []byte
	syncedStale bool

	// Directories: live entries, and the entries made durable by SyncDir.
	children map[string]*memNode
	durable  map[string]*memNode
}

func newDir() *memNode {
	return &memNode{isDir: true, children: map[string]*memNode{}, durable: map[string]*memNode{}}
}

// NewMem returns an empty in-memory FS that does not track durability.
func NewMem() *MemFS {
	return &MemFS{root: newDir(), locks: map[string]bool{}}
}

// NewCrashableMem returns an empty in-memory FS that tracks durability so
// CrashClone can simulate a power failure. See MemFS for the model.
func NewCrashableMem() *MemFS {
	m := NewMem()
	m.crashable = true
	return m
}

// CrashClone returns a new FS holding only the durable state of m (the whole
// state if m was made by NewMem). The clone is crashable; m is unchanged and
// its open files keep working on m.
func (m *MemFS) CrashClone() *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	memo := map[*memNode]*memNode{}
	var clone func(n *memNode) *memNode
	clone = func(n *memNode) *memNode {
		if c, ok := memo[n]; ok {
			return c
		}
		var c *memNode
		if n.isDir {
			c = newDir()
			entries := n.durable
			if !m.crashable {
				entries = n.children
			}
			for name, child := range entries {
				cc := clone(child)
				c.children[name] = cc
				c.durable[name] = cc
			}
		} else {
			src := n.synced
			if !m.crashable {
				src = n.data
			}
			c = &memNode{data: slices.Clone(src), synced: slices.Clone(src)}
		}
		c.modTime = n.modTime
		memo[n] = c
		return c
	}
	return &MemFS{root: clone(m.root), crashable: true, locks: map[string]bool{}}
}

// splitPath cleans name into its components; the root has none.
func splitPath(name string) []string {
	p := strings.Trim(path.Clean("/"+name), "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// walk returns the node at the given components, or nil.
func (m *MemFS) walk(parts []string) *memNode {
	n := m.root
	for _, p := range parts {
		if !n.isDir {
			return nil
		}
		n = n.children[p]
		if n == nil {
			return nil
		}
	}
	return n
}

// parentOf returns the directory holding name and name's base, or an error.
func (m *MemFS) parentOf(op, name string) (*memNode, string, error) {
	parts := splitPath(name)
	if len(parts) == 0 {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	dir := m.walk(parts[:len(parts)-1])
	if dir == nil || !dir.isDir {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return dir, parts[len(parts)-1], nil
}

// setEntry adds or replaces a live entry; a non-crashable FS makes it
// durable at once.
func (m *MemFS) setEntry(dir *memNode, base string, n *memNode) {
	dir.children[base] = n
	if !m.crashable {
		dir.durable[base] = n
	}
}

func (m *MemFS) deleteEntry(dir *memNode, base string) {
	delete(dir.children, base)
	if !m.crashable {
		delete(dir.durable, base)
	}
}

// Create implements FS.
func (m *MemFS) Create(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentOf("create", name)
	if err != nil {
		return nil, err
	}
	n := dir.children[base]
	switch {
	case n == nil:
		n = &memNode{modTime: time.Now()}
		m.setEntry(dir, base, n)
	case n.isDir:
		return nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	default:
		m.truncate(n)
	}
	return &memFile{fs: m, node: n, name: base, read: true, write: true}, nil
}

// truncate empties n's live contents.
func (m *MemFS) truncate(n *memNode) {
	n.data = nil
	n.modTime = time.Now()
	if len(n.synced) > 0 {
		n.syncedStale = true
	}
}

func (m *MemFS) openFile(op, name string) (*memNode, string, error) {
	parts := splitPath(name)
	n := m.walk(parts)
	if n == nil {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if n.isDir {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("is a directory")}
	}
	base := "/"
	if len(parts) > 0 {
		base = parts[len(parts)-1]
	}
	return n, base, nil
}

// Open implements FS.
func (m *MemFS) Open(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, base, err := m.openFile("open", name)
	if err != nil {
		return nil, err
	}
	return &memFile{fs: m, node: n, name: base, read: true}, nil
}

// OpenForAppend implements FS.
func (m *MemFS) OpenForAppend(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, base, err := m.openFile("open", name)
	if err != nil {
		return nil, err
	}
	return &memFile{fs: m, node: n, name: base, read: true, write: true, append: true}, nil
}

// Remove implements FS.
func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentOf("remove", name)
	if err != nil {
		return err
	}
	n := dir.children[base]
	if n == nil {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	if n.isDir && len(n.children) > 0 {
		return &fs.PathError{Op: "remove", Path: name, Err: fmt.Errorf("directory not empty")}
	}
	m.deleteEntry(dir, base)
	return nil
}

// RemoveAll implements FS. Removing the root empties it.
func (m *MemFS) RemoveAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	parts := splitPath(dir)
	if len(parts) == 0 {
		for name := range m.root.children {
			m.deleteEntry(m.root, name)
		}
		return nil
	}
	parent := m.walk(parts[:len(parts)-1])
	if parent == nil || !parent.isDir {
		return nil
	}
	m.deleteEntry(parent, parts[len(parts)-1])
	return nil
}

// Rename implements FS.
func (m *MemFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	odir, obase, err := m.parentOf("rename", oldname)
	if err != nil {
		return err
	}
	n := odir.children[obase]
	if n == nil {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	ndir, nbase, err := m.parentOf("rename", newname)
	if err != nil {
		return err
	}
	if odir == ndir && obase == nbase {
		return nil
	}
	if t := ndir.children[nbase]; t != nil && t.isDir {
		return &fs.PathError{Op: "rename", Path: newname, Err: fs.ErrExist}
	}
	m.deleteEntry(odir, obase)
	m.setEntry(ndir, nbase, n)
	return nil
}

// MkdirAll implements FS. New directories are durable at once.
func (m *MemFS) MkdirAll(dir string, perm os.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.root
	for _, p := range splitPath(dir) {
		c := n.children[p]
		if c == nil {
			c = newDir()
			c.modTime = time.Now()
			n.children[p] = c
			n.durable[p] = c
		} else if !c.isDir {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: fmt.Errorf("not a directory")}
		}
		n = c
	}
	return nil
}

// List implements FS.
func (m *MemFS) List(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.walk(splitPath(dir))
	if n == nil {
		return nil, &fs.PathError{Op: "list", Path: dir, Err: fs.ErrNotExist}
	}
	if !n.isDir {
		return nil, &fs.PathError{Op: "list", Path: dir, Err: fmt.Errorf("not a directory")}
	}
	names := make([]string, 0, len(n.children))
	for name := range n.children {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// Stat implements FS.
func (m *MemFS) Stat(name string) (os.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	parts := splitPath(name)
	n := m.walk(parts)
	if n == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	base := "/"
	if len(parts) > 0 {
		base = parts[len(parts)-1]
	}
	return n.info(base), nil
}

// Lock implements FS. Locks are per MemFS: a CrashClone starts unlocked.
func (m *MemFS) Lock(name string) (io.Closer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentOf("lock", name)
	if err != nil {
		return nil, err
	}
	key := strings.Join(splitPath(name), "/")
	if m.locks[key] {
		return nil, fmt.Errorf("%w: %s", ErrLocked, name)
	}
	if n := dir.children[base]; n == nil {
		m.setEntry(dir, base, &memNode{modTime: time.Now()})
	} else if n.isDir {
		return nil, &fs.PathError{Op: "lock", Path: name, Err: fmt.Errorf("is a directory")}
	}
	m.locks[key] = true
	return &memLock{fs: m, key: key}, nil
}

// SyncDir implements FS.
func (m *MemFS) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.walk(splitPath(dir))
	if n == nil || !n.isDir {
		return &fs.PathError{Op: "syncdir", Path: dir, Err: fs.ErrNotExist}
	}
	n.durable = make(map[string]*memNode, len(n.children))
	for k, v := range n.children {
		n.durable[k] = v
	}
	return nil
}

// PathJoin implements FS with slash separators.
func (m *MemFS) PathJoin(elem ...string) string { return path.Join(elem...) }

// memLock releases a MemFS lock on Close.
type memLock struct {
	fs     *MemFS
	key    string
	closed bool
}

func (l *memLock) Close() error {
	l.fs.mu.Lock()
	defer l.fs.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.closed = true
	delete(l.fs.locks, l.key)
	return nil
}

// memFile is an open MemFS file.
type memFile struct {
	fs                  *MemFS
	node                *memNode
	name                string
	pos                 int64
	read, write, append bool
	closed              bool
}

func (f *memFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, ErrClosed
	}
	if f.pos >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[f.pos:])
	f.pos += int64(n)
	return n, nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, ErrClosed
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "readat", Path: f.name, Err: fs.ErrInvalid}
	}
	if off >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, ErrClosed
	}
	if !f.write {
		return 0, ErrReadOnly
	}
	n := f.node
	if f.append {
		f.pos = int64(len(n.data))
	}
	end := f.pos + int64(len(p))
	if f.pos < int64(len(n.synced)) {
		n.syncedStale = true
	}
	if end > int64(len(n.data)) {
		if end > int64(cap(n.data)) {
			grown := make([]byte, len(n.data), max(end, 2*int64(cap(n.data))))
			copy(grown, n.data)
			n.data = grown
		}
		n.data = n.data[:end]
	}
	copy(n.data[f.pos:], p)
	f.pos = end
	n.modTime = time.Now()
	return len(p), nil
}

// Sync records the file's contents as durable on a crashable FS. Appends
// since the previous Sync are copied incrementally; any other change copies
// the whole file.
func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	n := f.node
	if !f.fs.crashable {
		return nil
	}
	if n.syncedStale || len(n.synced) > len(n.data) {
		n.synced = slices.Clone(n.data)
		n.syncedStale = false
	} else {
		n.synced = append(n.synced, n.data[len(n.synced):]...)
	}
	return nil
}

func (f *memFile) Stat() (os.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	return f.node.info(f.name), nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.closed = true
	return nil
}

// info returns a snapshot of n's metadata.
func (n *memNode) info(name string) os.FileInfo {
	mode := os.FileMode(0o644)
	if n.isDir {
		mode = os.ModeDir | 0o755
	}
	return memInfo{name: name, size: int64(len(n.data)), mode: mode, modTime: n.modTime}
}

// memInfo implements os.FileInfo.
type memInfo struct {
	name    string
	size    int64
	mode    os.FileMode
	modTime time.Time
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() os.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return i.modTime }
func (i memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i memInfo) Sys() any           { return nil }
