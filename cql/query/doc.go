// Package query holds what one CQL request runs with and what it returns,
// shared by every package of the CQL layer: bound values (Value, Params),
// result sets and their column specifications (Result, ColumnSpec), traces,
// the error vocabulary (Error with Cassandra's codes and texts, and AsError,
// the one mapping from the engine's errors to CQL's), and Execution, the
// state of one run of a compiled statement.
//
// The facade, package cql, gives these types their public names.
package query
