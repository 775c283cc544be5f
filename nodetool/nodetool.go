// Package nodetool prints Cassandra's nodetool maintenance commands and
// teaching views of a minicass DB, as nodetool prints them: flush, compact,
// tablestats, tablehistograms, compactionhistory. The command line runs them
// on a data directory (minicass nodetool), or on the running process that
// holds it, and the shell runs them on its own DB (NODETOOL ...).
package nodetool

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Command describes one nodetool subcommand.
type Command struct {
	// Name is the subcommand's name; Aliases are Cassandra's older names.
	Name    string
	Aliases []string
	// Args shows its arguments, Summary what it does.
	Args, Summary string
	// ReadOnly is set for the views, which change nothing.
	ReadOnly bool
}

// Commands lists the subcommands in the order help prints them.
var Commands = []Command{
	{Name: "compact", Args: "[keyspace [table...]]", Summary: "Force a (major) compaction on one or more tables"},
	{Name: "compactionhistory", Summary: "Print history of compaction", ReadOnly: true},
	{Name: "flush", Args: "[keyspace [table...]]", Summary: "Flush one or more tables"},
	{Name: "help", Summary: "Display help information", ReadOnly: true},
	{Name: "tablehistograms", Aliases: []string{"cfhistograms"}, Args: "keyspace table | keyspace.table", Summary: "Print statistic histograms for a given table", ReadOnly: true},
	{Name: "tablestats", Aliases: []string{"cfstats"}, Args: "[keyspace[.table]...]", Summary: "Print statistics on tables", ReadOnly: true},
}

// Lookup returns the subcommand named name (or one of its aliases).
func Lookup(name string) (Command, bool) {
	for _, c := range Commands {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c, true
		}
	}
	return Command{}, false
}

// Help prints the subcommands as nodetool help lists them, with the usage
// line given first.
func Help(w io.Writer, usage string) {
	fmt.Fprintf(w, "usage: %s <command> [<args>]\n\nThe most commonly used nodetool commands are:\n", usage)
	for _, c := range Commands {
		fmt.Fprintf(w, "    %-20s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintln(w, "\nArguments:")
	for _, c := range Commands {
		if c.Args != "" {
			fmt.Fprintf(w, "    %-20s %s\n", c.Name, c.Args)
		}
	}
}

// Run runs subcommand cmd with args on db and prints its output to w.
func Run(ctx context.Context, db *minicass.DB, cmd string, args []string, w io.Writer) error {
	c, ok := Lookup(cmd)
	if !ok {
		names := make([]string, len(Commands))
		for i, c := range Commands {
			names[i] = c.Name
		}
		return fmt.Errorf("unknown command %q (%s)", cmd, strings.Join(names, ", "))
	}
	e := db.Engine()
	switch c.Name {
	case "help":
		Help(w, "nodetool")
		return nil
	case "flush", "compact":
		op := db.Flush
		if c.Name == "compact" {
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
	case "tablestats":
		return tablestats(e, args, w)
	case "tablehistograms":
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
	}
	return compactionhistory(e, w)
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
		// A table's index tables are listed with it, as "Table (index):
		// t.i" (Cassandra's index ColumnFamilyStores).
		for _, t := range append(e.Tables(ks.Name), e.IndexTables(ks.Name)...) {
			if len(sels) > 0 && !slices.ContainsFunc(sels, func(s sel) bool {
				return s.ks == ks.Name && (s.table == "" || schema.OwnsTable(s.table, t.Name))
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
			if strings.Contains(t.Table, ".") {
				p("Table (index): %s", t.Table)
			} else {
				p("Table: %s", t.Table)
			}
			p("SSTable count: %d", t.SSTableCount)
			p("Old SSTable count: 0")
			p("Space used (live): %d", t.SpaceUsedLive)
			p("Space used (total): %d", t.SpaceUsedTotal)
			p("Space used by snapshots (total): 0")
			p("SSTable Compression Ratio: %s", types.JavaFloat(ratio, 64))
			p("Number of partitions (estimate): %d", t.PartitionsEstimate)
			p("Memtable cell count: %d", t.MemtableOperations)
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

// tablehistograms prints nodetool tablehistograms ks table. The SSTables
// column is the table's SSTables-per-read histogram (decaying, as
// Cassandra's SSTablesPerReadHistogram); minicass keeps no read and write
// latency histograms: those columns print 0.00.
func tablehistograms(e *engine.Engine, ks, table string, w io.Writer) error {
	st, err := e.TableStats(ks, table)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s/%s histograms\n", ks, table)
	fmt.Fprintf(w, "%-10s%18s%18s%18s%18s%18s\n", "Percentile", "Read Latency", "Write Latency", "SSTables", "Partition Size", "Cell Count")
	fmt.Fprintf(w, "%-10s%18s%18s%18s%18s%18s\n", "", "(micros)", "(micros)", "", "(bytes)", "")
	row := func(name string, sstables, size, cells int64) {
		fmt.Fprintf(w, "%-10s%18.2f%18.2f%18.2f%18s%18s\n", name, 0.0, 0.0, float64(sstables), histValue(size), histValue(cells))
	}
	ps, cc, sp := st.PartitionSize, st.CellCount, st.SSTablesPerReadPoints
	row("50%", sp.P50, ps.P50, cc.P50)
	row("75%", sp.P75, ps.P75, cc.P75)
	row("95%", sp.P95, ps.P95, cc.P95)
	row("98%", sp.P98, ps.P98, cc.P98)
	row("99%", sp.P99, ps.P99, cc.P99)
	row("Min", sp.Min, ps.Min, cc.Min)
	row("Max", sp.Max, ps.Max, cc.Max)
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
