package vfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// Op names a kind of filesystem operation an Injector can fail.
type Op int

// The operation kinds seen by an Injector.
const (
	OpCreate Op = iota
	OpOpen
	OpOpenForAppend
	OpRemove
	OpRemoveAll
	OpRename
	OpMkdirAll
	OpList
	OpStat
	OpLock
	OpSyncDir
	OpRead // File.Read and File.ReadAt
	OpWrite
	OpSync // File.Sync
	OpClose
	numOps
)

var opNames = [...]string{"create", "open", "open-append", "remove", "remove-all", "rename",
	"mkdir-all", "list", "stat", "lock", "sync-dir", "read", "write", "sync", "close"}

// String returns the operation's name, such as "write".
func (o Op) String() string {
	if o >= 0 && o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// Injector decides whether an operation fails. MaybeError is called before
// each operation with its kind and path; a non-nil result is returned to the
// caller instead of performing the operation.
type Injector interface {
	MaybeError(op Op, name string) error
}

// InjectorFunc adapts a function to the Injector interface.
type InjectorFunc func(op Op, name string) error

// MaybeError implements Injector.
func (f InjectorFunc) MaybeError(op Op, name string) error { return f(op, name) }

// OnNth returns an Injector that fails the n-th (1-based) operation of kind
// op, once, with an error wrapping ErrInjected. It is safe for concurrent use.
func OnNth(op Op, n int) Injector {
	var count atomic.Int64
	return InjectorFunc(func(o Op, name string) error {
		if o != op {
			return nil
		}
		if count.Add(1) == int64(n) {
			return fmt.Errorf("%w: %s %s (#%d)", ErrInjected, op, name, n)
		}
		return nil
	})
}

// FromNth returns an Injector that fails the n-th (1-based) operation of
// kind op and every later one, as a disk that stops working would.
func FromNth(op Op, n int) Injector {
	var count atomic.Int64
	return InjectorFunc(func(o Op, name string) error {
		if o != op {
			return nil
		}
		if c := count.Add(1); c >= int64(n) {
			return fmt.Errorf("%w: %s %s (#%d)", ErrInjected, op, name, c)
		}
		return nil
	})
}

// ShortWriteError is an injected error that makes a File.Write of an
// ErrorFS write the first Keep bytes of its buffer before failing, as a
// write interrupted by a full disk or an I/O error can. It wraps
// ErrInjected.
type ShortWriteError struct {
	// Keep is the number of bytes written before the failure.
	Keep int
}

// Error implements error.
func (e *ShortWriteError) Error() string {
	return fmt.Sprintf("vfs: injected error after a short write of %d bytes", e.Keep)
}

// Unwrap makes errors.Is(err, ErrInjected) hold.
func (e *ShortWriteError) Unwrap() error { return ErrInjected }

// ShortWriteOnNth returns an Injector that makes the n-th (1-based)
// File.Write write only its first keep bytes and then fail with a
// *ShortWriteError.
func ShortWriteOnNth(n, keep int) Injector {
	var count atomic.Int64
	return InjectorFunc(func(o Op, name string) error {
		if o == OpWrite && count.Add(1) == int64(n) {
			return &ShortWriteError{Keep: keep}
		}
		return nil
	})
}

// ErrorFS wraps an FS and fails the operations its Injector chooses. A
// failed operation has no effect on the wrapped FS (a failed write writes
// nothing, a failed sync syncs nothing), except a write failed with a
// *ShortWriteError, which writes the bytes it keeps.
type ErrorFS struct {
	fs  FS
	inj Injector
}

// NewErrorFS returns an FS that consults inj before every operation on fs
// and on the files it opens.
func NewErrorFS(fs FS, inj Injector) *ErrorFS { return &ErrorFS{fs: fs, inj: inj} }

func (e *ErrorFS) check(op Op, name string) error { return e.inj.MaybeError(op, name) }

// Create implements FS.
func (e *ErrorFS) Create(name string) (File, error) {
	if err := e.check(OpCreate, name); err != nil {
		return nil, err
	}
	f, err := e.fs.Create(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, e: e, name: name}, nil
}

// Open implements FS.
func (e *ErrorFS) Open(name string) (File, error) {
	if err := e.check(OpOpen, name); err != nil {
		return nil, err
	}
	f, err := e.fs.Open(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, e: e, name: name}, nil
}

// OpenForAppend implements FS.
func (e *ErrorFS) OpenForAppend(name string) (File, error) {
	if err := e.check(OpOpenForAppend, name); err != nil {
		return nil, err
	}
	f, err := e.fs.OpenForAppend(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, e: e, name: name}, nil
}

// Remove implements FS.
func (e *ErrorFS) Remove(name string) error {
	if err := e.check(OpRemove, name); err != nil {
		return err
	}
	return e.fs.Remove(name)
}

// RemoveAll implements FS.
func (e *ErrorFS) RemoveAll(dir string) error {
	if err := e.check(OpRemoveAll, dir); err != nil {
		return err
	}
	return e.fs.RemoveAll(dir)
}

// Rename implements FS.
func (e *ErrorFS) Rename(oldname, newname string) error {
	if err := e.check(OpRename, oldname); err != nil {
		return err
	}
	return e.fs.Rename(oldname, newname)
}

// MkdirAll implements FS.
func (e *ErrorFS) MkdirAll(dir string, perm os.FileMode) error {
	if err := e.check(OpMkdirAll, dir); err != nil {
		return err
	}
	return e.fs.MkdirAll(dir, perm)
}

// List implements FS.
func (e *ErrorFS) List(dir string) ([]string, error) {
	if err := e.check(OpList, dir); err != nil {
		return nil, err
	}
	return e.fs.List(dir)
}

// Stat implements FS.
func (e *ErrorFS) Stat(name string) (os.FileInfo, error) {
	if err := e.check(OpStat, name); err != nil {
		return nil, err
	}
	return e.fs.Stat(name)
}

// Lock implements FS.
func (e *ErrorFS) Lock(name string) (io.Closer, error) {
	if err := e.check(OpLock, name); err != nil {
		return nil, err
	}
	return e.fs.Lock(name)
}

// SyncDir implements FS.
func (e *ErrorFS) SyncDir(dir string) error {
	if err := e.check(OpSyncDir, dir); err != nil {
		return err
	}
	return e.fs.SyncDir(dir)
}

// PathJoin implements FS; it never fails.
func (e *ErrorFS) PathJoin(elem ...string) string { return e.fs.PathJoin(elem...) }

// errorFile wraps a File of an ErrorFS.
type errorFile struct {
	f    File
	e    *ErrorFS
	name string
}

func (f *errorFile) Read(p []byte) (int, error) {
	if err := f.e.check(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.f.Read(p)
}

func (f *errorFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.e.check(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.f.ReadAt(p, off)
}

func (f *errorFile) Write(p []byte) (int, error) {
	if err := f.e.check(OpWrite, f.name); err != nil {
		var sw *ShortWriteError
		if errors.As(err, &sw) && sw.Keep > 0 {
			n, werr := f.f.Write(p[:min(sw.Keep, len(p))])
			if werr != nil {
				return n, werr
			}
			return n, err
		}
		return 0, err
	}
	return f.f.Write(p)
}

func (f *errorFile) Sync() error {
	if err := f.e.check(OpSync, f.name); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *errorFile) Stat() (os.FileInfo, error) {
	if err := f.e.check(OpStat, f.name); err != nil {
		return nil, err
	}
	return f.f.Stat()
}

// Close always closes the wrapped file; an injected error is returned after.
func (f *errorFile) Close() error {
	err := f.f.Close()
	if ierr := f.e.check(OpClose, f.name); ierr != nil {
		return ierr
	}
	return err
}
