package commitlog

import (
	"errors"
	"fmt"
	"io"
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
// nothing.
func Replay(fs vfs.FS, dir string, fn func(pos Position, payload []byte) error) error {
	ids, err := listSegments(fs, dir)
	if errors.Is(err, io.EOF) || isNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return replaySegments(fs, dir, ids, fn)
}

func replaySegments(fs vfs.FS, dir string, ids []uint64, fn func(Position, []byte) error) error {
	for i, id := range ids {
		if _, _, err := scanSegment(fs, dir, id, i == len(ids)-1, fn); err != nil {
			return err
		}
	}
	return nil
}

// scanSegment reads segment id and calls fn (if not nil) for each valid
// record. It returns the file's bytes and the offset where valid data ends:
// the file length for a clean segment, the start of the torn tail for a
// torn last segment, and 0 for a last segment whose header is torn.
func scanSegment(fs vfs.FS, dir string, id uint64, last bool,
	fn func(Position, []byte) error) (data []byte, end int, err error) {
	name := fs.PathJoin(dir, SegmentFileName(id))
	data, err = readAll(fs, name)
	if err != nil {
		return nil, 0, err
	}
	corrupt := func(off int, reason string) error {
		return &CorruptionError{File: name, Offset: int64(off), Reason: reason}
	}
	if reason := checkHeader(data, id); reason != "" {
		if last && (len(data) < headerSize || allZero(data[:headerSize])) {
			return data, 0, nil // a segment torn while being created
		}
		return nil, 0, corrupt(0, reason)
	}
	off := headerSize
	for off < len(data) {
		payload, next, reason := readRecord(data, off)
		if reason != "" {
			if !last {
				return nil, 0, corrupt(off, reason+" (not the last segment)")
			}
			if validRecordAfter(data, off) {
				return nil, 0, corrupt(off, reason+", followed by valid records")
			}
			return data, off, nil // torn tail
		}
		if fn != nil {
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
