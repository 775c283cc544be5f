package minicass

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
)

// Clock gives the current time. The engine reads it for write timestamps,
// TTL expiry and now(); a test passes a manual clock (NewManualClock) to
// make rows expire without waiting.
type Clock interface {
	Now() time.Time
}

// CommitLogSync says when commit-log appends are made durable, as
// cassandra.yaml's commitlog_sync. It is the engine's type.
type CommitLogSync = engine.CommitLogSync

// The commit-log sync modes.
const (
	// SyncPeriodic (the default) acknowledges writes once they are in the
	// commit-log file and syncs every CommitLogSyncPeriod (10 s).
	SyncPeriodic = engine.SyncPeriodic
	// SyncBatch acknowledges a write only after a sync covers it.
	SyncBatch = engine.SyncBatch
	// SyncNone never syncs the commit log (tests, throwaway data).
	SyncNone = engine.SyncNone
)

// Partitioner is a node's partitioner (cassandra.yaml's partitioner). It is
// the partitioner package's type.
type Partitioner = partitioner.Partitioner

// The partitioners.
const (
	// Murmur3Partitioner (the default) orders partitions by the Murmur3
	// hash of their key, Cassandra's default.
	Murmur3Partitioner = partitioner.Murmur3Partitioner
	// ByteOrderedPartitioner orders partitions by their key bytes.
	ByteOrderedPartitioner = partitioner.ByteOrderedPartitioner
)

