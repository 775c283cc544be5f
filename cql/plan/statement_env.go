package plan

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/trigger"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
)

// Env is the node a statement compiles against and runs on: the engine
// that holds its schema and data, the node's identity and derived system
// tables, and its roles. A compiled plan keeps none of it; each execution
// brings it.
type Env struct {
	Engine *engine.Engine
	System *virtual.Node
	Roles  *auth.Roles
	// MaterializedViewsEnabled allows CREATE MATERIALIZED VIEW
	// (Cassandra's materialized_views_enabled, false by default).
	MaterializedViewsEnabled bool
	// UserDefinedFunctionsEnabled allows CREATE FUNCTION (Cassandra's
	// user_defined_functions_enabled, false by default).
	UserDefinedFunctionsEnabled bool
	// ScriptedUserDefinedFunctionsEnabled allows functions in another
	// language than java (Cassandra's
	// scripted_user_defined_functions_enabled, false by default).
	ScriptedUserDefinedFunctionsEnabled bool
	// MaterializedViewsAllowFilteringNonKeyColumnsUnsafe lets a view's WHERE
	// clause restrict non-primary-key base columns (Cassandra's
	// cassandra.mv.allow_filtering_nonkey_columns_unsafe system property).
	MaterializedViewsAllowFilteringNonKeyColumnsUnsafe bool
	// CompactTablesDisabled refuses CREATE TABLE ... WITH COMPACT STORAGE
	// (Cassandra's compact_tables_enabled guardrail set to false; it is
	// true by default).
	CompactTablesDisabled bool
	// DropCompactStorageEnabled allows ALTER TABLE ... DROP COMPACT STORAGE
	// (Cassandra's drop_compact_storage_enabled, false by default).
	DropCompactStorageEnabled bool
	// MemtableConfigurations are cassandra.yaml's memtable.configurations
	// and MemtableClasses the memtable classes added to
	// schema.MemtableClasses: a table's memtable option must name a usable
	// configuration (schema.CheckMemtableConfiguration).
	MemtableConfigurations map[string]schema.MemtableConfiguration
	MemtableClasses        map[string][]string
	// DefaultKeyspaceRF is cassandra.yaml's default_keyspace_rf: the
	// replication factor of a keyspace created without one (below 1: 1).
	DefaultKeyspaceRF int
	// ExpirationDateOverflowPolicy says what a write does whose TTL ends
	// after 2038-01-19T03:14:06Z (Cassandra's
	// cassandra.expiration_date_overflow_policy; REJECT by default).
	ExpirationDateOverflowPolicy ExpirationOverflowPolicy
	// Triggers are the trigger classes the node knows (package
	// cql/trigger): CREATE TRIGGER names one, and writes run the triggers
	// of their tables. Nil knows none.
	Triggers trigger.Registry

	// replication caches the replication of the keyspaces statements read
	// and write (Execution.replication), derived from the schema. A SELECT
	// plan keeps its keyspace's (Replicas), as it keeps its table: both
	// are the schema's it was compiled against.
	replication atomic.Pointer[replicationCache]
}

// executingSession is the session that runs a statement: its role and its
// current keyspace, which USE changes.
type executingSession interface {
	// User returns the session's role, "" for the anonymous user.
	User() string
	Keyspace() string
	SetKeyspace(ks string)
}

// Plan is a compiled statement: validated against the schema, with its bind
// markers typed. Executing it needs only the bound values.
type Plan interface {
	// Binds describes each bind marker, in order.
	Binds() []query.ColumnSpec
	// Columns describes the result columns of a SELECT (nil otherwise).
	Columns() []query.ColumnSpec
	// PKIndexes lists, for each partition key column in order, the bind
	// marker that gives it (nil when the key is not fully bound).
	PKIndexes() []uint16
	// Exec runs the statement once.
	Exec(ctx context.Context, q *Execution) (*query.Result, error)
}

// Execution is one run of a plan: the request's state (query.Execution)
// and the session that runs it, whose role authorizes the statement and
// whose keyspace USE changes.
type Execution struct {
	query.Execution
	// Env is the node the statement runs on.
	Env *Env
	// Session is the session that runs it.
	Session executingSession
	// Batch is set when the statement runs inside a BATCH.
	Batch *BatchContext
	// ResultRoom, when not nil, is memory the caller lends for the
	// statement's result (see NewResult); it lives as long as the caller
	// keeps the result, so nothing else may use it.
	ResultRoom *query.Result
	// PackRows asks for the result's rows packed (query.Result.Packed)
	// where the statement can pack them; the caller then reads either
	// form.
	PackRows bool
	// PackSpare asks for room past the packed rows for copies of their
	// blob values, which the caller may use.
	PackSpare bool
}

// NewResult returns the zeroed result the statement fills and returns: the
// caller's ResultRoom the first time, a new one otherwise.
func (q *Execution) NewResult() *query.Result {
	if res := q.ResultRoom; res != nil {
		q.ResultRoom = nil
		*res = query.Result{}
		return res
	}
	return new(query.Result)
}

// NoBinds is embedded by plans without bind markers or result columns.
type NoBinds struct{}

func (NoBinds) Binds() []query.ColumnSpec   { return nil }
func (NoBinds) Columns() []query.ColumnSpec { return nil }
func (NoBinds) PKIndexes() []uint16         { return nil }

// BatchContext is shared by the statements of one BATCH execution.
type BatchContext struct {
	Timestamp int64
}

// MaxInlineKeyParts bounds the key components the single-row fast paths of
// reads and writes evaluate into arrays on their stack; longer keys use the
// heap.
const MaxInlineKeyParts = 8

// ExpirationOverflowPolicy is Cassandra's ExpirationDateOverflowPolicy:
// what a write does whose TTL would end after the latest expiration time a
// cell can hold, 2038-01-19T03:14:06Z (CASSANDRA-14092). The zero value is
// ExpirationOverflowReject, Cassandra's default.
type ExpirationOverflowPolicy uint8

// The policies, in the order of Cassandra's enum.
const (
	// ExpirationOverflowReject refuses the write with an InvalidRequest.
	ExpirationOverflowReject ExpirationOverflowPolicy = iota
	// ExpirationOverflowCapNoWarn writes it, its expiration capped to
	// 2038-01-19T03:14:06Z.
	ExpirationOverflowCapNoWarn
	// ExpirationOverflowCap caps it as CapNoWarn does and sends the client
	// a warning saying so.
	ExpirationOverflowCap
)

// String returns the policy's name as Cassandra spells it: REJECT,
// CAP_NOWARN or CAP.
func (p ExpirationOverflowPolicy) String() string {
	switch p {
	case ExpirationOverflowCapNoWarn:
		return "CAP_NOWARN"
	case ExpirationOverflowCap:
		return "CAP"
	}
	return "REJECT"
}

// ParseExpirationOverflowPolicy returns the policy named s, in any case, as
// Cassandra's valueOf(s.toUpperCase()) reads the system property; ok is
// false for another name (Cassandra then logs "Invalid expiration date
// overflow policy: s. Using default: REJECT" and rejects).
func ParseExpirationOverflowPolicy(s string) (p ExpirationOverflowPolicy, ok bool) {
	switch strings.ToUpper(s) {
	case "REJECT":
		return ExpirationOverflowReject, true
	case "CAP_NOWARN":
		return ExpirationOverflowCapNoWarn, true
	case "CAP":
		return ExpirationOverflowCap, true
	}
	return ExpirationOverflowReject, false
}
