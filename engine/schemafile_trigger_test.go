package engine

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/vfs"
)

// TestSchemaFileKeepsTriggers checks that a table's triggers survive a
// restart in creation order, that the file is version 3 only while some
// table has a trigger, and that a trigger moves the schema version.
func TestSchemaFileKeepsTriggers(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, tbl := openDurable(t, fsys, Options{})
	version := func() uint32 {
		b, err := encodeSchema(e.state.Load(), logMarks{})
		require.NoError(t, err)
		return binary.LittleEndian.Uint32(b[4:])
	}
	require.Equal(t, uint32(schemaVersion), version())
	before := e.SchemaVersion()
	nt := tbl.Clone()
	nt.Triggers = []schema.Trigger{{Name: "z", Class: "org.example.Z"}, {Name: "a", Class: "org.example.A"}}
	require.NoError(t, e.AlterTable(nt))
	require.NotEqual(t, before, e.SchemaVersion(), "a trigger is part of the schema version")
	require.Equal(t, uint32(schemaVersionTriggers), version())
	require.NoError(t, e.Close())

	e, _, tbl = openDurable(t, fsys, Options{})
	require.Equal(t, []schema.Trigger{{Name: "z", Class: "org.example.Z"}, {Name: "a", Class: "org.example.A"}}, tbl.Triggers)
	nt = tbl.Clone()
	nt.Triggers = nil
	require.NoError(t, e.AlterTable(nt))
	require.Equal(t, uint32(schemaVersion), version(), "without triggers the file is version 2 again")
	require.NoError(t, e.Close())
}
