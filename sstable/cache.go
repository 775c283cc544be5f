package sstable

import (
	"sync"
	"sync/atomic"
)

// This file holds the caches of the Readers' immutable files, as
// Cassandra's chunk cache (decompressed Data.db chunks) and key cache
// (partition key -> index entry) do. One Cache serves every Reader of an
// engine, within one budget for blocks and one for keys, so that memory
// follows the hot data whatever the number of SSTables.
//
// Everything cached is immutable: a cached chunk, index span or index entry
// is never written again, so rows and keys that alias it stay valid for as
// long as their holder keeps them, whatever the cache evicts (the garbage
// collector frees an evicted buffer once nothing aliases it).
//
// Entries are keyed by the Reader's cache id, which Open draws from the
// Cache and which is never reused: an SSTable removed by a compaction, a
// truncate or a drop takes its entries with it (Close forgets them), and a
// new SSTable, even one that reuses a generation number, can never be
// served what an older one cached.

// DefaultBlockCacheSize is the default budget of a shared Cache's blocks
// (CacheOptions.BlockCacheSize): 32 MiB of decompressed Data.db chunks,
// Index.db spans and reverse-read record positions, about 2,000 chunks of
// the default 16 KiB. Cassandra sizes its chunk cache at 512 MiB or a
// quarter of the heap, whichever is less; an embedded engine shares its
// process, so the default is smaller (pebble's is 8 MiB).
const DefaultBlockCacheSize = 32 << 20

// DefaultKeyCacheSize is the default budget of a shared Cache's key cache
// (CacheOptions.KeyCacheSize): 8 MiB, some 50,000 entries of narrow
// partitions (Cassandra's key_cache_size is 100 MiB or 5% of the heap,
// whichever is less).
const DefaultKeyCacheSize = 8 << 20

// DefaultChunkCacheSize is the default block budget of the private Cache a
// Reader opened without ReaderOptions.Cache gets: 64 chunks of the default
// 16 KiB.
const DefaultChunkCacheSize = 1 << 20

// DefaultReaderKeyCacheSize is the default key budget of the private Cache
// a Reader opened without ReaderOptions.Cache gets.
const DefaultReaderKeyCacheSize = 256 << 10

// CacheOptions configures NewCache. The zero value gives the defaults.
type CacheOptions struct {
	// BlockCacheSize is the budget in bytes of the block cache: the
	// decompressed Data.db chunks, the checked Index.db spans between two
	// Summary.db samples, and the record positions reverse reads walk. 0
	// means DefaultBlockCacheSize; a negative value disables it.
	BlockCacheSize int64
	// KeyCacheSize is the budget in bytes of the key cache: decoded index
	// entries by partition, so that a hot partition is found without the
	// summary or Index.db (a wide partition's entry holds its row index).
	// 0 means DefaultKeyCacheSize; a negative value disables it.
	KeyCacheSize int64
}

// Cache is the block cache and key cache shared by Readers (pass it in
// ReaderOptions.Cache). It is safe for concurrent use.
type Cache struct {
	blocks *clockCache // nil when disabled
	keys   *clockCache // nil when disabled
	ids    atomic.Uint64
}

// NewCache returns a Cache with the budgets of opts.
func NewCache(opts CacheOptions) *Cache {
	return &Cache{
		blocks: newClockCache(cacheBudget(opts.BlockCacheSize, DefaultBlockCacheSize), true),
		keys:   newClockCache(cacheBudget(opts.KeyCacheSize, DefaultKeyCacheSize), false),
	}
}

// CacheStats describes what a Cache holds.
type CacheStats struct {
	// Blocks and BlockBytes count the cached blocks and their charged size;
	// Keys and KeyBytes the key cache's entries.
	Blocks, Keys         int
	BlockBytes, KeyBytes int64
	// BlockBudget and KeyBudget are the budgets (0: disabled).
	BlockBudget, KeyBudget int64
}

// Stats returns what the cache holds.
func (c *Cache) Stats() CacheStats {
	var s CacheStats
	s.Blocks, s.BlockBytes, s.BlockBudget = c.blocks.stats(0)
	s.Keys, s.KeyBytes, s.KeyBudget = c.keys.stats(0)
	return s
}

