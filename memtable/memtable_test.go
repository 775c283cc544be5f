package memtable

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/data"
)

func cell(col string, ts int64, v string) data.Cell {
	return data.Cell{Column: col, Kind: data.CellRegular, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: []byte(v)}
}

func row(ck string, cells ...data.Cell) data.Row {
	r := data.NewRow([]byte(ck))
	r.Cells = cells
	return r
}

func mut(key string, rows ...data.Row) *data.Mutation {
	return &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion, Rows: rows}
}

func collect(t *testing.T, it data.RowIterator) []string {
	t.Helper()
	var out []string
	for {
		r, ok := it.Next()
		if !ok {
			break
		}
		out = append(out, string(r.Clustering))
	}
	require.NoError(t, it.Err())
	require.NoError(t, it.Close())
	return out
}

func TestApplyMergesRows(t *testing.T) {
	m := New()
	require.True(t, m.IsEmpty())
	n1 := m.Apply(1, mut("k", row("a", cell("v", 10, "x"))))
	require.Positive(t, n1)
	m.Apply(1, mut("k", row("a", cell("v", 5, "old"), cell("w", 7, "w"))))
	m.Apply(1, mut("k", row("b", cell("v", 3, "y"))))
	require.Equal(t, 1, m.Len())

	ps, ok := m.Get(1, []byte("k"))
	require.True(t, ok)
	it := ps.Rows(nil, false)
	r, ok := it.Next()
	require.True(t, ok)
	require.Equal(t, "a", string(r.Clustering))
	require.Len(t, r.Cells, 2)
	assert.Equal(t, "x", string(r.Cells[0].Value), "the higher timestamp wins")
	assert.Equal(t, "w", string(r.Cells[1].Value))
	r, ok = it.Next()
	require.True(t, ok)
	assert.Equal(t, "b", string(r.Clustering))
	_, ok = it.Next()
	assert.False(t, ok)

	_, ok = m.Get(2, []byte("k"))
	assert.False(t, ok, "same key, other token")
	lo, ok := m.MinTimestamp()
	require.True(t, ok)
	assert.Equal(t, int64(3), lo)
	assert.Positive(t, m.Size())
}

func TestPartitionLevelData(t *testing.T) {
	m := New()
	mu := mut("k")
	mu.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 100}
	st := row("", cell("s", 4, "S"))
	mu.Static = &st
	mu.RangeTombstones = []data.RangeTombstone{
		{Start: []byte("m"), End: []byte("p"), Deletion: data.DeletionTime{MarkedForDeleteAt: 9, LocalDeletionTime: 1}},
		{Start: nil, End: []byte("c"), Deletion: data.DeletionTime{MarkedForDeleteAt: 8, LocalDeletionTime: 1}},
	}
	m.Apply(7, mu)
	mu2 := mut("k")
	mu2.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: 3, LocalDeletionTime: 200}
	st2 := row("", cell("s", 6, "T"))
	mu2.Static = &st2
	mu2.RangeTombstones = []data.RangeTombstone{{Start: []byte("d"), End: nil, Deletion: data.DeletionTime{MarkedForDeleteAt: 2, LocalDeletionTime: 1}}}
	m.Apply(7, mu2)

	ps, ok := m.Get(7, []byte("k"))
	require.True(t, ok)
	assert.Equal(t, int64(5), ps.Deletion().MarkedForDeleteAt, "the later deletion is kept")
	require.NotNil(t, ps.Static())
	assert.Equal(t, "T", string(ps.Static().Cells[0].Value))
	var starts []string
	for _, rt := range ps.RangeTombstones(nil) {
		starts = append(starts, string(rt.Start))
	}
	assert.Equal(t, []string{"", "d", "m"}, starts)
	got := ps.RangeTombstones(data.Slices{{Start: []byte("c"), End: []byte("e")}})
	require.Len(t, got, 1, "[nil,c) does not reach c; [d,nil) does")
	assert.Equal(t, "d", string(got[0].Start))
}

