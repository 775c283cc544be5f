// Package trigger holds the triggers an embedder writes in Go, Cassandra's
// ITrigger: code that runs on the write path and returns more mutations to
// apply with each write of a table that has the trigger.
//
// Cassandra loads a trigger as a Java class from the node's triggers
// directory, by the class name CREATE TRIGGER gives (USING
// 'org.example.AuditTrigger'). A minicass node instead holds a Registry, the
// class names it knows mapped to their Go implementations, handed to it at
// start (minicass.Options.Triggers, cql.Options.Triggers): CREATE TRIGGER
// refuses a class the registry lacks, with Cassandra's text for a class the
// triggers directory lacks.
//
// As in Cassandra (StorageProxy.mutateWithTriggers and TriggerExecutor),
// the triggers of a table run when a statement writes it, in the order
// they were created, each seeing the partition update the statement built
// (one Update per partition and table). The mutations they return are
// validated (key and values, as any write's) and applied with the
// statement's own, which the package cql/statements documents:
//   - a write whose mutations include a counter update fails when a trigger
//     returns any mutation ("Counter mutations and trigger mutations cannot
//     be applied together atomically.");
//   - a lightweight transaction (and a conditional BATCH) takes only
//     mutations of its own table and partition, merged into its update
//     after its conditions held;
//   - an error a trigger returns fails the statement and nothing of it is
//     written: a CQL error (*query.Error) reaches the client as it is, any
//     other becomes a server error, as Cassandra wraps a trigger's
//     exception.
package trigger

import (
	"context"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// Trigger is a trigger's implementation (Cassandra's ITrigger). Augment
// may be called from many goroutines at once, for writes of any table the
// trigger is on: like Cassandra's, which shares one instance per class, a
// Trigger should keep no state of a write.
type Trigger interface {
	// Augment returns the mutations to apply with the update u, or none.
	// u's mutation and the table are read-only and valid only during the
	// call. A returned error fails the write.
	Augment(ctx context.Context, u Update) ([]Mutation, error)
}

// Func adapts a function to the Trigger interface.
type Func func(ctx context.Context, u Update) ([]Mutation, error)

// Augment calls f.
func (f Func) Augment(ctx context.Context, u Update) ([]Mutation, error) { return f(ctx, u) }

// Update is the partition update a trigger sees (Cassandra's Partition
// argument of ITrigger.augment): the table written and the mutation of one
// of its partitions, in the storage model of package data (the partition
// key's serialized bytes, clusterings in their byte-comparable encoding,
// cells with their timestamps; types.Value and types.Decode turn the bytes
// into values).
type Update struct {
	// Table is the table written.
	Table *schema.Table
	// Mutation is the change of one partition of Table.
	Mutation *data.Mutation
	// Timestamp is a fresh write timestamp, in microseconds, from the
	// node's clock (strictly greater than every one it gave before), for
	// the cells of the mutations the trigger returns: where Cassandra's
	// triggers take FBUtilities.timestampMicros(), a trigger of a node on
	// a manual clock stays on that clock.
	Timestamp int64
}

// Mutation is a mutation a trigger returns: the table it changes, by
// keyspace and name, and the change. The mutation's Table field may be
// left zero; when set it must be that table's ID.
type Mutation struct {
	Keyspace, Table string
	Mutation        *data.Mutation
}

// Registry maps the class names CREATE TRIGGER may give to their
// implementations, as the classes of Cassandra's triggers directory. A nil
// Registry knows no class. The executor reads it and never changes it.
type Registry map[string]Trigger

// Lookup returns the trigger registered under class, if any.
func (r Registry) Lookup(class string) (Trigger, bool) {
	t, ok := r[class]
	return t, ok && t != nil
}
