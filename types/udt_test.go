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