func TestSnapshotIsolation(t *testing.T) {
	m := New()
	m.Apply(1, mut("k", row("a", cell("v", 1, "1"))))
	m.Apply(1, mut("k", row("b", cell("v", 1, "1"))))
	ps, _ := m.Get(1, []byte("k"))
	m.Apply(1, mut("k", row("c", cell("v", 1, "1"))))
	m.Apply(1, mut("k", row("a", cell("v", 2, "2"))))
	assert.Equal(t, []string{"a", "b"}, collect(t, ps.Rows(nil, false)))
	it := ps.Rows(nil, false)
	r, _ := it.Next()
	assert.Equal(t, "1", string(r.Cells[0].Value), "snapshot keeps the old version")
	ps2, _ := m.Get(1, []byte("k"))
	assert.Equal(t, []string{"c", "b", "a"}, collect(t, ps2.Rows(nil, true)))
}

func TestSlicesForwardReverse(t *testing.T) {
	m := New()
	for i := 0; i < 1000; i++ {
		m.Apply(1, mut("k", row(fmt.Sprintf("%04d", i), cell("v", 1, "x"))))
	}
	ps, _ := m.Get(1, []byte("k"))
	sl := data.Slices{{Start: []byte("0010"), End: []byte("0013")}, {Start: []byte("0500"), End: []byte("0502")}, {Start: []byte("0998")}}
	assert.Equal(t, []string{"0010", "0011", "0012", "0500", "0501", "0998", "0999"}, collect(t, ps.Rows(sl, false)))
	assert.Equal(t, []string{"0999", "0998", "0501", "0500", "0012", "0011", "0010"}, collect(t, ps.Rows(sl, true)))
	assert.Len(t, collect(t, ps.Rows(nil, true)), 1000)
	assert.Empty(t, collect(t, ps.Rows(data.Slices{{Start: []byte("1"), End: []byte("2")}}, false)))
}

func TestSingleInlineRow(t *testing.T) {
	m := New()
	m.Apply(1, mut("k", row("b", cell("v", 1, "x"))))
	ps, _ := m.Get(1, []byte("k"))
	assert.Equal(t, []string{"b"}, collect(t, ps.Rows(nil, true)))
	assert.Empty(t, collect(t, ps.Rows(data.Slices{{End: []byte("b")}}, false)))
	assert.Equal(t, []string{"b"}, collect(t, ps.Rows(data.Slices{{Start: []byte("b"), End: []byte("c")}}, false)))
}

func TestScanTokenRange(t *testing.T) {
	m := New()
	for _, tok := range []int64{-5, 0, 3, 3, 9} {
		m.Apply(tok, mut(fmt.Sprintf("k%d", tok), row("a", cell("v", 1, "x"))))
	}
	m.Apply(3, mut("a3", row("a", cell("v", 1, "x"))))
	scan := func(r data.TokenRange) []string {
		it := m.Scan(r)
		var out []string
		for {
			ps, ok := it.Next()
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%d/%s", ps.Token(), ps.Key()))
		}
		require.NoError(t, it.Close())
		return out
	}
	assert.Equal(t, []string{"-5/k-5", "0/k0", "3/a3", "3/k3", "9/k9"}, scan(data.FullRing))
	assert.Equal(t, []string{"3/a3", "3/k3"}, scan(data.TokenRange{Start: 0, End: 3}))
	assert.Equal(t, []string{"0/k0", "3/a3", "3/k3"}, scan(data.TokenRange{Start: 0, End: 8, StartInclusive: true}))
	assert.Empty(t, scan(data.TokenRange{Start: 10, End: 20}))
	// Many partitions exercise the batched seeks.
	for i := 0; i < 2000; i++ {
		m.Apply(int64(100+i), mut("p", row("a", cell("v", 1, "x"))))
	}
	assert.Len(t, scan(data.TokenRange{Start: 99, End: 1<<63 - 1}), 2000)
}

