package cql

import (
	"context"
	"crypto/md5"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
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
}

// Executor runs CQL against an engine. It is safe for concurrent use; each
// client (connection, Go session) uses its own Session for the current
// keyspace.
type Executor struct {
	eng  *engine.Engine
	opts Options
	uuid *types.TimeUUIDGenerator

	mu       sync.Mutex
	prepared map[string]*Prepared

	// sys is the node identity and system table state (system_exec.go).
	sys *systemState
	// auth is the authentication state (roles.go).
	auth roleAuth
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
	x := &Executor{eng: eng, opts: opts, uuid: types.NewTimeUUIDGenerator(), prepared: make(map[string]*Prepared),
		sys: newSystemState(eng.Clock().Now().Unix())}
	// Bootstrap creates and fills the system keyspaces; its error is
	// logged here, and returned by an explicit call to Bootstrap.
	if err := x.Bootstrap(context.Background()); err != nil {
		opts.Logger.Error("cql: bootstrapping the system keyspaces", "err", err)
	}
	return x
}

// Engine returns the engine the executor runs on.
func (x *Executor) Engine() *engine.Engine { return x.eng }

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
	mu   sync.Mutex
	ks   string
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

// plan is a compiled statement: validated against the schema, with its bind
// markers typed. Executing it needs only the bound values.
type plan interface {
	// binds describes each bind marker, in order.
	binds() []ColumnSpec
	// columns describes the result columns of a SELECT (nil otherwise).
	columns() []ColumnSpec
	// pkIndexes lists, for each partition key column in order, the bind
	// marker that gives it (nil when the key is not fully bound).
	pkIndexes() []uint16
	// exec runs the statement once.
	exec(ctx context.Context, q *execution) (*Result, error)
}

// execution is one run of a plan.
type execution struct {
	s      *Session
	params *Params
	values []Value
	now    time.Time
	trace  *Trace
	// batchTimestamp is set when the statement runs inside a BATCH.
	batch *batchContext
	// warnings are server warnings gathered while reading (tombstone
	// warnings, select_read.go), added to the result.
	warnings []string
	// jsonCache holds the objects of the INSERT JSON bind markers decoded
	// so far (insert_json.go).
	jsonCache map[*jsonSource]map[string][]byte
}

// Query parses, validates and runs one CQL statement.
func (s *Session) Query(ctx context.Context, query string, p *Params) (*Result, error) {
	stmt, err := parse(query)
	if err != nil {
		return nil, err
	}
	pl, err := s.compile(stmt)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, pl, stmt, p)
}

// QueryStatement runs an already parsed statement.
func (s *Session) QueryStatement(ctx context.Context, stmt parser.Statement, p *Params) (*Result, error) {
	pl, err := s.compile(stmt)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, pl, stmt, p)
}

func parse(query string) (parser.Statement, error) {
	stmt, err := parser.Parse(query)
	if err != nil {
		return nil, &Error{Code: CodeSyntax, Message: err.Error(), Err: err}
	}
	return stmt, nil
}

func (s *Session) run(ctx context.Context, pl plan, stmt parser.Statement, p *Params) (res *Result, err error) {
	if p == nil {
		p = &Params{}
	}
	values, err := bindValues(stmt.BindNames(), pl.binds(), p)
	if err != nil {
		return nil, err
	}
	q := &execution{s: s, params: p, values: values, now: s.x.eng.Clock().Now()}
	if p.Trace {
		q.trace = newTrace(s.x.eng.Clock().Now)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &Error{Code: CodeServer, Message: fmt.Sprintf("java.lang.RuntimeException: internal error: %v", r)}
		}
	}()
	res, err = pl.exec(ctx, q)
	if err != nil {
		return nil, err
	}
	if q.trace != nil {
		q.trace.finish()
		res.Trace = q.trace
	}
	if len(q.warnings) > 0 {
		res.Warnings = append(res.Warnings, q.warnings...)
	}
	return res, nil
}

// bindValues checks the number of bound values and orders named values.
func bindValues(names []string, specs []ColumnSpec, p *Params) ([]Value, error) {
	if p.Names == nil {
		if len(p.Values) != len(specs) {
			return nil, invalidf("There were %d markers(?) in CQL but %d bound variables", len(specs), len(p.Values))
		}
		return p.Values, nil
	}
	out := make([]Value, len(specs))
	for i := range out {
		out[i] = Value{Unset: true}
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
			return nil, invalidf("No column %s in statement", n)
		}
	}
	return out, nil
}

// Prepared is a prepared statement.
type Prepared struct {
	// ID identifies the statement: the MD5 of the keyspace and query text,
	// as Cassandra computes it.
	ID []byte
	// Query is the statement text and Keyspace the session keyspace it was
	// prepared in.
	Query, Keyspace string
	// Bind describes the bind markers, Result the result columns.
	Bind, Result []ColumnSpec
	// PKIndexes gives, per partition key column, its bind marker index.
	PKIndexes []uint16

	stmt parser.Statement
	// cur is the plan and the schema version it was compiled against,
	// replaced as a whole when the schema changes: executions read it
	// without a lock.
	cur atomic.Pointer[versionedPlan]
}

