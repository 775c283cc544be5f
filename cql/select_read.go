package cql

import (
	"context"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
)

// This file is the only place where SELECT talks to the engine's read API.

// readPartition reads one partition: its live static row and the live rows
// of slices in the plan's order, at most limit rows (0: all).
func (p *selectPlan) readPartition(ctx context.Context, q *execution, key []byte, slices data.Slices, limit int) (*selPart, error) {
	part, err := q.s.x.eng.ReadPartition(ctx, p.tbl, key, engine.ReadOptions{Slices: slices, Reverse: p.reversed, Limit: limit, Now: q.now})
	if err != nil {
		return nil, AsError(err)
	}
	return &selPart{key: key, static: part.Static, rows: part.Rows}, nil
}

// scan reads the partitions of a token range in token order. slicesFor
// gives each partition's slices (skip drops the partition); fn receives each
// partition and returns true to stop.
func (p *selectPlan) scan(ctx context.Context, q *execution, tr data.TokenRange, slicesFor func(key []byte) (data.Slices, bool), limit int, fn func(*selPart) (bool, error)) error {
	// The scan finds the partitions; each is then read with its own slices
	// (the one a page resumes in needs narrower ones).
	err := q.s.x.eng.Scan(ctx, p.tbl, tr, engine.ReadOptions{Reverse: p.reversed, Now: q.now}, func(ep *engine.Partition) (bool, error) {
		sl, skip := slicesFor(ep.Key)
		if skip {
			return false, nil
		}
		part, err := p.readPartition(ctx, q, ep.Key, sl, limit)
		if err != nil {
			return false, err
		}
		return fn(part)
	})
	if err != nil {
		return AsError(err)
	}
	return nil
}
