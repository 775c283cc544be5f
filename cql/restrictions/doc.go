// Package restrictions analyses WHERE clauses, as Cassandra's
// cql3/restrictions does: partition key, clustering and token restrictions
// of reads (WhereClause), the key a write addresses (ModWhere), the filters
// ALLOW FILTERING and secondary indexes apply, and the errors Cassandra
// gives for each restriction it refuses.
package restrictions
