// Package parser is minicass's hand-written recursive-descent parser for the
// CQL accepted by Apache Cassandra 4.x, reading tokens from the module's one
// CQL lexer (package cql/lexer), which it classifies into keywords. It
// produces a sealed,
// typed AST: Statement, Expr and Relation are interfaces closed by unexported
// marker methods, and every node prints back to canonical CQL with Format or
// String, so that Parse(stmt.String()) yields an equal AST.
//
// Entry points:
//
//	st, err := parser.Parse("SELECT a FROM ks.t WHERE k = ?")   // one statement
//	sts, err := parser.ParseScript("USE ks; TRUNCATE t;")       // several
//	done, rest := parser.SplitStatements(shellBuffer)           // for a shell
//
// Errors are *SyntaxError values that match ErrSyntax with errors.Is and
// print like Cassandra's: "line 1:8 no viable alternative at input '.'".
//
// The package only parses; the executor (package cql) validates names,
// types and Cassandra's semantic rules. Identifiers follow Cassandra's
// lexer: unquoted names are lower-cased, reserved keywords (see
// IsReservedKeyword) must be double-quoted, and all other keywords
// (timestamp, date, key, ttl, count, type, ...) are valid identifiers.
// Bind markers are numbered in order of appearance across the statement
// (across a whole BATCH); each statement reports them through BindCount and
// BindNames for PREPARE metadata.
package parser
