package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/vfs"
)

// formatSSTables prints SSTables one a line with their main statistics.
func formatSSTables(infos []SSTableInfo) string {
	if len(infos) == 0 {
		return "(no sstables)\n"
	}
	var b strings.Builder
	for _, in := range infos {
		st := in.Stats
		fmt.Fprintf(&b, "%s: partitions=%d rows=%d cells=%d tombstones(partition=%d range=%d row=%d cell=%d) ts=[%d,%d] clustering=[%s,%s]",
			in.Name, st.Partitions, st.Rows, st.Cells, st.PartitionTombstones, st.RangeTombstones, st.RowTombstones, st.CellTombstones,
			st.MinTimestamp, st.MaxTimestamp, st.MinClustering, st.MaxClustering)
		if st.ClusteringUnbounded {
			b.WriteString(" unbounded")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestDataDriven runs the scripts in testdata/. Commands:
//
//	apply key=K [ts=N] [ttl=N]      one mutation; lines (C is a clustering key):
//	  insert C col=val ...           INSERT: liveness record + cells
//	  row C col=val col=null ...     UPDATE: cells only (null: cell tombstone)
//	  elem C m[key]=val ...          collection elements (null: element tombstone)
//	  set-coll C m key=val ...       overwrite a collection: deletion at ts-1 + elements
//	  delete-coll C m                DELETE m: collection deletion
//	  counter C n=+N                 counter delta
//	  delete-row C                   row deletion
//	  delete-range a..c              range tombstone ("a..=c", "!a..c", "..c", "a..")
//	  delete-partition               partition deletion
//	  static s=val                   static row cells (UPDATE)
//	read key=K [reverse] [limit=N] [slice=(a..c,e..)] [cols=(v,w)] [stats]
//	scan [limit=N] [per-partition-limit=N] [stats]
//	advance DURATION                move the manual clock
//	switch                          freeze the active memtable (reads merge both)
//	truncate
//	flush                           write the memtables to an SSTable; prints the SSTables
//	sstables                        list the table's SSTables, newest first
//	restart [crash]                 close (or crash: keep only what is durable) and reopen
//	use table=NAME [static=false]   switch to table ks.NAME, creating it if needed
//	options [gc=N] [compaction=(k=v,...)]  alter the table's gc_grace_seconds / compaction map
//	compact [sstables=(names)]      major (or user-defined) compaction; prints the SSTables
//	compact-background              run background compactions until none is due;
//	                                prints each one's inputs, then the SSTables
//	history                         the compaction history (reason, inputs -> outputs, rows merged)
//
// Background compaction is off (DisableAutoCompaction) so that the
// SSTable lists printed are deterministic.
//
// The engine is durable, on an in-memory crashable filesystem.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(filepath.ToSlash(path), "testdata/fuzz/") {
			t.Skip("fuzz corpus")
		}
		fsys := vfs.NewCrashableMem()
		e, clock, tbl := openDurable(t, fsys, Options{CommitLogSync: SyncBatch, DisableAutoCompaction: true})
		defer func() { _ = e.Close() }()
		ctx := context.Background()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			now := clock.Now().Unix()
			switch d.Cmd {
			case "apply":
				m, err := parseMutation(d, e, now)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				if err := e.Apply(ctx, tbl, m); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			case "read", "scan":
				opts := ReadOptions{Reverse: d.HasArg("reverse")}
				d.MaybeScanArgs(t, "limit", &opts.Limit)
				d.MaybeScanArgs(t, "per-partition-limit", &opts.PerPartitionLimit)
				if arg, ok := d.Arg("slice"); ok {
					for _, v := range arg.Vals {
						sl, err := parseSlice(v)
						if err != nil {
							d.Fatalf(t, "%v", err)
						}
						opts.Slices = append(opts.Slices, sl)
					}
				}
				if arg, ok := d.Arg("cols"); ok {
					opts.Columns = arg.Vals
				}
				var b strings.Builder
				var stats *ReadStats
				if d.Cmd == "read" {
					var key string
					d.ScanArgs(t, "key", &key)
					p, err := e.ReadPartition(ctx, tbl, []byte(key), opts)
					if err != nil {
						return "error: " + err.Error() + "\n"
					}
					drain(t, &b, p, now)
					stats = p.Stats()
				} else {
					sc, err := e.Scan(ctx, tbl, data.FullRing, opts)
					if err != nil {
						return "error: " + err.Error() + "\n"
					}
					for {
						p, ok := sc.Next()
						if !ok {
							break
						}
						fmt.Fprintf(&b, "partition %s\n", p.Key())
						drain(t, &b, p, now)
					}
					if err := sc.Close(); err != nil {
						return "error: " + err.Error() + "\n"
					}
					stats = sc.Stats()
				}
				if b.Len() == 0 {
					b.WriteString("(empty)\n")
				}
				if d.HasArg("stats") {
					b.WriteString("--\n" + stats.String())
				}
				return b.String()
			case "advance":
				dur, err := time.ParseDuration(strings.TrimSpace(d.CmdArgs[0].Key))
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				clock.Advance(dur)
				return fmt.Sprintf("now=%d\n", clock.Now().Unix())
			case "switch":
				ok, err := e.SwitchMemtable(tbl)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return fmt.Sprintf("switched=%v\n", ok)
			case "truncate":
				if err := e.Truncate("ks", tbl.Name); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			case "flush":
				if err := e.Flush(ctx, "ks", tbl.Name); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return formatSSTables(e.SSTables("ks", tbl.Name))
			case "sstables":
				return formatSSTables(e.SSTables("ks", tbl.Name))
			case "restart":
				if d.HasArg("crash") {
					crashed := fsys.CrashClone()
					require.NoError(t, e.Close())
					fsys = crashed
				} else {
					require.NoError(t, e.Close())
				}
				var err error
				e, err = Open(Options{Dir: "db", FS: fsys, Clock: clock, CommitLogSync: SyncBatch, DisableAutoCompaction: true})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var ok bool
				if tbl, ok = e.Table("ks", tbl.Name); !ok {
					return "table lost\n"
				}
				return "ok\n"
			case "options":
				nt := *tbl
				nt.Options.Compaction = maps.Clone(tbl.Options.Compaction)
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "gc":
						n, err := strconv.Atoi(a.Vals[0])
						if err != nil {
							d.Fatalf(t, "%v", err)
						}
						nt.Options.GCGraceSeconds = int32(n)
					case "compaction":
						nt.Options.Compaction = map[string]string{}
						for _, kv := range a.Vals {
							k, v, _ := strings.Cut(kv, "=")
							nt.Options.Compaction[k] = v
						}
					}
				}
				if err := ValidateCompactionOptions(nt.Options.Compaction); err != nil {
					return "error: " + err.Error() + "\n"
				}
				if err := e.AlterTable(&nt); err != nil {
					return "error: " + err.Error() + "\n"
				}
				tbl, _ = e.Table("ks", tbl.Name)
				return "ok\n"
			case "drop-column":
				// drop-column name=<column> at=<timestamp>, as ALTER TABLE
				// DROP does it (the cql package).
				var name string
				var at int64
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "at", &at)
				var cols []*schema.Column
				for _, c := range tbl.Columns {
					if c.Name != name {
						cp := *c
						cols = append(cols, &cp)
					}
				}
				nt := schema.NewTable(tbl.Keyspace, tbl.Name, tbl.ID, cols, tbl.Options)
				nt.Dropped = maps.Clone(tbl.Dropped)
				if nt.Dropped == nil {
					nt.Dropped = map[string]schema.DroppedColumn{}
				}
				nt.Dropped[name] = schema.DroppedColumn{Type: tbl.Column(name).Type, DroppedAt: at}
				if err := e.AlterTable(nt); err != nil {
					return "error: " + err.Error() + "\n"
				}
				tbl, _ = e.Table("ks", tbl.Name)
				return "ok\n"
			case "add-column":
				// add-column name=<column>: a text regular column, as
				// ALTER TABLE ADD does it.
				var name string
				d.ScanArgs(t, "name", &name)
				cols := []*schema.Column{{Name: name, Type: types.TextType, Kind: schema.Regular, Position: -1}}
				for _, c := range tbl.Columns {
					cp := *c
					cols = append(cols, &cp)
				}
				nt := schema.NewTable(tbl.Keyspace, tbl.Name, tbl.ID, cols, tbl.Options)
				nt.Dropped = tbl.Dropped
				if err := e.AlterTable(nt); err != nil {
					return "error: " + err.Error() + "\n"
				}
				tbl, _ = e.Table("ks", tbl.Name)
				return "ok\n"
			case "compact":
				if arg, ok := d.Arg("sstables"); ok {
					if _, err := e.CompactSSTables(ctx, "ks", tbl.Name, arg.Vals); err != nil {
						return "error: " + err.Error() + "\n"
					}
					return formatSSTables(e.SSTables("ks", tbl.Name))
				}
				if err := e.Compact(ctx, "ks", tbl.Name); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return formatSSTables(e.SSTables("ks", tbl.Name))
			case "compact-background":
				var b strings.Builder
				recs, err := e.CompactPending(ctx, "ks", tbl.Name)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				for _, r := range recs {
					fmt.Fprintf(&b, "%s: %v -> %v", r.Reason, r.Inputs, r.Outputs)
					if len(r.Expired) > 0 {
						fmt.Fprintf(&b, " expired=%v", r.Expired)
					}
					b.WriteString("\n")
				}
				if len(recs) == 0 {
					b.WriteString("nothing to compact\n")
				}
				b.WriteString(formatSSTables(e.SSTables("ks", tbl.Name)))
				return b.String()
			case "history":
				var b strings.Builder
				for _, r := range e.CompactionHistory() {
					fmt.Fprintf(&b, "%s %s.%s: %v -> %v rows_merged=%v\n", r.Reason, r.Keyspace, r.Table, r.Inputs, r.Outputs, formatMerged(r.RowsMerged))
				}
				return b.String()
			case "use":
				var name string
				d.ScanArgs(t, "table", &name)
				if cur, ok := e.Table("ks", name); ok {
					tbl = cur
					return "ok\n"
				}
				nt := testTable(name, data.TableID{byte(len(e.Tables("ks")) + 1)})
				if d.HasArg("static") {
					var cols []*schema.Column
					for _, c := range nt.Columns {
						if c.Kind != schema.Static {
							cols = append(cols, c)
						}
					}
					nt = schema.NewTable("ks", name, nt.ID, cols, nt.Options)
				}
				if err := e.CreateTable(nt); err != nil {
					return "error: " + err.Error() + "\n"
				}
				tbl = nt
				return "created\n"
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

