// Package engine is minicass's storage engine: the schema registry, the
// write path into memtables, and the read path that merges a table's sources
// into the live view Cassandra would return. It is type-agnostic: partition
// keys, clustering keys (byte-comparable, package types) and cell values are
// opaque bytes built by the CQL layer; the only value semantics here are
// counters, whose cells sum (data.Reconcile).
//
// # Schema
//
// Keyspaces and tables (package schema) live in one immutable value behind
// an atomic pointer, replaced on every change; lookups never lock, and a
// read or write holding an old *schema.Table keeps working on the table's
// data, found by table ID. Every change yields a new schema version (a UUID
// digest of the schema) and calls the listeners registered with Subscribe.
//
// # Write path
//
// Apply(ctx, table, mutation) validates the mutation (key size, TTL bounds,
// sorted cells, counter values), computes the partition's Murmur3 token and
// appends it to the commit log (data.AppendCompactMutation, encoded straight
// into the mapped segment by commitlog.Log.AppendEncoded; skipped for
// keyspaces with durable_writes = false, as in Cassandra) and then applies
// it to the table's active memtable, atomically for the partition (see
// package memtable). Under SyncBatch Apply returns after an fsync covers the record
// (concurrent writers share fsyncs); under SyncPeriodic (the default)
// after the write, the log being fsynced every 10 s. Timestamps come from NewTimestamp (strictly increasing
// microseconds of Options.Clock) or from the client; the engine never calls
// time.Now. LockPartition serializes read-modify-write sequences
// (lightweight transactions); plain writes do not take it.
//
// # Derived tables
//
// A table with dependents (AddDependent: a secondary index's table, a
// materialized view) is written under its partition's lock with a read of
// the base rows the mutation touches, before and after; each Dependent
// returns mutations of its derived table, and the base mutation and those
// are logged as one commit-log record (a mutation group) and applied
// together. Replay applies each member to its table and derives nothing
// again. Writes to tables without dependents are unchanged: no lock, no
// read. ApplyLocked is Apply for a caller that holds the partition lock.
// See derived.go.
//
// # Snapshots
//
// Snapshot freezes an in-memory engine's schema and data without copying a
// row (frozen memtables are shared copy-on-write, SSTables pinned by
// reference); Restore installs a snapshot, of this engine or another, and
// leaves it reusable. See snapshot.go.
//
// # Read path
//
// A table holds a list of Sources, newest first: the active memtable, the
// memtables being flushed (SwitchMemtable), and SSTables (AddSource). A read
// asks each source for the partition (a source that has nothing says why,
// e.g. "not present" or, for SSTables, "bloom filter"), then streams a k-way
// merge of the sources' row iterators in clustering order, forward or
// reverse, restricted to the read's slices:
//
//	versions of a row  -> data.MergeRows (Reconcile per cell, counters sum)
//	                   -> purge what the partition deletion, the covering
//	                      range tombstones, the row deletion and collection
//	                      deletions shadow (deletions win timestamp ties)
//	                   -> drop tombstones and cells expired at ReadOptions.Now
//	                   -> return the row if its liveness record or a cell is live
//
// The static row is merged the same way (partition deletion only). Only the
// rows returned, and the dead ones between them, are read: LIMIT 10 on a
// partition of a million rows touches about ten rows in either direction.
// ReadPartition returns one Partition; Scan returns a Scanner over a token
// range that merges the sources' partition iterators in token order and
// skips partitions with nothing live. Every read fills ReadStats: rows read
// and returned, live and expired cells, tombstones by kind and what each
// source did, for TRACING.
//
// An SSTable is not read for a partition when it provably adds nothing,
// and the skip reason is reported: "token out of range" (outside the
// SSTable's first and last token), "bloom filter", "not present" (a bloom
// false positive caught by the index), "clustering bounds" (the read's
// slices miss the SSTable's clustering min/max and it holds no tombstone;
// only for tables without static columns, and never when a partition
// deletion or an open-ended range tombstone makes the bounds unbounded),
// "older than partition deletion" (the SSTable's maximum timestamp is
// below a partition deletion found in a newer source; the SSTables are
// read in decreasing maximum timestamp), "lower bound not reached" (an
// SSTable without tombstones waits in the merge at its smallest clustering,
// or largest in reverse, and the read ended before it), and "older than
// the cells read" (a names read, ReadOptions.Names, found every queried
// cell newer than it). This is Cassandra 4.1's SinglePartitionReadCommand;
// ReadStats.SSTablesIterated counts the SSTables opened and the table's
// SSTables-per-read histogram (TableStats.SSTablesPerRead) records it.
// Reverse reads of wide partitions seek the SSTable's row index from the
// end.
//
// # Flush
//
// When a table's active memtable passes Options.MemtableSize, or all
// memtables together pass half of MemtableHardLimit (then the largest is
// chosen), the memtable is switched out, recording the commit-log tail as
// its upper bound, and written to an SSTable by a background worker
// (FlushWorkers at a time; a table's memtables one at a time, oldest
// first). Reads keep merging the frozen memtable until the SSTable is
// complete, then read the SSTable instead. The SSTable records the upper
// bound (Statistics.db), and commit-log segments are released once no
// table's unflushed memtable holds a record in them. Writes never wait for
// a flush unless the memtables pass MemtableHardLimit. Flush forces the
// switch and waits for the SSTables. An in-memory engine (Dir == "") never
// flushes on its own (its memtables grow, as they always did); Flush writes
// its SSTables to a private in-memory filesystem.
//
// # Compaction
//
// After every flush, and every CompactionCheckPeriod (a minute) for every
// table, a background worker (CompactionWorkers at a time, one per table)
// asks the table's strategy for work:
// SizeTieredCompactionStrategy (the default), TimeWindowCompactionStrategy,
// or LeveledCompactionStrategy and UnifiedCompactionStrategy, which run as
// STCS (strategy.go). Compact forces a major compaction of a table's
// SSTables; CompactSSTables compacts named ones (nodetool compact
// --user-defined); CompactPending runs the due background work in the
// caller's goroutine. A compaction (compaction.go) drops the inputs that
// are fully expired without reading them, then streams a k-way merge of the
// others in token and clustering order through the read path's rowMerger
// (reconciliation, counters summed, shadowed data dropped; a version that
// supersedes every other in full is taken as it is, rowMerger.dominant),
// purges what gc_grace_seconds allows (expired cells become tombstones dated expiry -
// ttl; tombstones older than gcBefore whose timestamp is below every
// timestamp of the partition outside the compaction go) and writes SSTables
// of at most MaxSSTableSize bytes carrying the inputs' largest commit-log
// upper bound. The merge allocates nothing per partition, row or chunk in
// the common case: each input is read through a reusing scan of its
// partition stream alone (sstable.Reader.ScanStream, which decompresses
// into the same two chunk buffers throughout and reads no Index.db), and
// the merge state (rowMerger, purger, range
// tombstones, static row) lives in the compactor (partMerge). Every
// compaction is paced by one shared throttle (throttle.go,
// Options.CompactionThroughput, Cassandra's compaction_throughput, 64 MiB/s
// of input as stored by default), acquired after each partition with the
// bytes it read, and, with Options.CompactionCPUShare, by a pacer that
// keeps each compaction to a share of one core's time. The switch from inputs to outputs is atomic across crashes
// through a compaction log (txnlog.go), and readers are reference counted:
// a read in flight keeps the inputs open until it ends, then their files
// are removed. Flushes and compactions log partitions past
// LargePartitionWarnBytes or WidePartitionWarnRows; reads past
// TombstoneWarnThreshold tombstones carry a warning
// (ReadStats.TombstoneWarning), past TombstoneFailureThreshold they fail
// with ErrTombstoneOverwhelming; tombstones past the table's
// gc_grace_seconds are purgeable and not counted. TableStats, CompactionHistory and
// WriteStats feed nodetool tablestats, tablehistograms and
// compactionhistory.
//
// # On disk
//
// A data directory holds:
//
//	DIR/LOCK                             held while an engine has DIR open (ErrLocked)
//	DIR/schema/schema-<n>.db             the schema and truncation records (schemafile.go)
//	DIR/commitlog/CommitLog-<n>.log      commit-log segments (package commitlog)
//	DIR/data/<keyspace>/<table>-<id>/    the table's SSTables, xa-<gen>-big-<Component>
//	                                     (package sstable); <id> is the table id in 32 hex digits;
//	                                     made with the table's first SSTable, not at CREATE TABLE
//	  compaction-<n>.txn                 a compaction's log while it runs (txnlog.go)
//	  flush-<gen>.txn                    a flush's log while it writes SSTable <gen>
//	DIR/compaction_history.json          the compaction history, one JSON record a line
//
// # Restart and crashes
//
// Open loads the newest schema file (refusing with ErrSchemaMissing when
// it is missing or empty but the directory holds SSTables or commit-log
// records, unless Options.AllowMissingSchema), opens each table's SSTables
// (removing a generation without TOC.txt only when a flush or compaction
// log or a temporary file name says it is unfinished, recovering one whose
// other components are all present and intact, and refusing otherwise;
// the directories of tables not in the schema are kept and logged), then
// replays the commit
// log: a table's records before the largest upper bound of its SSTables, or
// before its truncation record, or before the upper bound of SSTables that a
// compaction removed without writing any (compacted_to in the schema file:
// everything purged), are skipped (counters are deltas: nothing is applied
// twice), as are the records of dropped tables. A crash loses
// nothing acknowledged under SyncBatch, and under SyncPeriodic only the
// writes of the last unsynced period, as a suffix: never a write without
// the ones before it, never half a mutation. Truncate saves the commit-log
// position of the truncation in the schema file before deleting the
// SSTables; DropTable removes the table from the schema file before
// deleting its directory. Damaged bytes in a commit-log segment, an SSTable
// component or the schema file give an error wrapping ErrCorruption that
// names the file and offset (Data.db is checked against Digest.crc32 at
// open); a missing SSTable component gives sstable.ErrMissingComponent
// naming it. Nothing damaged is served. A bad commit-log record that is not
// a torn tail (see package commitlog: a sync marker after it proves it was
// written before a sync) stops Open unless
// Options.IgnoreCommitLogReplayErrors, which skips it; every skipped range,
// torn tails included, is logged with its file, offset and size.
package engine
