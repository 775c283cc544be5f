package memtable

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
)

// testSeed returns the seed of a randomized test: the environment's
// MINICASS_SEED when set, else the time; it is logged so a failure can be
// replayed.
func testSeed(t *testing.T) uint64 {
	seed := uint64(rand.Uint64())
	if s := os.Getenv("MINICASS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seed = n
	}
	t.Logf("seed %d (MINICASS_SEED=%d to replay)", seed, seed)
	return seed
}

// modelPartition is what a partition of TestUnscannedSlabsSurviveCollections
// should hold: the latest write wins everywhere (timestamps only grow).
type modelPartition struct {
	token    int64
	deletion data.DeletionTime
	static   string // the static cell's value, "" for none
	rows     map[string]string
	rts      []data.RangeTombstone
}

// describeModel renders p as describeFull renders a snapshot.
func describeModel(key string, p *modelPartition) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d/%x del=%v static=%q", p.token, key, p.deletion, p.static)
	rts := append([]data.RangeTombstone(nil), p.rts...)
	sort.Slice(rts, func(i, j int) bool { return bytes.Compare(rts[i].Start, rts[j].Start) < 0 })
	for _, rt := range rts {
		fmt.Fprintf(&b, " rt[%s,%s)@%d", rt.Start, rt.End, rt.Deletion.MarkedForDeleteAt)
	}
	cks := make([]string, 0, len(p.rows))
	for ck := range p.rows {
		cks = append(cks, ck)
	}
	sort.Strings(cks)
	for _, ck := range cks {
		fmt.Fprintf(&b, " %s:%s", ck, digest(p.rows[ck]))
	}
	return b.String()
}

// describeFull renders everything of a partition snapshot the test writes.
func describeFull(ps data.PartitionSource) string {
	var b bytes.Buffer
	static := ""
	if st := ps.Static(); st != nil && len(st.Cells) == 1 {
		static = string(st.Cells[0].Value)
	} else if st != nil {
		static = fmt.Sprintf("<%d cells>", len(st.Cells))
	}
	fmt.Fprintf(&b, "%d/%x del=%v static=%q", ps.Token(), ps.Key(), ps.Deletion(), static)
	for _, rt := range ps.RangeTombstones(nil) {
		fmt.Fprintf(&b, " rt[%s,%s)@%d", rt.Start, rt.End, rt.Deletion.MarkedForDeleteAt)
	}
	rows := ps.Rows(nil, false)
	for {
		r, ok := rows.Next()
		if !ok {
			break
		}
		v := fmt.Sprintf("<%d cells>", len(r.Cells))
		if len(r.Cells) == 1 {
			v = digest(string(r.Cells[0].Value))
		}
		fmt.Fprintf(&b, " %s:%s", r.Clustering, v)
	}
	_ = rows.Close()
	return b.String()
}

// digest shortens large values for messages.
func digest(v string) string {
	if len(v) <= 40 {
		return v
	}
	return fmt.Sprintf("%s...(%d bytes)...%s", v[:16], len(v), v[len(v)-16:])
}

// garbage allocates and fills memory of the size classes the memtable's
// structures had, so that whatever the collector freed of them is
// overwritten: byte slices for partition slabs, arena chunks and large
// values, and partitionMores for theirs. The caller keeps the result until it has
// checked the memtable.
func garbage() (noscan [][]byte, scan []*partitionMore) {
	junk := []byte("garbage!")
	for _, size := range []int{48, 96, 192, 384, 768, 1536, 3072, 6144, 8160, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 20 << 10, 24 << 10, 32 << 10, 40 << 10, 64 << 10} {
		for n := 0; n < 4<<20; n += size {
			b := make([]byte, size)
			for i := range b {
				b[i] = junk[i%len(junk)]
			}
			noscan = append(noscan, b)
		}
	}
	for range 20000 {
		scan = append(scan, &partitionMore{deletion: data.DeletionTime{MarkedForDeleteAt: -7, LocalDeletionTime: 7}, static: junk})
	}
	return noscan, scan
}

