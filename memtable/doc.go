// Package memtable is minicass's in-memory write buffer: the sorted, mutable
// structure every write lands in before it is flushed to an SSTable, like
// Cassandra's db/memtable (a skip list of partitions, each a B-tree of rows).
//
// # Layout
//
// A Memtable indexes its partitions by (token, key bytes), as
// data.ComparePartitions orders them, in 16 shards that split the token ring
// into equal ranges (murmur3 tokens spread evenly over them). Each shard is
// a copy-on-write B-tree specialized for partitions (ptree.go): nodes keep
// their items' tokens in an array of their own, so a lookup compares int64s
// held contiguously and dereferences a partition only on a token tie, and
// an insert is one walk that either finds the partition or adds it. An
// internal node and its child pointers are one allocation, so a walk takes
// one cache miss less per level.
// Partitions are never removed from a memtable.
//
// Each partition keeps its partition deletion, its static row, its range
// tombstones sorted by start bound, and its rows ordered by clustering bytes
// (bytes.Compare on the byte-comparable keys of package types), in a
// github.com/google/btree BTreeG. A partition with a single row stores it
// inline, in the same allocation as the partition struct, and only grows a
// row B-tree when a second row arrives: narrow tables (one row per
// partition) then cost one allocation per partition.
//
// Rows stored in a memtable are immutable: applying a mutation to an existing
// row builds the reconciled row with data.MergeRows and replaces the pointer.
// The cells' Value and Path bytes of an applied mutation belong to the
// memtable from then on; callers must not modify them.
//
// # Concurrency
//
// Any number of goroutines may call Apply, Get and Scan at once.
//
//   - Each shard of the partition index is guarded by an RWMutex. Lookups
//     take the read lock; inserting a new partition (into the leaf the
//     read-locked lookup found, if the tree did not change in between,
//     else with one walk; the partition is allocated before the lock is
//     taken), or taking a
//     snapshot of the tree for a scan (O(1) copy-on-write clone), takes the
//     write lock briefly. A scan locks the shards of its range together
//     while it snapshots them, so it sees the partition set of one instant.
//   - Each partition has its own mutex. Apply holds it for the whole
//     mutation, so a reader never sees half of a mutation: atomicity is per
//     partition, as in Cassandra.
//   - A reader takes a partition snapshot under the partition mutex: the
//     partition-level fields (copied; the range-tombstone slice is replaced,
//     never modified in place, on write) and a copy-on-write clone of the row
//     B-tree. The clone is cached and shared by readers until the next write,
//     so repeated reads of an idle partition allocate nothing for the tree.
//     The mutex is released before any row is returned: iterating never
//     blocks writers, and a snapshot stays consistent whatever is written
//     afterwards. The snapshot and the first row iterator asked of it are
//     one allocation: a point read of a narrow partition allocates once.
//
// # Iteration
//
// Row iterators walk a snapshot in clustering order, forward or reverse,
// restricted to data.Slices, by seeking the B-tree (AscendGreaterOrEqual /
// DescendLessOrEqual) in batches that start at 8 rows and double up to 256:
// LIMIT 10 on a partition of a million rows touches a few more than ten rows
// in either direction. Partition scans walk the shard snapshots with a
// cursor that keeps its path from the root and allocates nothing. The *data.Row values returned point into the memtable
// and are never modified; they stay valid as long as the caller keeps them.
//
// # Accounting
//
// Size is an estimate of the bytes held (data.Row.Size and friends: the
// structs plus key, value and path bytes), updated on every Apply by the
// difference between the new and the replaced version of what changed. The
// memtable also tracks its partition count and the minimum and maximum write
// timestamps it holds (of cells, liveness records and deletions), which an
// SSTable writer records in its statistics.
package memtable
