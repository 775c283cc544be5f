package minicass

import "github.com/minicass/minicass/cql/trigger"

// Triggers an embedder writes in Go (Options.Triggers), Cassandra's
// ITrigger. The types are package cql/trigger's, which documents them.
type (
	// Trigger is a trigger's implementation: Augment returns the
	// mutations to apply with a write of a table the trigger is on.
	Trigger = trigger.Trigger
	// TriggerFunc adapts a function to Trigger.
	TriggerFunc = trigger.Func
	// TriggerUpdate is the partition update a trigger sees: the table and
	// the mutation of one of its partitions.
	TriggerUpdate = trigger.Update
	// TriggerMutation is a mutation a trigger returns, with the keyspace
	// and table it writes.
	TriggerMutation = trigger.Mutation
)