// TestUnscannedSlabsSurviveCollections checks that what the partitions in
// the collector's unscanned slabs point to (keys, rows, large values
// outside the arena's chunks, partitionMores and what they hold) survives
// collections, through the arenas' keep lists, and that the partitions
// themselves, which the index's buckets do not keep alive (pref), do
// too: it writes random partitions
// (narrow ones, second rows, overwrites, partition deletions, range
// tombstones, static rows, values larger than a chunk's share), collects
// repeatedly, overwrites freed memory, and checks every partition against a
// map. The first round writes narrow partitions only. At the end a scan outlives its memtable's last reference.
func TestUnscannedSlabsSurviveCollections(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 1))
	rounds, perRound := 6, 4000
	if testing.Short() {
		rounds, perRound = 3, 2000
	}
	m := New()
	model := map[string]*modelPartition{}
	var keys []string
	ts := int64(0)
	value := func() string {
		ts++
		if rng.IntN(100) == 0 {
			// Larger than maxChunk/4: an allocation outside the chunks.
			n := maxChunk/4 + 1 + rng.IntN(maxChunk)
			return fmt.Sprintf("big%d-", ts) + string(bytes.Repeat([]byte{byte('a' + ts%26)}, n))
		}
		return fmt.Sprintf("v%d", ts)
	}
	check := func(round int) {
		t.Helper()
		for _, k := range keys {
			p := model[k]
			ps, ok := m.Get(p.token, []byte(k))
			require.True(t, ok, "round %d: partition %x is gone", round, k)
			require.Equal(t, describeModel(k, p), describeFull(ps), "round %d", round)
		}
		require.Equal(t, len(keys), m.Len())
	}
	// Round 0 writes only narrow partitions that no later write touches,
	// so that whole arena chunks hold nothing but their keys and rows,
	// which only the partitions point to.
	narrowOnly := 0
	for round := range rounds {
		for range perRound {
			var k string
			var p *modelPartition
			if round == 0 {
				k = fmt.Sprintf("narrow%d-%d", len(keys), rng.Uint32())
				p = &modelPartition{token: int64(rng.Uint64()), deletion: data.LiveDeletion, rows: map[string]string{}}
				model[k] = p
				keys = append(keys, k)
				narrowOnly++
				ts++
				v := fmt.Sprintf("v%d", ts)
				p.rows["c00"] = v
				m.Apply(p.token, mut(k, row("c00", cell("v", ts, v))))
				continue
			}
			if len(keys) == narrowOnly || rng.IntN(3) != 0 {
				k = fmt.Sprintf("key%d-%d", len(keys), rng.Uint32())
				p = &modelPartition{token: int64(rng.Uint64()), deletion: data.LiveDeletion, rows: map[string]string{}}
				if rng.IntN(50) == 0 && len(keys) > 0 {
					// The token of another partition: a bucket chain.
					p.token = model[keys[rng.IntN(len(keys))]].token
				}
				model[k] = p
				keys = append(keys, k)
			} else {
				k = keys[narrowOnly+rng.IntN(len(keys)-narrowOnly)]
				p = model[k]
			}
			mu := mut(k)
			switch r := rng.IntN(20); {
			case r < 14:
				// A row: new partitions mostly narrow, existing ones
				// get a second row or an overwrite.
				ck := fmt.Sprintf("c%02d", rng.IntN(4))
				if len(p.rows) == 0 || rng.IntN(2) == 0 {
					ck = "c00"
				}
				v := value()
				mu.Rows = []data.Row{row(ck, cell("v", ts, v))}
				p.rows[ck] = v
			case r < 16:
				ts++
				mu.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ts}
				p.deletion = mu.PartitionDeletion
			case r < 18:
				ts++
				rt := data.RangeTombstone{Start: []byte(fmt.Sprintf("r%07d", ts)), End: []byte(fmt.Sprintf("r%07dz", ts)),
					Deletion: data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: 1}}
				if rng.IntN(4) == 0 {
					rt.End = nil
				}
				mu.RangeTombstones = []data.RangeTombstone{rt}
				p.rts = append(p.rts, rt)
			default:
				v := value()
				st := row("", cell("s", ts, v))
				mu.Static = &st
				p.static = v
			}
			m.Apply(p.token, mu)
		}
		for range 3 {
			runtime.GC()
		}
		noscan, scan := garbage()
		runtime.GC()
		check(round)
		runtime.KeepAlive(noscan)
		runtime.KeepAlive(scan)
	}

	// A scan keeps what it reads alive when the memtable is dropped.
	it := m.Scan(data.FullRing)
	m = nil
	for range 3 {
		runtime.GC()
	}
	noscan, scan := garbage()
	runtime.GC()
	n := 0
	for {
		ps, ok := it.Next()
		if !ok {
			break
		}
		k := string(ps.Key())
		p, ok := model[k]
		require.True(t, ok, "scan returned an unknown key %.40x", k)
		require.Equal(t, describeModel(k, p), describeFull(ps))
		n++
	}
	require.NoError(t, it.Close())
	require.Equal(t, len(keys), n)
	runtime.KeepAlive(noscan)
	runtime.KeepAlive(scan)
}

