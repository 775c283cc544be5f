package cql

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/statements"
	"github.com/minicass/minicass/cql/statements/ddl"

	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/index"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/trigger"
	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Options configure an Executor. The zero value works.
type Options struct {
	// Logger receives warnings (large partitions, tombstone warnings). Nil
	// discards them.
	Logger *slog.Logger
	// ClusterName is system.local's cluster_name (default "Test Cluster").
	ClusterName string
	// DataCenter and Rack name the single node (default "datacenter1" and
	// "rack1").
	DataCenter, Rack string
	// PreparedStatementsCacheSize bounds the memory the prepared
	// statements may take, as Cassandra's prepared_statements_cache_size
	// (default DefaultPreparedStatementsCacheSize).
	PreparedStatementsCacheSize int64
	// MaterializedViewsEnabled allows CREATE MATERIALIZED VIEW, as
	// Cassandra's materialized_views_enabled (false by default: CREATE is
	// refused with Cassandra's text); each CREATE then carries Cassandra's
	// client warning that views are experimental.
	MaterializedViewsEnabled bool
	// UserDefinedFunctionsEnabled allows CREATE FUNCTION, as Cassandra's
	// user_defined_functions_enabled (false by default: CREATE FUNCTION is
	// refused with Cassandra's text, as are calls of the functions created
	// before, as UDFunction.execute refuses them).
	UserDefinedFunctionsEnabled bool
	// ScriptedUserDefinedFunctionsEnabled allows functions in LANGUAGE
	// javascript too, as Cassandra's
	// scripted_user_defined_functions_enabled (false by default: CREATE
	// FUNCTION and calls of such functions are refused with Cassandra's
	// text).
	ScriptedUserDefinedFunctionsEnabled bool
	// MaterializedViewsAllowFilteringNonKeyColumnsUnsafe lets the WHERE
	// clause of CREATE MATERIALIZED VIEW restrict columns outside the base
	// table's primary key with other relations than IS NOT NULL, as
	// Cassandra's -Dcassandra.mv.allow_filtering_nonkey_columns_unsafe=true
	// does (false by default: refused, CASSANDRA-13798).
	MaterializedViewsAllowFilteringNonKeyColumnsUnsafe bool
	// CompactTablesDisabled refuses CREATE TABLE ... WITH COMPACT STORAGE
	// with Cassandra's guardrail text, as compact_tables_enabled: false
	// does (false by default: compact tables are created, as in Cassandra
	// 4.1).
	CompactTablesDisabled bool
	// DropCompactStorageEnabled allows ALTER TABLE ... DROP COMPACT
	// STORAGE, as Cassandra's drop_compact_storage_enabled (false by
	// default: refused with Cassandra's text).
	DropCompactStorageEnabled bool
	// MemtableConfigurations are cassandra.yaml's memtable.configurations:
	// the names a table's memtable option may give, besides "default",
	// each checked as Cassandra 4.1 checks it (schema.MemtableConfiguration).
	// Every configuration runs minicass's one memtable.
	MemtableConfigurations map[string]schema.MemtableConfiguration
	// MemtableClasses adds memtable class names (each with the parameters
	// it takes) to schema.MemtableClasses, as classes on Cassandra's class
	// path; they too run minicass's memtable.
	MemtableClasses map[string][]string
	// DefaultKeyspaceRF is cassandra.yaml's default_keyspace_rf: the
	// replication factor a SimpleStrategy or NetworkTopologyStrategy
	// keyspace takes when CREATE KEYSPACE (or an ALTER from
	// NetworkTopologyStrategy to SimpleStrategy) gives none. Below 1 it is
	// 1, 4.1's default.
	DefaultKeyspaceRF int
	// ExpirationDateOverflowPolicy is what a write does whose TTL ends
	// after 2038-01-19T03:14:06Z, as Cassandra's
	// -Dcassandra.expiration_date_overflow_policy: REJECT (the zero value,
	// Cassandra's default) refuses it, CAP and CAP_NOWARN cap its
	// expiration to that date, CAP with a client warning.
	ExpirationDateOverflowPolicy ExpirationOverflowPolicy
	// Triggers are the trigger classes the node knows, as the classes of
	// Cassandra's triggers directory: CREATE TRIGGER ... USING 'class'
	// needs one of them, and each write of a table runs the triggers
	// created on it (package cql/trigger). Nil (the default) knows none,
	// so CREATE TRIGGER fails with Cassandra's text for a class it cannot
	// load.
	Triggers trigger.Registry
}

