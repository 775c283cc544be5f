package minicasstest

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// BenchmarkStartToSession measures the time from Start to a gocql session
// ready for queries (control connection, discovery, pool).
func BenchmarkStartToSession(b *testing.B) {
	for i := 0; i < b.N; i++ {
		srv, err := Run()
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

func benchSession(b *testing.B) (*Server, *gocql.Session) {
	srv := Start(b)
	srv.MustExec(b, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.kv (k int PRIMARY KEY, v text)")
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = "app"
	cluster.Consistency = gocql.One
	cluster.NumConns = 2
	sess, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sess.Close)
	return srv, sess
}

func benchParallel(b *testing.B, goroutines int, fn func(sess *gocql.Session, i int) error) {
	_, sess := benchSession(b)
	for i := 0; i < 200; i++ {
		if err := sess.Query("INSERT INTO kv (k, v) VALUES (?, ?)", i, "seed").Exec(); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	b.SetParallelism((goroutines + 1) / 2) // the machine has 2 cores: 2*ceil(g/2) ≈ g goroutines
	if goroutines == 1 {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := fn(sess, i); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fn(sess, int(n.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func insert(sess *gocql.Session, i int) error {
	return sess.Query("INSERT INTO kv (k, v) VALUES (?, ?)", i%200, "value").Exec()
}

func selectOne(sess *gocql.Session, i int) error {
	var v string
	return sess.Query("SELECT v FROM kv WHERE k = ?", i%200).Scan(&v)
}

func BenchmarkPreparedInsert1(b *testing.B)  { benchParallel(b, 1, insert) }
func BenchmarkPreparedInsert64(b *testing.B) { benchParallel(b, 64, insert) }
func BenchmarkPreparedSelect1(b *testing.B)  { benchParallel(b, 1, selectOne) }
func BenchmarkPreparedSelect64(b *testing.B) { benchParallel(b, 64, selectOne) }
