//go:build linux

package vfs

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

type mappingImpl struct{ f *os.File }

func mapFile(f File, size int64) (*Mapping, bool, error) {
	of, ok := f.(*os.File)
	if !ok || size <= 0 {
		return nil, false, nil
	}
	fd := int(of.Fd())
	if err := unix.Fallocate(fd, 0, 0, size); err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
			return nil, false, nil // the filesystem cannot preallocate: write instead
		}
		return nil, false, fmt.Errorf("vfs: preallocating %d bytes for %s: %w", size, of.Name(), err)
	}
	b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, false, fmt.Errorf("vfs: mapping %s: %w", of.Name(), err)
	}
	return &Mapping{b: b, impl: mappingImpl{f: of}}, true, nil
}

func (m mappingImpl) sync(b []byte, off, n int64) error {
	if n <= 0 {
		return nil
	}
	// msync works on whole pages: start at the page holding off.
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	end := min(off+n, int64(len(b)))
	if err := unix.Msync(b[start:end], unix.MS_SYNC); err != nil {
		return fmt.Errorf("vfs: msync of %s: %w", m.f.Name(), err)
	}
	return nil
}

func (m mappingImpl) close(b []byte, size int64) error {
	err := unix.Munmap(b)
	if terr := m.f.Truncate(size); terr != nil && err == nil {
		err = terr
	}
	if err != nil {
		return fmt.Errorf("vfs: closing the mapping of %s: %w", m.f.Name(), err)
	}
	return nil
}
