package memtable

import (
	"bytes"
	"sync/atomic"
	"unsafe"
)

// pindex is the partition index of one memtable shard: an order-preserving
// extendible hash of partitions on their murmur3 tokens.
//
// # Layout
//
// A directory of 2^g entries (g is its global depth) splits a token range
// into 2^g equal parts: entry i holds the tokens whose next g bits are i,
// so a directory is in token order. Each entry points to a bucket of up to
// bucketCap partitions. A bucket of local depth d <= g covers the 2^(g-d)
// consecutive entries that share its first d bits. A full bucket splits in
// two on its next bit, doubling the directory first if its depth was g.
//
// A directory has at most maxDepth bits. A full bucket that already uses
// all of them becomes a link to a directory of its own over the next bits,
// so tokens that share a long prefix (never with murmur3, but with any
// token a caller passes) nest a few directories deep instead of piling up:
// the top directory covers the 60 token bits below the shard bits from the
// top, and four levels cover all of them. Only partitions with the same
// token (a murmur3 collision) share a bucket with no bit left; they chain.
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
//   - A bucket that a split takes out of a directory is never written
//     again and never comes back, so a reader still holding it sees a
//     consistent past state. Directory entries, and the top directory, are
//     swapped atomically; a directory replaced by a bigger one or by a copy
//     is not written again either. Links and their directories never
//     change: a new directory gets a new link.
//
// A lookup that races with an insert may miss the new partition, as if it
// had run just before; Memtable.Apply checks again under the mutex before
// inserting.
//
// A snapshot is the top directory at one moment and the number of
// partitions inserted so far (its cut): items appended to its buckets later
// carry a later insertion number and are skipped. Taking a snapshot starts
// a new epoch; a directory made in an earlier epoch may be reachable from a
// snapshot, so before changing an entry of one the index copies it (and the
// directories above it, which must point to the copy), as a copy-on-write
// tree does. The snapshot's directories never change.
//
// Partitions are never removed: a memtable only grows until it is flushed.
// The zero pindex is an empty index.
type pindex struct {
	// dir is the top directory, nil while the index is empty.
	dir atomic.Pointer[pdir]
	// The fields below are guarded by the shard's mutex.

	// epoch counts the snapshots taken: directories of an earlier epoch
	// are copied before they change.
	epoch uint64
	// seq counts the partitions inserted; the next one gets seq as its
	// insertion number.
	seq uint64
}

// Index shape.
const (
	// bucketCap makes a bucket 512 bytes: count and depth (8), bucketCap
	// tokens and pointers, and the link and chain pointers.
	bucketCap = 30
	// maxDepth bounds a directory at 2^16 entries (512 KiB); with uniform
	// tokens a shard's top directory reaches it at about a million
	// partitions.
	maxDepth = 16
	// tokenBits is the number of token bits below the shard bits, which the
	// directories index.
	tokenBits = 64 - shardBits
	// maxLevels is the most directories a lookup goes through.
	maxLevels = (tokenBits + maxDepth - 1) / maxDepth
)

// pdir is a directory: 2^g entries over the g token bits that follow the
// first off bits below the shard bits.
type pdir struct {
	g, off  uint8
	epoch   uint64 // the index's epoch when the directory was made
	entries []atomic.Pointer[bucket]
}

// bucket holds up to bucketCap partitions of one token range in insertion
// order, or links to a deeper directory. Items below n never change once n
// covers them.
//
// The fields a lookup reads first (sub, n, the first tokens) share the
// bucket's first cache line.
type bucket struct {
	n     atomic.Int32
	depth uint8 // local depth in the directory holding the bucket
	// sub, if not nil, makes the bucket a link: its range is indexed by
	// sub, and the bucket holds no item. Set when the bucket is made.
	sub *pdir
	// next is an older, full bucket of partitions with the same token
	// (chains form only when no bit is left). Set when the bucket is made.
	next   *bucket
	tokens [bucketCap]int64
	parts  [bucketCap]pref
}

// pref is a bucket's reference to a partition: the partition's address
// as a plain word, which the collector does not follow. A bucket's
// partitions were 30 of the 32 pointers the collector had to look up per
// bucket, in every cycle, once per partition of the memtable.
//
// This is sound because a partition never needs a bucket to keep it
// alive: partitions live in slabs that the arena of their shard keeps
// alive for as long as the memtable (newPartition adds every slab to the
// arena's keep list), and whoever holds a bucket holds the memtable's body
// too (Memtable's methods, and a scan's partitionIter.body). The collector
// does not move heap objects, so the address stays valid. A partition
// made outside a slab (tests) must be kept alive by its maker.
type pref uintptr

