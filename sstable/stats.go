package sstable

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/minicass/minicass/data"
)

// LogPosition is a commit-log position, opaque to this package: the engine
// passes the position up to which a memtable's mutations are contained in
// the SSTable, and reads it back at startup to skip replaying them.
type LogPosition struct {
	Segment int64
	Offset  int64
}

// Stats is the metadata of Statistics.db, computed while writing.
//
// Timestamps cover every cell, liveness record and deletion. Local deletion
// times cover every cell (NoDeletionTime, math.MaxInt64, for a live cell
// that does not expire, as Cassandra counts Cell.NO_DELETION_TIME), every
// expiring liveness record and every deletion. Clustering bounds cover rows
// and range-tombstone bounds; ClusteringUnbounded is set when a partition
// deletion or a range tombstone open at either end could shadow rows
// outside [MinClustering, MaxClustering], so the engine must not skip the
// SSTable by clustering bounds.
//
// The timestamps and local deletion times follow Cassandra 4.1's
// MetadataCollector, which fills StatsMetadata: a row's liveness (its row
// marker), each cell, and each partition, range and row deletion count
// toward MinTimestamp and MaxTimestamp; a live cell or liveness record that
// does not expire counts NoDeletionTime toward the local deletion times, a
// tombstone its deletion time and an expiring cell its expiry.
// NoDeletionTime is math.MaxInt64 here where Cassandra writes
// Integer.MAX_VALUE (Cell.NO_DELETION_TIME): minicass's local deletion times
// are 64-bit seconds, so whoever shows the figures in Cassandra's terms maps
// one to the other (the conformance harness's sstable-stats does).
type Stats struct {
	MinTimestamp, MaxTimestamp                 int64
	MinLocalDeletionTime, MaxLocalDeletionTime int64
	// MinClustering and MaxClustering bound the clustering keys of rows and
	// range-tombstone bounds; both nil when there are none.
	MinClustering, MaxClustering []byte
	ClusteringUnbounded          bool
	FirstToken, LastToken        int64
	FirstKey, LastKey            []byte

	Partitions, Rows, Cells uint64
	// ExpiringCells counts cells with a TTL; CellTombstones cells that are
	// deletions; RowTombstones rows with a row deletion; RangeTombstones and
	// PartitionTombstones those markers.
	ExpiringCells, CellTombstones                       uint64
	RowTombstones, RangeTombstones, PartitionTombstones uint64
	// PartitionSizes is the histogram of partition sizes in uncompressed
	// bytes of Data.db; CellCounts of cells per partition.
	PartitionSizes, CellCounts Histogram
	// DropTimes holds the local deletion times of tombstones and expiring
	// cells, for DroppableTombstones.
	DropTimes DropTimeHistogram
	// CommitLogUpperBound is the position the engine passed to the writer.
	CommitLogUpperBound LogPosition
	// DataSize is the uncompressed length of Data.db's partition stream;
	// CompressedSize the length of the Data.db file.
	DataSize, CompressedSize uint64
	Compression              Compression
	// Encoding holds the bases the rows' timestamps, local deletion times
	// and TTLs are encoded against, and ColumnNames the column dictionary
	// their cells refer to (format version 2; zero and nil in version 1).
	Encoding    EncodingStats
	ColumnNames []string
}

// DroppableTombstones estimates the ratio of tombstones droppable at
// gcBefore (local deletion time before it) to all cells and markers, as
// Cassandra's getEstimatedDroppableTombstoneRatio does.
func (s *Stats) DroppableTombstones(gcBefore int64) float64 {
	total := s.Cells + s.RowTombstones + s.RangeTombstones + s.PartitionTombstones
	if total == 0 {
		return 0
	}
	return float64(s.DropTimes.Before(gcBefore)) / float64(total)
}

// newStats returns the starting point of a Stats collection.
func newStats() Stats {
	return Stats{
		MinTimestamp: math.MaxInt64, MaxTimestamp: math.MinInt64,
		MinLocalDeletionTime: math.MaxInt64, MaxLocalDeletionTime: math.MinInt64,
		PartitionSizes: NewHistogram(PartitionSizeBuckets),
		CellCounts:     NewHistogram(CellCountBuckets),
	}
}

func (s *Stats) timestamp(ts int64) {
	s.MinTimestamp = min(s.MinTimestamp, ts)
	s.MaxTimestamp = max(s.MaxTimestamp, ts)
}

func (s *Stats) ldt(t int64) {
	s.MinLocalDeletionTime = min(s.MinLocalDeletionTime, t)
	s.MaxLocalDeletionTime = max(s.MaxLocalDeletionTime, t)
}

func (s *Stats) deletion(d data.DeletionTime) {
	if d.IsLive() {
		return
	}
	s.timestamp(d.MarkedForDeleteAt)
	s.ldt(d.LocalDeletionTime)
	s.DropTimes.Add(d.LocalDeletionTime)
}

