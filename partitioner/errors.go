package partitioner

import "errors"

// ErrPartTooLarge is returned when a composite key component is longer than
// 65535 bytes, the largest length a uint16 prefix can express. Cassandra
// rejects such keys with "Key length of N is longer than maximum of 65535".
var ErrPartTooLarge = errors.New("partitioner: composite key component longer than 65535 bytes")

// ErrMalformedComposite is returned by SplitCompositeKey when its input is not
// a well-formed composite key: a truncated length or component, or a missing
// or non-zero end-of-component byte.
var ErrMalformedComposite = errors.New("partitioner: malformed composite key")
