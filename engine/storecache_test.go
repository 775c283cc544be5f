package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// TestStoreCacheSlots writes to tables whose IDs share a slot of the
// state's store cache (schemaState.hot), alternating between them, and
// reads every table back: a cache that returned the store a slot last
// held, without checking its ID, would put one table's rows in another.
// Then a dropped table's writes fail although its store was cached, and a
// table created again under the same name (a new ID, the same slot) starts
// empty.
func TestStoreCacheSlots(t *testing.T) {
	ctx := context.Background()
	e, _, tbl := newTestEngine(t)
	// Three IDs in tbl's slot, and one in another slot.
	slot := storeSlot(tbl.ID)
	var same []data.TableID
	var other data.TableID
	for i := 2; len(same) < 3 || other == (data.TableID{}); i++ {
		id := data.TableID{byte(i), byte(i >> 8), 0x40}
		switch {
		case storeSlot(id) == slot && len(same) < 3:
			same = append(same, id)
		case storeSlot(id) != slot && other == (data.TableID{}):
			other = id
		}
	}
	tables := []*schema.Table{tbl}
	for i, id := range append(same, other) {
		nt := testTable(fmt.Sprintf("t%d", i+2), id)
		require.NoError(t, e.CreateTable(nt))
		tables = append(tables, nt)
	}
	for round := 0; round < 3; round++ {
		for i, nt := range tables {
			require.NoError(t, e.Apply(ctx, nt, mutationOf("k", fmt.Sprintf("r%d", round), "v", nt.Name, int64(10*round+i+1))))
		}
	}
	for _, nt := range tables {
		_, rows := readAll(t, e, nt, "k", ReadOptions{})
		require.Len(t, rows, 3, "table %s", nt.Name)
		for _, r := range rows {
			require.Len(t, r.Cells, 1)
			assert.Equal(t, nt.Name, string(r.Cells[0].Value), "a row of table %s", nt.Name)
		}
	}

	// A dropped table's store leaves with the state that cached it.
	// Each is written just before it is dropped, so that its slot holds
	// its store.
	gone := tables[1]
	require.NoError(t, e.Apply(ctx, gone, mutationOf("k", "w", "v", gone.Name, 99)))
	require.NoError(t, e.DropTable("ks", gone.Name))
	assert.ErrorIs(t, e.Apply(ctx, gone, mutationOf("k", "x", "v", "1", 100)), ErrNoTable)
	again := testTable(gone.Name, same[2])
	require.NoError(t, e.Apply(ctx, tables[3], mutationOf("k", "w", "v", tables[3].Name, 99)))
	require.NoError(t, e.DropTable("ks", tables[3].Name))
	require.NoError(t, e.CreateTable(again))
	_, rows := readAll(t, e, again, "k", ReadOptions{})
	assert.Empty(t, rows)
	require.NoError(t, e.Apply(ctx, again, mutationOf("k", "y", "v", "again", 101)))
	_, rows = readAll(t, e, again, "k", ReadOptions{})
	require.Len(t, rows, 1)
	assert.Equal(t, "again", string(rows[0].Cells[0].Value))
}
