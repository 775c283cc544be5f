package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/sstable"
)

// drainTrace reads it as a compaction does, and returns what it saw as
// text: each partition's header, its rows (the first through
// EndsAfterRow's look when it has one, as partMerge.narrow reads it), its
// size once its rows are read, and the errors. With skip, every third
// partition's rows are left after the first, for Next to skip. Each row is
// printed again after the next call to its iterator's Next, whose bytes a
// merge may still hold then.
func drainTrace(t *testing.T, it data.PartitionIterator, skip bool) string {
	t.Helper()
	var b strings.Builder
	for n := 0; ; n++ {
		ps, ok := it.Next()
		if !ok {
			fmt.Fprintf(&b, "end err=%v\n", it.Err())
			break
		}
		fmt.Fprintf(&b, "partition %d %q del %+v rts %+v\n", ps.Token(), ps.Key(), ps.Deletion(), ps.RangeTombstones(nil))
		if st := ps.Static(); st != nil {
			fmt.Fprintf(&b, "  static %+v\n", *st)
		}
		rows := ps.Rows(nil, false)
		// prev holds the previous row's byte slices, held holds what they
		// said then.
		var prev [][]byte
		var held []string
		for i := 0; ; i++ {
			r, ok := rows.Next()
			for j, p := range prev {
				require.Equal(t, held[j], string(p), "partition %q row %d: its bytes changed", ps.Key(), i-1)
			}
			if !ok {
				fmt.Fprintf(&b, "  rows end err=%v\n", rows.Err())
				break
			}
			fmt.Fprintf(&b, "  row %+v\n", *r)
			// The iterator may decode the next row into the same struct
			// and cells, but not into the bytes they refer to.
			prev, held = append(prev[:0], r.Clustering), append(held[:0], string(r.Clustering))
			for _, c := range r.Cells {
				prev, held = append(prev, c.Path, c.Value), append(held, string(c.Path), string(c.Value))
			}
			if i == 0 {
				if e, ok := rows.(endsAfterRow); ok {
					fmt.Fprintf(&b, "  ends after row: %v\n", e.EndsAfterRow())
				}
			}
			if skip && n%3 == 0 {
				break
			}
		}
		if sz, ok := ps.(interface{ Size() uint64 }); ok && !(skip && n%3 == 0) {
			fmt.Fprintf(&b, "  size %d\n", sz.Size())
		}
		require.NoError(t, rows.Close())
	}
	require.NoError(t, it.Close())
	return b.String()
}

// TestReadAheadMatchesScan reads random SSTables (narrow and wide
// partitions, deletions, static rows, range tombstones, TTLs, collections)
// through their streaming scan, through onlyRows (NextOnlyRow on the same
// goroutine) and through a read-ahead of that scan with batches of one
// item up to the defaults, and requires the same trace:
// partitions, rows, sizes, EndsAfterRow, and rows whose bytes stay valid
// while the reader goes on.
func TestReadAheadMatchesScan(t *testing.T) {
	seed := compactionSeed(t)
	rng := rand.New(rand.NewPCG(seed, 45))
	for trial := range 12 {
		e, clock, tbl := newTestEngineOpts(t, Options{DisableAutoCompaction: true, CompactionThroughput: -1})
		randomCompactionLoad(t, rng, []*Engine{e}, []*ManualClock{clock}, tbl, trial%2 == 0)
		s, _ := e.store(tbl.ID)
		s.mu.RLock()
		ssts := append([]*sstableSource(nil), s.ssts...)
		s.mu.RUnlock()
		require.NotEmpty(t, ssts)
		for _, x := range ssts {
			for _, skip := range []bool{false, true} {
				before := x.r.ReadStats()
				want := drainTrace(t, x.r.ScanStream(e.Token), skip)
				wantSt := readStatsSince(x.r.ReadStats(), before)
				before = x.r.ReadStats()
				got := drainTrace(t, newOnlyRows(x.r.ScanStream(e.Token)), skip)
				require.Equal(t, want, got, "trial %d, SSTable %d, onlyRows, skip %v", trial, x.r.Gen(), skip)
				if !skip {
					require.Equal(t, wantSt, readStatsSince(x.r.ReadStats(), before), "trial %d, SSTable %d, onlyRows: read statistics", trial, x.r.Gen())
				}
				for _, lim := range []raLimits{{items: 1, bytes: 1}, {items: 2, bytes: 64}, {items: 3, bytes: 1 << 20}, {}} {
					before := x.r.ReadStats()
					got := drainTrace(t, newReadAhead(x.r.ScanStream(e.Token), lim), skip)
					require.Equal(t, want, got, "trial %d, SSTable %d, limits %+v, skip %v", trial, x.r.Gen(), lim, skip)
					if !skip {
						// The reader reads every row (NextOnlyRow or a row
						// iterator), as the scan read to the end does.
						require.Equal(t, wantSt, readStatsSince(x.r.ReadStats(), before), "trial %d, SSTable %d, limits %+v: read statistics", trial, x.r.Gen(), lim)
					}
				}
			}
		}
	}
}