// ExpirationOverflowPolicy is Cassandra's ExpirationDateOverflowPolicy (see
// Options.ExpirationDateOverflowPolicy).
type ExpirationOverflowPolicy = plan.ExpirationOverflowPolicy

// The expiration date overflow policies.
const (
	ExpirationOverflowReject    = plan.ExpirationOverflowReject
	ExpirationOverflowCapNoWarn = plan.ExpirationOverflowCapNoWarn
	ExpirationOverflowCap       = plan.ExpirationOverflowCap
)

// ParseExpirationOverflowPolicy returns the policy named s (REJECT,
// CAP_NOWARN or CAP, in any case); ok is false for another name.
func ParseExpirationOverflowPolicy(s string) (ExpirationOverflowPolicy, bool) {
	return plan.ParseExpirationOverflowPolicy(s)
}

// Executor runs CQL against an engine. It is safe for concurrent use; each
// client (connection, Go session) uses its own Session for the current
// keyspace.
type Executor struct {
	env  plan.Env
	opts Options
	uuid *types.TimeUUIDGenerator

	// plans is the one cache of prepared statements (plancache.go).
	plans *planCache
	// qlog is the query log, nil when disabled (querylog.go).
	qlog atomic.Pointer[QueryLog]
}

// NewExecutor returns an executor over eng.
func NewExecutor(eng *engine.Engine, opts Options) *Executor {
	if opts.ClusterName == "" {
		opts.ClusterName = "Test Cluster"
	}
	if opts.DataCenter == "" {
		opts.DataCenter = "datacenter1"
	}
	if opts.Rack == "" {
		opts.Rack = "rack1"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	x := &Executor{opts: opts, uuid: types.NewTimeUUIDGenerator(), plans: newPlanCache(opts.PreparedStatementsCacheSize)}
	x.env = plan.Env{Engine: eng, System: virtual.NewNode(eng, opts.ClusterName, opts.DataCenter, opts.Rack),
		MaterializedViewsEnabled: opts.MaterializedViewsEnabled, MaterializedViewsAllowFilteringNonKeyColumnsUnsafe: opts.MaterializedViewsAllowFilteringNonKeyColumnsUnsafe,
		CompactTablesDisabled: opts.CompactTablesDisabled, DropCompactStorageEnabled: opts.DropCompactStorageEnabled,
		UserDefinedFunctionsEnabled: opts.UserDefinedFunctionsEnabled, ScriptedUserDefinedFunctionsEnabled: opts.ScriptedUserDefinedFunctionsEnabled,
		MemtableConfigurations: opts.MemtableConfigurations, MemtableClasses: opts.MemtableClasses,
		DefaultKeyspaceRF:            opts.DefaultKeyspaceRF,
		ExpirationDateOverflowPolicy: opts.ExpirationDateOverflowPolicy, Triggers: opts.Triggers}
	x.env.Roles = auth.New(x.env.System, func(ctx context.Context, text string, p *query.Params) (*query.Result, error) {
		s := x.NewSession()
		s.label = SourceInternal
		return s.Query(ctx, text, p)
	})
	// Bootstrap creates and fills the system keyspaces; its error is
	// logged here, and returned by an explicit call to Bootstrap.
	if err := x.Bootstrap(context.Background()); err != nil {
		opts.Logger.Error("cql: bootstrapping the system keyspaces", "err", err)
	} else if err := ddl.ResumeViewBuilds(context.Background(), &x.env); err != nil {
		opts.Logger.Error("cql: resuming view builds", "err", err)
	}
	// The built-in indexes of the schema maintain their tables from now
	// on (registrations live in memory: see package index).
	if err := index.Attach(eng); err != nil {
		opts.Logger.Error("cql: attaching the secondary indexes", "err", err)
	}
	return x
}

// AttachIndexes registers the built-in secondary indexes of the engine's
// schema again, as after a Restore replaced the schema (see index.Attach).
func (x *Executor) AttachIndexes() error { return index.Attach(x.env.Engine) }

// Engine returns the engine the executor runs on.
func (x *Executor) Engine() *engine.Engine { return x.env.Engine }

// NewSession returns a session with no current keyspace.
func (x *Executor) NewSession() *Session { return &Session{x: x} }

// NewUserSession returns a session logged in as role user (after
// Authenticate); user "" is the anonymous user, as NewSession.
func (x *Executor) NewUserSession(user string) *Session { return &Session{x: x, user: user} }

// Session is a client's view: the executor plus a current keyspace. A
// Session is safe for concurrent use.
type Session struct {
	x *Executor
	// user is the role the session logged in as, "" for the anonymous
	// user (no authentication).
	user string
	// label is the session's LogEntry.Source ("" is SourceClient).
	label string
	mu    sync.Mutex
	ks    string
}

// Keyspace returns the session's current keyspace ("" if none).
func (s *Session) Keyspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ks
}

