package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestLoginThrottle: a failed login waits the base delay, doubling per
// further failure from the same address within a minute up to 16 times; a
// success or a minute without failure forgets them; other addresses are not
// affected; a negative base never delays.
func TestLoginThrottle(t *testing.T) {
	now := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	lt := newLoginThrottle(100 * time.Millisecond)
	var got []time.Duration
	for i := range 7 {
		got = append(got, lt.failed("10.0.0.1", now.Add(time.Duration(i)*time.Second)))
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 1600 * ms, 1600 * ms}, got)
	assert.Equal(t, 100*ms, lt.failed("10.0.0.2", now), "another address starts afresh")
	lt.succeeded("10.0.0.1")
	assert.Equal(t, 100*ms, lt.failed("10.0.0.1", now.Add(10*time.Second)), "a success forgets the failures")
	assert.Equal(t, 200*ms, lt.failed("10.0.0.1", now.Add(20*time.Second)))
	assert.Equal(t, 100*ms, lt.failed("10.0.0.1", now.Add(2*time.Minute)), "a minute without failure forgets them")

	off := newLoginThrottle(-1)
	assert.Zero(t, off.failed("10.0.0.1", now))

	many := newLoginThrottle(ms)
	for i := range maxLoginAddresses + 10 {
		many.failed(string(rune(i)), now)
	}
	assert.LessOrEqual(t, len(many.fails), maxLoginAddresses, "the addresses remembered are bounded")
}
