package cql

import (
	"net"
	"testing"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

func TestSystemTableID(t *testing.T) {
	// Cassandra's ids of these tables are fixed (TableId.forSystemTable).
	assert.Equal(t, "7ad54392-bcdd-35a6-8417-4e047860b377", types.UUIDValue(virtual.SystemTableID("system", "local")).String())
	assert.Equal(t, "37f71aca-7dc2-383b-a706-72528af04d4f", types.UUIDValue(virtual.SystemTableID("system", "peers")).String())
}

func TestSystemTablesShape(t *testing.T) {
	for _, ks := range virtual.SystemKeyspaceOrder {
		ts := virtual.Tables(ks)
		require.NotEmpty(t, ts, ks)
		for i, tbl := range ts {
			if i > 0 {
				assert.Less(t, ts[i-1].Name, tbl.Name, "sorted")
			}
			assert.NotEmpty(t, tbl.PartitionKey(), tbl.QualifiedName())
			assert.Equal(t, virtual.SystemTableID(ks, tbl.Name), tbl.ID)
		}
	}
	// The column types gocql asserts (cassandra-facts.md section 5).
	local := virtual.Table("system", "local")
	require.NotNil(t, local)
	for col, typ := range map[string]string{
		"data_center": "text", "rack": "text", "release_version": "text", "cluster_name": "text", "partitioner": "text",
		"host_id": "uuid", "schema_version": "uuid", "rpc_address": "inet", "broadcast_address": "inet", "tokens": "set<text>",
	} {
		require.NotNil(t, local.Column(col), col)
		assert.Equal(t, typ, local.Column(col).Type.String(), col)
	}
	peers := virtual.Table("system", "peers_v2")
	assert.Equal(t, "int", peers.Column("native_port").Type.String())
	assert.Equal(t, "inet", peers.Column("preferred_ip").Type.String())
	assert.Len(t, peers.ClusteringColumns(), 1)
	assert.Nil(t, virtual.Table("system", "nope"))
	assert.Nil(t, virtual.Table("ks", "local"))
}

func TestNodeTokens(t *testing.T) {
	id := types.UUIDValue{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	a, b := virtual.NodeTokens(id, partitioner.Murmur3Partitioner), virtual.NodeTokens(id, partitioner.Murmur3Partitioner)
	require.Len(t, a, virtual.NumTokens)
	assert.Equal(t, a, b, "deterministic per host id")
	seen := map[string]bool{}
	for _, tok := range a {
		seen[tok] = true
	}
	assert.Len(t, seen, virtual.NumTokens, "distinct")
	assert.NotEqual(t, a, virtual.NodeTokens(types.UUIDValue{9}, partitioner.Murmur3Partitioner))
}

func TestLocalRowMutation(t *testing.T) {
	local := virtual.Table("system", "local")
	n := virtual.NodeInfo{ClusterName: "Test Cluster", DataCenter: "datacenter1", Rack: "rack1", RpcAddress: net.ParseIP("127.0.0.1"), RpcPort: 9042,
		HostID: types.UUIDValue{7}, Tokens: []string{"-5", "10"}}
	m, err := virtual.PartitionMutation(virtual.Partition{Table: local, Key: virtual.TextV("local"), Rows: []virtual.Values{virtual.LocalRow(n)}}, 10, 11, 100)
	require.NoError(t, err)
	assert.Equal(t, local.ID, m.Table)
	assert.Equal(t, []byte("local"), m.Key)
	assert.Equal(t, int64(10), m.PartitionDeletion.MarkedForDeleteAt)
	require.Len(t, m.Rows, 1)
	row := m.Rows[0]
	assert.Equal(t, int64(11), row.Liveness.Timestamp)
	for i := 1; i < len(row.Cells); i++ {
		assert.Negative(t, data.CompareID(&row.Cells[i-1], &row.Cells[i]), "cells sorted")
	}
	// tokens is a non-frozen set: one cell per element, keyed by its path.
	var tokens []string
	for _, c := range row.Cells {
		if c.Column == "tokens" {
			v, err := types.DecodeKey(types.TextType, c.Path)
			require.NoError(t, err)
			tokens = append(tokens, string(v))
		}
		if c.Column == "rpc_address" {
			assert.Equal(t, []byte{127, 0, 0, 1}, c.Value)
		}
	}
	assert.ElementsMatch(t, []string{"-5", "10"}, tokens)
}

func TestSchemaPartitions(t *testing.T) {
	ks := &schema.Keyspace{Name: "ks", DurableWrites: true, Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}}
	empty := &schema.Keyspace{Name: "empty", DurableWrites: true, Replication: ks.Replication}
	tbl := testTable(t, "ks", "t", "k int pk 0\nc text ck 0 desc\nv counter", schema.DefaultOptions())
	snap := virtual.SchemaSnapshot{Keyspaces: []*schema.Keyspace{empty, ks, virtual.SystemKeyspaceDef("system_views")}, Tables: map[string][]*schema.Table{"ks": {tbl}}}
	byTable := map[string][]virtual.Partition{}
	for _, st := range virtual.Tables("system_schema") {
		byTable[st.Name] = virtual.SchemaPartitions(snap, st.Name)
		// Every partition turns into valid rows of its table.
		for _, p := range byTable[st.Name] {
			for _, r := range p.Rows {
				_, err := virtual.SystemRow(st, r, 2)
				require.NoError(t, err, st.QualifiedName())
			}
		}
	}
	// system_views is virtual: described by system_virtual_schema only.
	require.Len(t, byTable["keyspaces"], 2)
	assert.Equal(t, "empty", string(byTable["keyspaces"][0].Key))
	assert.Equal(t, "ks", string(byTable["keyspaces"][1].Key))
	require.Len(t, byTable["tables"], 1, "a keyspace without tables has no partition")
	trow := byTable["tables"][0].Rows[0]
	flags, err := types.DecodeCollection(types.SetOf(types.TextType, true), trow["flags"])
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("compound"), []byte("counter")}, flags)
	assert.Equal(t, tbl.ID[:], trow["id"])
	cols := byTable["columns"][0].Rows
	require.Len(t, cols, 3)
	assert.Equal(t, "desc", string(cols[1]["clustering_order"]))
	assert.Equal(t, "clustering", string(cols[1]["kind"]))
	assert.Equal(t, virtual.IntV(0), cols[1]["position"])
	assert.Equal(t, virtual.IntV(-1), cols[2]["position"])
	assert.Equal(t, "counter", string(cols[2]["type"]))
	for _, name := range []string{"aggregates", "functions", "triggers", "views", "types", "indexes", "dropped_columns"} {
		assert.Empty(t, byTable[name], name)
	}
	assert.Len(t, virtual.VirtualSchemaPartitions("keyspaces"), 2)
	assert.Len(t, virtual.VirtualSchemaPartitions("tables"), 2)
}

func TestParamsOf(t *testing.T) {
	o := schema.DefaultOptions()
	o.Extra = map[string]string{"caching": "{'rows_per_partition': '10'}", "speculative_retry": "'NONE'", "cdc": "true",
		"min_index_interval": "64", "memtable": "'trie'"}
	p := virtual.ParamsOf(o)
	assert.Equal(t, map[string]string{"keys": "ALL", "rows_per_partition": "10"}, p.Caching)
	assert.Equal(t, "NONE", p.SpeculativeRetry)
	assert.True(t, p.Cdc)
	assert.Equal(t, int32(64), p.MinIndexInterval)
	assert.Equal(t, "trie", p.Memtable)
	assert.Equal(t, 0.01, virtual.ParamsOf(schema.Options{}).BloomFilterFPChance)
}
