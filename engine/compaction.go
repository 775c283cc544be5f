package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// Compaction merges SSTables of one table into new ones (compactor.run):
//
//  1. the inputs that are fully expired (getFullyExpiredSSTables: every
//     local deletion time before gcBefore, and no data of another SSTable
//     or memtable that they could shadow older than their newest
//     timestamp) are dropped whole, unread;
//  2. the others are merged partition by partition in token order (a
//     k-way merge of their scans), rows of a partition in clustering order
//     through the read path's rowMerger (cells reconciled, counters
//     summed), shadowed data removed (partition deletion, range
//     tombstones, row and collection deletions);
//  3. purge (Cassandra's PurgeFunction and AbstractCell.purge): an expired
//     cell whose expiry is before gcBefore and below the partition's max
//     purgeable timestamp is dropped, otherwise rewritten as a tombstone
//     dated expiry - ttl; tombstones of every kind (and expired liveness)
//     with a local deletion time before gcBefore and a timestamp below the
//     max purgeable timestamp are dropped; so are the cells and collection
//     deletions of dropped columns written before the drop. gcBefore is
//     now - gc_grace_seconds; the max purgeable timestamp of a partition
//     is the smallest timestamp of the SSTables outside the compaction
//     that may hold it (token range and bloom filter) and of the memtables
//     holding it, so a tombstone never goes while older data it shadows
//     lives on;
//  4. output split into SSTables of about Options.MaxSSTableSize bytes,
//     each with the largest commit-log upper bound of the inputs;
//  5. the switch, made atomic by the transaction log (txnlog.go).

// CompactionRecord is one entry of the compaction history (nodetool
// compactionhistory, system.compaction_history).
type CompactionRecord struct {
	// ID identifies the compaction (a random UUID).
	ID string `json:"id"`
	// Keyspace and Table name the table compacted.
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	// CompactedAt is the engine clock's time when the compaction ended.
	CompactedAt time.Time `json:"compacted_at"`
	// BytesIn and BytesOut are the Data.db sizes of the inputs and
	// outputs.
	BytesIn  int64 `json:"bytes_in"`
	BytesOut int64 `json:"bytes_out"`
	// RowsMerged maps the number of input SSTables a partition came from
	// to the number of such partitions, as Cassandra's rows_merged.
	RowsMerged map[int]int64 `json:"rows_merged"`
	// Inputs and Outputs are the Data.db file names; Expired those of the
	// inputs dropped whole.
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
	Expired []string `json:"expired,omitempty"`
	// Reason says why it ran: "major", "background", "tombstone",
	// "expired".
	Reason string `json:"reason"`
	// In and Out count what the inputs (expired ones included) and the
	// outputs hold, from their statistics: the difference is what the
	// compaction merged away or purged. Absent in records written before
	// they were kept.
	In  *CompactionCounts `json:"in,omitempty"`
	Out *CompactionCounts `json:"out,omitempty"`
}

// CompactionCounts are the contents of a set of SSTables, summed from
// their statistics (a partition in two SSTables counts twice).
type CompactionCounts struct {
	Partitions int64 `json:"partitions"`
	Rows       int64 `json:"rows"`
	Cells      int64 `json:"cells"`
	// Expiring counts the cells with a TTL; Tombstones the cell, row,
	// range and partition tombstones.
	Expiring   int64 `json:"expiring"`
	Tombstones int64 `json:"tombstones"`
}

