package server

import (
	"sync"
	"time"
)

// Failed logins. Cassandra answers a failed login at once, so a client may
// guess passwords as fast as bcrypt lets the node check them. minicass
// answers a failed login after a delay that doubles with each further
// failure from the same address within loginFailureWindow, up to
// maxLoginDelayFactor times Options.FailedLoginDelay; a successful login
// from the address forgets its failures (docs/compatibility.md).

const (
	loginFailureWindow  = time.Minute
	maxLoginDelayFactor = 16
	// maxLoginAddresses bounds the addresses remembered: past it the
	// oldest half is forgotten.
	maxLoginAddresses = 10_000
)

// loginThrottle remembers recent failed logins per client address.
type loginThrottle struct {
	base  time.Duration // <= 0: no delay
	mu    sync.Mutex
	fails map[string]loginFailures
}

type loginFailures struct {
	n    int
	last time.Time
}

func newLoginThrottle(base time.Duration) *loginThrottle {
	return &loginThrottle{base: base, fails: make(map[string]loginFailures)}
}

// failed records a failed login from ip at now and returns how long to wait
// before answering it.
func (t *loginThrottle) failed(ip string, now time.Time) time.Duration {
	if t.base <= 0 {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.fails[ip]
	if now.Sub(f.last) > loginFailureWindow {
		f.n = 0
	}
	f.n++
	f.last = now
	if _, ok := t.fails[ip]; !ok && len(t.fails) >= maxLoginAddresses {
		t.forgetOldest(now)
	}
	t.fails[ip] = f
	factor := 1 << min(f.n-1, 4) // 1, 2, 4, 8, 16
	return t.base * time.Duration(min(factor, maxLoginDelayFactor))
}

// succeeded forgets the failures of ip.
func (t *loginThrottle) succeeded(ip string) {
	if t.base <= 0 {
		return
	}
	t.mu.Lock()
	delete(t.fails, ip)
	t.mu.Unlock()
}

// forgetOldest drops the entries past the window, and if that is not
// enough, half of the others. The caller holds mu.
func (t *loginThrottle) forgetOldest(now time.Time) {
	for ip, f := range t.fails {
		if now.Sub(f.last) > loginFailureWindow {
			delete(t.fails, ip)
		}
	}
	for ip := range t.fails {
		if len(t.fails) < maxLoginAddresses/2 {
			break
		}
		delete(t.fails, ip)
	}
}
