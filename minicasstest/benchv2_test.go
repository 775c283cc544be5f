package minicasstest

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"
)

// BenchmarkGocqlV2 measures prepared INSERT and SELECT throughput over
// gocql v2 at protocol v4 and v5, with and without lz4, at 1 and 64
// goroutines. mallocs/op counts the process's allocations per request,
// driver and server together.
func BenchmarkGocqlV2(b *testing.B) {
	for _, proto := range []int{4, 5} {
		for _, comp := range []string{"plain", "lz4"} {
			for _, op := range []string{"insert", "select"} {
				for _, par := range []int{1, 64} {
					b.Run(fmt.Sprintf("v%d/%s/%s/g%d", proto, comp, op, par), func(b *testing.B) {
						benchV2(b, proto, comp == "lz4", op, par)
					})
				}
			}
		}
	}
}

func benchV2(b *testing.B, proto int, compress bool, op string, par int) {
	srv, err := Run()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	srv.MustExec(b, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	srv.MustExec(b, "CREATE TABLE app.kv (k int PRIMARY KEY, v text)")
	cluster := gocql.NewCluster(srv.Host())
	cluster.Port = srv.Port()
	cluster.Keyspace = "app"
	cluster.ProtoVersion = proto
	cluster.Timeout = 10 * time.Second
	cluster.WriteCoalesceWaitTime = 0
	cluster.NumConns = 1
	if compress {
		cluster.Compressor = lz4.LZ4Compressor{}
	}
	sess, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	for i := range 100 {
		if err := sess.Query("INSERT INTO kv (k, v) VALUES (?, ?)", i, "value-value-value-value").Exec(); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	run := func() error {
		i := int(next.Add(1))
		if op == "insert" {
			return sess.Query("INSERT INTO kv (k, v) VALUES (?, ?)", i%1000, "value-value-value-value").Exec()
		}
		var v string
		return sess.Query("SELECT v FROM kv WHERE k = ?", i%100).Scan(&v)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	b.SetParallelism(par)
	b.ResetTimer()
	if par == 1 {
		for b.Loop() {
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.SetParallelism(par / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := run(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(b.N), "mallocs/op")
}
