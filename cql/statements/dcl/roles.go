package dcl

import (
	"context"
	"encoding/binary"
	"slices"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"golang.org/x/crypto/bcrypt"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// The error texts shared by several statements.
const (
	errAnonymous     = "You have to be logged in and not anonymous to perform this request"
	roleManagerClass = "org.apache.cassandra.auth.CassandraRoleManager"
)

// Roles and permissions.
//
// minicass plays the parts of a Cassandra 4.1 node configured with
// CassandraRoleManager (roles kept in system_auth.roles and role_members),
// AllowAllAuthorizer (no permission is checked, so GRANT and REVOKE of
// permissions and LIST PERMISSIONS fail as on such a node) and
// AllowAllNetworkAuthorizer (ACCESS TO DATACENTERS is accepted on CREATE and
// refused on ALTER). The authenticator is AllowAllAuthenticator until
// EnableAuthentication switches to PasswordAuthenticator (the server's
// --auth): until then every session is anonymous and each role statement
// fails as Cassandra fails it for the anonymous user.
//
// Each statement runs Cassandra's steps in Cassandra's order: authorize,
// then validate, then execute (QueryProcessor.processStatement), so an
// anonymous CREATE ROLE ... SUPERUSER = true meets the superuser check
// before the anonymous one.

// authPlan is a role or permission statement.
type authPlan struct {
	cols []query.ColumnSpec
	run  func(ctx context.Context, q *plan.Execution) (*query.Result, error)
}

func (p *authPlan) Binds() []query.ColumnSpec   { return nil }
func (p *authPlan) Columns() []query.ColumnSpec { return p.cols }
func (p *authPlan) PKIndexes() []uint16         { return nil }
func (p *authPlan) Exec(ctx context.Context, q *plan.Execution) (*query.Result, error) {
	return p.run(ctx, q)
}

// authCall is one run of a role statement: the session's role and a
// snapshot of every role, read under auth.mu.
type authCall struct {
	env   *plan.Env
	user  string // "" for the anonymous user
	roles map[string]*auth.Role
}

// isSuper reports whether the session's role has superuser status
// (AuthenticatedUser.isSuper: never for the anonymous user).
func (c *authCall) isSuper() bool { return c.user != "" && auth.HasSuperuserStatus(c.roles, c.user) }

// ensureNotAnonymous is ClientState.ensureNotAnonymous.
func (c *authCall) ensureNotAnonymous() error {
	if c.user == "" {
		return &query.Error{Code: wire.CodeUnauthorized, Message: errAnonymous}
	}
	return nil
}

func (c *authCall) exists(name string) bool { return c.roles[name] != nil }

// CompileAuth compiles a role or permission statement. Each runs under
// auth.mu with a fresh snapshot of the roles.
func CompileAuth(s *plan.Compiler, stmt parser.Statement) (plan.Plan, error) {
	var cols []query.ColumnSpec
	var run func(ctx context.Context, c *authCall) (*query.Result, error)
	switch st := stmt.(type) {
	case *parser.CreateRole:
		run = func(ctx context.Context, c *authCall) (*query.Result, error) { return c.createRole(ctx, st) }
	case *parser.AlterRole:
		run = func(ctx context.Context, c *authCall) (*query.Result, error) { return c.alterRole(ctx, st) }
	case *parser.DropRole:
		run = func(ctx context.Context, c *authCall) (*query.Result, error) { return c.dropRole(ctx, st) }
	case *parser.GrantRole:
		run = func(ctx context.Context, c *authCall) (*query.Result, error) { return c.grantRole(ctx, st) }
	case *parser.ListRoles:
		cols = listRolesColumns
		if st.Users {
			cols = listUsersColumns
		}
		run = func(_ context.Context, c *authCall) (*query.Result, error) { return c.listRoles(st) }
	case *parser.Permissions:
		if st.Kind == parser.ListPermissions {
			cols = listPermissionsColumns
		}
		res, resErr := resolveResource(s, st.Resource)
		run = func(_ context.Context, c *authCall) (*query.Result, error) { return c.permissions(st, res, resErr) }
	default:
		return nil, query.Invalidf("statement not supported: %s", stmt)
	}
	return &authPlan{cols: cols, run: func(ctx context.Context, q *plan.Execution) (*query.Result, error) {
		// The role is the executing session's, never the preparing one's:
		// a prepared statement is shared by every session.
		unlock := q.Env.Roles.Lock()
		defer unlock()
		roles, err := q.Env.Roles.All(ctx)
		if err != nil {
			return nil, err
		}
		return run(ctx, &authCall{env: q.Env, user: q.Session.User(), roles: roles})
	}}, nil
}

// validateOptions checks the options as RoleOptions.validate does: each
// must be supported by the role manager (passwords only with
// PasswordAuthenticator; OPTIONS never), and a hashed password must be a
// bcrypt hash.
func (c *authCall) validateOptions(o *parser.RoleOptions) error {
	for _, name := range optionsGiven(o) {
		supported := name == "SUPERUSER" || name == "LOGIN" || c.alterable(name)
		if !supported {
			return query.Invalidf("%s doesn't support %s", roleManagerClass, name)
		}
	}
	if o.HashedPassword != nil {
		if _, err := bcrypt.Cost([]byte(*o.HashedPassword)); err != nil {
			return query.Invalidf("Invalid hashed password value. Please use jBcrypt.")
		}
	}
	return nil
}

// validateDCs is DCPermissions.validate: every datacenter named must be
// the node's.
func (c *authCall) validateDCs(o *parser.RoleOptions) error {
	if !o.Access || o.AccessAll {
		return nil
	}
	for _, dc := range o.AccessDCs {
		if dc != c.env.System.DataCenter() {
			return query.Invalidf("Invalid value(s) for DATACENTERS '[%s]',All values must be valid datacenters", strings.Join(o.AccessDCs, ", "))
		}
	}
	return nil
}

// setPassword applies the PASSWORD or HASHED PASSWORD option to r.
func (c *authCall) setPassword(r *auth.Role, o *parser.RoleOptions) error {
	switch {
	case o.Password != nil:
		h, err := c.env.Roles.HashPassword(r.Name, *o.Password)
		if err != nil {
			return err
		}
		r.Hash = h
	case o.HashedPassword != nil:
		r.Hash = *o.HashedPassword
	}
	return nil
}

func (c *authCall) createRole(ctx context.Context, st *parser.CreateRole) (*query.Result, error) {
	o := &st.Options
	// CREATE sets the defaults of the options not given.
	super := o.Superuser != nil && *o.Superuser
	login := st.User || (o.Login != nil && *o.Login)
	// authorize
	if super && !c.isSuper() {
		return nil, &query.Error{Code: wire.CodeUnauthorized, Message: "Only superusers can create a role with superuser status"}
	}
	// validate
	if err := c.validateOptions(o); err != nil {
		return nil, err
	}
	if st.Name == "" {
		return nil, query.Invalidf("Role name can't be an empty string")
	}
	if err := c.validateDCs(o); err != nil {
		return nil, err
	}
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	if c.exists(st.Name) {
		if st.IfNotExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("%s already exists", st.Name)
	}
	// execute
	r := &auth.Role{Name: st.Name, Super: super, Login: login}
	if err := c.setPassword(r, o); err != nil {
		return nil, err
	}
	return query.VoidResult(), c.env.Roles.Write(ctx, r)
}

// optionsGiven names the options given, as IRoleManager.Option names them
// and in its order.
func optionsGiven(o *parser.RoleOptions) []string {
	var out []string
	for _, g := range []struct {
		name string
		set  bool
	}{{"SUPERUSER", o.Superuser != nil}, {"PASSWORD", o.Password != nil}, {"LOGIN", o.Login != nil},
		{"OPTIONS", o.Options != nil}, {"HASHED_PASSWORD", o.HashedPassword != nil}} {
		if g.set {
			out = append(out, g.name)
		}
	}
	return out
}

// alterable reports whether a role may change option name on itself
// (CassandraRoleManager.alterableOptions: the passwords, with
// PasswordAuthenticator); these are also the options supported besides
// SUPERUSER and LOGIN.
func (c *authCall) alterable(name string) bool {
	return c.env.Roles.Enabled() && (name == "PASSWORD" || name == "HASHED_PASSWORD")
}

func (c *authCall) alterRole(ctx context.Context, st *parser.AlterRole) (*query.Result, error) {
	o := &st.Options
	// authorize
	if o.Superuser != nil {
		if c.user != "" && slices.Contains(auth.Granted(c.roles, c.user, true), st.Name) {
			return nil, &query.Error{Code: wire.CodeUnauthorized, Message: "You aren't allowed to alter your own superuser status or that of a role granted to you"}
		}
		if !c.isSuper() {
			return nil, &query.Error{Code: wire.CodeUnauthorized, Message: "Only superusers are allowed to alter superuser status"}
		}
	}
	if !c.isSuper() && c.user != "" && c.user == st.Name {
		for _, name := range optionsGiven(o) {
			if !c.alterable(name) {
				return nil, &query.Error{Code: wire.CodeUnauthorized, Message: "You aren't allowed to alter " + name}
			}
		}
	}
	// validate
	if err := c.validateOptions(o); err != nil {
		return nil, err
	}
	if err := c.validateDCs(o); err != nil {
		return nil, err
	}
	if o.IsEmpty() {
		return nil, query.Invalidf("ALTER [ROLE|USER] can't be empty")
	}
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	r := c.roles[st.Name]
	if r == nil {
		if st.IfExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("Role %s doesn't exist", st.Name)
	}
	// execute
	if o.Superuser != nil || o.Login != nil || o.Password != nil || o.HashedPassword != nil {
		if o.Superuser != nil {
			r.Super = *o.Superuser
		}
		if o.Login != nil {
			r.Login = *o.Login
		}
		if err := c.setPassword(r, o); err != nil {
			return nil, err
		}
		if err := c.env.Roles.Write(ctx, r); err != nil {
			return nil, err
		}
	}
	if o.Access {
		return nil, query.Invalidf("ACCESS TO DATACENTERS operations not supported by AllowAllNetworkAuthorizer")
	}
	return query.VoidResult(), nil
}

func (c *authCall) dropRole(ctx context.Context, st *parser.DropRole) (*query.Result, error) {
	// authorize
	if c.exists(st.Name) && auth.HasSuperuserStatus(c.roles, st.Name) && !c.isSuper() {
		return nil, &query.Error{Code: wire.CodeUnauthorized, Message: "Only superusers can drop a role with superuser status"}
	}
	// validate
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	if !c.exists(st.Name) {
		if st.IfExists {
			return query.VoidResult(), nil
		}
		return nil, query.Invalidf("%s doesn't exist", st.Name)
	}
	if c.user == st.Name {
		return nil, query.Invalidf("Cannot DROP primary role for current login")
	}
	// execute: the role goes, and so do its grants to other roles.
	if err := c.env.Roles.Delete(ctx, st.Name); err != nil {
		return nil, err
	}
	dropped := c.roles[st.Name]
	delete(c.roles, st.Name)
	for _, r := range c.roles {
		if i := slices.Index(r.MemberOf, st.Name); i >= 0 {
			r.MemberOf = slices.Delete(r.MemberOf, i, i+1)
			if err := c.env.Roles.Write(ctx, r); err != nil {
				return nil, err
			}
		}
	}
	return query.VoidResult(), c.env.Roles.WriteMembers(ctx, c.roles, append([]string{st.Name}, dropped.MemberOf...)...)
}

func (c *authCall) grantRole(ctx context.Context, st *parser.GrantRole) (*query.Result, error) {
	// validate
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	for _, name := range []string{st.Role, st.Grantee} {
		if !c.exists(name) {
			return nil, query.Invalidf("%s doesn't exist", name)
		}
	}
	// execute
	grantee := c.roles[st.Grantee]
	if st.Revoke {
		if !slices.Contains(auth.Granted(c.roles, st.Grantee, false), st.Role) {
			return nil, query.Invalidf("%s is not a member of %s", st.Grantee, st.Role)
		}
		grantee.MemberOf = slices.DeleteFunc(grantee.MemberOf, func(s string) bool { return s == st.Role })
	} else {
		if slices.Contains(auth.Granted(c.roles, st.Grantee, true), st.Role) {
			return nil, query.Invalidf("%s is a member of %s", st.Grantee, st.Role)
		}
		if slices.Contains(auth.Granted(c.roles, st.Role, true), st.Grantee) {
			return nil, query.Invalidf("%s is a member of %s", st.Role, st.Grantee)
		}
		grantee.MemberOf = append(grantee.MemberOf, st.Role)
		sort.Strings(grantee.MemberOf)
	}
	if err := c.env.Roles.Write(ctx, grantee); err != nil {
		return nil, err
	}
	return query.VoidResult(), c.env.Roles.WriteMembers(ctx, c.roles, st.Role)
}

// The result columns of LIST ROLES, LIST USERS and LIST PERMISSIONS
// (ListRolesStatement, ListUsersStatement, ListPermissionsStatement).
var (
	listRolesColumns = []query.ColumnSpec{
		{Keyspace: "system_auth", Table: "roles", Name: "role", Type: types.TextType},
		{Keyspace: "system_auth", Table: "roles", Name: "super", Type: types.BooleanType},
		{Keyspace: "system_auth", Table: "roles", Name: "login", Type: types.BooleanType},
		{Keyspace: "system_auth", Table: "roles", Name: "options", Type: types.MapOf(types.TextType, types.TextType, false)},
		{Keyspace: "system_auth", Table: "roles", Name: "datacenters", Type: types.TextType},
	}
	listUsersColumns = []query.ColumnSpec{
		{Keyspace: "system_auth", Table: "users", Name: "name", Type: types.TextType},
		{Keyspace: "system_auth", Table: "users", Name: "super", Type: types.BooleanType},
		{Keyspace: "system_auth", Table: "users", Name: "datacenters", Type: types.TextType},
	}
	listPermissionsColumns = []query.ColumnSpec{
		{Keyspace: "system_auth", Table: "permissions", Name: "role", Type: types.TextType},
		{Keyspace: "system_auth", Table: "permissions", Name: "username", Type: types.TextType},
		{Keyspace: "system_auth", Table: "permissions", Name: "resource", Type: types.TextType},
		{Keyspace: "system_auth", Table: "permissions", Name: "permission", Type: types.TextType},
	}
)

// emptyMap is an empty map<text, text> value.
var emptyMap = binary.BigEndian.AppendUint32(nil, 0)

func (c *authCall) listRoles(st *parser.ListRoles) (*query.Result, error) {
	// validate
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	if st.Of != "" && !c.exists(st.Of) {
		return nil, query.Invalidf("<role %s> doesn't exist", st.Of)
	}
	// execute: AllowAllAuthorizer grants DESCRIBE on every role, so every
	// role may be listed.
	var names []string
	if st.Of != "" {
		names = auth.Granted(c.roles, st.Of, !st.NoRecursive)
	} else {
		for name := range c.roles {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return query.VoidResult(), nil
	}
	sort.Strings(names)
	if st.Users {
		res := &query.Result{Kind: wire.ResultRows, Columns: listUsersColumns, Rows: [][][]byte{}}
		for _, name := range names {
			if r := c.roles[name]; r != nil && r.Login {
				res.Rows = append(res.Rows, [][]byte{virtual.TextV(name), virtual.BoolV(auth.HasSuperuserStatus(c.roles, name)), virtual.TextV("ALL")})
			}
		}
		return res, nil
	}
	res := &query.Result{Kind: wire.ResultRows, Columns: listRolesColumns}
	for _, name := range names {
		r := c.roles[name]
		if r == nil {
			continue
		}
		res.Rows = append(res.Rows, [][]byte{virtual.TextV(name), virtual.BoolV(r.Super), virtual.BoolV(r.Login), emptyMap, virtual.TextV("ALL")})
	}
	return res, nil
}

// resource is a resolved permission resource: its IResource.toString form
// and whether it exists.
type resource struct {
	text string
	// exists reports, when the statement runs, whether the resource
	// exists.
	exists func(c *authCall) bool
}

// resolveResource resolves an unqualified table against the session's
// keyspace, as PermissionsManagementStatement.maybeCorrectResource does.
func resolveResource(s *plan.Compiler, r *parser.Resource) (*resource, error) {
	if r == nil {
		return nil, nil
	}
	always := func(text string) *resource { return &resource{text, func(*authCall) bool { return true }} }
	never := func(text string) *resource { return &resource{text, func(*authCall) bool { return false }} }
	inKeyspace := func(text, ks string) *resource {
		return &resource{text, func(c *authCall) bool { _, ok := c.env.Engine.Keyspace(ks); return ok }}
	}
	ks := string(r.Table.Name) // the keyspace of the keyspace-wide kinds
	switch r.Kind {
	case parser.ResourceAllKeyspaces:
		return always("<all keyspaces>"), nil
	case parser.ResourceKeyspace:
		return inKeyspace("<keyspace "+ks+">", ks), nil
	case parser.ResourceKeyspaceTables:
		return inKeyspace("<all tables in "+ks+">", ks), nil
	case parser.ResourceKeyspaceFunctions:
		return inKeyspace("<all functions in "+ks+">", ks), nil
	case parser.ResourceTable:
		ks, err := s.KeyspaceFor(r.Table)
		if err != nil {
			return nil, err
		}
		name := string(r.Table.Name)
		return &resource{"<table " + ks + "." + name + ">", func(c *authCall) bool { _, ok := c.env.Engine.Table(ks, name); return ok }}, nil
	case parser.ResourceAllRoles:
		return always("<all roles>"), nil
	case parser.ResourceRole:
		name := r.Name
		return &resource{"<role " + name + ">", func(c *authCall) bool { return c.exists(name) }}, nil
	case parser.ResourceAllFunctions:
		return always("<all functions>"), nil
	case parser.ResourceFunction:
		ks, err := s.KeyspaceFor(r.Table)
		if err != nil {
			return nil, err
		}
		args := make([]string, len(r.ArgTypes))
		for i, t := range r.ArgTypes {
			args[i] = t.String()
		}
		// No user-defined function exists (they are disabled).
		return never("<function " + ks + "." + string(r.Table.Name) + "(" + strings.Join(args, ", ") + ")>"), nil
	case parser.ResourceAllMBeans:
		return always("<all mbeans>"), nil
	default: // parser.ResourceMBean: minicass has no JMX beans.
		return never("<mbean " + r.Name + ">"), nil
	}
}

// permissions runs GRANT, REVOKE or LIST permissions; resErr is the error
// of resolving the resource's keyspace, met in authorize (GRANT, REVOKE)
// or in validate (LIST).
func (c *authCall) permissions(st *parser.Permissions, res *resource, resErr error) (*query.Result, error) {
	if resErr != nil && st.Kind != parser.ListPermissions {
		return nil, resErr
	}
	// validate
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	if st.Kind == parser.ListPermissions {
		if resErr != nil {
			return nil, resErr
		}
		if res != nil && !res.exists(c) {
			return nil, query.Invalidf("%s doesn't exist", res.text)
		}
		if st.Role != "" && !c.exists(st.Role) {
			return nil, query.Invalidf("<role %s> doesn't exist", st.Role)
		}
		return nil, query.Invalidf("LIST PERMISSIONS operation is not supported by AllowAllAuthorizer")
	}
	if !c.exists(st.Role) {
		return nil, query.Invalidf("Role %s doesn't exist", st.Role)
	}
	if !res.exists(c) {
		return nil, query.Invalidf("Resource %s doesn't exist", res.text)
	}
	// execute: AllowAllAuthorizer throws UnsupportedOperationException,
	// which reaches the client as a server error.
	op := "GRANT"
	if st.Kind == parser.RevokePermissions {
		op = "REVOKE"
	}
	return nil, &query.Error{Code: wire.CodeServer, Message: "java.lang.UnsupportedOperationException: " + op + " operation is not supported by AllowAllAuthorizer"}
}
