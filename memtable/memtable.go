package memtable

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

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
	// body holds the partitions, allocated by the first Apply: until then
	// it is nil and the memtable is empty. An engine keeps a memtable for
	// every table, most of the system tables are never written, and the
	// body is some 3.5 KiB, so an empty memtable costs a few words.
	body atomic.Pointer[body]

	size  atomic.Int64
	count atomic.Int64
	ops   atomic.Int64
	minTS atomic.Int64
}

// body is the part of a memtable that holds its partitions.
type body struct {
	shards [numShards]shard
	// arenas holds each shard's keys, rows and range-tombstone bounds.
	arenas [numShards]arena

	rowFree *btree.FreeListG[rowItem]
}

// writable returns m's body, allocating it if no Apply has yet.
func (m *Memtable) writable() *body {
	if b := m.body.Load(); b != nil {
		return b
	}
	b := &body{rowFree: btree.NewFreeListG[rowItem](64)}
	if m.body.CompareAndSwap(nil, b) {
		return b
	}
	return m.body.Load()
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
	// mu serializes inserts into parts and snapshots of it; lookups take
	// no lock (see pindex).
	mu    sync.Mutex
	parts pindex
	// snap caches a snapshot of parts taken by a scan; it is dropped when a
	// partition is inserted. Guarded by mu.
	snap *psnap
	// slab holds the shard's next partitions, allocated together: next
	// is the first unused one. Guarded by mu.
	slab []partition
	next int
	// A shard fills two 64-byte cache lines (Mutex 8, pindex 24, snap 8,
	// slab 32, padding 56), so that writers of two shards do not share
	// one.
	_ [56]byte
}

// Partitions are allocated in slabs of growing size, from one partition up
// to maxSlab (about 8 KiB): a memtable with a few partitions per shard
// wastes little, and a large one makes one allocation per maxSlab
// partitions instead of one per partition. All partitions of a slab live
// as long as the memtable, so none holds another's memory longer than it
// would itself be held.
const maxSlab = 8192 / int(unsafe.Sizeof(partition{}))

