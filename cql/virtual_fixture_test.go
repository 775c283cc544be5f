package cql

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/minicass/minicass/cql/virtual"
)

// conformanceVirtualKeyspaces are the virtual keyspaces the Java tests
// register before their node starts, built in Go: "node
// virtual-keyspace=NAME" registers NAME's on the fresh node. Each call
// builds new tables, so a node's writable tables start empty.
var conformanceVirtualKeyspaces = map[string]func() virtual.UserKeyspace{
	// VirtualTableTest.setUpClass: vt1 and vt3 read-only with fixed rows,
	// vt2 a MutableVirtualTable (every operation), vt4 a mutable table
	// without clustering (partition and column deletions, column updates,
	// truncate), vt5 an empty read-only table that refuses implicit
	// filtering.
	"VirtualTableTest": func() virtual.UserKeyspace {
		text := func(names ...string) []virtual.ColumnDef {
			var out []virtual.ColumnDef
			for _, n := range names {
				out = append(out, virtual.ColumnDef{Name: n, Type: "text"})
			}
			return out
		}
		values := []virtual.ColumnDef{{Name: "v1", Type: "int"}, {Name: "v2", Type: "bigint"}}
		vt1 := &fixedTable{def: virtual.TableDef{Name: "vt1", PartitionKey: text("pk"), Clustering: text("c"), Regular: values}}
		for _, r := range [][3]any{{"pk1", "c1", 11}, {"pk2", "c1", 21}, {"pk1", "c2", 12}, {"pk2", "c2", 22}, {"pk1", "c3", 13}, {"pk2", "c3", 23}} {
			n := r[2].(int)
			vt1.rows = append(vt1.rows, virtual.Row{"pk": r[0], "c": r[1], "v1": int32(n), "v2": int64(n)})
		}
		vt3 := &fixedTable{def: virtual.TableDef{Name: "vt3", PartitionKey: text("pk1", "pk2"), Clustering: text("ck1", "ck2"), Regular: values},
			rows: []virtual.Row{
				{"pk1": "pk11", "pk2": "pk11", "ck1": "ck11", "ck2": "ck11", "v1": int32(1111), "v2": int64(1111)},
				{"pk1": "pk11", "pk2": "pk11", "ck1": "ck22", "ck2": "ck22", "v1": int32(1122), "v2": int64(1122)},
			}}
		vt2 := &mutableTable{def: virtual.TableDef{Name: "vt2", PartitionKey: text("pk1", "pk2"), Clustering: text("c1", "c2"), Regular: values}}
		vt4 := &mutableNoClustering{m: mutableTable{def: virtual.TableDef{Name: "vt4", PartitionKey: text("pk"), Regular: []virtual.ColumnDef{{Name: "v", Type: "bigint"}}}}}
		vt5 := &noImplicitFiltering{fixedTable{def: virtual.TableDef{Name: "vt5", PartitionKey: text("pk"), Clustering: text("c"), Regular: values}}}
		return virtual.UserKeyspace{Name: "test_virtual_ks", Tables: []virtual.UserTable{vt1, vt2, vt3, vt4, vt5}}
	},
}

// registerConformanceVirtualKeyspace registers the fixture name on the
// harness's node.
func (h *conformanceHarness) registerConformanceVirtualKeyspace(t *testing.T, name string) {
	mk, ok := conformanceVirtualKeyspaces[name]
	if !ok {
		t.Fatalf("node virtual-keyspace=%s: no such fixture", name)
	}
	if err := h.s.Executor().RegisterVirtualKeyspace(mk()); err != nil {
		t.Fatalf("node virtual-keyspace=%s: %v", name, err)
	}
}

// fixedTable is an AbstractVirtualTable over a SimpleDataSet: fixed rows,
// no modification.
type fixedTable struct {
	def  virtual.TableDef
	rows []virtual.Row
}

func (t *fixedTable) Definition() virtual.TableDef { return t.def }

func (t *fixedTable) Rows(context.Context) ([]virtual.Row, error) { return t.rows, nil }

