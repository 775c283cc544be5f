package auth

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// This file is CassandraAuthorizer: permissions granted to roles on data,
// role, function and JMX resources, kept in system_auth.role_permissions
// (role, resource, permissions set<text>) with the inverted index
// system_auth.resource_role_permissons_index (resource, role; the table's
// name has Cassandra's spelling), and the checks of ClientState that use
// them.
//
// A role has a permission on a resource when it, or a role granted to it
// (recursively), was granted that permission on the resource or on one of
// its parents (Resources.chain: a table, all tables of its keyspace, the
// keyspace, all keyspaces). A superuser has every permission the resource
// supports.

// Permission is one of Cassandra 4.1's permissions, in Permission's order.
type Permission uint8

// The permissions (auth/Permission.java).
const (
	PermCreate Permission = iota
	PermAlter
	PermDrop
	PermSelect
	PermModify
	PermAuthorize
	PermDescribe
	PermExecute
	numPermissions
)

var permissionNames = [numPermissions]string{"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE", "DESCRIBE", "EXECUTE"}

// String returns the permission's name, as Permission.name().
func (p Permission) String() string {
	if p < numPermissions {
		return permissionNames[p]
	}
	return fmt.Sprintf("Permission(%d)", p)
}

// ParsePermission returns the permission named s (upper case).
func ParsePermission(s string) (Permission, bool) {
	for i, n := range permissionNames {
		if n == s {
			return Permission(i), true
		}
	}
	return 0, false
}

// PermissionSet is a set of permissions.
type PermissionSet uint16

// Has reports whether p is in the set.
func (s PermissionSet) Has(p Permission) bool { return s&(1<<p) != 0 }

// With returns the set with p added.
func (s PermissionSet) With(p Permission) PermissionSet { return s | 1<<p }