// raFakePartition is a partition of raFakeSource.
type raFakePartition struct {
	key    []byte
	del    data.DeletionTime
	static *data.Row
	rts    []data.RangeTombstone
	rows   []data.Row
	// rowErr, when set, ends the rows after failRow of them with it.
	rowErr  error
	failRow int
}

func (p *raFakePartition) Key() []byte                                       { return p.key }
func (p *raFakePartition) Token() int64                                      { return int64(len(p.key)) }
func (p *raFakePartition) Deletion() data.DeletionTime                       { return p.del }
func (p *raFakePartition) Static() *data.Row                                 { return p.static }
func (p *raFakePartition) RangeTombstones(data.Slices) []data.RangeTombstone { return p.rts }
func (p *raFakePartition) Rows(data.Slices, bool) data.RowIterator           { return &raFakeRows{p: p} }

type raFakeRows struct {
	p   *raFakePartition
	i   int
	err error
	row data.Row
}

func (it *raFakeRows) Next() (*data.Row, bool) {
	if it.p.rowErr != nil && it.i == it.p.failRow {
		it.err = it.p.rowErr
		return nil, false
	}
	if it.i == len(it.p.rows) {
		return nil, false
	}
	// Decoded into the iterator's row, as an SSTable's row iterator does.
	it.row = it.p.rows[it.i]
	it.i++
	return &it.row, true
}
func (it *raFakeRows) Err() error   { return it.err }
func (it *raFakeRows) Close() error { return nil }

// raFakeSource is a partition iterator over fakePartitions that fails with
// err after them (when set), and counts its Close calls.
type raFakeSource struct {
	parts  []*raFakePartition
	i      int
	err    error
	closed int
}

func (s *raFakeSource) Next() (data.PartitionSource, bool) {
	if s.i == len(s.parts) {
		return nil, false
	}
	s.i++
	return s.parts[s.i-1], true
}
func (s *raFakeSource) Err() error {
	if s.i == len(s.parts) {
		return s.err
	}
	return nil
}
func (s *raFakeSource) Close() error {
	s.closed++
	return errors.New("fake close error")
}

// raFakeParts returns partitions of every shape, with nil and empty byte
// slices (which differ: an unbounded bound, a cell without a value).
func raFakeParts() []*raFakePartition {
	cell := func(col string, path, value []byte) data.Cell {
		return data.Cell{Column: col, Path: path, Timestamp: 7, LocalDeletionTime: data.NoDeletionTime, Value: value}
	}
	row := func(ck []byte, cells ...data.Cell) data.Row {
		r := data.NewRow(ck)
		r.Liveness = data.LivenessInfo{Timestamp: 5, ExpiresAt: data.NoDeletionTime}
		r.Cells = cells
		return r
	}
	st := row(nil, cell("s", nil, []byte{}))
	cd := row([]byte("c"), cell("m", []byte("x"), nil))
	cd.ColumnDeletions = []data.ColumnDeletion{{Column: "m", Deletion: data.DeletionTime{MarkedForDeleteAt: 3, LocalDeletionTime: 9}}}
	return []*raFakePartition{
		{key: []byte("a"), del: data.LiveDeletion, rows: []data.Row{row([]byte("a"), cell("v", nil, []byte("1")))}},
		{key: []byte("bb"), del: data.DeletionTime{MarkedForDeleteAt: 4, LocalDeletionTime: 8}, static: &st,
			rts:  []data.RangeTombstone{{Start: nil, End: []byte("b")}, {Start: []byte{}, End: nil}},
			rows: []data.Row{row([]byte{}, cell("v", nil, nil)), cd, row([]byte("d"))}},
		{key: []byte{}, del: data.LiveDeletion},
		{key: []byte("ccc"), del: data.LiveDeletion, rows: []data.Row{row([]byte("a"), cell("v", nil, []byte("2"))), row([]byte("b"))}},
	}
}

