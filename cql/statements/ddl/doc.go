// Package ddl compiles CQL's schema statements (CREATE, ALTER and DROP of
// keyspaces, tables, types, indexes, views, functions and triggers;
// TRUNCATE) and DESCRIBE, as Cassandra's cql3/statements/schema does, with
// Cassandra's validation texts.
package ddl
