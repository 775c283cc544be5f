package vspebble

import "github.com/minicass/minicass/engine"

// configureMinicass adjusts the engine options of the flush and compaction
// benchmarks to the engine's version (a file of its own, so that a build of
// an older commit can replace it): compaction unthrottled, as pebble's is.
func configureMinicass(o *engine.Options) { o.CompactionThroughput = -1 }