func (c *CompactionCounts) add(st *sstable.Stats) {
	c.Partitions += int64(st.Partitions)
	c.Rows += int64(st.Rows)
	c.Cells += int64(st.Cells)
	c.Expiring += int64(st.ExpiringCells)
	c.Tombstones += int64(st.CellTombstones + st.RowTombstones + st.RangeTombstones + st.PartitionTombstones)
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// compactor runs one compaction of a table.
type compactor struct {
	e        *Engine
	s        *tableStore
	inputs   []*sstableSource // all inputs, expired ones included
	merge    []*sstableSource // the inputs read
	expired  []*sstableSource
	now      int64
	gcBefore int64
	dropped  map[string]schema.DroppedColumn // the table's, when the compaction began
	others   []*sstableSource                // the table's SSTables outside the compaction
	view     purgeView
	rec      CompactionRecord
	pm       partMerge // reused by every partition

	txn     *txnLog
	w       *sstable.Writer
	wGen    int
	wFile   string // the Data.db name of wGen
	wBytes  int64
	outputs []*sstableSource
	upper   sstable.LogPosition
}

// compact runs a compaction of inputs (SSTables of s). The caller holds
// s.compactMu. Nothing is done for fewer than one input.
func (e *Engine) compact(ctx context.Context, s *tableStore, inputs []*sstableSource, reason string) (*CompactionRecord, error) {
	if len(inputs) == 0 || s.dropped.Load() {
		return nil, nil
	}
	t := s.table.Load()
	c := &compactor{e: e, s: s, inputs: inputs, now: e.Now()}
	c.gcBefore = c.now - int64(t.Options.GCGraceSeconds)
	c.dropped = t.Dropped
	c.pm.noSkip = e.compactNoSkip
	c.rec = CompactionRecord{ID: newUUID(), Keyspace: t.Keyspace, Table: t.Name, RowsMerged: map[int]int64{}, Reason: reason}

	// Reference the inputs and the other SSTables for the duration.
	s.mu.RLock()
	for _, in := range inputs {
		if !slices.Contains(s.ssts, in) {
			s.mu.RUnlock()
			return nil, nil // compacted or truncated meanwhile
		}
	}
	for _, o := range s.ssts {
		o.acquire()
		if !slices.Contains(inputs, o) {
			c.others = append(c.others, o)
		}
	}
	held := slices.Clone(s.ssts)
	c.view.take(s)
	s.mu.RUnlock()
	slices.SortFunc(c.others, func(a, b *sstableSource) int { return cmp.Compare(a.stats.MinTimestamp, b.stats.MinTimestamp) })
	defer func() {
		for _, h := range held {
			h.release()
		}
		for _, x := range c.view.flushed {
			x.release()
		}
	}()
	if e.compactionBegun != nil {
		e.compactionBegun()
	}

	c.expired, c.merge = c.fullyExpired()
	c.rec.In, c.rec.Out = &CompactionCounts{}, &CompactionCounts{}
	for _, in := range inputs {
		c.rec.In.add(in.stats)
		c.rec.BytesIn += in.size()
		c.rec.Inputs = append(c.rec.Inputs, in.name)
		if in.upper.Compare(commitlog.Position{Segment: uint64(c.upper.Segment), Offset: c.upper.Offset}) > 0 {
			c.upper = sstable.LogPosition{Segment: int64(in.upper.Segment), Offset: in.upper.Offset}
		}
	}
	for _, x := range c.expired {
		c.rec.Expired = append(c.rec.Expired, x.name)
	}
	if len(c.merge) == 0 && reason != "expired" && len(c.expired) > 0 {
		c.rec.Reason = "expired"
	}
	gens := make([]int, len(inputs))
	for i, in := range inputs {
		gens[i] = in.r.Gen()
	}
	if s.dropped.Load() {
		return nil, errDroppedDuringCompaction(s)
	}
	if err := e.ensureDir(s); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCompaction, s.name, err)
	}
	txn, err := createTxn(e.fs, s.dir(), s.allocGen(), gens)
	if err != nil {
		if s.dropped.Load() {
			return nil, errDroppedDuringCompaction(s)
		}
		return nil, fmt.Errorf("%w: %s: transaction log: %w", ErrCompaction, s.name, err)
	}
	c.txn = txn
	err = c.run(ctx)
	e.compactSkipped.Add(int64(c.pm.skipped))
	if err != nil {
		rbErr := c.rollback()
		if s.dropped.Load() {
			return nil, errDroppedDuringCompaction(s)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrCompaction, s.name, errors.Join(err, rbErr))
	}
	if err := c.switchSets(); err != nil {
		if s.dropped.Load() {
			return nil, errDroppedDuringCompaction(s)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrCompaction, s.name, err)
	}
	c.rec.CompactedAt = e.opts.Clock.Now()
	for _, o := range c.outputs {
		e.bytesCompacted.Add(int64(o.stats.DataSize))
		c.rec.Out.add(o.stats)
	}
	e.recordCompaction(c.rec)
	e.opts.Logger.Info("Compacted", "id", c.rec.ID, "table", s.name, "inputs", len(inputs), "expired", len(c.expired),
		"outputs", len(c.outputs), "bytes_in", c.rec.BytesIn, "bytes_out", c.rec.BytesOut, "reason", c.rec.Reason)
	return &c.rec, nil
}

// errDroppedDuringCompaction is the error of a compaction whose table was
// dropped while it ran, as Cassandra's CompactionInterruptedException: the
// drop removed the table's files under it (the outputs it was writing
// among them), so whatever failed after that is no compaction failure.
func errDroppedDuringCompaction(s *tableStore) error {
	return fmt.Errorf("%w: %s was dropped during its compaction", ErrNoTable, s.name)
}

