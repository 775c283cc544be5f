package minicasstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"
)

// shopTemplate is made once per test binary: a schema and 100 seeded
// orders.
var shopTemplate = NewTemplate(func(srv *Server) error {
	if err := srv.ExecScript(`
		CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE shop.orders (customer int, id int, total int, PRIMARY KEY (customer, id));
	`); err != nil {
		return err
	}
	for i := 0; i < 100; i++ {
		if err := srv.Exec("INSERT INTO shop.orders (customer, id, total) VALUES (?, ?, ?)", i%10, i, i*10); err != nil {
			return err
		}
	}
	// Some of the seed is in SSTables, some in memtables.
	if err := srv.Flush(); err != nil {
		return err
	}
	return srv.Exec("UPDATE shop.orders SET total = 1 WHERE customer = 0 AND id = 0")
})

// TestTemplateParallel starts a hundred servers from one template at once:
// each sees the seed, changes it, and sees none of the others' changes.
func TestTemplateParallel(t *testing.T) {
	for i := 0; i < 100; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			srv := shopTemplate.Start(t)
			srv.CheckCount(t, "SELECT * FROM shop.orders", nil, 100)
			srv.CheckRow(t, "SELECT total FROM shop.orders WHERE customer = 0 AND id = 0", nil, 1)
			srv.MustExec(t, fmt.Sprintf("INSERT INTO shop.orders (customer, id, total) VALUES (%d, 1000, 5)", 100+i))
			srv.MustExec(t, "UPDATE shop.orders SET total = 2 WHERE customer = 0 AND id = 0")
			srv.MustExec(t, "DELETE FROM shop.orders WHERE customer = 3")
			if i%10 == 0 {
				require.NoError(t, srv.Flush())
				require.NoError(t, srv.DB().Compact(context.Background(), "shop", "orders"))
			}
			srv.CheckCount(t, "SELECT * FROM shop.orders", nil, 91)
			srv.CheckRow(t, "SELECT total FROM shop.orders WHERE customer = 0 AND id = 0", nil, 2)
			srv.CheckRow(t, "SELECT id, total FROM shop.orders WHERE customer = ? AND id = 1000", []any{100 + i}, 1000, 5)
			srv.CheckCount(t, "SELECT * FROM shop.orders WHERE customer = ? AND id = 1000", []any{100 + (i+1)%100}, 0)
		})
	}
}

// TestTemplateGocql: a gocql session on a server started from a template
// reads the seed and writes; Reset then empties the node, and a restore
// of the template brings the seed back.
func TestTemplateGocql(t *testing.T) {
	srv := shopTemplate.Start(t)
	sess := newSession(t, srv, "shop")
	var total int
	require.NoError(t, sess.Query("SELECT total FROM orders WHERE customer = 4 AND id = 14").Scan(&total))
	require.Equal(t, 140, total)
	require.NoError(t, sess.Query("INSERT INTO orders (customer, id, total) VALUES (4, 14, 7)").Exec())
	srv.CheckRow(t, "SELECT total FROM shop.orders WHERE customer = 4 AND id = 14", nil, 7)

	srv.MustReset(t)
	_, err := srv.Rows("SELECT * FROM shop.orders")
	require.ErrorContains(t, err, "shop")
	// No "keyspace already exists" after a reset.
	srv.MustExec(t, "CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")

	snap, err := shopTemplate.Snapshot()
	require.NoError(t, err)
	require.NoError(t, srv.Restore(snap))
	require.NoError(t, sess.Query("SELECT total FROM orders WHERE customer = 4 AND id = 14").Scan(&total))
	require.Equal(t, 140, total)
}

// TestServerSnapshotAfterFlushAndCompaction snapshots a server, flushes
// and compacts it, changes it, and restores.
func TestServerSnapshotAfterFlushAndCompaction(t *testing.T) {
	srv := Start(t)
	srv.MustExec(t, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.kv (k int PRIMARY KEY, v text)",
		"INSERT INTO app.kv (k, v) VALUES (1, 'one')")
	require.NoError(t, srv.Flush())
	srv.MustExec(t, "INSERT INTO app.kv (k, v) VALUES (2, 'two')")
	snap, err := srv.Snapshot()
	require.NoError(t, err)
	defer snap.Release()
	srv.MustExec(t, "DELETE FROM app.kv WHERE k = 1", "INSERT INTO app.kv (k, v) VALUES (3, 'three')")
	require.NoError(t, srv.Flush())
	require.NoError(t, srv.DB().Compact(context.Background(), "app", "kv"))
	srv.MustExec(t, "DROP TABLE app.kv")
	require.NoError(t, srv.Restore(snap))
	srv.CheckCount(t, "SELECT * FROM app.kv", nil, 2)
	srv.CheckRow(t, "SELECT v FROM app.kv WHERE k = 1", nil, "one")
	srv.CheckRow(t, "SELECT v FROM app.kv WHERE k = 2", nil, "two")
}

// TestTemplateSetupError: a failing setup fails Run with its error.
func TestTemplateSetupError(t *testing.T) {
	tpl := NewTemplate(func(srv *Server) error { return srv.Exec("CREATE TABLE nowhere.t (k int PRIMARY KEY)") })
	_, err := tpl.Run()
	require.ErrorContains(t, err, "template setup")
	require.ErrorContains(t, err, "nowhere")
	tpl.Close()
	ok := NewTemplate(func(*Server) error { return nil })
	srv, err := ok.Run()
	require.NoError(t, err)
	srv.Close()
	ok.Close()
	_, err = ok.Run()
	require.ErrorContains(t, err, "closed")
}

// BenchmarkTemplateToSession measures a test's start from a template: a
// server in the template's state and a gocql session ready for queries.
func BenchmarkTemplateToSession(b *testing.B) {
	defer reportCPU(b, cpuTime())
	if _, err := shopTemplate.Snapshot(); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		srv, err := shopTemplate.Run()
		if err != nil {
			b.Fatal(err)
		}
		cluster := gocql.NewCluster(srv.Host())
		cluster.Port = srv.Port()
		cluster.Timeout = 5 * time.Second
		sess, err := cluster.CreateSession()
		if err != nil {
			b.Fatal(err)
		}
		sess.Close()
		srv.Close()
	}
}

// BenchmarkTemplateStart measures a server's start from a template alone.
func BenchmarkTemplateStart(b *testing.B) {
	if _, err := shopTemplate.Snapshot(); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		srv, err := shopTemplate.Run()
		if err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}
