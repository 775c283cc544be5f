package commitlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"sync"
	"time"

	"github.com/minicass/minicass/vfs"
)

// Log is an open commit log. Append, Sync, Tail, Segments and ReleaseBefore
// are safe for concurrent use.
type Log struct {
	fs   vfs.FS
	dir  string
	opts Options

	// replayIDs are the segments that existed when the log was opened.
	replayIDs []uint64
	// replayer reads segments with the replay options.
	replayer *replayer

	mu     sync.Mutex
	cond   sync.Cond // signalled when a sync finishes; uses mu
	active *segment
	older  []SegmentInfo // closed segments, ascending id
	buf    []byte        // scratch for framing a record or a sync marker
	// unmarked is set when records were written to the active segment
	// since its last sync marker.
	unmarked bool
	written  uint64 // records written to files
	synced   uint64 // records covered by a finished sync
	syncing  bool   // a sync runs outside mu
	err      error  // sticky failure, wraps ErrFailed
	// lastSync is when the last sync finished (or the log opened); used
	// by SyncPeriodic to detect a sync that has fallen behind.
	lastSync time.Time
	// systemNow is set when opts.Now is the default, time.Now (see
	// sinceSync).
	systemNow bool
	closed    bool

	// early asks the periodic syncer for a sync ahead of its tick, sent
	// once per segment (earlySent) when the active segment is three
	// quarters full: the sync that rotate makes under mu, which every
	// Append waits for, then covers only the last quarter's records
	// instead of up to a whole segment written since the last tick.
	early     chan struct{}
	earlySent bool

	quit chan struct{}
	wg   sync.WaitGroup
}

// segment is the segment being appended to.
type segment struct {
	id uint64
	f  vfs.File
	// m is the segment's preallocated space mapped into memory, nil when
	// the file cannot be mapped (an in-memory or fault-injecting FS):
	// records are then written with f.Write.
	m    *vfs.Mapping
	size int64
	// recEnd is the offset after the last record.
	recEnd int64
	// lenSize and lenCRC remember the length CRC of the last record
	// written (see lengthCRC): lenSize is its size plus one, 0 when no
	// record has been written yet.
	lenSize uint64
	lenCRC  uint32
}

// lengthCRC returns the CRC32C of a record's length field, the 4
// little-endian bytes of size: the state from which the record's checksum
// goes on over its payload. Consecutive records mostly have the same size
// (a table's writes of one shape), so the segment keeps the last size's
// value, and a record's checksum is then one CRC32C pass over its payload
// instead of two.
func (s *segment) lengthCRC(size int) uint32 {
	if s.lenSize != uint64(size)+1 {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(size))
		s.lenSize, s.lenCRC = uint64(size)+1, crc32.Checksum(b[:], castagnoli)
	}
	return s.lenCRC
}

// write appends b at the segment's end (it does not move size). Appending
// to a mapped segment is a copy into the page cache, with no system call,
// as Cassandra's memory-mapped segments are written.
func (s *segment) write(b []byte) error {
	if s.m == nil {
		_, err := s.f.Write(b)
		return err
	}
	space := s.m.Bytes()
	if s.size+int64(len(b)) > int64(len(space)) {
		return fmt.Errorf("commit log: %d bytes do not fit at offset %d of a %d-byte segment", len(b), s.size, len(space))
	}
	copy(space[s.size:], b)
	return nil
}

// writeRecord frames a record of size payload bytes at the segment's end
// (it does not move size): payload itself, or what encode appends (see
// Log.AppendEncoded). A mapped segment gets the record in place, encoded
// straight into the mapping; otherwise the record is framed in *buf, a
// scratch buffer kept by the log, and written with f.Write.
func (s *segment) writeRecord(buf *[]byte, size int, payload []byte, encode func([]byte) []byte) error {
	need := recordHeaderSize + size
	var rec []byte
	if s.m != nil {
		space := s.m.Bytes()
		if s.size+int64(need) > int64(len(space)) {
			return fmt.Errorf("commit log: %d bytes do not fit at offset %d of a %d-byte segment", need, s.size, len(space))
		}
		// The capacity stops at the record's end, so an encoder that
		// appends too much reallocates instead of writing past it.
		rec = space[s.size : s.size+int64(need) : s.size+int64(need)]
	} else {
		if cap(*buf) < need || cap(*buf) > 1<<20 && need <= 1<<20 {
			*buf = make([]byte, need, max(need, 512))
		}
		rec = (*buf)[:need:need]
	}
	body := rec[recordHeaderSize:recordHeaderSize]
	if encode == nil {
		body = append(body, payload...)
	} else if body = encode(body); len(body) != size || size > 0 && &body[0] != &rec[recordHeaderSize] {
		clear(rec[recordHeaderSize:])
		return fmt.Errorf("%w: the encoder gave %d bytes for a %d-byte record", ErrEncodedSize, len(body), size)
	}
	binary.LittleEndian.PutUint32(rec, uint32(size))
	crc := crc32.Update(s.lengthCRC(size), castagnoli, rec[recordHeaderSize:])
	binary.LittleEndian.PutUint32(rec[4:], crc)
	if s.m == nil {
		_, err := s.f.Write(rec)
		return err
	}
	return nil
}