// versionedPlan is a plan and the schema version it was compiled against.
type versionedPlan struct {
	plan    plan
	version types.UUIDValue
}

// Prepare parses and validates query and caches it under its id.
func (s *Session) Prepare(ctx context.Context, query string) (*Prepared, error) {
	stmt, err := parse(query)
	if err != nil {
		return nil, err
	}
	ks := s.Keyspace()
	version := s.x.eng.SchemaVersion()
	pl, err := s.compile(stmt)
	if err != nil {
		return nil, err
	}
	sum := statementID(ks, query)
	p := &Prepared{ID: sum[:], Query: query, Keyspace: ks, Bind: pl.binds(), Result: pl.columns(), PKIndexes: pl.pkIndexes(),
		stmt: stmt}
	p.cur.Store(&versionedPlan{plan: pl, version: version})
	s.x.mu.Lock()
	s.x.prepared[string(p.ID)] = p
	s.x.mu.Unlock()
	return p, nil
}

// statementID is the MD5 of the keyspace and the query text, hashed from a
// buffer on the stack when they are short.
func statementID(ks, query string) [md5.Size]byte {
	var buf [512]byte
	return md5.Sum(append(append(buf[:0], ks...), query...))
}

// Lookup returns the prepared statement with the given id, or nil.
func (x *Executor) Lookup(id []byte) *Prepared {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.prepared[string(id)]
}

// Execute runs the prepared statement with the given id. An unknown id gets an
// Unprepared error (0x2500) so drivers prepare again.
func (s *Session) Execute(ctx context.Context, id []byte, p *Params) (*Result, error) {
	prep := s.x.Lookup(id)
	if prep == nil {
		return nil, &Error{Code: CodeUnprepared, Message: fmt.Sprintf("Prepared query with ID %x not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)", id), ID: id}
	}
	return s.ExecutePrepared(ctx, prep, p)
}

// ExecutePrepared runs a prepared statement. If the schema changed since it
// was prepared, it is validated again against the current schema.
func (s *Session) ExecutePrepared(ctx context.Context, prep *Prepared, p *Params) (*Result, error) {
	pl, err := s.planFor(prep)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, pl, prep.stmt, p)
}

func (s *Session) planFor(prep *Prepared) (plan, error) {
	version := s.x.eng.SchemaVersion()
	if cur := prep.cur.Load(); cur.version == version {
		return cur.plan, nil
	}
	ps := &Session{x: s.x, ks: prep.Keyspace}
	pl, err := ps.compile(prep.stmt)
	if err != nil {
		return nil, err
	}
	prep.cur.Store(&versionedPlan{plan: pl, version: version})
	return pl, nil
}

// compile validates a parsed statement against the current schema.
func (s *Session) compile(stmt parser.Statement) (plan, error) {
	switch st := stmt.(type) {
	case *parser.Use:
		return &usePlan{ks: string(st.Keyspace)}, nil
	case *parser.Select:
		return s.compileSelect(st)
	case *parser.Insert:
		return s.compileInsert(st)
	case *parser.Update:
		return s.compileUpdate(st)
	case *parser.Delete:
		return s.compileDelete(st)
	case *parser.Batch:
		return s.compileBatch(st)
	case *parser.CreateKeyspace, *parser.AlterKeyspace, *parser.DropKeyspace,
		*parser.CreateTable, *parser.AlterTable, *parser.DropTable, *parser.Truncate, *parser.CreateIndex, *parser.DropIndex,
		*parser.CreateType, *parser.AlterUserType, *parser.DropType,
		*parser.CreateView, *parser.AlterView, *parser.DropView,
		*parser.CreateFunction, *parser.CreateAggregate, *parser.DropFunction,
		*parser.CreateTrigger, *parser.DropTrigger:
		return s.compileDDL(st)
	case *parser.Describe:
		return s.compileDescribe(st)
	case *parser.CreateRole, *parser.AlterRole, *parser.DropRole, *parser.ListRoles, *parser.GrantRole, *parser.Permissions:
		return s.compileAuth(st)
	}
	return nil, invalidf("statement not supported: %s", stmt)
}

// usePlan is USE ks.
type usePlan struct {
	noBinds
	ks string
}

func (p *usePlan) exec(ctx context.Context, q *execution) (*Result, error) {
	if _, ok := q.s.x.eng.Keyspace(p.ks); !ok {
		return nil, invalidf("Keyspace '%s' does not exist", p.ks)
	}
	q.s.SetKeyspace(p.ks)
	return &Result{Kind: ResultSetKeyspace, Keyspace: p.ks}, nil
}

// noBinds is embedded by plans without bind markers or result columns.
type noBinds struct{}

func (noBinds) binds() []ColumnSpec   { return nil }
func (noBinds) columns() []ColumnSpec { return nil }
func (noBinds) pkIndexes() []uint16   { return nil }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
