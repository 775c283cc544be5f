package javaudf

import "slices"

// HashSet and HashMap iterate in the order of their hash table: by bucket,
// (h ^ h>>>16) & (capacity-1) for the key's hashCode h, and in insertion
// order within a bucket (java.util.HashMap; a bucket long enough to become
// a tree is not reproduced). The table starts at 16 buckets (or as the
// constructor sizes it) and doubles when the size passes three quarters of
// it. The evaluator keeps the elements in insertion order and sorts them
// into table order when a body iterates or prints them.

// defaultCapacity is HashMap's initial table size.
const defaultCapacity = 16

// tableSizeFor is HashMap.tableSizeFor: the power of two at least n (1
// for n <= 0).
func tableSizeFor(n int) int {
	c := 1
	for c < n && c < 1<<30 {
		c <<= 1
	}
	return c
}

// grownCapacity returns the table size after the map reached size entries.
func grownCapacity(capacity, size int) int {
	for size > capacity*3/4 && capacity < 1<<30 {
		capacity <<= 1
	}
	return capacity
}

// bucketOf is the bucket of key in a table of capacity buckets.
func bucketOf(key any, capacity int) int {
	h := uint32(hashOrZero(key))
	h ^= h >> 16
	return int(h & uint32(capacity-1))
}

// hashOrder returns the indices of keys in table order.
func hashOrder(keys []any, capacity int) []int {
	idx := make([]int, len(keys))
	buckets := make([]int, len(keys))
	for i, k := range keys {
		idx[i] = i
		buckets[i] = bucketOf(k, capacity)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return buckets[a] - buckets[b] })
	return idx
}

// items returns the set's elements in iteration order.
func (s *jset) items() []any {
	if s.hashCap == 0 {
		return slices.Clone(s.elems)
	}
	out := make([]any, 0, len(s.elems))
	for _, i := range hashOrder(s.elems, s.hashCap) {
		out = append(out, s.elems[i])
	}
	return out
}

// order returns the map's entry indices in iteration order.
func (m *jmap) order() []int {
	if m.hashCap == 0 {
		idx := make([]int, len(m.keys))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	return hashOrder(m.keys, m.hashCap)
}
