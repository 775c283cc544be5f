package memtable

import (
	"sync"
	"unsafe"
)

// Arena sizes: a shard's first chunk is minChunk bytes and each next one
// twice the last, up to maxChunk, so that a memtable with a few rows holds
// little and a large one allocates once per maxChunk bytes. An allocation
// larger than maxChunk/4 gets a chunk of its own, so that a big value never
// wastes the rest of a shared chunk.
const (
	minChunk = 1 << 10
	maxChunk = 64 << 10
)

// arena hands out byte ranges that live as long as the memtable: the keys,
// encoded rows and range-tombstone bounds a memtable copies from the
// mutations applied to it. Its chunks are []byte, which the garbage
// collector never scans, and a range, once written and published, is never
// written again. A memtable has one arena per shard; its mutex is held only
// to move the bump pointer and to add to keep.
type arena struct {
	mu  sync.Mutex
	cur []byte // the current chunk; len is the part handed out
	// keep holds every chunk the arena made, every allocation it made
	// outside chunks, every partitionMore of the shard's partitions
	// (keepMore) and every partition slab of the shard, for as long as
	// the memtable lives. The partition slabs are memory the collector
	// does not scan (see newSlab): the pointers a partition holds (its
	// key, its only row, its more) keep nothing alive, and the index's
	// buckets do not keep their partitions alive (see pref); this list
	// does it for them. It grows by one entry per chunk (at most 64 KiB),
	// per slab (at most 8 KiB) and per partition with more.
	keep []unsafe.Pointer
	// A shard's arena fills one 64-byte cache line (Mutex 8, two slices
	// 48), so that writers of two shards do not share one.
	_ [8]byte
}

// alloc returns n bytes of the arena, which the caller alone may write
// until it publishes them, and the bytes the arena grew by to provide them
// (a new chunk, or 0 if the current one had room): the memtable accounts
// for whole chunks, the memory it holds.
func (a *arena) alloc(n int) (b []byte, grown int) {
	if n == 0 {
		return nil, 0
	}
	if n > maxChunk/4 {
		b = make([]byte, n)
		a.mu.Lock()
		a.keep = append(a.keep, unsafe.Pointer(unsafe.SliceData(b)))
		a.mu.Unlock()
		return b, n
	}
	a.mu.Lock()
	if len(a.cur)+n > cap(a.cur) {
		// Doubling may fall short of n (at most maxChunk/4): the chunk
		// grows to the first power of two that holds it.
		size := min(max(2*cap(a.cur), minChunk), maxChunk)
		for size < n {
			size *= 2
		}
		a.cur, grown = make([]byte, 0, size), size
		a.keep = append(a.keep, unsafe.Pointer(unsafe.SliceData(a.cur)))
	}
	off := len(a.cur)
	a.cur = a.cur[:off+n]
	b = a.cur[off : off+n : off+n]
	a.mu.Unlock()
	return b, grown
}

// keepMore adds m, the partitionMore of one of the shard's partitions, to
// a.keep: the partition's pointer to it, in a slab, keeps nothing alive.
func (a *arena) keepMore(m *partitionMore) { a.keepPtr(unsafe.Pointer(m)) }

// keepPtr adds p to a.keep.
func (a *arena) keepPtr(p unsafe.Pointer) {
	a.mu.Lock()
	a.keep = append(a.keep, p)
	a.mu.Unlock()
}

// copyIn returns a copy of s in the arena (nil for nil s, and an empty
// non-nil slice for an empty one) and the bytes the arena grew by.
func (a *arena) copyIn(s []byte) ([]byte, int) {
	if s == nil {
		return nil, 0
	}
	if len(s) == 0 {
		return emptyBytes, 0
	}
	b, grown := a.alloc(len(s))
	copy(b, s)
	return b, grown
}

// emptyBytes is the empty, non-nil slice copyIn returns for empty input.
var emptyBytes = make([]byte, 0)

// arenaSize is the size of an arena, checked by a test: a cache line.
const arenaSize = unsafe.Sizeof(arena{})
