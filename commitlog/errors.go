package commitlog

import (
	"errors"
	"fmt"
)

// ErrCorruption marks damaged commit-log data: a bad header, a record whose
// checksum does not match that is followed by valid records, or any bad
// record in a segment other than the last. Check with errors.Is; the
// concrete error is a *CorruptionError naming the file and offset.
var ErrCorruption = errors.New("commitlog: corruption")

// ErrRecordTooLarge is returned by Append for a payload longer than
// Options.MaxRecordSize.
var ErrRecordTooLarge = errors.New("commitlog: record too large")

// ErrEncodedSize is returned by AppendEncoded when the encoder did not
// append exactly the size it was given (a caller's bug); nothing was
// appended.
var ErrEncodedSize = errors.New("commitlog: encoded record size mismatch")

// ErrClosed is returned by operations on a closed Log.
var ErrClosed = errors.New("commitlog: log closed")

// ErrInvalidOptions is returned by Options.Validate and Open for options
// that cannot work together.
var ErrInvalidOptions = errors.New("commitlog: invalid options")

// ErrFailed is returned by every Append and Sync after a write or sync of
// the log has failed: the file's state is unknown (a partial record may
// have been written, or the kernel may have dropped dirty pages), so the
// log refuses further writes. Reopen the log to recover. The first failure
// is wrapped too.
var ErrFailed = errors.New("commitlog: log failed")

// CorruptionError describes corrupt data in a segment file.
type CorruptionError struct {
	// File is the segment's path.
	File string
	// Offset is the byte offset of the damaged header or record.
	Offset int64
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *CorruptionError) Error() string {
	return fmt.Sprintf("commitlog: corruption in %s at offset %d: %s", e.File, e.Offset, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorruption) hold.
func (e *CorruptionError) Unwrap() error { return ErrCorruption }
