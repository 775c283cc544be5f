package minicass

import (
	"context"
	"sync/atomic"

	"github.com/minicass/minicass/cql"
)

// Stmt is a prepared statement, bound to the session that prepared it. A
// schema change that invalidates it (a column added to its table, say)
// makes it prepare itself again, in the keyspace it was prepared in, as a
// driver does; its Bind and Columns then describe the new statement. A
// Stmt is safe for concurrent use.
type Stmt struct {
	s   *Session
	cur atomic.Pointer[stmtPrep]
}

// stmtPrep is the prepared statement a Stmt runs and what its calls need
// to know of it, decided once when it is prepared (again) rather than at
// every call: whether a result column is a blob (see spareForBlobs).
type stmtPrep struct {
	prep  *cql.Prepared
	blobs bool
}

// newStmtPrep returns the stmtPrep of prep.
func newStmtPrep(prep *cql.Prepared) *stmtPrep {
	return &stmtPrep{prep: prep, blobs: hasBlob(prep.Result)}
}

// newStmt returns a Stmt of prep on session s.
func newStmt(s *Session, prep *cql.Prepared) *Stmt {
	st := &Stmt{s: s}
	st.cur.Store(newStmtPrep(prep))
	return st
}

// run executes sp, the statement's current preparation, remembering the
// statement when it was prepared again.
func (st *Stmt) run(ctx context.Context, sp *stmtPrep, p *cql.Params, values []any, ca *callArgs) (*cql.Result, error) {
	res, now, err := st.s.runPrepared(ctx, sp.prep, p, values, ca)
	if now != sp.prep {
		st.cur.CompareAndSwap(sp, newStmtPrep(now))
	}
	return res, err
}

// Text returns the statement text.
func (st *Stmt) Text() string { return st.cur.Load().prep.Query }

// Bind describes the bind markers, in order: the name Cassandra gives each
// (the column name, or the marker's own name) and its type.
func (st *Stmt) Bind() []Column { return st.cur.Load().prep.Bind }

// Columns describes the result columns of a SELECT (nil otherwise).
func (st *Stmt) Columns() []Column { return st.cur.Load().prep.Result }

// Exec runs the statement with args (bind values and QueryOptions) and
// discards any rows.
func (st *Stmt) Exec(ctx context.Context, args ...any) error {
	ca := getCall()
	p, values := splitArgsInto(ca, args)
	ca.room.Result = &ca.discard // nothing of it is kept
	_, err := st.run(ctx, st.cur.Load(), p, values, ca)
	ca.release()
	return err
}

// Query runs the statement with args and returns its rows; see
// Session.Query.
func (st *Stmt) Query(ctx context.Context, args ...any) *Rows {
	ca := getCall()
	p, values := splitArgsInto(ca, args)
	rows := newRows(ca)
	sp := st.cur.Load()
	ca.room.PackSpare = sp.blobs // spareForBlobs, decided when prepared
	res, err := st.run(ctx, sp, p, values, ca)
	ca.release()
	if err != nil {
		return errRows(err)
	}
	rows.setResult(res)
	return rows
}