// TestRowTreesSurviveCollections checks that the rows a wide partition's
// B-tree refers to, which its items do not keep alive (rowRef), survive
// collections for as long as a snapshot of the partition, or only a row
// iterator of one, is held after the memtable's last reference is gone:
// it writes wide partitions of random clusterings (long ones too, which
// the tree's comparisons read from the rows) and values (some outside the
// arena's chunks), takes a snapshot of each, or an iterator of a snapshot
// that it then drops (from a memtable of its own: a snapshot keeps its
// whole memtable alive), drops the memtable, collects, overwrites freed
// memory, and reads every partition back, the snapshots also through
// seeks, against a map.
func TestRowTreesSurviveCollections(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 2))
	const partitions, writes = 16, 400
	type wide struct {
		key   string
		token int64
		rows  map[string]string
	}
	fill := func() (*Memtable, []*wide) {
		m := New()
		parts := make([]*wide, partitions)
		for i := range parts {
			parts[i] = &wide{key: fmt.Sprintf("wide%d", i), token: int64(rng.Uint64()), rows: map[string]string{}}
		}
		var cks []string
		for ts := int64(1); ts <= partitions*writes; ts++ {
			p := parts[rng.IntN(partitions)]
			var ck string
			if len(cks) > 0 && rng.IntN(4) == 0 {
				ck = cks[rng.IntN(len(cks))] // an overwrite, or the same clustering elsewhere
			} else {
				b := make([]byte, 1+rng.IntN(20))
				for i := range b {
					b[i] = []byte{0, 1, 'a', 0xff}[rng.IntN(4)]
				}
				ck = string(b)
				cks = append(cks, ck)
			}
			v := fmt.Sprintf("v%d", ts)
			if rng.IntN(200) == 0 {
				v += string(bytes.Repeat([]byte{'x'}, maxChunk/4+1)) // outside the chunks
			}
			p.rows[ck] = v
			m.Apply(p.token, mut(p.key, row(ck, cell("v", ts, v))))
		}
		return m, parts
	}
	sorted := func(p *wide) []string {
		out := make([]string, 0, len(p.rows))
		for ck := range p.rows {
			out = append(out, ck)
		}
		sort.Strings(out)
		return out
	}
	// want renders p's rows from lo (inclusive) to hi (exclusive), "" for
	// no bound, in order or reversed.
	want := func(p *wide, lo, hi string, reverse bool) string {
		var out []string
		for _, ck := range sorted(p) {
			if (lo == "" || ck >= lo) && (hi == "" || ck < hi) {
				out = append(out, fmt.Sprintf("%x:%s", ck, digest(p.rows[ck])))
			}
		}
		if reverse {
			slices.Reverse(out)
		}
		return strings.Join(out, " ")
	}
	read := func(it data.RowIterator) string {
		var out []string
		for {
			r, ok := it.Next()
			if !ok {
				break
			}
			require.Len(t, r.Cells, 1)
			out = append(out, fmt.Sprintf("%x:%s", r.Clustering, digest(string(r.Cells[0].Value))))
		}
		require.NoError(t, it.Close())
		return strings.Join(out, " ")
	}
	collect := func() (noscan [][]byte, scan []*partitionMore) {
		for range 3 {
			runtime.GC()
		}
		noscan, scan = garbage()
		runtime.GC()
		return noscan, scan
	}

	m, parts := fill()
	iters := make([]data.RowIterator, partitions)
	for i, p := range parts {
		ps, ok := m.Get(p.token, []byte(p.key))
		require.True(t, ok)
		ps.Rows(nil, false) // the snapshot's own iterator, which keeps it alive
		iters[i] = ps.Rows(nil, i%2 == 1)
	}
	m = nil
	noscan, scan := collect()
	for i, p := range parts {
		require.Equal(t, want(p, "", "", i%2 == 1), read(iters[i]), "the iterator of partition %d", i)
	}
	runtime.KeepAlive(noscan)
	runtime.KeepAlive(scan)

	m, parts = fill()
	snaps := make([]data.PartitionSource, partitions)
	for i, p := range parts {
		var ok bool
		snaps[i], ok = m.Get(p.token, []byte(p.key))
		require.True(t, ok)
	}
	m = nil
	noscan, scan = collect()
	for i, p := range parts {
		for _, reverse := range []bool{false, true} {
			require.Equal(t, want(p, "", "", reverse), read(snaps[i].Rows(nil, reverse)), "partition %d", i)
			ck := sorted(p)
			for range 8 {
				lo, hi := ck[rng.IntN(len(ck))], ck[rng.IntN(len(ck))]
				if lo > hi {
					lo, hi = hi, lo
				}
				got := read(snaps[i].Rows(data.Slices{{Start: []byte(lo), End: []byte(hi)}}, reverse))
				require.Equal(t, want(p, lo, hi, reverse), got, "partition %d [%x, %x) reverse=%v", i, lo, hi, reverse)
			}
		}
	}
	runtime.KeepAlive(noscan)
	runtime.KeepAlive(scan)
}
