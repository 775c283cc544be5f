package memtable

import (
	"bytes"
	"sync/atomic"
)

// pindex is the partition index of one memtable shard: an order-preserving
// extendible hash of partitions on their murmur3 tokens.
//
// # Layout
//
// A directory of 2^g entries (g is the global depth) splits the shard's
// token range into 2^g equal parts: entry i holds the tokens whose g bits
// after the shard bits are i, so the directory is in token order. Each
// entry points to a bucket of up to bucketCap partitions. A bucket of local
// depth d <= g covers the 2^(g-d) consecutive entries that share its first
// d bits. A full bucket splits in two on its next bit (doubling the
// directory first if its depth was g); past maxDepth bits it stops
// splitting and a new bucket is chained in front of it instead.
//
// Murmur3 tokens are uniform, so finding a partition costs one directory
// load and one bucket, against a walk of four or five nodes in a B-tree
// at a million partitions, each a likely cache miss. Inside a bucket items
// are kept in insertion order, not sorted: an insert appends a token and a
// pointer instead of shifting half a node, and a lookup compares at most
// bucketCap tokens held contiguously. A scan sorts each bucket's items as
// it reaches them (see pcursor); the buckets themselves are in token order.
//
// # Concurrency and snapshots
//
// Reads take no lock; inserts hold the shard's mutex. What makes that safe:
//
//   - A bucket's published items (those below its count n) never change.
//     A writer publishes an item by storing n after writing the item;
//     readers load n before reading items.
//   - A bucket that a split or a chain takes out of the directory is never
//     written again, so a reader still holding it sees a consistent past
//     state; directory entries and the directory itself are swapped
//     atomically.
//
// A lookup that races with an insert may miss the new partition, as if it
// had run just before; Memtable.Apply checks again under the mutex before
// inserting.
//
// A snapshot is the directory at one moment and the number of partitions
// inserted so far (its cut): items appended to its buckets later carry a
// later insertion number and are skipped. Taking a snapshot marks the
// directory shared, and the next change of an entry copies the directory
// first, so the snapshot's directory never changes.
//
// Partitions are never removed: a memtable only grows until it is flushed.
// The zero pindex is an empty index.
type pindex struct {
	// dir is the current directory, nil while the index is empty.
	dir atomic.Pointer[pdir]
	// The fields below are guarded by the shard's mutex.

	// shared reports that a snapshot holds dir: it must be copied before
	// an entry changes.
	shared bool
	// seq counts the partitions inserted; the next one gets seq as its
	// insertion number.
	seq uint64
}

// pdir is a directory: 2^g entries.
type pdir struct {
	g       uint8
	entries []atomic.Pointer[bucket]
}

// Bucket shape. A bucket is 512 bytes: its count and depth (8), bucketCap
// tokens and pointers, and the chain pointer.
const (
	bucketCap = 31
	// maxDepth bounds the directory at 2^16 entries (512 KiB) per shard;
	// with uniform tokens a shard reaches it at about a million
	// partitions. Deeper buckets chain.
	maxDepth = 16
)

// bucket holds up to bucketCap partitions of one token range in insertion
// order. Items below n never change once n covers them.
type bucket struct {
	n      atomic.Int32
	depth  uint8
	tokens [bucketCap]int64
	parts  [bucketCap]*partition
	// next is an older, full bucket of the same range (chains form only at
	// maxDepth). It is set when the bucket is made and never changes.
	next *bucket
}

// rel returns the bits of token below the shard bits, at the top of a
// uint64: tokens in one shard are in the same order as their rel.
func rel(token int64) uint64 { return (uint64(token) ^ 1<<63) << shardBits }

// slot returns the directory index of token for global depth g.
func slot(token int64, g uint8) int {
	if g == 0 {
		return 0
	}
	return int(rel(token) >> (64 - g))
}

// bucketOf returns the bucket for token in d.
func (d *pdir) bucketOf(token int64) *bucket { return d.entries[slot(token, d.g)].Load() }

// find returns the partition (token, key) in the chain starting at b, or
// nil, and the number of items b (the head) held when it looked.
func (b *bucket) find(token int64, key []byte) (*partition, int32) {
	head := b.n.Load()
	n := head
	for {
		for i := int32(0); i < n; i++ {
			if b.tokens[i] == token && bytes.Equal(b.parts[i].key, key) {
				return b.parts[i], head
			}
		}
		if b = b.next; b == nil {
			return nil, head
		}
		n = b.n.Load()
	}
}

