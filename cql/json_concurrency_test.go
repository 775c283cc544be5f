package cql

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
)

// TestSelectJSONConcurrentReads is JsonTest.testJsonThreadSafety
// (CASSANDRA-11048, a JSON formatter shared between requests): ten sessions
// each run 5,000 prepared SELECT JSON point reads of random keys of a
// 5,000-row table at the same time, and every answer must be its own row's
// JSON. The conformance script ports the method with the harness's each and
// threads loops (testdata/cassandra/entities/JsonTest); this test checks the
// same with random keys, each goroutine from its own fixed seed where the
// Java shares one clock-seeded Random, and is the one to run with -race.
func TestSelectJSONConcurrentReads(t *testing.T) {
	const numThreads, numRows = 10, 5000
	ctx := context.Background()
	s := newConformanceSession(t, engine.Options{}, Options{})
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k text PRIMARY KEY, v text)",
	} {
		_, err := s.Query(ctx, q, &query.Params{})
		require.NoError(t, err)
	}
	ins, err := s.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)")
	require.NoError(t, err)
	for i := 0; i < numRows; i++ {
		key := []byte(strconv.Itoa(i))
		_, err := s.ExecutePrepared(ctx, ins, &query.Params{Values: []query.Value{{Bytes: key}, {Bytes: key}}})
		require.NoError(t, err)
	}
	sel, err := s.Prepare(ctx, "SELECT JSON * FROM ks.t WHERE k = ?")
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make(chan error, numThreads)
	for w := 0; w < numThreads; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			session := s.Executor().NewSession()
			rnd := rand.New(rand.NewSource(seed))
			for i := 0; i < numRows; i++ {
				key := strconv.Itoa(rnd.Intn(numRows))
				res, err := session.ExecutePrepared(ctx, sel, &query.Params{Values: []query.Value{{Bytes: []byte(key)}}})
				if err != nil {
					errs <- err
					return
				}
				want := fmt.Sprintf(`{"k": "%s", "v": "%s"}`, key, key)
				if len(res.Rows) != 1 || len(res.Rows[0]) != 1 || string(res.Rows[0][0]) != want {
					errs <- fmt.Errorf("key %s: got %q, want one row %s", key, res.Rows, want)
					return
				}
			}
		}(int64(w + 1))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
