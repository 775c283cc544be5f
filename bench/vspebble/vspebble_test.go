package vspebble

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// The rows: partition key "p0000042" (text), clustering c (int), value v
// (20 bytes).
const (
	narrowPartitions = 100_000
	cacheSize        = 32 << 20 // both block caches (minicass's default)
)

var value = []byte("0123456789abcdefghij")

func narrowKey(i int) string { return fmt.Sprintf("p%07d", i) }

// widths are the partitions of the latest-10 reads.
var widths = []int{1_000, 100_000}

func wideKey(width int) string { return fmt.Sprintf("wide%d", width) }

var tmpRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vspebble-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpRoot = dir
	code := m.Run()
	closeFixtures()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// rows calls fn for every row of the fixture: the narrow partitions, then
// each wide partition in clustering order.
func rows(fn func(k string, c int32) error) error {
	for i := range narrowPartitions {
		if err := fn(narrowKey(i), 0); err != nil {
			return err
		}
	}
	for _, w := range widths {
		for c := range w {
			if err := fn(wideKey(w), int32(c)); err != nil {
				return err
			}
		}
	}
	return nil
}

// minicassFixture is a reopened minicass database whose rows are all in
// SSTables.
type minicassFixture struct {
	db  *minicass.DB
	eng *engine.Engine
	tbl *schema.Table
}

var (
	mcFix *minicassFixture
	pbFix *pebble.DB
)

func closeFixtures() {
	if mcFix != nil {
		_ = mcFix.db.Close()
	}
	if pbFix != nil {
		_ = pbFix.Close()
	}
}

