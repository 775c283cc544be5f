package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/bcrypt"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// QueryFunc runs one CQL statement as the node's internal (anonymous)
// session.
type QueryFunc func(ctx context.Context, text string, p *query.Params) (*query.Result, error)

// New returns the role manager of node, which reads roles through query.
// Authentication is off until Enable.
func New(node *virtual.Node, query QueryFunc) *Roles {
	return &Roles{node: node, query: query}
}

// defaultLogRounds is Cassandra's bcrypt cost (cassandra.auth_bcrypt_gensalt_log2_rounds).
const defaultLogRounds = 10

// AuthOptions configure Enable.
type Options struct {
	// Superusers maps role names to passwords. Each becomes a superuser
	// role that can log in, as Cassandra's default role cassandra/cassandra:
	// created if missing, and given this password if it has another, so
	// the configured credentials always log in.
	Superusers map[string]string
	// LogRounds is bcrypt's cost (log2 of the rounds) for the passwords
	// minicass hashes, 4 to 30. Zero means Cassandra's default, 10, which
	// costs tens of milliseconds per hash; tests may want 4.
	LogRounds int
	// Authorizer is cassandra.yaml's authorizer: AllowAllAuthorizer (the
	// default, "") or CassandraAuthorizer, which checks permissions kept
	// in system_auth (permissions.go).
	Authorizer string
}

