// Package describe prints schema as CQL, as Cassandra's DESCRIBE and
// SchemaCQLHelper print it: CREATE KEYSPACE, CREATE TABLE with its options,
// CREATE INDEX and CREATE TYPE, with identifiers quoted where CQL needs it.
package describe