// entriesOf returns how many block and key entries the cache holds for
// the Reader with cache id id (tests).
func (c *Cache) entriesOf(id uint64) (blocks, keys int) {
	blocks, _, _ = c.blocks.stats(id)
	keys, _, _ = c.keys.stats(id)
	return blocks, keys
}

// newID returns a cache id never returned before.
func (c *Cache) newID() uint64 { return c.ids.Add(1) }

// forget drops every entry of the Reader with cache id id.
func (c *Cache) forget(id uint64) {
	c.blocks.forget(id)
	c.keys.forget(id)
}

// The kinds of block cache entries.
const (
	kindChunk   = 1 // n: chunk index; value []byte
	kindSpan    = 2 // n: summary sample index; value *indexSpan
	kindRecords = 3 // n: stream position of a segment; value []uint32
	kindEntry   = 4 // key cache; n: token; value *indexEntry
)

// cacheEntryOverhead approximates what an entry costs beyond its bytes
// (map slot, slot, interface and slice headers).
const cacheEntryOverhead = 96

func (c *Cache) chunk(id uint64, i int) ([]byte, bool) {
	v, ok := c.blocks.get(cacheKey{id, kindChunk, uint64(i)})
	return v.bytes, ok
}

// putChunk caches b as chunk i and reports whether it did; if it did, the
// cache owns b from then on: b must never be written again. If it did not
// (the chunk is already cached, or not admitted), b stays the caller's.
func (c *Cache) putChunk(id uint64, i int, b []byte) bool {
	return c.blocks.put(cacheKey{id, kindChunk, uint64(i)}, cacheValue{bytes: b}, int64(cap(b))+cacheEntryOverhead)
}

// admitsChunk reports whether putChunk would cache chunk i of size bytes
// now (the shard has room, or the chunk missed lately), and if not,
// records the miss so that the next one is admitted.
func (c *Cache) admitsChunk(id uint64, i, size int) bool {
	return c.blocks.admits(cacheKey{id, kindChunk, uint64(i)}, int64(size)+cacheEntryOverhead)
}

func (c *Cache) span(id uint64, i int) (*indexSpan, bool) {
	v, ok := c.blocks.get(cacheKey{id, kindSpan, uint64(i)})
	if !ok {
		return nil, false
	}
	return v.ptr.(*indexSpan), true
}

// putSpan caches s and reports whether it did (a span another reader
// cached first stays, and so does one over half a shard).
func (c *Cache) putSpan(id uint64, i int, s *indexSpan) bool {
	return c.blocks.put(cacheKey{id, kindSpan, uint64(i)}, cacheValue{ptr: s}, int64(cap(s.raw)+24*cap(s.ents))+cacheEntryOverhead)
}

func (c *Cache) records(id uint64, pos uint64) ([]uint32, bool) {
	v, ok := c.blocks.get(cacheKey{id, kindRecords, pos})
	return v.records, ok
}

func (c *Cache) putRecords(id uint64, pos uint64, offs []uint32) {
	c.blocks.put(cacheKey{id, kindRecords, pos}, cacheValue{records: offs}, int64(4*cap(offs))+cacheEntryOverhead)
}

// entry returns the cached index entry of (token, key).
func (c *Cache) entry(id uint64, token int64, key []byte) (*indexEntry, bool) {
	v, ok := c.keys.get(cacheKey{id, kindEntry, uint64(token)})
	if !ok {
		return nil, false
	}
	e := v.ptr.(*indexEntry)
	if e.token != token || string(e.key) != string(key) {
		return nil, false // another key of the same token
	}
	return e, true
}

// putEntry caches e, whose slices alias bytes nothing writes.
func (c *Cache) putEntry(id uint64, e *indexEntry) {
	c.keys.put(cacheKey{id, kindEntry, uint64(e.token)}, cacheValue{ptr: e}, int64(len(e.key)+len(e.blockRaw)+len(e.marks))+cacheEntryOverhead+128)
}

// cacheBudget maps an option value to a budget: 0 is def, negative none.
func cacheBudget[T int | int64](v T, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return int64(v)
}