// sync makes the first end bytes of the segment durable.
func (s *segment) sync(end int64) error {
	if s.m == nil {
		return s.f.Sync()
	}
	return s.m.Sync(0, end)
}

// unmap ends the mapping of a mapped segment, cutting the file to the bytes
// written, and syncs the file's new size unless durable is false.
func (s *segment) unmap(durable bool) error {
	if s.m == nil {
		return nil
	}
	err := s.m.Close(s.size)
	s.m = nil
	if err == nil && durable {
		err = s.f.Sync()
	}
	return err
}

// SegmentInfo describes one segment file.
type SegmentInfo struct {
	// ID is the segment id, as in the file name.
	ID uint64
	// Name is the file name, without the directory.
	Name string
	// Size is the file size in bytes (for the active segment, the bytes
	// written so far).
	Size int64
	// Active is true for the segment being appended to.
	Active bool
	// recEnd is the offset after the segment's last record (before a
	// closing sync marker); Size when unknown.
	recEnd int64
}

// Open opens the commit log in dir on fs, creating dir if needed. It
// repairs a torn tail in the last existing segment (see the package
// comment) and starts a new segment; existing records are read with Replay
// before appending. It returns a *CorruptionError if the last segment is
// corrupt, and an error wrapping ErrInvalidOptions for bad options.
func Open(fsys vfs.FS, dir string, opts Options) (*Log, error) {
	systemNow := opts.Now == nil
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ids, err := listSegments(fsys, dir)
	if err != nil {
		return nil, err
	}
	l := &Log{fs: fsys, dir: dir, opts: opts, quit: make(chan struct{}), lastSync: opts.Now(), systemNow: systemNow,
		replayer: newReplayer(fsys, dir, opts.replayOptions())}
	l.cond.L = &l.mu
	next := uint64(1)
	if len(ids) > 0 {
		next = ids[len(ids)-1] + 1
		if ids, err = l.repairLast(ids); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		st, err := fsys.Stat(fsys.PathJoin(dir, SegmentFileName(id)))
		if err != nil {
			return nil, err
		}
		l.older = append(l.older, SegmentInfo{ID: id, Name: SegmentFileName(id), Size: st.Size(), recEnd: st.Size()})
	}
	l.replayIDs = ids
	if l.active, err = l.createSegment(next); err != nil {
		return nil, err
	}
	if opts.SyncMode == SyncPeriodic {
		t := opts.NewTicker(opts.SyncPeriod)
		l.early = make(chan struct{}, 1)
		l.wg.Add(1)
		go l.periodicSync(t)
	}
	return l, nil
}

// repairLast scans the last segment of ids. A segment without records is
// removed; one with a torn tail is rewritten without it. It returns the ids
// that remain.
func (l *Log) repairLast(ids []uint64) ([]uint64, error) {
	id := ids[len(ids)-1]
	name := l.fs.PathJoin(l.dir, SegmentFileName(id))
	data, end, err := l.replayer.scanSegment(id, true, true, nil)
	if err != nil {
		return nil, err
	}
	if end == 0 && len(data) >= headerSize && !allZero(data[:headerSize]) {
		// A damaged header skipped under IgnoreReplayErrors: the file is
		// kept (replay skips it again, logging it) until it is released.
		return ids, nil
	}
	if end <= headerSize {
		if len(data) > 0 {
			l.opts.Logger.Warn("commit log: removing a last segment without records (torn while being created)",
				"file", name, "size", len(data))
		}
		if err := l.fs.Remove(name); err != nil {
			return nil, err
		}
		return ids[:len(ids)-1], l.fs.SyncDir(l.dir)
	}
	if end == len(data) {
		return ids, nil
	}
	if allZero(data[end:]) {
		l.opts.Logger.Info("commit log: cutting the unused preallocated space of the last segment",
			"file", name, "offset", end, "size", len(data)-end)
	} else {
		l.opts.Logger.Warn("commit log: cutting a torn tail (an incomplete write at the end of the last segment, never acknowledged as synced)",
			"file", name, "offset", end, "size", len(data)-end)
	}
	tmp := name + ".tmp"
	f, err := l.fs.Create(tmp)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data[:end]); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := l.fs.Rename(tmp, name); err != nil {
		return nil, err
	}
	return ids, l.fs.SyncDir(l.dir)
}

