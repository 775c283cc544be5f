package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/engine"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, rewriting it with -rewrite.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewrite {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// fixedResults are results with made-up figures, for the output formats.
func fixedResults() []Result {
	return []Result{
		{Workload: "narrow-write", Params: "partitions=100000",
			Subject: Measurement{Store: "engine", Ops: 100000, Elapsed: 250 * time.Millisecond, OpsPerSec: 400000,
				Mean: 2500, P50: 1408, P99: 10240, Max: 3 * time.Millisecond},
			Peer: &Measurement{Store: "btree", Ops: 100000, Elapsed: 50 * time.Millisecond, OpsPerSec: 2000000,
				Mean: 500, P50: 256, P99: 2560, Max: 90 * time.Microsecond},
			Ratio: 5},
		{Workload: "latest-n-reverse", Params: "width=100000 n=10 ops=100000", Flushed: true,
			Subject: Measurement{Store: "cql", Ops: 5000, Elapsed: 2 * time.Second, OpsPerSec: 2500,
				Mean: 400 * time.Microsecond, P50: 65500 * time.Nanosecond, P99: 5770 * time.Microsecond, Max: 1500 * time.Millisecond}},
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, "table", fixedResults()))
	golden(t, "table.txt", b.Bytes())
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, "json", fixedResults()))
	golden(t, "results.json", b.Bytes())

	var back []Result
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	assert.Equal(t, fixedResults(), back)

	b.Reset()
	require.NoError(t, Write(&b, "json", nil))
	assert.Equal(t, "[]\n", b.String())
}

func TestWriteUnknownFormat(t *testing.T) {
	err := Write(&bytes.Buffer{}, "csv", nil)
	assert.ErrorIs(t, err, ErrUnknownFormat)
}

func TestFormatters(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0.00"}, {7.5, "7.50"}, {999, "999"}, {1000, "1.00k"}, {812345, "812k"}, {1_580_000, "1.58M"}, {25e6, "25.0M"}} {
		assert.Equal(t, c.want, formatRate(c.v), "rate %g", c.v)
	}
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0ns"}, {999, "999ns"}, {1234, "1.23µs"}, {65500, "65.5µs"}, {5770 * time.Microsecond, "5.77ms"},
		{1500 * time.Millisecond, "1.50s"}} {
		assert.Equal(t, c.want, formatLatency(c.d), "latency %d", c.d)
	}
	assert.Equal(t, "-", formatRatio(0))
	assert.Equal(t, "1.87x", formatRatio(1.8666))
}

func TestValidate(t *testing.T) {
	ok := DefaultConfig()
	require.NoError(t, ok.Validate())
	for _, c := range []struct {
		name   string
		change func(c *Config)
		want   error
	}{
		{"workload", func(c *Config) { c.Workloads = []string{"narrow-write", "nope"} }, ErrUnknownWorkload},
		{"store", func(c *Config) { c.Store = "none" }, ErrUnknownStore},
		{"peer", func(c *Config) { c.Peer = "redis" }, ErrUnknownStore},
		{"partitions", func(c *Config) { c.Partitions = 0 }, ErrInvalidConfig},
		{"n", func(c *Config) { c.N = -1 }, ErrInvalidConfig},
		{"value", func(c *Config) { c.ValueSize = -1 }, ErrInvalidConfig},
		{"duration", func(c *Config) { c.Duration = -time.Second }, ErrInvalidConfig},
		{"fraction", func(c *Config) { c.ReadFraction = 1.5 }, ErrInvalidConfig},
	} {
		cfg := DefaultConfig()
		c.change(&cfg)
		assert.ErrorIs(t, cfg.Validate(), c.want, c.name)
		_, err := Run(context.Background(), cfg, nil)
		assert.ErrorIs(t, err, c.want, c.name)
	}
}

// tinyConfig runs every workload in a few milliseconds.
func tinyConfig() Config {
	c := DefaultConfig()
	c.Partitions, c.WidePartitions, c.Rows, c.Width, c.N, c.Ops = 50, 3, 7, 40, 10, 30
	return c
}

