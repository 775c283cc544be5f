package commitlog

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/minicass/minicass/vfs"
)

// Position locates a record: the segment id and the byte offset of the
// record's length field in that segment file. Positions are ordered by
// segment, then offset, which is the order records were appended.
type Position struct {
	Segment uint64
	Offset  int64
}

// Compare returns -1, 0 or +1 as p is before, equal to, or after q.
func (p Position) Compare(q Position) int {
	switch {
	case p.Segment < q.Segment:
		return -1
	case p.Segment > q.Segment:
		return 1
	case p.Offset < q.Offset:
		return -1
	case p.Offset > q.Offset:
		return 1
	}
	return 0
}

// String formats p as "segment:offset".
func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Segment, p.Offset) }

// listSegments returns the ids of the segment files in dir, ascending.
func listSegments(fs vfs.FS, dir string) ([]uint64, error) {
	names, err := fs.List(dir)
	if err != nil {
		return nil, err
	}
	var ids []uint64
	for _, n := range names {
		if id, ok := ParseSegmentFileName(n); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Replay reads every segment in dir in id order and calls fn for each
// valid record, stopping at a torn tail in the last segment (see the package
// comment). It returns a *CorruptionError (errors.Is ErrCorruption) for
// damaged data, or the first error fn returns, unchanged. The payload passed
// to fn is only valid during the call. A missing or empty dir replays
// nothing. It logs nothing and ignores no damage: ReplayWith takes the
// options that do.
func Replay(fs vfs.FS, dir string, fn func(pos Position, payload []byte) error) error {
	return ReplayWith(fs, dir, ReplayOptions{}, fn)
}

// ReplayOptions are the options of ReplayWith (and the replay options of a
// Log, taken from its Options).
type ReplayOptions struct {
	// Logger receives a record for every byte range replay skips: a torn
	// tail (warning) and, with IgnoreReplayErrors, corruption (error),
	// each with the file, offset, size and reason. Nil discards them.
	Logger *slog.Logger
	// IgnoreReplayErrors skips damaged data instead of failing, as
	// Cassandra's -Dcassandra.commitlog.ignorereplayerrors=true: a
	// damaged header skips its segment, a damaged record the bytes up to
	// the next valid record or sync marker. Every skip is logged.
	IgnoreReplayErrors bool
}

// ReplayWith is Replay with options: a logger for what is skipped and the
// choice to skip corruption rather than fail.
func ReplayWith(fs vfs.FS, dir string, opts ReplayOptions, fn func(pos Position, payload []byte) error) error {
	ids, err := listSegments(fs, dir)
	if errors.Is(err, io.EOF) || isNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return newReplayer(fs, dir, opts).replay(ids, fn)
}

// replayer reads segments with the replay options.
type replayer struct {
	fs     vfs.FS
	dir    string
	log    *slog.Logger
	ignore bool
}

func newReplayer(fs vfs.FS, dir string, opts ReplayOptions) *replayer {
	r := &replayer{fs: fs, dir: dir, log: opts.Logger, ignore: opts.IgnoreReplayErrors}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return r
}

func (r *replayer) replay(ids []uint64, fn func(Position, []byte) error) error {
	for i, id := range ids {
		if _, _, err := r.scanSegment(id, i == len(ids)-1, false, fn); err != nil {
			return err
		}
	}
	return nil
}

// scanSegment reads segment id and calls fn (if not nil) for each valid
// record. It returns the file's bytes and the offset where valid data ends:
// the file length for a clean segment, the start of the torn tail for a
// torn last segment, and 0 for a last segment whose header is torn (or, with
// IgnoreReplayErrors, damaged). quiet leaves the logging of what is skipped
// to a later scan of the same segment.
//
// In the last segment, damage that valid data follows (a record, or in
// format 2 a sync marker) is corruption; damage with nothing valid after it
// is a torn tail. A sync marker is written before every fsync, after the
// records the fsync covers, so the last record acknowledged under
// SyncBatch is always followed by one: a bad byte in it reads as
// corruption, not as a torn tail (see the package comment).
func (r *replayer) scanSegment(id uint64, last, quiet bool,
	fn func(Position, []byte) error) (data []byte, end int, err error) {
	name := r.fs.PathJoin(r.dir, SegmentFileName(id))
	data, err = readAll(r.fs, name)
	if err != nil {
		return nil, 0, err
	}
	// skip logs a skipped byte range; it returns the corruption error to
	// fail with, or nil to go on (IgnoreReplayErrors).
	skip := func(off, size int, reason string, torn bool) error {
		if torn {
			if !quiet && size > 0 {
				r.log.Warn("commit log replay skipped a torn tail (an incomplete write at the end of the last segment, never acknowledged as synced)",
					"file", name, "offset", off, "size", size, "reason", reason)
			}
			return nil
		}
		if !r.ignore {
			return &CorruptionError{File: name, Offset: int64(off), Reason: reason}
		}
		if !quiet {
			r.log.Error("Ignoring commit log replay error (IgnoreReplayErrors): skipped damaged bytes",
				"file", name, "offset", off, "size", size, "reason", reason)
		}
		return nil
	}
	version, reason := checkHeader(data, id)
	if reason != "" {
		torn := last && (len(data) < headerSize || allZero(data[:headerSize]))
		if err := skip(0, len(data), reason, torn); err != nil {
			return nil, 0, err
		}
		return data, 0, nil
	}
	off := headerSize
	for off < len(data) {
		payload, marker, next, reason := readEntry(data, off, id, version)
		if reason != "" && last && allZero(data[off:]) {
			// The unused preallocated space of a mapped segment that was
			// never cut to its size (the process or machine stopped): not
			// a write, torn or otherwise.
			return data, off, nil
		}
		if reason != "" {
			at, marked, ok := validAfter(data, off, id, version)
			switch {
			case !last:
				reason += " (not the last segment)"
			case marked:
				reason += ", followed by a sync marker: written before a sync, so not a torn write"
			case ok:
				reason += ", followed by valid records"
			}
			if !ok {
				at = len(data)
			}
			if err := skip(off, at-off, reason, last && !ok); err != nil {
				return nil, 0, err
			}
			if last && !ok {
				return data, off, nil // torn tail
			}
			off = at
			continue
		}
		if !marker && fn != nil {
			if err := fn(Position{Segment: id, Offset: int64(off)}, payload); err != nil {
				return nil, 0, err
			}
		}
		off = next
	}
	return data, off, nil
}

// readAll returns the contents of the named file.
func readAll(fs vfs.FS, name string) ([]byte, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf []byte
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		buf = make([]byte, 0, st.Size())
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
