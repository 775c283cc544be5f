package memtable

import "bytes"

// ptree is the partition index of a memtable: a copy-on-write B-tree of
// partitions ordered by (token, key), specialized for the write path.
//
// Each node keeps its items' tokens in an array of its own, so a search
// compares int64s held contiguously in the node and dereferences a
// partition only on a token tie (murmur3 collisions are rare) or for the
// final equality check. Insert is a single walk from the root that splits
// full nodes on the way down and either finds the partition or adds it.
// Partitions are never removed: a memtable only grows until it is flushed.
//
// Copy-on-write: every node records the cowToken of the tree that created
// it. clone hands the current root to an immutable snapshot and gives the
// tree a fresh token, so the next inserts copy the nodes they touch instead
// of modifying ones the snapshot shares (as github.com/google/btree does).
// A snapshot is never written, so it may be read without locks while the
// tree goes on taking inserts. The zero ptree is an empty tree: its nodes
// carry a nil token until the first clone.
type ptree struct {
	root *pnode
	cow  *cowToken
	len  int
	// gen counts the changes to the tree's shape: inserts and splits
	// (getOrInsert splits full nodes on its way down even when it finds
	// the partition). insertAt trusts a lookup's position only while gen
	// is unchanged.
	gen uint64
}

// Node shape: a node holds up to ptreeMaxItems items and, when internal,
// one more child than items. All nodes but the root hold at least
// ptreeMaxItems/2 items.
const (
	ptreeMaxItems = 31
	// ptreeMaxDepth bounds the height of a tree: with at least 16 children
	// per internal node below the root, 16 levels hold far more than 2^63
	// partitions.
	ptreeMaxDepth = 16
)

// cowToken identifies the tree that owns a node. It has a field so that
// distinct tokens have distinct addresses.
type cowToken struct{ _ byte }

// pnode is a B-tree node: n items (tokens[i], parts[i]) in ascending order
// and, for an internal node, n+1 children; kids[i] holds the items between
// item i-1 and item i.
type pnode struct {
	cow    *cowToken
	n      int
	tokens [ptreeMaxItems]int64
	parts  [ptreeMaxItems]*partition
	kids   *[ptreeMaxItems + 1]*pnode // nil for a leaf
}

// pinternal is the allocation of an internal node: the node and its child
// array side by side, with node.kids pointing at kids. A walk that has
// searched the node's tokens then finds the child pointer in the same
// allocation, just past the node, instead of in one of its own: one cache
// miss less per level. Leaves are bare pnodes, with no child array.
type pinternal struct {
	node pnode
	kids [ptreeMaxItems + 1]*pnode
}

// newInternal returns an empty internal node owned by cow.
func newInternal(cow *cowToken) *pnode {
	in := new(pinternal)
	in.node.cow = cow
	in.node.kids = &in.kids
	return &in.node
}

// find returns the index of the first item not less than (token, key), and
// whether that item is (token, key).
func (n *pnode) find(token int64, key []byte) (int, bool) {
	lo, hi := 0, n.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t := n.tokens[m]; t < token || (t == token && bytes.Compare(n.parts[m].key, key) < 0) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n.n && n.tokens[lo] == token && bytes.Equal(n.parts[lo].key, key)
}

