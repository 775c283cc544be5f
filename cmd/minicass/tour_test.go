package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
