package minicass_test

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/minicass/minicass"
)

// settings is a writable virtual table: a map of names to values, which
// CQL reads, updates (INSERT, UPDATE) and deletes from (DELETE of a row).
type settings struct {
	mu   sync.Mutex
	vals map[string]string
}

func (s *settings) Definition() minicass.VirtualTableDef {
	return minicass.VirtualTableDef{Name: "settings",
		PartitionKey: []minicass.VirtualColumnDef{{Name: "name", Type: "text"}},
		Regular:      []minicass.VirtualColumnDef{{Name: "value", Type: "text"}}}
}

func (s *settings) Rows(context.Context) ([]minicass.VirtualRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []minicass.VirtualRow
	for k, v := range s.vals {
		rows = append(rows, minicass.VirtualRow{"name": k, "value": v})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i]["name"].(string) < rows[j]["name"].(string) })
	return rows, nil
}

// UpdateColumn makes the table accept INSERT and UPDATE.
func (s *settings) UpdateColumn(_ context.Context, pk, _ []any, v *minicass.VirtualColumnValue) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v != nil {
		s.vals[pk[0].(string)] = v.Value.(string)
	}
	return nil
}

// DeletePartition makes the table accept DELETE FROM ... WHERE name = ?.
func (s *settings) DeletePartition(_ context.Context, pk []any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.vals, pk[0].(string))
	return nil
}

// An embedder's virtual keyspace: its tables are Go values that CQL reads
// and writes as Cassandra's virtual tables.
func ExampleOptions_virtualKeyspaces() {
	ctx := context.Background()
	app := &settings{vals: map[string]string{"mode": "fast"}}
	db, err := minicass.Open(minicass.Options{VirtualKeyspaces: []minicass.VirtualKeyspace{
		{Name: "app", Tables: []minicass.VirtualTable{app}},
	}})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := db.Exec(ctx, `INSERT INTO app.settings (name, value) VALUES ('level', 'debug')`); err != nil {
		panic(err)
	}
	if err := db.Exec(ctx, `DELETE FROM app.settings WHERE name = 'mode'`); err != nil {
		panic(err)
	}
	rows := db.Query(ctx, `SELECT name, value FROM app.settings`)
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			panic(err)
		}
		fmt.Println(name, value)
	}
	if err := rows.Err(); err != nil {
		panic(err)
	}
	// TRUNCATE needs VirtualTruncater, which the table does not implement.
	err = db.Exec(ctx, `TRUNCATE app.settings`)
	fmt.Println(err)
	// A virtual keyspace has nothing to flush.
	fmt.Println(db.Flush(ctx, "app", ""))
	// Output:
	// level debug
	// Truncation is not supported by table app.settings
	// Cannot perform any operations against virtual keyspace app
}
