package bench

import "errors"

// Errors returned by the workload runner. Check them with errors.Is: the
// runner wraps them with the offending name or value.
var (
	// ErrUnknownWorkload is returned for a workload name that is not in
	// Workloads.
	ErrUnknownWorkload = errors.New("bench: unknown workload")
	// ErrUnknownStore is returned for a store kind other than "engine",
	// "cql", "btree" (and "none" for a peer).
	ErrUnknownStore = errors.New("bench: unknown store")
	// ErrInvalidConfig is returned by Config.Validate for sizes, fractions
	// or durations out of range.
	ErrInvalidConfig = errors.New("bench: invalid configuration")
	// ErrShortRead is returned when a read finds fewer rows than the
	// workload wrote: the figures of such a run would be meaningless.
	ErrShortRead = errors.New("bench: read returned fewer rows than written")
	// ErrUnknownFormat is returned by Write for an output format other than
	// "table" or "json".
	ErrUnknownFormat = errors.New("bench: unknown output format")
)
