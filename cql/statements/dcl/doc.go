// Package dcl compiles CQL's data control statements: CREATE, ALTER, DROP,
// GRANT, REVOKE and LIST of roles, and the permission statements, which
// keep permissions with CassandraAuthorizer and fail as they fail on a
// node with AllowAllAuthorizer otherwise. Each statement
// authorizes, validates and executes in Cassandra's order, as the executing
// session's role.
package dcl
