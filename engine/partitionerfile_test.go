package engine

import (
	"context"
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
)

// scanKeys returns the partition keys of tbl in the engine's scan order.
func scanKeys(t *testing.T, e *Engine, tbl *schema.Table) []string {
	t.Helper()
	sc, err := e.Scan(context.Background(), tbl, data.FullRing, ReadOptions{})
	require.NoError(t, err)
	defer sc.Close()
	var keys []string
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		keys = append(keys, string(p.Key()))
	}
	require.NoError(t, sc.Err())
	return keys
}

func TestByteOrderedPartitionerOrdersKeys(t *testing.T) {
	fsys := vfs.NewMem()
	bop := Options{Partitioner: partitioner.ByteOrderedPartitioner}
	e, _, tbl := openDurable(t, fsys, bop)
	// Keys that share their first seven bytes share a token and are
	// ordered by the bytes after it.
	for i, k := range []string{"b", "abcdefgh2", "a", "abcdefgh1", "abcdefg", "\xff", "a\x00"} {
		put(t, e, tbl, k, "c", "v", int64(10+i))
		if i == 3 {
			require.NoError(t, e.Flush(context.Background(), "ks", "t"))
		}
	}
	want := []string{"a", "a\x00", "abcdefg", "abcdefgh1", "abcdefgh2", "b", "\xff"}
	assert.Equal(t, want, scanKeys(t, e, tbl), "memtable and SSTable merged in key-byte order")
	require.NoError(t, e.Close())

	b, err := readFileAll(fsys, "db/PARTITIONER")
	require.NoError(t, err)
	assert.Equal(t, "org.apache.cassandra.dht.ByteOrderedPartitioner\n", string(b))

	e2, _, tbl2 := openDurable(t, fsys, bop)
	assert.Equal(t, want, scanKeys(t, e2, tbl2), "the commit log replays under the recorded partitioner")
	require.NoError(t, e2.Close())

	_, err = Open(Options{Dir: "db", FS: fsys})
	require.ErrorIs(t, err, ErrPartitionerMismatch)
	assert.Contains(t, err.Error(), "Cannot open db; partitioner org.apache.cassandra.dht.ByteOrderedPartitioner does not match system partitioner org.apache.cassandra.dht.Murmur3Partitioner. Note that the default partitioner starting with Cassandra 1.2 is Murmur3Partitioner")
}

func TestMurmur3DirectoryRefusesByteOrdered(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	put(t, e, tbl, "k", "c", "v", 10)
	require.NoError(t, e.Close())
	_, err := readFileAll(fsys, "db/PARTITIONER")
	require.Error(t, err, "the default partitioner writes no file")

	_, err = Open(Options{Dir: "db", FS: fsys, Partitioner: partitioner.ByteOrderedPartitioner})
	require.ErrorIs(t, err, ErrPartitionerMismatch)
	assert.Contains(t, err.Error(), "partitioner org.apache.cassandra.dht.Murmur3Partitioner does not match system partitioner org.apache.cassandra.dht.ByteOrderedPartitioner")

	e2, _, tbl2 := openDurable(t, fsys, Options{})
	defer e2.Close()
	assert.Equal(t, []string{"k"}, scanKeys(t, e2, tbl2))
}

func TestRestoreRefusesAnotherPartitionersData(t *testing.T) {
	src, err := Open(Options{})
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.CreateKeyspace(&schema.Keyspace{Name: "ks", DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}))
	tbl := testTable("t", data.TableID{1})
	require.NoError(t, src.CreateTable(tbl))
	empty, err := src.Snapshot()
	require.NoError(t, err)
	defer empty.Release()
	put(t, src, tbl, "k", "c", "v", 10)
	full, err := src.Snapshot()
	require.NoError(t, err)
	defer full.Release()

	dst, err := Open(Options{Partitioner: partitioner.ByteOrderedPartitioner})
	require.NoError(t, err)
	defer dst.Close()
	require.ErrorIs(t, dst.Restore(full), ErrPartitionerMismatch)
	require.NoError(t, dst.Restore(empty), "a snapshot without data has no tokens to disagree on")
}

func TestOptionsValidatePartitioner(t *testing.T) {
	_, err := Open(Options{Partitioner: partitioner.ByteOrderedPartitioner + 1})
	require.ErrorIs(t, err, ErrInvalidOptions)
}

// TestByteOrderedRandomKeys writes keys from a small alphabet, many sharing
// their first seven bytes (one prefix token), in a random order across
// memtables, SSTables and a compaction, and checks that a scan returns them
// in unsigned byte order, that every key reads back, and that a scan from a
// key's prefix token holds every key from it on. Rerun a failure with -seed.
func TestByteOrderedRandomKeys(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{Partitioner: partitioner.ByteOrderedPartitioner, CommitLogSync: SyncNone, DisableAutoCompaction: true})
	defer func() { require.NoError(t, e.Close()) }()
	ctx := context.Background()
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0x7f, 0x80, 0xff}
	seen := map[string]bool{}
	for i := 0; i < 400; i++ {
		var k []byte
		if rng.Intn(2) == 0 {
			k = []byte("prefix_") // seven bytes: one token
		}
		for n := 1 + rng.Intn(5); n > 0; n-- {
			k = append(k, alphabet[rng.Intn(len(alphabet))])
		}
		seen[string(k)] = true
		put(t, e, tbl, string(k), "c", "v", int64(10+i))
		switch rng.Intn(60) {
		case 0:
			require.NoError(t, e.Flush(ctx, "ks", "t"))
		case 1:
			require.NoError(t, e.Flush(ctx, "ks", "t"))
			require.NoError(t, e.Compact(ctx, "ks", "t"))
		}
	}
	want := make([]string, 0, len(seen))
	for k := range seen {
		want = append(want, k)
	}
	sort.Strings(want) // Go compares strings bytewise, unsigned
	require.Equal(t, want, scanKeys(t, e, tbl), "seed %d", seed)
	for _, k := range want {
		require.Equal(t, []string{"c:v"}, dump(t, e, tbl, k, false), "seed %d: key %x", seed, k)
	}
	from := want[rng.Intn(len(want))]
	sc, err := e.Scan(ctx, tbl, data.TokenRange{Start: int64(partitioner.BytePrefixToken([]byte(from))), End: math.MaxInt64, StartInclusive: true}, ReadOptions{})
	require.NoError(t, err)
	var got []string
	for {
		p, ok := sc.Next()
		if !ok {
			break
		}
		if k := string(p.Key()); k >= from {
			got = append(got, k)
		}
	}
	require.NoError(t, sc.Close())
	i := sort.SearchStrings(want, from)
	require.Equal(t, want[i:], got, "seed %d: the keys from %x", seed, from)
}