// TestRowsModel checks row iteration over random slices against a sorted
// slice of keys.
func TestRowsModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfDistinct(rapid.StringMatching(`[a-e]{0,3}`), func(s string) string { return s }).Draw(t, "keys")
		m := New()
		for _, k := range keys {
			m.Apply(1, mut("k", row(k, cell("v", 1, "x"))))
		}
		bounds := rapid.SliceOfDistinct(rapid.StringMatching(`[a-e]{1,3}`), func(s string) string { return s }).Draw(t, "bounds")
		sort.Strings(bounds)
		var sl data.Slices
		for i := 0; i+1 < len(bounds); i += 2 {
			sl = append(sl, data.Slice{Start: []byte(bounds[i]), End: []byte(bounds[i+1])})
		}
		if rapid.Bool().Draw(t, "openEnd") && len(bounds)%2 == 1 {
			sl = append(sl, data.Slice{Start: []byte(bounds[len(bounds)-1])})
		}
		sorted := append([]string(nil), keys...)
		sort.Strings(sorted)
		var want []string
		for _, k := range sorted {
			if sl.Contains([]byte(k)) {
				want = append(want, k)
			}
		}
		reverse := rapid.Bool().Draw(t, "reverse")
		if reverse {
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		ps, ok := m.Get(1, []byte("k"))
		if len(keys) == 0 {
			if ok {
				t.Fatal("empty memtable returned a partition")
			}
			return
		}
		var got []string
		it := ps.Rows(sl, reverse)
		for {
			r, ok := it.Next()
			if !ok {
				break
			}
			got = append(got, string(r.Clustering))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("slices %q reverse=%v: got %q want %q", sl, reverse, got, want)
		}
	})
}

// TestConcurrentApplyAndRead runs writers and readers at once (meaningful
// under -race) and checks that every reader sees whole mutations: each
// mutation writes the same value to two rows of a partition.
func TestConcurrentApplyAndRead(t *testing.T) {
	m := New()
	const writers, readers, n = 4, 4, 300
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				v := fmt.Sprintf("%d-%05d", w, i)
				ts := int64(i*writers + w + 1)
				key := fmt.Sprintf("k%d", i%5)
				m.Apply(int64(i%5-2)<<61, mut(key, row("a", cell("v", ts, v)), row("b", cell("v", ts, v))))
			}
		}(w)
	}
	errs := make(chan error, readers)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				scan := m.Scan
				if r%2 == 1 {
					scan = m.ScanReuse
				}
				it := scan(data.FullRing)
				for {
					ps, ok := it.Next()
					if !ok {
						break
					}
					rows := ps.Rows(nil, i%2 == 0)
					var vals [][]byte
					for {
						r, ok := rows.Next()
						if !ok {
							break
						}
						vals = append(vals, r.Cells[0].Value)
					}
					if len(vals) != 2 || !bytes.Equal(vals[0], vals[1]) {
						errs <- fmt.Errorf("torn read of %s: %q", ps.Key(), vals)
						return
					}
				}
			}
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 5, m.Len())
}

// describe renders a partition source with its rows, for comparing scans.
func describe(ps data.PartitionSource) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d/%s del=%v rts=%d", ps.Token(), ps.Key(), ps.Deletion(), len(ps.RangeTombstones(nil)))
	if st := ps.Static(); st != nil {
		fmt.Fprintf(&b, " static=%d", len(st.Cells))
	}
	rows := ps.Rows(nil, false)
	for {
		r, ok := rows.Next()
		if !ok {
			break
		}
		fmt.Fprintf(&b, " %s:%s", r.Clustering, r.Cells[0].Value)
	}
	_ = rows.Close()
	return b.String()
}

// TestScanReuseMatchesScan checks that ScanReuse, whose snapshot is
// overwritten by each Next, sees the same partitions as Scan: narrow and
// wide ones, with partition deletions, statics and range tombstones.
func TestScanReuseMatchesScan(t *testing.T) {
	m := New()
	for i := 0; i < 500; i++ {
		mu := mut(fmt.Sprintf("k%d", i), row("a", cell("v", 1, fmt.Sprint(i))))
		switch i % 5 {
		case 1:
			mu.Rows = append(mu.Rows, row("b", cell("v", 2, "b")), row("c", cell("v", 2, "c")))
		case 2:
			mu.PartitionDeletion = data.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 6}
		case 3:
			st := row("", cell("s", 3, "s"))
			mu.Static = &st
		case 4:
			mu.RangeTombstones = []data.RangeTombstone{{Start: []byte("x"), End: []byte("y"),
				Deletion: data.DeletionTime{MarkedForDeleteAt: 7, LocalDeletionTime: 8}}}
		}
		m.Apply(int64(i*7919%1000-500), mu)
	}
	all := func(it data.PartitionIterator) []string {
		var out []string
		for {
			ps, ok := it.Next()
			if !ok {
				break
			}
			out = append(out, describe(ps))
		}
		require.NoError(t, it.Err())
		require.NoError(t, it.Close())
		return out
	}
	want := all(m.Scan(data.FullRing))
	require.Len(t, want, 500)
	assert.Equal(t, want, all(m.ScanReuse(data.FullRing)))
	r := data.TokenRange{Start: -100, End: 100}
	assert.Equal(t, all(m.Scan(r)), all(m.ScanReuse(r)))
}

