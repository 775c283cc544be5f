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