// TestRunCounts checks that every workload does exactly the operations its
// configuration asks for, on each store and with each peer.
func TestRunCounts(t *testing.T) {
	want := map[string]int{"narrow-write": 50, "wide-write": 21, "point-read": 30, "latest-n": 30,
		"latest-n-reverse": 30, "mixed": 30}
	for _, pair := range [][2]string{{StoreEngine, StoreBTree}, {StoreCQL, StoreEngine}, {StoreBTree, StoreNone}} {
		for _, flush := range []bool{false, true} {
			c := tinyConfig()
			c.Store, c.Peer, c.Flush = pair[0], pair[1], flush
			var phases []string
			res, err := Run(context.Background(), c, func(s string) { phases = append(phases, s) })
			require.NoError(t, err, "%v flush=%v", pair, flush)
			require.Len(t, res, len(Workloads))
			for i, r := range res {
				assert.Equal(t, Workloads[i].Name, r.Workload)
				assert.Equal(t, want[r.Workload], r.Subject.Ops, "%s on %s", r.Workload, pair[0])
				assert.Equal(t, pair[0], r.Subject.Store)
				assert.Equal(t, flush && Workloads[i].reads, r.Flushed)
				assert.LessOrEqual(t, r.Subject.P50, r.Subject.P99)
				assert.LessOrEqual(t, r.Subject.P99, r.Subject.Max)
				if pair[1] == StoreNone {
					assert.Nil(t, r.Peer)
					assert.Zero(t, r.Ratio)
					continue
				}
				require.NotNil(t, r.Peer)
				assert.Equal(t, pair[1], r.Peer.Store)
				assert.Equal(t, r.Subject.Ops, r.Peer.Ops)
				assert.Greater(t, r.Ratio, 0.0)
			}
			wantPhases := 6
			if pair[1] != StoreNone {
				wantPhases = 12
			}
			assert.Len(t, phases, wantPhases)
		}
	}
}

// TestRunSelectedDurable runs two named workloads in order on a durable
// store and checks that the store's data directories are removed.
func TestRunSelectedDurable(t *testing.T) {
	dir := t.TempDir()
	c := tinyConfig()
	c.Workloads = []string{"latest-n-reverse", "narrow-write"}
	c.Dir, c.Flush, c.Peer = dir, true, StoreCQL
	res, err := Run(context.Background(), c, nil)
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Equal(t, "latest-n-reverse", res[0].Workload)
	assert.Equal(t, "narrow-write", res[1].Workload)
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left)
}

// TestRunDuration checks that a deadline ends a phase early: with an
// impossible op count and a tiny duration the run still finishes, having done
// at least one operation.
func TestRunDuration(t *testing.T) {
	c := tinyConfig()
	c.Workloads = []string{"point-read"}
	c.Ops, c.Duration, c.Peer = 1<<40, time.Millisecond, StoreNone
	res, err := Run(context.Background(), c, nil)
	require.NoError(t, err)
	assert.Positive(t, res[0].Subject.Ops)
	assert.Less(t, res[0].Subject.Ops, 1<<40)
}

