//go:build !unix

package vfs

import (
	"errors"
	"io"
)

// lockFile is not implemented on this platform.
func lockFile(name string) (io.Closer, error) {
	return nil, errors.New("vfs: file locking is not supported on this platform")
}