// clustering widens the clustering bounds to k. The bounds are copied into
// buffers that are reused as they move (rows mostly arrive in increasing
// order, so MaxClustering changes on nearly every row of a flush): no
// allocation once a buffer is large enough. A nil bound means none yet.
func (s *Stats) clustering(k []byte) {
	if s.MinClustering == nil || bytes.Compare(k, s.MinClustering) < 0 {
		s.MinClustering = append(s.MinClustering[:0:cap(s.MinClustering)], k...)
		if s.MinClustering == nil {
			s.MinClustering = []byte{}
		}
	}
	if s.MaxClustering == nil || bytes.Compare(k, s.MaxClustering) > 0 {
		s.MaxClustering = append(s.MaxClustering[:0:cap(s.MaxClustering)], k...)
		if s.MaxClustering == nil {
			s.MaxClustering = []byte{}
		}
	}
}

// row records a row (or the static row, with static set) and returns the
// number of cells it holds.
func (s *Stats) row(r *data.Row, static bool) {
	if !static {
		s.Rows++
		s.clustering(r.Clustering)
	}
	if !r.Liveness.IsEmpty() {
		s.timestamp(r.Liveness.Timestamp)
		// A liveness record that does not expire counts as NoDeletionTime,
		// as Cassandra's MetadataCollector does: an SSTable of row markers
		// must never look fully expired.
		s.ldt(r.Liveness.ExpiresAt)
	}
	if !r.Deletion.IsLive() {
		s.RowTombstones++
		s.deletion(r.Deletion)
	}
	for _, cd := range r.ColumnDeletions {
		s.deletion(cd.Deletion)
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		s.Cells++
		s.timestamp(c.Timestamp)
		s.ldt(c.LocalDeletionTime)
		switch {
		case c.Kind == data.CellTombstone:
			s.CellTombstones++
			s.DropTimes.Add(c.LocalDeletionTime)
		case c.TTL > 0:
			s.ExpiringCells++
			s.DropTimes.Add(c.LocalDeletionTime)
		}
	}
}

// plainRow records a plain row (Writer.AddPlainNarrowPartition) of
// clustering ck, liveness timestamp ts and cells cells, as row records
// the data.Row it stands for: its liveness and each of its cells count
// the timestamp ts and NoDeletionTime, which is the same as counting them
// once; a regular cell without TTL adds to no other count.
func (s *Stats) plainRow(ck []byte, ts int64, cells int) {
	s.Rows++
	s.clustering(ck)
	s.timestamp(ts)
	s.ldt(data.NoDeletionTime)
	s.Cells += uint64(cells)
}

func (s *Stats) rangeTombstone(rt *data.RangeTombstone) {
	s.RangeTombstones++
	s.deletion(rt.Deletion)
	if rt.Start == nil || rt.End == nil {
		s.ClusteringUnbounded = true
	}
	if rt.Start != nil {
		s.clustering(rt.Start)
	}
	if rt.End != nil {
		s.clustering(rt.End)
	}
}

// Statistics.db body (inside the small-component framing). All integers
// are varints (zig-zag for signed) unless noted; bytes are uvarint length +
// bytes; a histogram is uvarint(n) then n uvarint counts (its offsets are
// implied by n). Part of the file format:
//
//	varint minTimestamp  varint maxTimestamp
//	varint minLocalDeletionTime  varint maxLocalDeletionTime
//	flags:byte (1: has clustering bounds, 2: clustering unbounded)
//	[bytes minClustering  bytes maxClustering]
//	varint firstToken  bytes firstKey  varint lastToken  bytes lastKey
//	uvarint partitions rows cells expiringCells cellTombstones
//	        rowTombstones rangeTombstones partitionTombstones
//	histogram partitionSizes  histogram cellCounts
//	uvarint(n) n*(varint point uvarint count)     -- drop times
//	varint commitLogSegment  varint commitLogOffset
//	uvarint dataSize  uvarint compressedSize
//	codec:byte  uvarint chunkLength
//
// and, from format version 2 on,
//
//	varint baseTimestamp  varint baseLocalDeletionTime  varint baseTTL
//	uvarint(n) n*bytes(columnName)                 -- the column dictionary
func (s *Stats) encode() []byte {
	b := binary.AppendVarint(nil, s.MinTimestamp)
	b = binary.AppendVarint(b, s.MaxTimestamp)
	b = binary.AppendVarint(b, s.MinLocalDeletionTime)
	b = binary.AppendVarint(b, s.MaxLocalDeletionTime)
	var flags byte
	if s.MinClustering != nil {
		flags |= 1
	}
	if s.ClusteringUnbounded {
		flags |= 2
	}
	b = append(b, flags)
	if s.MinClustering != nil {
		b = appendBytes(b, s.MinClustering)
		b = appendBytes(b, s.MaxClustering)
	}
	b = binary.AppendVarint(b, s.FirstToken)
	b = appendBytes(b, s.FirstKey)
	b = binary.AppendVarint(b, s.LastToken)
	b = appendBytes(b, s.LastKey)
	for _, n := range []uint64{s.Partitions, s.Rows, s.Cells, s.ExpiringCells, s.CellTombstones,
		s.RowTombstones, s.RangeTombstones, s.PartitionTombstones} {
		b = binary.AppendUvarint(b, n)
	}
	for _, h := range []*Histogram{&s.PartitionSizes, &s.CellCounts} {
		b = binary.AppendUvarint(b, uint64(len(h.Offsets)))
		for _, c := range h.Counts {
			b = binary.AppendUvarint(b, c)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.DropTimes.Points)))
	for i, p := range s.DropTimes.Points {
		b = binary.AppendVarint(b, p)
		b = binary.AppendUvarint(b, s.DropTimes.Counts[i])
	}
	b = binary.AppendVarint(b, s.CommitLogUpperBound.Segment)
	b = binary.AppendVarint(b, s.CommitLogUpperBound.Offset)
	b = binary.AppendUvarint(b, s.DataSize)
	b = binary.AppendUvarint(b, s.CompressedSize)
	b = append(b, byte(s.Compression.Codec))
	b = binary.AppendUvarint(b, uint64(s.Compression.ChunkLength))
	b = binary.AppendVarint(b, s.Encoding.Timestamp)
	b = binary.AppendVarint(b, s.Encoding.LocalDeletionTime)
	b = binary.AppendVarint(b, int64(s.Encoding.TTL))
	b = binary.AppendUvarint(b, uint64(len(s.ColumnNames)))
	for _, n := range s.ColumnNames {
		b = appendBytes(b, []byte(n))
	}
	return b
}