// createSegment creates segment id with its header and, unless syncing is
// off, makes the file and its directory entry durable.
func (l *Log) createSegment(id uint64) (*segment, error) {
	f, err := l.fs.Create(l.fs.PathJoin(l.dir, SegmentFileName(id)))
	if err != nil {
		return nil, err
	}
	s := &segment{id: id, f: f}
	if s.m, _, err = vfs.MapFile(f, l.opts.SegmentSize); err != nil {
		f.Close()
		return nil, err
	}
	if err := s.write(appendHeader(nil, id)); err != nil {
		f.Close()
		return nil, err
	}
	s.size, s.recEnd = headerSize, headerSize
	if l.opts.SyncMode != SyncNone {
		if s.m != nil {
			if err := s.m.Sync(0, headerSize); err != nil {
				f.Close()
				return nil, err
			}
		}
		// The file (and, mapped, its preallocated size) made durable.
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
		if err := l.fs.SyncDir(l.dir); err != nil {
			f.Close()
			return nil, err
		}
	}
	l.unmarked = false
	return s, nil
}

// Replay calls fn for every record of the segments that existed when the
// log was opened (and have not been released since), in order. Call it
// before the first Append. See the package-level Replay for errors and
// payload lifetime.
func (l *Log) Replay(fn func(pos Position, payload []byte) error) error {
	l.mu.Lock()
	var ids []uint64
	for _, s := range l.older {
		if containsID(l.replayIDs, s.ID) {
			ids = append(ids, s.ID)
		}
	}
	l.mu.Unlock()
	return l.replayer.replay(ids, fn)
}

