package commitlog

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// The following constants are part of the file format; never change them.
const (
	// segmentMagic starts every segment file.
	segmentMagic = "MCCL"
	// formatVersion1 is the only format version: the layout in doc.go.
	formatVersion1 = 1
	// headerSize is the size of a segment header.
	headerSize = 20
	// recordHeaderSize is the size of a record's length and checksum.
	recordHeaderSize = 8
)

// segmentPrefix and segmentSuffix frame the id in a segment's file name.
const (
	segmentPrefix = "CommitLog-"
	segmentSuffix = ".log"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SegmentFileName returns the file name of segment id: CommitLog-<id>.log.
func SegmentFileName(id uint64) string {
	return segmentPrefix + strconv.FormatUint(id, 10) + segmentSuffix
}

// ParseSegmentFileName returns the id of a segment file name and whether
// name is one.
func ParseSegmentFileName(name string) (uint64, bool) {
	if !strings.HasPrefix(name, segmentPrefix) || !strings.HasSuffix(name, segmentSuffix) {
		return 0, false
	}
	s := name[len(segmentPrefix) : len(name)-len(segmentSuffix)]
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return id, true
}

// appendHeader appends the header of segment id to dst.
func appendHeader(dst []byte, id uint64) []byte {
	start := len(dst)
	dst = append(dst, segmentMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, formatVersion1)
	dst = binary.LittleEndian.AppendUint64(dst, id)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// checkHeader validates a segment header against the expected id. It
// returns a reason string, empty if the header is good.
func checkHeader(h []byte, id uint64) string {
	if len(h) < headerSize {
		return fmt.Sprintf("segment header truncated to %d bytes", len(h))
	}
	if string(h[:4]) != segmentMagic {
		return fmt.Sprintf("bad magic %q", h[:4])
	}
	if got, want := binary.LittleEndian.Uint32(h[16:]), crc32.Checksum(h[:16], castagnoli); got != want {
		return fmt.Sprintf("header checksum mismatch: stored %08x, computed %08x", got, want)
	}
	if v := binary.LittleEndian.Uint32(h[4:]); v != formatVersion1 {
		return fmt.Sprintf("unsupported format version %d", v)
	}
	if got := binary.LittleEndian.Uint64(h[8:]); got != id {
		return fmt.Sprintf("header segment id %d does not match file name id %d", got, id)
	}
	return ""
}

// appendRecord appends the framing and payload of one record to dst. It
// does not allocate when dst has room.
func appendRecord(dst, payload []byte) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	crc := crc32.Update(crc32.Checksum(dst[start:start+4], castagnoli), castagnoli, payload)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return append(dst, payload...)
}

// readRecord decodes the record at off in data. It returns the payload and
// the offset after the record, or a reason string if the bytes at off are
// not a valid record.
func readRecord(data []byte, off int) (payload []byte, next int, reason string) {
	rest := len(data) - off
	if rest < recordHeaderSize {
		return nil, 0, fmt.Sprintf("truncated record header (%d bytes)", rest)
	}
	n := binary.LittleEndian.Uint32(data[off:])
	if uint64(n) > uint64(rest-recordHeaderSize) {
		return nil, 0, fmt.Sprintf("record length %d exceeds the %d bytes left", n, rest-recordHeaderSize)
	}
	stored := binary.LittleEndian.Uint32(data[off+4:])
	end := off + recordHeaderSize + int(n)
	crc := crc32.Update(crc32.Checksum(data[off:off+4], castagnoli), castagnoli, data[off+recordHeaderSize:end])
	if crc != stored {
		return nil, 0, fmt.Sprintf("record checksum mismatch: stored %08x, computed %08x", stored, crc)
	}
	return data[off+recordHeaderSize : end], end, ""
}

// validRecordAfter reports whether any offset after off starts a valid
// record, which tells corruption (damage followed by good data) from a torn
// tail.
func validRecordAfter(data []byte, off int) bool {
	for y := off + 1; y+recordHeaderSize <= len(data); y++ {
		if _, _, reason := readRecord(data, y); reason == "" {
			return true
		}
	}
	return false
}