// TestScanReuseRowReads checks that a ScanReuse ring snapshot, whose row
// iterator is reset for each partition it is reused for (keeping its B-tree
// walk and its cell array), reads every partition's rows as a fresh Scan
// snapshot does: partitions of one, two and many cells and of different
// column names follow one another, wide ones read forward, in reverse and
// in slices, and a second Rows call on one snapshot gets an iterator of
// its own.
func TestScanReuseRowReads(t *testing.T) {
	m := New()
	for i := 0; i < 600; i++ {
		var cells []data.Cell
		for c := 0; c <= i%4; c++ {
			cells = append(cells, cell(fmt.Sprintf("c%d%d", c, i%3), int64(i), fmt.Sprint(i, c)))
		}
		mu := mut(fmt.Sprintf("k%d", i), row("m", cells...))
		for w := 0; w < (i%7)*9; w++ {
			mu.Rows = append(mu.Rows, row(fmt.Sprintf("r%03d", w), cell("v", 1, fmt.Sprint(w))))
		}
		m.Apply(int64(i*7919%2000-1000), mu)
	}
	readers := []struct {
		slices  data.Slices
		reverse bool
	}{
		{nil, false},
		{nil, true},
		{data.Slices{{Start: []byte("r010"), End: []byte("r020")}, {Start: []byte("r040")}}, false},
		{data.Slices{{End: []byte("r005")}, {Start: []byte("r030"), End: []byte("r050")}}, true},
	}
	read := func(ps data.PartitionSource, slices data.Slices, reverse bool) string {
		var b bytes.Buffer
		rows := ps.Rows(slices, reverse)
		for {
			r, ok := rows.Next()
			if !ok {
				break
			}
			fmt.Fprintf(&b, " %s:", r.Clustering)
			for _, c := range r.Cells {
				fmt.Fprintf(&b, "%s=%s@%d,", c.Column, c.Value, c.Timestamp)
			}
		}
		require.NoError(t, rows.Close())
		return b.String()
	}
	all := func(it data.PartitionIterator, ri int) []string {
		var out []string
		for {
			ps, ok := it.Next()
			if !ok {
				break
			}
			rd := readers[(ri+len(out))%len(readers)]
			out = append(out, fmt.Sprintf("%s:%s|%s", ps.Key(), read(ps, rd.slices, rd.reverse), read(ps, nil, false)))
		}
		require.NoError(t, it.Close())
		return out
	}
	for ri := range readers {
		want := all(m.Scan(data.FullRing), ri)
		require.Len(t, want, 600)
		assert.Equal(t, want, all(m.ScanReuse(data.FullRing), ri))
	}
}

// TestConcurrentInserts races writers that insert the same new partitions
// (so two of them often miss in the lock-free lookup and meet under the
// shard's mutex) against readers: a Get for a partition whose insert has
// returned must find it, and every scan must be sorted and free of
// duplicates while buckets split and directories double under it. At the
// end every partition is in the index exactly once. Run it under -race.
func TestConcurrentInserts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tokenOf func(i int) int64
	}{
		{"uniform", func(i int) int64 { return int64(uint64(i)*0x9E3779B97F4A7C15) >> 2 }}, // 4 shards
		{"clustered", func(i int) int64 { return int64(i) * 7919 }},                        // nested directories
	} {
		t.Run(tc.name, func(t *testing.T) { testConcurrentInserts(t, tc.tokenOf) })
	}
}

