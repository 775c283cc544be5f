package cql

import (
	"errors"
	"fmt"

	"github.com/minicass/minicass/cql/query"
)

// fuzzFailure returns why err, the error of one statement a fuzz target ran,
// breaks the targets' property, or "" when it does not: every statement
// either succeeds or fails with a typed *Error, and none panics (a recovered
// panic is a Server error caused by ErrInternal).
func fuzzFailure(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, ErrInternal) {
		return "panic during execution: " + err.Error()
	}
	var e *query.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("untyped error %T: %v", err, err)
	}
	return ""
}
