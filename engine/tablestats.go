package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/minicass/minicass/schema"
	"io/fs"
	"slices"

	"github.com/minicass/minicass/sstable"
)

// Percentiles are the points of a histogram nodetool tablehistograms
// prints: 50%, 75%, 95%, 98%, 99%, Min and Max, each the upper bound of the
// Cassandra EstimatedHistogram bucket holding it.
type Percentiles struct {
	P50, P75, P95, P98, P99, Min, Max int64
}

func percentiles(h *sstable.Histogram) Percentiles {
	return Percentiles{P50: h.Percentile(0.5), P75: h.Percentile(0.75), P95: h.Percentile(0.95),
		P98: h.Percentile(0.98), P99: h.Percentile(0.99), Min: h.Min(), Max: h.Max()}
}

// TableStats are the statistics of one table, for nodetool tablestats and
// tablehistograms.
type TableStats struct {
	Keyspace, Table string
	// SSTableCount is the number of live SSTables.
	SSTableCount int
	// SpaceUsedLive is the size of the live SSTables' files;
	// SpaceUsedTotal adds the obsolete ones not yet deleted (still read
	// by reads in flight).
	SpaceUsedLive, SpaceUsedTotal int64
	// DataSize is the uncompressed size of the live SSTables' data, and
	// CompressedSize the size of their Data.db files.
	DataSize, CompressedSize int64
	// MemtableSize, MemtablePartitions and MemtablesFlushing describe the
	// memtables; MemtableOperations counts the operations applied to the
	// active one (memtable.Memtable.Operations), which nodetool tablestats
	// prints as "Memtable cell count".
	MemtableSize       int64
	MemtablePartitions int
	MemtableOperations int64
	MemtablesFlushing  int
	// PartitionsEstimate adds the partitions of the SSTables and the
	// active memtable (a partition in several counts several times, as
	// Cassandra's estimate without its HyperLogLog merge).
	PartitionsEstimate int64
	// ReadCount and WriteCount count the reads (partition reads and scans)
	// and writes (mutations) since the engine opened.
	ReadCount, WriteCount int64
	// DroppableTombstoneRatio is the estimated ratio of droppable
	// tombstones (local deletion time before now - gc_grace_seconds) to
	// all cells and markers of the SSTables.
	DroppableTombstoneRatio float64
	// PartitionSize (bytes) and CellCount (cells per partition) are the
	// merged histograms of the SSTables.
	PartitionSize, CellCount Percentiles
	// MeanPartitionSize is the mean partition size in bytes, 0 without
	// SSTables.
	MeanPartitionSize int64
	// RowsPerRead and TombstonesPerRead are the live rows and the
	// tombstones each read of the table met, over the last minutes
	// (Cassandra's decaying liveScannedHistogram and
	// tombstoneScannedHistogram; system_views.rows_per_read and
	// tombstones_per_read).
	RowsPerRead, TombstonesPerRead ReadHistogram
	// SSTablesPerRead is the SSTables each partition read of the table
	// opened (ReadStats.SSTablesIterated), over the last minutes since the
	// last ClearSSTablesPerRead: Cassandra's decaying
	// SSTablesPerReadHistogram, which nodetool tablehistograms prints.
	// Scans do not record in it.
	SSTablesPerRead ReadHistogram
	// SSTablesPerReadPoints are the same histogram's percentiles, as
	// nodetool tablehistograms prints them (upper bounds of the decayed
	// buckets).
	SSTablesPerReadPoints Percentiles
	// Compactions counts the compactions of the table in the history.
	Compactions int
	// Strategy is the compaction class in effect (LCS and UCS run as
	// SizeTieredCompactionStrategy).
	Strategy string
}

// ClearSSTablesPerRead empties the SSTables-per-read histogram of
// keyspace.table (TableStats.SSTablesPerRead), as Cassandra's tests clear
// the ClearableHistogram before the read they measure; ErrNoKeyspace or
// ErrNoTable if the table does not exist.
func (e *Engine) ClearSSTablesPerRead(keyspace, table string) error {
	if keyspace == "" || table == "" {
		return ErrNoTable
	}
	stores, err := e.selectStores(keyspace, table)
	if err != nil {
		return err
	}
	stores[0].histograms().clearSSTables()
	return nil
}

