package data

import "bytes"

// Slice is a half-open range [Start, End) of byte-comparable clustering keys
// (bounds built with types.EncodeBound). A nil Start is unbounded below, a
// nil End unbounded above. The zero Slice selects every row.
type Slice struct {
	Start, End []byte
}

// Contains reports whether clustering key k lies in s.
func (s Slice) Contains(k []byte) bool {
	if s.Start != nil && bytes.Compare(k, s.Start) < 0 {
		return false
	}
	return s.End == nil || bytes.Compare(k, s.End) < 0
}

// Slices is a list of slices sorted by Start and not overlapping. An empty
// (nil) Slices selects every row.
type Slices []Slice

// Contains reports whether k lies in one of the slices (true for nil Slices).
func (ss Slices) Contains(k []byte) bool {
	if len(ss) == 0 {
		return true
	}
	for _, s := range ss {
		if s.Contains(k) {
			return true
		}
	}
	return false
}

// RowIterator walks rows of one partition in clustering order, forward or
// reverse, restricted to a set of slices. It is how memtables, SSTables and
// the engine's merge hand rows to each other.
//
// The *Row returned by Next, and the memory it references, stay valid only
// until the next call to Next or Close unless the implementation documents
// otherwise; callers that keep a row must copy it. Next returns false at the
// end or on error; Err then tells which.
type RowIterator interface {
	Next() (*Row, bool)
	Err() error
	Close() error
}

// PartitionSource is one source's view of one partition (a memtable's or an
// SSTable's). The partition-level parts are loaded eagerly; rows stream.
type PartitionSource interface {
	// Key returns the partition key bytes.
	Key() []byte
	// Token returns the partition's token.
	Token() int64
	// Deletion returns the partition deletion (LiveDeletion if none).
	Deletion() DeletionTime
	// Static returns the static row, or nil.
	Static() *Row
	// RangeTombstones returns the partition's range tombstones that may
	// intersect slices (all of them when slices is empty), sorted by Start.
	RangeTombstones(slices Slices) []RangeTombstone
	// Rows returns an iterator over the rows in slices, in clustering order
	// or, if reverse, in reverse clustering order.
	Rows(slices Slices, reverse bool) RowIterator
}

// TokenRange selects partitions by token: Start < token <= End, the
// (start, end] convention of Cassandra's ring ranges, with StartInclusive
// turning the start into Start <= token. Use math.MinInt64 and
// math.MaxInt64 for the whole ring.
type TokenRange struct {
	Start, End     int64
	StartInclusive bool
}

// FullRing selects every partition.
var FullRing = TokenRange{Start: -1 << 63, End: 1<<63 - 1, StartInclusive: true}

// Contains reports whether t lies in r.
func (r TokenRange) Contains(t int64) bool {
	if t > r.End {
		return false
	}
	if r.StartInclusive {
		return t >= r.Start
	}
	return t > r.Start
}

// PartitionIterator walks the partitions of one source in token order (ties
// broken by key bytes). The PartitionSource returned by Next stays valid
// until the next call to Next or Close.
type PartitionIterator interface {
	Next() (PartitionSource, bool)
	Err() error
	Close() error
}

// ComparePartitions orders partitions by token, then by key bytes: the order
// of memtables and SSTables.
func ComparePartitions(tokenA int64, keyA []byte, tokenB int64, keyB []byte) int {
	switch {
	case tokenA < tokenB:
		return -1
	case tokenA > tokenB:
		return 1
	}
	return bytes.Compare(keyA, keyB)
}
