//go:build !linux

package vfs

type mappingImpl struct{}

// mapFile maps nothing outside Linux: the caller writes with Write.
func mapFile(File, int64) (*Mapping, bool, error) { return nil, false, nil }

func (mappingImpl) sync([]byte, int64, int64) error { return nil }

func (mappingImpl) close([]byte, int64) error { return nil }
