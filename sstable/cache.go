package sstable

import (
	"sync"
)

// This file holds what a Reader caches of its immutable files, as
// Cassandra's chunk cache (decompressed Data.db chunks) and key cache
// (index entries of recently read partitions) do, but per Reader and small
// by default. Everything cached is immutable: a cached chunk or index entry
// is never written again, so rows and keys that alias it stay valid for as
// long as their holder keeps them, whatever the cache evicts.

// DefaultChunkCacheSize is the default per-Reader budget, in bytes of
// uncompressed data, of decompressed Data.db chunks kept for reuse (64
// chunks of the default 16 KiB).
const DefaultChunkCacheSize = 1 << 20

// DefaultKeyCacheSize is the default per-Reader budget, in bytes, of index
// entries kept for reuse (the payload of a wide partition's entry holds its
// row index).
const DefaultKeyCacheSize = 256 << 10

// cacheBudget maps an option value to a budget: 0 is def, negative none.
func cacheBudget(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// chunkCache holds decompressed chunks by index, evicting with the CLOCK
// algorithm (a chunk read since the hand last passed gets a second chance).
type chunkCache struct {
	mu    sync.Mutex
	slots []chunkSlot
	where map[int]int // chunk index -> slot
	hand  int
}

type chunkSlot struct {
	idx  int
	b    []byte
	used bool
}

// newChunkCache returns a cache of budget bytes of chunks of chunkLen
// bytes, or nil if it would not hold two chunks.
func newChunkCache(budget int, chunkLen uint64) *chunkCache {
	if chunkLen == 0 {
		return nil
	}
	n := uint64(budget) / chunkLen
	if n < 2 {
		return nil
	}
	return &chunkCache{slots: make([]chunkSlot, 0, n), where: make(map[int]int, n)}
}

// get returns chunk i if cached.
func (c *chunkCache) get(i int) ([]byte, bool) {
	c.mu.Lock()
	s, ok := c.where[i]
	var b []byte
	if ok {
		c.slots[s].used = true
		b = c.slots[s].b
	}
	c.mu.Unlock()
	return b, ok
}

// put caches b as chunk i. The cache owns b from then on: b must never be
// written again.
func (c *chunkCache) put(i int, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.where[i]; ok {
		return // another reader decompressed it meanwhile
	}
	if len(c.slots) < cap(c.slots) {
		c.where[i] = len(c.slots)
		c.slots = append(c.slots, chunkSlot{idx: i, b: b})
		return
	}
	for c.slots[c.hand].used {
		c.slots[c.hand].used = false
		c.hand = (c.hand + 1) % len(c.slots)
	}
	s := &c.slots[c.hand]
	delete(c.where, s.idx)
	*s = chunkSlot{idx: i, b: b}
	c.where[i] = c.hand
	c.hand = (c.hand + 1) % len(c.slots)
}

// keyCacheOverhead approximates the bytes a key cache entry costs beyond
// its key and payload (map slot, indexEntry, string header).
const keyCacheOverhead = 160

// keyCache holds decoded index entries by partition key. The entries'
// slices alias payload copies that nothing writes.
type keyCache struct {
	mu     sync.Mutex
	budget int
	size   int
	m      map[string]keyCacheItem
}

type keyCacheItem struct {
	e    *indexEntry
	cost int
}

func newKeyCache(budget int) *keyCache {
	if budget <= 0 {
		return nil
	}
	return &keyCache{budget: budget, m: map[string]keyCacheItem{}}
}

// get returns the cached entry of (token, key).
func (c *keyCache) get(token int64, key []byte) (*indexEntry, bool) {
	c.mu.Lock()
	it, ok := c.m[string(key)]
	c.mu.Unlock()
	if !ok || it.e.token != token {
		return nil, false
	}
	return it.e, true
}

// put caches e, whose payload is payloadLen bytes, evicting arbitrary entries (Go's map iteration order is
// random) to stay within the budget. An entry larger than half the budget
// is not cached.
func (c *keyCache) put(e *indexEntry, payloadLen int) {
	cost := len(e.key) + payloadLen + keyCacheOverhead
	if cost > c.budget/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[string(e.key)]; ok {
		return
	}
	for k, old := range c.m {
		if c.size+cost <= c.budget {
			break
		}
		c.size -= old.cost
		delete(c.m, k)
	}
	c.m[string(e.key)] = keyCacheItem{e: e, cost: cost}
	c.size += cost
}

// rawPool recycles the buffers compressed chunks are read into: nothing
// returned to callers aliases them.
var rawPool = sync.Pool{New: func() any { return new([]byte) }}

// indexPool recycles Index.db read buffers; a matched entry's payload is
// copied out before the buffer goes back.
var indexPool = sync.Pool{New: func() any { return new([]byte) }}