// Roles is the node's role manager and authenticator: CassandraRoleManager's
// roles, kept in system_auth.roles and role_members, and
// PasswordAuthenticator's logins once Enable has switched it on. It reads
// the roles with CQL through the executor, as Cassandra's role manager does,
// and writes them straight to the system tables.
type Roles struct {
	node  *virtual.Node
	query QueryFunc
	// mu serializes role changes, which read and rewrite system_auth.
	mu sync.Mutex
	// enabled is set by Enable: PasswordAuthenticator.
	enabled bool
	// authorizing is set by Enable with CassandraAuthorizer
	// (permissions.go).
	authorizing atomic.Bool
	// gen counts the writes to system_auth; cache is the snapshot of
	// roles and grants the permission checks read, valid while its gen
	// is current (cache.go).
	gen       atomic.Uint64
	cache     atomic.Pointer[authSnapshot]
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

// Enable switches the node to PasswordAuthenticator: role
// passwords become supported options, sessions made with NewUserSession
// carry their role, and Authenticate checks logins against
// system_auth.roles. It creates or updates o.Superusers.
func (rs *Roles) Enable(ctx context.Context, o Options) error {
	rounds := o.LogRounds
	if rounds == 0 {
		rounds = defaultLogRounds
	}
	if rounds < bcrypt.MinCost || rounds > 30 {
		return fmt.Errorf("cql: bcrypt log rounds %d out of range 4 to 30", rounds)
	}
	authorizer, err := ParseAuthorizer(o.Authorizer)
	if err != nil {
		return fmt.Errorf("cql: %w", err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.enabled, rs.logRounds = true, rounds
	rs.authorizing.Store(authorizer == CassandraAuthorizer)
	names := make([]string, 0, len(o.Superusers))
	for name := range o.Superusers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		pw := o.Superusers[name]
		r, err := rs.Read(ctx, name)
		if err != nil {
			return err
		}
		if r != nil && r.Super && r.Login && rs.passwordMatches(name, r.Hash, pw) {
			continue
		}
		if r == nil {
			r = &Role{Name: name}
		}
		r.Super, r.Login = true, true
		if r.Hash, err = rs.HashPassword(name, pw); err != nil {
			return err
		}
		if err := rs.Write(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// HashPassword hashes pw with bcrypt for role name and remembers it as
// verified. The caller holds auth.mu.
func (rs *Roles) HashPassword(name, pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword(bcryptKey(pw), rs.logRounds)
	if err != nil {
		return "", &query.Error{Code: wire.CodeInvalid, Message: err.Error(), Err: err}
	}
	rs.remember(name, string(h), pw)
	return string(h), nil
}

// bcryptKey returns the bytes of pw that bcrypt uses: its first 72. jBCrypt
// (Cassandra) ignores the rest, where Go's bcrypt refuses a longer password.
func bcryptKey(pw string) []byte {
	return []byte(pw[:min(len(pw), 72)])
}

// remember records that pw matches hash for role name. The caller holds
// auth.mu.
func (rs *Roles) remember(name, hash, pw string) {
	if rs.verified == nil {
		rs.verified = map[string]verifiedPassword{}
	}
	rs.verified[name] = verifiedPassword{hash: hash, sum: sha256.Sum256([]byte(pw))}
}

// passwordMatches reports whether pw matches the bcrypt hash of role name.
// The caller holds auth.mu.
func (rs *Roles) passwordMatches(name, hash, pw string) bool {
	if hash == "" {
		return false
	}
	if v, ok := rs.verified[name]; ok && v.hash == hash {
		sum := sha256.Sum256([]byte(pw))
		if subtle.ConstantTimeCompare(v.sum[:], sum[:]) == 1 {
			return true
		}
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), bcryptKey(pw)) != nil {
		return false
	}
	rs.remember(name, hash, pw)
	return true
}

// Authenticate checks a login as PasswordAuthenticator and
// ClientState.login do: the role must exist with a password that matches,
// and be allowed to log in. Errors are Bad credentials errors with
// Cassandra's texts.
func (rs *Roles) Authenticate(ctx context.Context, user, password string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, err := rs.Read(ctx, user)
	if err != nil {
		return &query.Error{Code: wire.CodeBadCredentials, Message: "Unable to perform authentication: " + err.Error(), Err: err}
	}
	if r == nil || !rs.passwordMatches(user, r.Hash, password) {
		return &query.Error{Code: wire.CodeBadCredentials, Message: fmt.Sprintf("Provided username %s and/or password are incorrect", user)}
	}
	if !r.Login {
		return &query.Error{Code: wire.CodeBadCredentials, Message: fmt.Sprintf("%s is not permitted to log in", user)}
	}
	return nil
}

// EnsureIsSuperuser is ClientState.EnsureIsSuperuser: once password
// authentication is on, the session's role (user) must have superuser
// status, or the statement fails with msg.
func (rs *Roles) EnsureIsSuperuser(ctx context.Context, user, msg string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.enabled {
		return nil
	}
	roles, err := rs.All(ctx)
	if err != nil {
		return err
	}
	if user == "" || !HasSuperuserStatus(roles, user) {
		return &query.Error{Code: wire.CodeUnauthorized, Message: msg}
	}
	return nil
}

// Role is a row of system_auth.roles.
type Role struct {
	Name         string
	Super, Login bool
	// MemberOf lists the roles granted to this one.
	MemberOf []string
	// Hash is the bcrypt hash of the password ("" when there is none).
	Hash string
}

// Read returns the role, or nil if it does not exist.
func (rs *Roles) Read(ctx context.Context, name string) (*Role, error) {
	rows, err := rs.readRoles(ctx, name)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}

// readRoles reads one role (name), or every role (name == "" and all), of
// system_auth.roles.
func (rs *Roles) readRoles(ctx context.Context, name string) ([]*Role, error) {
	q := "SELECT role, is_superuser, can_login, member_of, salted_hash FROM system_auth.roles"
	var p *query.Params
	if name != "" {
		q += " WHERE role = ?"
		p = &query.Params{Values: []query.Value{{Bytes: virtual.TextV(name)}}}
	}
	res, err := rs.query(ctx, q, p)
	if err != nil {
		return nil, err
	}
	setType := types.SetOf(types.TextType, false)
	var out []*Role
	for _, row := range res.Rows {
		r := &Role{Name: string(row[0]), Super: isTrue(row[1]), Login: isTrue(row[2]), Hash: string(row[4])}
		if row[3] != nil {
			elems, err := types.DecodeCollection(setType, row[3])
			if err != nil {
				return nil, err
			}
			for _, e := range elems {
				r.MemberOf = append(r.MemberOf, string(e))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func isTrue(b []byte) bool { return len(b) == 1 && b[0] != 0 }

// All returns every role by name.
func (rs *Roles) All(ctx context.Context) (map[string]*Role, error) {
	rows, err := rs.readRoles(ctx, "")
	if err != nil {
		return nil, err
	}
	m := make(map[string]*Role, len(rows))
	for _, r := range rows {
		m[r.Name] = r
	}
	return m, nil
}

// Write replaces the row of r in system_auth.roles.
func (rs *Roles) Write(ctx context.Context, r *Role) error {
	row := virtual.Values{"role": virtual.TextV(r.Name), "is_superuser": virtual.BoolV(r.Super), "can_login": virtual.BoolV(r.Login)}
	if len(r.MemberOf) > 0 {
		row["member_of"] = virtual.TextSetV(r.MemberOf...)
	}
	if r.Hash != "" {
		row["salted_hash"] = virtual.TextV(r.Hash)
	}
	return rs.writeAuth(ctx, []virtual.Partition{{Table: virtual.Table("system_auth", "roles"), Key: virtual.TextV(r.Name), Rows: []virtual.Values{row}}})
}

// Delete removes the row of role name.
func (rs *Roles) Delete(ctx context.Context, name string) error {
	return rs.writeAuth(ctx, []virtual.Partition{{Table: virtual.Table("system_auth", "roles"), Key: virtual.TextV(name)}})
}

// WriteMembers rewrites the role_members partition of each role in names
// from the member_of sets of roles, so the lookup table lists exactly the
// roles granted each one.
func (rs *Roles) WriteMembers(ctx context.Context, roles map[string]*Role, names ...string) error {
	tbl := virtual.Table("system_auth", "role_members")
	var parts []virtual.Partition
	for _, name := range names {
		p := virtual.Partition{Table: tbl, Key: virtual.TextV(name)}
		for _, r := range roles {
			if slices.Contains(r.MemberOf, name) {
				p.Rows = append(p.Rows, virtual.Values{"role": virtual.TextV(name), "member": virtual.TextV(r.Name)})
			}
		}
		parts = append(parts, p)
	}
	return rs.writeAuth(ctx, parts)
}

// Granted returns role name and the roles granted to it: all inherited
// ones when recursive, else only the direct ones (Roles.getRoles).
func Granted(roles map[string]*Role, name string, recursive bool) []string {
	seen := map[string]bool{name: true}
	out := []string{name}
	for i := 0; i < len(out); i++ {
		r := roles[out[i]]
		if r == nil || (!recursive && i > 0) {
			continue
		}
		for _, g := range r.MemberOf {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// HasSuperuserStatus reports whether name or a role granted to it is a
// superuser (Roles.HasSuperuserStatus).
func HasSuperuserStatus(roles map[string]*Role, name string) bool {
	for _, r := range Granted(roles, name, true) {
		if rr := roles[r]; rr != nil && rr.Super {
			return true
		}
	}
	return false
}

// Enabled reports whether Enable has switched on PasswordAuthenticator.
// The caller holds the lock (Lock).
func (rs *Roles) Enabled() bool { return rs.enabled }

// Lock takes the lock that serializes role changes, which read and rewrite
// system_auth, and returns its unlock. A role statement holds it while it
// reads the roles and writes its change.
func (rs *Roles) Lock() (unlock func()) {
	rs.mu.Lock()
	return rs.mu.Unlock
}
