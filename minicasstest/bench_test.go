package minicasstest

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per operation since start, client
// and server together: unlike ns/op it hardly moves when other processes
// compete for the CPUs.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e3, "cpu-µs/op")
}

// BenchmarkStart measures Run and Close without a driver: opening the
// in-memory database (the executor creates and fills the system tables),
// announcing the listener's address in system.local, listening.
func BenchmarkStart(b *testing.B) {
	defer reportCPU(b, cpuTime())
	for i := 0; i < b.N; i++ {
		srv, err := Run()
		if err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}

// BenchmarkStartToSession measures the time from Start to a gocql session
// ready for queries (control connection, discovery, pool).
func BenchmarkStartToSession(b *testing.B) {
	defer reportCPU(b, cpuTime())
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

// benchSession starts a server with table app.kv and connects gocql to it.
// With coalesce false, the session is configured as a latency-sensitive
// user would: WriteCoalesceWaitTime = 0. gocql's default (200µs) holds every
// request in a timer before writing it; on Linux an idle Go process wakes
// for such a short timer only at the next millisecond, so each request
// waits about 1 ms.
func benchSession(b *testing.B, coalesce bool) (*Server, *gocql.Session) {
	srv := Start(b)
	srv.MustExec(b, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE app.kv (k int PRIMARY KEY, v text)")
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = "app"
	cluster.Consistency = gocql.One
	cluster.NumConns = 2
	if !coalesce {
		cluster.WriteCoalesceWaitTime = 0
	}
	sess, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sess.Close)
	return srv, sess
}

// benchParallel runs fn from the given number of goroutines, with gocql's
// write coalescing on (its default) and off.
func benchParallel(b *testing.B, goroutines int, fn func(sess *gocql.Session, i int) error) {
	b.Run("coalesce=default", func(b *testing.B) { benchParallelOpts(b, goroutines, true, fn) })
	b.Run("coalesce=off", func(b *testing.B) { benchParallelOpts(b, goroutines, false, fn) })
}

func benchParallelOpts(b *testing.B, goroutines int, coalesce bool, fn func(sess *gocql.Session, i int) error) {
	_, sess := benchSession(b, coalesce)
	for i := 0; i < 200; i++ {
		if err := sess.Query("INSERT INTO kv (k, v) VALUES (?, ?)", i, "seed").Exec(); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	b.SetParallelism((goroutines + 1) / 2) // the machine has 2 cores: 2*ceil(g/2) ≈ g goroutines
	b.ResetTimer()
	defer reportCPU(b, cpuTime())
	if goroutines == 1 {
		for i := 0; i < b.N; i++ {
			if err := fn(sess, i); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
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
