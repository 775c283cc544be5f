package parser

import (
	"slices"
	"strings"
)

// Role and permission statements (Cassandra 4.1's Parser.g: createRoleStatement,
// createUserStatement, alterRoleStatement, alterUserStatement,
// dropRoleStatement, dropUserStatement, listRolesStatement,
// listUsersStatement, grantRoleStatement, revokeRoleStatement,
// grantPermissionsStatement, revokePermissionsStatement,
// listPermissionsStatement). USER statements are the deprecated forms of the
// ROLE ones: CREATE USER is CREATE ROLE with LOGIN = true.

// RoleOptions are the WITH options of CREATE and ALTER ROLE, and the
// PASSWORD and SUPERUSER clauses of CREATE and ALTER USER. A nil field was
// not given.
type RoleOptions struct {
	Password       *string
	HashedPassword *string
	Login          *bool
	Superuser      *bool
	// Options is the OPTIONS map literal (custom options), or nil.
	Options Expr
	// Access is set by ACCESS TO [ALL] DATACENTERS: AccessAll, or the
	// datacenters listed in AccessDCs.
	Access    bool
	AccessAll bool
	AccessDCs []string
}

// IsEmpty reports whether no option was given.
func (o *RoleOptions) IsEmpty() bool {
	return o.Password == nil && o.HashedPassword == nil && o.Login == nil && o.Superuser == nil && o.Options == nil && !o.Access
}

