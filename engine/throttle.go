package engine

import (
	"context"
	"sync"
	"time"
)

// DefaultCompactionThroughput is the default Options.CompactionThroughput,
// Cassandra 4.1's compaction_throughput: 64 MiB/s.
const DefaultCompactionThroughput = 64 << 20

// throttle paces compactions to a number of bytes per second, as
// Cassandra's compaction rate limiter does (CompactionManager's
// RateLimiter, acquired by CompactionTask with the input bytes scanned,
// compressed as on disk): every compaction of the engine shares it, and
// up to a second's worth of bytes may go unpaced after a pause (Guava's
// SmoothBursty, which Cassandra uses). It measures wall-clock time, not
// the engine's Clock: it paces I/O and CPU, not data.
type throttle struct {
	mu   sync.Mutex
	rate float64   // bytes per second
	next time.Time // when the bytes granted so far are paid for

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// minThrottleSleep is the shortest pause the throttle takes: shorter debts
// are carried to the next acquire, so that small partitions cost no timer.
const minThrottleSleep = 5 * time.Millisecond

// newThrottle returns a throttle of bytesPerSec, or nil (no pacing) for a
// negative value.
func newThrottle(bytesPerSec int64) *throttle {
	if bytesPerSec < 0 {
		return nil
	}
	return &throttle{rate: float64(bytesPerSec), now: time.Now, sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acquire accounts for n bytes and waits until the rate allows them. It
// returns early with ctx's error.
func (t *throttle) acquire(ctx context.Context, n int64) error {
	if t == nil || n <= 0 {
		return nil
	}
	t.mu.Lock()
	now := t.now()
	if floor := now.Add(-time.Second); t.next.Before(floor) {
		t.next = floor // at most a second of unused rate is kept
	}
	t.next = t.next.Add(time.Duration(float64(n) / t.rate * float64(time.Second)))
	wait := t.next.Sub(now)
	t.mu.Unlock()
	if wait < minThrottleSleep {
		return nil
	}
	return t.sleep(ctx, wait)
}

// cpuShare paces one compaction to a share of one core's time, a
// minicass addition to compaction_throughput: the throughput counts bytes
// as stored on disk, so a compaction of well-compressed data can run at
// the full speed of a core, far below the byte rate, and take half of a
// two-core machine from the foreground. After every working stretch of at
// least minShareStretch it sleeps long enough that the stretch is share of
// the stretch and the sleep together (the time the compaction waits for the
// byte throttle or is descheduled counts as working, so a busy machine
// slows it further). It measures wall-clock time, as the throttle.
type cpuShare struct {
	share float64
	start time.Time // when the current working stretch began

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// throttleBatch is how many scanned bytes a compaction gathers before it
// asks the throttle for them: asking per partition would read the clock
// and take the throttle's lock for every narrow partition. 64 KiB is a
// millisecond at the default 64 MiB/s.
const throttleBatch = 64 << 10

// minShareStretch is the shortest working stretch cpuShare pauses after:
// shorter ones are carried on, so that small partitions cost no timer.
const minShareStretch = 10 * time.Millisecond

// newCPUShare returns the pacer of one compaction at share of a core, or
// nil (no pacing) for a share of 0 or at least 1.
func newCPUShare(share float64) *cpuShare {
	if share <= 0 || share >= 1 {
		return nil
	}
	return &cpuShare{share: share, now: time.Now, sleep: sleepCtx}
}

// pace ends the current working stretch with a pause if it is long
// enough; the first call starts the first stretch. It returns early with
// ctx's error.
func (c *cpuShare) pace(ctx context.Context) error {
	if c == nil {
		return nil
	}
	now := c.now()
	if c.start.IsZero() {
		c.start = now
		return nil
	}
	worked := now.Sub(c.start)
	if worked < minShareStretch {
		return nil
	}
	rest := time.Duration(float64(worked) * (1 - c.share) / c.share)
	err := c.sleep(ctx, rest)
	c.start = c.now()
	return err
}

// newCPUShare returns the pacer of a compaction starting now
// (Options.CompactionCPUShare), nil when compactions are not paced so.
func (e *Engine) newCPUShare() *cpuShare {
	c := newCPUShare(e.opts.CompactionCPUShare)
	if c != nil && e.shareHook != nil {
		e.shareHook(c)
	}
	return c
}
