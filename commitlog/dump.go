package commitlog

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/minicass/minicass/vfs"
)

// dumpPreview is the number of payload bytes Dump prints per record.
const dumpPreview = 32

// Dump writes a readable description of every segment in dir to w: each
// segment's header, each record's offset, length, checksum and the start of
// its payload, and where a segment ends in a torn tail or corruption, with
// the same rules as Replay. Unlike Replay it carries on past damage to show
// every segment. It returns only I/O errors (of the FS or of w).
func Dump(w io.Writer, fsys vfs.FS, dir string) error {
	ids, err := listSegments(fsys, dir)
	if err != nil {
		return err
	}
	for i, id := range ids {
		name := SegmentFileName(id)
		data, err := readAll(fsys, fsys.PathJoin(dir, name))
		if err != nil {
			return err
		}
		last := i == len(ids)-1
		if _, err := fmt.Fprintf(w, "%s: %d bytes\n", name, len(data)); err != nil {
			return err
		}
		version, reason := checkHeader(data, id)
		if reason != "" {
			state := "corrupt"
			if last && (len(data) < headerSize || allZero(data[:headerSize])) {
				state = "torn"
			}
			if _, err := fmt.Fprintf(w, "  0: %s header: %s\n", state, reason); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(w, "  0: header magic=%s version=%d segment=%d\n", data[:4],
			binary.LittleEndian.Uint32(data[4:]), binary.LittleEndian.Uint64(data[8:])); err != nil {
			return err
		}
		for off := headerSize; off < len(data); {
			payload, marker, next, reason := readEntry(data, off, id, version)
			if reason != "" && last && allZero(data[off:]) {
				_, err = fmt.Fprintf(w, "  %d: preallocated space, %d zero bytes\n", off, len(data)-off)
				if err != nil {
					return err
				}
				break
			}
			if reason != "" {
				state := "corrupt"
				at, _, ok := validAfter(data, off, id, version)
				if last && !ok {
					state = "torn tail"
				}
				if !ok {
					at = len(data)
				}
				_, err = fmt.Fprintf(w, "  %d: %s, %d bytes: %s\n", off, state, at-off, reason)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				off = at
				continue
			}
			if marker {
				if _, err := fmt.Fprintf(w, "  %d: sync marker\n", off); err != nil {
					return err
				}
				off = next
				continue
			}
			preview, more := payload, ""
			if len(preview) > dumpPreview {
				preview, more = preview[:dumpPreview], "..."
			}
			_, err = fmt.Fprintf(w, "  %d: record len=%d crc=%08x %q%s\n", off, len(payload),
				binary.LittleEndian.Uint32(data[off+4:]), preview, more)
			if err != nil {
				return err
			}
			off = next
		}
	}
	return nil
}