func containsID(ids []uint64, id uint64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// Append writes one record holding payload and returns its position. Under
// SyncBatch it returns only once an fsync covers the record; otherwise once
// the record is written to the file. The payload is not retained. It returns
// ErrRecordTooLarge for a payload over MaxRecordSize, ErrClosed after
// Close, and an error wrapping ErrFailed once a write or sync has failed.
func (l *Log) Append(payload []byte) (Position, error) {
	return l.append(len(payload), payload, nil)
}

// AppendEncoded is Append for a payload of exactly size bytes that encode
// appends to dst, an empty slice with room for size bytes: in a mapped
// segment dst is the record's place in the mapping, so the payload is
// encoded straight into the page cache with no intermediate buffer (as
// Cassandra serializes a mutation into the space it allocated in its
// segment). encode runs with the log's mutex held: it must not call the
// log, and should only encode. It must append exactly size bytes and
// nothing more: a result of another length, or one that no longer starts
// at dst, is refused with ErrEncodedSize, the bytes written cleared and
// nothing appended (the log stays usable). The errors are otherwise
// Append's.
func (l *Log) AppendEncoded(size int, encode func(dst []byte) []byte) (Position, error) {
	return l.append(size, nil, encode)
}

// append is Append (encode nil: payload is the record's payload) and
// AppendEncoded. It has few returns so that the compiler open-codes its
// two defers (a function with more than eight returns gets defer records
// on the stack, run through the runtime: about 3% of a narrow put's CPU);
// the work under the mutex is appendHeld's.
func (l *Log) append(size int, payload []byte, encode func(dst []byte) []byte) (pos Position, err error) {
	if size > l.opts.MaxRecordSize {
		return Position{}, fmt.Errorf("%w: %d bytes, maximum %d", ErrRecordTooLarge, size, l.opts.MaxRecordSize)
	}
	rotated := false
	defer func() {
		// Runs after the unlock below (deferred calls run last first).
		if rotated && l.opts.OnRotate != nil {
			l.opts.OnRotate()
		}
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	pos, err = l.appendHeld(size, payload, encode, &rotated)
	return pos, err
}

// appendHeld is append's work with l.mu held; *rotated is set when it
// rotated the active segment (even if it then fails).
func (l *Log) appendHeld(size int, payload []byte, encode func(dst []byte) []byte, rotated *bool) (Position, error) {
	if size < 0 {
		return Position{}, fmt.Errorf("%w: negative size %d", ErrEncodedSize, size)
	}
	need := int64(recordHeaderSize + size)
	for {
		if l.closed {
			return Position{}, ErrClosed
		}
		if l.err != nil {
			return Position{}, l.err
		}
		// Room is kept for the sync marker that will follow the record.
		if l.active.size+need+syncMarkerSize <= l.opts.SegmentSize || l.active.size == headerSize {
			break
		}
		if l.syncing {
			l.cond.Wait()
			continue
		}
		if err := l.rotate(); err != nil {
			return Position{}, l.fail(err)
		}
		*rotated = true
	}
	pos := Position{Segment: l.active.id, Offset: l.active.size}
	if err := l.active.writeRecord(&l.buf, size, payload, encode); err != nil {
		if errors.Is(err, ErrEncodedSize) {
			return Position{}, err
		}
		return Position{}, l.fail(err)
	}
	l.active.size += need
	l.active.recEnd = l.active.size
	l.written++
	l.unmarked = true
	switch l.opts.SyncMode {
	case SyncBatch:
		if err := l.waitSynced(l.written); err != nil {
			return Position{}, err
		}
	case SyncPeriodic:
		if l.sinceSync() > l.opts.SyncPeriod*3/2 {
			if err := l.waitSynced(l.written); err != nil {
				return Position{}, err
			}
		}
		if !l.earlySent && l.active.size >= l.opts.SegmentSize/4*3 {
			l.earlySent = true
			select {
			case l.early <- struct{}{}:
			default:
			}
		}
	}
	return pos, nil
}

// sinceSync returns the time since the last sync finished (or the log
// opened), as opts.Now tells it. With the default clock it is time.Since,
// which reads only the monotonic clock, the one time.Now().Sub would use
// (lastSync, a time.Now reading, carries it): every append under
// SyncPeriodic asks, and time.Now reads the wall clock too, which costs as
// much again. l.mu is held.
func (l *Log) sinceSync() time.Duration {
	if l.systemNow {
		return time.Since(l.lastSync)
	}
	return l.opts.Now().Sub(l.lastSync)
}

// fail records err as the log's sticky failure and returns it. l.mu is held.
func (l *Log) fail(err error) error {
	if l.err == nil {
		l.err = fmt.Errorf("%w: %w", ErrFailed, err)
	}
	l.cond.Broadcast()
	return l.err
}

// waitSynced returns once a sync covers the first seq records, syncing
// itself if no sync is running (group commit: one sync covers every record
// written before it started). l.mu is held; it is released during the sync.
func (l *Log) waitSynced(seq uint64) error {
	for l.synced < seq {
		if l.err != nil {
			return l.err
		}
		if l.syncing {
			l.cond.Wait()
			continue
		}
		if err := l.mark(); err != nil {
			return l.fail(err)
		}
		l.syncing = true
		target, seg, end := l.written, l.active, l.active.size
		l.mu.Unlock()
		err := seg.sync(end)
		l.mu.Lock()
		l.syncing = false
		l.cond.Broadcast()
		if err != nil {
			return l.fail(err)
		}
		l.synced = max(l.synced, target)
		l.lastSync = l.opts.Now()
	}
	return nil
}

// mark appends a sync marker to the active segment if records were written
// since its last one. It runs before every sync of the segment, and when the
// segment is closed: a sync marker after a record says the record was
// complete when a sync began (see the package comment). l.mu is held.
func (l *Log) mark() error {
	if !l.unmarked {
		return nil
	}
	l.buf = appendSyncMarker(l.buf[:0], l.active.id, l.active.size)
	if err := l.active.write(l.buf); err != nil {
		return err
	}
	l.active.size += syncMarkerSize
	l.unmarked = false
	return nil
}

// rotate syncs and closes the active segment and starts the next one. l.mu
// is held and no sync is running.
func (l *Log) rotate() error {
	old := l.active
	if err := l.mark(); err != nil {
		return err
	}
	durable := l.opts.SyncMode != SyncNone
	if durable {
		if err := old.sync(old.size); err != nil {
			return err
		}
	}
	// A mapped segment is cut to what was written, durably, before the
	// next one exists: only the last segment can end in preallocated
	// space (see the package comment).
	if err := old.unmap(durable); err != nil {
		return err
	}
	l.synced = l.written
	l.lastSync = l.opts.Now()
	if err := old.f.Close(); err != nil {
		return err
	}
	next, err := l.createSegment(old.id + 1)
	if err != nil {
		return err
	}
	l.older = append(l.older, SegmentInfo{ID: old.id, Name: SegmentFileName(old.id), Size: old.size, recEnd: old.recEnd})
	l.active = next
	l.earlySent = false
	return nil
}

// Sync makes every record appended so far durable, whatever the sync mode.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.err != nil {
		return l.err
	}
	return l.waitSynced(l.written)
}

