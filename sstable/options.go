package sstable

import "fmt"

// DefaultColumnIndexSize is the default row-index granularity inside a
// partition, as Cassandra 4.x's column_index_size (64 KiB): a partition
// whose rows take more gets a row index of blocks of about this size.
const DefaultColumnIndexSize = 64 << 10

// DefaultIndexInterval is the default sampling interval of Summary.db, as
// Cassandra's min_index_interval (128).
const DefaultIndexInterval = 128

// DefaultBloomFilterFPChance is Cassandra's default bloom_filter_fp_chance.
const DefaultBloomFilterFPChance = 0.01

// WriterOptions configures a Writer. The zero value gives Cassandra's
// defaults.
type WriterOptions struct {
	// Compression selects the chunk codec and length (default: DefaultCodec,
	// 16 KiB). Use CompressionFromOptions to derive it from a table.
	Compression Compression
	// ColumnIndexSize is the target size of a row-index block (default
	// DefaultColumnIndexSize). Partitions no larger get no row index.
	ColumnIndexSize int
	// IndexInterval samples every IndexInterval-th partition into
	// Summary.db (default DefaultIndexInterval).
	IndexInterval int
	// BloomFilterFPChance is the bloom filter's target false-positive
	// chance (default 0.01); 1.0 or more writes an empty filter that
	// matches every key.
	BloomFilterFPChance float64
	// CommitLogUpperBound is recorded in Statistics.db for the engine.
	CommitLogUpperBound LogPosition
	// ExpectedPartitions, when positive, is how many partitions the
	// writer expects (a flush's memtable count, a compaction's largest
	// input): the bloom filter's key hashes are sized for it up front
	// instead of growing. It changes nothing in the files.
	ExpectedPartitions int
}

// EnsureDefaults fills in the defaults of unset fields.
func (o *WriterOptions) EnsureDefaults() {
	o.Compression = o.Compression.withDefaults()
	if o.ColumnIndexSize == 0 {
		o.ColumnIndexSize = DefaultColumnIndexSize
	}
	if o.IndexInterval == 0 {
		o.IndexInterval = DefaultIndexInterval
	}
	if o.BloomFilterFPChance == 0 {
		o.BloomFilterFPChance = DefaultBloomFilterFPChance
	}
}

// Validate reports invalid options (after EnsureDefaults).
func (o *WriterOptions) Validate() error {
	if err := o.Compression.validate(); err != nil {
		return err
	}
	if o.ColumnIndexSize < 0 || o.IndexInterval < 0 || o.BloomFilterFPChance < 0 {
		return fmt.Errorf("%w: negative size, interval or fp chance", ErrInvalidOptions)
	}
	return nil
}

// ReaderOptions configures Open. The zero value is the normal choice.
type ReaderOptions struct {
	// VerifyData makes Open read all of Data.db and check every chunk's
	// CRC32C and the Digest.crc32 (as nodetool verify does) before
	// returning, instead of checking each chunk when it is read.
	VerifyData bool
	// SkipDigest skips the check of Data.db against Digest.crc32 that
	// Open otherwise makes (one sequential read of Data.db). Set it only
	// for an SSTable this process has just written and synced (a flush or
	// compaction output), whose bytes it computed the digest from.
	SkipDigest bool
	// Cache is the block and key cache the Reader shares with others (an
	// engine's Readers share one). Nil gives the Reader a private Cache
	// with the budgets below. Scans use cached blocks but do not add
	// chunks to the cache.
	Cache *Cache
	// ChunkCacheSize is the block budget in bytes of the private Cache
	// (decompressed Data.db chunks, Index.db spans, record positions);
	// 0 means DefaultChunkCacheSize, a negative value disables it. Ignored
	// with Cache.
	ChunkCacheSize int
	// KeyCacheSize is the key-cache budget in bytes of the private Cache;
	// 0 means DefaultReaderKeyCacheSize, a negative value disables it.
	// Ignored with Cache.
	KeyCacheSize int
}

// privateBudget maps a ReaderOptions budget to a CacheOptions one.
func privateBudget(v int, def int64) int64 {
	if v < 0 {
		return -1
	}
	return cacheBudget(v, def)
}
