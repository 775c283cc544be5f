package cql

import (
	"testing"
	"time"

	"github.com/minicass/minicass/engine"
	"github.com/stretchr/testify/require"
)

// testEpoch is the start time of every test's manual clock.
var testEpoch = time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)

// newSelectTestSession returns a session on a fresh in-memory engine whose
// clock the test drives with advanceClock.
func newSelectTestSession(t testing.TB) *Session {
	eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return NewExecutor(eng, Options{}).NewSession()
}

func advanceClock(s *Session, d time.Duration) {
	s.x.env.Engine.Clock().(*engine.ManualClock).Advance(d)
}
