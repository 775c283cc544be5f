package cql

import (
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// TestCQLScripts runs the datadriven scripts under testdata/scripts: DDL,
// INSERT/UPDATE/DELETE semantics, collections, counters, TTL, BATCH and
// lightweight transactions, and the schemas and queries of the seed articles.
//
// Directives (as in TestSelectScripts):
//
//	exec [page=N]   runs each statement of the input; prints result rows,
//	                warnings, or the error as "code=2200 message=..."
//	clock advance=D advances the engine's clock by a Go duration
func TestCQLScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		s := newSelectTestSession(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec":
				page := 0
				if d.HasArg("page") {
					d.ScanArgs(t, "page", &page)
				}
				return runScript(t, s, d.Input, page)
			case "clock":
				var adv string
				d.ScanArgs(t, "advance", &adv)
				dur, err := time.ParseDuration(adv)
				require.NoError(t, err)
				advanceClock(s, dur)
				return ""
			}
			t.Fatalf("unknown directive %s", d.Cmd)
			return ""
		})
	})
}