// TestStoresAgree writes the same rows to every store and checks that reads
// return the same counts, and that the engine store's mutation is the row
// the CQL layer writes for the same INSERT.
func TestStoresAgree(t *testing.T) {
	ctx := context.Background()
	var stores []Store
	for _, kind := range []string{StoreEngine, StoreCQL, StoreBTree} {
		s, err := OpenStore(kind, StoreOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		assert.Equal(t, kind, s.Name())
		stores = append(stores, s)
	}
	for _, s := range stores {
		for c := int64(-5); c < 5; c++ {
			require.NoError(t, s.Write(ctx, 7, c, []byte("v")))
		}
		require.NoError(t, s.Write(ctx, -1, 0, []byte("w")))
	}
	for _, s := range stores {
		for _, q := range []struct {
			k       int64
			limit   int
			reverse bool
			want    int
		}{{7, 0, false, 10}, {7, 3, true, 3}, {-1, 0, false, 1}, {8, 0, false, 0}, {7, 100, true, 10}} {
			n, err := s.Read(ctx, q.k, q.limit, q.reverse)
			require.NoError(t, err)
			assert.Equal(t, q.want, n, "%s %+v", s.Name(), q)
		}
		require.NoError(t, s.Flush(ctx))
		n, err := s.Read(ctx, 7, 0, true)
		require.NoError(t, err)
		assert.Equal(t, 10, n, "%s after flush", s.Name())
	}

	// The engine store's hand-built row equals the CQL layer's, timestamps
	// aside.
	es := stores[0].(*EngineStore)
	cs := stores[1].(*CQLStore)
	rowOf := func(eng *engine.Engine, reverse bool) [][]byte {
		tbl, ok := eng.Table("bench", "t")
		require.True(t, ok)
		p, err := eng.ReadPartition(ctx, tbl, Key(7), engine.ReadOptions{Limit: 2, Reverse: reverse})
		require.NoError(t, err)
		defer p.Close()
		var out [][]byte
		for {
			r, ok := p.Next()
			if !ok {
				break
			}
			out = append(out, slices.Clone(r.Clustering))
			require.Len(t, r.Cells, 1)
			assert.Equal(t, "v", r.Cells[0].Column)
			assert.False(t, r.Liveness.IsEmpty(), "INSERT sets the row liveness")
			out = append(out, slices.Clone(r.Cells[0].Value))
		}
		return out
	}
	eng, _ := es.Engine()
	for _, reverse := range []bool{false, true} {
		assert.Equal(t, rowOf(cs.DB().Engine(), reverse), rowOf(eng, reverse))
	}
}

func TestOpenStoreUnknown(t *testing.T) {
	_, err := OpenStore("sqlite", StoreOptions{})
	assert.ErrorIs(t, err, ErrUnknownStore)
}

func TestHistogramSmall(t *testing.T) {
	var h Histogram
	assert.Zero(t, h.Quantile(0.5))
	assert.Zero(t, h.Mean())
	for _, v := range []time.Duration{1, 2, 3, 4, 100} {
		h.Record(v)
	}
	h.Record(-5) // counts as 0
	assert.Equal(t, 6, h.Count())
	assert.Equal(t, time.Duration(0), h.Quantile(0))
	assert.Equal(t, time.Duration(2), h.Quantile(0.5))
	assert.Equal(t, time.Duration(100), h.Quantile(1)) // bucket [96, 104) capped at max 100
	assert.Equal(t, time.Duration(110/6), h.Mean())
	assert.Equal(t, time.Duration(100), h.Max())
}

// TestHistogramQuantiles checks, for random latencies, that every quantile
// is within the bucket error (1/16) below the exact order statistic, and
// that merging two histograms equals recording everything in one.
func TestHistogramQuantiles(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOfN(rapid.Int64Range(0, 1<<40), 1, 500).Draw(t, "vals")
		split := rapid.IntRange(0, len(vals)).Draw(t, "split")
		q := rapid.Float64Range(0, 1).Draw(t, "q")
		var all, a, b Histogram
		for i, v := range vals {
			all.Record(time.Duration(v))
			if i < split {
				a.Record(time.Duration(v))
			} else {
				b.Record(time.Duration(v))
			}
		}
		a.Merge(&b)
		if a != all {
			t.Fatalf("merged histogram differs")
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		rank := int(q * float64(len(sorted)))
		if float64(rank) < q*float64(len(sorted)) || rank == 0 {
			rank++
		}
		exact := sorted[rank-1]
		got := int64(all.Quantile(q))
		if got > exact || float64(got) < float64(exact)*(1-1.0/16)-1 {
			t.Fatalf("quantile %g: got %d, exact %d", q, got, exact)
		}
	})
}

func TestBucketEdges(t *testing.T) {
	for i := 0; i < histBuckets; i++ {
		lo := bucketLow(i)
		require.Equal(t, i, bucketOf(lo), "low edge of bucket %d", i)
		if i > 0 {
			require.Equal(t, i-1, bucketOf(lo-1), "value before bucket %d", i)
		}
	}
	assert.Equal(t, histBuckets-1, bucketOf(^uint64(0)))
}

func TestErrorsAreDistinct(t *testing.T) {
	errs := []error{ErrUnknownWorkload, ErrUnknownStore, ErrInvalidConfig, ErrShortRead, ErrUnknownFormat}
	for i, a := range errs {
		for j, b := range errs {
			assert.Equal(t, i == j, errors.Is(a, b))
		}
	}
}
