//go:build unix

package vfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// lockFile takes a non-blocking exclusive flock(2) on name. flock locks
// belong to the open file description, so a second lockFile on the same
// path fails even inside one process.
func lockFile(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, name)
		}
		return nil, &os.PathError{Op: "flock", Path: name, Err: err}
	}
	return f, nil
}
