// Package statements compiles parsed CQL statements into plans (Compile) and
// holds the data statements, as Cassandra's cql3/statements: SELECT with
// paging, INSERT, UPDATE and DELETE with their fast single-row paths,
// lightweight transactions, BATCH (a CQL BATCH and the protocol's, see
// ProtocolBatch) and USE. Writes of a table with triggers run them and
// apply what they return (triggers.go, package cql/trigger). Schema statements are in package ddl and role
// statements in package dcl, below this one. Every plan whose statement
// needs permissions is wrapped with them (authorize.go) and checks them for
// the executing session's role when CassandraAuthorizer is on.
package statements
