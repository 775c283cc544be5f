package memtable

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"sort"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/data"
)

// optBytes draws nil, an empty slice or a few bytes.
func optBytes(t *rapid.T, label string) []byte {
	switch rapid.IntRange(0, 3).Draw(t, label+"Kind") {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	return rapid.SliceOfN(rapid.Byte(), 1, 40).Draw(t, label)
}

// anyTime draws a value of one of the fields' interesting kinds: a
// sentinel, an extreme, a small or a microsecond-clock value.
func anyTime(t *rapid.T, label string) int64 {
	return rapid.SampledFrom([]int64{data.NoTimestamp, data.NoDeletionTime, math.MinInt64, math.MaxInt64, 0, 1, -1,
		1_700_000_000_000_000, rapid.Int64().Draw(t, label+"Any")}).Draw(t, label)
}

// drawRow draws a row with every field of data.Row exercised.
func drawRow(t *rapid.T, clustering []byte) data.Row {
	r := data.Row{Clustering: clustering, Liveness: data.EmptyLiveness, Deletion: data.LiveDeletion}
	if rapid.Bool().Draw(t, "live") {
		r.Liveness.Timestamp = anyTime(t, "liveTS")
	}
	if rapid.IntRange(0, 3).Draw(t, "ttl") == 0 {
		r.Liveness.TTL = rapid.Int32().Draw(t, "liveTTL")
		r.Liveness.ExpiresAt = anyTime(t, "expires")
	}
	if rapid.IntRange(0, 3).Draw(t, "deleted") == 0 {
		r.Deletion = data.DeletionTime{MarkedForDeleteAt: anyTime(t, "mfda"), LocalDeletionTime: anyTime(t, "ldt")}
	}
	switch rapid.IntRange(0, 3).Draw(t, "cds") {
	case 0:
		r.ColumnDeletions = []data.ColumnDeletion{}
	case 1:
		for _, col := range rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{0,4}`), 1, 3, func(s string) string { return s }).Draw(t, "cdCols") {
			r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: col,
				Deletion: data.DeletionTime{MarkedForDeleteAt: anyTime(t, "cdMfda"), LocalDeletionTime: anyTime(t, "cdLdt")}})
		}
	}
	cols := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{0,6}`), 0, 6, func(s string) string { return s }).Draw(t, "cols")
	sort.Strings(cols)
	for _, col := range cols {
		c := data.Cell{Column: col, Kind: data.CellKind(rapid.IntRange(0, 2).Draw(t, "kind")),
			Timestamp: anyTime(t, "ts"), LocalDeletionTime: anyTime(t, "cellLdt"), Path: optBytes(t, "path"), Value: optBytes(t, "value")}
		if rapid.Bool().Draw(t, "cellTTL") {
			c.TTL = rapid.Int32().Draw(t, "cellTTLValue")
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// TestRowEncodingRoundTrip checks that decodeRow returns exactly the row
// encodeRow encoded (nil and empty slices told apart), also when decoding
// into a row whose arrays a bigger row used before.
func TestRowEncodingRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var into data.Row
		for i := 0; i < 3; i++ {
			want := drawRow(t, optBytes(t, "clustering"))
			enc := encodeRow(nil, &want)
			assert.Equal(t, want.Clustering, rowClustering(enc))
			decodeRow(enc, &into)
			got := into
			if len(got.Cells) == 0 && want.Cells == nil {
				got.Cells = nil // the decoder's reused array
			}
			if !assert.Equal(t, want, got) {
				t.Fatalf("round trip of %+v", want)
			}
		}
	})
}

