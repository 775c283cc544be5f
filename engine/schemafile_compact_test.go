package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// TestSchemaFileKeepsCompactStorage reopens a node holding a static compact
// table and a dense one: each is still COMPACT STORAGE with its layout, its
// hidden columns stored but not named by CQL, and the table of openDurable
// (written without "compact") is still a CQL table.
func TestSchemaFileKeepsCompactStorage(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, _ := openDurable(t, fsys, Options{})
	text := types.Type{Kind: types.Text}
	static := schema.NewTable("ks", "s", data.TableID{2}, []*schema.Column{
		{Name: "k", Type: text, Kind: schema.PartitionKey, Position: 0},
		{Name: "v", Type: types.IntType, Kind: schema.Static, Position: -1},
		{Name: "column1", Type: text, Kind: schema.Clustering, Position: 0},
		{Name: "value", Type: types.Type{Kind: types.Blob}, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	static.Compact = &schema.CompactStorage{}
	dense := schema.NewTable("ks", "d", data.TableID{3}, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey, Position: 0},
		{Name: "c", Type: types.IntType, Kind: schema.Clustering, Position: 0},
		{Name: "value", Type: schema.EmptyType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultOptions())
	dense.Compact = &schema.CompactStorage{Dense: true}
	require.NoError(t, e.CreateTable(static))
	require.NoError(t, e.CreateTable(dense))
	require.NoError(t, e.Close())

	e, _, _ = openDurable(t, fsys, Options{})
	defer e.Close()
	s, ok := e.Table("ks", "s")
	require.True(t, ok)
	assert.True(t, s.IsStaticCompact())
	assert.Equal(t, []string{}, s.Flags().Names())
	assert.Nil(t, s.Column("column1"), "hidden from CQL")
	assert.NotNil(t, s.StoredColumn("column1"))
	assert.Equal(t, []string{"k", "v"}, names(s.VisibleColumns()))
	d, ok := e.Table("ks", "d")
	require.True(t, ok)
	assert.Equal(t, &schema.CompactStorage{Dense: true}, d.Compact)
	assert.Equal(t, []string{"dense"}, d.Flags().Names())
	assert.True(t, d.HasEmptyCompactValue())
	assert.Equal(t, []string{"k", "c"}, names(d.VisibleColumns()))
	plain, ok := e.Table("ks", "t")
	require.True(t, ok)
	assert.Nil(t, plain.Compact)
	assert.Equal(t, []string{"counter", "compound"}, plain.Flags().Names(), "the test table has a counter column")
}

func names(cols []*schema.Column) []string {
	out := []string{}
	for _, c := range cols {
		out = append(out, c.Name)
	}
	return out
}
