package dcl

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/expr"
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
// permissions and LIST PERMISSIONS fail as on such a node) or
// CassandraAuthorizer (package auth keeps the permissions, and each
// statement checks those of the session's role as 4.1's do) and
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

// authorizing reports whether CassandraAuthorizer checks this session's
// permissions (never the anonymous or internal session's).
func (c *authCall) authorizing() bool { return c.user != "" && c.env.Roles.Authorizing() }

// checkPermission is AuthenticationStatement.checkPermission: the
// session's role needs perm on res or a parent, or the statement fails
// with Cassandra's friendlier text.
func (c *authCall) checkPermission(ctx context.Context, perm auth.Permission, res auth.Resource) error {
	if !c.authorizing() {
		return nil
	}
	ok, err := c.env.Roles.HasPermission(ctx, c.roles, c.user, perm, res)
	if err != nil {
		return err
	}
	if !ok {
		return &query.Error{Code: wire.CodeUnauthorized, Message: fmt.Sprintf("User %s does not have sufficient privileges to perform the requested operation", c.user)}
	}
	return nil
}

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
		run = func(ctx context.Context, c *authCall) (*query.Result, error) { return c.listRoles(ctx, st) }
	case *parser.Permissions:
		if st.Kind == parser.ListPermissions {
			cols = listPermissionsColumns
		}
		if st.Resource != nil && st.Resource.Kind == parser.ResourceFunction && st.Resource.Table.Keyspace == "" {
			// The grammar's functionResource (FunctionResource.functionFromCql)
			// refuses an unqualified name while parsing, whatever the
			// session's keyspace.
			return nil, query.Invalidf("In this context function name must be explictly qualified by a keyspace")
		}
		res, resErr := resolveResource(s, st.Resource)
		run = func(ctx context.Context, c *authCall) (*query.Result, error) {
			return c.permissions(ctx, st, res, resErr)
		}
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
	if err := c.checkPermission(ctx, auth.PermCreate, auth.RootRoles()); err != nil {
		return nil, err
	}
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
	if err := c.env.Roles.Write(ctx, r); err != nil {
		return nil, err
	}
	// grantPermissionsToCreator: the creator may alter, drop and grant
	// the new role.
	if c.authorizing() {
		res := auth.RoleResource(st.Name)
		if _, err := c.env.Roles.Grant(ctx, res.Applicable(), res, c.user); err != nil {
			return nil, err
		}
	}
	return query.VoidResult(), nil
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
	} else if !c.isSuper() {
		// Altering another role needs ALTER on it.
		if err := c.checkPermission(ctx, auth.PermAlter, auth.RoleResource(st.Name)); err != nil {
			return nil, err
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
	if err := c.checkPermission(ctx, auth.PermDrop, auth.RoleResource(st.Name)); err != nil {
		return nil, err
	}
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
	if err := c.env.Roles.WriteMembers(ctx, c.roles, append([]string{st.Name}, dropped.MemberOf...)...); err != nil {
		return nil, err
	}
	// The role's permissions, and those granted on it, go too
	// (revokeAllFrom, revokeAllOn).
	if c.env.Roles.Authorizing() {
		if err := c.env.Roles.RevokeAllFrom(ctx, st.Name); err != nil {
			return nil, err
		}
		if err := c.env.Roles.RevokeAllOn(ctx, auth.RoleResource(st.Name)); err != nil {
			return nil, err
		}
	}
	return query.VoidResult(), nil
}

func (c *authCall) grantRole(ctx context.Context, st *parser.GrantRole) (*query.Result, error) {
	// authorize: AUTHORIZE on the role granted or revoked.
	if err := c.checkPermission(ctx, auth.PermAuthorize, auth.RoleResource(st.Role)); err != nil {
		return nil, err
	}
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

func (c *authCall) listRoles(ctx context.Context, st *parser.ListRoles) (*query.Result, error) {
	// validate
	if err := c.ensureNotAnonymous(); err != nil {
		return nil, err
	}
	if st.Of != "" && !c.exists(st.Of) {
		return nil, query.Invalidf("<role %s> doesn't exist", st.Of)
	}
	// execute: a role with DESCRIBE on all roles (with AllowAllAuthorizer,
	// every role) may list any role; another sees its own roles only.
	describeAll := true
	if c.authorizing() {
		perms, err := c.env.Roles.Permissions(ctx, c.roles, c.user, auth.RootRoles())
		if err != nil {
			return nil, err
		}
		describeAll = perms.Has(auth.PermDescribe)
	}
	var names []string
	switch {
	case st.Of != "" && (describeAll || slices.Contains(auth.Granted(c.roles, c.user, true), st.Of)):
		names = auth.Granted(c.roles, st.Of, !st.NoRecursive)
	case st.Of != "":
		return nil, &query.Error{Code: wire.CodeUnauthorized, Message: fmt.Sprintf("You are not authorized to view roles granted to %s ", st.Of)}
	case describeAll:
		for name := range c.roles {
			names = append(names, name)
		}
	default:
		names = auth.Granted(c.roles, c.user, !st.NoRecursive)
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

// resource is a resolved permission resource: the authorizer's resource
// and whether it exists.
type resource struct {
	res auth.Resource
	// exists reports, when the statement runs, whether the resource
	// exists.
	exists func(c *authCall) bool
}

func (r *resource) String() string { return r.res.String() }

// resolveResource resolves an unqualified table against the session's
// keyspace, as PermissionsManagementStatement.maybeCorrectResource does.
func resolveResource(s *plan.Compiler, r *parser.Resource) (*resource, error) {
	if r == nil {
		return nil, nil
	}
	always := func(res auth.Resource) *resource { return &resource{res, func(*authCall) bool { return true }} }
	never := func(res auth.Resource) *resource { return &resource{res, func(*authCall) bool { return false }} }
	inKeyspace := func(res auth.Resource) *resource {
		return &resource{res, func(c *authCall) bool { _, ok := c.env.Engine.Keyspace(res.Keyspace); return ok }}
	}
	ks := string(r.Table.Name) // the keyspace of the keyspace-wide kinds
	switch r.Kind {
	case parser.ResourceAllKeyspaces:
		return always(auth.RootData()), nil
	case parser.ResourceKeyspace:
		return inKeyspace(auth.KeyspaceData(ks)), nil
	case parser.ResourceKeyspaceTables:
		return inKeyspace(auth.AllTablesData(ks)), nil
	case parser.ResourceKeyspaceFunctions:
		return inKeyspace(auth.KeyspaceFunctions(ks)), nil
	case parser.ResourceTable:
		ks, err := s.KeyspaceFor(r.Table)
		if err != nil {
			return nil, err
		}
		name := string(r.Table.Name)
		return &resource{auth.TableData(ks, name), func(c *authCall) bool { _, ok := c.env.Engine.Table(ks, name); return ok }}, nil
	case parser.ResourceAllRoles:
		return always(auth.RootRoles()), nil
	case parser.ResourceRole:
		name := r.Name
		return &resource{auth.RoleResource(name), func(c *authCall) bool { return c.exists(name) }}, nil
	case parser.ResourceAllFunctions:
		return always(auth.RootFunctions()), nil
	case parser.ResourceFunction:
		ks, err := s.KeyspaceFor(r.Table)
		if err != nil {
			return nil, err
		}
		// FunctionResource.functionFromCql: the types prepared in the
		// function's keyspace; the resource exists while a function or
		// aggregate of that signature does.
		def, _ := s.Env.Engine.Keyspace(ks)
		args := make([]types.Type, len(r.ArgTypes))
		for i, t := range r.ArgTypes {
			at, err := expr.ConvertType(t, def)
			if err != nil {
				return nil, err
			}
			args[i] = at
		}
		name := string(r.Table.Name)
		return &resource{auth.FunctionResource(ks, name, args), func(c *authCall) bool {
			def, ok := c.env.Engine.Keyspace(ks)
			if !ok {
				return false
			}
			_, isFn := def.Function(name, args)
			_, isAgg := def.Aggregate(name, args)
			return isFn || isAgg
		}}, nil
	case parser.ResourceAllMBeans:
		return always(auth.Resource{Kind: parser.ResourceAllMBeans}), nil
	default: // parser.ResourceMBean: minicass has no JMX beans.
		return never(auth.Resource{Kind: parser.ResourceMBean, Name: r.Name}), nil
	}
}

// permissionSet returns the permissions a statement names: ALL (nil) is
// every permission the resource supports (Parser.g's filterPermissions),
// or every permission when LIST names no resource.
func permissionSet(names []string, res *resource) auth.PermissionSet {
	if names == nil {
		if res == nil {
			return auth.AllPermissions
		}
		return res.res.Applicable()
	}
	var s auth.PermissionSet
	for _, n := range names {
		if p, ok := auth.ParsePermission(n); ok {
			s = s.With(p)
		}
	}
	return s
}

// permissions runs GRANT, REVOKE or LIST permissions; resErr is the error
// of resolving the resource's keyspace, met in authorize (GRANT, REVOKE)
// or in validate (LIST).
func (c *authCall) permissions(ctx context.Context, st *parser.Permissions, res *resource, resErr error) (*query.Result, error) {
	if resErr != nil && st.Kind != parser.ListPermissions {
		return nil, resErr
	}
	perms := permissionSet(st.Perms, res)
	// authorize (PermissionsManagementStatement.checkAccess): AUTHORIZE,
	// and each permission granted or revoked, on the resource or a parent.
	if st.Kind != parser.ListPermissions && c.authorizing() {
		for _, p := range append([]auth.Permission{auth.PermAuthorize}, perms.List()...) {
			if err := c.env.Roles.EnsurePermission(ctx, c.roles, c.user, p, res.res); err != nil {
				return nil, err
			}
		}
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
			return nil, query.Invalidf("%s doesn't exist", res)
		}
		if st.Role != "" && !c.exists(st.Role) {
			return nil, query.Invalidf("<role %s> doesn't exist", st.Role)
		}
		if !c.env.Roles.Authorizing() {
			return nil, query.Invalidf("LIST PERMISSIONS operation is not supported by AllowAllAuthorizer")
		}
		return c.listPermissions(ctx, st, perms, res)
	}
	if !c.exists(st.Role) {
		return nil, query.Invalidf("Role %s doesn't exist", st.Role)
	}
	if res.res.Kind == parser.ResourceFunction && res.res.Keyspace == "system" {
		return nil, query.Invalidf("Altering permissions on builtin functions is not supported")
	}
	if !res.exists(c) {
		return nil, query.Invalidf("Resource %s doesn't exist", res)
	}
	// GrantPermissionsStatement.validate: only a few permissions may be
	// granted on the system keyspaces.
	if st.Kind == parser.GrantPermissions && res.res.Kind != parser.ResourceAllKeyspaces && isDataKind(res.res.Kind) &&
		auth.NonVirtualSystemKeyspace(res.res.Keyspace) && perms&auth.InvalidForSystemKeyspaces != 0 {
		return nil, &query.Error{Code: wire.CodeUnauthorized, Message: "Granting permissions on system keyspaces is strictly limited, this operation is not permitted"}
	}
	op := "GRANT"
	if st.Kind == parser.RevokePermissions {
		op = "REVOKE"
	}
	if !c.env.Roles.Authorizing() {
		// execute: AllowAllAuthorizer throws UnsupportedOperationException,
		// which reaches the client as a server error.
		return nil, &query.Error{Code: wire.CodeServer, Message: "java.lang.UnsupportedOperationException: " + op + " operation is not supported by AllowAllAuthorizer"}
	}
	// execute (CassandraAuthorizer.grant, revoke)
	var err error
	if st.Kind == parser.RevokePermissions {
		_, err = c.env.Roles.Revoke(ctx, perms, res.res, st.Role)
	} else {
		_, err = c.env.Roles.Grant(ctx, perms, res.res, st.Role)
	}
	if err != nil {
		return nil, err
	}
	return query.VoidResult(), nil
}

// isDataKind reports whether k is a data resource's kind.
func isDataKind(k parser.ResourceKind) bool {
	switch k {
	case parser.ResourceAllKeyspaces, parser.ResourceKeyspace, parser.ResourceKeyspaceTables, parser.ResourceTable:
		return true
	}
	return false
}

// listPermissions is ListPermissionsStatement.execute with
// CassandraAuthorizer.list: a role that is not a superuser may list only
// the permissions of itself and of the roles granted to it.
func (c *authCall) listPermissions(ctx context.Context, st *parser.Permissions, perms auth.PermissionSet, res *resource) (*query.Result, error) {
	if !c.isSuper() && (st.Role == "" || !slices.Contains(auth.Granted(c.roles, c.user, true), st.Role)) {
		who := "everyone"
		if st.Role != "" {
			who = st.Role
		}
		return nil, &query.Error{Code: wire.CodeUnauthorized, Message: fmt.Sprintf("You are not authorized to view %s's permissions", who)}
	}
	var details []auth.PermissionDetail
	if res == nil {
		d, err := c.env.Roles.List(ctx, c.roles, perms, nil, st.Role)
		if err != nil {
			return nil, err
		}
		details = d
	} else {
		chain := []auth.Resource{res.res}
		if !st.NoRecursive {
			chain = res.res.Chain()
		}
		for _, r := range chain {
			d, err := c.env.Roles.List(ctx, c.roles, perms, &r, st.Role)
			if err != nil {
				return nil, err
			}
			details = append(details, d...)
		}
		auth.SortDetails(details)
	}
	if len(details) == 0 {
		return query.VoidResult(), nil
	}
	out := &query.Result{Kind: wire.ResultRows, Columns: listPermissionsColumns}
	for _, d := range details {
		out.Rows = append(out.Rows, [][]byte{virtual.TextV(d.Role), virtual.TextV(d.Role), virtual.TextV(d.Resource.String()), virtual.TextV(d.Permission.String())})
	}
	return out, nil
}
