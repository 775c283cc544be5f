package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// TestSchemaFileKeepsMultiCellFields reopens a node whose user type has a
// field declared a non-frozen collection: the field is still stored frozen,
// and still known to have been declared non-frozen.
func TestSchemaFileKeepsMultiCellFields(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, _ := openDurable(t, fsys, Options{})
	ks, ok := e.Keyspace("ks")
	require.True(t, ok)
	next := *ks
	setInt := types.Type{Kind: types.Set, Params: []types.Type{types.IntType}}
	ut := types.UserTypeOf(&types.UserType{Keyspace: "ks", Name: "t", Fields: []string{"a", "s"}}, []types.Type{types.IntType, setInt}, false)
	next.Types = append(next.Types, ut)
	require.NoError(t, e.AlterKeyspace(&next))
	require.NoError(t, e.Close())

	e, _, _ = openDurable(t, fsys, Options{})
	defer e.Close()
	ks, ok = e.Keyspace("ks")
	require.True(t, ok)
	got, ok := ks.Type("t")
	require.True(t, ok)
	assert.Equal(t, []bool{false, true}, got.UDT.MultiCell)
	assert.True(t, got.Params[1].Frozen, "the field is stored frozen")
	assert.Equal(t, "set<int>", got.DeclaredField(1).String())
}