// formatMerged prints rows_merged as nodetool compactionhistory does:
// {1:3, 2:1}.
func formatMerged(m map[int]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// parseMutation builds a mutation from an apply command.
func parseMutation(d *datadriven.TestData, e *Engine, now int64) (*data.Mutation, error) {
	var key string
	for _, a := range d.CmdArgs {
		if a.Key == "key" && len(a.Vals) > 0 {
			key = a.Vals[0]
		}
	}
	ts := int64(-1)
	ttl := 0
	for _, a := range d.CmdArgs {
		var err error
		switch a.Key {
		case "ts":
			ts, err = strconv.ParseInt(a.Vals[0], 10, 64)
		case "ttl":
			ttl, err = strconv.Atoi(a.Vals[0])
		}
		if err != nil {
			return nil, err
		}
	}
	if ts < 0 {
		ts = e.NewTimestamp()
	}
	m := &data.Mutation{Key: []byte(key), PartitionDeletion: data.LiveDeletion}
	del := data.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: now}
	rows := map[string]*data.Row{}
	var order []string
	rowFor := func(ck string) *data.Row {
		if r, ok := rows[ck]; ok {
			return r
		}
		r := data.NewRow([]byte(ck))
		rows[ck] = &r
		order = append(order, ck)
		return &r
	}
	mkCell := func(col string, path []byte, val string) data.Cell {
		c := data.Cell{Column: col, Path: path, Timestamp: ts, LocalDeletionTime: data.NoDeletionTime}
		switch {
		case val == "null":
			c.Kind, c.LocalDeletionTime = data.CellTombstone, now
		default:
			c.Value = []byte(val)
			if ttl > 0 {
				c.TTL, c.LocalDeletionTime = int32(ttl), now+int64(ttl)
			}
			if ttl < 0 {
				c.TTL = int32(ttl)
			}
		}
		return c
	}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "insert", "row", "elem":
			r := rowFor(f[1])
			if f[0] == "insert" {
				r.Liveness = data.LivenessInfo{Timestamp: ts, ExpiresAt: data.NoDeletionTime}
				if ttl != 0 {
					r.Liveness.TTL, r.Liveness.ExpiresAt = int32(ttl), now+int64(ttl)
				}
			}
			for _, kv := range f[2:] {
				col, val, _ := strings.Cut(kv, "=")
				var path []byte
				if i := strings.IndexByte(col, '['); i >= 0 {
					path = []byte(strings.TrimSuffix(col[i+1:], "]"))
					col = col[:i]
				}
				r.Cells = append(r.Cells, mkCell(col, path, val))
			}
		case "set-coll":
			r := rowFor(f[1])
			r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: f[2],
				Deletion: data.DeletionTime{MarkedForDeleteAt: ts - 1, LocalDeletionTime: now}})
			for _, kv := range f[3:] {
				k, v, _ := strings.Cut(kv, "=")
				r.Cells = append(r.Cells, mkCell(f[2], []byte(k), v))
			}
		case "delete-coll":
			r := rowFor(f[1])
			r.ColumnDeletions = append(r.ColumnDeletions, data.ColumnDeletion{Column: f[2], Deletion: del})
		case "counter":
			r := rowFor(f[1])
			for _, kv := range f[2:] {
				col, val, _ := strings.Cut(kv, "=")
				n, err := strconv.ParseInt(val, 10, 64)
				if err != nil {
					return nil, err
				}
				r.Cells = append(r.Cells, data.Cell{Column: col, Kind: data.CellCounter, Timestamp: ts,
					LocalDeletionTime: data.NoDeletionTime, Value: data.CounterBytes(n)})
			}
		case "delete-row":
			rowFor(f[1]).Deletion = del
		case "delete-range":
			sl, err := parseSlice(f[1])
			if err != nil {
				return nil, err
			}
			m.RangeTombstones = append(m.RangeTombstones, data.RangeTombstone{Start: sl.Start, End: sl.End, Deletion: del})
		case "delete-partition":
			m.PartitionDeletion = del
		case "static":
			if m.Static == nil {
				r := data.NewRow(nil)
				m.Static = &r
			}
			for _, kv := range f[1:] {
				col, val, _ := strings.Cut(kv, "=")
				m.Static.Cells = append(m.Static.Cells, mkCell(col, nil, val))
			}
		default:
			return nil, fmt.Errorf("unknown line %q", line)
		}
	}
	for _, ck := range order {
		r := rows[ck]
		slices.SortFunc(r.Cells, func(a, b data.Cell) int { return data.CompareID(&a, &b) })
		m.Rows = append(m.Rows, *r)
	}
	if m.Static != nil {
		slices.SortFunc(m.Static.Cells, func(a, b data.Cell) int { return data.CompareID(&a, &b) })
	}
	return m, nil
}
