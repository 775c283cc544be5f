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
// # Segment format (version 1)
//
// All integers are little-endian. CRC32C is the Castagnoli CRC-32.
//
//	header (20 bytes):
//	  [4]  magic "MCCL"
//	  [4]  uint32 format version (1)
//	  [8]  uint64 segment id (equal to the id in the file name)
//	  [4]  uint32 CRC32C of the 16 bytes above
//	records, back to back until the end of the file:
//	  [4]  uint32 payload length n
//	  [4]  uint32 CRC32C of the 4 length bytes followed by the payload
//	  [n]  payload
//
// Worked example: segment 1 holding one record with the payload "hi":
//
//	00000000  4d 43 43 4c 01 00 00 00  01 00 00 00 00 00 00 00  |MCCL............|
//	00000010  37 bb 03 1d 02 00 00 00  59 72 5a 88 68 69        |7.......YrZ.hi|
//
// Bytes 0-3 are the magic, 4-7 the version, 8-15 the segment id, 16-19 the
// header CRC (0x1d03bb37); the record starts at offset 20 with length 2,
// then the CRC32C of 02 00 00 00 68 69 (0x885a7259), then "hi". The
// Position of that record is {Segment: 1, Offset: 20}.
//
// The checksum covers the length so that a damaged length is caught, and
// because the CRC32C of four zero bytes is not zero, a zero-filled tail
// (preallocated or torn space) is never read as an empty record.
//
// # Recovery
//
// Replay reads the segments in id order. In the last segment, a bad record
// (truncated header, length past the end of the file, checksum mismatch)
// that is not followed by any valid record at a later offset is a torn
// tail, the trace of a crash in the middle of a write: replay ends there
// cleanly. A bad record followed by a valid one, any bad record in an
// earlier segment, or a bad header is corruption: replay stops with a
// *CorruptionError (errors.Is ErrCorruption) naming the file and offset,
// and no record after the damage is returned. A last segment shorter than a
// header, or whose header bytes are all zero, is a torn (empty) segment.
//
// When Open finds a torn tail in the last existing segment it rewrites the
// segment without it (write a temporary file, sync, rename, sync the
// directory), so that the segment, no longer last once new segments follow,
// does not later read as corrupt. A last segment with no records is removed.
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
// the last is always complete on disk.
package commitlog
