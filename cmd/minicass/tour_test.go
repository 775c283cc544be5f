package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTourCommand(t *testing.T) {
	code, out, _ := runArgs("tour", "--list", "--lang", "zh")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, " 2  latest-n         聚簇列顺序与\"最近 N 条\"\n")
	assert.Contains(t, out, "11  tombstones")

	// Piped, the tour prints a lesson at once; numbered as in the list.
	code, out, errs := runArgs("tour", "--lang", "en", "counters")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "=== 6/11 Counters: pre-computed aggregates (counters) ===")
	assert.Contains(t, out, "--- 6.3 ---")
	assert.NotContains(t, out, "[Enter")

	code, _, errs = runArgs("tour", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `no lesson "nope"`)
	code, _, errs = runArgs("tour", "--lang", "fr")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "the tour speaks en and zh")
	code, _, errs = runArgs("tour", "--ui", "0.0.0.0:0", "1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "not a loopback address")
}

// TestTourRingMatchesRing checks that the ring steps of the tour print
// what the command they show prints for the same keys.
func TestTourRingMatchesRing(t *testing.T) {
	checked := 0
	for _, lesson := range []string{"partition-key", "composite-keys", "hot-partitions"} {
		code, out, errs := runArgs("tour", "--lang", "en", lesson)
		require.Equal(t, 0, code, errs)
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			cmdline, ok := strings.CutPrefix(l, "$ minicass ring ")
			if !ok {
				continue
			}
			code, ring, errs := runArgs(append([]string{"ring"}, strings.Fields(cmdline)...)...)
			require.Equal(t, 0, code, errs)
			for _, key := range lines[i+1:] {
				if !strings.HasPrefix(key, "Key ") {
					break
				}
				assert.Contains(t, ring, "\n"+key+"\n", "minicass ring %s", cmdline)
				checked++
			}
		}
	}
	assert.Greater(t, checked, 10)
}
