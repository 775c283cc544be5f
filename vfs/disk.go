package vfs

import (
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Default is the FS of the operating system.
var Default FS = diskFS{}

// diskFS implements FS with package os.
type diskFS struct{}

func (diskFS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
}

func (diskFS) Open(name string) (File, error) { return os.Open(name) }

func (diskFS) OpenForAppend(name string) (File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_APPEND, 0)
}

func (diskFS) Remove(name string) error                    { return os.Remove(name) }
func (diskFS) RemoveAll(dir string) error                  { return os.RemoveAll(dir) }
func (diskFS) Rename(oldname, newname string) error        { return os.Rename(oldname, newname) }
func (diskFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }
func (diskFS) Stat(name string) (os.FileInfo, error)       { return os.Stat(name) }
func (diskFS) PathJoin(elem ...string) string              { return filepath.Join(elem...) }

func (diskFS) List(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

func (diskFS) SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (diskFS) Lock(name string) (io.Closer, error) { return lockFile(name) }
