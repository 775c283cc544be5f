package cql

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
)

// fuzzSchema is the schema every FuzzExecute input runs against: tables with
// clustering, statics, collections, counters, user types and an index.
var fuzzSchema = []string{
	"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
	"USE ks",
	"CREATE TYPE address (street text, zip int)",
	"CREATE TABLE t (k int, c int, s text STATIC, v text, m map<text, int>, l list<int>, st set<int>, a address, fa frozen<address>, PRIMARY KEY (k, c))",
	"CREATE TABLE n (k int PRIMARY KEY, hits counter)",
	"CREATE INDEX ON t (v)",
	"INSERT INTO t (k, c, s, v, m, l, st, a) VALUES (1, 1, 's', 'v', {'x': 1}, [1, 2], {3}, {street: 'main', zip: 1})",
}

// FuzzExecute runs arbitrary CQL against a session: every statement either
// succeeds or fails with a typed *Error (a Cassandra error code), and
// nothing panics, not even a panic the executor recovers (fuzzFailure); a
// failure prints the log, which holds the panic's stack. The corpus starts from the statements of the script tests.
func FuzzExecute(f *testing.F) {
	// Every third statement line of the scripts: enough shapes to start
	// from, few enough to run as a plain test in a few seconds.
	files, _ := filepath.Glob("testdata/scripts/*")
	n := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			up := strings.ToUpper(line)
			if strings.HasPrefix(up, "SELECT") || strings.HasPrefix(up, "INSERT") || strings.HasPrefix(up, "UPDATE") ||
				strings.HasPrefix(up, "DELETE") || strings.HasPrefix(up, "CREATE") || strings.HasPrefix(up, "ALTER") {
				if n++; n%3 == 0 {
					f.Add(line)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, input string) {
		eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		var log bytes.Buffer
		s := NewExecutor(eng, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).NewSession()
		ctx := context.Background()
		for _, q := range fuzzSchema {
			if _, err := s.Query(ctx, q, nil); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		stmts, _ := parser.SplitStatements(input)
		for _, q := range stmts {
			if _, err := s.Query(ctx, q, &query.Params{PageSize: 2}); err != nil {
				if msg := fuzzFailure(err); msg != "" {
					t.Fatalf("%q: %s\n%s", q, msg, log.String())
				}
			}
		}
	})
}
