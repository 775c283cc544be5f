package statements

import (
	"context"
	"errors"
	"fmt"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/trigger"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// Triggers run where Cassandra 4.1 runs them. A write without conditions
// (an INSERT, UPDATE or DELETE, a BATCH) goes through
// StorageProxy.mutateWithTriggers: TriggerExecutor.execute runs the
// triggers of each partition update's table, validates what each returns,
// refuses the lot when the write holds a counter update, and the original
// mutations and the triggers' are merged by partition and applied
// together (mutateAtomically). A lightweight transaction goes through
// StorageProxy.cas, which, once the conditions hold, runs the triggers on
// the one partition update it proposes and merges in what they return,
// which must be of the same table and partition
// (TriggerExecutor.validateForSinglePartition). A table without triggers
// takes none of this: one length check on the plan's table.

// tableMutation is a mutation and the table it writes.
type tableMutation struct {
	tbl *schema.Table
	m   *data.Mutation
}

// runTriggers returns the mutations the triggers of the tables of muts add
// (TriggerExecutor.execute(Collection)), validated, nil when they add
// none; counter says the write holds a counter update, which a trigger's
// mutation cannot join.
func runTriggers(ctx context.Context, q *plan.Execution, muts []tableMutation, counter bool) ([]tableMutation, error) {
	var added []tableMutation
	for _, tm := range muts {
		if len(tm.tbl.Triggers) == 0 || tm.m.IsEmpty() {
			continue
		}
		more, err := augment(ctx, q, tm)
		if err != nil {
			return nil, err
		}
		added = append(added, more...)
	}
	if len(added) > 0 && counter {
		return nil, query.Invalidf("Counter mutations and trigger mutations cannot be applied together atomically.")
	}
	return added, nil
}

// augment runs the triggers of tm's table on tm, in creation order
// (TriggerExecutor.executeInternal), and validates what they return.
func augment(ctx context.Context, q *plan.Execution, tm tableMutation) ([]tableMutation, error) {
	var out []tableMutation
	for _, def := range tm.tbl.Triggers {
		tr, ok := q.Env.Triggers.Lookup(def.Class)
		if !ok {
			// Cassandra loads the class on first use; a node whose
			// triggers directory lost it fails the write.
			return nil, triggerFailure(tm.tbl, fmt.Errorf("java.lang.ClassNotFoundException: %s", def.Class))
		}
		muts, err := tr.Augment(ctx, trigger.Update{Table: tm.tbl, Mutation: tm.m, Timestamp: q.Env.Engine.NewTimestamp()})
		if err != nil {
			return nil, triggerFailure(tm.tbl, err)
		}
		for _, m := range muts {
			r, err := resolveTriggerMutation(q, m)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// triggerFailure is the error of a trigger that failed: a CQL error as it
// is (Cassandra rethrows a CassandraException), anything else the server
// error of the RuntimeException Cassandra wraps it in.
func triggerFailure(tbl *schema.Table, err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return qe
	}
	return &query.Error{Code: wire.CodeServer, Err: err,
		Message: "java.lang.RuntimeException: Exception while executing trigger on table with ID: " + types.UUIDValue(tbl.ID).String()}
}

// resolveTriggerMutation finds the table of a trigger's mutation and
// validates the mutation (TriggerExecutor.validate: the key, then each
// update's values), as a statement's own mutations are validated before
// anything is written.
func resolveTriggerMutation(q *plan.Execution, m trigger.Mutation) (tableMutation, error) {
	if m.Mutation == nil {
		return tableMutation{}, query.Invalidf("A trigger returned no mutation for table %s.%s", m.Keyspace, m.Table)
	}
	tbl, ok := q.Env.Engine.Table(m.Keyspace, m.Table)
	if !ok || tbl.IsIndexTable() || tbl.IsView() {
		return tableMutation{}, query.Invalidf("A trigger returned a mutation of table %s.%s, which does not exist", m.Keyspace, m.Table)
	}
	if m.Mutation.Table != (data.TableID{}) && m.Mutation.Table != tbl.ID {
		return tableMutation{}, query.Invalidf("A trigger returned a mutation of table %s.%s with another table's ID", m.Keyspace, m.Table)
	}
	mc := *m.Mutation
	mc.Table = tbl.ID
	if err := engine.ValidateMutation(&mc); err != nil {
		return tableMutation{}, query.AsError(err)
	}
	if err := validateTriggerValues(tbl, &mc); err != nil {
		return tableMutation{}, err
	}
	return tableMutation{tbl: tbl, m: &mc}, nil
}

// validateTriggerValues checks that each cell of m names a column of tbl
// and that a value of a column of a single cell is a value of its type
// (PartitionUpdate.validate).
func validateTriggerValues(tbl *schema.Table, m *data.Mutation) error {
	check := func(r *data.Row, static bool) error {
		for i := range r.Cells {
			c := &r.Cells[i]
			col := tbl.StoredColumn(c.Column)
			if col == nil || (col.Kind == schema.Static) != static || col.Kind == schema.PartitionKey || col.Kind == schema.Clustering {
				return query.Invalidf("A trigger's mutation of %s names no %s column %s", tbl.QualifiedName(), map[bool]string{true: "static", false: "regular"}[static], c.Column)
			}
			if c.Kind == data.CellRegular && !col.Type.IsMultiCell() && col.Type.Kind != types.Counter {
				if err := types.Validate(col.Type, c.Value); err != nil {
					return query.Invalidf("%s", expr.UnwrapReason(err))
				}
			}
		}
		return nil
	}
	if m.Static != nil {
		if err := check(m.Static, true); err != nil {
			return err
		}
	}
	for i := range m.Rows {
		if err := check(&m.Rows[i], false); err != nil {
			return err
		}
	}
	return nil
}

// mergeByPartition merges muts and added by table and partition, in the
// order each partition first appears (TriggerExecutor.mergeMutations).
func mergeByPartition(muts, added []tableMutation) []tableMutation {
	out := make([]tableMutation, 0, len(muts)+len(added))
	index := make(map[string]int, len(muts)+len(added))
	for _, list := range [2][]tableMutation{muts, added} {
		for _, tm := range list {
			if tm.m.IsEmpty() {
				continue
			}
			k := partitionKeyOf(tm.m)
			if i, ok := index[k]; ok {
				out[i].m = mergeMutations(out[i].m, tm.m)
				continue
			}
			index[k] = len(out)
			out = append(out, tm)
		}
	}
	return out
}

// applyAll applies mutations after their replicas are counted, every
// check first: StorageProxy.mutateAtomically, on one node. Each merged
// mutation is validated as Apply will (its size may have grown past the
// maximum), so that an invalid one leaves the others unwritten.
func applyAll(ctx context.Context, q *plan.Execution, muts []tableMutation) error {
	for _, tm := range muts {
		if err := engine.ValidateMutation(tm.m); err != nil {
			return query.AsError(err)
		}
	}
	for _, tm := range muts {
		if err := q.CheckWrite(tm.tbl.Keyspace); err != nil {
			return err
		}
	}
	for _, tm := range muts {
		if q.Trace != nil {
			q.Trace.Add("Applying mutation to %s, partition %s, %d rows", tm.tbl.QualifiedName(), tm.tbl.FormatPartitionWhere(tm.m.Key), len(tm.m.Rows))
		}
		if err := q.Env.Engine.Apply(ctx, tm.tbl, tm.m); err != nil {
			return query.AsError(err)
		}
	}
	return nil
}

// casTriggers runs the triggers of a lightweight transaction's update m of
// tbl (TriggerExecutor.execute(PartitionUpdate)) and returns m with what
// they add merged in; every added mutation must be of tbl's partition
// m.Key.
func casTriggers(ctx context.Context, q *plan.Execution, tbl *schema.Table, m *data.Mutation) (*data.Mutation, error) {
	if len(tbl.Triggers) == 0 || m.IsEmpty() {
		return m, nil
	}
	added, err := augment(ctx, q, tableMutation{tbl: tbl, m: m})
	if err != nil {
		return nil, err
	}
	for _, tm := range added {
		if string(tm.m.Key) != string(m.Key) {
			return nil, query.Invalidf("Partition key of additional mutation does not match primary update key")
		}
		if tm.tbl.ID != tbl.ID {
			return nil, query.Invalidf("table of additional mutation does not match primary update table")
		}
	}
	for _, tm := range added {
		m = mergeMutations(m, tm.m)
	}
	return m, nil
}
