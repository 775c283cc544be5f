package minicasstest_test

import (
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/minicass/minicass/minicasstest"
)

// Example connects gocql to an in-process minicass, writes a row with a TTL
// and lets it expire by moving the server clock.
func Example() {
	srv, err := minicasstest.Run() // in a test: minicasstest.Start(t)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	sess, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()

	for _, q := range []string{
		"CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.sessions (id int PRIMARY KEY, user text)",
		"INSERT INTO app.sessions (id, user) VALUES (1, 'alice') USING TTL 3600",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			log.Fatal(err)
		}
	}
	var user string
	err = sess.Query("SELECT user FROM app.sessions WHERE id = 1").Scan(&user)
	fmt.Println(user, err)

	srv.FastForward(2 * time.Hour)
	err = sess.Query("SELECT user FROM app.sessions WHERE id = 1").Scan(&user)
	fmt.Println(err)
	// Output:
	// alice <nil>
	// not found
}

// ExampleServer_Exec seeds data without the network and reads it back.
func ExampleServer_Exec() {
	srv, err := minicasstest.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	for _, q := range []string{
		"CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.kv (k int PRIMARY KEY, v text)",
		"INSERT INTO app.kv (k, v) VALUES (1, 'one')",
	} {
		if err := srv.Exec(q); err != nil {
			log.Fatal(err)
		}
	}
	rows, err := srv.Rows("SELECT k, v FROM app.kv")
	fmt.Println(rows, err)
	// Output: [[1 one]] <nil>
}