// SetKeyspace changes the current keyspace without checking it exists.
func (s *Session) SetKeyspace(ks string) {
	s.mu.Lock()
	s.ks = ks
	s.mu.Unlock()
}

// Executor returns the session's executor.
func (s *Session) Executor() *Executor { return s.x }

// User returns the role the session logged in as, "" for the anonymous
// user.
func (s *Session) User() string { return s.user }

// Query parses, validates and runs one CQL statement.
func (s *Session) Query(ctx context.Context, query string, p *query.Params) (*query.Result, error) {
	stmt, err := parse(query)
	if err != nil {
		return nil, s.rejected(&request{text: query}, nil, p, err)
	}
	pl, _, err := s.x.compileStatement(stmt, s.Keyspace())
	if err != nil {
		return nil, s.rejected(&request{text: query}, stmt, p, err)
	}
	return s.run(ctx, pl, stmt, p, &request{text: query})
}

// QueryStatement runs an already parsed statement.
func (s *Session) QueryStatement(ctx context.Context, stmt parser.Statement, p *query.Params) (*query.Result, error) {
	pl, _, err := s.x.compileStatement(stmt, s.Keyspace())
	if err != nil {
		return nil, err
	}
	return s.run(ctx, pl, stmt, p, nil)
}

func parse(text string) (parser.Statement, error) {
	stmt, err := parser.Parse(text)
	if err != nil {
		return nil, &query.Error{Code: wire.CodeSyntax, Message: err.Error(), Err: err}
	}
	return stmt, nil
}

func (s *Session) run(ctx context.Context, pl plan.Plan, stmt parser.Statement, p *query.Params, req *request) (res *query.Result, err error) {
	if p == nil {
		p = &query.Params{}
	}
	values, err := bindValues(stmt.BindNames(), pl.Binds(), p, req != nil && req.prepared)
	if err != nil {
		return nil, s.rejected(req, stmt, p, err)
	}
	return s.runValues(ctx, pl, stmt, values, nil, p, req)
}

