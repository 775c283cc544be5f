package minicasstest

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGocqlLexicalUUIDType ports gocql's own integration test
// TestLexicalUUIDType (cassandra_test.go): a column of the custom type
// 'org.apache.cassandra.db.marshal.LexicalUUIDType', which Cassandra 4.1
// creates (CQL3Type.Custom) and describes on the wire as option 0x0000 with
// the class name; the driver binds and reads a UUID through it.
func TestGocqlLexicalUUIDType(t *testing.T) {
	srv := Start(t)
	setupKeyspace(t, srv)
	sess := newSession(t, srv, "app")
	require.NoError(t, sess.Query(`CREATE TABLE app.test_lexical_uuid (
			key     varchar,
			column1 'org.apache.cassandra.db.marshal.LexicalUUIDType',
			value   int,
			PRIMARY KEY (key, column1)
		)`).Exec())

	key := gocql.TimeUUID().String()
	column1 := gocql.TimeUUID()
	require.NoError(t, sess.Query("INSERT INTO test_lexical_uuid(key, column1, value) VALUES(?, ?, ?)", key, column1, 55).Exec())

	var gotUUID gocql.UUID
	require.NoError(t, sess.Query("SELECT column1 from test_lexical_uuid where key = ? AND column1 = ?", key, column1).Scan(&gotUUID))
	assert.Equal(t, column1, gotUUID)

	// gocql reads the custom option's class name and maps
	// LexicalUUIDType to its uuid type (frame.go, getApacheCassandraType);
	// server/frame's TestCustomTypeOption checks the bytes sent.
	iter := sess.Query("SELECT column1 FROM test_lexical_uuid WHERE key = ?", key).Iter()
	cols := iter.Columns()
	require.Len(t, cols, 1)
	assert.Equal(t, gocql.TypeUUID, cols[0].TypeInfo.Type())
	require.NoError(t, iter.Close())

	// A class naming a native type is that type ('BytesType' is blob).
	require.NoError(t, sess.Query("CREATE TABLE app.bytes_custom (k int PRIMARY KEY, b 'BytesType')").Exec())
	require.NoError(t, sess.Query("INSERT INTO bytes_custom (k, b) VALUES (1, 0x0102)").Exec())
	iter = sess.Query("SELECT b FROM bytes_custom WHERE k = 1").Iter()
	assert.Equal(t, gocql.TypeBlob, iter.Columns()[0].TypeInfo.Type())
	var b []byte
	require.True(t, iter.Scan(&b))
	assert.Equal(t, []byte{1, 2}, b)
	require.NoError(t, iter.Close())
}
