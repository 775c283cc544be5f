// Package vfs is the filesystem interface used by the commit log, the
// SSTables and the engine, so tests can run in memory, simulate crashes and
// inject faults.
//
// Three implementations are provided:
//
//   - Default uses the operating system (package os), with flock(2) locks.
//   - NewMem returns an in-memory FS, safe for concurrent use.
//   - NewCrashableMem returns an in-memory FS that tracks what is durable;
//     its CrashClone method returns the state a machine would see after a
//     power failure (see MemFS for the exact model).
//
// NewErrorFS wraps any FS and fails chosen operations with ErrInjected.
//
// Errors for missing or existing paths wrap the standard fs errors, so
// errors.Is(err, fs.ErrNotExist) works with every implementation.
package vfs

import (
	"io"
	"os"
)

// File is an open file. Implementations are safe for use by one goroutine at
// a time, except ReadAt, which may be called concurrently.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Sync makes the file's current contents durable.
	Sync() error
	// Stat returns the file's metadata.
	Stat() (os.FileInfo, error)
}

// FS is a filesystem. All implementations in this package are safe for
// concurrent use.
type FS interface {
	// Create creates the named file for reading and writing, truncating it
	// if it exists. Its parent directory must exist.
	Create(name string) (File, error)
	// Open opens the named file read-only.
	Open(name string) (File, error)
	// OpenForAppend opens an existing file for reading and writing; every
	// write appends at the end of the file.
	OpenForAppend(name string) (File, error)
	// Remove removes the named file or empty directory.
	Remove(name string) error
	// RemoveAll removes dir and everything under it. It returns nil if dir
	// does not exist.
	RemoveAll(dir string) error
	// Rename renames oldname to newname, atomically replacing newname if it
	// exists and is a file.
	Rename(oldname, newname string) error
	// MkdirAll creates dir and any missing parents.
	MkdirAll(dir string, perm os.FileMode) error
	// List returns the names of the entries of dir, sorted.
	List(dir string) ([]string, error)
	// Stat returns the metadata of the named file or directory.
	Stat(name string) (os.FileInfo, error)
	// Lock takes an exclusive lock on the named file, creating it if needed.
	// The lock is held until the returned Closer is closed. A second Lock on
	// the same name fails with ErrLocked while the first is held.
	Lock(name string) (io.Closer, error)
	// SyncDir makes the creations, renames and removals of entries in dir
	// durable.
	SyncDir(dir string) error
	// PathJoin joins path elements with the FS's separator.
	PathJoin(elem ...string) string
}
