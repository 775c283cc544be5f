package expr

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
)

// TestFixedWidthValidMatchesNormalize checks the shortcut BindTerm.Eval
// takes for fixed-width values: wherever fixedWidthValid holds, Normalize
// accepts the value and returns it unchanged.
func TestFixedWidthValidMatchesNormalize(t *testing.T) {
	kinds := []types.Kind{types.Ascii, types.Text, types.Blob, types.Boolean, types.Int, types.Bigint, types.Counter,
		types.Smallint, types.Tinyint, types.Float, types.Double, types.Timestamp, types.Date, types.Time,
		types.UUID, types.TimeUUID, types.Varint, types.Decimal, types.Inet, types.Duration}
	taken := 0
	for _, k := range kinds {
		for n := 0; n <= 17; n++ {
			if !fixedWidthValid(k, n) {
				continue
			}
			taken++
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(0x80 + i)
			}
			got, err := types.Normalize(types.Type{Kind: k}, b)
			require.NoError(t, err, "%s of %d bytes", k, n)
			require.Equal(t, b, got, "%s of %d bytes", k, n)
		}
	}
	require.Equal(t, 10, taken, "one width for each of the ten fixed-width kinds")
}