// push appends p to b, which must have room, and publishes it. Only the
// holder of the shard's mutex pushes.
func (b *bucket) push(p *partition) {
	n := b.n.Load()
	b.tokens[n], b.parts[n] = p.token, p
	b.n.Store(n + 1)
}

// get returns the partition (token, key), or nil. It takes no lock.
func (t *pindex) get(token int64, key []byte) *partition {
	d := t.dir.Load()
	if d == nil {
		return nil
	}
	p, _ := d.bucketOf(token).find(token, key)
	return p
}

// insertPos is where a lookup that missed would add its partition: the
// bucket, and how many items it held.
type insertPos struct {
	b *bucket
	n int32
}

// lookup is get that also reports, on a miss, the bucket the partition
// belongs in. It takes no lock. insertAt can use the position later, under
// the mutex, to add the partition without searching again.
func (t *pindex) lookup(token int64, key []byte) (*partition, insertPos) {
	d := t.dir.Load()
	if d == nil {
		return nil, insertPos{}
	}
	b := d.bucketOf(token)
	p, n := b.find(token, key)
	if p != nil {
		return p, insertPos{}
	}
	return nil, insertPos{b: b, n: n}
}

// canInsertAt reports whether the partition a lookup did not find at at
// can be appended there: the bucket is still the one in the directory for
// token (buckets leave the directory for good, so it was there all along)
// and holds the same items (so the partition was not inserted since), with
// room for one more. The caller holds the mutex.
func (t *pindex) canInsertAt(at insertPos, token int64) bool {
	b := at.b
	return b != nil && at.n < bucketCap && b.n.Load() == at.n && t.dir.Load().bucketOf(token) == b
}

// insertAt appends p, which has the token of the lookup that returned at,
// to at's bucket; canInsertAt(at, p.token) must hold.
func (t *pindex) insertAt(at insertPos, p *partition) { t.add(at.b, p) }

// add numbers p and appends it to b, which has room.
func (t *pindex) add(b *bucket, p *partition) {
	p.seq = t.seq
	t.seq++
	b.push(p)
}

// getOrInsert returns the partition with p's token and key if the index
// holds one, and otherwise inserts p and returns it; inserted tells which.
// The caller holds the mutex.
func (t *pindex) getOrInsert(p *partition) (_ *partition, inserted bool) {
	if t.dir.Load() == nil {
		d := &pdir{entries: make([]atomic.Pointer[bucket], 1)}
		d.entries[0].Store(new(bucket))
		t.dir.Store(d)
		t.shared = false
	}
	for {
		d := t.dir.Load()
		i := slot(p.token, d.g)
		b := d.entries[i].Load()
		if q, _ := b.find(p.token, p.key); q != nil {
			return q, false
		}
		switch {
		case b.n.Load() < bucketCap:
			t.add(b, p)
			return p, true
		case b.depth < maxDepth:
			t.split(i, b)
		default:
			t.setEntries(i, b.depth, &bucket{depth: b.depth, next: b})
		}
	}
}

// split replaces the full bucket b at directory index i by two buckets one
// bit deeper, doubling the directory first if the bucket's depth is the
// global depth. One of the two may still be full if all items share the
// bit; the caller splits again.
func (t *pindex) split(i int, b *bucket) {
	if b.depth == t.dir.Load().g {
		t.double()
		i <<= 1
	}
	d := b.depth
	lo, hi := &bucket{depth: d + 1}, &bucket{depth: d + 1}
	// The new buckets are not published yet: fill them with plain writes
	// and store their counts once.
	var nlo, nhi int32
	for j := range b.tokens[:b.n.Load()] {
		if tok := b.tokens[j]; rel(tok)>>(63-d)&1 == 0 {
			lo.tokens[nlo], lo.parts[nlo] = tok, b.parts[j]
			nlo++
		} else {
			hi.tokens[nhi], hi.parts[nhi] = tok, b.parts[j]
			nhi++
		}
	}
	lo.n.Store(nlo)
	hi.n.Store(nhi)
	t.own()
	dir := t.dir.Load()
	span := 1 << (dir.g - d)
	start := i &^ (span - 1)
	for j := start; j < start+span/2; j++ {
		dir.entries[j].Store(lo)
	}
	for j := start + span/2; j < start+span; j++ {
		dir.entries[j].Store(hi)
	}
}

// setEntries points the directory entries of the bucket of depth d at index
// i to b.
func (t *pindex) setEntries(i int, d uint8, b *bucket) {
	t.own()
	dir := t.dir.Load()
	span := 1 << (dir.g - d)
	start := i &^ (span - 1)
	for j := start; j < start+span; j++ {
		dir.entries[j].Store(b)
	}
}

