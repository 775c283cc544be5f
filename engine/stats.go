package engine

import (
	"fmt"
	"strings"
)

// TombstoneStats counts the tombstones a read met, by kind.
type TombstoneStats struct {
	// Cell counts cell tombstones (DELETE col, null writes).
	Cell int
	// Collection counts whole-collection deletions (DELETE m, and the
	// deletion at ts-1 that overwriting a collection writes).
	Collection int
	// Row counts row deletions.
	Row int
	// Range counts range tombstones.
	Range int
	// Partition counts partition deletions.
	Partition int
}

// Total returns the number of tombstones of every kind.
func (t TombstoneStats) Total() int { return t.Cell + t.Collection + t.Row + t.Range + t.Partition }

// SourceStats says what a read did with one source.
type SourceStats struct {
	// Name is the source's name (Source.Name).
	Name string
	// Kind is the source's kind.
	Kind SourceKind
	// Read counts the partitions read from the source.
	Read int
	// Skipped counts the partitions the source was not read for, and
	// SkipReason gives the last reason (e.g. "not present").
	Skipped    int
	SkipReason string
	// Rows counts the row versions read from the source.
	Rows int
}

// ReadStats describes what one read touched, for TRACING and tests. The
// counters cover what has been read so far: they are complete once the
// read's iterators are exhausted or closed.
type ReadStats struct {
	// Partitions counts the partitions read.
	Partitions int
	// RowsRead counts row versions read from all sources, before merging.
	RowsRead int
	// CellsRead counts the cells of the row versions read, before merging:
	// with LiveCells, what a read touched against what it returned.
	CellsRead int
	// RowsReturned counts the live rows returned.
	RowsReturned int
	// LiveCells counts the live cells returned.
	LiveCells int
	// ExpiredCells counts cells found expired at the read time.
	ExpiredCells int
	// Tombstones counts the tombstones met, by kind.
	Tombstones TombstoneStats
	// Sources has one entry per source consulted, in read order.
	Sources []SourceStats
	// SSTablesIterated counts the SSTables whose partition a partition
	// read opened (found in the index), as Cassandra's
	// SSTableReadMetricsCollector counts them for the table metric
	// SSTablesPerReadHistogram: not those the read skipped by bloom filter,
	// timestamps or clustering bounds, nor those it never reached.
	SSTablesIterated int

	// warnAt and failAt are the engine's tombstone thresholds (negative:
	// off).
	warnAt, failAt int
	// partitionRead marks the statistics of a partition read, which the
	// table's SSTables-per-read histogram records (a scan does not, as
	// Cassandra's range reads do not).
	partitionRead bool
	// now is the read's time (unix seconds), which dates it in the
	// table's per-read histograms.
	now int64
	// gcBefore is now minus the table's gc_grace_seconds: a tombstone
	// (or expired cell) whose local deletion time is before it is
	// purgeable and not counted, as Cassandra's ReadCommand drops
	// purgeable tombstones (withoutPurgeableTombstones) before it counts
	// them. 0, for internal reads, counts them all.
	gcBefore int64
}

// counts reports whether a tombstone with local deletion time ldt counts
// against the thresholds: it is not purgeable yet.
func (s *ReadStats) counts(ldt int64) bool { return ldt >= s.gcBefore }

// TombstonesScanned returns the tombstones the read met as Cassandra
// counts them for tombstone_warn_threshold: deletions of every kind and
// expired cells.
func (s *ReadStats) TombstonesScanned() int { return s.Tombstones.Total() + s.ExpiredCells }

// TombstoneWarning reports whether the read met more tombstones than
// Options.TombstoneWarnThreshold. The CQL layer then adds Cassandra's
// warning, "Read N live rows and M tombstone cells for query ... (see
// tombstone_warn_threshold)", to the result.
func (s *ReadStats) TombstoneWarning() bool {
	return s.warnAt > 0 && s.TombstonesScanned() > s.warnAt
}

// checkTombstones returns an error wrapping ErrTombstoneOverwhelming once
// the read has met more tombstones than the failure threshold.
func (s *ReadStats) checkTombstones() error {
	if s.failAt > 0 && s.TombstonesScanned() > s.failAt {
		return fmt.Errorf("%w: scanned over %d tombstones (tombstone_failure_threshold %d); query aborted",
			ErrTombstoneOverwhelming, s.TombstonesScanned(), s.failAt)
	}
	return nil
}

// source returns the entry of the source named name, adding it if needed.
func (s *ReadStats) source(src Source) *SourceStats {
	return &s.Sources[s.sourceIndex(src)]
}

// sourceIndex returns the index in Sources of the entry of the source
// named src.Name(), adding it if needed.
func (s *ReadStats) sourceIndex(src Source) int {
	name := src.Name()
	for i := range s.Sources {
		if s.Sources[i].Name == name {
			return i
		}
	}
	return s.addSource(src)
}

// addSource adds an entry for src, whose name has none yet, and returns
// its index in Sources. A read lists its memtables and SSTables with it:
// their names are unique (a generation each), so the read of n sources
// makes no n*n/2 name comparisons.
func (s *ReadStats) addSource(src Source) int {
	s.Sources = append(s.Sources, SourceStats{Name: src.Name(), Kind: src.Kind()})
	return len(s.Sources) - 1
}

// Add adds the statistics of another read to s, summing the counters of
// sources of the same name, so that a read of many partitions reports one
// total per source (a trace of a range read prints them on a few lines).
func (s *ReadStats) Add(o *ReadStats) {
	s.Partitions += o.Partitions
	s.RowsRead += o.RowsRead
	s.CellsRead += o.CellsRead
	s.RowsReturned += o.RowsReturned
	s.LiveCells += o.LiveCells
	s.ExpiredCells += o.ExpiredCells
	s.SSTablesIterated += o.SSTablesIterated
	s.Tombstones.Cell += o.Tombstones.Cell
	s.Tombstones.Collection += o.Tombstones.Collection
	s.Tombstones.Row += o.Tombstones.Row
	s.Tombstones.Range += o.Tombstones.Range
	s.Tombstones.Partition += o.Tombstones.Partition
	for _, src := range o.Sources {
		var d *SourceStats
		for i := range s.Sources {
			if s.Sources[i].Name == src.Name {
				d = &s.Sources[i]
				break
			}
		}
		if d == nil {
			s.Sources = append(s.Sources, SourceStats{Name: src.Name, Kind: src.Kind})
			d = &s.Sources[len(s.Sources)-1]
		}
		d.Read += src.Read
		d.Rows += src.Rows
		d.Skipped += src.Skipped
		if src.SkipReason != "" {
			d.SkipReason = src.SkipReason
		}
	}
}

// String formats the statistics on a few lines, as TRACING prints them.
func (s *ReadStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "partitions=%d rows-read=%d rows-returned=%d live-cells=%d expired-cells=%d\n",
		s.Partitions, s.RowsRead, s.RowsReturned, s.LiveCells, s.ExpiredCells)
	t := s.Tombstones
	fmt.Fprintf(&b, "tombstones: cell=%d collection=%d row=%d range=%d partition=%d\n",
		t.Cell, t.Collection, t.Row, t.Range, t.Partition)
	for _, src := range s.Sources {
		fmt.Fprintf(&b, "%s %s: read=%d rows=%d", src.Kind, src.Name, src.Read, src.Rows)
		if src.Skipped > 0 {
			fmt.Fprintf(&b, " skipped=%d (%s)", src.Skipped, src.SkipReason)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
