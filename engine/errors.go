package engine

import "errors"

// Errors returned by the engine. Check them with errors.Is: the engine wraps
// them with details (names, sizes). The CQL layer maps them to Cassandra's
// error codes and messages.
var (
	// ErrClosed is returned by every call on a closed engine.
	ErrClosed = errors.New("engine: closed")
	// ErrLocked is returned by Open when the data directory is in use by
	// another engine (in this process or another): its LOCK file is held.
	// The message names the directory.
	ErrLocked = errors.New("engine: data directory locked")
	// ErrCorruption is wrapped by errors reporting damaged files: a commit
	// log segment, an SSTable component or the schema file whose bytes
	// are not what was written. The message names the file and offset;
	// the underlying *commitlog.CorruptionError or
	// *sstable.CorruptionError is wrapped too.
	ErrCorruption = errors.New("engine: corruption")
	// ErrSchemaMissing is returned by Open when the data directory holds
	// data (SSTables or commit-log records) but no schema file, or an
	// empty one, unless Options.AllowMissingSchema is set.
	ErrSchemaMissing = errors.New("engine: schema file missing")
	// ErrFlush is wrapped by errors of a flush (writing a memtable to an
	// SSTable); the memtable stays readable and is flushed again later.
	ErrFlush = errors.New("engine: flush failed")
	// ErrInvalidOptions is returned by Open for invalid options.
	ErrInvalidOptions = errors.New("engine: invalid options")

	// ErrKeyspaceExists is returned when creating a keyspace that exists.
	ErrKeyspaceExists = errors.New("engine: keyspace already exists")
	// ErrNoKeyspace is returned when a keyspace does not exist.
	ErrNoKeyspace = errors.New("engine: keyspace does not exist")
	// ErrTableExists is returned when creating a table that exists.
	ErrTableExists = errors.New("engine: table already exists")
	// ErrNoTable is returned when a table does not exist (or was dropped
	// while a caller held its definition).
	ErrNoTable = errors.New("engine: table does not exist")
	// ErrTableIDMismatch is returned by AlterTable when the new definition
	// does not carry the existing table's ID.
	ErrTableIDMismatch = errors.New("engine: table definition has another table id")
	// ErrInvalidSchema is returned for a keyspace or table definition that
	// cannot be registered (nil, empty names, no partition key).
	ErrInvalidSchema = errors.New("engine: invalid schema definition")

	// ErrEmptyKey is returned for a mutation with an empty partition key.
	ErrEmptyKey = errors.New("engine: empty partition key")
	// ErrKeyTooLarge is returned for a partition key over 65535 bytes.
	ErrKeyTooLarge = errors.New("engine: partition key too large")
	// ErrInvalidTTL is returned for a negative TTL.
	ErrInvalidTTL = errors.New("engine: invalid ttl")
	// ErrTTLTooLarge is returned for a TTL above data.MaxTTL.
	ErrTTLTooLarge = errors.New("engine: ttl too large")
	// ErrExpirationOverflow is returned when a TTL would expire after
	// MaxExpirationTime (Cassandra 4.x's REJECT policy).
	ErrExpirationOverflow = errors.New("engine: expiration date overflow")
	// ErrMutationTooLarge is returned for a mutation over MaxMutationSize.
	ErrMutationTooLarge = errors.New("engine: mutation too large")
	// ErrInvalidMutation is returned for a malformed mutation: unsorted
	// cells, a counter cell without an 8-byte value, a mutation addressed
	// to another table.
	ErrInvalidMutation = errors.New("engine: invalid mutation")

	// ErrTombstoneOverwhelming is returned by a read that met more
	// tombstones than Options.TombstoneFailureThreshold (Cassandra's
	// TombstoneOverwhelmingException, a ReadFailure for the client).
	ErrTombstoneOverwhelming = errors.New("engine: too many tombstones")
	// ErrIndexNotAvailable is a query served by a custom index that is
	// not queryable (its build runs or failed: CustomIndexQueryable),
	// Cassandra's IndexNotAvailableException, a ReadFailure for the
	// client.
	ErrIndexNotAvailable = errors.New("engine: index not available")
	// ErrInvalidCompactionOptions is returned by ValidateCompactionOptions
	// for a compaction option Cassandra rejects; the message is
	// Cassandra's ConfigurationException text.
	ErrInvalidCompactionOptions = errors.New("engine: invalid compaction options")
	// ErrCompaction is wrapped by errors of a compaction; the input
	// SSTables stay in place.
	ErrCompaction = errors.New("engine: compaction failed")
)
