package sstable

import (
	"errors"
	"fmt"
)

// Sentinel errors of package sstable. Errors returned by this package wrap
// one of them (or an error of package vfs or data), so callers classify them
// with errors.Is.
var (
	// ErrCorruption is wrapped by every error reporting a component whose
	// bytes are not what was written: a bad magic number or component
	// byte, components of different format versions, a checksum mismatch
	// or an undecodable record. The message names the file and the offset.
	ErrCorruption = errors.New("sstable: corruption")
	// ErrMissingComponent is returned by Open when a component file of the
	// SSTable does not exist; the message names the file.
	ErrMissingComponent = errors.New("sstable: missing component")
	// ErrOutOfOrder is returned by the Writer when partitions are not added
	// in token order or rows not in clustering order.
	ErrOutOfOrder = errors.New("sstable: out of order")
	// ErrWriterState is returned when Writer methods are called in the wrong
	// order (AddRow outside a partition, BeginPartition twice, use after
	// Finish or Abort) or given a static row with a clustering key.
	ErrWriterState = errors.New("sstable: writer misuse")
	// ErrInvalidOptions is returned for an invalid compression map or
	// writer option. Its message follows Cassandra's ConfigurationException
	// text where Cassandra has one.
	ErrInvalidOptions = errors.New("sstable: invalid options")
	// ErrUnsupportedVersion is returned by Open for a component whose
	// header carries a format version this build does not read (one
	// written by a newer build); the message names the file and both
	// versions. It is not corruption: the bytes may be intact.
	ErrUnsupportedVersion = errors.New("sstable: unsupported format version")
	// ErrClosed is returned by reads on a closed Reader.
	ErrClosed = errors.New("sstable: reader closed")
)

// CorruptionError describes corruption found in one component file.
// It matches ErrCorruption with errors.Is.
type CorruptionError struct {
	// File is the component's file name (without directory).
	File string
	// Offset is the byte offset in File where the bad data starts.
	Offset int64
	// Reason says what was wrong.
	Reason string
	// Err is an underlying error, if any (for example data.ErrCorrupt).
	Err error
}

// Error implements error.
func (e *CorruptionError) Error() string {
	s := fmt.Sprintf("sstable: corruption in %s at offset %d: %s", e.File, e.Offset, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrCorruption.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorruption }

// Unwrap returns the underlying error.
func (e *CorruptionError) Unwrap() error { return e.Err }

func corruptf(file string, off int64, format string, args ...any) error {
	return &CorruptionError{File: file, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func corruptWrap(file string, off int64, err error, format string, args ...any) error {
	return &CorruptionError{File: file, Offset: off, Reason: fmt.Sprintf(format, args...), Err: err}
}
