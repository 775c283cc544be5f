package query

import (
	"github.com/minicass/minicass/partitioner"
)

// SerializePartitionKey builds the partition key bytes from its components
// (CompositeKey for several), with Cassandra's key validation.
//
// A composite key whose components together pass 65535 bytes is refused
// with their total (CASSANDRA-18504, 4.1.3: InsertInvalidateSizedRecordsTest
// expects the sum of the components, not the composite's serialized size).
func SerializePartitionKey(parts [][]byte) ([]byte, error) {
	var key []byte
	if len(parts) == 1 {
		key = parts[0]
	} else {
		total := 0
		for _, p := range parts {
			total += len(p)
		}
		if total > 65535 {
			return nil, Invalidf("Key length of %d is longer than maximum of 65535", total)
		}
		var err error
		key, err = partitioner.CompositeKey(parts)
		if err != nil {
			return nil, Invalidf("%v", err)
		}
	}
	if len(key) == 0 {
		return nil, Invalidf("Key may not be empty")
	}
	if len(key) > 65535 {
		return nil, Invalidf("Key length of %d is longer than maximum of 65535", len(key))
	}
	return key, nil
}
