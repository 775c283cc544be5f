package cql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/engine"
)

// onlyUpdates is a mutable virtual table that implements only column
// updates: every other operation is refused with AbstractMutableVirtualTable's
// text for it.
type onlyUpdates struct{ fixedTable }

func (*onlyUpdates) UpdateColumn(context.Context, []any, []any, *virtual.ColumnValue) error {
	return nil
}

// TestVirtualTableRefusals checks the texts of the operations a writable
// virtual table does not implement, and the registration's own checks.
func TestVirtualTableRefusals(t *testing.T) {
	s := newConformanceSession(t, engine.Options{}, Options{})
	ctx := context.Background()
	tbl := &onlyUpdates{fixedTable{def: virtual.TableDef{Name: "t",
		PartitionKey: []virtual.ColumnDef{{Name: "pk", Type: "int"}},
		Clustering:   []virtual.ColumnDef{{Name: "c", Type: "int"}},
		Regular:      []virtual.ColumnDef{{Name: "v", Type: "int"}, {Name: "l", Type: "list<int>"}}}}}
	require.NoError(t, s.Executor().RegisterVirtualKeyspace(virtual.UserKeyspace{Name: "vks", Tables: []virtual.UserTable{tbl}}))
	for q, want := range map[string]string{
		"DELETE FROM vks.t WHERE pk = 1":                  "Partition deletion is not supported by table vks.t",
		"DELETE FROM vks.t WHERE pk = 1 AND c > 1":        "Range deletion is not supported by table vks.t",
		"DELETE FROM vks.t WHERE pk = 1 AND c = 1":        "Row deletion is not supported by table vks.t",
		"DELETE v FROM vks.t WHERE pk = 1 AND c = 1":      "Column deletion is not supported by table vks.t",
		"UPDATE vks.t SET l = [1] WHERE pk = 1 AND c = 1": "Complex type columns are not supported by table vks.t",
		"TRUNCATE vks.t": "Truncation is not supported by table vks.t",
		"CREATE KEYSPACE vks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}":       "Virtual keyspace 'vks' is not user-modifiable",
		"CREATE FUNCTION vks.f (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return a;'": "Virtual keyspace 'vks' is not user-modifiable",
	} {
		_, err := s.Query(ctx, q, nil)
		require.Error(t, err, q)
		require.Contains(t, err.Error(), want, q)
	}
	// system_virtual_schema describes the registered keyspace.
	res, err := s.Query(ctx, "SELECT table_name FROM system_virtual_schema.tables WHERE keyspace_name = 'vks'", nil)
	require.NoError(t, err)
	require.Equal(t, [][][]byte{{[]byte("t")}}, res.Rows)
	res, err = s.Query(ctx, "SELECT column_name, kind, type FROM system_virtual_schema.columns WHERE keyspace_name = 'vks'", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 4)
	res, err = s.Query(ctx, "SELECT keyspace_name FROM system_virtual_schema.keyspaces WHERE keyspace_name = 'vks'", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)

	_, err = s.Query(ctx, "UPDATE vks.t SET v = 1 WHERE pk = 1 AND c = 1", nil)
	require.NoError(t, err)
	_, err = s.Query(ctx, "USE vks", nil)
	require.NoError(t, err)

	// A schema change elsewhere leaves a prepared statement on a virtual
	// table prepared (its table cannot change).
	prep, err := s.Prepare(ctx, "SELECT * FROM vks.t WHERE pk = 1")
	require.NoError(t, err)

	// A keyspace that exists, or is registered, cannot be registered.
	require.Error(t, s.Executor().RegisterVirtualKeyspace(virtual.UserKeyspace{Name: "vks"}))
	require.Error(t, s.Executor().RegisterVirtualKeyspace(virtual.UserKeyspace{Name: "system_views"}))
	_, err = s.Query(ctx, "CREATE KEYSPACE real WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
	require.NoError(t, err)
	require.Error(t, s.Executor().RegisterVirtualKeyspace(virtual.UserKeyspace{Name: "real"}))
	_, err = s.ExecutePrepared(ctx, prep, nil)
	require.NoError(t, err)
	bad := &fixedTable{def: virtual.TableDef{Name: "b", PartitionKey: []virtual.ColumnDef{{Name: "k", Type: "nosuchtype"}}}}
	require.Error(t, s.Executor().RegisterVirtualKeyspace(virtual.UserKeyspace{Name: "other", Tables: []virtual.UserTable{bad}}))
}
