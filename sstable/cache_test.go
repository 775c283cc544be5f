package sstable

import (
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cacheSettings are the reader cache configurations the tests compare: the
// caches must change what is read, never what is returned.
var cacheSettings = []struct {
	name string
	opts ReaderOptions
}{
	{"default", ReaderOptions{}},
	{"none", ReaderOptions{ChunkCacheSize: -1, KeyCacheSize: -1}},
	{"tiny", ReaderOptions{ChunkCacheSize: 2 * (512 + cacheEntryOverhead), KeyCacheSize: 1200}},
}

// bigRowPartitions returns partitions whose rows range from a few bytes to
// several 512-byte chunks, so that records straddle two and more chunks.
func bigRowPartitions(rng *rand.Rand, n int) []testPartition {
	parts := make([]testPartition, n)
	for i := range parts {
		p := &parts[i]
		p.token = int64(i * 10)
		p.key = []byte("big" + strconv.Itoa(i))
		p.del = data.LiveDeletion
		for j := 0; j < 1+rng.Intn(60); j++ {
			r := randomRow(rng, ckOf(j))
			if rng.Intn(3) == 0 {
				r.Cells = append(r.Cells, data.Cell{Column: "blob", Timestamp: 1, LocalDeletionTime: data.NoDeletionTime, Value: randBytes(rng, rng.Intn(2000))})
			}
			p.rows = append(p.rows, r)
		}
	}
	return parts
}

// TestReaderCaches reads every partition of random tables (with rows larger
// than a chunk) twice under each cache setting, forward and reverse over
// random slices, and checks the rows; the second lookup of a partition is
// served by the caches when they are on.
func TestReaderCaches(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	fs := vfs.NewMem()
	parts := append(bigRowPartitions(rng, 30), randomPartitions(rng, 30, 200)...)
	for i := range parts {
		parts[i].token = int64(i)
	}
	writeTable(t, fs, "", 1, WriterOptions{Compression: Compression{Codec: CodecS2, ChunkLength: 512}, ColumnIndexSize: 1024, IndexInterval: 4}, parts)
	for _, cs := range cacheSettings {
		t.Run(cs.name, func(t *testing.T) {
			r, err := Open(fs, "", 1, cs.opts)
			require.NoError(t, err)
			defer r.Close()
			for round := 0; round < 2; round++ {
				for i := range parts {
					src, found, err := r.Get(parts[i].token, parts[i].key)
					require.NoError(t, err)
					require.True(t, found)
					checkPartition(t, rng, src, &parts[i])
				}
			}
			// Scans share their chunks with the partitions' row iterators.
			it := r.Scan(data.TokenRange{Start: -1, End: int64(len(parts))})
			for i := 0; ; i++ {
				src, ok := it.Next()
				if !ok {
					require.Equal(t, len(parts), i)
					break
				}
				got := collectRows(t, src.Rows(nil, i%2 == 1))
				require.Equal(t, normRows(expectRows(parts[i].rows, nil, i%2 == 1)), normRows(got), "partition %d", i)
			}
			require.NoError(t, it.Err())
			require.NoError(t, it.Close())
		})
	}
}

// TestPreviousRowStaysValid holds each row returned by an iterator while
// calling Next again, as the engine's merge does, and checks that its
// bytes did not change: the cursor must not overwrite a chunk that the
// previous row aliases.
func TestPreviousRowStaysValid(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	fs := vfs.NewMem()
	parts := bigRowPartitions(rng, 10)
	writeTable(t, fs, "", 1, WriterOptions{Compression: Compression{Codec: CodecNone, ChunkLength: 512}, ColumnIndexSize: 2048}, parts)
	for _, cs := range cacheSettings {
		r, err := Open(fs, "", 1, cs.opts)
		require.NoError(t, err)
		for i := range parts {
			for _, reverse := range []bool{false, true} {
				src, found, err := r.Get(parts[i].token, parts[i].key)
				require.NoError(t, err)
				require.True(t, found)
				want := expectRows(parts[i].rows, nil, reverse)
				it := src.Rows(nil, reverse)
				var prev data.Row
				n := 0
				for {
					row, ok := it.Next()
					if n > 0 {
						require.Equal(t, normRow(want[n-1]), normRow(prev), "%s: partition %d row %d after the next Next", cs.name, i, n-1)
					}
					if !ok {
						break
					}
					prev = *row // aliases the iterator's buffers
					prev.Cells = append([]data.Cell(nil), row.Cells...)
					n++
				}
				require.NoError(t, it.Err())
				require.Equal(t, len(want), n)
				require.NoError(t, it.Close())
			}
		}
		require.NoError(t, r.Close())
	}
}

// TestCachedLookupStats checks what a repeated lookup of a wide partition
// reads: nothing from Index.db (the key cache) and no chunk (the chunk
// cache), and that disabling the caches reads them again.
func TestCachedLookupStats(t *testing.T) {
	fs := vfs.NewMem()
	rng := rand.New(rand.NewSource(3))
	p := testPartition{token: 1, key: []byte("wide"), del: data.LiveDeletion}
	for i := 0; i < 3000; i++ {
		p.rows = append(p.rows, randomRow(rng, ckOf(i)))
	}
	writeTable(t, fs, "", 1, WriterOptions{ColumnIndexSize: 4096}, []testPartition{p})
	read := func(r *Reader, reverse bool) ReadStats {
		part, found, err := r.GetPartition(1, []byte("wide"))
		require.NoError(t, err)
		require.True(t, found)
		it := part.Rows(nil, reverse)
		for i := 0; i < 10; i++ {
			_, ok := it.Next()
			require.True(t, ok)
		}
		require.NoError(t, it.Close())
		return part.ReadStats()
	}
	r, err := Open(fs, "", 1, ReaderOptions{})
	require.NoError(t, err)
	defer r.Close()
	for _, reverse := range []bool{false, true} {
		first := read(r, reverse)
		second := read(r, reverse)
		if !reverse {
			assert.Equal(t, uint64(1), first.IndexEntries)
			assert.Equal(t, uint64(1), first.Chunks, "header and the first rows share a chunk")
		}
		assert.Zero(t, second.IndexEntries, "reverse=%v", reverse)
		assert.Zero(t, second.IndexBytes, "reverse=%v", reverse)
		assert.Zero(t, second.Chunks, "reverse=%v", reverse)
		assert.Equal(t, uint64(10), second.Rows)
		assert.Equal(t, uint64(1), second.Blocks)
	}
	off, err := Open(fs, "", 1, ReaderOptions{ChunkCacheSize: -1, KeyCacheSize: -1})
	require.NoError(t, err)
	defer off.Close()
	read(off, false)
	st := read(off, false)
	assert.Equal(t, uint64(1), st.IndexEntries)
	assert.Equal(t, uint64(1), st.Chunks)
}

func TestClockCacheSecondChance(t *testing.T) {
	c := newClockCache(3*100, false)
	require.Len(t, c.shards, 1)
	k := func(i int) cacheKey { return cacheKey{id: 1, kind: kindChunk, n: uint64(i)} }
	for i := 0; i < 3; i++ {
		require.True(t, c.put(k(i), cacheValue{ptr: i}, 100))
	}
	_, ok := c.get(k(0)) // entry 0 gets a second chance
	require.True(t, ok)
	require.True(t, c.put(k(3), cacheValue{ptr: 3}, 100)) // evicts 1: the hand skips 0
	_, ok = c.get(k(1))
	assert.False(t, ok)
	for _, i := range []int{0, 2, 3} {
		v, ok := c.get(k(i))
		require.True(t, ok, "entry %d", i)
		assert.Equal(t, i, v.ptr)
	}
	assert.False(t, c.put(k(2), cacheValue{ptr: 99}, 100), "already cached: kept as is")
	v, _ := c.get(k(2))
	assert.Equal(t, 2, v.ptr)
	assert.False(t, c.put(k(9), cacheValue{ptr: 9}, 151), "over half the budget: not cached")
	n, bytes, budget := c.stats(0)
	assert.Equal(t, 3, n)
	assert.Equal(t, int64(300), bytes)
	assert.Equal(t, int64(300), budget)
	assert.Nil(t, newClockCache(0, false))
	var none *clockCache
	assert.False(t, none.put(k(1), cacheValue{ptr: 1}, 1))
	_, ok = none.get(k(1))
	assert.False(t, ok)
}

func TestClockCacheBudgetAndForget(t *testing.T) {
	c := newClockCache(64<<20, true)
	require.Len(t, c.shards, 16)
	rng := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 20000; i++ {
		id := uint64(1 + rng.Intn(3))
		c.put(cacheKey{id: id, kind: kindChunk, n: uint64(rng.Intn(5000))}, cacheValue{ptr: i}, int64(1+rng.Intn(64<<10)))
		if i%7 == 0 {
			c.get(cacheKey{id: id, kind: kindChunk, n: uint64(rng.Intn(5000))})
		}
	}
	for i := range c.shards {
		s := &c.shards[i]
		require.LessOrEqual(t, s.used, s.budget)
		require.Len(t, s.m, len(s.slots)-len(s.free))
	}
	n2, _, _ := c.stats(2)
	require.NotZero(t, n2)
	c.forget(2)
	n2, _, _ = c.stats(2)
	assert.Zero(t, n2)
	n1, _, _ := c.stats(1)
	assert.NotZero(t, n1, "forget drops only the id's entries")
}

func TestKeyCacheEntries(t *testing.T) {
	c := NewCache(CacheOptions{KeyCacheSize: 1 << 20, BlockCacheSize: -1})
	for i := 0; i < 100; i++ {
		c.putEntry(1, (&indexEntry{key: []byte(fmt.Sprintf("key%07d", i)), token: int64(i)}).detached())
	}
	for i := 0; i < 100; i++ {
		key := []byte(fmt.Sprintf("key%07d", i))
		e, ok := c.entry(1, int64(i), key)
		require.True(t, ok)
		assert.Equal(t, key, e.key)
		_, ok = c.entry(1, int64(i), []byte("other"))
		assert.False(t, ok, "another key of the same token is a miss")
		_, ok = c.entry(2, int64(i), key)
		assert.False(t, ok, "another reader's entry is a miss")
	}
	st := c.Stats()
	assert.Equal(t, 100, st.Keys)
	assert.Zero(t, st.BlockBudget)
	c.putChunk(1, 0, []byte{1})
	_, ok := c.chunk(1, 0)
	assert.False(t, ok, "a disabled block cache holds nothing")
}

// TestConcurrentReads reads one Reader from several goroutines with small
// caches (run with -race).
func TestConcurrentReads(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	fs := vfs.NewMem()
	parts := bigRowPartitions(rng, 40)
	writeTable(t, fs, "", 1, WriterOptions{Compression: Compression{ChunkLength: 512}, ColumnIndexSize: 1024, IndexInterval: 4}, parts)
	r, err := Open(fs, "", 1, ReaderOptions{ChunkCacheSize: 4 * 512, KeyCacheSize: 2000})
	require.NoError(t, err)
	defer r.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				p := &parts[(g*7+k*13)%len(parts)]
				src, found, err := r.Get(p.token, p.key)
				if err != nil || !found {
					errs <- fmt.Errorf("get %s: %v %v", p.key, found, err)
					return
				}
				reverse := k%2 == 0
				want := expectRows(p.rows, nil, reverse)
				it := src.Rows(nil, reverse)
				for n := 0; ; n++ {
					row, ok := it.Next()
					if !ok {
						if n != len(want) || it.Err() != nil {
							errs <- fmt.Errorf("%s: %d rows of %d: %v", p.key, n, len(want), it.Err())
							return
						}
						break
					}
					if string(row.Clustering) != string(want[n].Clustering) || len(row.Cells) != len(want[n].Cells) {
						errs <- fmt.Errorf("%s row %d: got %x", p.key, n, row.Clustering)
						return
					}
				}
				_ = it.Close()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestSharedCacheNeverServesAClosedReader fills a shared Cache from one
// SSTable, closes and removes it, writes different data under the same
// directory and generation and reads it through the same Cache: every
// read must see the new data, and the closed Reader must have left
// nothing in the cache.
func TestSharedCacheNeverServesAClosedReader(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	fs := vfs.NewMem()
	cache := NewCache(CacheOptions{BlockCacheSize: 1 << 20, KeyCacheSize: 1 << 20})
	opts := WriterOptions{Compression: Compression{ChunkLength: 512}, ColumnIndexSize: 1024, IndexInterval: 4}
	old := randomPartitions(rng, 40, 50)
	writeTable(t, fs, "", 1, opts, old)
	r1, err := Open(fs, "", 1, ReaderOptions{Cache: cache})
	require.NoError(t, err)
	for i := range old {
		for _, reverse := range []bool{false, true} {
			p, found, err := r1.GetPartition(old[i].token, old[i].key)
			require.NoError(t, err)
			require.True(t, found)
			checkPartition(t, rng, p, &old[i])
			it := p.Rows(nil, reverse)
			require.Equal(t, normRows(expectRows(old[i].rows, nil, reverse)), normRows(collectRows(t, it)))
			p.Release()
		}
	}
	blocks, keys := r1.CachedEntries()
	require.NotZero(t, blocks)
	require.NotZero(t, keys)
	require.NoError(t, r1.Close())
	blocks, keys = r1.CachedEntries()
	assert.Zero(t, blocks, "a closed reader's blocks are forgotten")
	assert.Zero(t, keys, "a closed reader's keys are forgotten")
	require.NoError(t, Remove(fs, "", 1))

	// Same keys, other rows, same generation.
	fresh := randomPartitions(rng, 40, 50)
	for i := range fresh {
		fresh[i].token, fresh[i].key = old[i].token, old[i].key
	}
	writeTable(t, fs, "", 1, opts, fresh)
	r2, err := Open(fs, "", 1, ReaderOptions{Cache: cache})
	require.NoError(t, err)
	defer r2.Close()
	for i := range fresh {
		for _, reverse := range []bool{false, true} {
			p, found, err := r2.GetPartition(fresh[i].token, fresh[i].key)
			require.NoError(t, err)
			require.True(t, found)
			require.Equal(t, normRows(expectRows(fresh[i].rows, nil, reverse)), normRows(collectRows(t, p.Rows(nil, reverse))), "partition %d", i)
			p.Release()
		}
	}
	st := cache.Stats()
	blocks, keys = r2.CachedEntries()
	assert.Equal(t, st.Blocks, blocks, "every cached block is the live reader's")
	assert.Equal(t, st.Keys, keys, "every cached key is the live reader's")
}

// TestClockCacheDoorkeeper checks the block cache's admission: a full
// shard takes a new key only on its second miss, and admits answers as put
// would without caching anything.
func TestClockCacheDoorkeeper(t *testing.T) {
	c := newClockCache(2*100, true)
	k := func(i int) cacheKey { return cacheKey{id: 1, kind: kindChunk, n: uint64(i)} }
	require.True(t, c.admits(k(0), 100), "room: admitted at once")
	require.True(t, c.put(k(0), cacheValue{ptr: 0}, 100))
	require.True(t, c.put(k(1), cacheValue{ptr: 1}, 100))
	assert.False(t, c.put(k(2), cacheValue{ptr: 2}, 100), "full: the first miss is refused")
	_, ok := c.get(k(2))
	assert.False(t, ok)
	assert.True(t, c.put(k(2), cacheValue{ptr: 2}, 100), "the second miss is admitted")
	v, ok := c.get(k(2))
	require.True(t, ok)
	assert.Equal(t, 2, v.ptr)
	n, bytes, _ := c.stats(0)
	assert.Equal(t, 2, n)
	assert.Equal(t, int64(200), bytes)

	assert.False(t, c.admits(k(3), 100), "full: admits records the first miss")
	n, _, _ = c.stats(0)
	assert.Equal(t, 2, n, "admits caches nothing")
	assert.True(t, c.admits(k(3), 100), "and the second is admitted")
	assert.True(t, c.put(k(3), cacheValue{ptr: 3}, 100))

	plain := newClockCache(2*100, false)
	require.True(t, plain.put(k(0), cacheValue{ptr: 0}, 100))
	require.True(t, plain.put(k(1), cacheValue{ptr: 1}, 100))
	assert.True(t, plain.put(k(2), cacheValue{ptr: 2}, 100), "without admission a full cache evicts at once")
}

// TestHeldBytesSurviveBufferReuse reads random partitions (rows larger and
// smaller than a chunk) in random order, in both directions, through each
// cache setting, so that point reads decompress into their cursors' own
// buffers and reuse them from read to read ("tiny" admits few chunks,
// "none" caches nothing). It checks each row after the next call to Next
// (as a merge holds it) and holds the static row of every partition past
// its Release and through all later reads, checking them at the end: no
// byte handed out may live in a buffer a cursor overwrites too early.
func TestHeldBytesSurviveBufferReuse(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	fs := vfs.NewMem()
	parts := append(bigRowPartitions(rng, 30), randomPartitions(rng, 30, 200)...)
	for i := range parts {
		parts[i].token = int64(i)
		if i%3 == 0 {
			st := randomRow(rng, nil)
			st.Clustering = nil
			parts[i].static = &st
		}
	}
	writeTable(t, fs, "", 1, WriterOptions{Compression: Compression{Codec: CodecS2, ChunkLength: 512}, ColumnIndexSize: 1024, IndexInterval: 4}, parts)
	for _, cs := range cacheSettings {
		t.Run(cs.name, func(t *testing.T) {
			r, err := Open(fs, "", 1, cs.opts)
			require.NoError(t, err)
			defer r.Close()
			statics := map[int][]data.Row{}
			for round := 0; round < 3; round++ {
				for _, i := range rng.Perm(len(parts)) {
					p, found, err := r.GetPartition(parts[i].token, parts[i].key)
					require.NoError(t, err)
					require.True(t, found)
					if s := p.Static(); s != nil {
						c := *s
						c.Cells = append([]data.Cell(nil), s.Cells...)
						statics[i] = append(statics[i], c)
					}
					reverse := rng.Intn(2) == 0
					want := expectRows(parts[i].rows, nil, reverse)
					it := p.Rows(nil, reverse)
					var prev data.Row
					n := 0
					for {
						row, ok := it.Next()
						if n > 0 {
							require.Equal(t, normRow(want[n-1]), normRow(prev), "partition %d row %d after the next Next", i, n-1)
						}
						if !ok {
							break
						}
						prev = *row
						prev.Cells = append([]data.Cell(nil), row.Cells...)
						prev.ColumnDeletions = append([]data.ColumnDeletion(nil), row.ColumnDeletions...)
						n++
					}
					require.NoError(t, it.Err())
					require.Equal(t, len(want), n)
					require.NoError(t, it.Close())
					p.Release()
				}
			}
			require.NotEmpty(t, statics)
			for i, ss := range statics {
				for _, s := range ss {
					require.Equal(t, normRow(*parts[i].static), normRow(s), "partition %d static row", i)
				}
			}
		})
	}
}