// drawPlainRow draws a plain row (see PlainRow), then, half of the time,
// breaks one of the conditions that make it plain.
func drawPlainRow(t *rapid.T, clustering []byte) data.Row {
	ts := rapid.SampledFrom([]int64{0, 1, -1, math.MaxInt64, 1_700_000_000_000_000}).Draw(t, "plainTS")
	r := data.Row{Clustering: clustering, Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
		Deletion: data.LiveDeletion}
	cols := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{0,6}`), 0, 4, func(s string) string { return s }).Draw(t, "plainCols")
	sort.Strings(cols)
	for _, col := range cols {
		r.Cells = append(r.Cells, data.Cell{Column: col, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: optBytes(t, "plainValue")})
	}
	if !rapid.Bool().Draw(t, "break") {
		return r
	}
	c := &data.Cell{}
	if len(r.Cells) > 0 {
		c = &r.Cells[rapid.IntRange(0, len(r.Cells)-1).Draw(t, "brokenCell")]
	}
	switch rapid.IntRange(0, 9).Draw(t, "how") {
	case 0:
		r.Liveness.Timestamp = data.NoTimestamp
	case 1:
		r.Liveness.TTL, r.Liveness.ExpiresAt = 60, 1_700_000_000
	case 2:
		r.Deletion = data.DeletionTime{MarkedForDeleteAt: 1, LocalDeletionTime: 1_700_000_000}
	case 3:
		r.ColumnDeletions = []data.ColumnDeletion{}
	case 4:
		c.Timestamp = ts - 1
	case 5:
		c.TTL, c.LocalDeletionTime = 60, 1_700_000_060
	case 6:
		c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, 1_700_000_000
	case 7:
		c.Path = []byte{}
	case 8:
		c.Kind = data.CellCounter
	case 9:
		c.LocalDeletionTime = 1_700_000_000
	}
	return r
}

// isPlain reports whether r has PlainRow's shape.
func isPlain(r *data.Row) bool {
	l := r.Liveness
	if l.Timestamp == data.NoTimestamp || l.TTL != 0 || l.ExpiresAt != data.NoDeletionTime ||
		r.Deletion != data.LiveDeletion || r.ColumnDeletions != nil {
		return false
	}
	for _, c := range r.Cells {
		if c.Kind != data.CellRegular || c.Path != nil || c.TTL != 0 || c.LocalDeletionTime != data.NoDeletionTime || c.Timestamp != l.Timestamp {
			return false
		}
	}
	return true
}

// TestDecodePlain checks that DecodePlain takes exactly the plain rows,
// each with the clustering, timestamp, columns and values (nil and empty
// told apart) and size that Decode's data.Row has, also when it decodes
// into a PlainRow a bigger row used before.
func TestDecodePlain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var d RowDecoder
		for i := 0; i < 4; i++ {
			var want data.Row
			if rapid.Bool().Draw(t, "plain") {
				want = drawPlainRow(t, optBytes(t, "clustering"))
			} else {
				want = drawRow(t, optBytes(t, "clustering"))
			}
			enc := encodeRow(nil, &want)
			p, ok := d.DecodePlain(enc)
			if !assert.Equal(t, isPlain(&want), ok, "%+v", want) || !ok {
				continue
			}
			assert.Equal(t, want.Clustering, p.Clustering)
			assert.Equal(t, want.Clustering == nil, p.Clustering == nil, "nil clustering")
			assert.Equal(t, want.Liveness.Timestamp, p.Timestamp)
			require.Len(t, p.Columns, len(want.Cells))
			require.Len(t, p.Values, len(want.Cells))
			for j, c := range want.Cells {
				assert.Equal(t, c.Column, p.Columns[j])
				assert.Equal(t, c.Value, p.Values[j], "cell %d", j)
				assert.Equal(t, c.Value == nil, p.Values[j] == nil, "cell %d: nil value", j)
			}
			assert.Equal(t, want.Size(), p.Size())
		}
	})
}

// TestDecodeRowAllocates checks that decoding a row of a few cells into a
// row with room for them allocates nothing.
func TestDecodeRowAllocates(t *testing.T) {
	r := row("ck", cell("a", 5, "x"), cell("b", 5, "yy"), cell("c", 6, ""))
	enc := encodeRow(nil, &r)
	var into data.Row
	into.Cells = make([]data.Cell, 0, 4)
	assert.Zero(t, testing.AllocsPerRun(100, func() { decodeRow(enc, &into) }))
	assert.Equal(t, r, into)
}

// TestNarrowRowEncodingSize guards the size the encoding's documentation
// gives: a narrow row of one 16-byte value in 33 bytes.
func TestNarrowRowEncodingSize(t *testing.T) {
	r := data.Row{Clustering: []byte("c"), Liveness: data.LivenessInfo{Timestamp: 1_700_000_000_000_000, ExpiresAt: data.NoDeletionTime},
		Deletion: data.LiveDeletion, Cells: []data.Cell{{Column: "v", Timestamp: 1_700_000_000_000_000,
			LocalDeletionTime: data.NoDeletionTime, Value: []byte("0123456789abcdef")}}}
	assert.Equal(t, 33, len(encodeRow(nil, &r)))
}

// TestApplyCopiesMutation checks that the memtable keeps none of the
// caller's memory: overwriting every byte of an applied mutation changes
// nothing that reads return.
func TestApplyCopiesMutation(t *testing.T) {
	m := New()
	c := cell("v", 1, "value")
	c.Path = []byte("path")
	r := row("ck", c)
	mu := mut("key", r)
	mu.RangeTombstones = []data.RangeTombstone{{Start: []byte("a"), End: []byte("b"), Deletion: data.DeletionTime{MarkedForDeleteAt: 1, LocalDeletionTime: 1}}}
	st := row("", cell("s", 1, "static"))
	mu.Static = &st
	m.Apply(9, mu)
	for _, b := range [][]byte{mu.Key, r.Clustering, c.Value, c.Path, mu.RangeTombstones[0].Start, mu.RangeTombstones[0].End, st.Cells[0].Value} {
		for i := range b {
			b[i] = '!'
		}
	}
	mu.Rows[0].Cells[0].Timestamp = 99
	ps, ok := m.Get(9, []byte("key"))
	require.True(t, ok)
	assert.Equal(t, "key", string(ps.Key()))
	assert.Equal(t, "static", string(ps.Static().Cells[0].Value))
	rts := ps.RangeTombstones(nil)
	require.Len(t, rts, 1)
	assert.Equal(t, "a", string(rts[0].Start))
	assert.Equal(t, "b", string(rts[0].End))
	it := ps.Rows(nil, false)
	got, ok := it.Next()
	require.True(t, ok)
	assert.Equal(t, "ck", string(got.Clustering))
	assert.Equal(t, "value", string(got.Cells[0].Value))
	assert.Equal(t, "path", string(got.Cells[0].Path))
	assert.Equal(t, int64(1), got.Cells[0].Timestamp)
}

// TestApplyModel applies random rows (new ones and overwrites, to narrow
// and wide partitions, static rows included) to a memtable and to a model
// that reconciles with data.MergeRows, and compares every row read back,
// forward and reverse.
func TestApplyModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := New()
		type pkey struct {
			token int64
			key   string
		}
		model := map[pkey]map[string]data.Row{}
		statics := map[pkey]data.Row{}
		for _, step := range rapid.SliceOfN(rapid.IntRange(0, 1<<20), 1, 30).Draw(t, "steps") {
			pk := pkey{int64(step % 3), fmt.Sprint("k", step%5)}
			ck := []byte(rapid.StringMatching(`[a-d]{1,2}`).Draw(t, "ck"))
			in := drawRow(t, ck)
			mu := mut(pk.key, in)
			var st data.Row
			if rapid.IntRange(0, 4).Draw(t, "static") == 0 {
				st = drawRow(t, []byte{})
				mu.Static = &st
			}
			m.Apply(pk.token, mu)
			if mu.Static != nil && !st.IsEmpty() {
				if old, ok := statics[pk]; ok {
					st = data.MergeRows(&old, &st)
				}
				statics[pk] = st
			}
			rows := model[pk]
			if rows == nil {
				rows = map[string]data.Row{}
				model[pk] = rows
			}
			if old, ok := rows[string(ck)]; ok {
				in = data.MergeRows(&old, &in)
			}
			rows[string(ck)] = in
		}
		for pk, rows := range model {
			ps, ok := m.Get(pk.token, []byte(pk.key))
			require.True(t, ok)
			if want, ok := statics[pk]; ok {
				require.NotNil(t, ps.Static())
				assert.Equal(t, fmt.Sprint(want), fmt.Sprint(*ps.Static()))
			}
			var cks []string
			for ck := range rows {
				cks = append(cks, ck)
			}
			sort.Strings(cks)
			for _, reverse := range []bool{false, true} {
				it := ps.Rows(nil, reverse)
				for i := range cks {
					want := rows[cks[i]]
					if reverse {
						want = rows[cks[len(cks)-1-i]]
					}
					got, ok := it.Next()
					require.True(t, ok)
					// Printed, so that nil and empty slices compare alike
					// (MergeRows and the decoder pick either).
					if fmt.Sprint(want) != fmt.Sprint(*got) {
						t.Fatalf("partition %v row %q reverse=%v:\ngot  %v\nwant %v", pk, cks[i], reverse, *got, want)
					}
				}
				_, ok := it.Next()
				require.False(t, ok)
				require.NoError(t, it.Close())
			}
		}
	})
}

// TestArena checks the arena's chunks: small allocations share one,
// growing chunks are counted when made, and a large allocation gets its
// own.
func TestArena(t *testing.T) {
	var a arena
	b, grown := a.alloc(10)
	assert.Len(t, b, 10)
	assert.Equal(t, 10, cap(b), "an allocation cannot be appended to past its end")
	assert.Equal(t, minChunk, grown)
	_, grown = a.alloc(minChunk - 10)
	assert.Zero(t, grown, "the first chunk had room")
	_, grown = a.alloc(1)
	assert.Equal(t, 2*minChunk, grown, "chunks double")
	_, grown = a.alloc(maxChunk/4 + 1)
	assert.Equal(t, maxChunk/4+1, grown, "a large allocation gets its own chunk")
	b, grown = a.alloc(5 * minChunk)
	assert.Len(t, b, 5*minChunk)
	assert.Equal(t, 8*minChunk, grown, "a chunk grows past doubling to hold an allocation")
	b, grown = a.alloc(maxChunk / 4)
	assert.Len(t, b, maxChunk/4)
	assert.Equal(t, 16*minChunk, grown, "the next chunk doubles")
	nb, grown := a.copyIn(nil)
	assert.Nil(t, nb)
	assert.Zero(t, grown)
	eb, _ := a.copyIn([]byte{})
	assert.NotNil(t, eb)
	assert.Empty(t, eb)
}

// TestSizeFollowsHeap checks that Size accounts for the memory narrow
// partitions hold: within a quarter of the heap's growth.
func TestSizeFollowsHeap(t *testing.T) {
	const n = 50_000
	var before, after runtimeMem
	before.read()
	m := New()
	for i := 0; i < n; i++ {
		m.Apply(int64(uint64(i)*0x9e3779b97f4a7c15), narrowMutation(i))
	}
	after.read()
	heap := float64(after.heap - before.heap)
	assert.InDelta(t, heap, float64(m.Size()), heap/4, "Size %d for %d heap bytes", m.Size(), after.heap-before.heap)
	keepAlive(m)
}

// runtimeMem is the live heap after a collection.
type runtimeMem struct{ heap uint64 }

func (r *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	r.heap = ms.HeapAlloc
}

func keepAlive(x any) { runtime.KeepAlive(x) }

// TestReadAllocations checks that decoding rows did not add allocations
// to reads: a point read of a narrow partition allocates its snapshot
// alone, and walking every row of a wide one allocates only the snapshot,
// the B-tree walk's state and its batches (8, 16, 32, ... rows): nothing
// per row.
func TestReadAllocations(t *testing.T) {
	m := New()
	m.Apply(1, mut("narrow", row("a", cell("v", 1, "x"), cell("w", 1, "y"))))
	for i := 0; i < 100; i++ {
		m.Apply(2, mut("wide", row(fmt.Sprintf("%03d", i), cell("v", 1, "x"))))
	}
	read := func(token int64, key string, want int) func() {
		return func() {
			ps, _ := m.Get(token, []byte(key))
			it := ps.Rows(nil, false)
			n := 0
			for _, ok := it.Next(); ok; _, ok = it.Next() {
				n++
			}
			if n != want {
				t.Fatalf("%s: %d rows, want %d", key, n, want)
			}
		}
	}
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, read(1, "narrow", 1)))
	read(2, "wide", 100)() // caches the tree's clone
	assert.Equal(t, 5.0, testing.AllocsPerRun(100, read(2, "wide", 100)), "the snapshot, the walk, its callback and its growing batches")

	// A snapshot released after its read (as the engine releases those of
	// a partition read) is reused with its walk by the next Get: a point
	// read allocates nothing, a walk of the wide partition only the
	// batches past the walk's own two (the pool may miss now and then,
	// when the goroutine changes processor).
	released := func(token int64, key string, want int) func() {
		return func() {
			ps, _ := m.Get(token, []byte(key))
			it := ps.Rows(nil, false)
			n := 0
			for _, ok := it.Next(); ok; _, ok = it.Next() {
				n++
			}
			require.NoError(t, it.Close())
			if n != want {
				t.Fatalf("%s: %d rows, want %d", key, n, want)
			}
			ps.(interface{ Release() }).Release()
		}
	}
	if raceEnabled {
		// The race detector's sync.Pool drops Puts at random: the
		// pooled counts below hold only without it (the order checks
		// after them still run).
		t.Log("pooled allocation counts not checked under -race")
	} else {
		assert.Less(t, testing.AllocsPerRun(100, released(1, "narrow", 1)), 1.0)
		assert.LessOrEqual(t, testing.AllocsPerRun(100, released(2, "wide", 100)), 2.0)
	}
	// A reused snapshot walks in the order its new read asks.
	for _, reverse := range []bool{true, false, true} {
		ps, _ := m.Get(2, []byte("wide"))
		it := ps.Rows(nil, reverse)
		var got []string
		for r, ok := it.Next(); ok; r, ok = it.Next() {
			got = append(got, string(r.Clustering))
		}
		require.NoError(t, it.Close())
		ps.(interface{ Release() }).Release()
		require.Len(t, got, 100)
		first, last := "000", "099"
		if reverse {
			first, last = last, first
		}
		assert.Equal(t, first, got[0], "reverse=%v", reverse)
		assert.Equal(t, last, got[99], "reverse=%v", reverse)
	}
}

// drawClustering draws a clustering of a length around the cases of
// lessItem (up to eight bytes inline, longer ones, ones whose length takes
// a two-byte uvarint in the row encoding) from bytes that are mostly the
// extremes, so that draws share prefixes and differ by zero bytes.
func drawClustering(t *rapid.T, label string) []byte {
	n := rapid.SampledFrom([]int{0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 16, 17, 126, 127, 128, 200}).Draw(t, label+"Len")
	ck := make([]byte, n)
	for i := range ck {
		ck[i] = rapid.SampledFrom([]byte{0x00, 0x00, 0x01, 0x40, 0x7f, 0x80, 0xfe, 0xff, rapid.Byte().Draw(t, label+"Any")}).Draw(t, label+"Byte")
	}
	return ck
}

// relatedClustering draws a clustering related to ck: unrelated, a prefix
// of it, it with bytes appended (zeros or others), or it with one byte
// changed.
func relatedClustering(t *rapid.T, ck []byte) []byte {
	switch rapid.IntRange(0, 4).Draw(t, "relation") {
	case 0:
		return drawClustering(t, "other")
	case 1:
		return ck[:rapid.IntRange(0, len(ck)).Draw(t, "prefixLen"):len(ck)]
	case 2:
		out := append([]byte(nil), ck...)
		for n := rapid.IntRange(1, 10).Draw(t, "extra"); n > 0; n-- {
			out = append(out, rapid.SampledFrom([]byte{0x00, 0x01, 0xff}).Draw(t, "extraByte"))
		}
		return out
	case 3:
		out := append([]byte(nil), ck...)
		if len(out) > 0 {
			i := rapid.IntRange(0, len(out)-1).Draw(t, "at")
			out[i] = rapid.Byte().Draw(t, "to")
		}
		return out
	}
	return append([]byte(nil), ck...)
}

// TestLessItemMatchesBytesCompare checks that the row B-tree's order,
// lessItem over the items of encoded rows and of seek keys (setPivot), is
// exactly bytes.Compare of the clusterings, including clusterings that
// share their inline eight bytes, that are prefixes of one another, that
// differ only by trailing zero bytes, and that are 127 bytes or longer
// (whose length the row encoding writes in two bytes). The items refer to
// copies in an arena, as the memtable's do (a rowRef keeps nothing alive,
// and must never refer to a stack).
func TestLessItemMatchesBytesCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ar arena
		in := func(b []byte) []byte {
			c, _ := ar.copyIn(b)
			return c
		}
		// Several pairs a check: the interesting ones are a few in a
		// thousand draws.
		for range 50 {
			a := drawClustering(t, "a")
			b := relatedClustering(t, a)
			ra, rb := drawRow(t, a), drawRow(t, b)
			ea, eb := in(encodeRow(nil, &ra)), in(encodeRow(nil, &rb))
			ia, ib := encodedRowItem(ea), encodedRowItem(eb)
			require.Equal(t, makeRowItem(ea, a), ia, "the item of a row and of its clustering")
			require.Equal(t, ea, ia.bytes())
			var wa, wb treeWalk
			sa, sb := wa.setPivot(a), wb.setPivot(b)
			pa, pb := encodedRowItem(in(wa.pivot)), encodedRowItem(in(wb.pivot))
			for _, c := range []struct {
				got, want rowItem
				pivot     []byte
			}{{sa, pa, wa.pivot}, {sb, pb, wb.pivot}} {
				require.Equal(t, rowRef(uintptr(unsafe.Pointer(&c.pivot[0]))), c.got.row, "a seek key refers to its walk's bytes")
				c.got.row = c.want.row
				require.Equal(t, c.want, c.got, "the item of a seek key")
			}
			want := bytes.Compare(a, b)
			for _, x := range []rowItem{ia, pa} {
				for _, y := range []rowItem{ib, pb} {
					require.Equal(t, want < 0, lessItem(x, y), "less(%x, %x)", a, b)
					require.Equal(t, want > 0, lessItem(y, x), "less(%x, %x)", b, a)
				}
			}
		}
		runtime.KeepAlive(&ar)
	})
}