// List returns the set's permissions in Permission's order.
func (s PermissionSet) List() []Permission {
	var out []Permission
	for p := Permission(0); p < numPermissions; p++ {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// names returns the set's permission names, in Permission's order.
func (s PermissionSet) names() []string {
	var out []string
	for _, p := range s.List() {
		out = append(out, p.String())
	}
	return out
}

// Resource is a data, role, function or JMX resource, of one of the
// kinds the parser knows.
type Resource struct {
	Kind parser.ResourceKind
	// Keyspace of the data and function kinds below their roots.
	Keyspace string
	// Name is the table, role, function or MBean name.
	Name string
	// Args are the CQL types of a function's arguments, and Classes the
	// same types as Cassandra's AbstractType class names, which the
	// stored name carries (FunctionResource.getName).
	Args    []string
	Classes []string
}

// FunctionResource is the resource of function ks.name with argument
// types args (FunctionResource.function).
func FunctionResource(ks, name string, args []types.Type) Resource {
	r := Resource{Kind: parser.ResourceFunction, Keyspace: ks, Name: name, Args: make([]string, len(args)), Classes: make([]string, len(args))}
	for i, t := range args {
		r.Args[i], r.Classes[i] = t.String(), types.MarshalName(t)
	}
	return r
}

// The resources of the statements' checks.
func RootData() Resource              { return Resource{Kind: parser.ResourceAllKeyspaces} }
func KeyspaceData(ks string) Resource { return Resource{Kind: parser.ResourceKeyspace, Keyspace: ks} }
func AllTablesData(ks string) Resource {
	return Resource{Kind: parser.ResourceKeyspaceTables, Keyspace: ks}
}
func TableData(ks, table string) Resource {
	return Resource{Kind: parser.ResourceTable, Keyspace: ks, Name: table}
}
func RootRoles() Resource               { return Resource{Kind: parser.ResourceAllRoles} }
func RoleResource(name string) Resource { return Resource{Kind: parser.ResourceRole, Name: name} }
func RootFunctions() Resource           { return Resource{Kind: parser.ResourceAllFunctions} }
func KeyspaceFunctions(ks string) Resource {
	return Resource{Kind: parser.ResourceKeyspaceFunctions, Keyspace: ks}
}

// StoredName returns the resource's name as role_permissions stores it
// (IResource.getName): "data/ks/table", "roles/name", "functions/ks/f[int^text]", "mbean/name".
func (r Resource) StoredName() string {
	switch r.Kind {
	case parser.ResourceAllKeyspaces:
		return "data"
	case parser.ResourceKeyspace:
		return "data/" + r.Keyspace
	case parser.ResourceKeyspaceTables:
		return "data/" + r.Keyspace + "/*"
	case parser.ResourceTable:
		return "data/" + r.Keyspace + "/" + r.Name
	case parser.ResourceAllRoles:
		return "roles"
	case parser.ResourceRole:
		return "roles/" + r.Name
	case parser.ResourceAllFunctions:
		return "functions"
	case parser.ResourceKeyspaceFunctions:
		return "functions/" + r.Keyspace
	case parser.ResourceFunction:
		return "functions/" + r.Keyspace + "/" + r.Name + "[" + strings.Join(r.Classes, "^") + "]"
	case parser.ResourceAllMBeans:
		return "mbean"
	default:
		return "mbean/" + r.Name
	}
}

// String returns the resource as Cassandra prints it (IResource.toString):
// "<table ks.t>", "<all keyspaces>", "<role r>".
func (r Resource) String() string {
	switch r.Kind {
	case parser.ResourceAllKeyspaces:
		return "<all keyspaces>"
	case parser.ResourceKeyspace:
		return "<keyspace " + r.Keyspace + ">"
	case parser.ResourceKeyspaceTables:
		return "<all tables in " + r.Keyspace + ">"
	case parser.ResourceTable:
		return "<table " + r.Keyspace + "." + r.Name + ">"
	case parser.ResourceAllRoles:
		return "<all roles>"
	case parser.ResourceRole:
		return "<role " + r.Name + ">"
	case parser.ResourceAllFunctions:
		return "<all functions>"
	case parser.ResourceKeyspaceFunctions:
		return "<all functions in " + r.Keyspace + ">"
	case parser.ResourceFunction:
		return "<function " + r.Keyspace + "." + r.Name + "(" + strings.Join(r.Args, ", ") + ")>"
	case parser.ResourceAllMBeans:
		return "<all mbeans>"
	default:
		return "<mbean " + r.Name + ">"
	}
}

// resourceFromName parses a stored name back (Resources.fromName).
func resourceFromName(name string) (Resource, bool) {
	parts := strings.SplitN(name, "/", 3)
	switch parts[0] {
	case "data":
		switch len(parts) {
		case 1:
			return RootData(), true
		case 2:
			return KeyspaceData(parts[1]), true
		}
		if parts[2] == "*" {
			return AllTablesData(parts[1]), true
		}
		return TableData(parts[1], parts[2]), true
	case "roles":
		if len(parts) == 1 {
			return RootRoles(), true
		}
		return RoleResource(strings.Join(parts[1:], "/")), true
	case "functions":
		switch len(parts) {
		case 1:
			return RootFunctions(), true
		case 2:
			return KeyspaceFunctions(parts[1]), true
		}
		fn, args, ok := strings.Cut(strings.TrimSuffix(parts[2], "]"), "[")
		if !ok {
			return Resource{}, false
		}
		r := Resource{Kind: parser.ResourceFunction, Keyspace: parts[1], Name: fn}
		if args != "" {
			r.Classes = strings.Split(args, "^")
			for _, c := range r.Classes {
				r.Args = append(r.Args, types.CQLNameOfMarshal(c))
			}
		}
		return r, true
	case "mbean":
		if len(parts) == 1 {
			return Resource{Kind: parser.ResourceAllMBeans}, true
		}
		return Resource{Kind: parser.ResourceMBean, Name: strings.Join(parts[1:], "/")}, true
	}
	return Resource{}, false
}

// parent returns the resource's parent, and false for a root.
func (r Resource) parent() (Resource, bool) {
	switch r.Kind {
	case parser.ResourceKeyspace:
		return RootData(), true
	case parser.ResourceKeyspaceTables:
		return KeyspaceData(r.Keyspace), true
	case parser.ResourceTable:
		return AllTablesData(r.Keyspace), true
	case parser.ResourceRole:
		return RootRoles(), true
	case parser.ResourceKeyspaceFunctions:
		return RootFunctions(), true
	case parser.ResourceFunction:
		return KeyspaceFunctions(r.Keyspace), true
	case parser.ResourceMBean:
		return Resource{Kind: parser.ResourceAllMBeans}, true
	}
	return Resource{}, false
}

// Chain returns the resource and its parents, the resource first
// (Resources.chain).
func (r Resource) Chain() []Resource {
	out := []Resource{r}
	for {
		p, ok := out[len(out)-1].parent()
		if !ok {
			return out
		}
		out = append(out, p)
	}
}

// Applicable returns the permissions the resource supports
// (IResource.applicablePermissions).
func (r Resource) Applicable() PermissionSet {
	var s PermissionSet
	for _, n := range parser.ApplicablePermissions(r.Kind) {
		if p, ok := ParsePermission(n); ok {
			s = s.With(p)
		}
	}
	return s
}

// The authorizers, as cassandra.yaml's authorizer names them.
const (
	AllowAllAuthorizer  = "AllowAllAuthorizer"
	CassandraAuthorizer = "CassandraAuthorizer"
)

// ParseAuthorizer returns the authorizer a cassandra.yaml value names,
// with or without the org.apache.cassandra.auth package; "" is
// AllowAllAuthorizer.
func ParseAuthorizer(v string) (string, error) {
	switch strings.TrimPrefix(v, "org.apache.cassandra.auth.") {
	case "", AllowAllAuthorizer:
		return AllowAllAuthorizer, nil
	case CassandraAuthorizer:
		return CassandraAuthorizer, nil
	}
	return "", fmt.Errorf("authorizer %q is not one of AllowAllAuthorizer, CassandraAuthorizer", v)
}

// Authorizing reports whether CassandraAuthorizer checks permissions
// (IAuthorizer.requireAuthorization).
func (rs *Roles) Authorizing() bool { return rs.authorizing.Load() }

// Unauthorized returns an Unauthorized error (0x2100) with msg.
func Unauthorized(msg string) error { return &query.Error{Code: wire.CodeUnauthorized, Message: msg} }

// grants are the permissions granted directly to one role, by resource
// name.
type grants map[string]PermissionSet

// readGrants reads role's partition of role_permissions.
func (rs *Roles) readGrants(ctx context.Context, role string) (grants, error) {
	res, err := rs.query(ctx, "SELECT resource, permissions FROM system_auth.role_permissions WHERE role = ?",
		&query.Params{Values: []query.Value{{Bytes: virtual.TextV(role)}}})
	if err != nil {
		return nil, err
	}
	setType := types.SetOf(types.TextType, false)
	g := grants{}
	for _, row := range res.Rows {
		var s PermissionSet
		if row[1] != nil {
			elems, err := types.DecodeCollection(setType, row[1])
			if err != nil {
				return nil, err
			}
			for _, e := range elems {
				if p, ok := ParsePermission(string(e)); ok {
					s = s.With(p)
				}
			}
		}
		if s != 0 {
			g[string(row[0])] = s
		}
	}
	return g, nil
}

// writeGrants rewrites role's partition of role_permissions.
func (rs *Roles) writeGrants(ctx context.Context, role string, g grants) error {
	p := virtual.Partition{Table: virtual.Table("system_auth", "role_permissions"), Key: virtual.TextV(role)}
	names := make([]string, 0, len(g))
	for name := range g {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if g[name] == 0 {
			continue
		}
		p.Rows = append(p.Rows, virtual.Values{"role": virtual.TextV(role), "resource": virtual.TextV(name), "permissions": virtual.TextSetV(g[name].names()...)})
	}
	return rs.writeAuth(ctx, []virtual.Partition{p})
}

// readIndex reads the roles resource_role_permissons_index lists for the
// resource name.
func (rs *Roles) readIndex(ctx context.Context, resource string) ([]string, error) {
	res, err := rs.query(ctx, "SELECT role FROM system_auth.resource_role_permissons_index WHERE resource = ?",
		&query.Params{Values: []query.Value{{Bytes: virtual.TextV(resource)}}})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range res.Rows {
		out = append(out, string(row[0]))
	}
	return out, nil
}

// writeIndex rewrites the index partition of the resource name.
func (rs *Roles) writeIndex(ctx context.Context, resource string, roles []string) error {
	p := virtual.Partition{Table: virtual.Table("system_auth", "resource_role_permissons_index"), Key: virtual.TextV(resource)}
	sort.Strings(roles)
	for _, r := range roles {
		p.Rows = append(p.Rows, virtual.Values{"resource": virtual.TextV(resource), "role": virtual.TextV(r)})
	}
	return rs.writeAuth(ctx, []virtual.Partition{p})
}

// Grant adds perms on res to role's permissions (CassandraAuthorizer.grant)
// and records the role in the index. It returns the permissions that were
// not granted before. The caller holds the lock (Lock).
func (rs *Roles) Grant(ctx context.Context, perms PermissionSet, res Resource, role string) (PermissionSet, error) {
	g, err := rs.readGrants(ctx, role)
	if err != nil {
		return 0, err
	}
	name := res.StoredName()
	added := perms &^ g[name]
	g[name] |= perms
	if err := rs.writeGrants(ctx, role, g); err != nil {
		return 0, err
	}
	idx, err := rs.readIndex(ctx, name)
	if err != nil {
		return 0, err
	}
	for _, r := range idx {
		if r == role {
			return added, nil
		}
	}
	return added, rs.writeIndex(ctx, name, append(idx, role))
}

// Revoke removes perms on res from role's permissions
// (CassandraAuthorizer.revoke); the index entry goes with the last one. It
// returns the permissions that were granted. The caller holds the lock.
func (rs *Roles) Revoke(ctx context.Context, perms PermissionSet, res Resource, role string) (PermissionSet, error) {
	g, err := rs.readGrants(ctx, role)
	if err != nil {
		return 0, err
	}
	name := res.StoredName()
	removed := perms & g[name]
	g[name] &^= perms
	if err := rs.writeGrants(ctx, role, g); err != nil {
		return 0, err
	}
	if g[name] != 0 {
		return removed, nil
	}
	return removed, rs.removeIndex(ctx, name, role)
}

func (rs *Roles) removeIndex(ctx context.Context, name, role string) error {
	idx, err := rs.readIndex(ctx, name)
	if err != nil {
		return err
	}
	kept := idx[:0]
	for _, r := range idx {
		if r != role {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(idx) {
		return nil
	}
	return rs.writeIndex(ctx, name, kept)
}

// RevokeAllFrom removes every permission granted to role, as DROP ROLE does
// (CassandraAuthorizer.revokeAllFrom). The caller holds the lock.
func (rs *Roles) RevokeAllFrom(ctx context.Context, role string) error {
	g, err := rs.readGrants(ctx, role)
	if err != nil {
		return err
	}
	for name := range g {
		if err := rs.removeIndex(ctx, name, role); err != nil {
			return err
		}
	}
	return rs.writeGrants(ctx, role, nil)
}

// RevokeAllOn removes every permission granted on res, as dropping it does
// (CassandraAuthorizer.revokeAllOn). The caller holds the lock.
func (rs *Roles) RevokeAllOn(ctx context.Context, res Resource) error {
	name := res.StoredName()
	idx, err := rs.readIndex(ctx, name)
	if err != nil {
		return err
	}
	for _, role := range idx {
		g, err := rs.readGrants(ctx, role)
		if err != nil {
			return err
		}
		delete(g, name)
		if err := rs.writeGrants(ctx, role, g); err != nil {
			return err
		}
	}
	if len(idx) == 0 {
		return nil
	}
	return rs.writeIndex(ctx, name, nil)
}

// Permissions returns the permissions user has on res itself, directly or
// through the roles granted to it; a superuser has every applicable one
// (CassandraAuthorizer.authorize). roles is a snapshot of every role.
func (rs *Roles) Permissions(ctx context.Context, roles map[string]*Role, user string, res Resource) (PermissionSet, error) {
	if HasSuperuserStatus(roles, user) {
		return res.Applicable(), nil
	}
	var s PermissionSet
	name := res.StoredName()
	for _, r := range Granted(roles, user, true) {
		g, err := rs.readGrants(ctx, r)
		if err != nil {
			return 0, Unauthorized("Unable to perform authorization of permissions: " + err.Error())
		}
		s |= g[name]
	}
	return s, nil
}

// HasPermission is ClientState.ensurePermission's test without its error:
// whether user has perm on res or on one of its parents. Built-in
// functions (keyspace system) are open to everyone. roles is a snapshot of
// every role; the grants are read from system_auth.
func (rs *Roles) HasPermission(ctx context.Context, roles map[string]*Role, user string, perm Permission, res Resource) (bool, error) {
	return rs.hasPermission(ctx, roles, func(role string) (grants, error) { return rs.readGrants(ctx, role) }, user, perm, res)
}

func (rs *Roles) hasPermission(ctx context.Context, roles map[string]*Role, grantsOf func(string) (grants, error), user string, perm Permission, res Resource) (bool, error) {
	if res.Kind == parser.ResourceFunction && res.Keyspace == "system" {
		return true, nil
	}
	super := HasSuperuserStatus(roles, user)
	var chainGrants []grants
	for _, r := range res.Chain() {
		if super {
			if r.Applicable().Has(perm) {
				return true, nil
			}
			continue
		}
		if chainGrants == nil {
			for _, role := range Granted(roles, user, true) {
				g, err := grantsOf(role)
				if err != nil {
					return false, Unauthorized("Unable to perform authorization of permissions: " + err.Error())
				}
				chainGrants = append(chainGrants, g)
			}
		}
		name := r.StoredName()
		for _, g := range chainGrants {
			if g[name].Has(perm) {
				return true, nil
			}
		}
	}
	return false, nil
}

// EnsurePermission is ClientState.ensurePermission(perm, resource) for a
// non-internal session when CassandraAuthorizer is on: user needs perm on
// res or one of its parents, or the statement fails with Cassandra's text.
// roles is a snapshot of every role, whose grants are read from
// system_auth; nil uses the cached snapshot (cache.go).
func (rs *Roles) EnsurePermission(ctx context.Context, roles map[string]*Role, user string, perm Permission, res Resource) error {
	if user == "" || !rs.Authorizing() {
		return nil
	}
	var ok bool
	var err error
	if roles == nil {
		var s *authSnapshot
		if s, err = rs.snapshot(ctx); err != nil {
			return err
		}
		ok, err = rs.hasPermission(ctx, s.roles, func(role string) (grants, error) { return s.grantsOf(ctx, rs, role) }, user, perm, res)
	} else {
		ok, err = rs.HasPermission(ctx, roles, user, perm, res)
	}
	if err != nil || ok {
		return err
	}
	return Unauthorized(fmt.Sprintf("User %s has no %s permission on %s or any of its parents", user, perm, res))
}

// NonVirtualSystemKeyspace reports whether ks is one of the system
// keyspaces with tables on disk (SchemaConstants.isNonVirtualSystemKeyspace).
func NonVirtualSystemKeyspace(ks string) bool {
	return ks == "system" || ks == "system_schema" || replicatedSystemKeyspaces[ks]
}

// InvalidForSystemKeyspaces are the permissions that cannot be granted on
// a system keyspace or its tables (Permission.INVALID_FOR_SYSTEM_KEYSPACES:
// all but SELECT, DESCRIBE and ALTER).
const InvalidForSystemKeyspaces = AllPermissions &^ (1<<PermSelect | 1<<PermDescribe | 1<<PermAlter)

// localSystemKeyspaces are SchemaConstants.LOCAL_SYSTEM_KEYSPACE_NAMES plus
// the virtual keyspaces, which nobody may alter.
var localSystemKeyspaces = map[string]bool{"system": true, "system_schema": true, "system_views": true, "system_virtual_schema": true}

// replicatedSystemKeyspaces are SchemaConstants.REPLICATED_SYSTEM_KEYSPACE_NAMES.
var replicatedSystemKeyspaces = map[string]bool{"system_auth": true, "system_distributed": true, "system_traces": true}

// readableSystemTable reports whether ks.table is one of
// ClientState.READABLE_SYSTEM_RESOURCES: system.local, peers and peers_v2,
// every system_schema table and every system_virtual_schema table.
func readableSystemTable(ks, table string) bool {
	switch ks {
	case "system":
		return table == "local" || table == "peers" || table == "peers_v2"
	case "system_schema", "system_virtual_schema":
		return true
	}
	return false
}

// protectedAuthTable reports whether system_auth.table is one of the
// authenticator's, authorizer's and role manager's protected resources.
func protectedAuthTable(ks, table string) bool {
	return ks == "system_auth" && (table == "roles" || table == "role_members" || table == "role_permissions")
}

// EnsureDataPermission is ClientState.ensurePermission(keyspace, perm,
// resource) for a data resource when CassandraAuthorizer is on: schema
// changes to the system keyspaces are refused, the readable system tables
// are readable by all, the auth tables cannot be created, altered or
// dropped, and otherwise user needs perm on res or one of its parents.
func (rs *Roles) EnsureDataPermission(ctx context.Context, user string, perm Permission, res Resource) error {
	if user == "" || !rs.Authorizing() {
		return nil
	}
	ks := res.Keyspace
	if perm == PermAlter || perm == PermDrop || perm == PermCreate {
		// preventSystemKSSchemaModification
		if localSystemKeyspaces[ks] {
			return Unauthorized(ks + " keyspace is not user-modifiable.")
		}
		if replicatedSystemKeyspaces[ks] {
			if perm != PermAlter || res.Kind != parser.ResourceKeyspace {
				return Unauthorized(fmt.Sprintf("Cannot %s %s", perm, res))
			}
		}
	}
	if perm == PermSelect && res.Kind == parser.ResourceTable && readableSystemTable(ks, res.Name) {
		return nil
	}
	if res.Kind == parser.ResourceTable && protectedAuthTable(ks, res.Name) && (perm == PermCreate || perm == PermAlter || perm == PermDrop) {
		return Unauthorized(fmt.Sprintf("%s schema is protected", res))
	}
	return rs.EnsurePermission(ctx, nil, user, perm, res)
}

// PermissionDetail is one row of LIST PERMISSIONS.
type PermissionDetail struct {
	Role       string
	Resource   Resource
	Permission Permission
}

// List returns the permissions in perms granted on res (every resource
// when res is nil) to role and the roles granted to it (to every role when
// role is ""), as CassandraAuthorizer.list, sorted as PermissionDetails
// sort: by role, resource name, permission. roles is a snapshot of every
// role.
func (rs *Roles) List(ctx context.Context, roles map[string]*Role, perms PermissionSet, res *Resource, role string) ([]PermissionDetail, error) {
	var names []string
	if role == "" {
		for name := range roles {
			names = append(names, name)
		}
	} else {
		names = Granted(roles, role, true)
	}
	var out []PermissionDetail
	for _, r := range names {
		g, err := rs.readGrants(ctx, r)
		if err != nil {
			return nil, err
		}
		for name, s := range g {
			if res != nil && name != res.StoredName() {
				continue
			}
			rr, ok := resourceFromName(name)
			if !ok {
				continue
			}
			for _, p := range (s & perms).List() {
				out = append(out, PermissionDetail{Role: r, Resource: rr, Permission: p})
			}
		}
	}
	SortDetails(out)
	return out, nil
}

// SortDetails sorts permission details as PermissionDetails.compareTo:
// by role, resource name, permission.
func SortDetails(out []PermissionDetail) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		if an, bn := a.Resource.StoredName(), b.Resource.StoredName(); an != bn {
			return an < bn
		}
		return a.Permission < b.Permission
	})
}

// AllPermissions is every permission (Permission.ALL).
const AllPermissions = PermissionSet(1<<numPermissions - 1)
