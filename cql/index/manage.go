package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
)

// The life of an index:
//
//	CREATE INDEX  Create: the index table is created, the index registered
//	              as a dependent of its base table (writes from now on
//	              maintain it), existing data built into it; then the DDL
//	              publishes the base table with the index (the planner
//	              reads it and system."IndexInfo" lists it from then on).
//	restart       Attach (when an executor is made on an engine): every
//	              index of the schema is registered again; an index table
//	              whose index is not in its base table (a CREATE INDEX cut
//	              short by a crash) is dropped.
//	DROP INDEX    the DDL publishes the base table without the index, then
//	              Drop unregisters it and drops its table.
//	DROP TABLE    Drop for every index, after the base table is dropped.
//
// A column an index uses cannot be dropped (ALTER TABLE refuses, as
// Cassandra does), so column drops never leave an index behind.

// Attach registers the built-in indexes of every table of e as dependents
// and drops the index tables no index owns. Indexes already registered are
// left as they are, so attaching twice is harmless.
func Attach(e *engine.Engine) error {
	var errs []error
	for _, ks := range e.Keyspaces() {
		owned := map[string]bool{}
		for _, base := range e.Tables(ks.Name) {
			for i := range base.Indexes {
				ix := &base.Indexes[i]
				if !IsBuiltin(ix) {
					continue
				}
				name := schema.IndexTableName(base.Name, ix.Name)
				owned[name] = true
				tbl, ok := e.Table(ks.Name, name)
				if !ok {
					errs = append(errs, fmt.Errorf("index: the table of index %s.%s is missing", ks.Name, ix.Name))
					continue
				}
				if err := register(e, base, ix, tbl); err != nil {
					errs = append(errs, err)
				}
			}
		}
		for _, tbl := range e.IndexTables(ks.Name) {
			if owned[tbl.Name] {
				continue
			}
			base, name, _ := cutIndexName(tbl.Name)
			if bt, ok := e.Table(ks.Name, base); ok && slices.Contains(e.Dependents(bt), name) {
				continue // being created by CREATE INDEX
			}
			if err := e.DropTable(ks.Name, tbl.Name); err != nil && !errors.Is(err, engine.ErrNoTable) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func cutIndexName(name string) (base, index string, ok bool) {
	i := bytes.IndexByte([]byte(name), '.')
	if i < 0 {
		return name, "", false
	}
	return name[:i], name[i+1:], true
}

// register makes ix of base, held in tbl, a dependent of base.
func register(e *engine.Engine, base *schema.Table, ix *schema.Index, tbl *schema.Table) error {
	x, err := Resolve(base, ix, tbl)
	if err != nil {
		return err
	}
	if err := e.AddDependent(base, ix.Name, x); err != nil && !errors.Is(err, engine.ErrDependentExists) {
		return err
	}
	return nil
}

// Create creates the table of the built-in index ix of base, registers it
// and builds it from the existing data. The caller then publishes base
// with ix. On error nothing of the index is left.
func Create(ctx context.Context, e *engine.Engine, base *schema.Table, ix *schema.Index) error {
	tbl, err := NewTable(base, ix)
	if err != nil {
		return err
	}
	if err := e.CreateTable(tbl); err != nil {
		return err
	}
	if err := register(e, base, ix, tbl); err != nil {
		_ = e.DropTable(tbl.Keyspace, tbl.Name)
		return err
	}
	if err := Build(ctx, e, base, ix); err != nil {
		e.RemoveDependent(base, ix.Name)
		_ = e.DropTable(tbl.Keyspace, tbl.Name)
		return err
	}
	return nil
}

// Drop unregisters the index named name of base and drops its table.
// base may already be dropped.
func Drop(e *engine.Engine, base *schema.Table, name string) error {
	e.RemoveDependent(base, name)
	err := e.DropTable(base.Keyspace, schema.IndexTableName(base.Name, name))
	if errors.Is(err, engine.ErrNoTable) || errors.Is(err, engine.ErrNoKeyspace) {
		return nil
	}
	return err
}

// Build writes the entries of every live row of base into the table of
// its index ix (registered already, so writes meanwhile maintain it): each
// base partition is read under its lock, so that no write interleaves with
// its entries. Entries written twice (by a write and by the build) are the
// same entries.
func Build(ctx context.Context, e *engine.Engine, base *schema.Table, ix *schema.Index) error {
	tbl, ok := e.Table(base.Keyspace, schema.IndexTableName(base.Name, ix.Name))
	if !ok {
		return fmt.Errorf("index: the table of index %s.%s is missing", base.Keyspace, ix.Name)
	}
	x, err := Resolve(base, ix, tbl)
	if err != nil {
		return err
	}
	var keys [][]byte
	sc, err := e.Scan(ctx, base, data.FullRing, engine.ReadOptions{})
	if err != nil {
		return err
	}
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		keys = append(keys, bytes.Clone(p.Key()))
	}
	if err := errors.Join(sc.Err(), sc.Close()); err != nil {
		return err
	}
	for _, key := range keys {
		if err := x.buildPartition(ctx, e, base, key); err != nil {
			return err
		}
	}
	return nil
}

// buildRows is how many base rows a build turns into one batch of index
// mutations.
const buildRows = 256

func (x *Index) buildPartition(ctx context.Context, e *engine.Engine, base *schema.Table, key []byte) error {
	unlock := e.LockPartition(base, key)
	defer unlock()
	now := e.Now()
	p, err := e.ReadPartition(ctx, base, key, engine.ReadOptions{Now: now})
	if err != nil {
		return err
	}
	defer p.Close()
	token := e.Token(key)
	m := &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion}
	empty := &engine.BaseRows{Deletion: data.LiveDeletion}
	after := &engine.BaseRows{Deletion: data.LiveDeletion}
	if s := p.Static(); s != nil {
		c := s.Clone()
		after.Static = &c
	}
	flush := func() error {
		o := &out{tbl: x.Table}
		if err := x.derive(o, base, token, m, empty, after, now); err != nil {
			return err
		}
		for _, dm := range o.mutations() {
			if err := e.Apply(ctx, dm.Table, dm.Mutation); err != nil {
				return err
			}
		}
		after = &engine.BaseRows{Deletion: data.LiveDeletion}
		return nil
	}
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		after.Rows = append(after.Rows, r.Clone())
		if len(after.Rows) >= buildRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	return flush()
}
