package schema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

func lit(t *testing.T, typ types.Type, s string) []byte {
	b, err := types.ParseLiteral(typ, s)
	require.NoError(t, err)
	return b
}

func TestFormatKeys(t *testing.T) {
	single := schema.NewTable("ks", "s", data.TableID{1}, []*schema.Column{
		{Name: "status", Type: types.TextType, Kind: schema.PartitionKey},
		{Name: "day", Type: types.IntType, Kind: schema.Clustering, Position: 0},
		{Name: "at", Type: types.TimestampType, Kind: schema.Clustering, Position: 1, Desc: true},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	key := lit(t, types.TextType, "'ACTIVE'")
	assert.Equal(t, "'ACTIVE'", single.FormatPartitionKey(key))
	assert.Equal(t, "status = 'ACTIVE'", single.FormatPartitionWhere(key))

	composite := schema.NewTable("ks", "c", data.TableID{2}, []*schema.Column{
		{Name: "a", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "b", Type: types.IntType, Kind: schema.PartitionKey, Position: 1},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	ck, err := partitioner.CompositeKey([][]byte{lit(t, types.TextType, "'it''s'"), lit(t, types.IntType, "42")})
	require.NoError(t, err)
	assert.Equal(t, "('it''s', 42)", composite.FormatPartitionKey(ck))
	assert.Equal(t, "a = 'it''s' AND b = 42", composite.FormatPartitionWhere(ck))
	// Bytes that are not a composite key print as a blob.
	assert.Equal(t, "0x0001", composite.FormatPartitionKey([]byte{0, 1}))
	assert.Equal(t, "key = 0x0001", composite.FormatPartitionWhere([]byte{0, 1}))

	day := lit(t, types.IntType, "7")
	at := lit(t, types.TimestampType, "'2024-01-15T10:30:00Z'")
	row, err := types.EncodeClustering(single.ClusteringTypes(), [][]byte{day, at})
	require.NoError(t, err)
	assert.Equal(t, "(7, '2024-01-15T10:30:00.000Z')", single.FormatClustering(row))
	before, err := types.EncodeBound(single.ClusteringTypes(), [][]byte{day}, types.StartInclusive)
	require.NoError(t, err)
	assert.Equal(t, "before (7)", single.FormatClustering(before))
	after, err := types.EncodeBound(single.ClusteringTypes(), [][]byte{day}, types.EndInclusive)
	require.NoError(t, err)
	assert.Equal(t, "after (7)", single.FormatClustering(after))
	assert.Equal(t, "*", single.FormatClustering(nil))
	assert.Equal(t, "0x01", single.FormatClustering([]byte{1}))
}
