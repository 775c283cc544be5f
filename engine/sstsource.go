package engine

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/sstable"
	"github.com/minicass/minicass/vfs"
)

// Skip reasons of SSTable sources, as ReadStats reports them.
const (
	skipTokenRange = "token out of range"
	skipBloom      = "bloom filter"
	skipNotPresent = "not present"
	skipClustering = "clustering bounds"
	skipTimestamp  = "older than partition deletion"
	// skipLowerBound: the merge never reached the SSTable's lowest
	// clustering (its lower bound), so the partition was never opened.
	skipLowerBound = "lower bound not reached"
	// skipComplete: a names read had found every queried cell newer than
	// anything the SSTable holds.
	skipComplete = "older than the cells read"
)

// sstableSource adapts an SSTable Reader to Source.
type sstableSource struct {
	r     *sstable.Reader
	name  string
	stats *sstable.Stats
	// upper is the commit-log position up to which the table's writes are
	// in this SSTable or older ones (Statistics.db CommitLogUpperBound).
	upper commitlog.Position

	// refs counts the holders of the reader: the table's SSTable list
	// (one reference while the SSTable is listed) and every read or
	// compaction using it. The reader is closed when refs drops to zero,
	// and the files are removed then if the SSTable is obsolete (replaced
	// by a compaction, truncated). A read holding a reference keeps
	// reading the old files after a compaction switched the list.
	refs atomic.Int32
	// obsolete, set before the list's reference is released, removes the
	// files on the last release; then onRemoved is called, if set.
	obsolete atomic.Bool
	// retireMu guards fs and onRemoved, which every store retiring the
	// SSTable sets (a Restore lists it in several, snapshot.go).
	retireMu  sync.Mutex
	fs        vfs.FS
	onRemoved func(error)
	// home is the filesystem holding the files, set when a snapshot first
	// pins the SSTable (snapshot.go): a Restore may list it in another
	// engine, whose retire must remove the files from this one.
	home atomic.Pointer[homeFS]
	// reads counts the partitions read from the SSTable (hotness).
	reads atomic.Int64
	// created is the engine time (seconds) when the SSTable was written or
	// opened, for tombstone_compaction_interval.
	created int64
}

func newSSTableSource(r *sstable.Reader) *sstableSource {
	st := r.Stats()
	s := &sstableSource{r: r, name: sstable.FileName(r.Gen(), sstable.ComponentData), stats: st,
		upper: commitlog.Position{Segment: uint64(st.CommitLogUpperBound.Segment), Offset: st.CommitLogUpperBound.Offset}}
	s.refs.Store(1)
	return s
}

// acquire takes a reference; the caller already holds one, or holds the
// table's mu while the SSTable is listed.
func (s *sstableSource) acquire() { s.refs.Add(1) }

// release drops a reference. The last one closes the reader and, for an
// obsolete SSTable, removes its files.
func (s *sstableSource) release() { _ = s.releaseErr() }

// releaseErr is release returning the error of closing the reader, when
// this was the last reference.
func (s *sstableSource) releaseErr() error {
	if s.refs.Add(-1) != 0 {
		return nil
	}
	err := s.r.Close()
	s.retireMu.Lock()
	fsys, onRemoved := s.fs, s.onRemoved
	s.retireMu.Unlock()
	if s.obsolete.Load() && fsys != nil {
		err = errors.Join(err, sstable.Remove(fsys, s.r.Dir(), s.r.Gen()))
	}
	if onRemoved != nil {
		onRemoved(err)
	}
	return err
}

// homeFS wraps the filesystem an SSTable's files are in.
type homeFS struct{ fs vfs.FS }

// retire marks the SSTable obsolete (its files go with the last reference)
// and drops the table list's reference. Call it after removing the SSTable
// from the list. The files are removed from the SSTable's home filesystem
// when a snapshot gave it one, else from fsys (nil: not removed).
func (s *sstableSource) retire(fsys vfs.FS, onRemoved func(error)) {
	if h := s.home.Load(); h != nil && fsys != nil {
		fsys = h.fs
	}
	s.retireMu.Lock()
	if fsys != nil {
		s.fs = fsys
	}
	if prev := s.onRemoved; prev != nil && onRemoved != nil {
		// Listed by several stores (snapshot.go), each retiring it: every
		// one hears of the removal.
		s.onRemoved = func(err error) { prev(err); onRemoved(err) }
	} else if onRemoved != nil {
		s.onRemoved = onRemoved
	}
	s.retireMu.Unlock()
	s.obsolete.Store(true)
	s.release()
}

// size returns the SSTable's Data.db size on disk.
func (s *sstableSource) size() int64 { return int64(s.stats.CompressedSize) }

// Name returns the SSTable's Data.db file name.
func (s *sstableSource) Name() string { return s.name }

// Kind returns SourceSSTable.
func (s *sstableSource) Kind() SourceKind { return SourceSSTable }

