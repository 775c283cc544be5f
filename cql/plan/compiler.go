package plan

import (
	"errors"
	"slices"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// Compiler is the environment a statement is compiled in: the executor,
// whose schema resolves names, and the keyspace unqualified names resolve
// in. It holds no session, role, clock or bound value, so the plan it
// returns is a pure value that any session may execute: who runs it, with
// what values and at what time comes with each execution.
type Compiler struct {
	Env *Env
	ks  string
	// tables lists the tables the statement resolved, in order, for the
	// plan cache: a prepared statement is evicted when one of them
	// changes (the plan cache of package cql).
	tables []*schema.Table
	// functions lists the functions and aggregates the statement calls
	// (*schema.Function, *schema.Aggregate, *expr.NativeFunction), for the
	// plan cache and the authorizer too.
	functions []any
}

// UDFs returns what the statement's expressions need to call user-defined
// functions: the engine's keyspaces, the node's setting, and a record of
// the functions resolved (Functions).
func (s *Compiler) UDFs() *expr.UserFunctions {
	return &expr.UserFunctions{Keyspace: s.Env.Engine.Keyspace, Enabled: s.Env.UserDefinedFunctionsEnabled,
		ScriptedEnabled: s.Env.ScriptedUserDefinedFunctionsEnabled,
		Used:            func(at int, def any) { s.functions = slices.Insert(s.functions, at, def) },
		Count:           func() int { return len(s.functions) }}
}

// Functions returns the functions and aggregates the compiled statements
// call (*schema.Function, *schema.Aggregate or *expr.NativeFunction), in
// order, as CQLStatement.getFunctions lists them.
func (s *Compiler) Functions() []any { return s.functions }

// Keyspace returns the keyspace unqualified names resolve in ("" if none).
func (s *Compiler) Keyspace() string { return s.ks }

// NewCompiler returns the compiler of statements against env in keyspace
// ks.
func NewCompiler(env *Env, ks string) *Compiler { return &Compiler{Env: env, ks: ks} }

// Dependencies returns the tables the compiled statements resolved, in
// order.
func (s *Compiler) Dependencies() []*schema.Table { return s.tables }

// notModifiable is Cassandra's text for a change to a system keyspace
// (ClientState.ensurePermission).
func notModifiable(ks string) string { return ks + " keyspace is not user-modifiable." }

// CheckModifiable returns Cassandra's Unauthorized error for a change to a
// system keyspace, or nil for a user keyspace.
func CheckModifiable(ks string) error {
	if virtual.IsSystemKeyspace(ks) {
		return &query.Error{Code: wire.CodeUnauthorized, Message: notModifiable(ks)}
	}
	return nil
}

// ModifiableTable resolves the keyspace and name of the table a schema
// statement changes, refusing system keyspaces and virtual ones.
func (s *Compiler) ModifiableTable(t parser.TableName) (ks, name string, err error) {
	if ks, err = s.KeyspaceFor(t); err != nil {
		return "", "", err
	}
	return ks, string(t.Name), s.CheckSchemaModifiable(ks)
}

// CheckSchemaModifiable refuses a schema change in keyspace ks: a system
// keyspace's as CheckModifiable does, and then a virtual keyspace an
// embedder registered with AlterSchemaStatement.execute's "Virtual keyspace
// 'ks' is not user-modifiable".
func (s *Compiler) CheckSchemaModifiable(ks string) error {
	if err := CheckModifiable(ks); err != nil {
		return err
	}
	if s.Env.System.UserVirtualKeyspace(ks) {
		return query.Invalidf("Virtual keyspace '%s' is not user-modifiable", ks)
	}
	return nil
}

// TableKeyspace resolves the keyspace of a possibly unqualified table name,
// refusing system keyspaces (CheckModifiable) but not virtual ones: TRUNCATE
// reaches a virtual table's own truncation.
func (s *Compiler) TableKeyspace(t parser.TableName) (ks, name string, err error) {
	if ks, err = s.KeyspaceFor(t); err != nil {
		return "", "", err
	}
	return ks, string(t.Name), CheckModifiable(ks)
}

// KeyspaceFor resolves the keyspace of a possibly unqualified table name.
func (s *Compiler) KeyspaceFor(t parser.TableName) (string, error) {
	if t.Keyspace != "" {
		return string(t.Keyspace), nil
	}
	ks := s.Keyspace()
	if ks == "" {
		return "", query.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	return ks, nil
}

// LookupTable finds a table, with Cassandra's errors for a missing keyspace
// or table.
func (s *Compiler) LookupTable(t parser.TableName) (*schema.Table, error) {
	ks, err := s.KeyspaceFor(t)
	if err != nil {
		return nil, err
	}
	// An index's table is not for CQL (Cassandra keeps it out of the
	// schema): it is as missing.
	if tbl, ok := s.Env.Engine.Table(ks, string(t.Name)); ok && !tbl.IsIndexTable() {
		s.tables = append(s.tables, tbl)
		return tbl, nil
	}
	if tbl := virtual.Table(ks, string(t.Name)); tbl != nil {
		s.tables = append(s.tables, tbl)
		return tbl, nil
	}
	if tbl := s.Env.System.UserVirtualTable(ks, string(t.Name)); tbl != nil {
		s.tables = append(s.tables, tbl)
		return tbl, nil
	}
	if _, ok := s.Env.Engine.Keyspace(ks); !ok && !virtual.IsSystemKeyspace(ks) && !s.Env.System.UserVirtualKeyspace(ks) {
		return nil, query.Invalidf("keyspace %s does not exist", ks)
	}
	return nil, query.Invalidf("table %s does not exist", t.Name)
}

// VirtualError turns the error of a registered virtual table's operation
// into the CQL error clients see: a refusal (virtual.InvalidRequestError)
// is an InvalidRequest with its text.
func VirtualError(err error) error {
	if err == nil {
		return nil
	}
	var inv *virtual.InvalidRequestError
	if errors.As(err, &inv) {
		return query.Invalidf("%s", inv.Message)
	}
	return query.AsError(err)
}
