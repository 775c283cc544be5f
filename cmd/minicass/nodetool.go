package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
)

// nodetool runs Cassandra's nodetool maintenance commands and teaching
// views on a data directory, printed as nodetool prints them:
//
//	minicass nodetool --data DIR flush [ks [table...]]
//	minicass nodetool --data DIR compact [ks [table...]]
//	minicass nodetool --data DIR tablestats [ks[.table]...]
//	minicass nodetool --data DIR tablehistograms ks table   (or ks.table)
//	minicass nodetool --data DIR compactionhistory
//
// The directory is opened (its commit log replayed) for the command and
// closed afterwards; it must not be in use by another process.
func init() {
	commands["nodetool"] = command{
		summary: "flush, compact, tablestats, tablehistograms, compactionhistory on --data DIR",
		run:     nodetoolMain,
	}
}

func nodetoolMain(args []string, io stdio) int {
	fs := flag.NewFlagSet("nodetool", flag.ContinueOnError)
	fs.SetOutput(io.err)
	dir := fs.String("data", "", "data directory (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if *dir == "" || len(rest) == 0 {
		fmt.Fprintln(io.err, "usage: minicass nodetool --data DIR flush|compact [ks [table...]] | tablestats [ks[.table]...] | tablehistograms ks table | compactionhistory")
		return 2
	}
	db, err := minicass.Open(minicass.Options{Dir: *dir})
	if err != nil {
		fmt.Fprintf(io.err, "minicass nodetool: %v\n", err)
		return 1
	}
	defer db.Close()
	if err := nodetool(context.Background(), db, rest[0], rest[1:], io.out); err != nil {
		fmt.Fprintf(io.err, "nodetool: %v\n", err)
		return 1
	}
	return 0
}

// nodetool runs one command on db.
func nodetool(ctx context.Context, db *minicass.DB, cmd string, args []string, w io.Writer) error {
	e := db.Engine()
	switch cmd {
	case "flush", "compact":
		op := db.Flush
		if cmd == "compact" {
			op = db.Compact
		}
		if len(args) <= 1 {
			ks := ""
			if len(args) == 1 {
				ks = args[0]
			}
			return op(ctx, ks, "")
		}
		for _, t := range args[1:] {
			if err := op(ctx, args[0], t); err != nil {
				return err
			}
		}
		return nil
	case "tablestats", "cfstats":
		return tablestats(e, args, w)
	case "tablehistograms", "cfhistograms":
		var ks, table string
		switch {
		case len(args) == 1 && strings.Contains(args[0], "."):
			ks, table, _ = strings.Cut(args[0], ".")
		case len(args) == 2:
			ks, table = args[0], args[1]
		default:
			return fmt.Errorf("tablehistograms requires keyspace and table name arguments")
		}
		return tablehistograms(e, ks, table, w)
	case "compactionhistory":
		return compactionhistory(e, w)
	}
	return fmt.Errorf("unknown command %q (flush, compact, tablestats, tablehistograms, compactionhistory)", cmd)
}