// Format writes the options as CREATE ROLE's WITH clause body.
func (o *RoleOptions) Format(buf *strings.Builder) {
	var parts []string
	add := func(f func(b *strings.Builder)) {
		var b strings.Builder
		f(&b)
		parts = append(parts, b.String())
	}
	if o.Password != nil {
		add(func(b *strings.Builder) { b.WriteString("PASSWORD = "); formatString(b, *o.Password) })
	}
	if o.HashedPassword != nil {
		add(func(b *strings.Builder) { b.WriteString("HASHED PASSWORD = "); formatString(b, *o.HashedPassword) })
	}
	if o.Login != nil {
		add(func(b *strings.Builder) { b.WriteString("LOGIN = " + boolText(*o.Login)) })
	}
	if o.Superuser != nil {
		add(func(b *strings.Builder) { b.WriteString("SUPERUSER = " + boolText(*o.Superuser)) })
	}
	if o.Options != nil {
		add(func(b *strings.Builder) { b.WriteString("OPTIONS = "); o.Options.Format(b) })
	}
	if o.Access {
		add(func(b *strings.Builder) {
			if o.AccessAll {
				b.WriteString("ACCESS TO ALL DATACENTERS")
				return
			}
			b.WriteString("ACCESS TO DATACENTERS {")
			for i, dc := range o.AccessDCs {
				if i > 0 {
					b.WriteString(", ")
				}
				formatString(b, dc)
			}
			b.WriteByte('}')
		})
	}
	buf.WriteString(strings.Join(parts, " AND "))
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// CreateRole is CREATE ROLE [IF NOT EXISTS] name [WITH options], or (User)
// CREATE USER [IF NOT EXISTS] name [WITH PASSWORD 'p'] [SUPERUSER |
// NOSUPERUSER].
type CreateRole struct {
	Binds
	User        bool
	IfNotExists bool
	Name        string
	Options     RoleOptions
}

// Format writes the statement's canonical CQL.
func (s *CreateRole) Format(buf *strings.Builder) {
	buf.WriteString("CREATE ")
	formatRoleHead(buf, s.User, s.IfNotExists, "IF NOT EXISTS ", s.Name)
	formatRoleOptions(buf, s.User, &s.Options)
}

// AlterRole is ALTER ROLE [IF EXISTS] name [WITH options], or (User) ALTER
// USER [IF EXISTS] name [WITH PASSWORD 'p'] [SUPERUSER | NOSUPERUSER].
type AlterRole struct {
	Binds
	User     bool
	IfExists bool
	Name     string
	Options  RoleOptions
}

// Format writes the statement's canonical CQL.
func (s *AlterRole) Format(buf *strings.Builder) {
	buf.WriteString("ALTER ")
	formatRoleHead(buf, s.User, s.IfExists, "IF EXISTS ", s.Name)
	formatRoleOptions(buf, s.User, &s.Options)
}

// DropRole is DROP ROLE or DROP USER [IF EXISTS] name.
type DropRole struct {
	Binds
	User     bool
	IfExists bool
	Name     string
}

// Format writes the statement's canonical CQL.
func (s *DropRole) Format(buf *strings.Builder) {
	buf.WriteString("DROP ")
	formatRoleHead(buf, s.User, s.IfExists, "IF EXISTS ", s.Name)
}

func formatRoleHead(buf *strings.Builder, user, cond bool, condText, name string) {
	if user {
		buf.WriteString("USER ")
	} else {
		buf.WriteString("ROLE ")
	}
	if cond {
		buf.WriteString(condText)
	}
	formatString(buf, name)
}

func formatRoleOptions(buf *strings.Builder, user bool, o *RoleOptions) {
	if !user {
		if !o.IsEmpty() {
			buf.WriteString(" WITH ")
			o.Format(buf)
		}
		return
	}
	switch {
	case o.Password != nil:
		buf.WriteString(" WITH PASSWORD ")
		formatString(buf, *o.Password)
	case o.HashedPassword != nil:
		buf.WriteString(" WITH HASHED PASSWORD ")
		formatString(buf, *o.HashedPassword)
	}
	if o.Superuser != nil {
		if *o.Superuser {
			buf.WriteString(" SUPERUSER")
		} else {
			buf.WriteString(" NOSUPERUSER")
		}
	}
}

// ListRoles is LIST ROLES [OF name] [NORECURSIVE], or (Users) LIST USERS.
type ListRoles struct {
	Binds
	Users       bool
	Of          string // empty when not given
	NoRecursive bool
}

// Format writes the statement's canonical CQL.
func (s *ListRoles) Format(buf *strings.Builder) {
	if s.Users {
		buf.WriteString("LIST USERS")
		return
	}
	buf.WriteString("LIST ROLES")
	if s.Of != "" {
		buf.WriteString(" OF ")
		formatString(buf, s.Of)
	}
	if s.NoRecursive {
		buf.WriteString(" NORECURSIVE")
	}
}

// GrantRole is GRANT role TO grantee, or (Revoke) REVOKE role FROM grantee.
type GrantRole struct {
	Binds
	Revoke  bool
	Role    string
	Grantee string
}

// Format writes the statement's canonical CQL.
func (s *GrantRole) Format(buf *strings.Builder) {
	if s.Revoke {
		buf.WriteString("REVOKE ")
	} else {
		buf.WriteString("GRANT ")
	}
	formatString(buf, s.Role)
	if s.Revoke {
		buf.WriteString(" FROM ")
	} else {
		buf.WriteString(" TO ")
	}
	formatString(buf, s.Grantee)
}

// PermissionStatementKind says which permission statement a Permissions is.
type PermissionStatementKind uint8

// The permission statements.
const (
	GrantPermissions PermissionStatementKind = iota
	RevokePermissions
	ListPermissions
)

// ResourceKind is the kind of resource a permission applies to.
type ResourceKind uint8

// The resource kinds, as Cassandra's IResource implementations name them.
const (
	ResourceAllKeyspaces      ResourceKind = iota // ALL KEYSPACES
	ResourceKeyspace                              // KEYSPACE ks
	ResourceTable                                 // [TABLE] [ks.]t
	ResourceKeyspaceTables                        // ALL TABLES IN KEYSPACE ks
	ResourceAllRoles                              // ALL ROLES
	ResourceRole                                  // ROLE r
	ResourceAllFunctions                          // ALL FUNCTIONS
	ResourceKeyspaceFunctions                     // ALL FUNCTIONS IN KEYSPACE ks
	ResourceFunction                              // FUNCTION [ks.]f(types)
	ResourceAllMBeans                             // ALL MBEANS
	ResourceMBean                                 // MBEAN 'name' or MBEANS 'pattern'
)

// Resource is the object of GRANT, REVOKE and LIST permissions.
type Resource struct {
	Kind ResourceKind
	// Table (or function) name, or keyspace in Table.Name for
	// ResourceKeyspace, ResourceKeyspaceTables and ResourceKeyspaceFunctions; role or MBean name in
	// Name.
	Table    TableName
	Name     string
	Plural   bool // MBEANS rather than MBEAN
	ArgTypes []*Type
}

// Format writes the resource as CQL.
func (r *Resource) Format(buf *strings.Builder) {
	switch r.Kind {
	case ResourceAllKeyspaces:
		buf.WriteString("ALL KEYSPACES")
	case ResourceKeyspace:
		buf.WriteString("KEYSPACE ")
		r.Table.Name.Format(buf)
	case ResourceTable:
		buf.WriteString("TABLE ")
		r.Table.Format(buf)
	case ResourceKeyspaceTables:
		buf.WriteString("ALL TABLES IN KEYSPACE ")
		r.Table.Name.Format(buf)
	case ResourceAllRoles:
		buf.WriteString("ALL ROLES")
	case ResourceRole:
		buf.WriteString("ROLE ")
		formatString(buf, r.Name)
	case ResourceAllFunctions:
		buf.WriteString("ALL FUNCTIONS")
	case ResourceKeyspaceFunctions:
		buf.WriteString("ALL FUNCTIONS IN KEYSPACE ")
		r.Table.Name.Format(buf)
	case ResourceFunction:
		buf.WriteString("FUNCTION ")
		r.Table.Format(buf)
		formatTypeList(buf, r.ArgTypes)
	case ResourceAllMBeans:
		buf.WriteString("ALL MBEANS")
	case ResourceMBean:
		if r.Plural {
			buf.WriteString("MBEANS ")
		} else {
			buf.WriteString("MBEAN ")
		}
		formatString(buf, r.Name)
	}
}

// Permissions is GRANT perms ON resource TO role, REVOKE perms ON resource
// FROM role, or LIST perms [ON resource] [OF role] [NORECURSIVE].
type Permissions struct {
	Binds
	Kind PermissionStatementKind
	// Perms are the permissions named, upper case; nil for ALL
	// [PERMISSIONS].
	Perms []string
	// Resource is nil when LIST names none.
	Resource    *Resource
	Role        string // the grantee, revokee or LIST's OF role ("" if none)
	NoRecursive bool
}

// Format writes the statement's canonical CQL.
func (s *Permissions) Format(buf *strings.Builder) {
	switch s.Kind {
	case GrantPermissions:
		buf.WriteString("GRANT ")
	case RevokePermissions:
		buf.WriteString("REVOKE ")
	case ListPermissions:
		buf.WriteString("LIST ")
	}
	if s.Perms == nil {
		buf.WriteString("ALL PERMISSIONS")
	} else {
		buf.WriteString(strings.Join(s.Perms, ", "))
	}
	if s.Resource != nil {
		buf.WriteString(" ON ")
		s.Resource.Format(buf)
	}
	switch s.Kind {
	case GrantPermissions:
		buf.WriteString(" TO ")
		formatString(buf, s.Role)
	case RevokePermissions:
		buf.WriteString(" FROM ")
		formatString(buf, s.Role)
	case ListPermissions:
		if s.Role != "" {
			buf.WriteString(" OF ")
			formatString(buf, s.Role)
		}
		if s.NoRecursive {
			buf.WriteString(" NORECURSIVE")
		}
	}
}

func (s *CreateRole) String() string  { return nodeString(s) }
func (s *AlterRole) String() string   { return nodeString(s) }
func (s *DropRole) String() string    { return nodeString(s) }
func (s *ListRoles) String() string   { return nodeString(s) }
func (s *GrantRole) String() string   { return nodeString(s) }
func (s *Permissions) String() string { return nodeString(s) }

func (*CreateRole) iStatement()  {}
func (*AlterRole) iStatement()   {}
func (*DropRole) iStatement()    {}
func (*ListRoles) iStatement()   {}
func (*GrantRole) iStatement()   {}
func (*Permissions) iStatement() {}

// roleName parses a role name (roleName in Parser.g): an identifier,
// lower-cased unless quoted, a string literal, or an unreserved keyword.
func (p *parser) roleName() (string, error) {
	t := p.peek()
	switch {
	case t.kind == tQMark:
		return "", recognition("Bind variables cannot be used for role names")
	case t.kind == tString, t.kind == tQuotedIdent:
		p.i++
		return t.val, nil
	case t.kind == tIdent && !t.kw.reserved():
		p.i++
		return t.val, nil
	}
	if t.kind == tIdent || t.kind == tEOF {
		return "", p.noViable()
	}
	return "", p.mismatched("IDENT")
}

// userName parses a user name (username in Parser.g): an identifier, its
// case kept, or a string literal. A quoted name is refused.
func (p *parser) userName() (string, error) {
	t := p.peek()
	switch {
	case t.kind == tQuotedIdent:
		return "", recognition("Quoted strings are are not supported for user names and USER is deprecated, please use ROLE")
	case t.kind == tString:
		p.i++
		return t.val, nil
	case t.kind == tIdent && t.kw == kwNone:
		p.i++
		return t.text, nil
	}
	if t.kind == tIdent || t.kind == tEOF {
		return "", p.noViable()
	}
	return "", p.mismatched("IDENT")
}

// parseCreateRole parses the rest of CREATE ROLE (user false) or CREATE
// USER (user true), after ROLE or USER.
func (p *parser) parseCreateRole(user bool) (Statement, error) {
	s := &CreateRole{User: user}
	var err error
	if s.IfNotExists, err = p.parseIfNotExists(); err != nil {
		return nil, err
	}
	s.Name, err = p.roleAndOptions(user, &s.Options)
	return s, err
}

// parseAlterRole parses the rest of ALTER ROLE or ALTER USER.
func (p *parser) parseAlterRole(user bool) (Statement, error) {
	s := &AlterRole{User: user}
	var err error
	if s.IfExists, err = p.parseIfExists(); err != nil {
		return nil, err
	}
	s.Name, err = p.roleAndOptions(user, &s.Options)
	return s, err
}

// roleAndOptions parses the name and options of CREATE or ALTER: a user
// name and the USER clauses, or a role name and [WITH options].
func (p *parser) roleAndOptions(user bool, o *RoleOptions) (string, error) {
	if user {
		name, err := p.userName()
		if err != nil {
			return "", err
		}
		return name, p.parseUserOptions(o)
	}
	name, err := p.roleName()
	if err == nil && p.acceptKw(kwWith) {
		err = p.parseRoleOptions(o)
	}
	return name, err
}

// parseDropRole parses the rest of DROP ROLE or DROP USER.
func (p *parser) parseDropRole(user bool) (Statement, error) {
	s := &DropRole{User: user}
	var err error
	if s.IfExists, err = p.parseIfExists(); err != nil {
		return nil, err
	}
	if user {
		s.Name, err = p.userName()
	} else {
		s.Name, err = p.roleName()
	}
	return s, err
}

// parseUserOptions parses [WITH [HASHED] PASSWORD 'p'] [SUPERUSER |
// NOSUPERUSER] of CREATE and ALTER USER (no '=' after PASSWORD).
func (p *parser) parseUserOptions(o *RoleOptions) error {
	if p.acceptKw(kwWith) {
		hashed := p.acceptKw(kwHashed)
		if err := p.expectKw(kwPassword); err != nil {
			return err
		}
		v, err := p.stringLiteral()
		if err != nil {
			return err
		}
		if hashed {
			o.HashedPassword = &v
		} else {
			o.Password = &v
		}
	}
	switch {
	case p.acceptKw(kwSuperuser):
		o.Superuser = ptr(true)
	case p.acceptKw(kwNosuperuser):
		o.Superuser = ptr(false)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// stringLiteral parses a STRING_LITERAL.
func (p *parser) stringLiteral() (string, error) {
	t := p.peek()
	if t.kind != tString {
		return "", p.mismatched("STRING_LITERAL")
	}
	p.i++
	return t.val, nil
}

// booleanLiteral parses a BOOLEAN.
func (p *parser) booleanLiteral() (bool, error) {
	t := p.peek()
	if t.kind != tBoolean {
		return false, p.mismatched("BOOLEAN")
	}
	p.i++
	return strings.EqualFold(t.text, "true"), nil
}

// parseRoleOptions parses roleOption (AND roleOption)*.
func (p *parser) parseRoleOptions(o *RoleOptions) error {
	for {
		if err := p.parseRoleOption(o); err != nil {
			return err
		}
		if !p.acceptKw(kwAnd) {
			return checkPasswords(o)
		}
	}
}

// checkPasswords refuses PASSWORD with HASHED PASSWORD, as the grammar's
// actions do.
func checkPasswords(o *RoleOptions) error {
	if o.Password != nil && o.HashedPassword != nil {
		return recognition("Options 'password' and 'hashed password' are mutually exclusive")
	}
	return nil
}

// roleOptionSet reports whether the option a keyword names was given.
func (o *RoleOptions) isSet(kw keyword) bool {
	switch kw {
	case kwPassword:
		return o.Password != nil
	case kwHashed:
		return o.HashedPassword != nil
	case kwOptions:
		return o.Options != nil
	case kwSuperuser:
		return o.Superuser != nil
	case kwLogin:
		return o.Login != nil
	}
	return false
}

// roleOptionNames are IRoleManager.Option's names, by keyword.
var roleOptionNames = map[keyword]string{
	kwPassword: "PASSWORD", kwHashed: "HASHED_PASSWORD", kwOptions: "OPTIONS", kwSuperuser: "SUPERUSER", kwLogin: "LOGIN",
}

func (p *parser) parseRoleOption(o *RoleOptions) error {
	if t := p.peek(); t.kind == tIdent && o.isSet(t.kw) {
		return recognition("Multiple definition for property '" + roleOptionNames[t.kw] + "'")
	}
	var err error
	switch {
	case p.acceptKw(kwPassword):
		var v string
		if v, err = p.equalsString(); err == nil {
			o.Password = &v
		}
	case p.acceptKw(kwHashed):
		if err = p.expectKw(kwPassword); err != nil {
			return err
		}
		var v string
		if v, err = p.equalsString(); err == nil {
			o.HashedPassword = &v
		}
	case p.acceptKw(kwOptions):
		if err = p.expect(tEq); err != nil {
			return err
		}
		if p.peek().kind != tLBrace {
			return p.mismatched("'{'")
		}
		o.Options, err = p.parseTerm()
	case p.acceptKw(kwSuperuser):
		var b bool
		if b, err = p.equalsBool(); err == nil {
			o.Superuser = &b
		}
	case p.acceptKw(kwLogin):
		var b bool
		if b, err = p.equalsBool(); err == nil {
			o.Login = &b
		}
	case p.acceptKw(kwAccess):
		if err = p.expectKw(kwTo); err != nil {
			return err
		}
		o.Access = true
		if p.acceptKw(kwAll) {
			o.AccessAll = true
			return p.expectKw(kwDatacenters)
		}
		if err = p.expectKw(kwDatacenters); err != nil {
			return err
		}
		if err = p.expect(tLBrace); err != nil {
			return err
		}
		o.AccessDCs, err = closedList(p, tRBrace, p.stringLiteral)
	default:
		return p.noViable()
	}
	return err
}

func (p *parser) equalsString() (string, error) {
	if err := p.expect(tEq); err != nil {
		return "", err
	}
	return p.stringLiteral()
}

func (p *parser) equalsBool() (bool, error) {
	if err := p.expect(tEq); err != nil {
		return false, err
	}
	return p.booleanLiteral()
}

// parseList parses LIST ROLES, LIST USERS and LIST permissions.
func (p *parser) parseList() (Statement, error) {
	p.i++ // LIST
	switch {
	case p.acceptKw(kwRoles):
		s := &ListRoles{}
		if p.acceptKw(kwOf) {
			var err error
			if s.Of, err = p.roleName(); err != nil {
				return nil, err
			}
		}
		s.NoRecursive = p.acceptKw(kwNorecursive)
		return s, nil
	case p.acceptKw(kwUsers):
		return &ListRoles{Users: true}, nil
	}
	s := &Permissions{Kind: ListPermissions}
	var err error
	if s.Perms, err = p.permissionOrAll(); err != nil {
		return nil, err
	}
	if p.acceptKw(kwOn) {
		if s.Resource, err = p.parseResource(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw(kwOf) {
		if s.Role, err = p.roleName(); err != nil {
			return nil, err
		}
	}
	s.NoRecursive = p.acceptKw(kwNorecursive)
	return s, nil
}

// parseGrantRevoke parses GRANT and REVOKE, of a role or of permissions.
func (p *parser) parseGrantRevoke() (Statement, error) {
	revoke := p.isKw(kwRevoke)
	p.i++
	to := kwTo
	if revoke {
		to = kwFrom
	}
	if !p.isPermissionStart() {
		s := &GrantRole{Revoke: revoke}
		var err error
		if s.Role, err = p.roleName(); err != nil {
			return nil, err
		}
		if err = p.expectKw(to); err != nil {
			return nil, err
		}
		s.Grantee, err = p.roleName()
		return s, err
	}
	s := &Permissions{Kind: GrantPermissions}
	if revoke {
		s.Kind = RevokePermissions
	}
	var err error
	if s.Perms, err = p.permissionOrAll(); err != nil {
		return nil, err
	}
	if err = p.expectKw(kwOn); err != nil {
		return nil, err
	}
	if s.Resource, err = p.parseResource(); err != nil {
		return nil, err
	}
	if err = p.expectKw(to); err != nil {
		return nil, err
	}
	if s.Role, err = p.roleName(); err != nil {
		return nil, err
	}
	s.Perms, err = filterPermissions(s.Perms, s.Resource)
	return s, err
}

// permissionKeywords are the permissions of Cassandra 4.1, by keyword.
var permissionKeywords = map[keyword]string{
	kwCreate: "CREATE", kwAlter: "ALTER", kwDrop: "DROP", kwSelect: "SELECT", kwModify: "MODIFY",
	kwAuthorize: "AUTHORIZE", kwDescribe: "DESCRIBE", kwExecute: "EXECUTE",
}

// isPermissionStart reports whether the next tokens begin permissionOrAll
// (ALL [PERMISSIONS] ON, or a permission [PERMISSION] ON) rather than a role
// name: ALL and the permission names are also role names when an ON does
// not follow.
func (p *parser) isPermissionStart() bool {
	t := p.peek()
	if t.kind != tIdent {
		return false
	}
	if _, ok := permissionKeywords[t.kw]; ok {
		return true // reserved keywords: not role names
	}
	if t.kw == kwAll {
		n := p.peekAt(1)
		return n.kind == tIdent && (n.kw == kwPermissions || n.kw == kwOn)
	}
	return false
}

// permissionOrAll parses ALL [PERMISSIONS] (nil), or permission
// [PERMISSION] (',' permission [PERMISSION])* (the list is 4.1's).
func (p *parser) permissionOrAll() ([]string, error) {
	if p.acceptKw(kwAll) {
		p.acceptKw(kwPermissions)
		return nil, nil
	}
	var out []string
	for {
		t := p.peek()
		perm, ok := permissionKeywords[t.kw]
		if t.kind != tIdent || !ok {
			return nil, p.noViable()
		}
		p.i++
		p.acceptKw(kwPermission)
		if !slices.Contains(out, perm) {
			out = append(out, perm)
		}
		if !p.accept(tComma) {
			return out, nil
		}
	}
}

// parseResource parses a data, role, function or JMX resource.
func (p *parser) parseResource() (*Resource, error) {
	r := &Resource{}
	var err error
	switch {
	case p.isKw(kwAll):
		p.i++
		switch {
		case p.acceptKw(kwKeyspaces):
			r.Kind = ResourceAllKeyspaces
		case p.acceptKw(kwRoles):
			r.Kind = ResourceAllRoles
		case p.acceptKw(kwTables):
			if err = p.expectKw(kwIn); err != nil {
				return nil, err
			}
			if err = p.expectKw(kwKeyspace); err != nil {
				return nil, err
			}
			r.Kind = ResourceKeyspaceTables
			r.Table.Name, err = p.keyspaceName()
		case p.acceptKw(kwFunctions):
			r.Kind = ResourceAllFunctions
			if p.acceptKw(kwIn) {
				if err = p.expectKw(kwKeyspace); err != nil {
					return nil, err
				}
				r.Kind = ResourceKeyspaceFunctions
				r.Table.Name, err = p.keyspaceName()
			}
		case p.acceptKw(kwMbeans):
			r.Kind = ResourceAllMBeans
		default:
			return nil, p.noViable()
		}
	case p.acceptKw(kwKeyspace):
		r.Kind = ResourceKeyspace
		r.Table.Name, err = p.keyspaceName()
	case p.acceptKw(kwRole):
		r.Kind = ResourceRole
		r.Name, err = p.roleName()
	case p.acceptKw(kwFunction):
		r.Kind = ResourceFunction
		if r.Table, err = p.tableName(); err != nil {
			return nil, err
		}
		if err = p.expect(tLParen); err != nil {
			return nil, err
		}
		r.ArgTypes, err = optionalList(p, tRParen, p.parseType)
	case p.isKw(kwMbean), p.isKw(kwMbeans):
		r.Kind, r.Plural = ResourceMBean, p.isKw(kwMbeans)
		p.i++
		r.Name, err = p.stringLiteral()
	default:
		r.Kind = ResourceTable
		if !p.acceptKw(kwColumnfamily) {
			p.acceptKw(kwTable)
		}
		r.Table, err = p.tableName()
	}
	return r, err
}

// applicablePermissions are the permissions each resource kind supports
// (applicablePermissions of DataResource, RoleResource, FunctionResource and
// JMXResource).
var applicablePermissions = map[ResourceKind][]string{
	ResourceAllKeyspaces:      {"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE"},
	ResourceKeyspace:          {"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE"},
	ResourceTable:             {"ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE"},
	ResourceKeyspaceTables:    {"ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE"},
	ResourceAllRoles:          {"CREATE", "ALTER", "DROP", "AUTHORIZE", "DESCRIBE"},
	ResourceRole:              {"ALTER", "DROP", "AUTHORIZE"},
	ResourceAllFunctions:      {"CREATE", "ALTER", "DROP", "AUTHORIZE", "EXECUTE"},
	ResourceKeyspaceFunctions: {"CREATE", "ALTER", "DROP", "AUTHORIZE", "EXECUTE"},
	ResourceFunction:          {"ALTER", "DROP", "AUTHORIZE", "EXECUTE"},
	ResourceAllMBeans:         {"AUTHORIZE", "DESCRIBE", "EXECUTE", "MODIFY", "SELECT"},
	ResourceMBean:             {"AUTHORIZE", "DESCRIBE", "EXECUTE", "MODIFY", "SELECT"},
}

// resourceClass is the IResource class each kind belongs to, for messages.
var resourceClass = map[ResourceKind]string{
	ResourceAllKeyspaces: "DataResource", ResourceKeyspace: "DataResource", ResourceTable: "DataResource",
	ResourceKeyspaceTables: "DataResource",
	ResourceAllRoles:       "RoleResource", ResourceRole: "RoleResource",
	ResourceAllFunctions: "FunctionResource", ResourceKeyspaceFunctions: "FunctionResource", ResourceFunction: "FunctionResource",
	ResourceAllMBeans: "JMXResource", ResourceMBean: "JMXResource",
}

// filterPermissions keeps the permissions r supports (Parser.g's
// filterPermissions); ALL (nil) becomes the resource's whole set. None left
// is an error.
func filterPermissions(perms []string, r *Resource) ([]string, error) {
	ok := applicablePermissions[r.Kind]
	if perms == nil {
		return nil, nil
	}
	var out []string
	for _, p := range perms {
		for _, a := range ok {
			if p == a {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, recognition("Resource type " + resourceClass[r.Kind] + " does not support any of the requested permissions")
	}
	return out, nil
}

// ApplicablePermissions returns the permissions a resource of kind k
// supports (IResource.applicablePermissions), in Permission's order for
// the data kinds and as Cassandra lists them otherwise. The caller must
// not change the slice.
func ApplicablePermissions(k ResourceKind) []string { return applicablePermissions[k] }
