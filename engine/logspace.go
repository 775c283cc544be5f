package engine

import "github.com/minicass/minicass/commitlog"

// The commit log's total space (Options.CommitLogTotalSpace), as
// Cassandra's commit-log segment manager keeps it
// (AbstractCommitLogSegmentManager.maybeFlushToReclaim): when a new segment
// takes the segment files past the limit, the oldest segments that make up
// the excess are chosen, and every table holding unflushed data in them is
// flushed (ColumnFamilyStore.forceFlush up to the last chosen segment's
// end). Their segments are released once the flushes are durable
// (releaseLog). Without it a table written once and never again would keep
// every segment from its write onwards.

// onLogRotate is the commit log's OnRotate hook. It runs in the goroutine of
// an Append, which may hold a table store's lock: the work is done in the
// background, one reclaim at a time.
func (e *Engine) onLogRotate() {
	if e.closed.Load() || !e.reclaiming.CompareAndSwap(false, true) {
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		defer e.reclaiming.Store(false)
		e.reclaimLogSpace()
	}()
}

// reclaimLogSpace starts the flushes that bring the commit log back under
// its total space, if it is past it, and reports how many tables it
// flushes.
func (e *Engine) reclaimLogSpace() int {
	if e.log == nil || e.closed.Load() {
		return 0
	}
	segs := e.log.Segments()
	var total int64
	for _, s := range segs {
		total += s.Size
	}
	excess := total - e.opts.CommitLogTotalSpace
	if excess <= 0 {
		return 0
	}
	var upto *commitlog.SegmentInfo
	var freed int64
	for i := range segs {
		if segs[i].Active {
			break
		}
		upto = &segs[i]
		if freed += segs[i].Size; freed >= excess {
			break
		}
	}
	if upto == nil {
		return 0
	}
	bound := packPos(commitlog.Position{Segment: upto.ID + 1})
	flushed := 0
	for _, s := range e.state.Load().stores {
		if s.dropped.Load() || !s.holdsBefore(bound) {
			continue
		}
		e.opts.Logger.Info("flushing to reclaim commit-log space", "table", s.name,
			"commitlog_bytes", total, "commitlog_total_space", e.opts.CommitLogTotalSpace, "up_to_segment", upto.Name)
		s.switchMemtable(1, e.logTail)
		e.scheduleFlush(s)
		flushed++
	}
	return flushed
}

// holdsBefore reports whether a memtable of s, active or frozen, holds a
// record of the commit log before the packed position bound.
func (s *tableStore) holdsBefore(bound uint64) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if p := s.active.minPos.Load(); p != 0 && p < bound {
		return true
	}
	for _, m := range s.flushing {
		if p := m.minPos.Load(); p != 0 && p < bound {
			return true
		}
	}
	return false
}
