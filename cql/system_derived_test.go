package cql

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/minicass/minicass/types"
	"slices"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/engine"
)

// TestDerivedTablesStoreNothing runs schema changes and reads of every
// derived table, then checks that the engine holds no row of them: their
// rows are computed when read, nothing is written to the commit log.
func TestDerivedTablesStoreNothing(t *testing.T) {
	s := newSystemTestSession(t)
	queryRows(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	queryRows(t, s, "CREATE TYPE ks.addr (street text)")
	queryRows(t, s, "CREATE TABLE ks.t (k int PRIMARY KEY, v text, a frozen<addr>)")
	queryRows(t, s, "CREATE INDEX ON ks.t (v)")
	queryRows(t, s, "ALTER TABLE ks.t DROP a")
	x := s.x
	var derived int
	for _, ks := range virtual.SystemKeyspaceOrder {
		for _, tbl := range x.env.Engine.Tables(ks) {
			if !virtual.IsDerived(tbl) {
				continue
			}
			derived++
			queryRows(t, s, fmt.Sprintf("SELECT * FROM %s.%s", types.QuoteName(tbl.Keyspace), types.QuoteName(tbl.Name)))
			st, err := x.env.Engine.MemtableStats(tbl)
			require.NoError(t, err)
			assert.Zero(t, st.Partitions, tbl.QualifiedName())
			assert.Empty(t, x.env.Engine.SSTables(ks, tbl.Name), tbl.QualifiedName())
		}
	}
	assert.Equal(t, len(virtual.Tables("system_schema"))+len(virtual.Tables("system_views"))+len(virtual.Tables("system_virtual_schema"))+2, derived)
	assert.Equal(t, []byte("t"), queryRows(t, s, "SELECT table_name FROM system_schema.indexes WHERE keyspace_name = 'ks'").Rows[0][0])
	assert.Equal(t, []byte("a"), queryRows(t, s, "SELECT column_name FROM system_schema.dropped_columns WHERE keyspace_name = 'ks'").Rows[0][0])
	assert.Equal(t, []byte("addr"), queryRows(t, s, "SELECT type_name FROM system_schema.types WHERE keyspace_name = 'ks'").Rows[0][0])
}

// TestDerivedTablesReadPath checks that the select pipeline works on
// derived tables as on stored ones: restrictions on clustering columns,
// ORDER BY, paging, aggregates, JSON, token ranges and writetime.
func TestDerivedTablesReadPath(t *testing.T) {
	eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	s := NewExecutor(eng, Options{}).NewSession()
	ctx := context.Background()
	queryRows(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, name := range []string{"b", "c", "a"} {
		queryRows(t, s, fmt.Sprintf("CREATE TABLE ks.%s (k int PRIMARY KEY, v text)", name))
	}
	names := func(res *query.Result) []string {
		var out []string
		for _, r := range res.Rows {
			out = append(out, string(r[0]))
		}
		return out
	}
	assert.Equal(t, []string{"a", "b", "c"}, names(queryRows(t, s, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks'")))
	assert.Equal(t, []string{"c", "b", "a"}, names(queryRows(t, s, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks' ORDER BY table_name DESC")))
	assert.Equal(t, []string{"b", "c"}, names(queryRows(t, s, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks' AND table_name > 'a'")))
	assert.Equal(t, []string{"k", "v"}, names(queryRows(t, s, "SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'b'")))
	assert.Equal(t, []string{"v"}, names(queryRows(t, s, "SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ks' AND kind = 'regular' AND table_name = 'a' ALLOW FILTERING")))
	assert.Equal(t, binary.BigEndian.AppendUint64(nil, 6), queryRows(t, s, "SELECT count(*) FROM system_schema.columns WHERE keyspace_name = 'ks'").Rows[0][0])
	assert.Equal(t, `{"table_name": "a"}`, string(queryRows(t, s, "SELECT JSON table_name FROM system_schema.tables WHERE keyspace_name = 'ks' LIMIT 1").Rows[0][0]))

	// Paging through every column of every keyspace gives the rows of the
	// unpaged read, in the same order.
	all := queryRows(t, s, "SELECT keyspace_name, table_name, column_name FROM system_schema.columns")
	var paged [][][]byte
	var state []byte
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000)
		res, err := s.Query(ctx, "SELECT keyspace_name, table_name, column_name FROM system_schema.columns", &query.Params{PageSize: 7, PagingState: state})
		require.NoError(t, err)
		paged = append(paged, res.Rows...)
		if res.PagingState == nil {
			break
		}
		state = res.PagingState
	}
	assert.Equal(t, all.Rows, paged)

	// A token range selects the partitions after ks in the scan's order.
	kss := names(queryRows(t, s, "SELECT keyspace_name FROM system_schema.keyspaces"))
	i := slices.Index(kss, "ks")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, kss[i+1:], names(queryRows(t, s, "SELECT keyspace_name FROM system_schema.keyspaces WHERE token(keyspace_name) > token('ks')")))

	// Cells carry the time of the read: milliseconds for a virtual table,
	// as Cassandra's, microseconds for system_schema and system.local.
	now := s.x.env.Engine.Clock().Now()
	micros := binary.BigEndian.AppendUint64(nil, uint64(now.UnixMicro()))
	assert.Equal(t, micros, queryRows(t, s, "SELECT writetime(comment) FROM system_schema.tables WHERE keyspace_name = 'ks' AND table_name = 'a'").Rows[0][0])
	assert.Equal(t, micros, queryRows(t, s, "SELECT writetime(cluster_name) FROM system.local").Rows[0][0])
	assert.Equal(t, binary.BigEndian.AppendUint64(nil, uint64(now.UnixMilli())),
		queryRows(t, s, "SELECT writetime(comment) FROM system_virtual_schema.tables WHERE keyspace_name = 'system_views' AND table_name = 'clients'").Rows[0][0])
}

// TestClientsView checks system_views.clients against the clients the
// registered function reports, asked again at every read.
func TestClientsView(t *testing.T) {
	s := newSystemTestSession(t)
	assert.Empty(t, queryRows(t, s, "SELECT * FROM system_views.clients").Rows, "no server: no clients")
	clients := []ConnectedClient{
		{Address: []byte{127, 0, 0, 1}, Port: 5001, Hostname: "127.0.0.1", Username: "anonymous", Stage: "ready", ProtocolVersion: 4,
			Options: map[string]string{"CQL_VERSION": "3.0.0", "DRIVER_NAME": "d", "DRIVER_VERSION": "1.0"}, Requests: 3},
		{Address: []byte{127, 0, 0, 1}, Port: 5000, Hostname: "127.0.0.1", Stage: "authenticating", ProtocolVersion: 4},
	}
	s.x.SetClients(func() []ConnectedClient { return clients })
	res := queryRows(t, s, "SELECT port, username, connection_stage, driver_name, driver_version, request_count, ssl_enabled FROM system_views.clients WHERE address = '127.0.0.1'")
	require.Len(t, res.Rows, 2)
	assert.Equal(t, [][]byte{virtual.IntV(5000), nil, []byte("authenticating"), nil, nil, virtual.BigintV(0), {0}}, res.Rows[0])
	assert.Equal(t, [][]byte{virtual.IntV(5001), []byte("anonymous"), []byte("ready"), []byte("d"), []byte("1.0"), virtual.BigintV(3), {0}}, res.Rows[1])
	clients = clients[:1]
	assert.Len(t, queryRows(t, s, "SELECT * FROM system_views.clients").Rows, 1)
}