// fullyExpired splits the inputs into those that can be dropped whole and
// those to merge (CompactionController.getFullyExpiredSSTables): an input
// is fully expired when its newest local deletion time is before gcBefore
// and its newest timestamp is below the oldest timestamp of every other
// SSTable and memtable of the table and of every input not expired.
func (c *compactor) fullyExpired() (expired, merge []*sstableSource) {
	minTS := int64(math.MaxInt64)
	for _, o := range c.others {
		if o.stats.Partitions > 0 {
			minTS = min(minTS, o.stats.MinTimestamp)
		}
	}
	for _, mt := range c.view.mems {
		if lo, ok := mt.mt.MinTimestamp(); ok {
			minTS = min(minTS, lo)
		}
	}
	var candidates []*sstableSource
	for _, in := range c.inputs {
		st := in.stats
		if st.Partitions > 0 && st.MaxLocalDeletionTime < c.gcBefore {
			candidates = append(candidates, in)
		} else if st.Partitions > 0 {
			minTS = min(minTS, st.MinTimestamp)
		}
	}
	for _, in := range c.inputs {
		if slices.Contains(candidates, in) && in.stats.MaxTimestamp < minTS {
			expired = append(expired, in)
		} else {
			merge = append(merge, in)
		}
	}
	return expired, merge
}

