package sstable

import (
	"bytes"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
)

// refShadowedBy is what rowDecoder.shadowedBy must decide, on the decoded
// row b: package engine's rowMerger.dominant check of another version b
// against its choice a (same clustering, no row or column deletion, a
// liveness that does not supersede a's, and for each cell, not a counter,
// a cell of a of the same column and path at a strictly later timestamp),
// with a liveness timestamp strictly below a's and no cell of a path.
func refShadowedBy(b, a *data.Row) bool {
	if !bytes.Equal(b.Clustering, a.Clustering) || b.Deletion != data.LiveDeletion || len(b.ColumnDeletions) > 0 ||
		b.Liveness.Timestamp >= a.Liveness.Timestamp || b.Liveness.Supersedes(a.Liveness) {
		return false
	}
	j := 0
	for k := range b.Cells {
		c := &b.Cells[k]
		if c.Kind == data.CellCounter || c.Path != nil {
			return false
		}
		for j < len(a.Cells) && data.CompareID(&a.Cells[j], c) < 0 {
			j++
		}
		if j == len(a.Cells) || data.CompareID(&a.Cells[j], c) != 0 || a.Cells[j].Timestamp <= c.Timestamp {
			return false
		}
		j++
	}
	return true
}

// olderVersion returns a random version of a's row for shadowedBy to
// judge: mostly one a shadows (a subset of its cells at earlier
// timestamps), with each thing that must stop the skip now and then.
func olderVersion(rng *rand.Rand, a *data.Row, columns int) data.Row {
	b := data.NewRow(a.Clustering)
	if rng.Intn(12) == 0 {
		b.Clustering = append(slices.Clone(a.Clustering), 1)
	}
	back := func(ts int64) int64 {
		switch rng.Intn(10) {
		case 0:
			return ts // a tie
		case 1:
			return ts + 1
		}
		return ts - 1 - int64(rng.Intn(100))
	}
	switch rng.Intn(6) {
	case 0:
	case 1:
		b.Liveness = data.LivenessInfo{Timestamp: back(a.Liveness.Timestamp), TTL: 60, ExpiresAt: 1_700_000_100}
	default:
		b.Liveness = data.LivenessInfo{Timestamp: back(a.Liveness.Timestamp), ExpiresAt: data.NoDeletionTime}
	}
	if rng.Intn(20) == 0 {
		b.Liveness.TTL, b.Liveness.ExpiresAt = []int32{-1, data.MaxTTL + 1, data.ExpiredTTL}[rng.Intn(3)], 1_700_000_100
	}
	if rng.Intn(15) == 0 {
		b.Deletion = data.DeletionTime{MarkedForDeleteAt: back(a.Liveness.Timestamp), LocalDeletionTime: 1_700_000_000}
	}
	if rng.Intn(15) == 0 {
		b.ColumnDeletions = []data.ColumnDeletion{{Column: "col0", Deletion: data.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 7}}}
	}
	for i := range a.Cells {
		if rng.Intn(5) == 0 {
			continue
		}
		c := a.Cells[i]
		c.Timestamp = back(c.Timestamp)
		if rng.Intn(4) == 0 {
			c.Timestamp = b.Liveness.Timestamp // written at the row's timestamp
		}
		switch rng.Intn(12) {
		case 0:
			c.Kind, c.Value, c.LocalDeletionTime = data.CellTombstone, nil, 1_700_000_000
		case 1:
			c.TTL, c.LocalDeletionTime = 30, 1_700_000_030
		case 2:
			c.Kind, c.Value = data.CellCounter, data.CounterBytes(3)
		case 3:
			c.Path = []byte{byte(rng.Intn(2))}
		case 4:
			// A TTL the decoder refuses (the encoder writes any).
			c.TTL, c.LocalDeletionTime = []int32{-1, 0x7fffffff, data.MaxTTL + 1}[rng.Intn(3)], 1_700_000_030
		}
		b.Cells = append(b.Cells, c)
	}
	if rng.Intn(6) == 0 {
		// A column a may lack (it leaves some out), or none has.
		b.Cells = append(b.Cells, data.Cell{Column: "col" + strconv.Itoa(rng.Intn(columns+1)), Timestamp: 1, LocalDeletionTime: data.NoDeletionTime})
	}
	slices.SortFunc(b.Cells, func(x, y data.Cell) int { return data.CompareID(&x, &y) })
	b.Cells = slices.CompactFunc(b.Cells, func(x, y data.Cell) bool { return data.CompareID(&x, &y) == 0 })
	return b
}

