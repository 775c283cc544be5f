package memtable

// prefetchBucket asks the processor to bring b's cache lines into its
// caches without waiting for them (prefetch_amd64.s). It reads nothing the
// Go program sees and writes nothing.
//
//go:noescape
func prefetchBucket(b *bucket)