// runValues executes pl, the plan of stmt, with its bound values (or, for a
// protocol BATCH, each statement's values) as the session's role.
func (s *Session) runValues(ctx context.Context, pl plan.Plan, stmt fmt.Stringer, values []query.Value, stmtValues [][]query.Value, p *query.Params, req *request) (res *query.Result, err error) {
	var q *plan.Execution
	if req != nil && req.room != nil {
		// A new room is zero already; one lent again (a statement
		// prepared again and rerun) is cleared first.
		room := req.room
		if room.used {
			room.q = plan.Execution{}
		}
		room.used = true
		q = &room.q
		q.ResultRoom, q.PackRows, q.PackSpare = room.Result, room.PackRows, room.PackSpare
	} else {
		q = new(plan.Execution)
	}
	q.Env, q.Session = &s.x.env, s
	q.Execution = query.Execution{Params: p, Values: values, StmtValues: stmtValues, Now: s.x.env.Engine.Clock().Now(), UUIDs: s.x.uuid}
	if log := s.x.qlog.Load(); log != nil {
		parsed, _ := stmt.(parser.Statement)
		e := s.logStart(log, req, parsed, pl.Binds(), values, stmtValues, p, q.Now)
		if e.Query == "" && parsed != nil {
			e.Query = parsed.String()
		}
		defer func() {
			if res != nil {
				e.Warnings = slices.Clone(res.Warnings)
			}
			if err != nil {
				e.Err = query.AsError(err)
			}
			log.add(e)
		}()
	}
	if p.Trace {
		q.Trace = query.NewTrace(s.x.env.Engine.Clock().Now)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, s.x.recovered(r, stmt)
		}
	}()
	res, err = pl.Exec(ctx, q)
	if err != nil {
		if te := timedOut(stmt, p, err); te != nil {
			return nil, te
		}
		return nil, query.AsError(err)
	}
	if q.Trace != nil {
		q.Trace.Finish()
		res.Trace = q.Trace
	}
	if len(q.Warnings) > 0 {
		res.Warnings = append(res.Warnings, q.Warnings...)
	}
	return res, nil
}

// bindValues checks the number of bound values and orders named values.
// A wrong count is refused with Cassandra 4.1's texts: QueryProcessor.process
// (a QUERY) says "Invalid amount of bind variables", processPrepared (an
// EXECUTE) "there were N markers(?) in CQL but M bound variables";
// BatchMessage's capitalized text is Session.Batch's.
func bindValues(names []string, specs []query.ColumnSpec, p *query.Params, prepared bool) ([]query.Value, error) {
	if p.Names == nil {
		if len(p.Values) != len(specs) {
			if prepared {
				return nil, query.Invalidf("there were %d markers(?) in CQL but %d bound variables", len(specs), len(p.Values))
			}
			return nil, query.Invalidf("Invalid amount of bind variables")
		}
		return p.Values, nil
	}
	out := make([]query.Value, len(specs))
	for i := range out {
		out[i] = query.Value{Unset: true}
	}
	for i, n := range p.Names {
		if i >= len(p.Values) {
			break
		}
		found := false
		for j, spec := range specs {
			want := spec.Name
			if j < len(names) && names[j] != "" {
				want = names[j]
			}
			if strings.EqualFold(want, n) || want == n {
				out[j] = p.Values[i]
				found = true
			}
		}
		if !found {
			return nil, query.Invalidf("No column %s in statement", n)
		}
	}
	return out, nil
}

// Prepared is a prepared statement: a plan in the executor's cache
// (plancache.go), shared by every session that executes it.
type Prepared struct {
	// ID identifies the statement: the MD5 of the keyspace and query text,
	// as Cassandra computes it.
	ID []byte
	// Query is the statement text and Keyspace the session keyspace it was
	// prepared (and is compiled) in.
	Query, Keyspace string
	// idKeyspace is the keyspace hashed into ID: Keyspace, or empty for
	// the statement's entry under the id of its text alone (see
	// Executor.prepare). qualified records that the statement is fully
	// qualified.
	idKeyspace string
	qualified  bool
	// Bind describes the bind markers, Result the result columns: every
	// execution returns these columns, or the statement is evicted first.
	Bind, Result []query.ColumnSpec
	// PKIndexes gives, per partition key column, its bind marker index.
	PKIndexes []uint16

	stmt parser.Statement
	// cur is the plan, the schema version it was compiled against and
	// the tables it depends on, replaced as a whole when the schema changes: executions read it
	// without a lock.
	cur atomic.Pointer[versionedPlan]

	// The cache's bookkeeping: the estimated memory, whether the
	// statement was used since the clock hand passed, its ring slot.
	weight int64
	used   atomic.Bool
	slot   int
}

