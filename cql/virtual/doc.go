// Package virtual is the node's system keyspaces: the definitions of the
// system tables (system, system_schema, system_auth, system_traces,
// system_views, system_virtual_schema, ...), the rows of the tables that are
// computed when read (system_schema.* from a schema snapshot, system.local
// from the node's identity, system_views.* from engine statistics and the
// server's connections), and Node, the node's identity.
//
// Nothing here runs CQL: the statement layer reads derived tables through
// Node.Partitions, and writes stored system tables (system_auth) through
// Node.WritePartitions.
package virtual
