package minicass_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/minicass/minicass"
)

func mustOpen(opts minicass.Options) *minicass.DB {
	db, err := minicass.Open(opts)
	if err != nil {
		panic(err)
	}
	return db
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// Open an in-memory database, create a table and read a partition back in
// clustering order.
func Example() {
	ctx := context.Background()
	db := mustOpen(minicass.Options{}) // in memory: nothing touches the disk
	defer db.Close()

	must(db.Exec(ctx, `CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	must(db.Exec(ctx, `CREATE TABLE shop.orders (
		customer text, placed timestamp, total decimal,
		PRIMARY KEY (customer, placed)
	) WITH CLUSTERING ORDER BY (placed DESC)`))
	for i, total := range []string{"10.50", "7.25", "99.00"} {
		placed := time.Date(2024, 1, 15+i, 9, 0, 0, 0, time.UTC)
		must(db.Exec(ctx, `INSERT INTO shop.orders (customer, placed, total) VALUES (?, ?, ?)`, "ada", placed, total))
	}

	rows := db.Query(ctx, `SELECT placed, total FROM shop.orders WHERE customer = 'ada'`)
	for rows.Next() {
		var placed time.Time
		var total string
		must(rows.Scan(&placed, &total))
		fmt.Println(placed.Format(time.DateOnly), total)
	}
	must(rows.Err())

	err := db.Exec(ctx, `SELECT * FROM shop.orders WHERE total > 10`)
	fmt.Println(errors.Is(err, minicass.ErrInvalid))
	// Output:
	// 2024-01-17 99.00
	// 2024-01-16 7.25
	// 2024-01-15 10.50
	// true
}

// A manual clock makes TTLs expire without waiting.
func Example_ttl() {
	ctx := context.Background()
	clock := minicass.NewManualClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	db := mustOpen(minicass.Options{Clock: clock})
	defer db.Close()

	must(db.Exec(ctx, `CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	must(db.Exec(ctx, `CREATE TABLE app.sessions (id text PRIMARY KEY, user text)`))
	must(db.Exec(ctx, `INSERT INTO app.sessions (id, user) VALUES ('s1', 'ada') USING TTL 3600`))

	count := func() int64 {
		var n int64
		must(db.Query(ctx, `SELECT count(*) FROM app.sessions`).ScanOne(&n))
		return n
	}
	var ttl int32
	must(db.Query(ctx, `SELECT TTL(user) FROM app.sessions WHERE id = 's1'`).ScanOne(&ttl))
	fmt.Println("rows:", count(), "ttl:", ttl)

	clock.Advance(59 * time.Minute)
	fmt.Println("after 59 minutes:", count())
	clock.Advance(time.Minute)
	fmt.Println("after an hour:", count())
	// Output:
	// rows: 1 ttl: 3600
	// after 59 minutes: 1
	// after an hour: 0
}

// Prepare a statement once and run it with different values; Named binds by
// marker name and Unset leaves a column as it is.
func ExampleSession_Prepare() {
	ctx := context.Background()
	db := mustOpen(minicass.Options{})
	defer db.Close()
	s := db.Session()
	must(s.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	must(s.Exec(ctx, `USE ks`))
	must(s.Exec(ctx, `CREATE TABLE users (id int PRIMARY KEY, name text, tags set<text>)`))

	ins, err := s.Prepare(ctx, `INSERT INTO users (id, name, tags) VALUES (?, ?, ?)`)
	must(err)
	for _, c := range ins.Bind() {
		fmt.Printf("%s %s\n", c.Name, c.Type)
	}
	must(ins.Exec(ctx, 1, "ada", []string{"admin", "dev"}))
	must(ins.Exec(ctx, 2, "bob", nil))
	must(ins.Exec(ctx, minicass.Named("id", 1), minicass.Named("name", "ada lovelace"), minicass.Named("tags", minicass.Unset)))

	sel, err := s.Prepare(ctx, `SELECT name, tags FROM users WHERE id = :id`)
	must(err)
	for _, id := range []int{1, 2} {
		var name string
		var tags []string
		must(sel.Query(ctx, minicass.Named("id", id)).ScanOne(&name, &tags))
		fmt.Println(name, tags, tags == nil)
	}
	// Output:
	// id int
	// name text
	// tags set<text>
	// ada lovelace [admin dev] false
	// bob [] true
}

// Fetch a partition page by page with an opaque paging state.
func ExampleRows_PagingState() {
	ctx := context.Background()
	db := mustOpen(minicass.Options{})
	defer db.Close()
	must(db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	must(db.Exec(ctx, `CREATE TABLE ks.events (day text, seq int, PRIMARY KEY (day, seq))`))
	for i := range 5 {
		must(db.Exec(ctx, `INSERT INTO ks.events (day, seq) VALUES ('mon', ?)`, i))
	}

	var state []byte
	for page := 1; ; page++ {
		rows := db.Query(ctx, `SELECT seq FROM ks.events WHERE day = 'mon'`, minicass.PageSize(2), minicass.PagingState(state))
		var seqs []int
		for rows.Next() {
			var seq int
			must(rows.Scan(&seq))
			seqs = append(seqs, seq)
		}
		must(rows.Err())
		fmt.Println("page", page, seqs)
		if state = rows.PagingState(); state == nil {
			break
		}
	}
	// Output:
	// page 1 [0 1]
	// page 2 [2 3]
	// page 3 [4]
}

// Iterate with range over the rows, reading them as maps.
func ExampleRows_All() {
	ctx := context.Background()
	db := mustOpen(minicass.Options{})
	defer db.Close()
	must(db.Exec(ctx, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`))
	must(db.Exec(ctx, `CREATE TABLE ks.kv (k text PRIMARY KEY, v text, m map<text, int>)`))
	must(db.Exec(ctx, `INSERT INTO ks.kv (k, v, m) VALUES ('a', 'x', {'x': 1, 'y': 2})`, minicass.WithTimestamp(1000)))

	for row, err := range db.Query(ctx, `SELECT k, m, writetime(v) AS wt FROM ks.kv`).All() {
		must(err)
		fmt.Println(row)
		fmt.Println(row.Map()["wt"])
	}
	// Output:
	// k='a' m={'x': 1, 'y': 2} wt=1000
	// 1000
}