// diskSize returns the size of the SSTable's component files.
func (s *sstableSource) diskSize(fsys vfs.FS) int64 {
	var n int64
	for _, f := range s.r.Files() {
		if fi, err := fsys.Stat(fsys.PathJoin(s.r.Dir(), f)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// purgeView is what a compaction knows of the table's data outside its
// inputs besides the SSTables it began with: the memtables, and the
// SSTables flushed since it began. A tombstone may be purged only if none
// of it may hold older data of the partition; a memtable flushed while the
// compaction runs leaves the memtable list and joins the SSTable list in
// one step under tableStore.mu, so the view is always taken whole under
// that lock, or data written before a tombstone could come back.
type purgeView struct {
	version uint64            // tableStore.version when taken
	mems    []*memtableSource // active first
	flushed []*sstableSource  // acquired; released when the compaction ends
}

// take records the memtables of s. The caller holds s.mu.
func (v *purgeView) take(s *tableStore) {
	v.version = s.version
	v.mems = append(append(v.mems[:0], s.active), s.flushing...)
}

// refresh brings the view up to date with s: when its sources changed, it
// retakes the memtables and adds the SSTables that are neither inputs nor
// c.others.
func (c *compactor) refreshView() {
	s := c.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.version == c.view.version {
		return
	}
	c.view.take(s)
	for _, t := range s.ssts {
		if !slices.Contains(c.inputs, t) && !slices.Contains(c.others, t) && !slices.Contains(c.view.flushed, t) {
			t.acquire()
			c.view.flushed = append(c.view.flushed, t)
		}
	}
}

// run merges c.merge into new SSTables.
func (c *compactor) run(ctx context.Context) error {
	iters := make([]data.PartitionIterator, len(c.merge))
	heads := make([]data.PartitionSource, len(c.merge))
	defer func() {
		for _, it := range iters {
			if it != nil {
				_ = it.Close()
			}
		}
	}()
	// ratio converts an input's stream bytes to its bytes on disk, which
	// the throttle counts (Cassandra's compressionRatio).
	ratio := make([]float64, len(c.merge))
	memo := &tokenMemo{token: c.e.Token}
	for i, in := range c.merge {
		// The inputs are read from their partition streams alone
		// (sstable.Reader.ScanStream): a compaction reads every
		// partition, and needs no index to find them.
		// A partition of one row and nothing else comes with its row
		// (onlyRows).
		if c.e.compactSlow {
			iters[i] = corruptionIter{in.r.ScanStream(memo.of)}
		} else {
			iters[i] = corruptionIter{newOnlyRows(in.r.ScanStream(memo.of))}
		}
		ratio[i] = 1
		if st := in.stats; st.DataSize > 0 {
			ratio[i] = float64(st.CompressedSize) / float64(st.DataSize)
		}
	}
	var used []int
	maxTS := make([]int64, len(iters)) // each input's, for pm.maxTS
	for i := range iters {
		used = append(used, i)
		maxTS[i] = c.merge[i].stats.MaxTimestamp
	}
	share := c.e.newCPUShare()
	parts := make([]data.PartitionSource, 0, len(iters))
	// merged counts partitions by the number of inputs they came from (up
	// to len(iters)), added to the record at the end: a map update per
	// partition costs what a narrow partition's header does. pending is
	// the scanned bytes not yet handed to the throttle, which is asked
	// once per throttleBatch bytes, so that a narrow partition reads no
	// clock (the CPU pacer, off by default, still looks at it per
	// partition).
	merged := make([]int64, len(iters)+1)
	defer func() {
		for n, k := range merged {
			if k > 0 {
				c.rec.RowsMerged[n] += k
			}
		}
	}()
	var pending float64
	for n := 0; ; n++ {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if c.s.dropped.Load() {
				return ErrNoTable
			}
		}
		for _, i := range used {
			ps, ok := iters[i].Next()
			if !ok {
				if err := iters[i].Err(); err != nil {
					return err
				}
				ps = nil
			}
			heads[i] = ps
		}
		used = used[:0]
		for i, h := range heads {
			if h == nil {
				continue
			}
			if len(used) == 0 {
				used = append(used, i)
				continue
			}
			m := heads[used[0]]
			switch cmp := data.ComparePartitions(h.Token(), h.Key(), m.Token(), m.Key()); {
			case cmp < 0:
				used = append(used[:0], i)
			case cmp == 0:
				used = append(used, i)
			}
		}
		if len(used) == 0 {
			break
		}
		parts = parts[:0]
		c.pm.maxTS = c.pm.maxTS[:0]
		for _, i := range used {
			parts = append(parts, heads[i])
			c.pm.maxTS = append(c.pm.maxTS, maxTS[i])
		}
		merged[len(parts)]++
		if err := c.mergePartition(parts); err != nil {
			return err
		}
		// A streamed partition's size is known once its rows are read.
		var scanned float64
		for _, i := range used {
			if c.e.throttle == nil {
				break // nothing to count for
			}
			if sz, ok := heads[i].(interface{ Size() uint64 }); ok {
				scanned += float64(sz.Size()) * ratio[i]
			}
		}
		if pending += scanned; pending >= throttleBatch {
			if err := c.e.throttle.acquire(ctx, int64(pending)); err != nil {
				return err
			}
			pending = 0
		}
		if err := share.pace(ctx); err != nil {
			return err
		}
	}
	// The last bytes count too: the throttle is shared with the next
	// compaction.
	if err := c.e.throttle.acquire(ctx, int64(pending)); err != nil {
		return err
	}
	return c.finishWriter()
}

// tokenMemo computes partition tokens for the inputs' stream scans,
// remembering the last key's: the inputs of a compaction mostly hold the
// same partitions, and each input steps to the next partition in turn, so
// the scans ask for the token of one key several times in a row. It is
// used from the compaction's goroutine alone.
type tokenMemo struct {
	token func(key []byte) int64
	key   []byte
	last  int64
	ok    bool
}

// of returns key's token.
func (m *tokenMemo) of(key []byte) int64 {
	if m.ok && bytes.Equal(key, m.key) {
		return m.last
	}
	m.last, m.key, m.ok = m.token(key), append(m.key[:0], key...), true
	return m.last
}

// maxPurgeable returns the timestamp below which a tombstone of the
// partition may be purged: the smallest timestamp of the data outside the
// compaction that may hold the partition. c.others is sorted by minimum
// timestamp, so the first SSTable that may hold the key decides.
func (c *compactor) maxPurgeable(token int64, key []byte) int64 {
	ts := int64(math.MaxInt64)
	for _, o := range c.others {
		st := o.stats
		if st.Partitions == 0 || token < st.FirstToken || token > st.LastToken {
			continue
		}
		if o.r.MayContain(key) {
			ts = st.MinTimestamp
			break
		}
	}
	c.refreshView()
	for _, o := range c.view.flushed {
		st := o.stats
		if st.Partitions > 0 && token >= st.FirstToken && token <= st.LastToken && o.r.MayContain(key) {
			ts = min(ts, st.MinTimestamp)
		}
	}
	for _, mt := range c.view.mems {
		if ps, ok := mt.mt.Get(token, key); ok {
			ts = min(ts, partitionMinTimestamp(ps))
		}
	}
	return ts
}

// partitionMinTimestamp returns the smallest timestamp in a (memtable)
// partition.
func partitionMinTimestamp(ps data.PartitionSource) int64 {
	ts := int64(math.MaxInt64)
	note := func(t int64) {
		if t != data.NoTimestamp {
			ts = min(ts, t)
		}
	}
	noteRow := func(r *data.Row) {
		note(r.Liveness.Timestamp)
		note(r.Deletion.MarkedForDeleteAt)
		for _, cd := range r.ColumnDeletions {
			note(cd.Deletion.MarkedForDeleteAt)
		}
		for i := range r.Cells {
			note(r.Cells[i].Timestamp)
		}
	}
	note(ps.Deletion().MarkedForDeleteAt)
	if st := ps.Static(); st != nil {
		noteRow(st)
	}
	for _, rt := range ps.RangeTombstones(nil) {
		note(rt.Deletion.MarkedForDeleteAt)
	}
	rows := ps.Rows(nil, false)
	for {
		r, ok := rows.Next()
		if !ok {
			break
		}
		noteRow(r)
	}
	_ = rows.Close()
	return ts
}

// purger decides what purge drops in one partition. The max purgeable
// timestamp is looked up (bloom filters, memtables) only when something
// is past gc grace.
type purger struct {
	now, gcBefore int64
	// c, token and key name the partition whose max purgeable timestamp
	// maxPurgeable caches (math.MinInt64 until looked up).
	c            *compactor
	token        int64
	key          []byte
	maxPurgeable int64
	// dropped are the table's dropped columns: their cells and collection
	// deletions written up to the drop go, whatever gc grace says, as
	// Cassandra skips them when it reads an SSTable
	// (SerializationHelper.isDropped).
	dropped map[string]schema.DroppedColumn
}

// isDropped reports whether data of column written at ts predates the
// column's drop.
func (p *purger) isDropped(column string, ts int64) bool {
	d, ok := p.dropped[column]
	return ok && ts <= d.DroppedAt
}

// purgeable reports whether a deletion (or expired data) written at ts
// with local deletion time ldt may be dropped.
func (p *purger) purgeable(ts, ldt int64) bool {
	if ldt >= p.gcBefore {
		return false
	}
	if p.maxPurgeable == math.MinInt64 {
		p.maxPurgeable = p.c.maxPurgeable(p.token, p.key)
	}
	return ts < p.maxPurgeable
}

func (p *purger) deletion(d data.DeletionTime) data.DeletionTime {
	if !d.IsLive() && p.purgeable(d.MarkedForDeleteAt, d.LocalDeletionTime) {
		return data.LiveDeletion
	}
	return d
}

// row purges r in place (Row.purge): expired liveness, deletions and
// tombstones past gc grace go; expired cells become tombstones dated at
// their write time (expiry - ttl) or go; data of dropped columns goes.
func (p *purger) row(r *data.Row) {
	if !r.Liveness.IsEmpty() && !r.Liveness.IsLive(p.now) && p.purgeable(r.Liveness.Timestamp, r.Liveness.ExpiresAt) {
		r.Liveness = data.EmptyLiveness
	}
	r.Deletion = p.deletion(r.Deletion)
	if len(r.ColumnDeletions) > 0 {
		kept := r.ColumnDeletions[:0]
		for _, cd := range r.ColumnDeletions {
			if p.isDropped(cd.Column, cd.Deletion.MarkedForDeleteAt) {
				continue
			}
			if cd.Deletion = p.deletion(cd.Deletion); !cd.Deletion.IsLive() {
				kept = append(kept, cd)
			}
		}
		r.ColumnDeletions = kept
	}
	// Cells are filtered in place, and written only when one before them
	// went or they change: a row that loses nothing is not rewritten.
	kept := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		if len(p.dropped) > 0 && p.isDropped(c.Column, c.Timestamp) {
			continue
		}
		if !c.IsLive(p.now) {
			if p.purgeable(c.Timestamp, c.LocalDeletionTime) {
				continue
			}
			if c.IsExpiring() {
				r.Cells[kept] = data.Cell{Column: c.Column, Path: c.Path, Kind: data.CellTombstone, Timestamp: c.Timestamp,
					LocalDeletionTime: c.LocalDeletionTime - int64(c.TTL)}
				kept++
				continue
			}
		}
		if kept != i {
			r.Cells[kept] = *c
		}
		kept++
	}
	r.Cells = r.Cells[:kept]
}

// partMerge is the state of the merge of one partition, kept in the
// compactor and reused from partition to partition so that a compaction
// allocates nothing per partition or row in the common case.
type partMerge struct {
	p       purger
	m       rowMerger
	stats   ReadStats
	del     data.DeletionTime // the merged partition deletion
	cursor  rtCursor
	rts     []data.RangeTombstone // the merged range tombstones
	outRTs  []data.RangeTombstone // those purge keeps
	curRTs  []data.RangeTombstone // the cursor's copy
	static  data.Row
	statics []data.Cell
	staticD []data.ColumnDeletion
	// maxTS holds, for each version of the partition (parts), the
	// maximum timestamp of the input it comes from: the version of the
	// largest is the one partMerge.shadowed decodes first.
	maxTS []int64
	// noSkip turns partMerge.shadowed off (the identity tests' reference);
	// skipped counts the versions it consumed undecoded.
	noSkip  bool
	skipped int
}

// next returns the next merged row that survives shadowing and purge.
func (pm *partMerge) next() (*data.Row, bool) {
	for {
		r, ok := pm.m.next()
		if !ok {
			return nil, false
		}
		outer := pm.del
		if len(pm.cursor.rts) > 0 {
			outer = data.MaxDeletion(outer, pm.cursor.covering(r.Clustering))
		}
		r.PurgeShadowed(outer)
		pm.p.row(r)
		if !r.IsEmpty() {
			return r, true
		}
	}
}

// allOnlyParts reports whether every version in parts is an onlyPart.
func allOnlyParts(parts []data.PartitionSource) bool {
	for _, ps := range parts {
		if _, ok := ps.(*onlyPart); !ok {
			return false
		}
	}
	return true
}

// mergePartition merges the versions of one partition and writes what
// survives purge.
func (c *compactor) mergePartition(parts []data.PartitionSource) error {
	token, key := parts[0].Token(), parts[0].Key()
	pm := &c.pm
	pm.p = purger{now: c.now, gcBefore: c.gcBefore, c: c, token: token, key: key, maxPurgeable: math.MinInt64, dropped: c.dropped}
	p := &pm.p
	del := data.LiveDeletion
	var static *data.Row
	rts := pm.rts[:0]
	// A partition of one row and nothing else (onlyPart) has no
	// deletion, static row or range tombstone to merge: when every
	// version is one, no version is asked for them.
	headed := parts
	if allOnlyParts(parts) {
		headed = nil
	}
	for _, ps := range headed {
		del = data.MaxDeletion(del, ps.Deletion())
		if st := ps.Static(); st != nil {
			if static == nil {
				pm.static = *st
				pm.statics = append(pm.statics[:0], st.Cells...)
				pm.staticD = append(pm.staticD[:0], st.ColumnDeletions...)
				pm.static.Cells, pm.static.ColumnDeletions = pm.statics, pm.staticD
				static = &pm.static
			} else {
				merged := data.MergeRows(static, st)
				static = &merged
			}
		}
		for _, rt := range ps.RangeTombstones(nil) {
			if !del.IsLive() && !rt.Deletion.Supersedes(del) {
				continue
			}
			rts = append(rts, rt)
		}
	}
	// Range tombstones the partition deletion covers go (the partition
	// deletion is only known in full now).
	keptRTs := rts[:0]
	for _, rt := range rts {
		if del.IsLive() || rt.Deletion.Supersedes(del) {
			keptRTs = append(keptRTs, rt)
		}
	}
	rts = keptRTs
	pm.rts = rts
	if static != nil {
		static.PurgeShadowed(del)
		p.row(static)
		if static.IsEmpty() {
			static = nil
		}
	}
	outRTs := pm.outRTs[:0]
	for _, rt := range rts {
		if d := p.deletion(rt.Deletion); !d.IsLive() {
			outRTs = append(outRTs, rt)
		}
	}
	pm.outRTs = outRTs
	pm.curRTs = append(pm.curRTs[:0], rts...)
	if len(pm.curRTs) > 0 {
		pm.cursor = newRTCursor(pm.curRTs, false)
	} else {
		pm.cursor = rtCursor{}
	}
	pm.del = del
	pm.stats.RowsRead = 0
	pm.stats.Sources = slices.Grow(pm.stats.Sources[:0], len(parts))[:len(parts)]
	clear(pm.stats.Sources)
	m := &pm.m
	m.stats, m.err = &pm.stats, nil
	var first *data.Row
	var ok, fast bool
	if del.IsLive() && static == nil && len(rts) == 0 && !c.e.compactSlow {
		first, ok, fast = pm.narrow(parts)
	} else {
		for i, ps := range parts {
			m.add(ps.Rows(nil, false), i)
		}
	}
	defer func() { _ = m.close() }()
	if !fast {
		first, ok = pm.next()
	}
	if m.err != nil {
		return m.err
	}
	outDel := p.deletion(del)
	if !ok && outDel.IsLive() && static == nil && len(outRTs) == 0 {
		return nil // nothing survives
	}
	if err := c.ensureWriter(); err != nil {
		return err
	}
	size, rows := int64(len(key)), int64(0)
	if fast {
		// The narrow path's one row (it survived: with no partition
		// deletion, static row or range tombstone nothing else would be
		// written).
		if err := c.w.AddNarrowPartition(token, key, first); err != nil {
			return err
		}
		size += int64(first.Size())
		rows = 1
	} else {
		if err := c.w.BeginPartition(token, key, outDel, static, outRTs); err != nil {
			return err
		}
		if static != nil {
			size += int64(static.Size())
		}
		for r := first; ok; r, ok = pm.next() {
			if err := c.w.AddRow(r); err != nil {
				return err
			}
			size += int64(r.Size())
			rows++
		}
		if m.err != nil {
			return m.err
		}
		if err := c.w.EndPartition(); err != nil {
			return err
		}
	}
	c.wBytes += size
	c.e.warnLargePartition(c.s, key, size, rows, c.wFile)
	if c.wBytes >= c.e.opts.MaxSSTableSize {
		return c.finishWriter()
	}
	return nil
}

// warnLargePartition logs a partition past the size or row thresholds, as
// Cassandra's "Writing large partition" warning.
func (e *Engine) warnLargePartition(s *tableStore, key []byte, size, rows int64, file string) {
	if size > e.opts.LargePartitionWarnBytes {
		e.opts.Logger.Warn(fmt.Sprintf("Writing large partition %s:%x (%s) to sstable %s",
			s.ksSlashTable(), key, formatBytes(size), file),
			"keyspace", s.table.Load().Keyspace, "table", s.table.Load().Name, "key", fmt.Sprintf("%x", key), "size", size, "rows", rows)
	}
	if rows > e.opts.WidePartitionWarnRows {
		e.opts.Logger.Warn(fmt.Sprintf("Writing wide partition %s:%x (%d rows) to sstable %s",
			s.ksSlashTable(), key, rows, file),
			"keyspace", s.table.Load().Keyspace, "table", s.table.Load().Name, "key", fmt.Sprintf("%x", key), "size", size, "rows", rows)
	}
}

func (s *tableStore) ksSlashTable() string {
	t := s.table.Load()
	return t.Keyspace + "/" + t.Name
}

// formatBytes formats n as Cassandra's FBUtilities.prettyPrintMemory.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.3fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.3fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.3fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// ensureWriter opens an output SSTable if none is open, recording its
// generation in the transaction log first.
func (c *compactor) ensureWriter() error {
	if c.w != nil {
		return nil
	}
	t := c.s.table.Load()
	comp, err := sstable.CompressionFromOptions(t.Options.Compression)
	if err != nil {
		return err
	}
	gen := c.s.allocGen()
	if err := c.txn.add(gen); err != nil {
		return err
	}
	w, err := sstable.NewWriter(c.e.fs, c.s.dir(), gen, sstable.WriterOptions{
		Compression:         comp,
		ColumnIndexSize:     c.e.opts.ColumnIndexSize,
		BloomFilterFPChance: t.Options.BloomFilterFPChance,
		CommitLogUpperBound: c.upper,
		ExpectedPartitions:  c.expectedPartitions(),
	})
	if err != nil {
		return err
	}
	c.w, c.wGen, c.wBytes = w, gen, 0
	c.wFile = sstable.FileName(gen, sstable.ComponentData)
	return nil
}

// expectedPartitions estimates the partitions of an output SSTable: those
// of the largest input read (the output holds at least as many when the
// inputs overlap fully), bounded by the output size limit at the inputs'
// average partition size.
func (c *compactor) expectedPartitions() int {
	var most, parts, size uint64
	for _, in := range c.merge {
		most = max(most, in.stats.Partitions)
		parts += in.stats.Partitions
		size += in.stats.DataSize
	}
	if parts > 0 && size > 0 {
		if perFile := uint64(c.e.opts.MaxSSTableSize) / max(size/parts, 1); perFile < most {
			most = perFile
		}
	}
	return int(min(most, 1<<22))
}

// finishWriter completes the open output SSTable and opens its reader.
func (c *compactor) finishWriter() error {
	if c.w == nil {
		return nil
	}
	w := c.w
	c.w = nil
	if _, err := w.Finish(); err != nil {
		return errors.Join(err, w.Abort())
	}
	r, err := sstable.Open(c.e.fs, c.s.dir(), c.wGen, c.e.justWrittenReaderOptions())
	if err != nil {
		return wrapCorruption(err)
	}
	src := newSSTableSource(r)
	src.created = c.now
	c.outputs = append(c.outputs, src)
	c.rec.BytesOut += src.size()
	c.rec.Outputs = append(c.rec.Outputs, src.name)
	return nil
}

// rollback removes the outputs and the transaction log after a failure.
func (c *compactor) rollback() error {
	var errs []error
	if c.w != nil {
		errs = append(errs, c.w.Abort())
		c.w = nil
	}
	for _, o := range c.outputs {
		o.retire(c.e.fs, func(err error) { errs = append(errs, err) })
	}
	c.outputs = nil
	if c.txn != nil {
		errs = append(errs, c.txn.remove())
	}
	return errors.Join(errs...)
}

// switchSets commits the compaction: under the table's lock it checks that
// every input is still listed (a Truncate may have removed them), writes
// the commit record and replaces the inputs by the outputs in the list.
// The inputs' files are removed once no read holds them, then the log.
func (c *compactor) switchSets() error {
	s := c.s
	if len(c.outputs) == 0 {
		// Nothing carries the inputs' upper bound on: record it first.
		if err := c.e.markCompactedTo(s, c.inputs, commitlog.Position{Segment: uint64(c.upper.Segment), Offset: c.upper.Offset}); err != nil {
			return errors.Join(err, c.rollback())
		}
	}
	s.mu.Lock()
	for _, in := range c.inputs {
		if !slices.Contains(s.ssts, in) {
			s.mu.Unlock()
			return errors.Join(fmt.Errorf("input %s no longer listed (truncated?)", in.name), c.rollback())
		}
	}
	if err := c.txn.commit(); err != nil {
		s.mu.Unlock()
		return errors.Join(err, c.rollback())
	}
	var next []*sstableSource
	placed := false
	for _, t := range s.ssts {
		if slices.Contains(c.inputs, t) {
			if !placed {
				next = append(next, c.outputs...)
				placed = true
			}
			continue
		}
		next = append(next, t)
	}
	s.ssts = next
	s.version++
	s.mu.Unlock()

	txn := c.txn
	_ = txn.close()
	pending := int32(len(c.inputs))
	var failed bool
	var mu = &s.removeMu
	done := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed = true
			c.e.opts.Logger.Error("removing compacted SSTable", "table", s.name, "err", err)
		}
		pending--
		if pending == 0 && !failed {
			// Every input is gone: the log is no longer needed (a crash
			// before this point replays it, which is idempotent).
			if err := txn.remove(); err != nil {
				c.e.opts.Logger.Error("removing compaction log", "table", s.name, "err", err)
			}
		}
	}
	for _, in := range c.inputs {
		size := in.diskSize(c.e.fs)
		s.obsoleteBytes.Add(size)
		in.retire(c.e.fs, func(err error) {
			s.obsoleteBytes.Add(-size)
			done(err)
		})
	}
	return nil
}

