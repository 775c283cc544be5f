package engine

import (
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"time"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// DefaultMemtableSize is the default Options.MemtableSize: 64 MiB per table.
//
// The threshold is per table rather than a share of a global pool because an
// embedded engine usually serves a handful of tables: a per-table threshold
// keeps each flushed SSTable a useful size (a few tens of MiB of data) and
// makes a table's flushes independent of its neighbours' traffic. The global
// bound is MemtableHardLimit: past half of it the largest memtable is
// flushed (Cassandra's memtable_cleanup_threshold with two flush writers),
// past all of it writes wait.
const DefaultMemtableSize = 64 << 20

// CommitLogSync says when commit-log appends are made durable, as
// cassandra.yaml's commitlog_sync.
type CommitLogSync int

// The commit-log sync modes.
const (
	// SyncPeriodic (the default) acknowledges writes once they are in the
	// commit-log file and fsyncs every CommitLogSyncPeriod (10 s): a crash
	// loses at most the writes of the last period.
	SyncPeriodic CommitLogSync = iota
	// SyncBatch acknowledges a write only after an fsync covers it;
	// concurrent writers share fsyncs (group commit).
	SyncBatch
	// SyncNone never fsyncs the commit log (tests, throwaway data).
	SyncNone
)

// String returns the mode's name as in cassandra.yaml.
func (s CommitLogSync) String() string {
	switch s {
	case SyncPeriodic:
		return "periodic"
	case SyncBatch:
		return "batch"
	case SyncNone:
		return "none"
	}
	return fmt.Sprintf("CommitLogSync(%d)", int(s))
}

// Options configure an engine. The zero value is valid: an in-memory engine
// on the system clock that logs nothing.
type Options struct {
	// Clock gives the time for write timestamps, TTL expiry and deletion
	// times. Nil (the default) is the system clock; tests pass a
	// ManualClock.
	Clock Clock
	// Logger receives the engine's log records. Nil discards them.
	Logger *slog.Logger
	// Partitioner maps partition keys to the tokens partitions are kept
	// and scanned in (cassandra.yaml's partitioner). The zero value is
	// partitioner.Murmur3Partitioner, Cassandra's default. A data directory
	// keeps the partitioner it was written with (its PARTITIONER file, see
	// partitionerfile.go) and refuses to open under another one, as
	// Cassandra refuses SSTables of another partitioner.
	Partitioner partitioner.Partitioner

	// Dir is the data directory; "" (the default) keeps everything in
	// memory: no commit log, no schema file, no automatic flush (memtables
	// grow without bound), and the SSTables of explicit Flush calls live in
	// a private in-memory filesystem that disappears with the engine. See the package documentation for the layout of Dir.
	Dir string
	// FS is the filesystem Dir lives on. Nil means vfs.Default when Dir is
	// set. Tests pass vfs.NewCrashableMem or vfs.NewErrorFS.
	FS vfs.FS

	// CommitLogSync chooses when writes are made durable; the default is
	// SyncPeriodic, as Cassandra's.
	CommitLogSync CommitLogSync
	// CommitLogSyncPeriod is the interval of periodic syncs. 0 means 10 s.
	CommitLogSyncPeriod time.Duration
	// CommitLogSegmentSize is the size of a commit-log segment file. 0
	// means 32 MiB; the largest mutation is half a segment.
	CommitLogSegmentSize int64
	// CommitLogTotalSpace bounds the commit log's segment files, as
	// Cassandra's commitlog_total_space: when a new segment takes the log
	// past it, the tables whose unflushed data holds the oldest segments
	// are flushed, enough segments to come back under it, so that a table
	// written rarely does not pin the log. 0 means 8192 MiB (Cassandra's
	// default is the smaller of 8192 MiB and a quarter of the commit-log
	// volume).
	CommitLogTotalSpace int64
	// IgnoreCommitLogReplayErrors makes Open skip damaged commit-log data
	// (and records that do not decode) instead of failing, as Cassandra's
	// -Dcassandra.commitlog.ignorereplayerrors=true; every skipped range
	// is logged with its file, offset and size. Without it a corrupt
	// record that is not a torn tail stops Open with an ErrCorruption
	// error naming the file and offset. Keep it set until the damaged
	// segments are released (the next flush of every table they hold
	// data of): until then each open meets the damage again.
	IgnoreCommitLogReplayErrors bool
	// AllowMissingSchema lets Open start with an empty schema when the
	// data directory holds data (SSTables or commit-log records) but no
	// schema file, or an empty one. Without it Open refuses with
	// ErrSchemaMissing, since the node would otherwise start empty, with
	// its data unreachable. The data found is kept on disk, never deleted.
	AllowMissingSchema bool

	// MemtableSize is the size, in bytes, above which a table's memtable is
	// switched out and flushed to an SSTable in the background. 0 means
	// DefaultMemtableSize.
	MemtableSize int64
	// MemtableHardLimit bounds the bytes held by all memtables (active and
	// being flushed). Past half of it the largest active memtable is
	// flushed; past all of it writes wait for flushes to catch up. 0 means
	// four times MemtableSize.
	MemtableHardLimit int64
	// FlushWorkers is the number of memtables flushed at once. 0 means 2,
	// Cassandra's default memtable_flush_writers.
	FlushWorkers int
	// ColumnIndexSize is the row-index granularity inside wide partitions
	// of the SSTables written (column_index_size). 0 means 64 KiB.
	ColumnIndexSize int

	// BlockCacheSize is the budget in bytes of the block cache all the
	// engine's SSTables share (decompressed Data.db chunks, Index.db spans,
	// the record positions of reverse reads), as Cassandra's
	// file_cache_size. 0 means sstable.DefaultBlockCacheSize (32 MiB); a
	// negative value disables it.
	BlockCacheSize int64
	// KeyCacheSize is the budget in bytes of the key cache (partition ->
	// index entry) all the engine's SSTables share, as Cassandra's
	// key_cache_size. 0 means sstable.DefaultKeyCacheSize (8 MiB); a
	// negative value disables it.
	KeyCacheSize int64

	// CompactionWorkers is the number of compactions run at once in the
	// background (concurrent_compactors). 0 means 1.
	CompactionWorkers int
	// DisableAutoSnapshot turns off the snapshot an engine with a data
	// directory takes of a table before DROP TABLE, DROP KEYSPACE or
	// TRUNCATE removes its data (Cassandra's auto_snapshot, true by
	// default; see autosnapshot.go). An in-memory engine takes none.
	DisableAutoSnapshot bool
	// AutoSnapshotTTL is the time to live of those snapshots
	// (auto_snapshot_ttl); 0, the default, means they do not expire.
	AutoSnapshotTTL time.Duration
	// DisableAutoCompaction turns background compaction off for every
	// table (nodetool disableautocompaction); Compact still works.
	DisableAutoCompaction bool
	// CompactionCheckPeriod is how often (wall-clock time) every table is
	// checked for background compactions due, besides after each flush,
	// as Cassandra's periodic background compaction submitter does: it is
	// what drops the expired SSTables of a table that no longer flushes.
	// 0 means DefaultCompactionCheckPeriod; negative turns the periodic
	// check off.
	CompactionCheckPeriod time.Duration
	// CompactionThroughput paces every compaction of the engine (background,
	// major and user-defined alike, sharing one budget) to this many bytes
	// per second of input read, counted as stored on disk (compressed), as
	// Cassandra's compaction_throughput does, so that compactions leave
	// the disk and CPU to foreground reads and writes. Up to a second's
	// worth may go unpaced after a pause. 0 means
	// DefaultCompactionThroughput (64 MiB/s, Cassandra 4.1's default);
	// negative means unthrottled (Cassandra's 0).
	CompactionThroughput int64
	// CompactionCPUShare paces each compaction to this share of one core's
	// wall-clock time (after each working stretch of 10 ms or more it
	// sleeps in proportion), besides CompactionThroughput: the throughput
	// counts bytes as stored, so a compaction of well-compressed data runs
	// at a core's full speed under it. A minicass addition, not a Cassandra
	// setting. 0 (the default) or 1 and above do not pace.
	CompactionCPUShare float64
	// MaxSSTableSize bounds the Data.db size of the SSTables a compaction
	// writes: the output is split into SSTables of about this many
	// uncompressed bytes, at partition boundaries. 0 means 160 MiB.
	MaxSSTableSize int64
	// LargePartitionWarnBytes is the partition size past which flushes and
	// compactions log "Writing large partition" (Cassandra's
	// compaction_large_partition_warning_threshold). 0 means 100 MiB.
	LargePartitionWarnBytes int64
	// WidePartitionWarnRows is the row count past which flushes and
	// compactions log "Writing wide partition". 0 means 100,000.
	WidePartitionWarnRows int64
	// TombstoneWarnThreshold is tombstone_warn_threshold: a read that
	// meets more tombstones carries a warning (ReadStats.TombstoneWarning).
	// 0 means 1,000; negative disables the warning.
	TombstoneWarnThreshold int
	// TombstoneFailureThreshold is tombstone_failure_threshold: a read
	// that meets more tombstones fails with ErrTombstoneOverwhelming. 0
	// means 100,000; negative disables the check.
	TombstoneFailureThreshold int

	// IndexClasses are the custom index implementations an embedder
	// registers by class name, which CREATE CUSTOM INDEX ... USING 'name'
	// names, as Cassandra 4.1 loads an Index class from its class path
	// (customindex.go). They join the built-in entry SASIIndexClass; a
	// name of that entry is refused by Validate. Nil (the default)
	// registers none.
	IndexClasses map[string]IndexClass
}

// Defaults of the compaction and warning options.
const (
	DefaultCompactionCheckPeriod     = time.Minute
	DefaultMaxSSTableSize            = 160 << 20
	DefaultLargePartitionWarnBytes   = 100 << 20
	DefaultWidePartitionWarnRows     = 100_000
	DefaultTombstoneWarnThreshold    = 1000
	DefaultTombstoneFailureThreshold = 100_000
	// DefaultCommitLogTotalSpace is Options.CommitLogTotalSpace's default,
	// Cassandra's preferred 8192 MiB.
	DefaultCommitLogTotalSpace = 8192 << 20
)

// EnsureDefaults fills in the defaults of unset fields and returns o.
func (o Options) EnsureDefaults() Options {
	if o.Clock == nil {
		o.Clock = systemClock
	}
	if o.MemtableSize == 0 {
		o.MemtableSize = DefaultMemtableSize
	}
	if o.MemtableHardLimit == 0 {
		o.MemtableHardLimit = 4 * o.MemtableSize
	}
	if o.FlushWorkers == 0 {
		o.FlushWorkers = min(2, max(1, runtime.GOMAXPROCS(0)))
	}
	if o.ColumnIndexSize == 0 {
		o.ColumnIndexSize = sstable.DefaultColumnIndexSize
	}
	if o.CompactionWorkers == 0 {
		o.CompactionWorkers = 1
	}
	if o.CompactionCheckPeriod == 0 {
		o.CompactionCheckPeriod = DefaultCompactionCheckPeriod
	}
	if o.MaxSSTableSize == 0 {
		o.MaxSSTableSize = DefaultMaxSSTableSize
	}
	if o.CompactionThroughput == 0 {
		o.CompactionThroughput = DefaultCompactionThroughput
	}
	if o.LargePartitionWarnBytes == 0 {
		o.LargePartitionWarnBytes = DefaultLargePartitionWarnBytes
	}
	if o.WidePartitionWarnRows == 0 {
		o.WidePartitionWarnRows = DefaultWidePartitionWarnRows
	}
	if o.TombstoneWarnThreshold == 0 {
		o.TombstoneWarnThreshold = DefaultTombstoneWarnThreshold
	}
	if o.TombstoneFailureThreshold == 0 {
		o.TombstoneFailureThreshold = DefaultTombstoneFailureThreshold
	}
	if o.CommitLogSyncPeriod == 0 {
		o.CommitLogSyncPeriod = commitlog.DefaultSyncPeriod
	}
	if o.CommitLogSegmentSize == 0 {
		o.CommitLogSegmentSize = commitlog.DefaultSegmentSize
	}
	if o.CommitLogTotalSpace == 0 {
		o.CommitLogTotalSpace = DefaultCommitLogTotalSpace
	}
	if o.Dir != "" && o.FS == nil {
		o.FS = vfs.Default
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Validate reports whether o can open an engine.
func (o Options) Validate() error {
	for name, c := range o.IndexClasses {
		if _, ok := builtinIndexClasses[name]; ok {
			return fmt.Errorf("%w: IndexClasses names the built-in class %s", ErrInvalidOptions, name)
		}
		if name == "" || c == nil {
			return fmt.Errorf("%w: IndexClasses has an empty name or a nil class", ErrInvalidOptions)
		}
	}
	switch {
	case o.MemtableSize < 0:
		return fmt.Errorf("%w: negative MemtableSize %d", ErrInvalidOptions, o.MemtableSize)
	case o.MemtableHardLimit < 0:
		return fmt.Errorf("%w: negative MemtableHardLimit %d", ErrInvalidOptions, o.MemtableHardLimit)
	case o.MemtableHardLimit > 0 && o.MemtableHardLimit < o.MemtableSize:
		return fmt.Errorf("%w: MemtableHardLimit %d below MemtableSize %d", ErrInvalidOptions, o.MemtableHardLimit, o.MemtableSize)
	case o.CompactionCPUShare < 0:
		return fmt.Errorf("%w: negative CompactionCPUShare %v", ErrInvalidOptions, o.CompactionCPUShare)
	case o.FlushWorkers < 0:
		return fmt.Errorf("%w: negative FlushWorkers %d", ErrInvalidOptions, o.FlushWorkers)
	case o.CompactionWorkers < 0:
		return fmt.Errorf("%w: negative CompactionWorkers %d", ErrInvalidOptions, o.CompactionWorkers)
	case o.MaxSSTableSize < 0:
		return fmt.Errorf("%w: negative MaxSSTableSize %d", ErrInvalidOptions, o.MaxSSTableSize)
	case o.LargePartitionWarnBytes < 0 || o.WidePartitionWarnRows < 0:
		return fmt.Errorf("%w: negative large-partition threshold", ErrInvalidOptions)
	case o.ColumnIndexSize < 0:
		return fmt.Errorf("%w: negative ColumnIndexSize %d", ErrInvalidOptions, o.ColumnIndexSize)
	case o.CommitLogSync < SyncPeriodic || o.CommitLogSync > SyncNone:
		return fmt.Errorf("%w: unknown CommitLogSync %d", ErrInvalidOptions, int(o.CommitLogSync))
	case o.CommitLogSyncPeriod < 0:
		return fmt.Errorf("%w: negative CommitLogSyncPeriod %v", ErrInvalidOptions, o.CommitLogSyncPeriod)
	case o.CommitLogTotalSpace < 0:
		return fmt.Errorf("%w: negative CommitLogTotalSpace %d", ErrInvalidOptions, o.CommitLogTotalSpace)
	case o.CommitLogSegmentSize < 0:
		return fmt.Errorf("%w: negative CommitLogSegmentSize %d", ErrInvalidOptions, o.CommitLogSegmentSize)
	case o.Partitioner > partitioner.ByteOrderedPartitioner:
		return fmt.Errorf("%w: unknown Partitioner %d", ErrInvalidOptions, int(o.Partitioner))
	case o.CommitLogSegmentSize > 0 && o.CommitLogSegmentSize < 4096:
		return fmt.Errorf("%w: CommitLogSegmentSize %d below 4 KiB", ErrInvalidOptions, o.CommitLogSegmentSize)
	}
	return nil
}

// commitLogOptions returns the options of the engine's commit log.
func (o Options) commitLogOptions() commitlog.Options {
	co := commitlog.Options{SyncPeriod: o.CommitLogSyncPeriod, SegmentSize: o.CommitLogSegmentSize,
		Logger: o.Logger, IgnoreReplayErrors: o.IgnoreCommitLogReplayErrors}
	switch o.CommitLogSync {
	case SyncBatch:
		co.SyncMode = commitlog.SyncBatch
	case SyncNone:
		co.SyncMode = commitlog.SyncNone
	default:
		co.SyncMode = commitlog.SyncPeriodic
	}
	return co
}
