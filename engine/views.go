package engine

import (
	"bytes"
	"context"
	"fmt"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/view"
)

// Materialized views are tables whose schema.Table.View names a base
// table of their keyspace. The engine keeps them in step with their base
// itself, from the schema: every base table with views has one dependent
// (viewDependent, see derived.go) that computes the views' updates with
// package view from the base rows before and after each write, under the
// base partition's lock, and the engine applies them with the base
// mutation as one commit-log record. syncViewDependents registers and
// removes that dependent whenever the schema changes (publish), at Open
// and at Restore, so registration needs nothing from the caller. The
// dependent reads the current views at each write, so an ALTER or DROP of
// a view takes effect at once.

// viewDependent is the name of the dependent that maintains the views of
// a base table.
const viewDependent = "materialized views"

// syncViewDependents registers viewDependent on every base table that has
// views and removes it from tables that have none.
func (e *Engine) syncViewDependents() {
	st := e.state.Load()
	for _, ks := range st.keyspaces {
		for _, t := range ks.tables {
			has := false
			for _, n := range e.Dependents(t) {
				has = has || n == viewDependent
			}
			wants := len(ks.viewsOf(t.ID)) > 0
			switch {
			case wants && !has:
				if err := e.AddDependent(t, viewDependent, DependentFunc(e.deriveViews)); err != nil {
					e.opts.Logger.Error("registering materialized views", "table", t.QualifiedName(), "err", err)
				}
			case has && !wants:
				e.RemoveDependent(t, viewDependent)
			}
		}
	}
}

// deriveViews computes the view mutations of one base write.
func (e *Engine) deriveViews(ctx context.Context, w *BaseWrite) ([]DerivedMutation, error) {
	views := e.ViewsOf(w.Table)
	if len(views) == 0 {
		return nil, nil
	}
	// The view generator needs the touched rows with their tombstones and
	// covering deletions (BaseWrite holds live rows): read them again,
	// keeping dead data; the merged rows are those reconciled with the
	// mutation's (data.MergeRows, the engine's own reconciliation).
	s, err := e.storeFor(w.Table)
	if err != nil {
		return nil, err
	}
	before, err := e.readRaw(ctx, w.Table, s, w.Mutation.Key, touchedSlices(w.Mutation), w.Now)
	if err != nil {
		return nil, err
	}
	ms, err := view.Updates(w.Table, views, w.Mutation, before, w.Now)
	if err != nil {
		return nil, err
	}
	return derivedOf(views, ms)
}

// derivedOf pairs each view mutation with its view table.
func derivedOf(views []*schema.Table, ms []*data.Mutation) ([]DerivedMutation, error) {
	out := make([]DerivedMutation, 0, len(ms))
	for _, m := range ms {
		var t *schema.Table
		for _, v := range views {
			if v.ID == m.Table {
				t = v
			}
		}
		if t == nil {
			return nil, fmt.Errorf("%w: view mutation for table %x", ErrInvalidMutation, m.Table)
		}
		out = append(out, DerivedMutation{Table: t, Mutation: m})
	}
	return out, nil
}

// BuildView writes the entries of view v for the base rows that exist now
// (Cassandra's ViewBuilder), one base partition at a time under the base
// partition's lock, so that a concurrent write to the base, which derives
// its own view update once the view exists, is never undone by the
// build. progress, if not nil, is called after each base partition with
// the number of partitions built so far.
func (e *Engine) BuildView(ctx context.Context, v *schema.Table, progress func(keys int64)) error {
	if v.View == nil {
		return fmt.Errorf("%w: %s is not a view", ErrInvalidSchema, v.QualifiedName())
	}
	base, ok := e.Table(v.Keyspace, v.View.BaseName)
	if !ok || base.ID != v.View.BaseID {
		return fmt.Errorf("%w: base table of %s", ErrNoTable, v.QualifiedName())
	}
	// The keys first (a scan holds snapshots; the partitions are read
	// again under their locks).
	var keys [][]byte
	sc, err := e.Scan(ctx, base, data.FullRing, ReadOptions{})
	if err != nil {
		return err
	}
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		keys = append(keys, append([]byte(nil), p.Key()...))
	}
	if err := sc.Close(); err != nil {
		return err
	}
	s, err := e.storeFor(base)
	if err != nil {
		return err
	}
	var built int64
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.buildViewPartition(ctx, base, s, v, key); err != nil {
			return err
		}
		built++
		if progress != nil {
			progress(built)
		}
	}
	return nil
}

func (e *Engine) buildViewPartition(ctx context.Context, base *schema.Table, s *tableStore, v *schema.Table, key []byte) error {
	unlock := e.LockPartition(base, key)
	defer unlock()
	now := e.Now()
	rows, err := e.readRaw(ctx, base, s, key, nil, now)
	if err != nil {
		return err
	}
	ms, err := view.Build(base, v, key, rows.Rows, now)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := e.Apply(ctx, v, m); err != nil {
			return err
		}
	}
	return nil
}

// readRaw reads the rows of slices (every row when slices is nil, none
// when it is empty but not nil) of partition key of t as the view
// generator needs them (view.Existing): tombstone cells and expired cells
// kept, only what deletions shadow removed, each row's deletion at least
// the partition deletion and range tombstones covering it (deadView), with
// the partition deletion and the slices' range tombstones, all copied. The
// read is internal: it counts in no table statistic. It is the read of
// readTouched (derived.go) with dead data kept.
func (e *Engine) readRaw(ctx context.Context, t *schema.Table, s *tableStore, key []byte, sl data.Slices, now int64) (view.Existing, error) {
	out, _, err := e.readRawStatic(ctx, t, s, key, sl, now)
	return out, err
}

// readRawStatic is readRaw that also returns the partition's static row
// (a copy), nil if none.
func (e *Engine) readRawStatic(ctx context.Context, t *schema.Table, s *tableStore, key []byte, sl data.Slices, now int64) (view.Existing, *data.Row, error) {
	out := view.Existing{Deletion: data.LiveDeletion}
	var st ReadStats
	opts := ReadOptions{Slices: sl, Now: now}
	rs := e.resolve(&opts, &st)
	st.warnAt, st.failAt = 0, 0
	rs.dropped = t.Dropped
	rs.keepDead = true
	token := e.Token(key)
	srcs := s.sources()
	defer srcs.release()
	var parts []part
	for _, src := range srcs.list {
		ps, _, err := src.Partition(ctx, token, key)
		if err != nil {
			return out, nil, fmt.Errorf("engine: reading %s from %s: %w", t.QualifiedName(), src.Name(), err)
		}
		if ps == nil {
			continue
		}
		parts = append(parts, part{src: src, ps: ps})
		out.Deletion = data.MaxDeletion(out.Deletion, ps.Deletion())
		for _, rt := range ps.RangeTombstones(sl) {
			out.RangeTombstones = append(out.RangeTombstones, data.RangeTombstone{Start: bytes.Clone(rt.Start), End: bytes.Clone(rt.End), Deletion: rt.Deletion})
		}
	}
	if len(parts) == 0 {
		return out, nil, nil
	}
	var p Partition
	e.openPartition(&p, ctx, token, key, parts, &opts, rs, nil)
	defer p.Close()
	for sl == nil || len(sl) > 0 {
		r, ok := p.Next()
		if !ok {
			break
		}
		out.Rows = append(out.Rows, r.Clone())
	}
	var static *data.Row
	if st := p.Static(); st != nil {
		c := st.Clone()
		static = &c
	}
	return out, static, p.Close()
}
