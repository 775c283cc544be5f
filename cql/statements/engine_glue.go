package statements

import (
	"context"

	"github.com/minicass/minicass/cql/plan"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
)

// readOneRow reads the live data of one row (clustering != nil) or, when
// static is set, the partition's static row. It returns nil when there is no
// live data.
func readOneRow(ctx context.Context, q *plan.Execution, tbl *schema.Table, key, clustering []byte, static bool) (*data.Row, error) {
	opts := engine.ReadOptions{Now: q.NowInSec(), Limit: 1}
	if !static {
		if len(clustering) > 0 {
			opts.Slices = data.Slices{{Start: clustering, End: append(append([]byte(nil), clustering...), 0)}}
		}
	}
	part, err := q.Env.Engine.ReadPartition(ctx, tbl, key, opts)
	if err != nil {
		return nil, query.AsError(err)
	}
	sp, err := collectPartition(part)
	if err != nil {
		return nil, err
	}
	if static {
		return sp.static, nil
	}
	if len(sp.rows) == 0 {
		return nil, nil
	}
	return &sp.rows[0], nil
}
