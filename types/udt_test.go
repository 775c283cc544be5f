package types

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUserType checks a user-defined type end to end in this package: its
// name in type strings, resolution by ParseTypeWith, literals, cqlsh text,
// JSON both ways and Go values. Its bytes are a tuple's.
func TestUserType(t *testing.T) {
	addr := UserTypeOf(&UserType{Keyspace: "ks", Name: "address", Fields: []string{"street", "zip", "Tags"}},
		[]Type{TextType, IntType, SetOf(TextType, false)}, false)
	resolve := func(name string) (Type, bool) { return addr, name == "address" }

	assert.Equal(t, "address", addr.String())
	assert.Equal(t, "frozen<address>", addr.Freeze().String())
	for _, s := range []string{"frozen<address>", "frozen<ks.address>", `frozen<"address">`} {
		got, err := ParseTypeWith(s, resolve)
		require.NoError(t, err, s)
		assert.True(t, got.Equal(addr.Freeze()), s)
	}
	got, err := ParseTypeWith("list<frozen<address>>", resolve)
	require.NoError(t, err)
	assert.Equal(t, "list<frozen<address>>", got.String())
	_, err = ParseTypeWith("list<address>", resolve)
	assert.ErrorContains(t, err, "Non-frozen UDTs are not allowed inside collections")
	_, err = ParseType("frozen<address>")
	assert.ErrorIs(t, err, ErrUnknownType)
	assert.False(t, addr.Equal(TupleOf(TextType, IntType, SetOf(TextType, false))), "a user type is not its tuple")

	v, err := ParseLiteral(addr, `{street: 'Main St', "Tags": {'a'}}`)
	require.NoError(t, err)
	assert.Equal(t, `{street: 'Main St', zip: null, "Tags": {'a'}}`, Format(addr, v))
	assert.Equal(t, `{street: 'Main St', zip: null, "Tags": {'a'}}`, FormatLiteral(addr, v))
	js := string(AppendJSON(nil, addr, v))
	assert.Equal(t, `{"street": "Main St", "zip": null, "\"Tags\"": ["a"]}`, js)
	back, err := FromJSON(addr, decodeJSONValue(t, js))
	require.NoError(t, err)
	assert.Equal(t, v, back, "SELECT JSON output reads back")
	_, err = FromJSON(addr, decodeJSONValue(t, `{"city": "x"}`))
	assert.ErrorContains(t, err, "Unknown field 'city' in value of user defined type address")
	_, err = ParseLiteral(addr, `{city: 'x'}`)
	assert.ErrorContains(t, err, "Unknown field 'city'")

	gv, err := Decode(addr, v)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"street": "Main St", "zip": nil, "Tags": []any{"a"}}, gv)
	enc, err := Encode(addr, gv)
	require.NoError(t, err)
	assert.Equal(t, v, enc)
}

// TestUserTypeOfMarksMultiCellFields checks that a field declared a non-frozen
// collection is stored frozen and marked, and that the mark survives a
// rebuild of the type from its stored (frozen) fields.
func TestUserTypeOfMarksMultiCellFields(t *testing.T) {
	list := Type{Kind: List, Params: []Type{IntType}}
	ut := UserTypeOf(&UserType{Keyspace: "ks", Name: "t", Fields: []string{"a", "l", "f"}}, []Type{IntType, list, list.Freeze()}, false)
	require.Equal(t, []bool{false, true, false}, ut.UDT.MultiCell)
	require.True(t, ut.UDT.HasMultiCellField())
	require.True(t, ut.Params[1].Frozen)
	require.Equal(t, "list<int>", ut.DeclaredField(1).String())
	require.Equal(t, "frozen<list<int>>", ut.DeclaredField(2).String())

	again := UserTypeOf(&UserType{Keyspace: "ks", Name: "t", Fields: ut.UDT.Fields, MultiCell: ut.UDT.MultiCell}, ut.Params, false)
	require.Equal(t, ut.UDT.MultiCell, again.UDT.MultiCell)

	plain := UserTypeOf(&UserType{Keyspace: "ks", Name: "p", Fields: []string{"a"}}, []Type{IntType}, false)
	require.Nil(t, plain.UDT.MultiCell)
	require.False(t, plain.UDT.HasMultiCellField())
}