// refTo returns the reference to p.
func refTo(p *partition) pref { return pref(uintptr(unsafe.Pointer(p))) }

// get returns the partition r refers to: the word read as a pointer, a
// conversion of *pref to **partition (both one word), which go vet and
// checkptr accept where a uintptr-to-Pointer conversion would not be.
func (r *pref) get() *partition { return *(**partition)(unsafe.Pointer(r)) }

// rel returns the bits of token below the shard bits, at the top of a
// uint64: tokens in one shard are in the same order as their rel.
func rel(token int64) uint64 { return (uint64(token) ^ 1<<63) << shardBits }

// slot returns the index of token's entry in d.
func (d *pdir) slot(token int64) int {
	if d.g == 0 {
		return 0
	}
	return int(rel(token) << d.off >> (64 - d.g))
}

// maxG returns the most bits d may index.
func (d *pdir) maxG() uint8 { return min(maxDepth, tokenBits-d.off) }

// span returns the first entry and the number of entries of a bucket of
// local depth depth that covers entry i of d.
func (d *pdir) span(i int, depth uint8) (start, n int) {
	n = 1 << (d.g - depth)
	return i &^ (n - 1), n
}

// set points the entries of a bucket of local depth depth covering entry i
// to b.
func (d *pdir) set(i int, depth uint8, b *bucket) {
	start, n := d.span(i, depth)
	for j := start; j < start+n; j++ {
		d.entries[j].Store(b)
	}
}

// copyAt returns a copy of d made in epoch, with g more bits: each entry
// repeated 2^grow times.
func (d *pdir) copyAt(epoch uint64, grow uint8) *pdir {
	c := &pdir{g: d.g + grow, off: d.off, epoch: epoch, entries: make([]atomic.Pointer[bucket], len(d.entries)<<grow)}
	for i := range d.entries {
		b := d.entries[i].Load()
		for j := i << grow; j < (i+1)<<grow; j++ {
			c.entries[j].Store(b)
		}
	}
	return c
}

// leaf returns the bucket that holds or would hold token in the index
// under d.
func leaf(d *pdir, token int64) *bucket {
	for {
		b := d.entries[d.slot(token)].Load()
		if b.sub == nil {
			return b
		}
		d = b.sub
	}
}

