package view

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// The base table t (k int, c int, v int, w int, PRIMARY KEY (k, c)) and
// two views: mv_v, keyed by v (a base column outside the base key), and
// mv_c, the same key reordered (PRIMARY KEY (c, k)) with only w selected.

func intV(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func testTables() (base, byV, byC *schema.Table) {
	col := func(n string, k schema.ColumnKind, pos int) *schema.Column {
		return &schema.Column{Name: n, Type: types.IntType, Kind: k, Position: pos}
	}
	base = schema.NewTable("ks", "t", data.TableID{1}, []*schema.Column{
		col("k", schema.PartitionKey, 0), col("c", schema.Clustering, 0), col("v", schema.Regular, -1), col("w", schema.Regular, -1),
	}, schema.DefaultOptions())
	byV = schema.NewTable("ks", "mv_v", data.TableID{2}, []*schema.Column{
		col("v", schema.PartitionKey, 0), col("k", schema.Clustering, 0), col("c", schema.Clustering, 1), col("w", schema.Regular, -1),
	}, schema.DefaultOptions())
	byV.View = &schema.View{BaseID: base.ID, BaseName: "t", IncludeAllColumns: true, BaseColumnInKey: "v"}
	byC = schema.NewTable("ks", "mv_c", data.TableID{3}, []*schema.Column{
		col("c", schema.PartitionKey, 0), col("k", schema.Clustering, 0), col("w", schema.Regular, -1),
	}, schema.DefaultOptions())
	byC.View = &schema.View{BaseID: base.ID, BaseName: "t"}
	return base, byV, byC
}

func ck(t *testing.T, tbl *schema.Table, vals ...int32) []byte {
	var vs [][]byte
	for _, v := range vals {
		vs = append(vs, intV(v))
	}
	b, err := types.EncodeClustering(tbl.ClusteringTypes(), vs)
	require.NoError(t, err)
	return b
}

func cellOf(col string, v int32, ts int64) data.Cell {
	return data.Cell{Column: col, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: intV(v)}
}

func TestNewEntryMovesAndDeletion(t *testing.T) {
	base, byV, byC := testTables()
	views := []*schema.Table{byV, byC}
	const now = 1000
	// INSERT (k, c, v, w) VALUES (0, 1, 5, 7) at ts 10: a new entry in both views.
	row := data.NewRow(ck(t, base, 1))
	row.Liveness = data.LivenessInfo{Timestamp: 10, ExpiresAt: data.NoDeletionTime}
	row.Cells = []data.Cell{cellOf("v", 5, 10), cellOf("w", 7, 10)}
	ins := &data.Mutation{Table: base.ID, Key: intV(0), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}
	ms, err := Updates(base, views, ins, Existing{}, now)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, byV.ID, ms[0].Table)
	require.Equal(t, intV(5), ms[0].Key)
	require.Equal(t, ck(t, byV, 0, 1), ms[0].Rows[0].Clustering)
	// The view's key column decides the entry's liveness: v's cell.
	require.Equal(t, data.LivenessInfo{Timestamp: 10, ExpiresAt: data.NoDeletionTime}, ms[0].Rows[0].Liveness)
	require.Equal(t, []data.Cell{cellOf("w", 7, 10)}, ms[0].Rows[0].Cells)
	require.Equal(t, byC.ID, ms[1].Table)
	require.Equal(t, intV(1), ms[1].Key)

	// UPDATE SET v = 6 at ts 20: the mv_v entry moves (a new one at 6, the
	// one at 5 ended by an expired liveness at v's old timestamp); mv_c, which
	// does not select v, gets a liveness at the newest unselected timestamp.
	existing := []data.Row{row}
	upd := data.NewRow(row.Clustering)
	upd.Cells = []data.Cell{cellOf("v", 6, 20)}
	um := &data.Mutation{Table: base.ID, Key: intV(0), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{upd}}
	ms, err = Updates(base, views, um, Existing{Rows: existing}, now)
	require.NoError(t, err)
	require.Len(t, ms, 3)
	require.Equal(t, intV(5), ms[0].Key)
	require.Equal(t, data.ExpiredLiveness(10, now), ms[0].Rows[0].Liveness)
	require.Equal(t, intV(6), ms[1].Key)
	require.Equal(t, data.LivenessInfo{Timestamp: 20, ExpiresAt: data.NoDeletionTime}, ms[1].Rows[0].Liveness)
	require.Equal(t, []data.Cell{cellOf("w", 7, 10)}, ms[1].Rows[0].Cells, "a moved entry carries every selected cell")
	require.Equal(t, byC.ID, ms[2].Table)
	require.Equal(t, int64(20), ms[2].Rows[0].Liveness.Timestamp)
	require.Empty(t, ms[2].Rows[0].Cells, "w did not change")

	// DELETE of the partition at ts 30: both entries deleted at 30.
	after := data.MergeRows(&row, &upd)
	del := &data.Mutation{Table: base.ID, Key: intV(0), PartitionDeletion: data.DeletionTime{MarkedForDeleteAt: 30, LocalDeletionTime: now}}
	ms, err = Updates(base, views, del, Existing{Rows: []data.Row{after}}, now)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	for _, m := range ms {
		require.Equal(t, data.DeletionTime{MarkedForDeleteAt: 30, LocalDeletionTime: now}, m.Rows[0].Deletion)
	}
}

func TestNullKeyColumnAndFilter(t *testing.T) {
	base, byV, _ := testTables()
	// A WHERE c = 1 restriction.
	v := *byV
	def := *byV.View
	def.Filter = []schema.ViewRestriction{{Columns: []string{"c"}, Op: schema.ViewEQ, Values: [][]byte{intV(1)}}}
	v.View = &def
	row := data.NewRow(ck(t, base, 2))
	row.Liveness = data.LivenessInfo{Timestamp: 10, ExpiresAt: data.NoDeletionTime}
	row.Cells = []data.Cell{cellOf("v", 5, 10)}
	m := &data.Mutation{Table: base.ID, Key: intV(0), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}
	ms, err := Updates(base, []*schema.Table{&v}, m, Existing{}, 100)
	require.NoError(t, err)
	require.Empty(t, ms, "c = 2 does not match the view's WHERE")
	// Without v there is no entry at all.
	row2 := data.NewRow(ck(t, base, 1))
	row2.Liveness = data.LivenessInfo{Timestamp: 10, ExpiresAt: data.NoDeletionTime}
	m.Rows = []data.Row{row2}
	ms, err = Updates(base, []*schema.Table{&v}, m, Existing{}, 100)
	require.NoError(t, err)
	require.Empty(t, ms)
}

func TestTTLOfUnselectedColumn(t *testing.T) {
	base, _, byC := testTables()
	// UPDATE t USING TTL 50 SET v = 1: no row liveness, v unselected by
	// mv_c, so the entry expires with v (computeLivenessInfoForEntry).
	row := data.NewRow(ck(t, base, 1))
	c := cellOf("v", 1, 10)
	c.TTL, c.LocalDeletionTime = 50, 150
	row.Cells = []data.Cell{c}
	m := &data.Mutation{Table: base.ID, Key: intV(0), PartitionDeletion: data.LiveDeletion, Rows: []data.Row{row}}
	ms, err := Updates(base, []*schema.Table{byC}, m, Existing{}, 100)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, data.LivenessInfo{Timestamp: 10, TTL: 50, ExpiresAt: 150}, ms[0].Rows[0].Liveness)
}
