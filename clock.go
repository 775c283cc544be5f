package minicass

import (
	"time"

	"github.com/minicass/minicass/engine"
)

// ManualClock is a Clock that only moves when told to (Advance, Set): tests
// use it to make TTLs expire and to give writes predictable timestamps. It
// is safe for concurrent use. It is the engine's manual clock.
type ManualClock = engine.ManualClock

// NewManualClock returns a clock stopped at t.
func NewManualClock(t time.Time) *ManualClock { return engine.NewManualClock(t) }
