//go:build !amd64

package memtable

import "unsafe"

// prefetchBucket does nothing where no prefetch instruction is wired up;
// Memtable.Prefetch is then only a directory load.
func prefetchBucket(*bucket) {}

// prefetchLine does nothing where no prefetch instruction is wired up.
func prefetchLine(unsafe.Pointer) {}