// TableStats returns the statistics of keyspace.table; ErrNoKeyspace or
// ErrNoTable if it does not exist.
func (e *Engine) TableStats(keyspace, table string) (TableStats, error) {
	if keyspace == "" || table == "" {
		return TableStats{}, ErrNoTable
	}
	stores, err := e.selectStores(keyspace, table)
	if err != nil {
		return TableStats{}, err
	}
	s := stores[0]
	t := s.table.Load()
	out := TableStats{Keyspace: keyspace, Table: table, ReadCount: s.readCount.Load(), WriteCount: s.writeCount.Load()}
	out.RowsPerRead, out.TombstonesPerRead = s.histograms().snapshot(e.Now())
	out.SSTablesPerRead, out.SSTablesPerReadPoints = s.histograms().sstablesSnapshot(e.Now())
	if p, err := parseCompaction(t.Options.Compaction); err == nil {
		out.Strategy = p.class
	}
	s.mu.RLock()
	ssts := slices.Clone(s.ssts)
	out.MemtableSize = s.active.mt.Size()
	out.MemtablePartitions = s.active.mt.Len()
	out.MemtableOperations = s.active.mt.Operations()
	out.MemtablesFlushing = len(s.flushing)
	s.mu.RUnlock()
	out.SSTableCount = len(ssts)
	out.PartitionsEstimate = int64(out.MemtablePartitions)
	sizes := sstable.NewHistogram(sstable.PartitionSizeBuckets)
	cells := sstable.NewHistogram(sstable.CellCountBuckets)
	var droppable, markers float64
	gcBefore := e.Now() - int64(t.Options.GCGraceSeconds)
	var totalData int64
	for _, info := range e.SSTables(keyspace, table) {
		out.SpaceUsedLive += info.DiskSize
	}
	for _, src := range ssts {
		st := src.stats
		out.PartitionsEstimate += int64(st.Partitions)
		out.DataSize += int64(st.DataSize)
		out.CompressedSize += int64(st.CompressedSize)
		totalData += int64(st.DataSize)
		addHistogram(&sizes, &st.PartitionSizes)
		addHistogram(&cells, &st.CellCounts)
		n := float64(st.Cells + st.RowTombstones + st.RangeTombstones + st.PartitionTombstones)
		droppable += st.DroppableTombstones(gcBefore) * n
		markers += n
	}
	out.SpaceUsedTotal = out.SpaceUsedLive + s.obsoleteBytes.Load()
	if markers > 0 {
		out.DroppableTombstoneRatio = droppable / markers
	}
	out.PartitionSize, out.CellCount = percentiles(&sizes), percentiles(&cells)
	if n := sizes.Total(); n > 0 {
		out.MeanPartitionSize = totalData / int64(n)
	}
	for _, r := range e.CompactionHistory() {
		if r.Keyspace == keyspace && r.Table == table {
			out.Compactions++
		}
	}
	return out, nil
}

func addHistogram(dst, src *sstable.Histogram) {
	if len(src.Counts) != len(dst.Counts) {
		return
	}
	for i, c := range src.Counts {
		dst.Counts[i] += c
	}
}

// historyFileName is the compaction history's file in the data directory:
// one JSON CompactionRecord a line, appended after each compaction (a
// torn last line is ignored when read back). It keeps the last
// maxHistory records.
const (
	historyFileName = "compaction_history.json"
	maxHistory      = 1000
)

// CompactionHistory returns the compactions run, oldest first, including
// those of earlier runs of a data directory.
func (e *Engine) CompactionHistory() []CompactionRecord {
	e.historyMu.Lock()
	defer e.historyMu.Unlock()
	return slices.Clone(e.history)
}

// recordCompaction adds r to the history (and its file).
func (e *Engine) recordCompaction(r CompactionRecord) {
	e.historyMu.Lock()
	defer e.historyMu.Unlock()
	e.history = append(e.history, r)
	if len(e.history) > maxHistory {
		e.history = slices.Clone(e.history[len(e.history)-maxHistory:])
	}
	if e.opts.Dir == "" {
		return
	}
	line, err := json.Marshal(r)
	if err != nil {
		return
	}
	path := e.fs.PathJoin(e.opts.Dir, historyFileName)
	f, err := e.fs.OpenForAppend(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = e.fs.Create(path)
	}
	if err != nil {
		e.opts.Logger.Error("writing compaction history", "err", err)
		return
	}
	_, err = f.Write(append(line, '\n'))
	err = errors.Join(err, f.Close())
	if err != nil {
		e.opts.Logger.Error("writing compaction history", "err", err)
	}
}

// loadHistory reads the history file of the data directory.
func (e *Engine) loadHistory() {
	b, err := readFileAll(e.fs, e.fs.PathJoin(e.opts.Dir, historyFileName))
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r CompactionRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			e.history = append(e.history, r)
		}
	}
	if len(e.history) > maxHistory {
		e.history = e.history[len(e.history)-maxHistory:]
	}
}

// MeanRowCount returns the mean number of rows per partition of table t's
// SSTables (Cassandra's ColumnFamilyStore.getMeanRowCount, which a
// secondary index reports as its estimated result rows), 0 without
// SSTables. It reads only the SSTables' metadata.
func (e *Engine) MeanRowCount(t *schema.Table) int64 {
	s, ok := e.store(t.ID)
	if !ok {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var rows, parts uint64
	for _, src := range s.ssts {
		rows += src.stats.Rows
		parts += src.stats.Partitions
	}
	if parts == 0 {
		return 0
	}
	return int64(rows / parts)
}