// TestShadowedByMatchesDecode checks rowDecoder.shadowedBy against the
// decoder and refShadowedBy: for random rows a and records of other
// versions of them (many that a shadows, each way of not being shadowed,
// and records damaged by a flipped byte, a cut or an extra byte), it says
// yes exactly when decodeRow decodes the record and refShadowedBy accepts
// the row decoded, with its number of cells.
func TestShadowedByMatchesDecode(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	const columns = 4
	var e rowEncoder
	var yes, no int
	type pair struct {
		a   data.Row
		raw []byte
	}
	var pairs []pair
	for range 20000 {
		a := data.NewRow(randBytes(rng, 1+rng.Intn(6)))
		ts := int64(1_700_000_000_000_000 + rng.Intn(1000))
		a.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		switch rng.Intn(20) {
		case 0:
			a.Liveness = data.EmptyLiveness
		case 1:
			a.Liveness = data.LivenessInfo{Timestamp: ts, TTL: 60, ExpiresAt: 1_700_000_060}
		}
		for c := range columns {
			if rng.Intn(4) == 0 {
				continue
			}
			cell := data.Cell{Column: "col" + strconv.Itoa(c), Timestamp: ts - int64(rng.Intn(3)), LocalDeletionTime: data.NoDeletionTime,
				Value: randBytes(rng, rng.Intn(30))}
			if rng.Intn(10) == 0 {
				cell.Path = []byte{byte(rng.Intn(2))}
			}
			a.Cells = append(a.Cells, cell)
		}
		b := olderVersion(rng, &a, columns)
		raw := e.appendRow(nil, &b)
		switch rng.Intn(10) {
		case 0:
			raw[rng.Intn(len(raw))] ^= byte(1 + rng.Intn(255))
		case 1:
			raw = raw[:rng.Intn(len(raw))]
		case 2:
			raw = append(raw, byte(rng.Intn(256)))
		case 3:
			// An overlong varint (ten or eleven bytes, the last above 1)
			// in place of the liveness timestamp, or anywhere.
			i := rng.Intn(len(raw))
			if len(b.Clustering) < 0x80 && !b.Liveness.IsEmpty() && rng.Intn(2) == 0 {
				i = 1 + len(b.Clustering) + 1
				for j := i; j < len(raw) && raw[j] >= 0x80; j++ {
					raw = append(raw[:j:j], raw[j+1:]...)
					j--
				}
				raw = append(raw[:i:i], raw[i+1:]...)
			}
			long := append(bytes.Repeat([]byte{0xff}, 9+rng.Intn(2)), byte(2+rng.Intn(100)))
			raw = append(raw[:i:i], append(long, raw[i:]...)...)
		}
		pairs = append(pairs, pair{a, raw})
	}
	d := rowDecoder{enc: e.enc, names: e.names}
	for i, p := range pairs {
		var got data.Row
		decodes := d.decodeRow(p.raw, &got) == ""
		want := decodes && refShadowedBy(&got, &p.a)
		cells, ok := d.shadowedBy(p.raw, &p.a)
		require.Equal(t, want, ok, "pair %d: decodes %v (%s)\na %+v\nb %+v\nraw %x", i, decodes, d.decodeRow(p.raw, &got), p.a, got, p.raw)
		if ok {
			require.Equal(t, len(got.Cells), cells, "pair %d", i)
			yes++
		} else {
			no++
		}
	}
	t.Logf("%d shadowed, %d not", yes, no)
	require.Greater(t, yes, len(pairs)/10)
	require.Greater(t, no, len(pairs)/10)
}

// BenchmarkShadowedBy measures the verdict on a narrow row record that a
// newer version shadows (the benchmarks' row: int clustering, liveness,
// one 20-byte value), against decoding it.
func BenchmarkShadowedBy(b *testing.B) {
	var e rowEncoder
	ts := int64(1_764_000_000_000_000)
	row := func(ts int64) data.Row {
		r := data.NewRow([]byte{0x80, 0, 0, 1})
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: make([]byte, 20)}}
		return r
	}
	_ = e.appendRow(nil, new(row(ts)))
	old, a := row(ts+100_000), row(ts+300_000)
	raw := e.appendRow(nil, &old)
	d := rowDecoder{enc: e.enc, names: e.names}
	b.Run("shadowedBy", func(b *testing.B) {
		for b.Loop() {
			if _, ok := d.shadowedBy(raw, &a); !ok {
				b.Fatal("not shadowed")
			}
		}
	})
	b.Run("decodeRow", func(b *testing.B) {
		var r data.Row
		for b.Loop() {
			if what := d.decodeRow(raw, &r); what != "" {
				b.Fatal(what)
			}
		}
	})
}

// FuzzShadowedBy reads arbitrary bytes as the record of an older version
// of a fixed row, against fixed bases and a three-name dictionary:
// shadowedBy must never panic, and must say yes exactly when decodeRow
// decodes the bytes and refShadowedBy accepts the row.
func FuzzShadowedBy(f *testing.F) {
	enc := EncodingStats{Timestamp: 1_700_000_000_000_000, LocalDeletionTime: 1_700_000_000, TTL: 3600}
	names := []string{"a", "b", "v"}
	a := data.NewRow([]byte{0x80, 0, 0, 1})
	a.Liveness = data.LivenessInfo{Timestamp: enc.Timestamp + 1000, ExpiresAt: data.NoDeletionTime}
	for _, n := range names {
		a.Cells = append(a.Cells, data.Cell{Column: n, Timestamp: enc.Timestamp + 1000, LocalDeletionTime: data.NoDeletionTime, Value: []byte{1}})
	}
	rng := rand.New(rand.NewSource(1))
	e := &rowEncoder{enc: enc, tsSet: true, ldtSet: true, ttlS: true, refs: map[string]uint64{}}
	for _, n := range names {
		e.names = append(e.names, n)
		e.refs[n] = uint64(len(e.names))
	}
	for range 30 {
		b := olderVersion(rng, &a, len(names))
		f.Add(e.appendRow(nil, &b))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d := rowDecoder{enc: enc, names: names}
		var got data.Row
		want := d.decodeRow(raw, &got) == "" && refShadowedBy(&got, &a)
		cells, ok := d.shadowedBy(raw, &a)
		if ok != want || ok && cells != len(got.Cells) {
			t.Fatalf("shadowedBy %v (%d cells), want %v: %+v", ok, cells, want, got)
		}
	})
}