func testConcurrentInserts(t *testing.T, tokenOf func(i int) int64) {
	m := New()
	const writers, n = 4, 3000
	var done [writers]atomic.Int64 // done[w]: writer w applied keys below it
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				m.Apply(tokenOf(i), mut(fmt.Sprintf("k%d", i), row("a", cell("v", int64(w+1), "x"))))
				done[w].Store(int64(i + 1))
			}
		}(w)
	}
	errs := make(chan error, 2)
	stop := make(chan struct{})
	var rg sync.WaitGroup
	rg.Add(2)
	go func() {
		defer rg.Done()
		for i := 0; ; i = (i + 1) % n {
			select {
			case <-stop:
				return
			default:
			}
			if int64(i) < done[i%writers].Load() {
				if _, ok := m.Get(tokenOf(i), []byte(fmt.Sprintf("k%d", i))); !ok {
					errs <- fmt.Errorf("partition k%d missing after its insert returned", i)
					return
				}
			}
		}
	}()
	go func() {
		defer rg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			it := m.Scan(data.FullRing)
			var last data.PartitionSource
			for {
				ps, ok := it.Next()
				if !ok {
					break
				}
				if last != nil && data.ComparePartitions(last.Token(), last.Key(), ps.Token(), ps.Key()) >= 0 {
					errs <- fmt.Errorf("scan out of order: %d/%s then %d/%s", last.Token(), last.Key(), ps.Token(), ps.Key())
					return
				}
				last = ps
			}
		}
	}()
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, n, m.Len())
	total := 0
	for i := range m.writable().shards {
		c, err := checkIndex(&m.writable().shards[i].parts)
		require.NoError(t, err)
		total += c
	}
	assert.Equal(t, n, total)
}

// TestPrefetchBeforeAndAfterWrites checks that Prefetch is a hint only: it
// is safe on a memtable that has no shards yet (nothing written) and for
// tokens whose bucket does not exist, and it changes nothing a read sees.
func TestPrefetchBeforeAndAfterWrites(t *testing.T) {
	m := New()
	m.Prefetch(1)
	m.Prefetch(math.MinInt64)
	_, ok := m.Get(1, []byte("k"))
	assert.False(t, ok)
	m.Apply(1, mut("k", row("a", cell("v", 10, "x"))))
	for _, tok := range []int64{1, -1, math.MinInt64, math.MaxInt64} {
		m.Prefetch(tok)
	}
	_, ok = m.Get(1, []byte("k"))
	assert.True(t, ok)
}

// TestNewNarrowPartitionKeyAndRow checks the one-allocation insert of a new
// partition of one row (its row encoded before the shard's lock, stored
// right after its key): the key and the row read back intact after the
// caller's buffers are overwritten, for a short row, for one whose encoding
// exceeds the stack space (preSize), and for one larger than a shared arena
// chunk; and a second row, a static row or a partition deletion on the
// same partition later still merge with it.
func TestNewNarrowPartitionKeyAndRow(t *testing.T) {
	m := New()
	for i, size := range []int{1, preSize + 10, maxChunk} {
		key := fmt.Sprintf("key%d", i)
		value := bytes.Repeat([]byte{'a' + byte(i)}, size)
		mu := mut(key, row("ck", data.Cell{Column: "v", Kind: data.CellRegular, Timestamp: 5, LocalDeletionTime: data.NoDeletionTime, Value: value}))
		m.Apply(int64(i), mu)
		want := string(value)
		for _, b := range [][]byte{mu.Key, mu.Rows[0].Clustering, value} {
			for j := range b {
				b[j] = '!'
			}
		}
		ps, ok := m.Get(int64(i), []byte(key))
		require.True(t, ok, key)
		assert.Equal(t, key, string(ps.Key()))
		it := ps.Rows(nil, false)
		got, ok := it.Next()
		require.True(t, ok, key)
		assert.Equal(t, "ck", string(got.Clustering))
		assert.Equal(t, want, string(got.Cells[0].Value), key)
		_, ok = it.Next()
		assert.False(t, ok)
		// The row is kept after the key, with no pointer of its own.
		p := m.writable().shards[shardOf(int64(i))].parts.get(int64(i), []byte(key))
		require.NotNil(t, p, key)
		assert.Nil(t, p.one, key)
		var dr data.Row
		decodeRow(p.row(), &dr)
		assert.Equal(t, want, string(dr.Cells[0].Value), key)
	}
	st := row("", cell("s", 6, "static"))
	second := mut("key0", row("ck2", cell("v", 6, "second")))
	second.Static = &st
	m.Apply(0, second)
	ps, ok := m.Get(0, []byte("key0"))
	require.True(t, ok)
	assert.Equal(t, "static", string(ps.Static().Cells[0].Value))
	assert.Equal(t, []string{"ck", "ck2"}, collect(t, ps.Rows(nil, false)))
}

