package engine

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// TestSchemaFileKeepsFunctions reopens a node with a user function and a
// user aggregate: both come back whole, an empty INITCOND (”) apart from
// none, and the reopened function compiles its body when first asked.
func TestSchemaFileKeepsFunctions(t *testing.T) {
	fsys := vfs.NewMem()
	e, _, _ := openDurable(t, fsys, Options{})
	ks, ok := e.Keyspace("ks")
	require.True(t, ok)
	next := *ks
	fn := schema.Function{Keyspace: "ks", Name: "f", ArgNames: []string{"s", "v"}, ArgTypes: []types.Type{types.TextType, types.ListOf(types.IntType, false)},
		Return: types.TextType, CalledOnNullInput: true, Language: "java", Body: "return s;"}
	next.Functions = []*schema.Function{fn.Prepared()}
	next.Aggregates = []*schema.Aggregate{
		{Keyspace: "ks", Name: "a", ArgTypes: []types.Type{next.Functions[0].ArgTypes[1]}, StateFunc: "f", StateType: types.TextType, InitCond: []byte{}, Return: types.TextType},
		{Keyspace: "ks", Name: "b", ArgTypes: []types.Type{types.IntType}, StateFunc: "g", StateType: types.IntType, FinalFunc: "h", Return: types.TextType},
	}
	require.NoError(t, e.AlterKeyspace(&next))
	require.NoError(t, e.Close())

	e, _, _ = openDurable(t, fsys, Options{})
	defer e.Close()
	ks, ok = e.Keyspace("ks")
	require.True(t, ok)
	require.Len(t, ks.Functions, 1)
	got := ks.Functions[0]
	assert.Equal(t, []string{"s", "v"}, got.ArgNames)
	assert.Equal(t, []string{"text", "list<int>"}, got.ArgTypeStrings())
	assert.Equal(t, "text", got.Return.String())
	assert.True(t, got.CalledOnNullInput)
	assert.Equal(t, "return s;", got.Body)
	compiles := 0
	compile := func(*schema.Function) (schema.FunctionBody, error) { compiles++; return nil, nil }
	_, err := got.CompiledBody(compile)
	require.NoError(t, err)
	_, err = got.CompiledBody(compile)
	require.NoError(t, err)
	assert.Equal(t, 1, compiles, "the body compiles once")

	require.Len(t, ks.Aggregates, 2)
	assert.Equal(t, []byte{}, ks.Aggregates[0].InitCond, "INITCOND '' is kept")
	assert.Nil(t, ks.Aggregates[1].InitCond)
	assert.Equal(t, "h", ks.Aggregates[1].FinalFunc)
	assert.Equal(t, "list<int>", ks.Aggregates[0].ArgTypes[0].String())
}

// TestSchemaFileReadsVersion1 decodes a version 1 file, written before
// functions existed: it reads as a schema without them.
func TestSchemaFileReadsVersion1(t *testing.T) {
	payload := []byte(`{"keyspaces":[{"name":"ks","replication":{"class":"org.apache.cassandra.locator.SimpleStrategy","replication_factor":"1"},"durable_writes":true,"tables":[]}]}`)
	b := make([]byte, schemaHeaderSize, schemaHeaderSize+len(payload))
	copy(b, schemaMagic)
	binary.LittleEndian.PutUint32(b[4:], schemaVersionV1)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(payload, crcTable))
	b = append(b, payload...)
	st, _, err := decodeSchema("schema-1.db", b)
	require.NoError(t, err)
	ks := st.keyspaces["ks"]
	require.NotNil(t, ks)
	assert.Empty(t, ks.def.Functions)
	assert.Empty(t, ks.def.Aggregates)

	binary.LittleEndian.PutUint32(b[4:], schemaVersionTriggers+1)
	_, _, err = decodeSchema("schema-1.db", b)
	assert.ErrorIs(t, err, ErrCorruption, "an unknown version is refused")
}
