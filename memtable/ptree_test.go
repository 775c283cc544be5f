package memtable

import (
	"fmt"
	"sort"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/data"
)

// ptreeItems returns the (token/key) items of a tree in cursor order,
// starting at the first token not below from.
func ptreeItems(t *ptree, from int64) []string {
	var out []string
	var c pcursor
	for ok := c.seekToken(t.root, from); ok; ok = c.next() {
		p := c.cur()
		out = append(out, fmt.Sprintf("%d/%s", p.token, p.key))
	}
	return out
}

// checkPtree verifies the B-tree invariants of t: item order inside and
// across nodes, node fill, equal leaf depth, and the item count.
func checkPtree(t *ptree) error {
	if t.root == nil {
		if t.len != 0 {
			return fmt.Errorf("empty tree with len %d", t.len)
		}
		return nil
	}
	leafDepth := -1
	count := 0
	var last *partition
	var walk func(n *pnode, depth int, root bool) error
	walk = func(n *pnode, depth int, root bool) error {
		if n.n > ptreeMaxItems || (!root && n.n < ptreeMaxItems/2) || n.n == 0 {
			return fmt.Errorf("node with %d items", n.n)
		}
		for i := 0; i <= n.n; i++ {
			if n.kids != nil {
				if err := walk(n.kids[i], depth+1, false); err != nil {
					return err
				}
			}
			if i == n.n {
				break
			}
			p := n.parts[i]
			if p.token != n.tokens[i] {
				return fmt.Errorf("token %d stored for partition %d", n.tokens[i], p.token)
			}
			if last != nil && comparePart(last.token, last.key, p.token, p.key) >= 0 {
				return fmt.Errorf("%d/%s not after %d/%s", p.token, p.key, last.token, last.key)
			}
			last = p
			count++
		}
		if n.kids == nil {
			if leafDepth < 0 {
				leafDepth = depth
			} else if leafDepth != depth {
				return fmt.Errorf("leaves at depths %d and %d", leafDepth, depth)
			}
		}
		return nil
	}
	if err := walk(t.root, 0, true); err != nil {
		return err
	}
	if count != t.len {
		return fmt.Errorf("len %d, %d items", t.len, count)
	}
	return nil
}

// TestPtreeModel inserts random partitions (few tokens, so ties on the
// token are frequent) and takes snapshots at random points; the tree and
// every snapshot must match a sorted model of what was inserted before
// them, and get and getOrInsert must find existing partitions.
func TestPtreeModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := new(ptree)
		model := map[string]*partition{}
		type snap struct {
			tree *ptree
			want []string
		}
		var snaps []snap
		sorted := func() []string {
			ps := make([]*partition, 0, len(model))
			for _, p := range model {
				ps = append(ps, p)
			}
			sort.Slice(ps, func(i, j int) bool { return comparePart(ps[i].token, ps[i].key, ps[j].token, ps[j].key) < 0 })
			out := make([]string, len(ps))
			for i, p := range ps {
				out[i] = fmt.Sprintf("%d/%s", p.token, p.key)
			}
			return out
		}
		n := rapid.IntRange(0, 700).Draw(t, "n")
		tokens := rapid.Int64Range(1, 1<<62).Draw(t, "tokenSpread")
		for i := 0; i < n; i++ {
			tok := rapid.Int64Range(-tokens, tokens).Draw(t, "token")
			key := []byte(rapid.StringMatching(`[a-c]{1,2}`).Draw(t, "key"))
			id := fmt.Sprintf("%d/%s", tok, key)
			p := newPartition(tok, key)
			// Half of the inserts go through lookup and insertAt, as
			// Memtable.Apply does, sometimes with another insert or a
			// clone in between that makes the position stale.
			var got *partition
			var inserted bool
			if rapid.Bool().Draw(t, "viaLookup") {
				found, at := tr.lookup(tok, key)
				switch rapid.IntRange(0, 5).Draw(t, "between") {
				case 0:
					otok := rapid.Int64Range(-tokens, tokens).Draw(t, "otherToken")
					other := newPartition(otok, []byte("z"))
					oid := fmt.Sprintf("%d/z", otok)
					if o, ins := tr.getOrInsert(other); ins {
						model[oid] = other
					} else if o != model[oid] {
						t.Fatalf("getOrInsert(%s) returned a stranger", oid)
					}
				case 1:
					snaps = append(snaps, snap{tr.clone(), sorted()})
				}
				switch {
				case found != nil:
					got = found
				case tr.insertAt(at, p):
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
				snaps = append(snaps, snap{tr.clone(), sorted()})
			}
		}
		if err := checkPtree(tr); err != nil {
			t.Fatal(err)
		}
		want := sorted()
		if got := ptreeItems(tr, -1<<63); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("tree holds %d items, want %d", len(got), len(want))
		}
		for i, s := range snaps {
			if err := checkPtree(s.tree); err != nil {
				t.Fatalf("snapshot %d: %v", i, err)
			}
			if got := ptreeItems(s.tree, -1<<63); fmt.Sprint(got) != fmt.Sprint(s.want) {
				t.Fatalf("snapshot %d changed: %d items, want %d", i, len(got), len(s.want))
			}
		}
		// A seek lands on the first partition with a token at least from.
		from := rapid.Int64Range(-tokens-1, tokens+1).Draw(t, "from")
		var wantFrom []string
		for _, id := range want {
			var tok int64
			fmt.Sscanf(id, "%d/", &tok)
			if tok >= from {
				wantFrom = append(wantFrom, id)
			}
		}
		if got := ptreeItems(tr, from); fmt.Sprint(got) != fmt.Sprint(wantFrom) {
			t.Fatalf("seek %d: got %d items, want %d", from, len(got), len(wantFrom))
		}
	})
}

// TestPtreeSequential grows a tree past several levels in ascending and
// descending token order, the patterns that split the same edge of the
// tree again and again.
func TestPtreeSequential(t *testing.T) {
	for _, step := range []int64{1, -1} {
		tr := new(ptree)
		const n = 40_000
		for i := int64(0); i < n; i++ {
			_, inserted := tr.getOrInsert(newPartition(i*step, []byte("k")))
			require.True(t, inserted)
		}
		require.NoError(t, checkPtree(tr))
		require.Equal(t, n, tr.len)
		items := ptreeItems(tr, -1<<63)
		require.Len(t, items, n)
		assert.Equal(t, fmt.Sprintf("%d/k", min(0, (n-1)*step)), items[0])
		assert.Nil(t, tr.get(n, []byte("k")))
		assert.NotNil(t, tr.get((n-1)*step, []byte("k")))
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
	for i := range m.shards {
		require.NoError(t, checkPtree(&m.shards[i].parts))
	}
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