// findToken returns the index of the first item whose token is at least
// token.
func (n *pnode) findToken(token int64) int {
	lo, hi := 0, n.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.tokens[m] < token {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// get returns the partition (token, key), or nil.
func (t *ptree) get(token int64, key []byte) *partition {
	n := t.root
	for n != nil {
		i, found := n.find(token, key)
		if found {
			return n.parts[i]
		}
		if n.kids == nil {
			return nil
		}
		n = n.kids[i]
	}
	return nil
}

// lookup is get that also reports, on a miss, where the partition would go:
// the leaf it belongs in, the index there and the tree's length at the time.
// insertAt can use them later, under the same write lock discipline, to add
// the partition without a second walk (see insertAt).
func (t *ptree) lookup(token int64, key []byte) (p *partition, at insertPos) {
	n := t.root
	for n != nil {
		i, found := n.find(token, key)
		if found {
			return n.parts[i], insertPos{}
		}
		if n.kids == nil {
			return nil, insertPos{leaf: n, i: i, gen: t.gen}
		}
		n = n.kids[i]
	}
	return nil, insertPos{}
}

// insertPos is the place a lookup that missed found for its partition.
type insertPos struct {
	leaf *pnode
	i    int
	gen  uint64
}

// insertAt inserts p at the position a lookup for p's token and key
// returned, if the tree has not changed since and the leaf can take it in
// place, and reports whether it did. The tree has not changed if its gen is
// the same (no insert or split since) and it still owns the leaf (a clone
// since would have given the tree a new cowToken). Otherwise the caller
// falls back to getOrInsert.
func (t *ptree) insertAt(at insertPos, p *partition) bool {
	n := at.leaf
	if n == nil || t.gen != at.gen || n.cow != t.cow || n.n == ptreeMaxItems {
		return false
	}
	n.insertAt(at.i, p.token, p, nil)
	t.len++
	t.gen++
	return true
}

// mutable returns n if the tree owns it, or a copy the tree owns.
func (t *ptree) mutable(n *pnode) *pnode {
	if n.cow == t.cow {
		return n
	}
	if n.kids == nil {
		c := new(pnode)
		*c = *n
		c.cow = t.cow
		return c
	}
	c := newInternal(t.cow)
	c.n, c.tokens, c.parts = n.n, n.tokens, n.parts
	*c.kids = *n.kids
	return c
}

// split moves the upper half of the full node n into a new node and returns
// the middle item and the new node. n must be owned by the tree.
func (t *ptree) split(n *pnode) (int64, *partition, *pnode) {
	const mid = ptreeMaxItems / 2
	t.gen++
	var right *pnode
	if n.kids != nil {
		right = newInternal(t.cow)
		copy(right.kids[:], n.kids[mid+1:n.n+1])
		clear(n.kids[mid+1 : n.n+1])
	} else {
		right = &pnode{cow: t.cow}
	}
	right.n = n.n - mid - 1
	copy(right.tokens[:], n.tokens[mid+1:n.n])
	copy(right.parts[:], n.parts[mid+1:n.n])
	tok, p := n.tokens[mid], n.parts[mid]
	clear(n.parts[mid:n.n])
	n.n = mid
	return tok, p, right
}

// insertAt puts item (tok, p) at index i of n and, for an internal node,
// child right just after it. n must be owned by the tree and not full.
func (n *pnode) insertAt(i int, tok int64, p *partition, right *pnode) {
	copy(n.tokens[i+1:n.n+1], n.tokens[i:n.n])
	copy(n.parts[i+1:n.n+1], n.parts[i:n.n])
	n.tokens[i], n.parts[i] = tok, p
	if n.kids != nil {
		copy(n.kids[i+2:n.n+2], n.kids[i+1:n.n+1])
		n.kids[i+1] = right
	}
	n.n++
}

// getOrInsert returns the partition with p's token and key if the tree
// holds one, and otherwise inserts p and returns it; inserted tells which.
// It walks the tree once.
func (t *ptree) getOrInsert(p *partition) (_ *partition, inserted bool) {
	if t.root == nil {
		t.root = &pnode{cow: t.cow, n: 1}
		t.root.tokens[0], t.root.parts[0] = p.token, p
		t.len++
		t.gen++
		return p, true
	}
	t.root = t.mutable(t.root)
	if t.root.n == ptreeMaxItems {
		old := t.root
		tok, mp, right := t.split(old)
		t.root = newInternal(t.cow)
		t.root.n = 1
		t.root.tokens[0], t.root.parts[0] = tok, mp
		t.root.kids[0], t.root.kids[1] = old, right
	}
	n := t.root
	for {
		i, found := n.find(p.token, p.key)
		if found {
			return n.parts[i], false
		}
		if n.kids == nil {
			n.insertAt(i, p.token, p, nil)
			t.len++
			t.gen++
			return p, true
		}
		child := t.mutable(n.kids[i])
		n.kids[i] = child
		if child.n == ptreeMaxItems {
			tok, mp, right := t.split(child)
			n.insertAt(i, tok, mp, right)
			switch c := comparePart(p.token, p.key, tok, mp.key); {
			case c == 0:
				return mp, false
			case c > 0:
				child = right
			}
		}
		n = child
	}
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

// clone returns an immutable snapshot of the tree's current contents. Later
// inserts into t do not change it. The caller must hold t exclusively.
func (t *ptree) clone() *ptree {
	s := &ptree{root: t.root, len: t.len}
	t.cow = new(cowToken)
	return s
}

// pframe is one level of a cursor: a node and an item index in it.
type pframe struct {
	n *pnode
	i int
}

// pcursor walks the items of an immutable tree (a snapshot) in order. It
// allocates nothing: the path from the root is kept in a fixed array.
type pcursor struct {
	stack [ptreeMaxDepth]pframe
	depth int
}

// seekToken positions c on the first partition whose token is at least
// token and reports whether there is one.
func (c *pcursor) seekToken(root *pnode, token int64) bool {
	c.depth = 0
	for n := root; n != nil; {
		i := n.findToken(token)
		c.stack[c.depth] = pframe{n, i}
		c.depth++
		if n.kids == nil {
			break
		}
		n = n.kids[i]
	}
	return c.settle()
}

// settle pops exhausted levels until the top frame is on an item.
func (c *pcursor) settle() bool {
	for c.depth > 0 {
		f := &c.stack[c.depth-1]
		if f.i < f.n.n {
			return true
		}
		c.depth--
	}
	return false
}

// valid reports whether c is on an item.
func (c *pcursor) valid() bool { return c.depth > 0 }

// cur returns the item c is on; c must be valid.
func (c *pcursor) cur() *partition {
	f := &c.stack[c.depth-1]
	return f.n.parts[f.i]
}

// next moves c to the following item and reports whether there is one.
func (c *pcursor) next() bool {
	if c.depth == 0 {
		return false
	}
	f := &c.stack[c.depth-1]
	f.i++
	if f.n.kids != nil {
		// The next item is the leftmost of the subtree right of the
		// current one.
		for n := f.n.kids[f.i]; n != nil; {
			c.stack[c.depth] = pframe{n, 0}
			c.depth++
			if n.kids == nil {
				break
			}
			n = n.kids[0]
		}
	}
	return c.settle()
}
