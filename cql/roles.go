package cql

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"golang.org/x/crypto/bcrypt"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
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

// The error texts shared by several statements.
const (
	errAnonymous     = "You have to be logged in and not anonymous to perform this request"
	roleManagerClass = "org.apache.cassandra.auth.CassandraRoleManager"
)

// defaultLogRounds is Cassandra's bcrypt cost (cassandra.auth_bcrypt_gensalt_log2_rounds).
const defaultLogRounds = 10

// AuthOptions configure EnableAuthentication.
type AuthOptions struct {
	// Superusers maps role names to passwords. Each becomes a superuser
	// role that can log in, as Cassandra's default role cassandra/cassandra:
	// created if missing, and given this password if it has another, so
	// the configured credentials always log in.
	Superusers map[string]string
	// LogRounds is bcrypt's cost (log2 of the rounds) for the passwords
	// minicass hashes, 4 to 30. Zero means Cassandra's default, 10, which
	// costs tens of milliseconds per hash; tests may want 4.
	LogRounds int
}

// roleAuth is the executor's authentication state.
type roleAuth struct {
	// mu serializes role changes, which read and rewrite system_auth.
	mu sync.Mutex
	// enabled is set by EnableAuthentication: PasswordAuthenticator.
	enabled   bool
	logRounds int
	// verified remembers, per role, the last password that matched its
	// hash (as a SHA-256 digest), so a client that opens several
	// connections pays for bcrypt once. An ALTER of the password changes
	// the hash and so invalidates the entry.
	verified map[string]verifiedPassword
}

type verifiedPassword struct {
	hash string
	sum  [32]byte
}

