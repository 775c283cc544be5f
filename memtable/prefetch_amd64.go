package memtable

import "unsafe"

// prefetchBucket asks the processor to bring b's cache lines into its
// caches without waiting for them (prefetch_amd64.s). It reads nothing the
// Go program sees and writes nothing.
//
//go:noescape
func prefetchBucket(b *bucket)

// prefetchLine asks the processor to bring the cache line holding p into
// its caches without waiting for it (prefetch_amd64.s). Like
// prefetchBucket it reads and writes nothing the program sees; p need not
// be valid memory for long, a prefetch never faults.
//
//go:noescape
func prefetchLine(p unsafe.Pointer)
