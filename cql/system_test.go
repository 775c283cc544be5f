package cql

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

func newSystemTestSession(t testing.TB) *Session {
	t.Helper()
	eng, err := engine.Open(engine.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	x := NewExecutor(eng, Options{})
	// A fixed host id makes the tokens (and DESCRIBE CLUSTER) deterministic.
	x.env.System.SetHostID(types.UUIDValue{0x5e, 0xed, 15: 1})
	require.NoError(t, x.Bootstrap(context.Background()), "Bootstrap is idempotent")
	return x.NewSession()
}

func queryRows(t testing.TB, s *Session, q string, args ...[]byte) *query.Result {
	t.Helper()
	p := &query.Params{}
	for _, a := range args {
		p.Values = append(p.Values, query.Value{Bytes: a})
	}
	res, err := s.Query(context.Background(), q, p)
	require.NoError(t, err, q)
	return res
}

func column(res *query.Result, row int, name string) []byte {
	for i, c := range res.Columns {
		if c.Name == name {
			return res.Rows[row][i]
		}
	}
	return nil
}

func TestSystemLocal(t *testing.T) {
	s := newSystemTestSession(t)
	res := queryRows(t, s, "SELECT * FROM system.local WHERE key='local'")
	require.Len(t, res.Rows, 1)
	assert.Equal(t, virtual.ReleaseVersion, string(column(res, 0, "release_version")))
	assert.Equal(t, "Test Cluster", string(column(res, 0, "cluster_name")))
	assert.Equal(t, "org.apache.cassandra.dht.Murmur3Partitioner", string(column(res, 0, "partitioner")))
	assert.Equal(t, []byte{127, 0, 0, 1}, column(res, 0, "rpc_address"))
	assert.Equal(t, virtual.IntV(9042), column(res, 0, "rpc_port"))
	assert.Equal(t, s.x.HostID().String(), types.Format(types.UUIDType, column(res, 0, "host_id")))
	tokens, err := types.DecodeCollection(types.SetOf(types.TextType, false), column(res, 0, "tokens"))
	require.NoError(t, err)
	assert.Len(t, tokens, virtual.NumTokens)

	require.NoError(t, s.x.SetNodeAddress(context.Background(), []byte{10, 1, 2, 3}, 19042))
	res = queryRows(t, s, "SELECT rpc_address, rpc_port FROM system.local WHERE key='local'")
	assert.Equal(t, [][]byte{{10, 1, 2, 3}, virtual.IntV(19042)}, res.Rows[0])
	require.Error(t, s.x.SetNodeAddress(context.Background(), []byte{0, 0, 0, 0}, 9042), "drivers refuse 0.0.0.0")

	// peers are empty on a single node, but queryable.
	assert.Empty(t, queryRows(t, s, "SELECT * FROM system.peers_v2").Rows)
	assert.Empty(t, queryRows(t, s, "SELECT peer, rpc_address FROM system.peers").Rows)
}

func TestSystemSchemaFollowsDDL(t *testing.T) {
	s := newSystemTestSession(t)
	version := func() []byte {
		return queryRows(t, s, "SELECT schema_version FROM system.local WHERE key='local'").Rows[0][0]
	}
	v0 := version()
	queryRows(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	v1 := version()
	assert.NotEqual(t, v0, v1, "schema_version changes with the schema")
	res := queryRows(t, s, "SELECT keyspace_name, durable_writes, replication FROM system_schema.keyspaces WHERE keyspace_name = ?", []byte("ks"))
	require.Len(t, res.Rows, 1)
	assert.Equal(t, "{'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '1'}", types.Format(res.Columns[2].Type, res.Rows[0][2]))

	queryRows(t, s, "CREATE TABLE ks.t (k int, c text, v list<int>, s int static, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'hi'")
	assert.NotEqual(t, v1, version())
	res = queryRows(t, s, "SELECT table_name, flags, comment, id FROM system_schema.tables WHERE keyspace_name = 'ks'")
	require.Len(t, res.Rows, 1)
	assert.Equal(t, "{'compound'}", types.Format(res.Columns[1].Type, res.Rows[0][1]))
	assert.Equal(t, "hi", string(res.Rows[0][2]))
	res = queryRows(t, s, "SELECT column_name, clustering_order, kind, position, type FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 't'")
	var got []string
	for i := range res.Rows {
		got = append(got, fmt.Sprintf("%s %s %s %d %s", res.Rows[i][0], res.Rows[i][1], res.Rows[i][2], int32(binary.BigEndian.Uint32(res.Rows[i][3])), res.Rows[i][4]))
	}
	assert.Equal(t, []string{"c desc clustering 0 text", "k none partition_key 0 int", "s none static -1 int", "v none regular -1 list<int>"}, got)

	queryRows(t, s, "ALTER TABLE ks.t ADD w text")
	assert.Len(t, queryRows(t, s, "SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks'").Rows, 5)
	queryRows(t, s, "DROP TABLE ks.t")
	assert.Empty(t, queryRows(t, s, "SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks'").Rows)
	assert.Empty(t, queryRows(t, s, "SELECT * FROM system_schema.tables WHERE keyspace_name = 'ks'").Rows)
	queryRows(t, s, "DROP KEYSPACE ks")
	assert.Empty(t, queryRows(t, s, "SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ks'").Rows)

	// The system keyspaces describe themselves; the virtual ones are in
	// system_virtual_schema only.
	res = queryRows(t, s, "SELECT keyspace_name FROM system_schema.keyspaces")
	var names []string
	for _, r := range res.Rows {
		names = append(names, string(r[0]))
	}
	assert.ElementsMatch(t, []string{"system", "system_schema", "system_auth", "system_distributed", "system_traces"}, names)
	assert.Len(t, queryRows(t, s, "SELECT * FROM system_virtual_schema.keyspaces").Rows, 2)
	assert.NotEmpty(t, queryRows(t, s, "SELECT * FROM system_schema.columns WHERE keyspace_name = 'system' AND table_name = 'local'").Rows)
}

func TestSystemKeyspacesReadOnly(t *testing.T) {
	s := newSystemTestSession(t)
	for _, q := range []string{
		"INSERT INTO system.local (key, cluster_name) VALUES ('local', 'x')",
		"UPDATE system_schema.keyspaces SET durable_writes = false WHERE keyspace_name = 'system'",
		"DELETE FROM system.peers WHERE peer = '1.2.3.4'",
		"DROP KEYSPACE system",
		"CREATE TABLE system.t (k int PRIMARY KEY)",
		"TRUNCATE system.local",
	} {
		_, err := s.Query(context.Background(), q, nil)
		require.Error(t, err, q)
		assert.ErrorIs(t, err, query.ErrUnauthorized, q)
	}
}

// TestDescribeExec runs DESCRIBE through the executor against golden
// files: "exec" runs statements (one per line) and prints each result row.
func TestDescribeExec(t *testing.T) {
	datadriven.Walk(t, "testdata/describe/exec", func(t *testing.T, path string) {
		s := newSystemTestSession(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var out strings.Builder
			for _, q := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				res, err := s.Query(context.Background(), q, nil)
				if err != nil {
					e := query.AsError(err)
					fmt.Fprintf(&out, "error %s: %s\n", e.Code.ExceptionName(), e.Message)
					continue
				}
				printResult(&out, res)
			}
			return out.String()
		})
	})
}

func printResult(out *strings.Builder, res *query.Result) {
	switch res.Kind {
	case wire.ResultRows:
		var names []string
		for _, c := range res.Columns {
			names = append(names, c.Name)
		}
		fmt.Fprintf(out, "rows [%s]\n", strings.Join(names, ", "))
		for _, r := range res.Rows {
			for i, v := range r {
				if res.Columns[i].Name == "create_statement" {
					fmt.Fprintf(out, "\n%s\n", v)
					continue
				}
				if i > 0 {
					out.WriteString(" | ")
				}
				out.WriteString(types.Format(res.Columns[i].Type, v))
				if i == len(r)-1 {
					out.WriteByte('\n')
				}
			}
		}
	case wire.ResultSchemaChange:
		fmt.Fprintf(out, "schema change %s %s %s %s\n", res.Change.Change, res.Change.Target, res.Change.Keyspace, res.Change.Name)
	case wire.ResultSetKeyspace:
		fmt.Fprintf(out, "use %s\n", res.Keyspace)
	default:
		out.WriteString("ok\n")
	}
}
