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
// applies the mutation to the table's active memtable, atomically for the
// partition (see package memtable). A later change appends it to the commit
// log first. Timestamps come from NewTimestamp (strictly increasing
// microseconds of Options.Clock) or from the client; the engine never calls
// time.Now. LockPartition serializes read-modify-write sequences
// (lightweight transactions); plain writes do not take it.
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
package engine