// EnableAuthentication switches the node to PasswordAuthenticator: role
// passwords become supported options, sessions made with NewUserSession
// carry their role, and Authenticate checks logins against
// system_auth.roles. It creates or updates o.Superusers.
func (x *Executor) EnableAuthentication(ctx context.Context, o AuthOptions) error {
	rounds := o.LogRounds
	if rounds == 0 {
		rounds = defaultLogRounds
	}
	if rounds < bcrypt.MinCost || rounds > 30 {
		return fmt.Errorf("cql: bcrypt log rounds %d out of range 4 to 30", rounds)
	}
	x.auth.mu.Lock()
	defer x.auth.mu.Unlock()
	x.auth.enabled, x.auth.logRounds = true, rounds
	names := make([]string, 0, len(o.Superusers))
	for name := range o.Superusers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		pw := o.Superusers[name]
		r, err := x.readRole(ctx, name)
		if err != nil {
			return err
		}
		if r != nil && r.super && r.login && x.passwordMatches(name, r.hash, pw) {
			continue
		}
		if r == nil {
			r = &roleRow{name: name}
		}
		r.super, r.login = true, true
		if r.hash, err = x.hashPassword(name, pw); err != nil {
			return err
		}
		if err := x.writeRole(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// hashPassword hashes pw with bcrypt for role name and remembers it as
// verified. The caller holds auth.mu.
func (x *Executor) hashPassword(name, pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword(bcryptKey(pw), x.auth.logRounds)
	if err != nil {
		return "", &query.Error{Code: wire.CodeInvalid, Message: err.Error(), Err: err}
	}
	x.remember(name, string(h), pw)
	return string(h), nil
}

// bcryptKey returns the bytes of pw that bcrypt uses: its first 72. jBCrypt
// (Cassandra) ignores the rest, where Go's bcrypt refuses a longer password.
func bcryptKey(pw string) []byte {
	return []byte(pw[:min(len(pw), 72)])
}

// remember records that pw matches hash for role name. The caller holds
// auth.mu.
func (x *Executor) remember(name, hash, pw string) {
	if x.auth.verified == nil {
		x.auth.verified = map[string]verifiedPassword{}
	}
	x.auth.verified[name] = verifiedPassword{hash: hash, sum: sha256.Sum256([]byte(pw))}
}

// passwordMatches reports whether pw matches the bcrypt hash of role name.
// The caller holds auth.mu.
func (x *Executor) passwordMatches(name, hash, pw string) bool {
	if hash == "" {
		return false
	}
	if v, ok := x.auth.verified[name]; ok && v.hash == hash {
		sum := sha256.Sum256([]byte(pw))
		if subtle.ConstantTimeCompare(v.sum[:], sum[:]) == 1 {
			return true
		}
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), bcryptKey(pw)) != nil {
		return false
	}
	x.remember(name, hash, pw)
	return true
}

// Authenticate checks a login as PasswordAuthenticator and
// ClientState.login do: the role must exist with a password that matches,
// and be allowed to log in. Errors are Bad credentials errors with
// Cassandra's texts.
func (x *Executor) Authenticate(ctx context.Context, user, password string) error {
	x.auth.mu.Lock()
	defer x.auth.mu.Unlock()
	r, err := x.readRole(ctx, user)
	if err != nil {
		return &query.Error{Code: wire.CodeBadCredentials, Message: "Unable to perform authentication: " + err.Error(), Err: err}
	}
	if r == nil || !x.passwordMatches(user, r.hash, password) {
		return &query.Error{Code: wire.CodeBadCredentials, Message: fmt.Sprintf("Provided username %s and/or password are incorrect", user)}
	}
	if !r.login {
		return &query.Error{Code: wire.CodeBadCredentials, Message: fmt.Sprintf("%s is not permitted to log in", user)}
	}
	return nil
}

// ensureIsSuperuser is ClientState.ensureIsSuperuser: once password
// authentication is on, the session's role (user) must have superuser
// status, or the statement fails with msg.
func (x *Executor) ensureIsSuperuser(ctx context.Context, user, msg string) error {
	x.auth.mu.Lock()
	defer x.auth.mu.Unlock()
	if !x.auth.enabled {
		return nil
	}
	roles, err := x.allRoles(ctx)
	if err != nil {
		return err
	}
	if user == "" || !hasSuperuserStatus(roles, user) {
		return &query.Error{Code: wire.CodeUnauthorized, Message: msg}
	}
	return nil
}

// roleRow is a row of system_auth.roles.
type roleRow struct {
	name         string
	super, login bool
	memberOf     []string
	hash         string // "" when the role has no password
}

// readRole returns the role, or nil if it does not exist.
func (x *Executor) readRole(ctx context.Context, name string) (*roleRow, error) {
	rows, err := x.readRoles(ctx, name)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}

// readRoles reads one role (name), or every role (name == "" and all), of
// system_auth.roles.
func (x *Executor) readRoles(ctx context.Context, name string) ([]*roleRow, error) {
	q := "SELECT role, is_superuser, can_login, member_of, salted_hash FROM system_auth.roles"
	var p *query.Params
	if name != "" {
		q += " WHERE role = ?"
		p = &query.Params{Values: []query.Value{{Bytes: virtual.TextV(name)}}}
	}
	res, err := x.NewSession().Query(ctx, q, p)
	if err != nil {
		return nil, err
	}
	setType := types.SetOf(types.TextType, false)
	var out []*roleRow
	for _, row := range res.Rows {
		r := &roleRow{name: string(row[0]), super: isTrue(row[1]), login: isTrue(row[2]), hash: string(row[4])}
		if row[3] != nil {
			elems, err := types.DecodeCollection(setType, row[3])
			if err != nil {
				return nil, err
			}
			for _, e := range elems {
				r.memberOf = append(r.memberOf, string(e))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func isTrue(b []byte) bool { return len(b) == 1 && b[0] != 0 }

// allRoles returns every role by name.
func (x *Executor) allRoles(ctx context.Context) (map[string]*roleRow, error) {
	rows, err := x.readRoles(ctx, "")
	if err != nil {
		return nil, err
	}
	m := make(map[string]*roleRow, len(rows))
	for _, r := range rows {
		m[r.name] = r
	}
	return m, nil
}

// writeRole replaces the row of r in system_auth.roles.
func (x *Executor) writeRole(ctx context.Context, r *roleRow) error {
	row := virtual.SysValues{"role": virtual.TextV(r.name), "is_superuser": virtual.BoolV(r.super), "can_login": virtual.BoolV(r.login)}
	if len(r.memberOf) > 0 {
		row["member_of"] = virtual.TextSetV(r.memberOf...)
	}
	if r.hash != "" {
		row["salted_hash"] = virtual.TextV(r.hash)
	}
	return x.node.WritePartitions(ctx, []virtual.SysPartition{{Table: virtual.Table("system_auth", "roles"), Key: virtual.TextV(r.name), Rows: []virtual.SysValues{row}}})
}

// deleteRole removes the row of role name.
func (x *Executor) deleteRole(ctx context.Context, name string) error {
	return x.node.WritePartitions(ctx, []virtual.SysPartition{{Table: virtual.Table("system_auth", "roles"), Key: virtual.TextV(name)}})
}

// writeMembers rewrites the role_members partition of each role in names
// from the member_of sets of roles, so the lookup table lists exactly the
// roles granted each one.
func (x *Executor) writeMembers(ctx context.Context, roles map[string]*roleRow, names ...string) error {
	tbl := virtual.Table("system_auth", "role_members")
	var parts []virtual.SysPartition
	for _, name := range names {
		p := virtual.SysPartition{Table: tbl, Key: virtual.TextV(name)}
		for _, r := range roles {
			if slices.Contains(r.memberOf, name) {
				p.Rows = append(p.Rows, virtual.SysValues{"role": virtual.TextV(name), "member": virtual.TextV(r.name)})
			}
		}
		parts = append(parts, p)
	}
	return x.node.WritePartitions(ctx, parts)
}

// rolesOf returns role name and the roles granted to it: all inherited
// ones when recursive, else only the direct ones (Roles.getRoles).
func rolesOf(roles map[string]*roleRow, name string, recursive bool) []string {
	seen := map[string]bool{name: true}
	out := []string{name}
	for i := 0; i < len(out); i++ {
		r := roles[out[i]]
		if r == nil || (!recursive && i > 0) {
			continue
		}
		for _, g := range r.memberOf {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// hasSuperuserStatus reports whether name or a role granted to it is a
// superuser (Roles.hasSuperuserStatus).
func hasSuperuserStatus(roles map[string]*roleRow, name string) bool {
	for _, r := range rolesOf(roles, name, true) {
		if rr := roles[r]; rr != nil && rr.super {
			return true
		}
	}
	return false
}

// authPlan is a role or permission statement.
type authPlan struct {
	cols []query.ColumnSpec
	run  func(ctx context.Context, q *execution) (*query.Result, error)
}

func (p *authPlan) binds() []query.ColumnSpec   { return nil }
func (p *authPlan) columns() []query.ColumnSpec { return p.cols }
func (p *authPlan) pkIndexes() []uint16         { return nil }
func (p *authPlan) exec(ctx context.Context, q *execution) (*query.Result, error) {
	return p.run(ctx, q)
}

// authCall is one run of a role statement: the session's role and a
// snapshot of every role, read under auth.mu.
type authCall struct {
	x     *Executor
	user  string // "" for the anonymous user
	roles map[string]*roleRow
}

// isSuper reports whether the session's role has superuser status
// (AuthenticatedUser.isSuper: never for the anonymous user).
func (c *authCall) isSuper() bool { return c.user != "" && hasSuperuserStatus(c.roles, c.user) }

// ensureNotAnonymous is ClientState.ensureNotAnonymous.
func (c *authCall) ensureNotAnonymous() error {
	if c.user == "" {
		return &query.Error{Code: wire.CodeUnauthorized, Message: errAnonymous}
	}
	return nil
}

func (c *authCall) exists(name string) bool { return c.roles[name] != nil }

// compileAuth compiles a role or permission statement. Each runs under
// auth.mu with a fresh snapshot of the roles.
func (s *compiler) compileAuth(stmt parser.Statement) (plan, error) {
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
		res, resErr := s.resolveResource(st.Resource)
		run = func(_ context.Context, c *authCall) (*query.Result, error) { return c.permissions(st, res, resErr) }
	default:
		return nil, query.Invalidf("statement not supported: %s", stmt)
	}
	return &authPlan{cols: cols, run: func(ctx context.Context, q *execution) (*query.Result, error) {
		// The role is the executing session's, never the preparing one's:
		// a prepared statement is shared by every session.
		x := q.s.x
		x.auth.mu.Lock()
		defer x.auth.mu.Unlock()
		roles, err := x.allRoles(ctx)
		if err != nil {
			return nil, err
		}
		return run(ctx, &authCall{x: x, user: q.s.user, roles: roles})
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
		if dc != c.x.opts.DataCenter {
			return query.Invalidf("Invalid value(s) for DATACENTERS '[%s]',All values must be valid datacenters", strings.Join(o.AccessDCs, ", "))
		}
	}
	return nil
}

// setPassword applies the PASSWORD or HASHED PASSWORD option to r.
func (c *authCall) setPassword(r *roleRow, o *parser.RoleOptions) error {
	switch {
	case o.Password != nil:
		h, err := c.x.hashPassword(r.name, *o.Password)
		if err != nil {
			return err
		}
		r.hash = h
	case o.HashedPassword != nil:
		r.hash = *o.HashedPassword
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
	r := &roleRow{name: st.Name, super: super, login: login}
	if err := c.setPassword(r, o); err != nil {
		return nil, err
	}
	return query.VoidResult(), c.x.writeRole(ctx, r)
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
	return c.x.auth.enabled && (name == "PASSWORD" || name == "HASHED_PASSWORD")
}

func (c *authCall) alterRole(ctx context.Context, st *parser.AlterRole) (*query.Result, error) {
	o := &st.Options
	// authorize
	if o.Superuser != nil {
		if c.user != "" && slices.Contains(rolesOf(c.roles, c.user, true), st.Name) {
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
			r.super = *o.Superuser
		}
		if o.Login != nil {
			r.login = *o.Login
		}
		if err := c.setPassword(r, o); err != nil {
			return nil, err
		}
		if err := c.x.writeRole(ctx, r); err != nil {
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
	if c.exists(st.Name) && hasSuperuserStatus(c.roles, st.Name) && !c.isSuper() {
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
	if err := c.x.deleteRole(ctx, st.Name); err != nil {
		return nil, err
	}
	dropped := c.roles[st.Name]
	delete(c.roles, st.Name)
	for _, r := range c.roles {
		if i := slices.Index(r.memberOf, st.Name); i >= 0 {
			r.memberOf = slices.Delete(r.memberOf, i, i+1)
			if err := c.x.writeRole(ctx, r); err != nil {
				return nil, err
			}
		}
	}
	return query.VoidResult(), c.x.writeMembers(ctx, c.roles, append([]string{st.Name}, dropped.memberOf...)...)
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
		if !slices.Contains(rolesOf(c.roles, st.Grantee, false), st.Role) {
			return nil, query.Invalidf("%s is not a member of %s", st.Grantee, st.Role)
		}
		grantee.memberOf = slices.DeleteFunc(grantee.memberOf, func(s string) bool { return s == st.Role })
	} else {
		if slices.Contains(rolesOf(c.roles, st.Grantee, true), st.Role) {
			return nil, query.Invalidf("%s is a member of %s", st.Grantee, st.Role)
		}
		if slices.Contains(rolesOf(c.roles, st.Role, true), st.Grantee) {
			return nil, query.Invalidf("%s is a member of %s", st.Role, st.Grantee)
		}
		grantee.memberOf = append(grantee.memberOf, st.Role)
		sort.Strings(grantee.memberOf)
	}
	if err := c.x.writeRole(ctx, grantee); err != nil {
		return nil, err
	}
	return query.VoidResult(), c.x.writeMembers(ctx, c.roles, st.Role)
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
		names = rolesOf(c.roles, st.Of, !st.NoRecursive)
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
			if r := c.roles[name]; r != nil && r.login {
				res.Rows = append(res.Rows, [][]byte{virtual.TextV(name), virtual.BoolV(hasSuperuserStatus(c.roles, name)), virtual.TextV("ALL")})
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
		res.Rows = append(res.Rows, [][]byte{virtual.TextV(name), virtual.BoolV(r.super), virtual.BoolV(r.login), emptyMap, virtual.TextV("ALL")})
	}
	return res, nil
}

// resource is a resolved permission resource: its IResource.toString form
// and whether it exists.
type resource struct {
	text   string
	exists func() bool
}

// resolveResource resolves an unqualified table against the session's
// keyspace, as PermissionsManagementStatement.maybeCorrectResource does.
func (s *compiler) resolveResource(r *parser.Resource) (*resource, error) {
	if r == nil {
		return nil, nil
	}
	eng := s.x.eng
	always := func(text string) *resource { return &resource{text, func() bool { return true }} }
	never := func(text string) *resource { return &resource{text, func() bool { return false }} }
	inKeyspace := func(text, ks string) *resource {
		return &resource{text, func() bool { _, ok := eng.Keyspace(ks); return ok }}
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
		ks, err := s.keyspaceFor(r.Table)
		if err != nil {
			return nil, err
		}
		name := string(r.Table.Name)
		return &resource{"<table " + ks + "." + name + ">", func() bool { _, ok := eng.Table(ks, name); return ok }}, nil
	case parser.ResourceAllRoles:
		return always("<all roles>"), nil
	case parser.ResourceRole:
		return &resource{text: "<role " + r.Name + ">"}, nil // exists is set by the caller
	case parser.ResourceAllFunctions:
		return always("<all functions>"), nil
	case parser.ResourceFunction:
		ks, err := s.keyspaceFor(r.Table)
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
	if res != nil && res.exists == nil {
		name := st.Resource.Name
		res.exists = func() bool { return c.exists(name) }
	}
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
		if res != nil && !res.exists() {
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
	if !res.exists() {
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
