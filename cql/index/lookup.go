package index

import (
	"bytes"
	"context"
	"math"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Of returns the index ix of base with its table from e, or nil when ix
// is not built-in or its table does not exist (yet).
func Of(e *engine.Engine, base *schema.Table, ix *schema.Index) *Index {
	if ix == nil || !IsBuiltin(ix) {
		return nil
	}
	tbl, ok := e.Table(base.Keyspace, schema.IndexTableName(base.Name, ix.Name))
	if !ok {
		return nil
	}
	x, err := Resolve(base, ix, tbl)
	if err != nil {
		return nil
	}
	return x
}

// EstimatedResultRows is the index's estimate of the rows a lookup
// returns, which picks the index among several (Cassandra's
// CassandraIndex.getEstimatedResultRows: the index table's mean rows per
// partition in its SSTables, 0 before any flush).
func (x *Index) EstimatedResultRows(e *engine.Engine) int64 {
	return e.MeanRowCount(x.Table)
}

// Lookup reads the entries of value whose base token lies in tr, in base
// token order, and calls fn once per base partition with the clustering
// keys of its rows the entries name, in order and without duplicates (nil
// when the entries name the whole partition: a static column's index;
// empty but not nil when they name only its static row). fn
// returns true to stop. The statistics are those of the index partition's
// read.
func (x *Index) Lookup(ctx context.Context, e *engine.Engine, base *schema.Table, value []byte, tr data.TokenRange, now int64,
	fn func(key []byte, cks [][]byte) (bool, error)) (*engine.ReadStats, error) {
	opts := engine.ReadOptions{Now: now}
	if tr.Start != math.MinInt64 || !tr.StartInclusive {
		start := tr.Start
		if !tr.StartInclusive && start < math.MaxInt64 {
			start++
		}
		b, err := types.EncodeBound(x.Table.ClusteringTypes(), [][]byte{tokenPrefix(start)}, types.StartInclusive)
		if err != nil {
			return nil, err
		}
		opts.Slices = data.Slices{{Start: b}}
	}
	p, err := e.ReadPartition(ctx, x.Table, Key(value), opts)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var cur []byte
	var cks [][]byte
	whole := false
	flush := func() (bool, error) {
		if cur == nil {
			return false, nil
		}
		c := cks
		if whole {
			c = nil
		} else if c == nil {
			// Only the static row's entry named the partition.
			c = [][]byte{}
		}
		stop, err := fn(cur, c)
		cur, cks, whole = nil, nil, false
		return stop, err
	}
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		h, err := x.decodeEntry(base, value, r.Clustering)
		if err != nil {
			return p.Stats(), err
		}
		if tok := e.Token(h.Key); !tr.Contains(tok) {
			if tok > tr.End {
				break
			}
			continue
		}
		if cur == nil || !bytes.Equal(cur, h.Key) {
			if stop, err := flush(); err != nil || stop {
				return p.Stats(), err
			}
			cur = bytes.Clone(h.Key)
		}
		if h.Static {
			continue
		}
		if h.Clustering == nil {
			whole = true
			continue
		}
		if n := len(cks); n == 0 || !bytes.Equal(cks[n-1], h.Clustering) {
			cks = append(cks, bytes.Clone(h.Clustering))
		}
	}
	if err := p.Err(); err != nil {
		return p.Stats(), err
	}
	_, err = flush()
	return p.Stats(), err
}
