package memtable

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/data"
)

// testPartitions keeps alive the partitions newPartition makes: an index's
// buckets do not (see pref).
var testPartitions struct {
	sync.Mutex
	all []*partition
}

// newPartition returns a new, empty partition (token, key) on its own.
func newPartition(token int64, key []byte) *partition {
	p := &partition{token: token}
	testPartitions.Lock()
	testPartitions.all = append(testPartitions.all, p)
	testPartitions.Unlock()
	p.setKey(key, 0, &applier{arena: new(arena)})
	return p
}

// indexItems returns the (token/key) items of a snapshot in cursor order,
// starting at the first token not below from.
func indexItems(s *psnap, from int64) []string {
	var out []string
	var c pcursor
	for ok := c.seekToken(s, from); ok; ok = c.next() {
		p := c.cur()
		out = append(out, fmt.Sprintf("%d/%s", p.token, p.keyBytes()))
	}
	return out
}

// checkIndex verifies the invariants of t: every directory has 2^g
// entries, g within its bound, and links to directories over the next
// bits; each bucket of depth d covers an aligned run of 2^(g-d) entries;
// each partition is in the bucket its token leads to; chains hold only full
// buckets of one token, where no bit is left; no partition twice; every
// partition numbered below seq. It returns the number of partitions.
func checkIndex(t *pindex) (int, error) {
	top := t.dir.Load()
	if top == nil {
		return 0, nil
	}
	seen := map[*partition]bool{}
	count := 0
	var walk func(d *pdir) error
	walk = func(d *pdir) error {
		if len(d.entries) != 1<<d.g || d.g > d.maxG() {
			return fmt.Errorf("directory of %d entries at depth %d, offset %d", len(d.entries), d.g, d.off)
		}
		for i := 0; i < len(d.entries); {
			b := d.entries[i].Load()
			if b.depth > d.g {
				return fmt.Errorf("bucket depth %d above global depth %d", b.depth, d.g)
			}
			start, span := d.span(i, b.depth)
			if start != i {
				return fmt.Errorf("bucket of depth %d starts at entry %d", b.depth, i)
			}
			for j := i; j < i+span; j++ {
				if d.entries[j].Load() != b {
					return fmt.Errorf("entry %d of a run of %d points elsewhere", j, span)
				}
			}
			i += span
			if b.sub != nil {
				if b.sub.off != d.off+d.g || b.depth != d.g || b.n.Load() != 0 {
					return fmt.Errorf("link at offset %d depth %d to a directory at offset %d", d.off, b.depth, b.sub.off)
				}
				if err := walk(b.sub); err != nil {
					return err
				}
				continue
			}
			if b.next != nil && int(d.off)+int(b.depth) != tokenBits {
				return fmt.Errorf("chain at offset %d depth %d", d.off, b.depth)
			}
			for c := b; c != nil; c = c.next {
				if c != b && c.n.Load() != bucketCap {
					return fmt.Errorf("chained bucket with %d items", c.n.Load())
				}
				for k := 0; k < int(c.n.Load()); k++ {
					p := c.parts[k].get()
					if p.token != c.tokens[k] {
						return fmt.Errorf("token %d stored for partition %d", c.tokens[k], p.token)
					}
					if leaf(top, p.token) != b {
						return fmt.Errorf("token %d in a bucket it does not lead to", p.token)
					}
					if c != b && p.token != b.tokens[0] {
						return fmt.Errorf("chain holds tokens %d and %d", p.token, b.tokens[0])
					}
					if seen[p] || uint64(p.seq) >= t.seq {
						return fmt.Errorf("partition %d/%s seen twice or numbered %d of %d", p.token, p.keyBytes(), p.seq, t.seq)
					}
					seen[p] = true
					count++
				}
			}
		}
		return nil
	}
	if err := walk(top); err != nil {
		return 0, err
	}
	return count, nil
}