// periodicSync syncs on every tick while records are unsynced. It blocks
// on the ticker between ticks, so it costs nothing when idle.
func (l *Log) periodicSync(t Ticker) {
	defer l.wg.Done()
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			return
		case <-t.C():
		case <-l.early:
		}
		l.mu.Lock()
		if !l.closed && l.err == nil {
			if l.synced < l.written {
				_ = l.waitSynced(l.written) // a failure is sticky and reported by Append
			} else {
				l.lastSync = l.opts.Now() // nothing to sync: not behind
			}
		}
		l.mu.Unlock()
	}
}

// Tail returns the position the next record would get if it fits in the
// active segment: everything appended so far lies before it. The engine
// records it when it switches memtables, and passes it to ReleaseBefore
// once that memtable's flush is durable.
func (l *Log) Tail() Position {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Position{Segment: l.active.id, Offset: l.active.size}
}

// Segments lists the log's segment files in id order, the active one last.
func (l *Log) Segments() []SegmentInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]SegmentInfo(nil), l.older...)
	return append(out, SegmentInfo{ID: l.active.id, Name: SegmentFileName(l.active.id),
		Size: l.active.size, Active: true})
}

// ReleaseBefore deletes the segments all of whose records lie before pos:
// those with an id below pos.Segment, and segment pos.Segment itself if pos
// is at or past the end of its last record. The active segment is never deleted. Call it once
// the data of every record before pos is durable elsewhere (flushed).
func (l *Log) ReleaseBefore(pos Position) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	var drop []SegmentInfo
	keep := l.older[:0:0]
	for _, s := range l.older {
		if s.ID < pos.Segment || (s.ID == pos.Segment && pos.Offset >= s.recEnd) {
			drop = append(drop, s)
		} else {
			keep = append(keep, s)
		}
	}
	l.older = keep
	l.mu.Unlock()
	if len(drop) == 0 {
		return nil
	}
	var errs []error
	for _, s := range drop {
		if err := l.fs.Remove(l.fs.PathJoin(l.dir, s.Name)); err != nil && !isNotExist(err) {
			errs = append(errs, err)
		}
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Close stops periodic syncing, syncs the active segment (unless the mode
// is SyncNone or the log has failed) and closes it. An active segment with
// no records is removed. Further calls return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	close(l.quit)
	l.wg.Wait()

	l.mu.Lock()
	defer l.mu.Unlock()
	for l.syncing {
		l.cond.Wait()
	}
	var errs []error
	if l.err == nil {
		if err := l.mark(); err != nil {
			errs = append(errs, l.fail(err))
		}
	}
	durable := l.opts.SyncMode != SyncNone
	if l.err == nil && durable {
		if err := l.active.sync(l.active.size); err != nil {
			errs = append(errs, l.fail(err))
		} else {
			l.synced = l.written
		}
	}
	l.cond.Broadcast()
	if err := l.active.unmap(durable && l.err == nil); err != nil {
		errs = append(errs, err)
	}
	if err := l.active.f.Close(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 && l.active.size == headerSize {
		if err := l.fs.Remove(l.fs.PathJoin(l.dir, SegmentFileName(l.active.id))); err != nil {
			errs = append(errs, err)
		} else if l.opts.SyncMode != SyncNone {
			errs = append(errs, l.fs.SyncDir(l.dir))
		}
	}
	return errors.Join(errs...)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