// decodeStats decodes the Statistics.db body of format version version.
func decodeStats(file string, body []byte, version int) (Stats, error) {
	d := &decoder{file: file, base: headerSize, Cursor: data.Cursor{Buf: body}}
	var s Stats
	s.MinTimestamp = d.Varint("min timestamp")
	s.MaxTimestamp = d.Varint("max timestamp")
	s.MinLocalDeletionTime = d.Varint("min local deletion time")
	s.MaxLocalDeletionTime = d.Varint("max local deletion time")
	flags := d.Byte("flags")
	if flags&^3 != 0 {
		d.Fail("flags")
	}
	if flags&1 != 0 {
		s.MinClustering = d.Bytes("min clustering")
		s.MaxClustering = d.Bytes("max clustering")
	}
	s.ClusteringUnbounded = flags&2 != 0
	s.FirstToken = d.Varint("first token")
	s.FirstKey = d.Bytes("first key")
	s.LastToken = d.Varint("last token")
	s.LastKey = d.Bytes("last key")
	for _, p := range []*uint64{&s.Partitions, &s.Rows, &s.Cells, &s.ExpiringCells, &s.CellTombstones,
		&s.RowTombstones, &s.RangeTombstones, &s.PartitionTombstones} {
		*p = d.Uvarint("count")
	}
	for _, h := range []*Histogram{&s.PartitionSizes, &s.CellCounts} {
		n := d.Count("histogram", 1)
		if d.Err() == nil && n != PartitionSizeBuckets && n != CellCountBuckets {
			d.Fail("histogram size")
		}
		if d.Err() != nil {
			return Stats{}, d.Err()
		}
		*h = NewHistogram(n)
		for i := range h.Counts {
			h.Counts[i] = d.Uvarint("histogram count")
		}
	}
	n := d.Count("drop times", 2)
	if d.Err() == nil && n > DropTimeBins {
		d.Fail("drop time count")
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		s.DropTimes.Points = append(s.DropTimes.Points, d.Varint("drop time"))
		s.DropTimes.Counts = append(s.DropTimes.Counts, d.Uvarint("drop count"))
	}
	s.CommitLogUpperBound.Segment = d.Varint("commit log segment")
	s.CommitLogUpperBound.Offset = d.Varint("commit log offset")
	s.DataSize = d.Uvarint("data size")
	s.CompressedSize = d.Uvarint("compressed size")
	s.Compression.Codec = Codec(d.Byte("codec"))
	s.Compression.ChunkLength = int(d.Uvarint("chunk length"))
	if version >= 2 {
		s.Encoding.Timestamp = d.Varint("base timestamp")
		s.Encoding.LocalDeletionTime = d.Varint("base local deletion time")
		ttl := d.Varint("base ttl")
		if ttl < math.MinInt32 || ttl > math.MaxInt32 {
			d.Fail("base ttl")
		}
		s.Encoding.TTL = int32(ttl)
		n := d.Count("column names", 1)
		if d.Err() == nil && n > maxColumnDictionary {
			d.Fail("column name count")
		}
		for i := 0; i < n && d.Err() == nil; i++ {
			s.ColumnNames = append(s.ColumnNames, string(d.Bytes("column name")))
		}
	}
	if err := d.finish("statistics"); err != nil {
		return Stats{}, err
	}
	return s, nil
}
