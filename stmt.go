package minicass

import (
	"context"

	"github.com/minicass/minicass/cql"
)

// Stmt is a prepared statement, bound to the session that prepared it. It
// is validated again automatically when the schema changes. A Stmt is safe
// for concurrent use.
type Stmt struct {
	s    *Session
	prep *cql.Prepared
}

// Text returns the statement text.
func (st *Stmt) Text() string { return st.prep.Query }

// Bind describes the bind markers, in order: the name Cassandra gives each
// (the column name, or the marker's own name) and its type.
func (st *Stmt) Bind() []Column { return st.prep.Bind }

// Columns describes the result columns of a SELECT (nil otherwise).
func (st *Stmt) Columns() []Column { return st.prep.Result }

// Exec runs the statement with args (bind values and QueryOptions) and
// discards any rows.
func (st *Stmt) Exec(ctx context.Context, args ...any) error {
	p, values := splitArgs(args)
	_, err := st.s.run(ctx, st.prep, p, values)
	return err
}

// Query runs the statement with args and returns its rows; see
// Session.Query.
func (st *Stmt) Query(ctx context.Context, args ...any) *Rows {
	p, values := splitArgs(args)
	return st.s.execute(ctx, st.prep, p, values)
}