// cacheKey names one cached entry: the Reader's cache id, the kind of
// entry and its number in that kind.
type cacheKey struct {
	id   uint64
	kind uint8
	n    uint64
}

func (k cacheKey) hash() uint64 {
	h := k.id*0x9e3779b97f4a7c15 ^ (k.n+uint64(k.kind))*0xc2b2ae3d27d4eb4f
	return h ^ h>>29
}

// cacheValue is what a cache entry holds: a chunk's bytes, a segment's
// record positions, or a pointer (*indexSpan, *indexEntry). The slices have
// fields of their own because a slice stored in an interface is boxed, one
// allocation per entry cached.
type cacheValue struct {
	bytes   []byte
	records []uint32
	ptr     any
}

// clockCache is a sharded cache of variable-size entries evicted by the
// CLOCK algorithm: a hit sets the entry's reference bit (under a read
// lock), and the hand, looking for room, clears set bits and evicts the
// first entry whose bit is clear. A nil *clockCache caches nothing.
//
// A cache made with admission set (the block cache) lets a new entry into a
// full shard only on its second miss: the first miss of a key leaves its
// hash in the shard's doorkeeper, a small direct-mapped table of the keys
// refused lately, and only a key found there evicts something. A read
// workload larger than the cache then stops paying, on every read, for an
// eviction and a buffer the cache drops again before anyone reads it; what
// is read more than once in a while still gets in (the idea of TinyLFU's
// doorkeeper, without its frequency sketch). While a shard has room,
// everything is admitted at once.
type clockCache struct {
	shards []clockShard
	mask   uint64
	budget int64
}

// doorkeeperSlots is the size of a shard's doorkeeper: the number of keys
// refused lately that it remembers (8 KiB a shard). A key that misses again
// before another key's hash overwrites its slot is admitted.
const doorkeeperSlots = 1024

type clockShard struct {
	mu     sync.RWMutex
	m      map[cacheKey]int32
	slots  []clockSlot
	free   []int32
	hand   int
	used   int64
	budget int64
	// seen is the doorkeeper (nil without admission): hashes, or'ed with 1
	// so that zero means empty, of keys refused while the shard was full.
	seen []uint64
}

type clockSlot struct {
	key  cacheKey
	val  cacheValue
	size int64
	ref  uint32 // atomic: read since the hand last passed
	live bool
}

// shardBytes is the least budget of a shard: small caches have one.
const shardBytes = 4 << 20

// newClockCache returns a cache of budget bytes, or nil for a budget of
// zero; admission sets the second-miss admission of full shards.
func newClockCache(budget int64, admission bool) *clockCache {
	if budget <= 0 {
		return nil
	}
	n := 1
	for n < 16 && int64(2*n)*shardBytes <= budget {
		n *= 2
	}
	c := &clockCache{shards: make([]clockShard, n), mask: uint64(n - 1), budget: budget}
	for i := range c.shards {
		c.shards[i] = clockShard{m: map[cacheKey]int32{}, budget: budget / int64(n)}
		if admission {
			c.shards[i].seen = make([]uint64, doorkeeperSlots)
		}
	}
	return c
}

func (c *clockCache) shard(k cacheKey) *clockShard { return &c.shards[k.hash()&c.mask] }

// get returns the value cached under k.
func (c *clockCache) get(k cacheKey) (cacheValue, bool) {
	if c == nil {
		return cacheValue{}, false
	}
	s := c.shard(k)
	s.mu.RLock()
	i, ok := s.m[k]
	var v cacheValue
	if ok {
		sl := &s.slots[i]
		v = sl.val
		if atomic.LoadUint32(&sl.ref) == 0 {
			atomic.StoreUint32(&sl.ref, 1)
		}
	}
	s.mu.RUnlock()
	return v, ok
}

