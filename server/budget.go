package server

import (
	"context"
	"sync"
)

// budget is a byte budget shared by concurrent users, as Cassandra's
// ResourceLimits.Concurrent: acquire reserves bytes, waiting while the
// budget is spent, and release gives them back. Waiters are served in
// order of arrival, so a large request is not starved by small ones.
//
// A reservation larger than the whole budget is clamped to the budget: it
// waits until nothing else is reserved, then takes it all. (A frame larger
// than the budget is refused earlier, by MaxFrameSize; the clamp only
// guarantees that acquire can never wait forever on an idle budget.)
type budget struct {
	limit int64

	mu      sync.Mutex
	used    int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once the bytes are granted
}

func newBudget(limit int64) *budget { return &budget{limit: limit} }

// clamp returns the amount acquire(n) actually reserves.
func (b *budget) clamp(n int64) int64 {
	if n > b.limit {
		return b.limit
	}
	return n
}

// tryAcquire reserves n bytes if they are free and nobody waits.
func (b *budget) tryAcquire(n int64) bool {
	n = b.clamp(n)
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) == 0 && b.used+n <= b.limit {
		b.used += n
		return true
	}
	return false
}

// acquire reserves n bytes, waiting until they are free or ctx ends. It
// returns ctx's error in the latter case, with nothing reserved.
func (b *budget) acquire(ctx context.Context, n int64) error {
	n = b.clamp(n)
	b.mu.Lock()
	if len(b.waiters) == 0 && b.used+n <= b.limit {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Granted meanwhile: give it back.
			b.used -= n
		default:
			for i, o := range b.waiters {
				if o == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
		}
		b.grantLocked()
		b.mu.Unlock()
		return ctx.Err()
	}
}

// release returns n bytes reserved by acquire(n) (n as passed to acquire).
func (b *budget) release(n int64) {
	n = b.clamp(n)
	b.mu.Lock()
	b.used -= n
	b.grantLocked()
	b.mu.Unlock()
}

// grantLocked wakes the waiters at the head of the queue that now fit.
func (b *budget) grantLocked() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if b.used+w.n > b.limit {
			return
		}
		b.used += w.n
		close(w.ready)
		b.waiters[0] = nil
		b.waiters = b.waiters[1:]
	}
}

// inUse returns the bytes reserved.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
