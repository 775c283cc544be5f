package cql

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// TestCQLScripts runs the datadriven scripts under testdata/scripts: DDL,
// INSERT/UPDATE/DELETE semantics, collections, counters, TTL, BATCH and
// lightweight transactions, and the schemas and queries of the seed articles.
func TestCQLScripts(t *testing.T) { runScripts(t, "testdata/scripts") }

// runScripts runs every datadriven script under dir, each on a fresh engine
// whose clock starts at testEpoch. Directives:
//
//	exec [page=N]   runs each statement of the input; prints result rows (all
//	                pages concatenated when page=N, with the number of pages),
//	                warnings, or the error as "code=2200 message=..."
//	clock advance=D advances the engine's clock by a Go duration
//	flush           flushes every table's memtable to an SSTable
func runScripts(t *testing.T, dir string) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		s := newSelectTestSession(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec":
				page := 0
				if d.HasArg("page") {
					d.ScanArgs(t, "page", &page)
				}
				return runScript(t, s, d.Input, page)
			case "flush":
				require.NoError(t, s.x.eng.Flush(context.Background(), "", ""))
				return ""
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
