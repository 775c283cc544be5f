// Package virtual is the node's system keyspaces: the definitions of the
// system tables (system, system_schema, system_auth, system_traces,
// system_views, system_virtual_schema, ...), the rows of the tables that are
// computed when read (system_schema.* from a schema snapshot, system.local
// from the node's identity, system_views.* from engine statistics and the
// server's connections), Node, the node's identity, and the virtual
// keyspaces an embedder registers (user.go): tables implemented in Go, read
// through UserTable.Rows and written, when they implement the modification
// interfaces, as Cassandra 4.1's AbstractMutableVirtualTable is.
//
// Nothing here runs CQL: the statement layer reads derived tables through
// Node.Partitions, and writes stored system tables (system_auth) through
// Node.WritePartitions.
package virtual