// TestIndexModel inserts random partitions into one shard's index and
// takes snapshots at random points; the index and every snapshot must match
// a sorted model of what was inserted before them, and get and getOrInsert
// must find existing partitions. The tokens spread over 2^bits values from
// the start of shard 8 (token 0): a few bits make token ties frequent and
// chain buckets at maxDepth, many bits split the directory.
func TestIndexModel(t *testing.T) {
	const shard = numShards / 2
	rapid.Check(t, func(t *rapid.T) {
		tr := new(pindex)
		model := map[string]*partition{}
		type snap struct {
			s    *psnap
			want []string
		}
		var snaps []snap
		sorted := func() []string {
			ps := make([]*partition, 0, len(model))
			for _, p := range model {
				ps = append(ps, p)
			}
			sort.Slice(ps, func(i, j int) bool {
				return data.ComparePartitions(ps[i].token, ps[i].keyBytes(), ps[j].token, ps[j].keyBytes()) < 0
			})
			out := make([]string, len(ps))
			for i, p := range ps {
				out[i] = fmt.Sprintf("%d/%s", p.token, p.keyBytes())
			}
			return out
		}
		n := rapid.IntRange(0, 700).Draw(t, "n")
		bits := rapid.IntRange(0, 64-shardBits).Draw(t, "bits")
		spread := int64(1)<<bits - 1
		token := func(label string) int64 { return rapid.Int64Range(0, spread).Draw(t, label) }
		for i := 0; i < n; i++ {
			tok := token("token")
			key := []byte(rapid.StringMatching(`[a-c]{1,2}`).Draw(t, "key"))
			id := fmt.Sprintf("%d/%s", tok, key)
			p := newPartition(tok, key)
			// Half of the inserts go through lookup and insertAt, as
			// Memtable.Apply does, sometimes with another insert or a
			// snapshot in between that makes the position stale.
			var got *partition
			var inserted bool
			if rapid.Bool().Draw(t, "viaLookup") {
				found, at := tr.lookup(tok, key)
				switch rapid.IntRange(0, 5).Draw(t, "between") {
				case 0:
					otok := token("otherToken")
					other := newPartition(otok, []byte("z"))
					oid := fmt.Sprintf("%d/z", otok)
					if o, ins := tr.getOrInsert(other); ins {
						model[oid] = other
					} else if o != model[oid] {
						t.Fatalf("getOrInsert(%s) returned a stranger", oid)
					}
				case 1:
					snaps = append(snaps, snap{tr.clone(shard), sorted()})
				}
				switch {
				case found != nil:
					got = found
				case tr.canInsertAt(at, tok):
					tr.insertAt(at, p)
					got, inserted = p, true
				default:
					got, inserted = tr.getOrInsert(p)
				}
				if found != nil && model[id] != found {
					t.Fatalf("lookup(%s) returned a stranger", id)
				}
			} else {
				got, inserted = tr.getOrInsert(p)
			}
			if old, ok := model[id]; ok {
				if inserted || got != old {
					t.Fatalf("getOrInsert(%s) inserted a duplicate", id)
				}
			} else {
				if !inserted || got != p {
					t.Fatalf("getOrInsert(%s) did not insert", id)
				}
				model[id] = p
			}
			if tr.get(tok, key) != model[id] {
				t.Fatalf("get(%s) misses", id)
			}
			if rapid.IntRange(0, 60).Draw(t, "snapshot") == 0 {
				snaps = append(snaps, snap{tr.clone(shard), sorted()})
			}
		}
		count, err := checkIndex(tr)
		if err != nil {
			t.Fatal(err)
		}
		if count != len(model) {
			t.Fatalf("index holds %d partitions, want %d", count, len(model))
		}
		want := sorted()
		if got := indexItems(tr.clone(shard), -1<<63); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("index holds %d items, want %d", len(got), len(want))
		}
		for i, s := range snaps {
			if got := indexItems(s.s, -1<<63); fmt.Sprint(got) != fmt.Sprint(s.want) {
				t.Fatalf("snapshot %d changed: %d items, want %d", i, len(got), len(s.want))
			}
		}
		// A seek lands on the first partition with a token at least from;
		// a token of a later shard finds none.
		from := rapid.Int64Range(-2, spread+2).Draw(t, "from")
		if rapid.IntRange(0, 9).Draw(t, "laterShard") == 0 {
			from = 1 << (64 - shardBits - 1)
		}
		var wantFrom []string
		for _, id := range want {
			var tok int64
			fmt.Sscanf(id, "%d/", &tok)
			if tok >= from {
				wantFrom = append(wantFrom, id)
			}
		}
		if got := indexItems(tr.clone(shard), from); fmt.Sprint(got) != fmt.Sprint(wantFrom) {
			t.Fatalf("seek %d: got %d items, want %d", from, len(got), len(wantFrom))
		}
	})
}

// TestIndexGrowth fills one shard's index with uniform tokens (the murmur3
// case: the directory splits evenly), with consecutive tokens (they share
// all but their low bits: directories nest to the bottom level), and with
// many partitions of one token (a chain).
func TestIndexGrowth(t *testing.T) {
	const shard = numShards / 2
	for _, tc := range []struct {
		name  string
		n     int64
		token func(i int64) int64
	}{
		{"uniform", 200_000, func(i int64) int64 { return int64(uint64(i) * 0x9E3779B97F4A7C15 >> (shardBits + 1)) }},
		{"consecutive", 50_000, func(i int64) int64 { return i }},
		{"one token", 500, func(i int64) int64 { return 7 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := new(pindex)
			key := func(i int64) []byte { return []byte(fmt.Sprint("k", i)) }
			for i := int64(0); i < tc.n; i++ {
				_, inserted := tr.getOrInsert(newPartition(tc.token(i), key(i)))
				require.True(t, inserted)
			}
			count, err := checkIndex(tr)
			require.NoError(t, err)
			require.Equal(t, int(tc.n), count)
			items := indexItems(tr.clone(shard), -1<<63)
			require.Len(t, items, int(tc.n))
			require.True(t, sort.SliceIsSorted(items, func(i, j int) bool {
				var a, b int64
				var ka, kb string
				fmt.Sscanf(items[i], "%d/%s", &a, &ka)
				fmt.Sscanf(items[j], "%d/%s", &b, &kb)
				return a < b || a == b && ka < kb
			}))
			for i := int64(0); i < tc.n; i += 97 {
				assert.NotNil(t, tr.get(tc.token(i), key(i)))
				assert.Nil(t, tr.get(tc.token(i), []byte("x")))
			}
			if tc.name == "uniform" {
				// About n/bucketCap buckets, each at least half full on
				// average: the directory is no more than 4x that.
				assert.LessOrEqual(t, len(tr.dir.Load().entries), 4*int(tc.n)/(bucketCap/2))
			}
		})
	}
}

