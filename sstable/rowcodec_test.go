package sstable

import (
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// extremeTimestamps are timestamps a row may carry, the ends of int64
// (NoTimestamp included) among them: the deltas wrap.
var extremeTimestamps = []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, 1_700_000_000_000_000, math.MaxInt64 - 1, math.MaxInt64}

// extremeTimes are local deletion times (NoDeletionTime included).
var extremeTimes = []int64{math.MinInt64, -1, 0, 1_700_000_000, math.MaxInt64 - 1, math.MaxInt64}

// oddRow returns a random row of every shape the version-2 encoding has a
// flag for.
func oddRow(rng *rand.Rand, columns int) data.Row {
	pick := func(vs []int64) int64 { return vs[rng.Intn(len(vs))] }
	optBytes := func() []byte {
		switch rng.Intn(3) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		return randBytes(rng, 1+rng.Intn(300))
	}
	r := data.NewRow(nil)
	if rng.Intn(4) > 0 {
		r.Clustering = randBytes(rng, 1+rng.Intn(20))
	}
	switch rng.Intn(4) {
	case 0:
	case 1:
		r.Liveness = data.LivenessInfo{Timestamp: pick(extremeTimestamps), ExpiresAt: data.NoDeletionTime}
	case 2:
		r.Liveness = data.LivenessInfo{Timestamp: pick(extremeTimestamps), TTL: int32(1 + rng.Intn(data.MaxTTL)), ExpiresAt: pick(extremeTimes)}
	case 3:
		r.Liveness = data.ExpiredLiveness(pick(extremeTimestamps), pick(extremeTimes))
	}
	if rng.Intn(3) == 0 {
		r.Deletion = data.DeletionTime{MarkedForDeleteAt: pick(extremeTimestamps), LocalDeletionTime: pick(extremeTimes)}
	}
	col := func() string { return "col" + strconv.Itoa(rng.Intn(columns)) }
	for n := rng.Intn(3); n > 0; n-- {
		r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: col(),
			Deletion: data.DeletionTime{MarkedForDeleteAt: pick(extremeTimestamps), LocalDeletionTime: pick(extremeTimes)}})
	}
	for n := rng.Intn(4); n > 0; n-- {
		c := data.Cell{Column: col(), Path: optBytes(), Timestamp: pick(extremeTimestamps), LocalDeletionTime: data.NoDeletionTime}
		switch rng.Intn(5) {
		case 0:
			c.Kind = data.CellTombstone
			c.LocalDeletionTime = pick(extremeTimes)
		case 1:
			c.Kind = data.CellCounter
			c.Value = data.CounterBytes(rng.Int63())
		case 2:
			c.TTL = int32(1 + rng.Intn(data.MaxTTL))
			c.LocalDeletionTime = pick(extremeTimes)
			c.Value = optBytes()
		case 3:
			// The row's timestamp and expiry, which the encoding refers to.
			c.Timestamp = r.Liveness.Timestamp
			if r.Liveness.TTL > 0 && r.Liveness.TTL <= data.MaxTTL {
				c.TTL, c.LocalDeletionTime = r.Liveness.TTL, r.Liveness.ExpiresAt
			}
			c.Value = optBytes()
		default:
			c.Value = optBytes()
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// TestRowCodecRoundTrip encodes random rows and range tombstones of every
// shape, with a dictionary that overflows (names written inline), and
// decodes them back.
func TestRowCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	for _, columns := range []int{1, 5, maxColumnDictionary + 50} {
		var e rowEncoder
		var rows []data.Row
		var encoded [][]byte
		var rts []data.RangeTombstone
		var rtEncoded [][]byte
		n := 3000
		if columns > maxColumnDictionary {
			n = 10000
		}
		for i := 0; i < n; i++ {
			r := oddRow(rng, columns)
			rows = append(rows, r)
			encoded = append(encoded, e.appendRow(nil, &r))
			rt := data.RangeTombstone{Start: randBytes(rng, rng.Intn(5)), End: randBytes(rng, rng.Intn(5)),
				Deletion: data.DeletionTime{MarkedForDeleteAt: extremeTimestamps[rng.Intn(len(extremeTimestamps))], LocalDeletionTime: extremeTimes[rng.Intn(len(extremeTimes))]}}
			if rng.Intn(3) == 0 {
				rt.Start = nil
			}
			rts = append(rts, rt)
			rtEncoded = append(rtEncoded, e.appendRangeTombstone(nil, &rt))
		}
		if columns > maxColumnDictionary {
			require.Equal(t, maxColumnDictionary, len(e.names))
		}
		d := rowDecoder{enc: e.enc, names: e.names}
		var got data.Row
		for i, b := range encoded {
			require.Empty(t, d.decodeRow(b, &got), "row %d", i)
			require.Equal(t, normCodecRow(rows[i]), normCodecRow(got), "row %d", i)
		}
		for i, b := range rtEncoded {
			p := in{b: b}
			rt := d.rangeTombstone(&p)
			require.Empty(t, p.what)
			require.Equal(t, len(b), p.off)
			assert.Equal(t, rts[i], rt)
		}
	}
}

// normCodecRow makes the nil and empty arrays of a row compare equal; a
// row's byte slices keep the difference between nil and empty.
func normCodecRow(r data.Row) data.Row {
	if len(r.Cells) == 0 {
		r.Cells = nil
	}
	if len(r.ColumnDeletions) == 0 {
		r.ColumnDeletions = nil
	}
	return r
}

// TestNarrowRowSize pins the size of the benchmarks' narrow row (8-byte
// text key, int clustering, one 20-byte value, microsecond timestamps) in
// the partition stream: a 30-byte row record in version 2, against 90 in
// version 1 (with key, flags, record length and end, 42 bytes a partition
// against 133).
func TestNarrowRowSize(t *testing.T) {
	var e rowEncoder
	ts := int64(1_764_000_000_000_000)
	sizes := make([]int, 0, 3)
	for i := range 3 {
		ts += 3 // microseconds between writes
		r := data.NewRow([]byte{0x80, 0, 0, byte(i)})
		r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
		r.Cells = []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: make([]byte, 20)}}
		sizes = append(sizes, len(e.appendRow(nil, &r)))
	}
	// clustering 5, flags 1, timestamp delta 1, cell flags 1, column 1,
	// value 21.
	assert.Equal(t, []int{30, 30, 30}, sizes)
	v1 := len(data.AppendRow(nil, &data.Row{Clustering: []byte{0x80, 0, 0, 1}, Deletion: data.LiveDeletion,
		Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime},
		Cells:    []data.Cell{{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: make([]byte, 20)}}}))
	assert.Equal(t, 90, v1)
}

