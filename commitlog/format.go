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
	// formatVersion1 is the first format version: records only. It is
	// still read.
	formatVersion1 = 1
	// formatVersion2 adds sync markers (doc.go); it is what Open writes.
	formatVersion2 = 2
	// headerSize is the size of a segment header.
	headerSize = 20
	// recordHeaderSize is the size of a record's length and checksum.
	recordHeaderSize = 8
	// syncMarkerTag is the length field of a sync marker: never a record
	// length, since records are at most 2 GiB.
	syncMarkerTag = 0xFFFFFFFF
	// syncMarkerSize is the size of a sync marker.
	syncMarkerSize = 8
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
	dst = binary.LittleEndian.AppendUint32(dst, formatVersion2)
	dst = binary.LittleEndian.AppendUint64(dst, id)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// checkHeader validates a segment header against the expected id. It
// returns the format version and a reason string, empty if the header is
// good.
func checkHeader(h []byte, id uint64) (uint32, string) {
	if len(h) < headerSize {
		return 0, fmt.Sprintf("segment header truncated to %d bytes", len(h))
	}
	if string(h[:4]) != segmentMagic {
		return 0, fmt.Sprintf("bad magic %q", h[:4])
	}
	if got, want := binary.LittleEndian.Uint32(h[16:]), crc32.Checksum(h[:16], castagnoli); got != want {
		return 0, fmt.Sprintf("header checksum mismatch: stored %08x, computed %08x", got, want)
	}
	v := binary.LittleEndian.Uint32(h[4:])
	if v != formatVersion1 && v != formatVersion2 {
		return 0, fmt.Sprintf("unsupported format version %d", v)
	}
	if got := binary.LittleEndian.Uint64(h[8:]); got != id {
		return 0, fmt.Sprintf("header segment id %d does not match file name id %d", got, id)
	}
	return v, ""
}

// syncMarkerCRC is the checksum of the sync marker at offset off of
// segment id: the CRC32C of the tag, the segment id and the offset, so that
// a marker copied elsewhere (or stale bytes) never reads as valid.
func syncMarkerCRC(id uint64, off int) uint32 {
	var b [20]byte
	binary.LittleEndian.PutUint32(b[:], syncMarkerTag)
	binary.LittleEndian.PutUint64(b[4:], id)
	binary.LittleEndian.PutUint64(b[12:], uint64(off))
	return crc32.Checksum(b[:], castagnoli)
}

// appendSyncMarker appends the sync marker for offset off of segment id.
func appendSyncMarker(dst []byte, id uint64, off int64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, syncMarkerTag)
	return binary.LittleEndian.AppendUint32(dst, syncMarkerCRC(id, int(off)))
}

// isSyncMarker reports whether data holds a valid sync marker of segment id
// at off.
func isSyncMarker(data []byte, id uint64, off int) bool {
	return len(data)-off >= syncMarkerSize && binary.LittleEndian.Uint32(data[off:]) == syncMarkerTag &&
		binary.LittleEndian.Uint32(data[off+4:]) == syncMarkerCRC(id, off)
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

// readEntry decodes the entry at off in data, a segment id of the given
// format version: a record (payload set) or, from version 2 on, a sync
// marker (marker true). It returns the offset after the entry, or a reason
// string if the bytes at off are neither.
func readEntry(data []byte, off int, id uint64, version uint32) (payload []byte, marker bool, next int, reason string) {
	if version >= formatVersion2 && len(data)-off >= 4 && binary.LittleEndian.Uint32(data[off:]) == syncMarkerTag {
		if len(data)-off < syncMarkerSize {
			return nil, false, 0, fmt.Sprintf("truncated sync marker (%d bytes)", len(data)-off)
		}
		if !isSyncMarker(data, id, off) {
			return nil, false, 0, "sync marker checksum mismatch"
		}
		return nil, true, off + syncMarkerSize, ""
	}
	payload, next, reason = readRecord(data, off)
	return payload, false, next, reason
}

// validAfter returns the first offset after off where a valid record or
// sync marker starts, and whether there is one. Damage followed by valid
// data is corruption, not a torn tail; a sync marker after the damage says
// more: the damaged bytes were written before a sync began, so in batch
// mode they were acknowledged.
func validAfter(data []byte, off int, id uint64, version uint32) (at int, marker, ok bool) {
	for y := off + 1; y+recordHeaderSize <= len(data); y++ {
		if _, m, _, reason := readEntry(data, y, id, version); reason == "" {
			return y, m, true
		}
	}
	return 0, false, false
}
