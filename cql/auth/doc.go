// Package auth is the node's role manager and authenticator, as a
// Cassandra 4.1 node configured with CassandraRoleManager (roles kept in
// system_auth.roles and system_auth.role_members) and, once Enable is
// called, PasswordAuthenticator (bcrypt hashes in roles.salted_hash) and,
// when its options ask, CassandraAuthorizer (permissions.go: permissions
// in system_auth.role_permissions, checked through a snapshot, cache.go).
//
// The statements that change roles (CREATE, ALTER, DROP, GRANT and LIST
// ROLES) are compiled and authorized by the statement layer above; they
// call Roles under its lock (Lock) to read a snapshot of every role and
// write their change. Passwords that matched once are remembered as a
// SHA-256 digest, so a client that opens many connections pays bcrypt's
// cost once; changing a password changes the hash and forgets the entry.
package auth