// Partition looks the partition up: token range, bloom filter, then the
// index.
func (s *sstableSource) Partition(ctx context.Context, token int64, key []byte) (data.PartitionSource, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if skip := s.excludes(token, sstable.HashKey(key)); skip != "" {
		return nil, skip, nil
	}
	return s.getAdmitted(token, key)
}

// partitionAdmitted is Partition for a read that has found excludes empty
// (with the key's hash): the bloom filter is not probed again.
func (s *sstableSource) partitionAdmitted(ctx context.Context, token int64, key []byte) (data.PartitionSource, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	return s.getAdmitted(token, key)
}

// getAdmitted looks up, in the index, a partition that excludes admits.
func (s *sstableSource) getAdmitted(token int64, key []byte) (data.PartitionSource, string, error) {
	s.reads.Add(1)
	ps, ok, err := s.r.GetAdmitted(token, key)
	if err != nil {
		return nil, "", wrapCorruption(err)
	}
	if !ok {
		return nil, skipNotPresent, nil
	}
	return ps, "", nil
}

// excludes returns why the SSTable cannot hold the partition of token and
// key hash h (token range, bloom filter), or "" when it may: the checks
// that need no I/O.
func (s *sstableSource) excludes(token int64, h sstable.KeyHash) string {
	if s.stats.Partitions == 0 || token < s.stats.FirstToken || token > s.stats.LastToken {
		return skipTokenRange
	}
	if !s.r.MayContainHash(h) {
		return skipBloom
	}
	return ""
}

// mayHaveTombstones reports whether the SSTable may hold a deletion of any
// kind or an expiring cell, as Cassandra's SSTableReader.mayHaveTombstones
// reads it from the metadata: the smallest local deletion time is not
// NoDeletionTime (which is larger than any real one). An SSTable without any can be opened lazily (its
// partition deletion is live and it has no range tombstone, so its rows
// are all it adds) and skipped when its clustering bounds miss the read.
func (s *sstableSource) mayHaveTombstones() bool {
	return s.stats.Partitions > 0 && s.stats.MinLocalDeletionTime != data.NoDeletionTime
}

// lowerBound returns the first clustering key, in the read's order, that
// the SSTable may return: its smallest clustering forward, its largest in
// reverse (UnfilteredRowIteratorWithLowerBound's metadata lower bound);
// nil when it has no rows.
func (s *sstableSource) lowerBound(reverse bool) []byte {
	if reverse {
		return s.stats.MaxClustering
	}
	return s.stats.MinClustering
}

// Partitions scans the SSTable's partitions in r; an SSTable whose token
// range does not meet r yields nothing without being read.
func (s *sstableSource) Partitions(_ context.Context, r data.TokenRange) (data.PartitionIterator, error) {
	if s.stats.Partitions == 0 || !overlaps(r, s.stats.FirstToken, s.stats.LastToken) {
		return emptyPartitions{}, nil
	}
	return corruptionIter{s.r.Scan(r)}, nil
}

// overlaps reports whether r contains a token of [first, last].
func overlaps(r data.TokenRange, first, last int64) bool {
	if r.End < first {
		return false
	}
	if r.StartInclusive {
		return r.Start <= last
	}
	return r.Start < last
}

// skipBySlices reports whether the read's clustering slices provably miss
// every row and range tombstone of the SSTable, Cassandra's
// ClusteringIndexFilter.shouldInclude on the SSTable's clustering bounds.
// It never skips when the read needs static columns (the static row is
// read whatever the slices: the metadata does not say whether the SSTable
// holds one) or when a partition deletion or open-ended range tombstone
// makes the bounds unbounded.
func (s *sstableSource) skipBySlices(slices data.Slices, staticsNeeded bool) bool {
	st := s.stats
	if len(slices) == 0 || staticsNeeded || st.ClusteringUnbounded {
		return false
	}
	if st.MinClustering == nil && st.MaxClustering == nil {
		return st.Rows == 0 && st.RangeTombstones == 0
	}
	for _, sl := range slices {
		if (sl.Start == nil || bytes.Compare(sl.Start, st.MaxClustering) <= 0) &&
			(sl.End == nil || bytes.Compare(sl.End, st.MinClustering) > 0) {
			return false
		}
	}
	return true
}

// olderThan reports whether everything in the SSTable is older than the
// partition deletion d found in a newer source, so that none of it can be
// visible: Cassandra's test in SinglePartitionReadCommand (the SSTable's
// max timestamp below the most recent partition tombstone).
func (s *sstableSource) olderThan(d data.DeletionTime) bool {
	return !d.IsLive() && s.stats.MaxTimestamp < d.MarkedForDeleteAt
}

type emptyPartitions struct{}

func (emptyPartitions) Next() (data.PartitionSource, bool) { return nil, false }
func (emptyPartitions) Err() error                         { return nil }
func (emptyPartitions) Close() error                       { return nil }

// corruptionIter marks SSTable corruption errors with ErrCorruption.
type corruptionIter struct{ data.PartitionIterator }

func (it corruptionIter) Err() error   { return wrapCorruption(it.PartitionIterator.Err()) }
func (it corruptionIter) Close() error { return wrapCorruption(it.PartitionIterator.Close()) }
