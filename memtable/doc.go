// Package memtable is minicass's in-memory write buffer: the sorted, mutable
// structure every write lands in before it is flushed to an SSTable, like
// Cassandra's db/memtable (a skip list of partitions, each a B-tree of rows).
//
// # Layout
//
// A Memtable indexes its partitions by (token, key bytes), as
// data.ComparePartitions orders them, in 16 shards that split the token ring
// into equal ranges (murmur3 tokens spread evenly over them). Each shard's
// index is an order-preserving extendible hash on the token (pindex.go): a
// directory indexed by the token's next bits points to buckets of up to 30
// partitions, so finding a partition costs one directory load and one
// bucket whatever the memtable's size, where a B-tree of a million
// partitions walks four or five nodes, each a likely cache miss. Buckets
// keep their partitions in insertion order (an insert appends; a full
// bucket splits on the next token bit) and a scan sorts each bucket as it
// reaches it; the directory itself is in token order. Tokens that share a
// long prefix (never murmur3's, but any a caller passes) nest up to four
// directories deep. Partitions are allocated in slabs of up to 8 KiB per
// shard and never removed from a memtable. A writer that knows its token a
// little before it applies can call Prefetch, which asks the processor for
// the bucket's cache lines (prefetch_amd64.s) so that the bucket's miss
// overlaps the writer's other work (the engine's commit-log append), and,
// earlier still, PrefetchIndex, which asks for the directory entry that
// Prefetch starts from (the engine calls it before validating the
// mutation), so that Prefetch does not stall on it. The shards and their arenas
// (some 3.5 KiB) are allocated by the first Apply: an engine keeps a
// memtable per table, most system tables are never written, and an
// untouched memtable is a few words.
//
// Each partition keeps its partition deletion, its static row, its range
// tombstones sorted by start bound, and its rows ordered by clustering bytes
// (bytes.Compare on the byte-comparable keys of package types), in a
// github.com/google/btree BTreeG. A partition with a single row keeps it in
// the partition struct, and only grows a row B-tree when a second row
// arrives: a narrow partition (one row per partition) is a 48-byte struct
// with three pointers, in a slab, and its key and row in the arena: a new
// one-row partition gets both in one arena allocation, the row encoded
// before the shard's lock is taken, and keeps its row as a length after
// the key, so only one of its pointers (the key's) is set. The slabs are
// memory the collector does not scan (newSlab): the arena of each shard
// keeps a list of everything its partitions point to (its chunks, its
// allocations outside chunks, the partitionMores), so the collector's mark
// phase reads a few words per 64 KiB chunk instead of every partition.
//
// # Arenas and the row encoding
//
// Everything a partition keeps of the mutations applied to it (its key, its
// rows, its static row, its range tombstones' bounds) is copied into the
// arena of its shard (arena.go): chunks of bytes, from 1 KiB doubling up to
// 64 KiB, that the garbage collector does not scan, handed out by a bump
// pointer. Rows are stored in a compact encoding of the memtable's own
// (rowenc.go), which leaves out the values most rows hold (no TTL, no
// deletion, cell timestamps equal to the liveness timestamp): a narrow row of
// one 16-byte value takes 33 bytes, where its data.Row and data.Cell structs
// took 208 before their bytes. The B-trees of wide partitions hold the
// encoded rows (references into the arena that the collector does not
// follow, see rowRef, each with the first eight bytes of its clustering
// inline, so that comparing two rows seldom reads either), ordered by the
// clustering they start with. Memory per narrow row is about 115 bytes in all (the struct, arena
// bytes, the index's buckets), against 331 when the memtable held the
// mutation's own structs.
//
// Rows stored in a memtable are immutable: applying a mutation to an existing
// row decodes it, reconciles it with data.MergeRows and writes the result
// anew in the arena; the old bytes stay in the arena (and in Size) until the
// memtable is dropped, as Cassandra's slab allocator keeps them. Apply keeps
// nothing of the caller's mutation.
//
// # Concurrency
//
// Any number of goroutines may call Apply, Get and Scan at once.
//
//   - Finding a partition takes no lock: bucket items, once published by
//     an atomic store of the bucket's count, never change; a bucket that a
//     split replaces is never written again; directory entries and the
//     directory are swapped atomically (see pindex.go). Inserting a new
//     partition takes the shard's mutex, checks that the bucket the
//     lock-free lookup found is unchanged (else looks again), applies the
//     mutation to the partition before publishing it, and appends it.
//     A scan takes the mutexes of the shards in its range together while
//     it snapshots them (the directory and an insertion number: later
//     partitions are skipped), so it sees the partition set of one
//     instant; the next change of a snapshotted directory copies it.
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
// cursor that keeps its path from the root and allocates nothing. While it
// sorts one bucket, the cursor asks the processor for the partition
// structs of the next bucket and for the bucket after that
// (prefetchAhead), so that a flush's walk over partitions scattered in the
// slabs waits for fewer cache misses; ScanReuse also snapshots partitions
// a few ahead of the one it returns and resets its reused snapshots field
// by field, keeping their rows' cell arrays. A row
// iterator decodes each row into a row of its own, whose cell array (two
// cells inline, more grown once) it reuses: the *data.Row that Next returns
// is valid until the next call to Next or Close, the data.RowIterator
// contract, but the bytes it references (clustering, paths, values, column
// names) are the arena's, never modified, and stay valid as long as the
// caller keeps them. The static row is decoded once per snapshot and stays
// valid with it.
//
// # Accounting
//
// Size is the bytes held: every arena chunk when it is made (so dead row
// versions and a chunk's unused tail count), and an estimate of the structs
// (partitionOverhead per partition, with its share of the index;
// partitionMoreSize; rowItemSize per row of a B-tree), updated on every
// Apply by what it added. It stays close to the heap the memtable holds
// (within a quarter, TestSizeFollowsHeap checks; about 5% for narrow rows). The
// memtable also tracks its partition count and the minimum write timestamp
// it holds (of cells, liveness records and deletions), which compaction
// reads before purging tombstones.
package memtable
