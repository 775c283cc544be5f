// Package data is minicass's storage model: the vocabulary shared by the
// memtable, the SSTables, the commit log and the engine. It follows
// Cassandra 3.0+ (db/rows, db/DeletionTime, db/LivenessInfo):
//
//   - A partition, identified by its token and partition-key bytes, holds a
//     partition deletion, a static row, rows ordered by clustering key, and
//     range tombstones.
//   - A Row holds its clustering key, primary-key liveness info (set by INSERT,
//     not by UPDATE), a row deletion, per-collection deletions and cells.
//   - A Cell holds a column name, an element path for non-frozen collections,
//     a write timestamp in microseconds, a TTL, a local deletion time and a
//     value (the native-protocol serialized bytes of the column's type).
//
// Clustering keys and collection element paths are stored in the
// byte-comparable encodings of package types, so rows and cells are ordered
// with bytes.Compare and this package never needs to know a column's type.
//
// Reconciliation (which of two versions of a cell survives) follows
// Cassandra 4.x exactly; see Reconcile. Times are int64 everywhere: write
// timestamps in microseconds since the epoch, local deletion and expiration
// times in seconds since the epoch.
package data