// TestScanSnapshotIgnoresLaterPartitions checks that a scan does not see
// partitions inserted after it started, even when the inserts split nodes
// it shares with the live tree.
func TestScanSnapshotIgnoresLaterPartitions(t *testing.T) {
	m := New()
	for i := 0; i < 1000; i++ {
		m.Apply(int64(2*i), mut(fmt.Sprintf("k%d", i), row("a", cell("v", 1, "x"))))
	}
	it := m.Scan(data.FullRing)
	first, ok := it.Next()
	require.True(t, ok)
	assert.Equal(t, int64(0), first.Token())
	for i := 0; i < 1000; i++ {
		m.Apply(int64(2*i+1), mut(fmt.Sprintf("k%d", i), row("a", cell("v", 1, "x"))))
	}
	n := 1
	for {
		ps, ok := it.Next()
		if !ok {
			break
		}
		require.Zero(t, ps.Token()%2, "partition %d inserted after the scan began", ps.Token())
		n++
	}
	require.NoError(t, it.Close())
	assert.Equal(t, 1000, n)
	assert.Equal(t, 2000, m.Len())
	total := 0
	for i := range m.writable().shards {
		n, err := checkIndex(&m.writable().shards[i].parts)
		require.NoError(t, err)
		total += n
	}
	assert.Equal(t, 2000, total)
}

// TestScanModel scans random token ranges of a memtable whose tokens spread
// over the whole ring (so ranges cross shard boundaries) and compares with
// a sorted model.
func TestScanModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := New()
		var model []int64
		seen := map[int64]bool{}
		for _, tok := range rapid.SliceOfN(rapid.Int64(), 0, 300).Draw(t, "tokens") {
			m.Apply(tok, mut("k", row("a", cell("v", 1, "x"))))
			if !seen[tok] {
				seen[tok] = true
				model = append(model, tok)
			}
		}
		sort.Slice(model, func(i, j int) bool { return model[i] < model[j] })
		r := data.TokenRange{Start: rapid.Int64().Draw(t, "start"), End: rapid.Int64().Draw(t, "end"),
			StartInclusive: rapid.Bool().Draw(t, "inclusive")}
		if rapid.Bool().Draw(t, "startOnToken") && len(model) > 0 {
			r.Start = model[rapid.IntRange(0, len(model)-1).Draw(t, "i")]
		}
		var want, got []int64
		for _, tok := range model {
			if r.Contains(tok) {
				want = append(want, tok)
			}
		}
		it := m.Scan(r)
		for {
			ps, ok := it.Next()
			if !ok {
				break
			}
			got = append(got, ps.Token())
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("scan %+v: got %v, want %v", r, got, want)
		}
		if m.Len() != len(model) {
			t.Fatalf("Len %d, want %d", m.Len(), len(model))
		}
	})
}

// TestShardOrder checks that shards cover the ring in token order.
func TestShardOrder(t *testing.T) {
	assert.Equal(t, 0, shardOf(-1<<63))
	assert.Equal(t, numShards-1, shardOf(1<<63-1))
	assert.Equal(t, numShards/2, shardOf(0))
	assert.Equal(t, numShards/2-1, shardOf(-1))
	prev := 0
	for tok := int64(-1 << 63); tok < 1<<63-1<<58; tok += 1 << 58 {
		require.GreaterOrEqual(t, shardOf(tok), prev)
		prev = shardOf(tok)
	}
}

// TestShardSize checks that shards fill whole cache lines.
func TestShardSize(t *testing.T) {
	assert.Zero(t, unsafe.Sizeof(shard{})%64, "shard is %d bytes", unsafe.Sizeof(shard{}))
}

// TestPartitionSize guards the size the partition's documentation gives
// (its key and rows are in the arena), and that an arena fills one cache
// line.
func TestPartitionSize(t *testing.T) {
	assert.Equal(t, uintptr(48), unsafe.Sizeof(partition{}))
	assert.Equal(t, uintptr(64), arenaSize)
}

// TestBucketLayout checks that a bucket fits its 512-byte size class and
// that a lookup's first reads (the link, the count, the first tokens)
// share one cache line.
func TestBucketLayout(t *testing.T) {
	var b bucket
	assert.LessOrEqual(t, unsafe.Sizeof(b), uintptr(512))
	assert.Less(t, unsafe.Offsetof(b.sub), uintptr(64))
	assert.Less(t, unsafe.Offsetof(b.tokens), uintptr(64))
}