// Functions returns the names of the functions and aggregates the
// statement calls, as its current plan was compiled ("ks.f", and
// "system.f" for a native function; sorted, each once), as
// CQLStatement.getFunctions names them: the calls in its selection, its
// WHERE terms, its values and conditions, and, for an aggregate, its state
// and final functions. A statement other than SELECT, INSERT, UPDATE,
// DELETE or BATCH lists none.
func (p *Prepared) Functions() []string {
	return statements.FunctionNames(p.cur.Load().functions)
}

// versionedPlan is a plan and the schema version it was compiled against.
// A SELECT, INSERT, UPDATE, DELETE or BATCH also lists the tables it was
// compiled with: a change to one that affects prepared statements evicts
// it. Other statements list none.
type versionedPlan struct {
	plan    plan.Plan
	version types.UUIDValue
	tables  []*schema.Table
	// functions are the user functions and aggregates the statement
	// calls: replacing or dropping one evicts it, as Cassandra's
	// QueryProcessor does on a function's change.
	functions []any
}

// maxBindMarkers is the most bind markers a prepared statement may have
// (Cassandra's FBUtilities.MAX_UNSIGNED_SHORT).
const maxBindMarkers = 65535

// Prepare parses and validates query in the session's keyspace and caches
// it under its id. A statement already cached is returned as it is.
func (s *Session) Prepare(ctx context.Context, query string) (*Prepared, error) {
	return s.x.prepare(s.Keyspace(), query)
}

// prepare returns the statement text prepared in keyspace ks, from the
// cache or compiled and cached, under the id Cassandra 4.1's
// QueryProcessor.prepare answers on a fully upgraded node (the
// "new prepared statement behaviour" of CASSANDRA-15252 and -17248).
//
// A statement has two ids: the MD5 of its text alone and the MD5 of the
// session keyspace followed by the text (the same id when ks is empty).
// The statement is cached under both, each compiled in ks. A fully
// qualified statement (fullyQualified) answers the id of its text alone, so
// that its id does not depend on the session's keyspace; any other answers
// the id with the keyspace, so that one text prepared in two keyspaces gets
// two ids. A cached statement is answered only while both of its ids are
// cached; when one is missing, both are evicted and the statement is
// compiled and cached again.
func (x *Executor) prepare(ks, text string) (*Prepared, error) {
	without := x.plans.getText("", text)
	with := without
	if ks != "" {
		with = x.plans.getText(ks, text)
	}
	if without != nil && with != nil {
		if without.qualified {
			if _, err := x.planOf(without); err == nil {
				return without, nil
			}
		} else if ks != "" && !with.qualified {
			if _, err := x.planOf(with); err == nil {
				return with, nil
			}
		}
	} else {
		if with != nil {
			x.plans.remove(with)
		}
		if without != nil {
			x.plans.remove(without)
		}
	}
	stmt, err := parse(text)
	if err != nil {
		return nil, err
	}
	version := x.env.Engine.SchemaVersion()
	pl, deps, err := x.compileStatement(stmt, ks)
	if err != nil {
		return nil, err
	}
	tables, funcs := deps.Tables, deps.Functions
	if n := len(pl.Binds()); n > maxBindMarkers {
		// QueryProcessor.prepare: the protocol counts them in an
		// unsigned short.
		return nil, query.Invalidf("Too many markers(?). %d markers exceed the allowed maximum of %d", n, maxBindMarkers)
	}
	if !invalidatedOnChange(stmt) {
		tables, funcs = nil, nil
	}
	qualified := fullyQualified(stmt)
	store := func(idKeyspace string) *Prepared {
		sum := statementID(idKeyspace, text)
		p := &Prepared{ID: sum[:], Query: text, Keyspace: ks, Bind: pl.Binds(), Result: pl.Columns(), PKIndexes: pl.PKIndexes(),
			stmt: stmt, idKeyspace: idKeyspace, qualified: qualified, weight: int64(preparedOverhead + 2*(len(ks)+len(text))), slot: -1}
		p.cur.Store(&versionedPlan{plan: pl, version: version, tables: tables, functions: funcs})
		return x.plans.put(p)
	}
	if qualified {
		answer := store("")
		if ks != "" {
			store(ks)
		}
		return answer, nil
	}
	answer := store(ks)
	if ks != "" {
		store("")
	}
	return answer, nil
}

