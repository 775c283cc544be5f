package cql

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/wire"
)

// ErrInternal is the cause of the Server error (0x0000) a statement returns
// when its execution panicked: errors.Is(err, ErrInternal) tells a bug in
// minicass from the errors Cassandra itself gives, and the fuzz targets fail
// on it. The client sees only Cassandra's server error text.
var ErrInternal = errors.New("cql: internal error")

// recovered turns the value r of a panic recovered while executing a
// statement into the error the statement returns, and logs the panic with
// its stack and the statement through Options.Logger. It must be called
// from the deferred function that recovered, so that the stack logged is the
// panic's.
func (x *Executor) recovered(r any, stmt fmt.Stringer) *query.Error {
	stack := debug.Stack()
	x.opts.Logger.Error("cql: panic while executing a statement", "panic", fmt.Sprint(r), "statement", statementText(stmt),
		"stack", string(stack))
	return &query.Error{Code: wire.CodeServer, Message: wire.InternalErrorMessage(r), Err: ErrInternal}
}

// statementText prints stmt back to CQL for the log; a statement that
// cannot be printed (the panic may have come from its own tree) is "?".
func statementText(stmt fmt.Stringer) (text string) {
	defer func() {
		if recover() != nil {
			text = "?"
		}
	}()
	if stmt == nil {
		return "?"
	}
	return stmt.String()
}