// newSlab returns a slab of n zero partitions in memory the garbage
// collector does not scan: a []byte, cast. The collector's mark phase
// would otherwise read every partition of every slab, some 14% of a
// narrow write's CPU at a million partitions, to find pointers that it
// reaches anyway through the arena.
//
// Why this is sound:
//   - A partition's pointer fields (key, one, more; its sync.Mutex holds
//     none) are never followed by the collector here, so they keep nothing
//     alive. Everything they point to is kept alive by the keep list of
//     the arena of the partition's shard: the arena chunks and the
//     allocations made outside chunks (arena.alloc), which hold every key
//     and encoded row, and every partitionMore (partition.extra). The
//     arenas live in the memtable's body as long as the memtable, and a
//     scan keeps the body too (partitionIter.body), since its cursor
//     reads partitions; Get and a scan's Next keep the body alive until
//     the snapshot they take holds what it needs (runtime.KeepAlive).
//     emptyBytes, which setRow never gets, is a global. What a
//     partitionMore points to (the row B-trees, range tombstones) is
//     scanned memory reached from the keep list.
//   - The slabs themselves are in the same keep list (newPartition): the
//     index's buckets refer to partitions by plain words (see pref).
//   - Storing a pointer into the slab runs the write barrier as any
//     pointer store does; it does not need the slot to be scanned. Bulk
//     barriers (typedmemclr in unnew) skip noscan memory, which is fine
//     for the same reason.
//   - The collector does not move heap objects, so the pointers stay
//     valid; a partition never points to a stack.
//   - Alignment: the allocation holds at least one 48-byte partition,
//     and the runtime aligns objects of 16 bytes or more (noscan objects
//     below 16 bytes may be packed by the tiny allocator) to at least 8
//     bytes, partition's alignment.
func newSlab(n int) []partition {
	b := make([]byte, n*int(unsafe.Sizeof(partition{})))
	return unsafe.Slice((*partition)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// newPartition returns a new, empty partition (token, key) from the shard's
// slab, with key copied into a's arena and room bytes reserved after it
// (a.spare, see applier). The caller holds sh.mu; if it does not insert the
// partition, it returns it with unnew before unlocking.
func (sh *shard) newPartition(token int64, key []byte, room int, a *applier) *partition {
	if sh.next == len(sh.slab) {
		sh.slab, sh.next = newSlab(min(max(2*len(sh.slab), 1), maxSlab)), 0
		// The index's buckets do not keep their partitions alive (see
		// pref): the arena does, with everything else the collector is
		// not shown.
		a.arena.keepPtr(unsafe.Pointer(unsafe.SliceData(sh.slab)))
	}
	p := &sh.slab[sh.next]
	sh.next++
	p.token = token
	p.setKey(key, room, a)
	return p
}

// unnew gives back p, the last partition newPartition returned.
func (sh *shard) unnew(p *partition) {
	*p = partition{}
	sh.next--
}

// shardOf returns the index of the shard holding token.
func shardOf(token int64) int { return int((uint64(token) ^ 1<<63) >> (64 - shardBits)) }

// New returns an empty memtable.
func New() *Memtable {
	m := &Memtable{}
	m.minTS.Store(math.MaxInt64)
	return m
}

// Operations returns the operations applied to the memtable, as Cassandra's
// Memtable.getOperations counts them for nodetool tablestats' "Memtable
// cell count": per mutation, its rows, its static row, its range
// tombstones and its partition deletion (PartitionUpdate.operationCount).
func (m *Memtable) Operations() int64 { return m.ops.Load() }

// operationCount is PartitionUpdate.operationCount of mu.
func operationCount(mu *data.Mutation) int64 {
	n := int64(len(mu.Rows) + len(mu.RangeTombstones))
	if mu.Static != nil && !mu.Static.IsEmpty() {
		n++
	}
	if !mu.PartitionDeletion.IsLive() {
		n++
	}
	return n
}

// Size returns the estimated number of bytes the memtable holds.
func (m *Memtable) Size() int64 { return m.size.Load() }

// Len returns the number of partitions in the memtable.
func (m *Memtable) Len() int { return int(m.count.Load()) }

// IsEmpty reports whether nothing was ever applied to the memtable.
func (m *Memtable) IsEmpty() bool { return m.count.Load() == 0 }

// MinTimestamp returns the smallest write timestamp (of cells, liveness
// records and deletions) applied so far, and false if the memtable holds no
// timestamp. Compaction reads it: a tombstone may be purged only if it is
// older than everything a memtable could still shadow.
func (m *Memtable) MinTimestamp() (int64, bool) {
	min := m.minTS.Load()
	return min, min != math.MaxInt64
}

// noteTimestamp lowers the minimum timestamp to ts. Write timestamps mostly
// grow, so this is usually one load.
func (m *Memtable) noteTimestamp(ts int64) {
	for {
		cur := m.minTS.Load()
		if ts >= cur || m.minTS.CompareAndSwap(cur, ts) {
			return
		}
	}
}

// Apply applies mutation mu to the partition (token, mu.Key), creating the
// partition if needed, and returns the change of the memtable's estimated
// size in bytes (negative when reconciliation dropped more than was added).
// The whole mutation becomes visible to readers at once. The memtable
// copies what it keeps of mu into its arena: mu and the memory it
// references stay the caller's. mu.Table is not checked; the caller routes
// mutations to the memtable of their table.
//
// An existing partition is found without a lock and updated under its own
// mutex. A new one is taken from the shard's slab under the shard's mutex;
// if the bucket the lookup found has not changed in between, the mutation
// is applied to the partition before it is published, with no partition
// lock, and the partition is appended to the bucket. Otherwise (another
// insert, a split, or a full bucket) a second lookup under the mutex finds
// or inserts it.
func (m *Memtable) Apply(token int64, mu *data.Mutation) (bytesAdded int) {
	return m.ApplyObserved(token, mu, nil)
}

// RowObserver sees the rows an ApplyObserved merges, as Cassandra's
// memtable tells an UpdateTransaction (onInserted, onUpdated): the
// memtable's own rows, tombstones included, not the rows a read would
// merge from every source. The rows are valid only during the call (they
// may point into the memtable's arena or the caller's mutation): an
// observer copies what it keeps (data.Row.Clone). It runs under the
// partition's lock and must not write to the memtable.
type RowObserver interface {
	// RowInserted is called for a row (or the static row) the memtable
	// did not hold, with the row as the mutation gives it.
	RowInserted(row *data.Row)
	// RowUpdated is called for a row the memtable held, with the row it
	// held and the reconciled row that replaces it.
	RowUpdated(existing, merged *data.Row)
}

// ApplyObserved is Apply, telling obs (when not nil) of each row merged.
func (m *Memtable) ApplyObserved(token int64, mu *data.Mutation, obs RowObserver) (bytesAdded int) {
	m.ops.Add(operationCount(mu))
	si := shardOf(token)
	b := m.writable()
	sh := &b.shards[si]
	a := applier{arena: &b.arenas[si], free: b.rowFree, obs: obs}
	p, at := sh.parts.lookup(token, mu.Key)
	inserted := false
	if p == nil {
		// A new partition of one row (a narrow write) gets its row encoded
		// before the shard's lock is taken, and its key and row in one
		// arena allocation.
		var pre [preSize]byte
		var enc []byte
		if len(mu.Rows) == 1 && mu.Static == nil {
			enc = encodeRow(pre[:0], &mu.Rows[0])
		}
		sh.mu.Lock()
		np := sh.newPartition(token, mu.Key, len(enc), &a)
		copy(a.spare, enc)
		if sh.parts.canInsertAt(at, token) {
			// np is not published yet: nobody else can see it.
			delta, lo := np.apply(mu, &a)
			sh.parts.insertAt(at, np)
			sh.snap = nil
			sh.mu.Unlock()
			return m.noteApplied(delta+a.grown, lo, true)
		}
		if p, inserted = sh.parts.getOrInsert(np); inserted {
			sh.snap = nil
		} else {
			sh.unnew(np)
			a.spare = nil // p has its rows: the merge encodes anew
		}
		sh.mu.Unlock()
	}
	p.mu.Lock()
	delta, lo := p.apply(mu, &a)
	p.mu.Unlock()
	return m.noteApplied(delta+a.grown, lo, inserted)
}

// Prefetch starts bringing into the processor's caches the index bucket
// that holds, or would hold, the partition of token, without waiting for
// it, so that an Apply of the same token issued a little later (after the
// caller's commit-log append, say) finds the bucket there instead of
// stalling on memory: at hundreds of thousands of partitions a bucket is
// mostly not in any cache, and its first load was the largest single cost
// of a narrow write. Prefetch changes nothing and takes no lock; it only
// loads the top directory's entry for token (a bucket that links to a
// deeper directory is prefetched itself, which helps less but is rare:
// murmur3 tokens do not share long prefixes).
func (m *Memtable) Prefetch(token int64) {
	b := m.body.Load()
	if b == nil {
		return // nothing written yet: no bucket to fetch
	}
	d := b.shards[shardOf(token)].parts.dir.Load()
	if d == nil {
		return
	}
	if bk := d.entries[d.slot(token)].Load(); bk != nil {
		prefetchBucket(bk)
	}
}

// PrefetchIndex starts bringing into the processor's caches the top
// directory's entry for token, the load Prefetch begins with, without
// waiting for it. It is the first of two steps for a caller with work to do
// between them: at hundreds of thousands of partitions the directory (one
// word per bucket, some 512 KiB per million partitions) is mostly not in
// the caches either, and Prefetch stalls on the entry before it can ask
// for the bucket. A writer calls PrefetchIndex as soon as it has the token,
// then validates, locks and calls Prefetch. Like Prefetch it changes
// nothing, takes no lock and reads nothing the program sees.
func (m *Memtable) PrefetchIndex(token int64) {
	b := m.body.Load()
	if b == nil {
		return
	}
	if d := b.shards[shardOf(token)].parts.dir.Load(); d != nil {
		prefetchLine(unsafe.Pointer(&d.entries[d.slot(token)]))
	}
}

// noteApplied accounts for a mutation applied with size change delta
// (structs and arena growth) and smallest timestamp lo, to a partition that
// it inserted or not, and returns the memtable's growth.
func (m *Memtable) noteApplied(delta int, lo int64, inserted bool) int {
	if inserted {
		m.count.Add(1)
		delta += partitionOverhead
	}
	m.size.Add(int64(delta))
	m.noteTimestamp(lo)
	return delta
}

// Get returns a snapshot of the partition (token, key), or false if the
// memtable holds nothing for it. The snapshot is not affected by later
// writes.
func (m *Memtable) Get(token int64, key []byte) (data.PartitionSource, bool) {
	b := m.body.Load()
	if b == nil {
		return nil, false
	}
	p := b.shards[shardOf(token)].parts.get(token, key)
	if p == nil {
		return nil, false
	}
	s := p.pooledSnapshot()
	// The body's arenas keep what p points to alive (see newSlab) until
	// the snapshot holds it, even if the memtable is dropped meanwhile.
	runtime.KeepAlive(b)
	return s, true
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
// Next returns, the row iterator its Rows returns, and the rows and static
// row they hand out, are valid only until the next call to Next or Close;
// the bytes those reference (keys, clusterings, values, range-tombstone
// bounds) are the memtable's and stay valid, as with Scan. Each
// partition is still snapshotted consistently, a few partitions before
// Next returns it (to overlap the cache misses of neighbouring partitions),
// so ScanReuse is safe while writes continue.
func (m *Memtable) ScanReuse(r data.TokenRange) data.PartitionIterator {
	return m.scan(r, true)
}

func (m *Memtable) scan(r data.TokenRange, reuse bool) data.PartitionIterator {
	b := m.body.Load()
	it := &partitionIter{r: r, reuse: reuse, body: b}
	if r.Start > r.End || b == nil {
		it.done = true
		return it
	}
	lo, hi := shardOf(r.Start), shardOf(r.End)
	for i := lo; i <= hi; i++ {
		b.shards[i].mu.Lock()
	}
	for i := lo; i <= hi; i++ {
		sh := &b.shards[i]
		if sh.snap == nil {
			sh.snap = sh.parts.clone(i)
		}
		it.trees[i] = sh.snap
	}
	for i := hi; i >= lo; i-- {
		b.shards[i].mu.Unlock()
	}
	it.shard, it.last = lo, hi
	return it
}
