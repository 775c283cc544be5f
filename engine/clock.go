package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// Clock gives the current time. The engine reads it for write timestamps,
// TTL expiry and deletion times, and never calls time.Now itself, so a test
// that passes a ManualClock controls time completely.
type Clock interface {
	Now() time.Time
}

// realClock is the system clock. Every write reads it for its timestamp,
// so it reads the wall clock only once a second: in between, Now adds the
// monotonic time elapsed since the last wall-clock reading (time.Since
// costs about half of time.Now, which reads both clocks). A step of the
// wall clock (NTP, a resumed VM) shows within a second; the engine's
// timestamps stay strictly increasing across it (see timestamps).
type realClock struct {
	anchor atomic.Pointer[clockAnchor]
}

// clockAnchor is a wall-clock reading of realClock (with its monotonic
// reading) and its Unix time in nanoseconds.
type clockAnchor struct {
	t     time.Time
	nanos int64
}

// anchorAge is how long realClock trusts the monotonic clock alone.
const anchorAge = time.Second

// Now returns the current time.
func (c *realClock) Now() time.Time {
	if a := c.anchor.Load(); a != nil {
		if d := time.Since(a.t); d >= 0 && d < anchorAge {
			return a.t.Add(d)
		}
	}
	return c.reanchor().t
}

// nowMicro returns Now().UnixMicro() without building the time.Time: the
// anchor's Unix nanoseconds plus the monotonic time since it, which is what
// Now adds (NewTimestamp calls it on every write).
func (c *realClock) nowMicro() int64 {
	if a := c.anchor.Load(); a != nil {
		if d := time.Since(a.t); d >= 0 && d < anchorAge {
			return (a.nanos + int64(d)) / 1e3
		}
	}
	return c.reanchor().nanos / 1e3
}

// reanchor reads the wall clock and makes it the anchor.
func (c *realClock) reanchor() *clockAnchor {
	now := time.Now()
	a := &clockAnchor{t: now, nanos: now.UnixNano()}
	c.anchor.Store(a)
	return a
}

// systemClock is the clock RealClock returns.
var systemClock = new(realClock)

// RealClock returns the system clock, the default Options.Clock.
func RealClock() Clock { return systemClock }

// ManualClock is a Clock that moves only when told to. It is safe for
// concurrent use.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a clock stopped at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t (backwards too).
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d and returns the new time.
func (c *ManualClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// timestamps hands out strictly increasing write timestamps.
type timestamps struct {
	last atomic.Int64
}

// next returns max(nowMicros, last+1) and records it.
func (ts *timestamps) next(nowMicros int64) int64 {
	for {
		last := ts.last.Load()
		n := nowMicros
		if n <= last {
			n = last + 1
		}
		if ts.last.CompareAndSwap(last, n) {
			return n
		}
	}
}

// Clock returns the engine's clock.
func (e *Engine) Clock() Clock { return e.opts.Clock }

// NewTimestamp returns a write timestamp in microseconds: the clock's time,
// or one more than the last timestamp returned if the clock has not moved
// past it (Cassandra's ClientState.getTimestamp). Timestamps are strictly
// increasing across all goroutines.
func (e *Engine) NewTimestamp() int64 {
	if c, ok := e.opts.Clock.(*realClock); ok {
		return e.ts.next(c.nowMicro())
	}
	return e.ts.next(e.opts.Clock.Now().UnixMicro())
}

// Now returns the clock's time in seconds since the epoch: the local
// deletion time of tombstones and the base of TTL expiry.
func (e *Engine) Now() int64 { return e.opts.Clock.Now().Unix() }