func openMinicass(b *testing.B) *minicassFixture {
	if mcFix != nil {
		return mcFix
	}
	ctx := context.Background()
	dir := filepath.Join(tmpRoot, "minicass")
	opts := minicass.Options{Dir: dir, CommitLogSync: minicass.SyncNone, MemtableSize: 1 << 40, BlockCacheSize: cacheSize}
	db, err := minicass.Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE bench.kv (k text, c int, v blob, PRIMARY KEY (k, c))`,
	} {
		if err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	eng := db.Engine()
	tbl, _ := eng.Table("bench", "kv")
	ckTypes := tbl.ClusteringTypes()
	err = rows(func(k string, c int32) error {
		ck, err := types.EncodeClustering(ckTypes, [][]byte{binary.BigEndian.AppendUint32(nil, uint32(c))})
		if err != nil {
			return err
		}
		ts := eng.NewTimestamp()
		m := &data.Mutation{Table: tbl.ID, Key: []byte(k), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{{
			Clustering: ck, Deletion: data.LiveDeletion,
			Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
			Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: value}},
		}}}
		return eng.Apply(ctx, tbl, m)
	})
	if err == nil {
		err = db.Flush(ctx, "bench", "kv")
	}
	if err == nil {
		err = db.Close()
	}
	if err == nil {
		db, err = minicass.Open(opts)
	}
	if err != nil {
		b.Fatal(err)
	}
	eng = db.Engine()
	tbl, _ = eng.Table("bench", "kv")
	mcFix = &minicassFixture{db: db, eng: eng, tbl: tbl}
	return mcFix
}

// pebbleKey is k, a 0 byte, then c big-endian with its sign bit flipped
// (so that keys sort as (k, c)).
func pebbleKey(dst []byte, k string, c int32) []byte {
	dst = append(dst, k...)
	dst = append(dst, 0)
	return binary.BigEndian.AppendUint32(dst, uint32(c)^0x80000000)
}

func openPebble(b *testing.B) *pebble.DB {
	if pbFix != nil {
		return pbFix
	}
	dir := filepath.Join(tmpRoot, "pebble")
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref()
	opts := func() *pebble.Options { return &pebble.Options{Cache: cache} }
	db, err := pebble.Open(dir, opts())
	if err != nil {
		b.Fatal(err)
	}
	var key []byte
	err = rows(func(k string, c int32) error {
		key = pebbleKey(key[:0], k, c)
		return db.Set(key, value, pebble.NoSync)
	})
	if err == nil {
		err = db.Flush()
	}
	if err == nil {
		err = db.Close()
	}
	if err == nil {
		db, err = pebble.Open(dir, opts())
	}
	if err != nil {
		b.Fatal(err)
	}
	pbFix = db
	return db
}

// BenchmarkPointRead reads one random narrow partition of 100,000, all in
// SSTables: minicass's engine.ReadPartition (the whole partition: one row)
// against pebble's Get of the row's key, and against a pebble iterator
// bounded to the partition's prefix (what a partition read is in a KV
// store).
func BenchmarkPointRead(b *testing.B) {
	ctx := context.Background()
	b.Run("store=minicass", func(b *testing.B) {
		f := openMinicass(b)
		rng := rand.New(rand.NewPCG(1, 1))
		keys := make([][]byte, narrowPartitions)
		for i := range keys {
			keys[i] = []byte(narrowKey(i))
		}
		read := func(key []byte) {
			p, err := f.eng.ReadPartition(ctx, f.tbl, key, engine.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				if _, ok := p.Next(); !ok {
					break
				}
				n++
			}
			if err := p.Close(); err != nil || n != 1 {
				b.Fatalf("read %d rows: %v", n, err)
			}
			p.Release()
		}
		for _, k := range keys { // hot: every partition read once
			read(k)
		}
		b.ReportAllocs()
		for b.Loop() {
			read(keys[rng.IntN(narrowPartitions)])
		}
	})
	b.Run("store=pebble-get", func(b *testing.B) {
		db := openPebble(b)
		rng := rand.New(rand.NewPCG(1, 1))
		keys := make([][]byte, narrowPartitions)
		for i := range keys {
			keys[i] = pebbleKey(nil, narrowKey(i), 0)
		}
		get := func(key []byte) {
			v, closer, err := db.Get(key)
			if err != nil || len(v) != len(value) {
				b.Fatalf("get: %v", err)
			}
			_ = closer.Close()
		}
		for _, k := range keys { // hot: every partition read once
			get(k)
		}
		b.ReportAllocs()
		for b.Loop() {
			get(keys[rng.IntN(narrowPartitions)])
		}
	})
	b.Run("store=pebble-iter", func(b *testing.B) {
		db := openPebble(b)
		rng := rand.New(rand.NewPCG(1, 1))
		bounds := make([][2][]byte, narrowPartitions)
		for i := range bounds {
			k := narrowKey(i)
			bounds[i] = [2][]byte{append([]byte(k), 0), append([]byte(k), 1)}
		}
		for i := range bounds { // hot: every partition read once
			pebbleRead(b, db, bounds[i][0], bounds[i][1], 0, false)
		}
		b.ReportAllocs()
		for b.Loop() {
			bd := &bounds[rng.IntN(narrowPartitions)]
			if n := pebbleRead(b, db, bd[0], bd[1], 0, false); n != 1 {
				b.Fatalf("read %d rows", n)
			}
		}
	})
}

// pebbleRead reads up to limit rows (0: all) of [lo, hi), forward or
// reverse, and returns how many it read.
func pebbleRead(b *testing.B, db *pebble.DB, lo, hi []byte, limit int, reverse bool) int {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	var ok bool
	if reverse {
		ok = it.Last()
	} else {
		ok = it.First()
	}
	for ok && (limit == 0 || n < limit) {
		if len(it.Value()) != len(value) {
			b.Fatal("bad value")
		}
		n++
		if reverse {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkLatest10 reads ten rows at either end of a partition of 1,000
// and of 100,000 rows, in SSTables: "reverse" is the latest rows (ORDER BY
// c DESC LIMIT 10), "forward" the first ones.
func BenchmarkLatest10(b *testing.B) {
	ctx := context.Background()
	for _, w := range widths {
		for _, reverse := range []bool{false, true} {
			dir := "forward"
			if reverse {
				dir = "reverse"
			}
			b.Run(fmt.Sprintf("width=%d/%s/store=minicass", w, dir), func(b *testing.B) {
				f := openMinicass(b)
				key := []byte(wideKey(w))
				b.ReportAllocs()
				for b.Loop() {
					p, err := f.eng.ReadPartition(ctx, f.tbl, key, engine.ReadOptions{Limit: 10, Reverse: reverse})
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for {
						if _, ok := p.Next(); !ok {
							break
						}
						n++
					}
					if err := p.Close(); err != nil || n != 10 {
						b.Fatalf("read %d rows: %v", n, err)
					}
					p.Release()
				}
			})
			b.Run(fmt.Sprintf("width=%d/%s/store=pebble", w, dir), func(b *testing.B) {
				db := openPebble(b)
				k := wideKey(w)
				lo := append([]byte(k), 0)
				hi := append([]byte(k), 1)
				b.ReportAllocs()
				for b.Loop() {
					if n := pebbleRead(b, db, lo, hi, 10, reverse); n != 10 {
						b.Fatalf("read %d rows", n)
					}
				}
			})
		}
	}
}
