package query

import (
	"github.com/minicass/minicass/partitioner"
)

// SerializePartitionKey builds the partition key bytes from its components
// (CompositeKey for several), with Cassandra's key validation.
func SerializePartitionKey(parts [][]byte) ([]byte, error) {
	var key []byte
	if len(parts) == 1 {
		key = parts[0]
	} else {
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
