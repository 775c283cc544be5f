package cql

import (
	"testing"
	"time"

	"github.com/minicass/minicass/engine"
)

// newSelectTestSession returns a session on a fresh in-memory engine.
func newSelectTestSession(t testing.TB) *Session {
	eng := engine.Open()
	return NewExecutor(eng, Options{}).NewSession()
}

func advanceClock(s *Session, d time.Duration) { s.x.eng.Clock().Advance(d) }
