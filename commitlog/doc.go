// Package commitlog is minicass's write-ahead log: an append-only sequence
// of segment files holding opaque payloads (the engine encodes mutations).
// It does all its I/O through a vfs.FS, so crash and fault tests run in
// memory.
//
// # Files
//
// A log lives in one directory as segment files named CommitLog-<id>.log,
// where <id> is a decimal uint64 that grows by one per segment. Open always
// starts a new segment after the highest existing one; a segment is never
// appended to once closed. Other names in the directory are ignored.
//
// # Segment format (version 2)
//
// All integers are little-endian. CRC32C is the Castagnoli CRC-32.
//
//	header (20 bytes):
//	  [4]  magic "MCCL"
//	  [4]  uint32 format version (2; version 1 files, without sync
//	       markers, are still read)
//	  [8]  uint64 segment id (equal to the id in the file name)
//	  [4]  uint32 CRC32C of the 16 bytes above
//	entries, back to back until the end of the file, each a record or a
//	sync marker:
//	  record:
//	    [4]  uint32 payload length n (below 0xFFFFFFFF)
//	    [4]  uint32 CRC32C of the 4 length bytes followed by the payload
//	    [n]  payload
//	  sync marker (version 2):
//	    [4]  0xFFFFFFFF
//	    [4]  uint32 CRC32C of 0xFFFFFFFF (4 bytes), the segment id (8
//	         bytes) and the marker's own offset (8 bytes)
//
// A sync marker is appended before every fsync of the segment (and when the
// segment is closed), after the records the fsync covers, as Cassandra
// writes a sync marker for each section it syncs. Under SyncBatch every
// acknowledged record is therefore followed by a marker on disk.
//
// Worked example: segment 1 holding one record with the payload "hi",
// closed (so a sync marker follows the record):
//
//	00000000  4d 43 43 4c 02 00 00 00  01 00 00 00 00 00 00 00  |MCCL............|
//	00000010  67 c7 91 4e 02 00 00 00  59 72 5a 88 68 69 ff ff  |g..N....YrZ.hi..|
//	00000020  ff ff 4c 87 db 78                                 |..L..x|
//
// Bytes 0-3 are the magic, 4-7 the version, 8-15 the segment id, 16-19 the
// header CRC (0x4e91c767); the record starts at offset 20 with length 2,
// then the CRC32C of 02 00 00 00 68 69 (0x885a7259), then "hi". The
// Position of that record is {Segment: 1, Offset: 20}. The sync marker at
// offset 30 is ff ff ff ff and the CRC32C of ff ff ff ff, 01 00 00 00 00 00
// 00 00 and 1e 00 00 00 00 00 00 00 (0x78db874c).
//
// The checksum covers the length so that a damaged length is caught, and
// because the CRC32C of four zero bytes is not zero, a zero-filled tail
// (preallocated or torn space) is never read as an empty record.
//
// # Recovery
//
// Replay reads the segments in id order. A torn tail is an incomplete
// write at the end of the last segment: a bad entry (truncated header,
// length past the end of the file, checksum mismatch) in the last segment
// that no valid entry follows at a later offset. It is the trace of a crash
// in the middle of a write, before any sync covered it: replay ends there
// and logs what it skipped (file, offset, size). Everything else is
// corruption: a bad entry followed by a valid record or sync marker (a sync
// began after the damaged bytes were written, so under SyncBatch they were
// acknowledged: a bad byte in the last acknowledged record is caught by the
// marker after it), any bad entry in an earlier segment, or a bad header.
// Replay then stops with a *CorruptionError (errors.Is ErrCorruption)
// naming the file and offset, and no record after the damage is returned;
// with Options.IgnoreReplayErrors (Cassandra's
// cassandra.commitlog.ignorereplayerrors) it logs the damaged range and
// goes on at the next valid entry (or the next segment, for a bad header).
// A last segment shorter than a header, or whose header bytes are all zero,
// is a torn (empty) segment. Zero bytes from an entry's start to the end of
// the last segment are the unused preallocated space of a mapped segment
// (below), the end of its data, and are not logged.
//
// Cassandra tells the two apart the same way: it replays a section only
// once its sync marker is written, and tolerates errors only in the last
// segment. It tolerates them in any section of that segment, logging
// "Ignoring commit log replay error likely due to incomplete flush to
// disk"; minicass refuses damage that a sync marker follows even in the
// last segment, so that a flipped byte never silently drops an
// acknowledged write (docs/compatibility.md).
//
// When Open finds a torn tail in the last existing segment it rewrites the
// segment without it (write a temporary file, sync, rename, sync the
// directory), logging the cut, so that the segment, no longer last once new
// segments follow, does not later read as corrupt. A last segment with no
// records is removed.
//
// # Durability
//
// Options.SyncMode chooses when appended records are made durable:
//
//   - SyncPeriodic (default, as Cassandra's commitlog_sync: periodic):
//     Append returns once the record is written to the file; a background
//     goroutine syncs every SyncPeriod (10 s). A crash loses at most the
//     records appended since the last sync, never a record in the middle.
//   - SyncBatch (Cassandra's batch/group): Append returns only after an
//     fsync covering its record. Concurrent appenders share fsyncs (group
//     commit): one of them syncs for all records written so far.
//   - SyncNone: never sync (for tests and in-memory engines).
//
// A segment is synced before the next one is created, so every segment but
// the last is always complete on disk. That sync runs under the log's lock,
// so appends wait for it; in periodic mode the background goroutine also
// syncs a segment once it is three quarters full, ahead of its tick, so the
// rotation's sync finds at most a quarter of a segment to write (a whole
// segment of dirty pages, 32 MiB, took hundreds of milliseconds on a busy
// disk and stalled every writer; bench/RESULTS.md).
//
// # Mapped segments
//
// On Linux, a segment of the operating system's filesystem is preallocated
// to SegmentSize (fallocate, so that no write can fail for want of space)
// and mapped into memory, shared, as Cassandra's memory-mapped segments
// are: an append is a copy into the page cache, with no system call, and a
// killed process loses nothing it appended (only a machine's crash loses
// what no sync covered, as with write). A sync is an msync of the written
// range. When a segment is closed (rotation, Close) the file is cut to the
// bytes written and its size synced before the next segment is created, so
// only the last segment can end in preallocated zero bytes, after a crash.
// Files of the in-memory and fault-injecting filesystems (vfs.MapFile says
// which) are written with write, as before.
package commitlog
