package data

import (
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// randomRowForDecode returns a row using every field of the encoding,
// with values at the varint length boundaries.
func randomRowForDecode(rng *rand.Rand) Row {
	ints := []int64{0, 1, -1, 63, 64, -65, 1 << 20, 1_700_000_000_000_000, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	pick := func() int64 {
		if rng.Intn(3) == 0 {
			return rng.Int63() - rng.Int63()
		}
		return ints[rng.Intn(len(ints))]
	}
	bs := func(n int) []byte {
		switch rng.Intn(4) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		b := make([]byte, rng.Intn(n))
		rng.Read(b)
		return b
	}
	r := Row{Clustering: bs(300), Liveness: LivenessInfo{Timestamp: pick(), TTL: int32(rng.Intn(2) * rng.Intn(MaxTTL+1)), ExpiresAt: pick()},
		Deletion: DeletionTime{MarkedForDeleteAt: pick(), LocalDeletionTime: pick()}}
	for range rng.Intn(3) {
		r.ColumnDeletions = append(r.ColumnDeletions, ColumnDeletion{Column: "m" + strconv.Itoa(rng.Intn(3)), Deletion: DeletionTime{MarkedForDeleteAt: pick(), LocalDeletionTime: pick()}})
	}
	for range rng.Intn(5) {
		r.Cells = append(r.Cells, Cell{Column: []string{"", "v", "col" + strconv.Itoa(rng.Intn(200))}[rng.Intn(3)], Path: bs(20),
			Kind: CellKind(rng.Intn(int(CellCounter) + 1)), Timestamp: pick(), TTL: int32(rng.Intn(2) * rng.Intn(MaxTTL+1)),
			LocalDeletionTime: pick(), Value: bs(200)})
	}
	return r
}

// TestRowFastMatchesCursor decodes random rows, and corrupted and
// truncated copies of them, with the fast decoder and with the Cursor:
// whenever the fast decoder accepts an input, it must read as many bytes
// and the same row as the Cursor.
func TestRowFastMatchesCursor(t *testing.T) {
	seed := time.Now().UnixNano()
	if v := os.Getenv("DATA_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	t.Logf("seed %d (rerun with DATA_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	var fast, slow Row
	var fn, sn ColumnNames
	accepted := 0
	for i := range 20000 {
		r := randomRowForDecode(rng)
		enc := AppendRow(nil, &r)
		switch i % 4 {
		case 1: // a flipped byte
			if len(enc) > 0 {
				enc[rng.Intn(len(enc))] ^= byte(1 + rng.Intn(255))
			}
		case 2: // truncated
			enc = enc[:rng.Intn(len(enc)+1)]
		case 3: // trailing bytes
			enc = append(enc, 1, 2, 3)
		}
		n := rowFast(enc, &fast, &fn)
		d := NewDecoder(enc)
		d.rowSlow(&slow, &sn)
		if i%4 == 0 {
			require.NoError(t, d.Err(), "seed %d row %d", seed, i)
			require.Equal(t, len(enc), n, "seed %d row %d: the fast decoder refused a valid row %+v", seed, i, r)
		}
		if n < 0 {
			continue
		}
		accepted++
		require.NoError(t, d.Err(), "seed %d row %d: fast accepted what the Cursor refuses", seed, i)
		require.Equal(t, d.Offset(), n, "seed %d row %d", seed, i)
		require.Equal(t, slow, fast, "seed %d row %d", seed, i)
	}
	require.Greater(t, accepted, 5000)
}
