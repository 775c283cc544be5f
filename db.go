package minicass

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/engine"
)

// DB is an open minicass database: a storage engine and the CQL executor
// over it. It is safe for concurrent use. Exec, Query and Prepare on the DB
// run on its default session, whose current keyspace USE changes for every
// caller of these methods; use Session for a private current keyspace.
type DB struct {
	eng  *engine.Engine
	x    *cql.Executor
	def  *Session
	opts Options

	// closed is set once by Close; every call reads it, without a lock.
	closed atomic.Bool
}

// Open opens (or creates) the database described by opts. With an empty
// Dir the database lives in memory.
func Open(opts Options) (*DB, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	eng, err := engine.Open(opts.engineOptions())
	if err != nil {
		return nil, err
	}
	if opts.From != nil {
		if err := eng.Restore(opts.From.s); err != nil {
			return nil, errors.Join(err, eng.Close())
		}
	}
	db := &DB{eng: eng, opts: opts}
	db.x = cql.NewExecutor(eng, cql.Options{Logger: opts.Logger, ClusterName: opts.ClusterName,
		PreparedStatementsCacheSize: opts.PreparedStatementsCacheSize, MaterializedViewsEnabled: opts.MaterializedViewsEnabled,
		CompactTablesDisabled: opts.CompactTablesDisabled, DropCompactStorageEnabled: opts.DropCompactStorageEnabled,
		UserDefinedFunctionsEnabled: opts.UserDefinedFunctionsEnabled, ScriptedUserDefinedFunctionsEnabled: opts.ScriptedUserDefinedFunctionsEnabled,
		MemtableConfigurations: opts.MemtableConfigurations, DefaultKeyspaceRF: opts.DefaultKeyspaceRF,
		ExpirationDateOverflowPolicy: opts.ExpirationDateOverflowPolicy, Triggers: opts.Triggers})
	for _, ks := range opts.VirtualKeyspaces {
		if err := db.x.RegisterVirtualKeyspace(ks); err != nil {
			return nil, errors.Join(err, eng.Close())
		}
	}
	db.def = db.Session()
	return db, nil
}

// Close closes the engine (syncing what its commit-log mode requires).
// Calls after Close, including a second Close, return ErrClosed.
func (db *DB) Close() error {
	if !db.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	return db.eng.Close()
}

func (db *DB) isClosed() bool { return db.closed.Load() }

// Dir returns the data directory ("" for an in-memory database).
func (db *DB) Dir() string { return db.opts.Dir }

// Engine returns the storage engine, for tools that need more than CQL.
func (db *DB) Engine() *engine.Engine { return db.eng }

// Executor returns the CQL executor, for the native protocol server.
func (db *DB) Executor() *cql.Executor { return db.x }

// Session returns a new session with no current keyspace. Sessions are
// cheap; each has its own current keyspace and is safe for concurrent use.
func (db *DB) Session() *Session {
	s := db.x.NewSession()
	s.SetSource(cql.SourceGo)
	return &Session{db: db, s: s}
}

// Exec runs a statement on the default session; see Session.Exec.
func (db *DB) Exec(ctx context.Context, query string, args ...any) error {
	return db.def.Exec(ctx, query, args...)
}

// Query runs a statement on the default session; see Session.Query.
func (db *DB) Query(ctx context.Context, query string, args ...any) *Rows {
	return db.def.Query(ctx, query, args...)
}

// Prepare prepares a statement on the default session; see Session.Prepare.
func (db *DB) Prepare(ctx context.Context, query string) (*Stmt, error) {
	return db.def.Prepare(ctx, query)
}