// put caches v under k, charged size bytes, evicting as needed, and
// reports whether v is cached. A key already cached keeps its value
// (another reader filled it meanwhile with the same bytes); an entry larger
// than half a shard is not cached; with admission, a key that would evict
// is cached only on its second miss (see clockCache).
func (c *clockCache) put(k cacheKey, v cacheValue, size int64) bool {
	if c == nil {
		return false
	}
	s, h, fits := c.shardFor(k, size)
	if !fits {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; ok {
		return false
	}
	ok, slot := s.doorkeeper(h, size)
	if !ok {
		return false
	}
	if slot != nil {
		*slot = 0
	}
	for s.used+size > s.budget {
		s.evictOne()
	}
	var i int32
	if n := len(s.free); n > 0 {
		i = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		s.slots = append(s.slots, clockSlot{})
		i = int32(len(s.slots) - 1)
	}
	s.slots[i] = clockSlot{key: k, val: v, size: size, live: true}
	s.m[k] = i
	s.used += size
	return true
}

// shardFor returns the shard of k and k's hash, and whether an entry of
// size bytes may be cached there at all (at most half the shard).
func (c *clockCache) shardFor(k cacheKey, size int64) (*clockShard, uint64, bool) {
	h := k.hash()
	s := &c.shards[h&c.mask]
	return s, h, size <= s.budget/2
}

// admits reports whether put would cache an entry of size bytes under k
// now, and if not, leaves k in the doorkeeper (the miss put would have
// recorded), so that a put on k's next miss caches it.
func (c *clockCache) admits(k cacheKey, size int64) bool {
	if c == nil {
		return false
	}
	s, h, fits := c.shardFor(k, size)
	if !fits {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, _ := s.doorkeeper(h, size)
	return ok
}

// doorkeeper reports whether an entry of size bytes whose key hashes to h
// may enter the shard now: always while the shard has room or without
// admission, else only if h missed lately; if it did not, h is recorded,
// so that its next miss enters. The slot returned (nil while the shard has
// room) holds h; the caller clears it once the entry is in. The caller
// holds the write lock.
func (s *clockShard) doorkeeper(h uint64, size int64) (bool, *uint64) {
	if s.used+size <= s.budget || s.seen == nil {
		return true, nil
	}
	// The shard's index bits of h are the same for all its keys: the
	// doorkeeper's slot takes the bits above them.
	slot := &s.seen[(h>>4)%doorkeeperSlots]
	if *slot == h|1 {
		return true, slot
	}
	*slot = h | 1
	return false, nil
}

// evictOne advances the hand to the first live entry not referenced since
// the hand last passed and evicts it. The caller holds the write lock and
// s.used > 0.
func (s *clockShard) evictOne() {
	for {
		if s.hand >= len(s.slots) {
			s.hand = 0
		}
		sl := &s.slots[s.hand]
		s.hand++
		if !sl.live {
			continue
		}
		if atomic.LoadUint32(&sl.ref) != 0 {
			atomic.StoreUint32(&sl.ref, 0)
			continue
		}
		s.remove(int32(s.hand - 1))
		return
	}
}

func (s *clockShard) remove(i int32) {
	sl := &s.slots[i]
	delete(s.m, sl.key)
	s.used -= sl.size
	s.slots[i] = clockSlot{}
	s.free = append(s.free, i)
}

// forget evicts every entry of cache id id.
func (c *clockCache) forget(id uint64) {
	if c == nil {
		return
	}
	for si := range c.shards {
		s := &c.shards[si]
		s.mu.Lock()
		for i := range s.slots {
			if s.slots[i].live && s.slots[i].key.id == id {
				s.remove(int32(i))
			}
		}
		s.mu.Unlock()
	}
}

// stats counts the entries and charged bytes of cache id id (every id if
// 0) and returns the budget.
func (c *clockCache) stats(id uint64) (n int, bytes, budget int64) {
	if c == nil {
		return 0, 0, 0
	}
	for si := range c.shards {
		s := &c.shards[si]
		s.mu.RLock()
		for i := range s.slots {
			if sl := &s.slots[i]; sl.live && (id == 0 || sl.key.id == id) {
				n++
				bytes += sl.size
			}
		}
		s.mu.RUnlock()
	}
	return n, bytes, c.budget
}

// rawPool recycles the buffers compressed chunks are read into: nothing
// returned to callers aliases them.
var rawPool = sync.Pool{New: func() any { return new([]byte) }}

// indexPool recycles Index.db read buffers; a matched entry's payload is
// copied out before the buffer goes back.
var indexPool = sync.Pool{New: func() any { return new([]byte) }}