// double replaces the directory by one twice its size: entry i becomes
// entries 2i and 2i+1.
func (t *pindex) double() {
	old := t.dir.Load()
	d := &pdir{g: old.g + 1, entries: make([]atomic.Pointer[bucket], 2*len(old.entries))}
	for i := range old.entries {
		b := old.entries[i].Load()
		d.entries[2*i].Store(b)
		d.entries[2*i+1].Store(b)
	}
	t.dir.Store(d)
	t.shared = false
}

// own copies the directory if a snapshot shares it.
func (t *pindex) own() {
	if !t.shared {
		return
	}
	old := t.dir.Load()
	d := &pdir{g: old.g, entries: make([]atomic.Pointer[bucket], len(old.entries))}
	for i := range old.entries {
		d.entries[i].Store(old.entries[i].Load())
	}
	t.dir.Store(d)
	t.shared = false
}

// clone returns an immutable snapshot of the index's current contents: later
// inserts are not seen in it. The caller holds the mutex.
func (t *pindex) clone(shard int) *psnap {
	t.shared = true
	return &psnap{dir: t.dir.Load(), cut: t.seq, shard: shard}
}

// psnap is a snapshot of a pindex (see the pindex documentation).
type psnap struct {
	dir   *pdir  // nil for an empty index
	cut   uint64 // partitions numbered cut or later are not in the snapshot
	shard int    // the shard the index belongs to
}

// pitem is one partition in a cursor's buffer.
type pitem struct {
	token int64
	p     *partition
}

// pcursor walks the partitions of a snapshot in (token, key) order. It
// sorts each bucket's items into its buffer when it reaches the bucket.
type pcursor struct {
	s     *psnap
	di    int // the directory index after the current bucket's entries
	from  int64
	items []pitem
	i     int
	buf   [bucketCap]pitem
}

// seekToken positions c on the first partition of s whose token is at
// least token and reports whether there is one.
func (c *pcursor) seekToken(s *psnap, token int64) bool {
	c.s, c.items, c.i = s, c.buf[:0], 0
	switch sh := shardOf(token); {
	case s.dir == nil || sh > s.shard:
		c.di, c.from = len(c.entries()), token
	case sh < s.shard:
		c.di, c.from = 0, -1<<63
	default:
		c.di, c.from = slot(token, s.dir.g), token
	}
	return c.fill()
}

// entries returns the directory entries of c's snapshot.
func (c *pcursor) entries() []atomic.Pointer[bucket] {
	if c.s.dir == nil {
		return nil
	}
	return c.s.dir.entries
}

// fill loads buckets from c.di on until one holds items of the snapshot at
// or after c.from, and reports whether it found one.
func (c *pcursor) fill() bool {
	entries := c.entries()
	for c.di < len(entries) {
		b := entries[c.di].Load()
		shift := c.s.dir.g - b.depth
		c.di = (c.di>>shift + 1) << shift
		c.items, c.i = c.items[:0], 0
		for ; b != nil; b = b.next {
			n := int(b.n.Load())
			for j := 0; j < n; j++ {
				if tok, p := b.tokens[j], b.parts[j]; tok >= c.from && p.seq < c.s.cut {
					c.items = append(c.items, pitem{tok, p})
				}
			}
		}
		if len(c.items) > 0 {
			sortItems(c.items)
			return true
		}
	}
	c.items, c.i = c.items[:0], 0
	return false
}

// sortItems sorts a bucket's items by (token, key) with an insertion sort:
// buckets are small.
func sortItems(items []pitem) {
	for i := 1; i < len(items); i++ {
		x := items[i]
		j := i
		for j > 0 && comparePart(items[j-1].token, items[j-1].p.key, x.token, x.p.key) > 0 {
			items[j] = items[j-1]
			j--
		}
		items[j] = x
	}
}

// valid reports whether c is on a partition.
func (c *pcursor) valid() bool { return c.i < len(c.items) }

// cur returns the partition c is on; c must be valid.
func (c *pcursor) cur() *partition { return c.items[c.i].p }

// next moves c to the following partition and reports whether there is
// one.
func (c *pcursor) next() bool {
	if c.i++; c.i < len(c.items) {
		return true
	}
	if c.s == nil {
		return false
	}
	return c.fill()
}

// comparePart orders partitions by token, then key bytes
// (data.ComparePartitions).
func comparePart(tokA int64, keyA []byte, tokB int64, keyB []byte) int {
	switch {
	case tokA < tokB:
		return -1
	case tokA > tokB:
		return 1
	}
	return bytes.Compare(keyA, keyB)
}
