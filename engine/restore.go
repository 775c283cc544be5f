package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"time"

	"github.com/minicass/minicass/commitlog"
	"github.com/minicass/minicass/data"
)

// Point-in-time restore from archived commit-log segments: what 4.1's
// CommitLogArchiver does with commitlog_archiving.properties'
// restore_directories and restore_point_in_time. The segments of a
// directory (copies of the commit log's, CommitLog-<n>.log) are replayed
// into the tables of the current schema, by table id: a table dropped and
// created again WITH ID = <its old id> gets its data back.

// SaveCommitLog syncs the commit log and copies its segments into dir
// (created if needed), as an archive_command would: the copies are what
// RestoreCommitLog replays. It returns the names copied, nil for an
// in-memory engine, which has no commit log.
func (e *Engine) SaveCommitLog(dir string) ([]string, error) {
	if e.log == nil {
		return nil, nil
	}
	if err := e.log.Sync(); err != nil {
		return nil, err
	}
	logDir := e.fs.PathJoin(e.opts.Dir, commitLogDirName)
	names, err := e.fs.List(logDir)
	if err != nil {
		return nil, err
	}
	if err := e.fs.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if _, ok := commitlog.ParseSegmentFileName(n); !ok {
			continue
		}
		if err := e.copyFile(e.fs.PathJoin(logDir, n), e.fs.PathJoin(dir, n)); err != nil {
			return out, err
		}
		out = append(out, n)
	}
	return out, e.fs.SyncDir(dir)
}

// RestoreCommitLog replays the commit-log segments of dir into the tables
// of the current schema and flushes the tables it wrote to, so that the
// restored data is durable. A mutation of a table the schema does not hold
// (by id) is skipped, and so is one with a timestamp after pointInTime, as
// CommitLogReplayer.pointInTimeExceeded skips an update whose newest
// timestamp, in milliseconds, is after restore_point_in_time; the zero
// pointInTime restores everything. It returns the number of mutations
// applied.
func (e *Engine) RestoreCommitLog(ctx context.Context, dir string, pointInTime time.Time) (int, error) {
	if err := e.checkOpen(); err != nil {
		return 0, err
	}
	limit := int64(math.MaxInt64)
	if !pointInTime.IsZero() {
		limit = pointInTime.UnixMilli()
	}
	st := e.state.Load()
	touched := map[data.TableID]*tableStore{}
	applied := 0
	err := commitlog.Replay(e.fs, dir, func(pos commitlog.Position, payload []byte) error {
		ms, err := data.DecodeMutations(bytes.Clone(payload))
		if err != nil {
			return fmt.Errorf("%w: archived commit log record at %v: %w", ErrCorruption, pos, err)
		}
		for _, m := range ms {
			s, ok := st.stores[m.Table]
			if !ok || maxTimestamp(m)/1000 > limit {
				continue
			}
			if err := validateMutation(m); err != nil {
				return fmt.Errorf("%w: archived commit log record at %v: %w", ErrCorruption, pos, err)
			}
			t := s.table.Load()
			if err := e.Apply(ctx, t, m); err != nil {
				return err
			}
			touched[m.Table] = s
			applied++
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return applied, err
	}
	for _, s := range touched {
		s.switchMemtable(0, e.logTail)
		if err := e.flushStore(s); err != nil {
			return applied, err
		}
	}
	return applied, nil
}

// maxTimestamp returns the newest timestamp of m's rows, cells and
// deletions (PartitionUpdate.maxTimestamp).
func maxTimestamp(m *data.Mutation) int64 {
	ts := int64(math.MinInt64)
	if !m.PartitionDeletion.IsLive() {
		ts = max(ts, m.PartitionDeletion.MarkedForDeleteAt)
	}
	for i := range m.RangeTombstones {
		ts = max(ts, m.RangeTombstones[i].Deletion.MarkedForDeleteAt)
	}
	row := func(r *data.Row) {
		if !r.Liveness.IsEmpty() {
			ts = max(ts, r.Liveness.Timestamp)
		}
		if !r.Deletion.IsLive() {
			ts = max(ts, r.Deletion.MarkedForDeleteAt)
		}
		for _, cd := range r.ColumnDeletions {
			ts = max(ts, cd.Deletion.MarkedForDeleteAt)
		}
		for j := range r.Cells {
			ts = max(ts, r.Cells[j].Timestamp)
		}
	}
	if m.Static != nil {
		row(m.Static)
	}
	for i := range m.Rows {
		row(&m.Rows[i])
	}
	return ts
}