// TestConcurrentNewNarrowPartitions has writers insert the same new narrow
// partitions at once, each with its own timestamp and value, so that most
// inserts lose the race to another writer's (the one-allocation insert
// then gives its partition back and merges into the winner's): every
// partition ends with its key and the value of the highest timestamp.
func TestConcurrentNewNarrowPartitions(t *testing.T) {
	m := New()
	const writers, n = 4, 2000
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				m.Apply(int64(uint64(i)*0x9E3779B97F4A7C15), mut(fmt.Sprintf("k%d", i), row("a", cell("v", int64(w+1), fmt.Sprintf("w%d", w)))))
			}
		}(w)
	}
	wg.Wait()
	require.Equal(t, n, m.Len())
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%d", i)
		ps, ok := m.Get(int64(uint64(i)*0x9E3779B97F4A7C15), []byte(key))
		require.True(t, ok, key)
		require.Equal(t, key, string(ps.Key()))
		it := ps.Rows(nil, false)
		got, ok := it.Next()
		require.True(t, ok, key)
		require.Equal(t, fmt.Sprintf("w%d", writers-1), string(got.Cells[0].Value), key)
		require.Equal(t, int64(writers), got.Cells[0].Timestamp, key)
	}
}

// TestNextEncodedMatchesNext reads every partition of a memtable (narrow
// ones with an inline row, wide ones, rows of changing cell counts, names
// and column deletions, rows without cells) twice from ScanReuse: with
// Next, and with NextEncoded decoded by one RowDecoder, after the walk (as
// a flush's writer does, the bytes must outlive the iterator), forward, in
// reverse and in a slice, and checks the rows are the same.
func TestNextEncodedMatchesNext(t *testing.T) {
	m := New()
	for i := 0; i < 400; i++ {
		var cells []data.Cell
		for c := 0; c < i%5; c++ {
			cells = append(cells, cell(fmt.Sprintf("c%d%d", c, i%3), int64(i), fmt.Sprint(i, c)))
		}
		r := row("m", cells...)
		if i%11 == 0 {
			r.ColumnDeletions = []data.ColumnDeletion{{Column: "c0", Deletion: data.DeletionTime{MarkedForDeleteAt: 3, LocalDeletionTime: 4}}}
		}
		if len(cells) == 0 {
			r.Liveness = data.LivenessInfo{Timestamp: 5, ExpiresAt: data.NoDeletionTime}
		}
		mu := mut(fmt.Sprintf("k%d", i), r)
		for w := 0; w < (i%6)*40; w++ {
			mu.Rows = append(mu.Rows, row(fmt.Sprintf("r%03d", w), cell("v", 1, fmt.Sprint(w))))
		}
		m.Apply(int64(i*7919%2000-1000), mu)
	}
	type enc interface{ NextEncoded() ([]byte, bool) }
	for _, c := range []struct {
		slices  data.Slices
		reverse bool
	}{{nil, false}, {nil, true}, {data.Slices{{Start: []byte("r010"), End: []byte("r100")}}, false}} {
		var want []string
		var encs [][]byte
		for _, useEnc := range []bool{false, true} {
			it := m.ScanReuse(data.FullRing)
			for {
				ps, ok := it.Next()
				if !ok {
					break
				}
				rows := ps.Rows(c.slices, c.reverse)
				for {
					if useEnc {
						b, ok := rows.(enc).NextEncoded()
						if !ok {
							break
						}
						encs = append(encs, b)
						continue
					}
					r, ok := rows.Next()
					if !ok {
						break
					}
					want = append(want, fmt.Sprintf("%+v", *r))
				}
				require.NoError(t, rows.Close())
			}
			require.NoError(t, it.Close())
		}
		var d RowDecoder
		var got []string
		for _, b := range encs {
			got = append(got, fmt.Sprintf("%+v", *d.Decode(b)))
		}
		require.NotEmpty(t, want)
		require.Equal(t, want, got)
	}
}
