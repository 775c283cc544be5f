package cql

import (
	"context"
	"encoding/binary"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/trigger"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// conformanceTriggers are the trigger classes of Cassandra's test class
// path that the ported tests create triggers with, as Go triggers
// registered under the Java classes' names (the node's Options.Triggers).
var conformanceTriggers = trigger.Registry{
	// CreateTest.TestTrigger: augment returns no mutation.
	"org.apache.cassandra.cql3.validation.operations.CreateTest$TestTrigger": trigger.Func(func(context.Context, trigger.Update) ([]trigger.Mutation, error) {
		return nil, nil
	}),
	// TriggersTest.TestTrigger: v2 = 999 in the written partition's row.
	"org.apache.cassandra.triggers.TriggersTest$TestTrigger": trigger.Func(func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
		return []trigger.Mutation{setV2(u.Table.Keyspace, u.Table.Name, u, u.Mutation.Key)}, nil
	}),
	// TriggersTest.CrossPartitionTrigger: v2 = 999 in the partition whose
	// int key is the written one's plus 1000.
	"org.apache.cassandra.triggers.TriggersTest$CrossPartitionTrigger": trigger.Func(func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
		key := binary.BigEndian.AppendUint32(nil, binary.BigEndian.Uint32(u.Mutation.Key)+1000)
		return []trigger.Mutation{setV2(u.Table.Keyspace, u.Table.Name, u, key)}, nil
	}),
	// TriggersTest.CrossTableTrigger: v2 = 999 in the same partition of
	// triggers_test_ks.other_table.
	"org.apache.cassandra.triggers.TriggersTest$CrossTableTrigger": trigger.Func(func(_ context.Context, u trigger.Update) ([]trigger.Mutation, error) {
		return []trigger.Mutation{setV2("triggers_test_ks", "other_table", u, u.Mutation.Key)}, nil
	}),
	// TriggersTest.ErrorTrigger: throws an InvalidRequestException.
	"org.apache.cassandra.triggers.TriggersTest$ErrorTrigger": trigger.Func(func(context.Context, trigger.Update) ([]trigger.Mutation, error) {
		return nil, query.Invalidf("Thrown by ErrorTrigger")
	}),
}

// setV2 is TriggersTest's RowUpdateBuilder(metadata, timestampMicros(),
// key).add("v2", 999): the row of partition key (the tables have no
// clustering column) with its primary key liveness and v2 = 999, at the
// node's current time (u.Timestamp) where the Java takes
// FBUtilities.timestampMicros().
func setV2(ks, table string, u trigger.Update, key []byte) trigger.Mutation {
	ts := u.Timestamp
	clustering, _ := types.EncodeClustering(nil, nil)
	row := data.Row{Clustering: clustering, Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
		Deletion: data.LiveDeletion, Cells: []data.Cell{{Column: "v2", Kind: data.CellRegular, Timestamp: ts,
			LocalDeletionTime: data.NoDeletionTime, Value: binary.BigEndian.AppendUint32(nil, 999)}}}
	return trigger.Mutation{Keyspace: ks, Table: table,
		Mutation: &data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}}
}