// tablestats prints nodetool tablestats for the selected tables (all user
// tables without arguments).
func tablestats(e *engine.Engine, args []string, w io.Writer) error {
	type sel struct{ ks, table string }
	var sels []sel
	for _, a := range args {
		ks, t, _ := strings.Cut(a, ".")
		sels = append(sels, sel{ks, t})
	}
	byKS := map[string][]engine.TableStats{}
	var order []string
	for _, ks := range e.Keyspaces() {
		if strings.HasPrefix(ks.Name, "system") {
			continue
		}
		for _, t := range e.Tables(ks.Name) {
			if len(sels) > 0 && !slices.ContainsFunc(sels, func(s sel) bool {
				return s.ks == ks.Name && (s.table == "" || s.table == t.Name)
			}) {
				continue
			}
			st, err := e.TableStats(ks.Name, t.Name)
			if err != nil {
				return err
			}
			if _, ok := byKS[ks.Name]; !ok {
				order = append(order, ks.Name)
			}
			byKS[ks.Name] = append(byKS[ks.Name], st)
		}
	}
	for _, s := range sels {
		if _, ok := byKS[s.ks]; !ok {
			if _, ok := e.Keyspace(s.ks); !ok {
				return fmt.Errorf("Unknown keyspace: %s", s.ks)
			}
		}
		if s.table != "" {
			if _, ok := e.Table(s.ks, s.table); !ok {
				return fmt.Errorf("Unknown table: %s.%s", s.ks, s.table)
			}
		}
	}
	slices.Sort(order)
	total := 0
	for _, ks := range order {
		total += len(byKS[ks])
	}
	fmt.Fprintf(w, "Total number of tables: %d\n----------------\n", total)
	for _, ks := range order {
		tables := byKS[ks]
		slices.SortFunc(tables, func(a, b engine.TableStats) int { return strings.Compare(a.Table, b.Table) })
		var reads, writes int64
		var pending int
		for _, t := range tables {
			reads += t.ReadCount
			writes += t.WriteCount
			pending += t.MemtablesFlushing
		}
		fmt.Fprintf(w, "Keyspace : %s\n", ks)
		fmt.Fprintf(w, "\tRead Count: %d\n\tRead Latency: NaN ms\n\tWrite Count: %d\n\tWrite Latency: NaN ms\n\tPending Flushes: %d\n", reads, writes, pending)
		for _, t := range tables {
			ratio := -1.0
			if t.DataSize > 0 {
				ratio = float64(t.CompressedSize) / float64(t.DataSize)
			}
			p := func(format string, args ...any) { fmt.Fprintf(w, "\t\t"+format+"\n", args...) }
			p("Table: %s", t.Table)
			p("SSTable count: %d", t.SSTableCount)
			p("Old SSTable count: 0")
			p("Space used (live): %d", t.SpaceUsedLive)
			p("Space used (total): %d", t.SpaceUsedTotal)
			p("Space used by snapshots (total): 0")
			p("SSTable Compression Ratio: %s", types.JavaFloat(ratio, 64))
			p("Number of partitions (estimate): %d", t.PartitionsEstimate)
			p("Memtable cell count: %d", t.MemtablePartitions)
			p("Memtable data size: %d", t.MemtableSize)
			p("Local read count: %d", t.ReadCount)
			p("Local read latency: NaN ms")
			p("Local write count: %d", t.WriteCount)
			p("Local write latency: NaN ms")
			p("Pending flushes: %d", t.MemtablesFlushing)
			p("Compacted partition minimum bytes: %d", t.PartitionSize.Min)
			p("Compacted partition maximum bytes: %d", t.PartitionSize.Max)
			p("Compacted partition mean bytes: %d", t.MeanPartitionSize)
			p("Average live cells per slice (last five minutes): %s", types.JavaFloat(t.RowsPerRead.Mean, 64))
			p("Maximum live cells per slice (last five minutes): %d", t.RowsPerRead.Max)
			p("Average tombstones per slice (last five minutes): %s", types.JavaFloat(t.TombstonesPerRead.Mean, 64))
			p("Maximum tombstones per slice (last five minutes): %d", t.TombstonesPerRead.Max)
			p("Droppable tombstone ratio: %.5f", t.DroppableTombstoneRatio)
			p("Compaction strategy: %s", t.Strategy)
			p("Compactions completed: %d", t.Compactions)
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "----------------")
	}
	return nil
}

// tablehistograms prints nodetool tablehistograms ks table. minicass does
// not keep read and write latency histograms nor SSTables per read: those
// columns print 0.00.
func tablehistograms(e *engine.Engine, ks, table string, w io.Writer) error {
	st, err := e.TableStats(ks, table)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s/%s histograms\n", ks, table)
	fmt.Fprintf(w, "%-10s%18s%18s%18s%18s%18s\n", "Percentile", "Read Latency", "Write Latency", "SSTables", "Partition Size", "Cell Count")
	fmt.Fprintf(w, "%-10s%18s%18s%18s%18s%18s\n", "", "(micros)", "(micros)", "", "(bytes)", "")
	row := func(name string, size, cells int64) {
		fmt.Fprintf(w, "%-10s%18.2f%18.2f%18.2f%18s%18s\n", name, 0.0, 0.0, 0.0, histValue(size), histValue(cells))
	}
	ps, cc := st.PartitionSize, st.CellCount
	row("50%", ps.P50, cc.P50)
	row("75%", ps.P75, cc.P75)
	row("95%", ps.P95, cc.P95)
	row("98%", ps.P98, cc.P98)
	row("99%", ps.P99, cc.P99)
	row("Min", ps.Min, cc.Min)
	row("Max", ps.Max, cc.Max)
	fmt.Fprintln(w)
	return nil
}

func histValue(v int64) string {
	if v == math.MaxInt64 {
		return "NaN"
	}
	return fmt.Sprintf("%d", v)
}

// compactionhistory prints nodetool compactionhistory, newest first.
func compactionhistory(e *engine.Engine, w io.Writer) error {
	hist := e.CompactionHistory()
	fmt.Fprintln(w, "Compaction History: ")
	if len(hist) == 0 {
		fmt.Fprintln(w, "There is no compaction history")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "id\tkeyspace_name\tcolumnfamily_name\tcompacted_at\tbytes_in\tbytes_out\trows_merged\t")
	for i := len(hist) - 1; i >= 0; i-- {
		r := hist[i]
		keys := make([]int, 0, len(r.RowsMerged))
		for k := range r.RowsMerged {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = fmt.Sprintf("%d:%d", k, r.RowsMerged[k])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t{%s}\t\n", r.ID, r.Keyspace, r.Table,
			r.CompactedAt.Local().Format("2006-01-02T15:04:05.000"), r.BytesIn, r.BytesOut, strings.Join(parts, ", "))
	}
	return tw.Flush()
}
