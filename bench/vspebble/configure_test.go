package vspebble

import (
	"os"
	"strconv"

	"github.com/minicass/minicass/engine"
)

// configureMinicass adjusts the engine options of the flush and compaction
// benchmarks to the engine's version (a file of its own, so that a build of
// an older commit can replace it): compaction unthrottled, as pebble's is,
// unless VSPEBBLE_COMPACTION_THROUGHPUT gives Options.CompactionThroughput
// (0: the default, 64 MiB/s).
func configureMinicass(o *engine.Options) {
	o.CompactionThroughput = -1
	if v, ok := os.LookupEnv("VSPEBBLE_COMPACTION_THROUGHPUT"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err == nil {
			o.CompactionThroughput = n
		}
	}
}
