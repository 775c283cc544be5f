package minicass

import (
	"context"
	"fmt"

	"github.com/minicass/minicass/cql/parser"
)

// ScriptError is the error of a script statement: which statement failed
// (counted from 1), its text, and the statement's own error, which errors.Is
// and errors.As see through.
type ScriptError struct {
	Index     int
	Statement string
	Err       error
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("statement %d (%s): %v", e.Index, e.Statement, e.Err)
}

func (e *ScriptError) Unwrap() error { return e.Err }

// ExecScript runs the statements of a CQL script in order on the session,
// as cqlsh runs a file: statements end at ';' outside strings, quoted names
// and comments, a BEGIN BATCH ... APPLY BATCH is one statement whatever its
// body holds, and comments and empty statements are skipped. A last
// statement without its ';' runs too. USE changes the session's keyspace
// for the statements after it. It stops at the first statement that fails
// and returns a *ScriptError.
func (s *Session) ExecScript(ctx context.Context, script string) error {
	stmts, rest := parser.SplitStatements(script)
	if rest != "" {
		stmts = append(stmts, rest)
	}
	for i, stmt := range stmts {
		if err := s.Exec(ctx, stmt); err != nil {
			return &ScriptError{Index: i + 1, Statement: stmt, Err: err}
		}
	}
	return nil
}

// ExecScript runs a script on the default session; see Session.ExecScript.
func (db *DB) ExecScript(ctx context.Context, script string) error {
	return db.def.ExecScript(ctx, script)
}
