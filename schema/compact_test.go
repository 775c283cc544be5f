package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/types"
)

// TestCompactLayouts checks the flags and hidden columns of each COMPACT
// STORAGE layout, and that DROP COMPACT STORAGE (a nil Compact) makes every
// column a CQL one.
func TestCompactLayouts(t *testing.T) {
	text := types.Type{Kind: types.Text}
	col := func(name string, typ types.Type, kind ColumnKind, pos int) *Column {
		return &Column{Name: name, Type: typ, Kind: kind, Position: pos}
	}
	static := NewTable("ks", "s", data.TableID{1}, []*Column{
		col("k", types.IntType, PartitionKey, 0), col("v", types.IntType, Static, -1),
		col("column1", text, Clustering, 0), col("value", types.Type{Kind: types.Blob}, Regular, -1),
	}, DefaultOptions())
	static.Compact = &CompactStorage{}
	dense := NewTable("ks", "d", data.TableID{2}, []*Column{
		col("k", types.IntType, PartitionKey, 0), col("c1", types.IntType, Clustering, 0),
		col("c2", types.IntType, Clustering, 1), col("value", EmptyType, Regular, -1),
	}, DefaultOptions())
	dense.Compact = &CompactStorage{Dense: true}
	counter := NewTable("ks", "n", data.TableID{3}, []*Column{
		col("k", types.IntType, PartitionKey, 0), col("c", types.IntType, Clustering, 0), col("n", types.CounterType, Regular, -1),
	}, DefaultOptions())
	counter.Compact = &CompactStorage{Dense: true}

	assert.Equal(t, []string{}, static.Flags().Names())
	assert.Equal(t, []string{"dense", "compound"}, dense.Flags().Names())
	assert.Equal(t, []string{"counter", "dense"}, counter.Flags().Names())

	assert.True(t, static.IsStaticCompact())
	assert.Nil(t, static.Column("column1"))
	assert.Nil(t, static.Column("value"))
	assert.NotNil(t, static.Column("v"))
	assert.Empty(t, static.VisibleClusteringColumns())
	assert.Equal(t, "value", static.CompactValueColumn().Name)
	assert.False(t, static.HasEmptyCompactValue())

	assert.False(t, dense.IsStaticCompact())
	assert.True(t, dense.HasEmptyCompactValue())
	assert.Nil(t, dense.Column("value"))
	assert.NotNil(t, dense.StoredColumn("value"))
	assert.Len(t, dense.VisibleColumns(), 3)
	assert.NotNil(t, counter.Column("n"), "a declared compact value column is visible")

	dropped := static.Clone()
	dropped.Compact = nil
	assert.Equal(t, []string{"compound"}, dropped.Flags().Names())
	assert.NotNil(t, dropped.Column("column1"))
	assert.Len(t, dropped.VisibleColumns(), 4)
	assert.True(t, ChangeAffectsPreparedStatements(static, dropped))

	assert.Equal(t, "empty", TypeName(EmptyType))
	assert.Equal(t, "int", TypeName(types.IntType))
}
