// Package cql is minicass's CQL executor: the facade the Go API, the shell
// and the native-protocol server use. An Executor runs on one engine; its
// Sessions parse, compile and run statements as their role, in their
// current keyspace; Prepare and Execute go through the executor's one
// bounded cache of prepared plans, which a schema change evicts from (the
// next EXECUTE of an evicted id gets Unprepared, so drivers re-prepare).
//
// The layers below it, bottom to top: query (values, results, errors, one
// run's state), virtual (system tables and the node's identity), describe
// and expr (schema as CQL; terms, functions, selectors), auth (roles and
// logins), restrictions (WHERE), plan (what every plan shares),
// statements/ddl and statements/dcl (schema and role statements), and
// statements (the data statements and the dispatch from a parsed statement
// to its plan). docs/architecture.md draws them.
package cql
