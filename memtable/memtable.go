package memtable

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/minicass/minicass/data"
)

// btreeDegree is the degree of the row B-trees: nodes hold up to
// 2*degree-1 items.
const btreeDegree = 16

// Memtable is a sorted in-memory buffer of partitions. See the package
// documentation for its layout and concurrency model. The zero value is not
// usable; call New.
type Memtable struct {
	shards [numShards]shard

	rowFree *btree.FreeListG[*data.Row]

	size  atomic.Int64
	count atomic.Int64
	minTS atomic.Int64
	maxTS atomic.Int64
}

// The partition index is split by token range into numShards shards, each
// a B-tree under its own lock, so concurrent writers of different
// partitions rarely touch the same lock or tree. Shard i holds the tokens
// whose top shardBits bits (of the token offset by 2^63, so that shards are
// in token order) are i; murmur3 tokens spread evenly over them.
const (
	shardBits = 4
	numShards = 1 << shardBits
)

// shard is one token range of the partition index.
type shard struct {
	mu    sync.RWMutex
	parts ptree
	// snap caches a snapshot of parts taken by a scan; it is dropped when a
	// partition is inserted. Guarded by mu.
	snap *ptree
	// A shard fills a 64-byte cache line (RWMutex 24, ptree 32, snap 8),
	// so that writers of two shards do not share one.
}

// shardOf returns the index of the shard holding token.
func shardOf(token int64) int { return int((uint64(token) ^ 1<<63) >> (64 - shardBits)) }

// New returns an empty memtable.
func New() *Memtable {
	m := &Memtable{
		rowFree: btree.NewFreeListG[*data.Row](64),
	}
	m.minTS.Store(math.MaxInt64)
	m.maxTS.Store(math.MinInt64)
	return m
}

// Size returns the estimated number of bytes the memtable holds.
func (m *Memtable) Size() int64 { return m.size.Load() }

// Len returns the number of partitions in the memtable.
func (m *Memtable) Len() int { return int(m.count.Load()) }

// IsEmpty reports whether nothing was ever applied to the memtable.
func (m *Memtable) IsEmpty() bool { return m.count.Load() == 0 }

// TimestampBounds returns the smallest and largest write timestamp (of cells,
// liveness records and deletions) applied so far, and false if the memtable
// holds no timestamp.
func (m *Memtable) TimestampBounds() (min, max int64, ok bool) {
	min, max = m.minTS.Load(), m.maxTS.Load()
	return min, max, min <= max
}

func (m *Memtable) noteTimestamps(lo, hi int64) {
	if lo > hi {
		return
	}
	for {
		cur := m.minTS.Load()
		if lo >= cur || m.minTS.CompareAndSwap(cur, lo) {
			break
		}
	}
	for {
		cur := m.maxTS.Load()
		if hi <= cur || m.maxTS.CompareAndSwap(cur, hi) {
			break
		}
	}
}

// Apply applies mutation mu to the partition (token, mu.Key), creating the
// partition if needed, and returns the change of the memtable's estimated
// size in bytes (negative when reconciliation dropped more than was added).
// The whole mutation becomes visible to readers at once. The memtable takes
// ownership of mu's key, rows, cells and their bytes: the caller must not
// modify them afterwards. mu.Table is not checked; the caller routes
// mutations to the memtable of their table.
func (m *Memtable) Apply(token int64, mu *data.Mutation) (bytesAdded int) {
	p, overhead := m.partitionFor(token, mu.Key)
	p.mu.Lock()
	delta, lo, hi := p.apply(mu, m.rowFree)
	p.mu.Unlock()
	m.size.Add(int64(delta + overhead))
	m.noteTimestamps(lo, hi)
	return delta
}

// partitionFor returns the partition (token, key), inserting an empty one if
// there is none. An existing partition costs one tree walk under the read
// lock. A new one is allocated after that walk, before the write lock is
// taken, so the lock is held only briefly: if the shard's tree did not
// change in between, the partition goes straight into the leaf the walk
// found; otherwise (another insert, a scan's clone, or a full leaf) a
// second walk finds or inserts it at once.
//
// overhead is the estimated size of a partition it inserted (zero if it
// found one), which the caller adds to the memtable's size with its own
// change, in one atomic add.
func (m *Memtable) partitionFor(token int64, key []byte) (p *partition, overhead int) {
	sh := &m.shards[shardOf(token)]
	sh.mu.RLock()
	p, at := sh.parts.lookup(token, key)
	sh.mu.RUnlock()
	if p != nil {
		return p, 0
	}
	np := newPartition(token, key)
	sh.mu.Lock()
	inserted := sh.parts.insertAt(at, np)
	if inserted {
		p = np
	} else {
		p, inserted = sh.parts.getOrInsert(np)
	}
	if inserted {
		sh.snap = nil
	}
	sh.mu.Unlock()
	if inserted {
		m.count.Add(1)
		overhead = partitionOverhead + len(key)
	}
	return p, overhead
}

// Get returns a snapshot of the partition (token, key), or false if the
// memtable holds nothing for it. The snapshot is not affected by later
// writes.
func (m *Memtable) Get(token int64, key []byte) (data.PartitionSource, bool) {
	sh := &m.shards[shardOf(token)]
	sh.mu.RLock()
	p := sh.parts.get(token, key)
	sh.mu.RUnlock()
	if p == nil {
		return nil, false
	}
	return p.snapshot(), true
}

// Scan returns an iterator over the partitions whose token lies in r, in
// (token, key) order. It works on a snapshot of the partition set taken now
// (partitions inserted later are not seen): the shards are locked together
// while their snapshots are taken. Each partition is itself snapshotted
// when the iterator reaches it.
func (m *Memtable) Scan(r data.TokenRange) data.PartitionIterator {
	return m.scan(r, false)
}

// ScanReuse is Scan for a caller that finishes with each partition before
// asking for the next, such as a flush: Next overwrites one snapshot
// instead of allocating a new one per partition. The PartitionSource that
// Next returns, and the row iterator its Rows returns, are valid only until
// the next call to Next or Close; the rows, keys and range tombstones they
// hand out belong to the memtable and stay valid, as with Scan. Each
// partition is still snapshotted consistently, a few partitions before
// Next returns it (to overlap the cache misses of neighbouring partitions),
// so ScanReuse is safe while writes continue.
func (m *Memtable) ScanReuse(r data.TokenRange) data.PartitionIterator {
	return m.scan(r, true)
}

func (m *Memtable) scan(r data.TokenRange, reuse bool) data.PartitionIterator {
	it := &partitionIter{r: r, reuse: reuse}
	if r.Start > r.End {
		it.done = true
		return it
	}
	lo, hi := shardOf(r.Start), shardOf(r.End)
	for i := lo; i <= hi; i++ {
		m.shards[i].mu.Lock()
	}
	for i := lo; i <= hi; i++ {
		sh := &m.shards[i]
		if sh.snap == nil {
			sh.snap = sh.parts.clone()
		}
		it.trees[i] = sh.snap
	}
	for i := hi; i >= lo; i-- {
		m.shards[i].mu.Unlock()
	}
	it.shard, it.last = lo, hi
	return it
}
