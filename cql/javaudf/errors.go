package javaudf

import (
	"errors"
	"fmt"
)

// ErrUnsupported marks a body that uses a Java construct outside the subset
// this package interprets (see the package documentation). Cassandra would
// accept such a body; minicass refuses it at CREATE FUNCTION.
var ErrUnsupported = errors.New("javaudf: unsupported Java construct")

// ErrTimeout is returned by Call when the context's deadline passes (or the
// context is cancelled) while the body runs.
var ErrTimeout = errors.New("javaudf: user function timed out")

// ErrCompile marks a CompileError: a body Cassandra's Java compiler refuses.
var ErrCompile = errors.New("javaudf: Java source compilation failed")

// ErrValidation marks a ValidationError: a body that compiles but that
// Cassandra's byte-code verifier (UDFByteCodeVerifier) refuses.
var ErrValidation = errors.New("javaudf: Java UDF validation failed")

// ErrInternal marks a failure of the interpreter itself (a bug): a Go panic
// recovered at the API boundary.
var ErrInternal = errors.New("javaudf: internal error")

// Problem is one compile problem: the line within the body (1-based, as
// Cassandra counts it) and the compiler's message.
type Problem struct {
	Line int
	Msg  string
}

// CompileError is a body the Java compiler refuses. Its text is Cassandra's:
// "Java source compilation failed:\n" then "Line N: message\n" per problem.
type CompileError struct {
	Problems []Problem
}

// Error prints the problems as Cassandra's InvalidRequestException does.
func (e *CompileError) Error() string {
	s := "Java source compilation failed:\n"
	for _, p := range e.Problems {
		s += fmt.Sprintf("Line %d: %s\n", p.Line, p.Msg)
	}
	return s
}

// Is reports whether target is ErrCompile.
func (e *CompileError) Is(target error) bool { return target == ErrCompile }

// ValidationError is a body the byte-code verifier refuses. Its text is
// Cassandra's: "Java UDF validation failed: [msg, msg]".
type ValidationError struct {
	Errors []string
}

// Error prints the verifier's messages as Cassandra does.
func (e *ValidationError) Error() string {
	s := "Java UDF validation failed: ["
	for i, m := range e.Errors {
		if i > 0 {
			s += ", "
		}
		s += m
	}
	return s + "]"
}

// Is reports whether target is ErrValidation.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

// UnsupportedError names a construct outside the supported subset.
type UnsupportedError struct {
	Line      int
	Construct string
}

// Error names the construct and its line.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("Java UDF uses a construct minicass does not interpret (line %d): %s", e.Line, e.Construct)
}

// Is reports whether target is ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// Exception is a Java exception thrown by the body and not caught in it.
// Class is the exception's fully qualified class name
// (java.lang.ArithmeticException) and Message its getMessage(), "" for none.
type Exception struct {
	Class   string
	Message string
	// HasMessage is false when the message is null (Java's toString then
	// prints the class name alone).
	HasMessage bool
}

// Error prints the exception as Java's Throwable.toString does: the class
// name, then ": " and the message when there is one.
func (e *Exception) Error() string {
	if !e.HasMessage {
		return e.Class
	}
	return e.Class + ": " + e.Message
}
