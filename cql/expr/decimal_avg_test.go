package expr

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecimalDivIntHalfEven checks divInt against BigDecimal.divide(n,
// RoundingMode.HALF_EVEN): the quotient keeps the dividend's scale and a
// tie goes to the even neighbour, for either sign.
func TestDecimalDivIntHalfEven(t *testing.T) {
	cases := []struct {
		u     int64
		scale int32
		n     int64
		want  int64
	}{
		{100, 2, 3, 33},   // 1.00 / 3 = 0.33
		{200, 2, 3, 67},   // 2.00 / 3 = 0.67
		{25, 1, 2, 12},    // 2.5 / 2 = 1.25 -> 1.2 (tie, even)
		{35, 1, 2, 18},    // 3.5 / 2 = 1.75 -> 1.8 (tie, even)
		{-25, 1, 2, -12},  // -1.25 -> -1.2
		{-35, 1, 2, -18},  // -1.75 -> -1.8
		{-100, 2, 3, -33}, // -0.333.. -> -0.33
		{-200, 2, 3, -67}, // -0.666.. -> -0.67
		{7, 0, 7, 1},
	}
	for _, c := range cases {
		got := (&decimal{u: big.NewInt(c.u), scale: c.scale}).divInt(c.n)
		require.Equal(t, c.scale, got.scale, "%d/%d", c.u, c.n)
		require.Equal(t, c.want, got.u.Int64(), "%d (scale %d) / %d", c.u, c.scale, c.n)
	}
}

// TestDecimalOfFloat checks BigDecimal.valueOf's reading of a double.
func TestDecimalOfFloat(t *testing.T) {
	d := decimalOfFloat(0.1)
	require.Equal(t, int64(1), d.u.Int64())
	require.Equal(t, int32(1), d.scale)
	require.InDelta(t, 110.11, decimalOfFloat(110.11).float(), 0)
}
