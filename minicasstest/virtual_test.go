package minicasstest

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass"
)

// counters is a writable virtual table of named counts.
type counters struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *counters) Definition() minicass.VirtualTableDef {
	return minicass.VirtualTableDef{Name: "counts",
		PartitionKey: []minicass.VirtualColumnDef{{Name: "name", Type: "text"}},
		Regular:      []minicass.VirtualColumnDef{{Name: "n", Type: "bigint"}}}
}

func (c *counters) Rows(context.Context) ([]minicass.VirtualRow, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rows []minicass.VirtualRow
	for k, v := range c.n {
		rows = append(rows, minicass.VirtualRow{"name": k, "n": v})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i]["name"].(string) < rows[j]["name"].(string) })
	return rows, nil
}

func (c *counters) UpdateColumn(_ context.Context, pk, _ []any, v *minicass.VirtualColumnValue) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != nil {
		c.n[pk[0].(string)] = v.Value.(int64)
	}
	return nil
}

// TestVirtualKeyspaceThroughDriver reads and writes an embedder's virtual
// table through gocql, prepared statements included, and sees the refusal of
// an operation the table lacks.
func TestVirtualKeyspaceThroughDriver(t *testing.T) {
	c := &counters{n: map[string]int64{"a": 1}}
	srv, err := RunOptions(Options{VirtualKeyspaces: []minicass.VirtualKeyspace{{Name: "app", Tables: []minicass.VirtualTable{c}}}})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	sess := session(t, srv, "", gocql.One)
	require.NoError(t, sess.Query(`UPDATE app.counts SET n = ? WHERE name = ?`, int64(7), "b").Exec())
	var n int64
	require.NoError(t, sess.Query(`SELECT n FROM app.counts WHERE name = ?`, "b").Scan(&n))
	require.Equal(t, int64(7), n)
	iter := sess.Query(`SELECT name, n FROM app.counts`).Iter()
	var names []string
	var name string
	for iter.Scan(&name, &n) {
		names = append(names, name)
	}
	require.NoError(t, iter.Close())
	require.Equal(t, []string{"a", "b"}, names)
	err = sess.Query(`DELETE FROM app.counts WHERE name = 'a'`).Exec()
	require.ErrorContains(t, err, "Partition deletion is not supported by table app.counts")
}
