package vfs

import "errors"

// ErrLocked is returned by FS.Lock when the lock file is already held, by
// another process (on disk) or by an earlier Lock on the same FS (in memory).
var ErrLocked = errors.New("vfs: lock held by another owner")

// ErrInjected is the error an ErrorFS returns for an operation its Injector
// chose to fail.
var ErrInjected = errors.New("vfs: injected error")

// ErrClosed is returned by operations on a File that has been closed.
var ErrClosed = errors.New("vfs: file already closed")

// ErrReadOnly is returned by Write on a File opened with FS.Open.
var ErrReadOnly = errors.New("vfs: file opened read-only")
