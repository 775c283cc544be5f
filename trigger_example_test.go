package minicass_test

import (
	"context"
	"fmt"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// auditTrigger records each written partition of its table in shop.audit:
// the order's id (the partition key's bytes, an int) and the time of the
// write, in the same write as the order's, as a Cassandra trigger adds its
// mutations to the write it augments.
func auditTrigger(_ context.Context, u minicass.TriggerUpdate) ([]minicass.TriggerMutation, error) {
	ts := u.Timestamp
	clustering, err := types.EncodeClustering(nil, nil) // audit has no clustering column
	if err != nil {
		return nil, err
	}
	row := data.NewRow(clustering)
	row.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
	row.Cells = []data.Cell{{Column: "seen", Kind: data.CellRegular, Timestamp: ts,
		LocalDeletionTime: data.NoDeletionTime, Value: []byte{1}}} // boolean true
	return []minicass.TriggerMutation{{Keyspace: "shop", Table: "audit",
		Mutation: &data.Mutation{Key: u.Mutation.Key, PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}}}, nil
}

// A trigger written in Go and registered under a class name, which CREATE
// TRIGGER names as Cassandra's names a Java class of its triggers
// directory.
func ExampleOptions_triggers() {
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{Triggers: map[string]minicass.Trigger{
		"com.example.AuditTrigger": minicass.TriggerFunc(auditTrigger),
	}})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE shop.orders (id int PRIMARY KEY, total decimal)`,
		`CREATE TABLE shop.audit (id int PRIMARY KEY, seen boolean)`,
		`CREATE TRIGGER audit ON shop.orders USING 'com.example.AuditTrigger'`,
		`INSERT INTO shop.orders (id, total) VALUES (7, 9.99)`,
	} {
		if err := db.Exec(ctx, q); err != nil {
			panic(err)
		}
	}
	rows := db.Query(ctx, `SELECT id, seen FROM shop.audit`)
	for rows.Next() {
		var id int
		var seen bool
		if err := rows.Scan(&id, &seen); err != nil {
			panic(err)
		}
		fmt.Println(id, seen)
	}
	if err := rows.Err(); err != nil {
		panic(err)
	}
	// A class the node was not given cannot be loaded.
	fmt.Println(db.Exec(ctx, `CREATE TRIGGER other ON shop.orders USING 'com.example.Missing'`))
	// Output:
	// 7 true
	// Trigger class 'com.example.Missing' couldn't be loaded
}
