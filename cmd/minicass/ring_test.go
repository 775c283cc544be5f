package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRing prints a simulated ring: the same seed gives the same output,
// a key's replicas follow the listed tokens clockwise, and bad flags are
// usage errors.
func TestRing(t *testing.T) {
	code, out, errs := runArgs("ring", "--nodes", "3", "--vnodes", "1", "--tokens", "--", "alice", "-7")
	require.Equal(t, 0, code, errs)
	_, again, _ := runArgs("ring", "--nodes", "3", "--vnodes", "1", "--tokens", "--", "alice", "-7")
	assert.Equal(t, out, again, "the same seed gives the same ring")
	assert.Contains(t, out, "Simulated ring: 3 nodes, 1 token each (seed 1), Murmur3Partitioner; replication SimpleStrategy, RF 3\n")
	assert.Contains(t, out, "Address    Rack   Tokens  Owns   Owns (effective)\n")
	// RF 3 on 3 nodes: every node holds every token.
	assert.Equal(t, 3, strings.Count(out, "100.0%\n"), out)

	// The token list, ascending; alice's token (Murmur3 of 'alice') lies
	// past the last one, so the walk wraps to the first token's node.
	var owners []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && strings.HasPrefix(f[1], "127.") {
			owners = append(owners, f[1])
		}
	}
	require.Len(t, owners, 3, out)
	assert.Contains(t, out, "Key alice: token 5699955792253506986, replicas "+strings.Join(owners, ", ")+"\n")
	assert.Contains(t, out, "Key -7: token ", "after --, a negative number is a key (a text here)")

	code, out, errs = runArgs("ring", "--dcs", "2", "--racks", "2", "--rf", "datacenter1:2,datacenter2:1", "--key-type", "int,text", "1:x")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Datacenter: datacenter2\n")
	assert.Contains(t, out, "replication NetworkTopologyStrategy, datacenter1 2, datacenter2 1")
	line := out[strings.Index(out, "Key 1:x"):]
	assert.Equal(t, 3, strings.Count(line, "127.0."), "two replicas in datacenter1, one in datacenter2: %s", line)

	code, _, errs = runArgs("ring", "--rf", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "a replication factor is at least 1")
	code, _, errs = runArgs("ring", "--key-type", "int", "notanint")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `key "notanint" is not a int`)
}