// markCompactedTo records in the schema file that the table's commit-log
// records before upper are persisted, when a compaction is about to remove
// inputs without writing an output and no other SSTable of the table
// reaches upper. Replay would otherwise apply those records again, without
// the tombstones the compaction purged. It is a no-op without a commit log.
func (e *Engine) markCompactedTo(s *tableStore, inputs []*sstableSource, upper commitlog.Position) error {
	if e.log == nil {
		return nil
	}
	e.schemaMu.Lock()
	defer e.schemaMu.Unlock()
	t := s.table.Load()
	covered := e.marks.floor(t.ID)
	s.mu.RLock()
	for _, o := range s.ssts {
		if !slices.Contains(inputs, o) && o.upper.Compare(covered) > 0 {
			covered = o.upper
		}
	}
	s.mu.RUnlock()
	if upper.Compare(covered) <= 0 {
		return nil
	}
	if _, ok := e.state.Load().stores[t.ID]; !ok {
		return nil // dropped: replay skips the table's records anyway
	}
	prev, had := e.marks.compactedTo[t.ID]
	e.marks.compactedTo[t.ID] = upper
	if err := e.persistSchema(e.state.Load()); err != nil {
		if had {
			e.marks.compactedTo[t.ID] = prev
		} else {
			delete(e.marks.compactedTo, t.ID)
		}
		return err
	}
	return nil
}