// fullyQualified reports whether stmt names the keyspace of every table it
// reads or writes, as Cassandra 4.1's QualifiedStatement.isFullyQualified
// does: a SELECT, INSERT, UPDATE, DELETE or TRUNCATE whose table name has
// a keyspace, or a BATCH whose statements all do. Any other statement
// (schema, role, USE) is not a QualifiedStatement and counts as not
// fully qualified.
func fullyQualified(stmt parser.Statement) bool {
	switch s := stmt.(type) {
	case *parser.Select:
		return s.Table.Keyspace != ""
	case *parser.Insert:
		return s.Table.Keyspace != ""
	case *parser.Update:
		return s.Table.Keyspace != ""
	case *parser.Delete:
		return s.Table.Keyspace != ""
	case *parser.Truncate:
		return s.Table.Keyspace != ""
	case *parser.Batch:
		for _, c := range s.Statements {
			if !fullyQualified(c) {
				return false
			}
		}
		return true
	}
	return false
}

// Reprepare prepares prep's text again in the keyspace it was prepared in,
// as a driver does when an execution gets Unprepared.
func (x *Executor) Reprepare(prep *Prepared) (*Prepared, error) {
	return x.prepare(prep.Keyspace, prep.Query)
}

// invalidatedOnChange reports whether a change to the tables stmt uses
// evicts it (QueryProcessor's shouldInvalidate).
func invalidatedOnChange(stmt parser.Statement) bool {
	switch stmt.(type) {
	case *parser.Select, *parser.Insert, *parser.Update, *parser.Delete, *parser.Batch:
		return true
	}
	return false
}

// statementID is the MD5 of the keyspace and the query text, hashed from a
// buffer on the stack when they are short.
func statementID(ks, query string) [md5.Size]byte {
	var buf [512]byte
	return md5.Sum(append(append(buf[:0], ks...), query...))
}

// Lookup returns the prepared statement with the given id, or nil when it
// is not cached (never prepared, evicted to make room, or invalidated by a
// schema change).
func (x *Executor) Lookup(id []byte) *Prepared {
	p := x.plans.get(id)
	if p == nil {
		return nil
	}
	if _, err := x.planOf(p); errors.Is(err, query.ErrUnprepared) {
		return nil
	}
	return p
}

// unprepared is the error for an id the cache does not hold.
func unprepared(id []byte) *query.Error {
	return &query.Error{Code: wire.CodeUnprepared, Message: wire.UnpreparedMessage(id), ID: id}
}

// Execute runs the prepared statement with the given id. An unknown id gets an
// Unprepared error (0x2500) so drivers prepare again.
func (s *Session) Execute(ctx context.Context, id []byte, p *query.Params) (*query.Result, error) {
	prep := s.x.plans.get(id)
	if prep == nil {
		return nil, s.rejected(&request{prepared: true}, nil, p, unprepared(id))
	}
	return s.ExecutePrepared(ctx, prep, p)
}

