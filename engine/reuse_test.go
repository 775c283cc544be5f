package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// TestApplyKeepsNoCallerMemory writes through one mutation, its rows,
// cells and byte buffers reused for every write, each overwritten with
// garbage as soon as Apply returns, to a table without dependents and to
// one with a value index (the derived path): every row, static cell and
// index entry reads back as written, before and after a restart that
// replays the commit log. So Apply keeps nothing of the caller's memory, as
// its documentation says (the memtable, the commit log and the dependents
// copy what they keep). It runs on an in-memory filesystem (records framed
// in the log's buffer) and on the operating system's (records encoded into
// the mapped segment).
func TestApplyKeepsNoCallerMemory(t *testing.T) {
	for name, mk := range map[string]func() (vfs.FS, string){
		"memfs": func() (vfs.FS, string) { return vfs.NewMem(), "db" },
		"osfs":  func() (vfs.FS, string) { return vfs.Default, t.TempDir() },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			fsys, dir := mk()
			e, _, plain := openDurable(t, fsys, Options{Dir: dir})
			indexed := testTable("t2", data.TableID{5})
			require.NoError(t, e.CreateTable(indexed))
			setupValueIndex(t, e, indexed)

			var key, ck, val, sval []byte
			cells := make([]data.Cell, 1)
			statCells := make([]data.Cell, 1)
			m := &data.Mutation{Rows: make([]data.Row, 1), Static: &data.Row{}}
			const n = 300
			for i := range n {
				tbl := plain
				if i%2 == 1 {
					tbl = indexed
				}
				ts := int64(i + 1)
				key = fmt.Appendf(key[:0], "k%03d", i/3)
				ck = fmt.Appendf(ck[:0], "c%03d", i)
				val = fmt.Appendf(val[:0], "value-%03d", i)
				sval = fmt.Appendf(sval[:0], "static-%03d", i)
				cells[0] = data.Cell{Column: "v", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: val}
				statCells[0] = data.Cell{Column: "s", Timestamp: ts, LocalDeletionTime: data.NoDeletionTime, Value: sval}
				*m = data.Mutation{Key: key, PartitionDeletion: data.LiveDeletion, Static: m.Static, Rows: m.Rows[:1]}
				*m.Static = data.Row{Liveness: data.EmptyLiveness, Deletion: data.LiveDeletion, Cells: statCells}
				m.Rows[0] = data.Row{Clustering: ck, Deletion: data.LiveDeletion,
					Liveness: data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}, Cells: cells}
				require.NoError(t, e.Apply(ctx, tbl, m))
				for _, b := range [][]byte{key, ck, val, sval} {
					for j := range b {
						b[j] = 0xff
					}
				}
				cells[0], statCells[0] = data.Cell{Column: "v", Value: val}, data.Cell{Column: "s", Value: sval}
				m.Rows[0] = data.Row{Clustering: ck}
			}
			check := func() {
				t.Helper()
				for i := range n {
					tbl := plain
					if i%2 == 1 {
						tbl = indexed
					}
					st, rows := readAll(t, e, tbl, fmt.Sprintf("k%03d", i/3), ReadOptions{})
					var got string
					for _, r := range rows {
						if string(r.Clustering) == fmt.Sprintf("c%03d", i) {
							got = string(cellOf(&r, "v").Value)
						}
					}
					require.Equal(t, fmt.Sprintf("value-%03d", i), got, "write %d", i)
					require.NotNil(t, st)
					// The static cell is the partition's latest write to
					// that table.
					last := i
					for j := i + 1; j < n && j/3 == i/3; j++ {
						if j%2 == i%2 {
							last = j
						}
					}
					require.Equal(t, fmt.Sprintf("static-%03d", last), string(cellOf(st, "s").Value), "write %d", i)
				}
				idx, ok := e.Table("ks", "vi")
				require.True(t, ok)
				entries := scanAll(t, e, idx, "")
				require.Len(t, entries, n/2)
				for i := 1; i < n; i += 2 {
					require.Contains(t, entries, fmt.Sprintf("value-%03d|k%03d/c%03d", i, i/3, i))
				}
			}
			check()
			require.NoError(t, e.Close())
			e, _, plain = openDurable(t, fsys, Options{Dir: dir})
			defer e.Close()
			indexed, _ = e.Table("ks", "t2")
			check()
		})
	}
}
