package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrorCodeNames(t *testing.T) {
	assert.Equal(t, "Invalid query", CodeInvalid.String())
	assert.Equal(t, "InvalidRequest", CodeInvalid.ExceptionName())
	assert.Equal(t, "Syntax error in CQL query", CodeSyntax.String())
	assert.Equal(t, "PreparedQueryNotFound", CodeUnprepared.ExceptionName())
	assert.Equal(t, "code 0x7777", ErrorCode(0x7777).String())
	assert.Equal(t, "ServerError", ErrorCode(0x7777).ExceptionName())
	assert.Equal(t, "ServerError", CodeServer.ExceptionName())
}

func TestUnpreparedMessage(t *testing.T) {
	assert.Equal(t, "Prepared query with ID 0aff not found (either the query was not prepared on this host "+
		"(maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)",
		UnpreparedMessage([]byte{0x0a, 0xff}))
}

func TestInternalErrorMessage(t *testing.T) {
	assert.Equal(t, "java.lang.RuntimeException: internal error: boom", InternalErrorMessage("boom"))
}

func TestResultKindAndConsistency(t *testing.T) {
	assert.Equal(t, "Set_keyspace", ResultSetKeyspace.String())
	assert.Equal(t, "RESULT(0x0009)", ResultKind(9).String())
	assert.Equal(t, "LOCAL_QUORUM", LocalQuorum.String())
	assert.Equal(t, "CONSISTENCY(0x000b)", Consistency(11).String())
	assert.True(t, LocalOne.Valid())
	assert.False(t, Consistency(11).Valid())
}

func TestSchemaChangeNames(t *testing.T) {
	for _, c := range []ChangeType{Created, Updated, Dropped} {
		got, ok := ParseChangeType(c.String())
		assert.True(t, ok, c)
		assert.Equal(t, c, got)
	}
	for _, tg := range []ChangeTarget{TargetKeyspace, TargetTable, TargetType, TargetFunction, TargetAggregate} {
		got, ok := ParseChangeTarget(tg.String())
		assert.True(t, ok, tg)
		assert.Equal(t, tg, got)
	}
	_, ok := ParseChangeType("")
	assert.False(t, ok)
	_, ok = ParseChangeTarget("VIEW")
	assert.False(t, ok)
	assert.False(t, ChangeType(0).Valid())
	assert.Equal(t, "CHANGE(0)", ChangeType(0).String())
	assert.Equal(t, "TARGET(0)", ChangeTarget(0).String())
	assert.Equal(t, "CREATED TABLE ks.t", SchemaChange{Change: Created, Target: TargetTable, Keyspace: "ks", Name: "t"}.String())
	assert.Equal(t, "DROPPED KEYSPACE ks", SchemaChange{Change: Dropped, Target: TargetKeyspace, Keyspace: "ks"}.String())
	assert.Equal(t, "UPDATED FUNCTION ks.f[int text]",
		SchemaChange{Change: Updated, Target: TargetFunction, Keyspace: "ks", Name: "f", Args: []string{"int", "text"}}.String())
}
