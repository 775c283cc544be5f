package cql

import (
	"context"
	"strings"

	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/statements"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
)

// BatchEntry is one statement of a protocol BATCH: a prepared statement,
// or else the text of one, with the values of its own bind markers.
type BatchEntry struct {
	Prepared *Prepared
	Query    string
	Values   []query.Value
}

// Batch runs a protocol BATCH (the native protocol's BATCH message) of type
// typ as the session's role: the entries' own plans, a text entry compiled
// in the session's keyspace and a prepared one as it was prepared, each
// with its own values, one timestamp for all, and validated together as a
// CQL BATCH is. An evicted prepared entry gets Unprepared.
func (s *Session) Batch(ctx context.Context, typ parser.BatchType, entries []BatchEntry, p *query.Params) (*query.Result, error) {
	plans := make([]plan.Plan, len(entries))
	values := make([][]query.Value, len(entries))
	for i, e := range entries {
		var pl plan.Plan
		if e.Prepared != nil {
			var err error
			if pl, err = s.x.planOf(e.Prepared); err != nil {
				return nil, s.rejected(&request{batch: entries[:i], plans: plans[:i], bType: typ}, nil, p, err)
			}
		} else {
			stmt, err := parse(e.Query)
			if err != nil {
				return nil, s.rejected(&request{batch: entries[:i], plans: plans[:i], bType: typ}, nil, p, err)
			}
			if pl, _, err = s.x.compileStatement(stmt, s.Keyspace()); err != nil {
				return nil, s.rejected(&request{batch: entries[:i], plans: plans[:i], bType: typ}, nil, p, err)
			}
		}
		if n := len(pl.Binds()); n != len(e.Values) {
			return nil, s.rejected(&request{batch: entries[:i], plans: plans[:i], bType: typ}, nil, p, query.Invalidf("There were %d markers(?) in CQL but %d bound variables", n, len(e.Values)))
		}
		values[i] = e.Values
		plans[i] = pl
	}
	bp, err := statements.ProtocolBatch(typ, plans)
	if err != nil {
		return nil, s.rejected(&request{batch: entries, plans: plans, bType: typ}, nil, p, err)
	}
	if p == nil {
		p = &query.Params{}
	}
	return s.runValues(ctx, bp, batchText(entries), nil, values, p, &request{batch: entries, plans: plans, bType: typ})
}

// batchText describes a protocol BATCH in the log of a recovered panic.
type batchText []BatchEntry

func (b batchText) String() string {
	var sb strings.Builder
	sb.WriteString("BATCH of")
	for i, e := range b {
		if i > 0 {
			sb.WriteString(";")
		}
		if e.Prepared != nil {
			sb.WriteString(" " + e.Prepared.Query)
		} else {
			sb.WriteString(" " + e.Query)
		}
	}
	return sb.String()
}