// Options configure a DB. The zero value works: an in-memory database on
// the real clock that logs nothing. The fields after Logger tune the
// storage engine and are passed to it unchanged (engine.Options documents
// them in full).
type Options struct {
	// Dir is the data directory (commit log, SSTables, schema). Empty (the
	// default) keeps everything in memory and writes nothing to disk.
	Dir string
	// Clock gives the time. Nil (the default) is the real time.
	Clock Clock
	// Logger receives engine and executor warnings. Nil (the default)
	// discards them.
	Logger *slog.Logger
	// ClusterName is the cluster_name of system.local (default
	// "Test Cluster").
	ClusterName string
	// Partitioner is the node's partitioner, cassandra.yaml's partitioner:
	// Murmur3Partitioner (the zero value, Cassandra 4.1's default) or
	// ByteOrderedPartitioner, which keeps partitions in the order of their
	// key bytes and makes token() the key as a blob. A data directory keeps
	// the partitioner it was created with and refuses to open under
	// another one (ErrPartitionerMismatch).
	Partitioner Partitioner
	// PreparedStatementsCacheSize bounds the memory of the prepared
	// statements the node keeps, shared by every session and connection,
	// as Cassandra's prepared_statements_cache_size (default 10 MiB).
	PreparedStatementsCacheSize int64
	// MaterializedViewsEnabled allows CREATE MATERIALIZED VIEW, as
	// Cassandra's materialized_views_enabled. False (the default, as in
	// Cassandra 4.1) refuses it with Cassandra's text; views created before
	// keep being maintained either way.
	MaterializedViewsEnabled bool
	// CompactTablesDisabled refuses CREATE TABLE ... WITH COMPACT STORAGE,
	// as Cassandra's compact_tables_enabled guardrail set to false. False
	// (the default, as in Cassandra 4.1) creates them.
	CompactTablesDisabled bool
	// DropCompactStorageEnabled allows ALTER TABLE ... DROP COMPACT STORAGE,
	// as Cassandra's drop_compact_storage_enabled. False (the default, as in
	// Cassandra 4.1) refuses it with Cassandra's text.
	DropCompactStorageEnabled bool
	// MemtableConfigurations are cassandra.yaml's memtable.configurations:
	// the names a table's option memtable = 'name' may give besides
	// "default", each checked as Cassandra 4.1 checks it when a table names
	// it (an undefined name, a missing or unknown class, a parameter the
	// class does not take are refused with 4.1's texts). Every
	// configuration runs minicass's one memtable.
	MemtableConfigurations map[string]schema.MemtableConfiguration
	// DefaultKeyspaceRF is cassandra.yaml's default_keyspace_rf: the
	// replication factor a SimpleStrategy or NetworkTopologyStrategy
	// keyspace takes when none is given. Below 1 it is 1, 4.1's default.
	DefaultKeyspaceRF int
	// ExpirationDateOverflowPolicy is what a write does whose TTL ends
	// after 2038-01-19T03:14:06Z, as Cassandra's
	// -Dcassandra.expiration_date_overflow_policy: cql.ExpirationOverflowReject
	// (the zero value, Cassandra's default) refuses it,
	// ExpirationOverflowCap and ExpirationOverflowCapNoWarn cap its
	// expiration to that date, Cap with a client warning.
	ExpirationDateOverflowPolicy cql.ExpirationOverflowPolicy
	// UserDefinedFunctionsEnabled allows CREATE FUNCTION, as Cassandra's
	// user_defined_functions_enabled. False (the default, as in Cassandra
	// 4.1) refuses it, and calls of the functions and aggregates created
	// before, with Cassandra's text. Bodies in LANGUAGE java run in
	// minicass's interpreter of a subset of Java (package cql/javaudf).
	UserDefinedFunctionsEnabled bool
	// ScriptedUserDefinedFunctionsEnabled also allows functions in
	// LANGUAGE javascript, as Cassandra's
	// scripted_user_defined_functions_enabled (it needs
	// UserDefinedFunctionsEnabled too). False (the default, as in
	// Cassandra 4.1) refuses them, and calls of those created before, with
	// Cassandra's text. Their bodies run in the ECMAScript engine goja
	// (package cql/jsudf), where 4.1 runs Nashorn.
	ScriptedUserDefinedFunctionsEnabled bool

	// VirtualKeyspaces are keyspaces whose tables the embedder implements
	// in Go (VirtualTable), registered at Open as Cassandra registers a
	// VirtualKeyspace before the node starts: CQL reads their rows as
	// any table's, and writes reach the tables that implement the
	// modification interfaces (see package cql/virtual). Nil (the default)
	// registers none.
	VirtualKeyspaces []VirtualKeyspace
	// Triggers are the trigger classes CREATE TRIGGER ... USING 'class'
	// may name, each implemented in Go (Trigger), as the Java classes of
	// Cassandra's triggers directory: a write of a table runs the triggers
	// created on it and applies the mutations they return with its own
	// (see package cql/trigger). Nil (the default) knows none: CREATE
	// TRIGGER fails with Cassandra's "Trigger class '...' couldn't be
	// loaded".
	Triggers map[string]Trigger

	// IndexClasses are custom index implementations in Go, by the class
	// name CREATE CUSTOM INDEX ... USING 'name' gives, as Cassandra loads
	// an Index class: each index of the class gets an instance whose
	// Indexer the write path calls as the memtable merges each partition
	// update (see IndexClass). They join the built-in SASI entry. Nil (the
	// default) registers none, and a CUSTOM index naming any other class
	// is refused with 4.1's "Unable to find custom indexer class".
	IndexClasses map[string]IndexClass
	// From, when set, is the state an in-memory DB opens in: a Snapshot,
	// of this process's DBs (Restore at Open, without first creating the
	// system keyspaces, which the snapshot holds). Nil (the default) opens
	// an empty node. With Dir, Open refuses it (ErrSnapshotOnDisk).
	From *Snapshot

	// FS is the filesystem Dir lives on; nil means the operating system's.
	// Tests pass vfs.NewCrashableMem or vfs.NewErrorFS.
	FS vfs.FS
	// CommitLogSync chooses when writes are durable (default SyncPeriodic).
	CommitLogSync CommitLogSync
	// CommitLogSyncPeriod is the interval of periodic syncs (default 10 s).
	CommitLogSyncPeriod time.Duration
	// CommitLogSegmentSize is the size of a commit-log segment file
	// (default 32 MiB).
	CommitLogSegmentSize int64
	// CommitLogTotalSpace bounds the commit log's files, as Cassandra's
	// commitlog_total_space: past it, the tables holding the oldest
	// segments are flushed so the segments can go (default 8192 MiB).
	CommitLogTotalSpace int64
	// MemtableSize is the size, in bytes, above which a table's memtable is
	// flushed to an SSTable (default 64 MiB).
	MemtableSize int64
	// MemtableHardLimit bounds the bytes of all memtables (default four
	// times MemtableSize).
	MemtableHardLimit int64
	// FlushWorkers is the number of memtables flushed at once (default 2).
	FlushWorkers int
	// ColumnIndexSize is the row-index granularity inside wide partitions
	// of the SSTables written (default 64 KiB).
	ColumnIndexSize int
	// IgnoreCommitLogReplayErrors skips damaged commit-log data at Open,
	// logging every skipped range, instead of refusing to open, as
	// Cassandra's -Dcassandra.commitlog.ignorereplayerrors=true.
	IgnoreCommitLogReplayErrors bool
	// AllowMissingSchema lets Open start with an empty schema when Dir
	// holds data but its schema file is missing or empty (the data is
	// kept on disk); without it Open refuses.
	AllowMissingSchema bool
	// BlockCacheSize is the budget in bytes of the block cache shared by
	// every SSTable (decompressed chunks, index spans), as Cassandra's
	// file_cache_size (default 32 MiB; negative disables it).
	BlockCacheSize int64
	// KeyCacheSize is the budget in bytes of the key cache shared by every
	// SSTable (partition -> index entry), as Cassandra's key_cache_size
	// (default 8 MiB; negative disables it).
	KeyCacheSize int64
	// CompactionThroughput paces all compactions together, in bytes of
	// input per second, as Cassandra's compaction_throughput (zero means
	// 64 MiB/s, Cassandra 4.1's default; negative does not throttle).
	CompactionThroughput int64
	// CompactionCPUShare paces each compaction to this share of one core's
	// time besides CompactionThroughput (engine.Options.CompactionCPUShare;
	// a minicass addition). 0, the default, does not pace.
	CompactionCPUShare float64
	// AutoSnapshotDisabled turns off the snapshot a node with a Dir takes
	// of a table before DROP TABLE, DROP KEYSPACE or TRUNCATE removes its
	// data (cassandra.yaml's auto_snapshot: false; true by default). An
	// in-memory node takes none.
	AutoSnapshotDisabled bool
	// AutoSnapshotTTL is those snapshots' time to live (auto_snapshot_ttl);
	// 0, the default, means they do not expire.
	AutoSnapshotTTL time.Duration
}

