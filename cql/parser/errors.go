package parser

import (
	"errors"
	"fmt"
)

// ErrSyntax is the sentinel matched by every *SyntaxError through errors.Is.
// The executor maps it to the native protocol's Syntax error code (0x2000).
var ErrSyntax = errors.New("parser: syntax error")

// SyntaxError describes the first syntax error found in a CQL string. Line is
// 1-based and Column is the 0-based character (not byte) offset of the
// offending token within its line, as Cassandra's ANTLR parser reports them.
type SyntaxError struct {
	// Line is the 1-based line of the offending token. It is 0 for an error
	// at the end of the input (Column -1: Cassandra's EOF token has no
	// position) and for an error of a grammar action (Column 0).
	Line int
	// Column is the 0-based character position of the offending token in its
	// line, -1 at the end of the input.
	Column int
	// Msg is the ANTLR-style message, for example
	// "no viable alternative at input '.'".
	Msg string
	// Snippet is the surrounding query text with the offending token in
	// square brackets, as Cassandra's ErrorCollector appends it; it may be
	// empty (lexer errors carry none).
	Snippet string
}

// Error formats the error the way Cassandra does:
// "line 1:8 no viable alternative at input '.' (SELECT u[.]*...)", or
// "line 0:-1 no viable alternative at input '<EOF>'" at the end of the input.
// Errors raised by grammar actions (Line 0, Column 0), such as "Only
// expressions of the form X = <value> + X are supported.", are reported as Msg
// alone, as Cassandra does.
func (e *SyntaxError) Error() string {
	if e.Line == 0 && e.Column >= 0 {
		return e.Msg
	}
	if e.Snippet == "" {
		return fmt.Sprintf("line %d:%d %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("line %d:%d %s (%s)", e.Line, e.Column, e.Msg, e.Snippet)
}

// Is reports whether target is ErrSyntax, so that errors.Is(err, ErrSyntax)
// holds for every *SyntaxError.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }
