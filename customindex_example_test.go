package minicass_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// auditClass is a custom index class that counts what its indexes are told.
type auditClass struct{}

func (auditClass) NewIndex(t *schema.Table, ix *schema.Index) minicass.CustomIndex {
	return &audit{}
}

// audit is one index: the rows its indexers saw inserted and updated.
type audit struct {
	mu                sync.Mutex
	inserted, updated int
	deletions         int
}

func (a *audit) Indexer(key []byte, now int64) minicass.Indexer { return auditIndexer{a} }

type auditIndexer struct{ a *audit }

func (auditIndexer) Begin()  {}
func (auditIndexer) Finish() {}
func (x auditIndexer) PartitionDelete(data.DeletionTime) {
	x.a.mu.Lock()
	x.a.deletions++
	x.a.mu.Unlock()
}
func (auditIndexer) RangeTombstone(data.RangeTombstone) {}
func (x auditIndexer) InsertRow(*data.Row) {
	x.a.mu.Lock()
	x.a.inserted++
	x.a.mu.Unlock()
}
func (x auditIndexer) UpdateRow(old, new *data.Row) {
	x.a.mu.Lock()
	x.a.updated++
	x.a.mu.Unlock()
}
func (auditIndexer) RemoveRow(*data.Row) {}

// An embedder's index class, registered by name and named by CREATE CUSTOM
// INDEX, sees the write path's rows as Cassandra's Index.Indexer does.
func ExampleIndexClass() {
	ctx := context.Background()
	db, err := minicass.Open(minicass.Options{IndexClasses: map[string]minicass.IndexClass{"com.example.Audit": auditClass{}}})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE shop.orders (id int PRIMARY KEY, total int)",
		"CREATE CUSTOM INDEX audit ON shop.orders (total) USING 'com.example.Audit'",
		"INSERT INTO shop.orders (id, total) VALUES (1, 10)",
		"INSERT INTO shop.orders (id, total) VALUES (2, 20)",
		"UPDATE shop.orders SET total = 11 WHERE id = 1",
		"DELETE FROM shop.orders WHERE id = 2",
	} {
		if err := db.Exec(ctx, q); err != nil {
			panic(err)
		}
	}
	tbl, _ := db.Engine().Table("shop", "orders")
	idx, _ := db.Engine().CustomIndex(tbl, "audit")
	a := idx.(*audit)
	fmt.Println("inserted:", a.inserted, "updated:", a.updated, "partition deletions:", a.deletions)

	err = db.Exec(ctx, "CREATE CUSTOM INDEX ON shop.orders (total) USING 'com.example.Missing'")
	fmt.Println(err)
	// Output:
	// inserted: 2 updated: 1 partition deletions: 1
	// Unable to find custom indexer class 'com.example.Missing'
}
