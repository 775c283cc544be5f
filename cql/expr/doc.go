// Package expr compiles and evaluates CQL's expressions: terms (literals,
// bind markers, collections, casts), native functions and operators, and the
// selectors of a SELECT clause with its aggregates, as Cassandra's cql3,
// cql3/functions and cql3/selection do.
//
// A compiled term or selector is a pure value: evaluating it takes the
// query.Execution that holds the bound values and the time.
package expr