// engineOptions translates Options into the engine's options.
func (o *Options) engineOptions() engine.Options {
	eo := engine.Options{
		Dir: o.Dir, FS: o.FS, Logger: o.Logger, Partitioner: o.Partitioner,
		CommitLogSync: o.CommitLogSync, CommitLogSyncPeriod: o.CommitLogSyncPeriod, CommitLogSegmentSize: o.CommitLogSegmentSize,
		CommitLogTotalSpace: o.CommitLogTotalSpace,
		MemtableSize:        o.MemtableSize, MemtableHardLimit: o.MemtableHardLimit, FlushWorkers: o.FlushWorkers,
		ColumnIndexSize:             o.ColumnIndexSize,
		IgnoreCommitLogReplayErrors: o.IgnoreCommitLogReplayErrors, AllowMissingSchema: o.AllowMissingSchema,
		BlockCacheSize: o.BlockCacheSize, KeyCacheSize: o.KeyCacheSize, CompactionThroughput: o.CompactionThroughput,
		CompactionCPUShare:  o.CompactionCPUShare,
		DisableAutoSnapshot: o.AutoSnapshotDisabled, AutoSnapshotTTL: o.AutoSnapshotTTL,
		IndexClasses: o.IndexClasses,
	}
	if o.Clock != nil {
		eo.Clock = o.Clock
	}
	return eo
}

// Validate reports options that cannot work. Open calls it; the engine
// checks its own fields as well.
func (o *Options) Validate() error {
	if o.MemtableSize < 0 {
		return fmt.Errorf("%w: negative MemtableSize %d", ErrArgument, o.MemtableSize)
	}
	if err := o.engineOptions().Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrArgument, err)
	}
	return nil
}