// noImplicitFiltering is a table whose allowFilteringImplicitly is false.
type noImplicitFiltering struct{ fixedTable }

func (*noImplicitFiltering) AllowFilteringImplicitly() bool { return false }

// mutableTable is VirtualTableTest's MutableVirtualTable: rows by primary
// key, every modification supported.
type mutableTable struct {
	def  virtual.TableDef
	mu   sync.Mutex
	rows map[string]virtual.Row
}

func (t *mutableTable) Definition() virtual.TableDef { return t.def }

func (t *mutableTable) Rows(context.Context) ([]virtual.Row, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]string, 0, len(t.rows))
	for k := range t.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]virtual.Row, 0, len(keys))
	for _, k := range keys {
		out = append(out, t.rows[k])
	}
	return out, nil
}

func joinKey(parts ...[]any) string {
	var b strings.Builder
	for _, p := range parts {
		for _, v := range p {
			fmt.Fprintf(&b, "%q/", v)
		}
	}
	return b.String()
}

// row returns the row of key pk, ck, nil if there is none.
func (t *mutableTable) row(pk, ck []any) virtual.Row { return t.rows[joinKey(pk, ck)] }

func (t *mutableTable) inPartition(r virtual.Row, pk []any) bool {
	for i, c := range t.def.PartitionKey {
		if r[c.Name] != pk[i] {
			return false
		}
	}
	return true
}

func (t *mutableTable) DeletePartition(_ context.Context, pk []any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, r := range t.rows {
		if t.inPartition(r, pk) {
			delete(t.rows, k)
		}
	}
	return nil
}

func (t *mutableTable) UpdateColumn(_ context.Context, pk, ck []any, v *virtual.ColumnValue) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.row(pk, ck)
	if r == nil {
		r = virtual.Row{}
		for i, c := range t.def.PartitionKey {
			r[c.Name] = pk[i]
		}
		for i, c := range t.def.Clustering {
			r[c.Name] = ck[i]
		}
		if t.rows == nil {
			t.rows = map[string]virtual.Row{}
		}
		t.rows[joinKey(pk, ck)] = r
	}
	if v != nil {
		r[v.Name] = v.Value
	}
	return nil
}

func (t *mutableTable) DeleteColumn(_ context.Context, pk, ck []any, column string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.row(pk, ck); r != nil {
		delete(r, column)
	}
	return nil
}

func (t *mutableTable) Truncate(context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows = nil
	return nil
}

func (t *mutableTable) DeleteRow(_ context.Context, pk, ck []any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.rows, joinKey(pk, ck))
	return nil
}

func (t *mutableTable) DeleteRange(_ context.Context, pk []any, rg virtual.ClusteringRange) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, r := range t.rows {
		if !t.inPartition(r, pk) {
			continue
		}
		ck := make([]any, len(t.def.Clustering))
		for i, c := range t.def.Clustering {
			ck[i] = r[c.Name]
		}
		if rg.Contains(ck) {
			delete(t.rows, k)
		}
	}
	return nil
}

// mutableNoClustering is vt4: a mutable table that overrides only
// applyPartitionDeletion, applyColumnDeletion, applyColumnUpdate and
// truncate.
type mutableNoClustering struct{ m mutableTable }

func (t *mutableNoClustering) Definition() virtual.TableDef { return t.m.Definition() }
func (t *mutableNoClustering) Rows(ctx context.Context) ([]virtual.Row, error) {
	return t.m.Rows(ctx)
}
func (t *mutableNoClustering) DeletePartition(ctx context.Context, pk []any) error {
	return t.m.DeletePartition(ctx, pk)
}
func (t *mutableNoClustering) DeleteColumn(ctx context.Context, pk, ck []any, column string) error {
	return t.m.DeleteColumn(ctx, pk, ck, column)
}
func (t *mutableNoClustering) UpdateColumn(ctx context.Context, pk, ck []any, v *virtual.ColumnValue) error {
	return t.m.UpdateColumn(ctx, pk, ck, v)
}
func (t *mutableNoClustering) Truncate(ctx context.Context) error { return t.m.Truncate(ctx) }