// find returns the partition (token, key) in the chain starting at b, or
// nil, and the number of items b (the head) held when it looked.
func (b *bucket) find(token int64, key []byte) (*partition, int32) {
	head := b.n.Load()
	n := head
	for {
		for i := range b.tokens[:n] {
			if b.tokens[i] == token && bytes.Equal(b.parts[i].get().keyBytes(), key) {
				return b.parts[i].get(), head
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
	b.tokens[n], b.parts[n] = p.token, refTo(p)
	b.n.Store(n + 1)
}

// get returns the partition (token, key), or nil. It takes no lock.
func (t *pindex) get(token int64, key []byte) *partition {
	d := t.dir.Load()
	if d == nil {
		return nil
	}
	p, _ := leaf(d, token).find(token, key)
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
	b := leaf(d, token)
	p, n := b.find(token, key)
	if p != nil {
		return p, insertPos{}
	}
	return nil, insertPos{b: b, n: n}
}

// canInsertAt reports whether the partition a lookup did not find at at
// can be appended there: the bucket is still the one for token (a bucket
// that leaves the index never comes back, so it was there all along) and
// holds the same items (so the partition was not inserted since), with
// room for one more. The caller holds the mutex.
func (t *pindex) canInsertAt(at insertPos, token int64) bool {
	b := at.b
	return b != nil && at.n < bucketCap && b.n.Load() == at.n && leaf(t.dir.Load(), token) == b
}

// insertAt appends p, which has the token of the lookup that returned at,
// to at's bucket; canInsertAt(at, p.token) must hold.
func (t *pindex) insertAt(at insertPos, p *partition) { t.add(at.b, p) }

// add numbers p and appends it to b, which has room.
func (t *pindex) add(b *bucket, p *partition) {
	p.seq = uint32(t.seq)
	t.seq++
	b.push(p)
}

// pframe is a directory and an entry index in it: one level of a path or
// of a cursor.
type pframe struct {
	d *pdir
	i int
}

// getOrInsert returns the partition with p's token and key if the index
// holds one, and otherwise inserts p and returns it; inserted tells which.
// The caller holds the mutex.
func (t *pindex) getOrInsert(p *partition) (_ *partition, inserted bool) {
	if t.dir.Load() == nil {
		d := &pdir{epoch: t.epoch, entries: make([]atomic.Pointer[bucket], 1)}
		d.entries[0].Store(new(bucket))
		t.dir.Store(d)
	}
	var path [maxLevels]pframe
	for {
		// Walk down to the bucket for p's token.
		lvl := 0
		d := t.dir.Load()
		var b *bucket
		for {
			i := d.slot(p.token)
			path[lvl] = pframe{d, i}
			if b = d.entries[i].Load(); b.sub == nil {
				break
			}
			d = b.sub
			lvl++
		}
		if q, _ := b.find(p.token, p.keyBytes()); q != nil {
			return q, false
		}
		if b.n.Load() < bucketCap {
			t.add(b, p)
			return p, true
		}
		// The bucket is full: change its directory, then look again.
		d = t.own(path[:lvl+1])
		i := path[lvl].i
		switch {
		case b.depth < d.maxG():
			if b.depth == d.g {
				d = t.replace(path[:lvl+1], d.copyAt(t.epoch, 1))
				i <<= 1
			}
			t.split(d, i, b)
		case d.off+d.g < tokenBits:
			// A new directory over the next bits, holding b's items
			// in one bucket that the next pass splits.
			sub := &pdir{off: d.off + d.g, epoch: t.epoch, entries: make([]atomic.Pointer[bucket], 1)}
			nb := new(bucket)
			copy(nb.tokens[:], b.tokens[:])
			copy(nb.parts[:], b.parts[:])
			nb.n.Store(b.n.Load())
			sub.entries[0].Store(nb)
			d.set(i, b.depth, &bucket{depth: b.depth, sub: sub})
		default:
			d.set(i, b.depth, &bucket{depth: b.depth, next: b})
		}
	}
}

// own makes the directories of path, from the top down, ones of the
// current epoch, copying those of an earlier one (and pointing the level
// above, or the index, to the copy), and returns the last one.
func (t *pindex) own(path []pframe) *pdir {
	for lvl := range path {
		if path[lvl].d.epoch != t.epoch {
			t.replace(path[:lvl+1], path[lvl].d.copyAt(t.epoch, 0))
		}
	}
	return path[len(path)-1].d
}

// replace puts directory d in place of the last directory of path, whose
// levels above are of the current epoch, and returns d: the index's top
// directory, or a new link in the level above.
func (t *pindex) replace(path []pframe, d *pdir) *pdir {
	lvl := len(path) - 1
	path[lvl].d = d
	if lvl == 0 {
		t.dir.Store(d)
		return d
	}
	up := path[lvl-1]
	link := up.d.entries[up.i].Load()
	up.d.set(up.i, link.depth, &bucket{depth: link.depth, sub: d})
	return d
}

// split replaces the full bucket b covering entry i of d, which has room
// for one more bit, by two buckets one bit deeper. One of the two may still
// be full if all items share the bit; the caller splits again.
func (t *pindex) split(d *pdir, i int, b *bucket) {
	depth := b.depth
	lo, hi := &bucket{depth: depth + 1}, &bucket{depth: depth + 1}
	// The new buckets are not published yet: fill them with plain writes
	// and store their counts once.
	var nlo, nhi int32
	shift := 63 - uint(d.off) - uint(depth)
	for j := range b.tokens[:b.n.Load()] {
		if tok := b.tokens[j]; rel(tok)>>shift&1 == 0 {
			lo.tokens[nlo], lo.parts[nlo] = tok, b.parts[j]
			nlo++
		} else {
			hi.tokens[nhi], hi.parts[nhi] = tok, b.parts[j]
			nhi++
		}
	}
	lo.n.Store(nlo)
	hi.n.Store(nhi)
	start, n := d.span(i, depth)
	for j := start; j < start+n/2; j++ {
		d.entries[j].Store(lo)
	}
	for j := start + n/2; j < start+n; j++ {
		d.entries[j].Store(hi)
	}
}

// clone returns an immutable snapshot of the index's current contents: later
// inserts are not seen in it. The caller holds the mutex.
func (t *pindex) clone(shard int) *psnap {
	t.epoch++
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
	s *psnap
	// stack holds the directories being walked, top first, each with the
	// index of the next entry to visit.
	stack [maxLevels]pframe
	depth int
	from  int64
	items []pitem
	i     int
	buf   [bucketCap]pitem
	// sink receives the bytes fill touches (see there).
	sink byte
}

// seekToken positions c on the first partition of s whose token is at
// least token and reports whether there is one.
func (c *pcursor) seekToken(s *psnap, token int64) bool {
	c.s, c.items, c.i, c.depth = s, c.buf[:0], 0, 0
	if s.dir == nil {
		return false
	}
	switch sh := shardOf(token); {
	case sh > s.shard:
		return false
	case sh < s.shard:
		c.from = -1 << 63
		c.stack[0] = pframe{s.dir, 0}
		c.depth = 1
	default:
		// Go down to the bucket for token; every level above resumes
		// after the link it went through.
		c.from = token
		for d := s.dir; ; {
			i := d.slot(token)
			b := d.entries[i].Load()
			if b.sub == nil {
				c.stack[c.depth] = pframe{d, i}
				c.depth++
				break
			}
			start, n := d.span(i, b.depth)
			c.stack[c.depth] = pframe{d, start + n}
			c.depth++
			d = b.sub
		}
	}
	return c.fill()
}

// fill visits entries from the top of the stack on until a bucket holds
// items of the snapshot at or after c.from, and reports whether it found
// one.
func (c *pcursor) fill() bool {
	for c.depth > 0 {
		f := &c.stack[c.depth-1]
		if f.i >= len(f.d.entries) {
			c.depth--
			continue
		}
		b := f.d.entries[f.i].Load()
		start, n := f.d.span(f.i, b.depth)
		f.i = start + n
		if b.sub != nil {
			c.stack[c.depth] = pframe{b.sub, 0}
			c.depth++
			continue
		}
		c.prefetchAhead(f.d, f.i)
		c.items, c.i = c.items[:0], 0
		for ; b != nil; b = b.next {
			for j := range b.tokens[:b.n.Load()] {
				if tok, p := b.tokens[j], b.parts[j].get(); tok >= c.from && uint64(p.seq) < c.s.cut {
					c.items = append(c.items, pitem{tok, p})
				}
			}
		}
		if len(c.items) > 0 {
			// Touch the first byte of every item's key (its length, in
			// the arena) before sorting: the keys of one bucket lie
			// scattered over the arena, and reading them one after the
			// other, as the sort and the snapshots do, would wait for
			// each cache miss in turn. These loads do not depend on one
			// another, so their misses overlap. A key never changes once
			// its partition is in the index.
			var t byte
			for i := range c.items {
				t ^= *c.items[i].p.key
			}
			c.sink ^= t
			sortItems(c.items)
			return true
		}
	}
	c.items, c.i = c.items[:0], 0
	return false
}

// prefetchAhead asks for the memory of the next two buckets of d from
// entry i on, the cursor's next stops, so that their cache misses overlap
// the walk of the current bucket: the partitions of the bucket after this
// one (whose lines the previous call asked for, so they are usually in
// cache when read here), and the bucket after that. The partitions' keys,
// which their structs point to, are touched by fill as before, but then
// miss only once. Links (directories one level down) are not followed.
// It reads only what fill itself reads: items published in a bucket never
// change, and a bucket's depth and links are set when it is made.
func (c *pcursor) prefetchAhead(d *pdir, i int) {
	if i >= len(d.entries) {
		return
	}
	b := d.entries[i].Load()
	if b.sub != nil {
		return
	}
	for j, n := 0, int(b.n.Load()); j < n; j++ {
		prefetchLine(unsafe.Pointer(b.parts[j].get()))
	}
	start, n := d.span(i, b.depth)
	if i = start + n; i < len(d.entries) {
		// A link is prefetched too: looking at it first would wait for
		// the very miss the prefetch is for.
		prefetchBucket(d.entries[i].Load())
	}
}

// sortItems sorts a bucket's items by (token, key) with an insertion sort:
// buckets are small. Keys are compared only between equal tokens.
func sortItems(items []pitem) {
	for i := 1; i < len(items); i++ {
		x := items[i]
		j := i
		for ; j > 0; j-- {
			y := &items[j-1]
			if y.token < x.token || y.token == x.token && bytes.Compare(y.p.keyBytes(), x.p.keyBytes()) <= 0 {
				break
			}
			items[j] = *y
		}
		items[j] = x
	}
}

// cur returns the partition c is on; c must be valid.
func (c *pcursor) cur() *partition { return c.items[c.i].p }

// curToken returns the token of the partition c is on; c must be valid.
func (c *pcursor) curToken() int64 { return c.items[c.i].token }

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