// TestReadAheadErrorsAndBytes reads fake sources of every shape directly
// and through read-aheads, and requires the same trace: nil and empty
// slices kept apart, a source's error after its last partition, and a
// row iterator's error inside a partition, each where the source reports
// it.
func TestReadAheadErrorsAndBytes(t *testing.T) {
	errScan := errors.New("scan failed")
	errRow := errors.New("row failed")
	for _, c := range []struct {
		name   string
		err    error
		rowErr int // partition whose rows fail after its first, or -1
	}{
		{"clean", nil, -1},
		{"scan error", errScan, -1},
		{"row error", nil, 1},
		{"row error in the last partition", nil, 3},
	} {
		mk := func() *raFakeSource {
			parts := raFakeParts()
			if c.rowErr >= 0 {
				parts[c.rowErr].rowErr, parts[c.rowErr].failRow = errRow, 1
			}
			return &raFakeSource{parts: parts, err: c.err}
		}
		for _, skip := range []bool{false, true} {
			direct := mk()
			want := drainTraceNoClose(t, direct, skip)
			require.Contains(t, want, "[true false] [false true]") // nil and empty bounds
			if c.rowErr < 0 || c.rowErr > 2 {
				require.Contains(t, want, "partition 0 \"\" nil=false") // an empty key
			}
			if c.err != nil {
				require.Contains(t, want, c.err.Error())
			}
			for _, lim := range []raLimits{{items: 1, bytes: 1}, {items: 2, bytes: 1 << 20}, {}} {
				src := mk()
				ra := newReadAhead(src, lim)
				got := drainTraceNoClose(t, ra, skip)
				require.Equal(t, want, got, "%s, limits %+v, skip %v", c.name, lim, skip)
				require.EqualError(t, ra.Close(), "fake close error")
				require.EqualError(t, ra.Close(), "fake close error") // closed once, reported again
				require.Equal(t, 1, src.closed)
			}
		}
	}
}

// drainTraceNoClose is drainTrace for an iterator whose Close the caller
// checks, and which may stop at a row error (the trace then ends there,
// as a compaction's merge stops).
func drainTraceNoClose(t *testing.T, it data.PartitionIterator, skip bool) string {
	t.Helper()
	var b strings.Builder
	for n := 0; ; n++ {
		ps, ok := it.Next()
		if !ok {
			fmt.Fprintf(&b, "end err=%v\n", it.Err())
			return b.String()
		}
		fmt.Fprintf(&b, "partition %d %q nil=%v del %+v static %v rts %+v", ps.Token(), ps.Key(), ps.Key() == nil, ps.Deletion(), ps.Static() != nil, ps.RangeTombstones(nil))
		for _, rt := range ps.RangeTombstones(nil) {
			fmt.Fprintf(&b, " [%v %v]", rt.Start == nil, rt.End == nil)
		}
		b.WriteString("\n")
		if st := ps.Static(); st != nil {
			fmt.Fprintf(&b, "  static %s\n", raRowText(st))
		}
		rows := ps.Rows(nil, false)
		for i := 0; ; i++ {
			r, ok := rows.Next()
			if !ok {
				fmt.Fprintf(&b, "  rows end err=%v\n", rows.Err())
				if rows.Err() != nil {
					return b.String()
				}
				break
			}
			fmt.Fprintf(&b, "  row %s\n", raRowText(r))
			if skip && n%2 == 0 {
				break
			}
		}
	}
}

// raRowText prints r with the nil-ness of its byte slices.
func raRowText(r *data.Row) string {
	s := fmt.Sprintf("%q nil=%v %+v %+v cds %+v", r.Clustering, r.Clustering == nil, r.Liveness, r.Deletion, r.ColumnDeletions)
	for _, c := range r.Cells {
		s += fmt.Sprintf(" cell %s %q/%v %q/%v", c.Column, c.Path, c.Path == nil, c.Value, c.Value == nil)
	}
	return s
}

// TestReadAheadClosedEarly closes read-aheads after a few partitions, or
// none, while their readers are blocked on full batches: Close returns
// once the reader has closed its source, exactly once.
func TestReadAheadClosedEarly(t *testing.T) {
	for stop := range 4 {
		parts := raFakeParts()
		for range 50 {
			parts = append(parts, raFakeParts()...)
		}
		src := &raFakeSource{parts: parts}
		ra := newReadAhead(src, raLimits{items: 1, bytes: 1})
		for range stop {
			_, ok := ra.Next()
			require.True(t, ok)
		}
		require.EqualError(t, ra.Close(), "fake close error")
		require.Equal(t, 1, src.closed)
	}
}

// readStatsSince returns the counts of now that came after then.
func readStatsSince(now, then sstable.ReadStats) sstable.ReadStats {
	return sstable.ReadStats{
		FilterChecks: now.FilterChecks - then.FilterChecks, FilterNegatives: now.FilterNegatives - then.FilterNegatives,
		IndexEntries: now.IndexEntries - then.IndexEntries, IndexBytes: now.IndexBytes - then.IndexBytes,
		Chunks: now.Chunks - then.Chunks, DataBytes: now.DataBytes - then.DataBytes,
		Blocks: now.Blocks - then.Blocks, Rows: now.Rows - then.Rows,
	}
}