// FuzzDecodeRow decodes arbitrary bytes as a version-2 row, against fixed
// bases and a three-name dictionary: it must never panic, and a row it
// decodes must encode and decode back to itself.
func FuzzDecodeRow(f *testing.F) {
	enc := EncodingStats{Timestamp: 1_700_000_000_000_000, LocalDeletionTime: 1_700_000_000, TTL: 3600}
	names := []string{"a", "b", "v"}
	seedEncoder := func() *rowEncoder {
		e := &rowEncoder{enc: enc, tsSet: true, ldtSet: true, ttlS: true, refs: map[string]uint64{}}
		for _, n := range names {
			e.names = append(e.names, n)
			e.refs[n] = uint64(len(e.names))
		}
		return e
	}
	rng := rand.New(rand.NewSource(1))
	e := seedEncoder()
	for range 20 {
		r := oddRow(rng, 5)
		f.Add(e.appendRow(nil, &r))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := rowDecoder{enc: enc, names: names}
		var r data.Row
		if d.decodeRow(b, &r) != "" {
			return
		}
		e := seedEncoder()
		again := e.appendRow(nil, &r)
		d.names = e.names
		var r2 data.Row
		if what := d.decodeRow(again, &r2); what != "" {
			t.Fatalf("re-encoded row does not decode: bad %s", what)
		}
		if !assert.ObjectsAreEqual(normCodecRow(r), normCodecRow(r2)) {
			t.Fatalf("round trip changed the row:\n%+v\n%+v", r, r2)
		}
	})
}
