package cql

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/minicass/minicass/cql/query"

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
//	views           enables materialized views (materialized_views_enabled)
//	compact-tables-disabled
//	                turns the compact_tables guardrail off
//	drop-compact-storage-enabled
//	                allows DROP COMPACT STORAGE (drop_compact_storage_enabled)
//	default-keyspace-rf rf=N
//	                sets default_keyspace_rf to N
//	auth superuser=U password=P [authorizer=A]
//	                enables password authentication with superuser U
//	                (bcrypt cost 4) and authorizer A (default
//	                AllowAllAuthorizer)
//	login [user=U password=P]
//	                checks the credentials and, if they pass, runs the next
//	                statements as U (the anonymous user without arguments);
//	                prints "ok" or the error
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
				require.NoError(t, s.x.env.Engine.Flush(context.Background(), "", ""))
				return ""
			case "views":
				s.x.env.MaterializedViewsEnabled = true
				return ""
			case "compact-tables-disabled":
				s.x.env.CompactTablesDisabled = true
				return ""
			case "drop-compact-storage-enabled":
				s.x.env.DropCompactStorageEnabled = true
				return ""
			case "default-keyspace-rf":
				d.ScanArgs(t, "rf", &s.x.env.DefaultKeyspaceRF)
				return ""
			case "auth":
				var user, pw string
				d.ScanArgs(t, "superuser", &user)
				d.ScanArgs(t, "password", &pw)
				var authorizer string
				if d.HasArg("authorizer") {
					d.ScanArgs(t, "authorizer", &authorizer)
				}
				require.NoError(t, s.x.EnableAuthentication(context.Background(), AuthOptions{Superusers: map[string]string{user: pw}, LogRounds: 4, Authorizer: authorizer}))
				return ""
			case "login":
				var user, pw string
				if d.HasArg("user") {
					d.ScanArgs(t, "user", &user)
					d.ScanArgs(t, "password", &pw)
					if err := s.x.Authenticate(context.Background(), user, pw); err != nil {
						e := query.AsError(err)
						return fmt.Sprintf("code=%04x message=%s\n", int32(e.Code), e.Message)
					}
				}
				ks := s.Keyspace()
				s = s.x.NewUserSession(user)
				s.SetKeyspace(ks)
				return "ok\n"
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