// ExecutePrepared runs a prepared statement as the session's role. A
// statement that a schema change invalidated gets Unprepared, as its id
// would; the caller prepares it again.
func (s *Session) ExecutePrepared(ctx context.Context, prep *Prepared, p *query.Params) (*query.Result, error) {
	return s.ExecutePreparedIn(ctx, prep, p, nil)
}

// CallRoom is memory a caller lends to one execution of a statement, so
// that the execution allocates neither its state nor (with Result), for a
// SELECT, its result. Once the call returns nothing the execution returned
// points into the room (a result is in Result, not in the room), so the
// caller may reuse it, zeroed, for another call. The zero CallRoom is ready
// for use.
type CallRoom struct {
	// PackRows asks for the rows of a SELECT packed (query.Result.Packed)
	// when the statement can pack them; the caller then reads either
	// form.
	PackRows bool
	// Result, when not nil, is memory for the statement's result: the
	// result returned may be it (the caller then owns it), so nothing else
	// may use it. The room itself may be reused once the call returns.
	Result *query.Result
	// PackSpare asks, with PackRows, that the block of packed rows have
	// room past them for copies of their blob values, which the caller
	// may use (the Go API's Rows copies the blobs it scans there).
	PackSpare bool

	q    plan.Execution
	used bool
}

// ExecutePreparedIn is ExecutePrepared in the memory of room (nil: none).
func (s *Session) ExecutePreparedIn(ctx context.Context, prep *Prepared, p *query.Params, room *CallRoom) (*query.Result, error) {
	pl, err := s.x.planOf(prep)
	if err != nil {
		return nil, s.rejected(&request{text: prep.Query, prepared: true}, prep.stmt, p, err)
	}
	return s.run(ctx, pl, prep.stmt, p, &request{text: prep.Query, prepared: true, room: room})
}

// planOf returns the plan of prep for the current schema. When the schema
// changed since the plan was compiled, a statement whose tables changed in
// a way that affects it is evicted (Unprepared); any other is compiled
// again in the keyspace it was prepared in, and evicted too if its result
// columns would change.
func (x *Executor) planOf(prep *Prepared) (plan.Plan, error) {
	version := x.env.Engine.SchemaVersion()
	cur := prep.cur.Load()
	if cur.version == version {
		return cur.plan, nil
	}
	if x.invalidatedBy(cur.tables) || x.functionsChanged(cur.functions) {
		x.plans.remove(prep)
		return nil, unprepared(prep.ID)
	}
	pl, deps, err := x.compileStatement(prep.stmt, prep.Keyspace)
	if err != nil {
		return nil, err
	}
	tables, funcs := deps.Tables, deps.Functions
	if !sameColumns(pl.Columns(), prep.Result) {
		x.plans.remove(prep)
		return nil, unprepared(prep.ID)
	}
	if cur.tables == nil {
		tables, funcs = nil, nil
	}
	prep.cur.Store(&versionedPlan{plan: pl, version: version, tables: tables, functions: funcs})
	return pl, nil
}

// compileStatement compiles stmt in keyspace ks. It returns the plan and
// the tables it depends on.
func (x *Executor) compileStatement(stmt parser.Statement, ks string) (plan.Plan, statements.Deps, error) {
	return statements.Compile(&x.env, stmt, ks)
}

// RegisterVirtualKeyspace registers a virtual keyspace whose tables the
// embedder implements in Go (package virtual), as Cassandra's
// VirtualKeyspaceRegistry.register. Register before serving requests; a
// name that is taken is refused.
func (x *Executor) RegisterVirtualKeyspace(ks virtual.UserKeyspace) error {
	return x.env.System.RegisterKeyspace(ks)
}

// IsVirtualKeyspace reports whether ks is a virtual keyspace: system_views,
// system_virtual_schema or one registered with RegisterVirtualKeyspace.
func (x *Executor) IsVirtualKeyspace(ks string) bool {
	return virtual.VirtualKeyspaces[ks] || x.env.System.UserVirtualKeyspace(ks)
}
