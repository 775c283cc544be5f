package cql

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/wire"
)

// FuzzRoles runs role and permission statements as a logged-in superuser
// and then as the role they may have created, on a node with password
// authentication: no input may panic (not even a panic the executor
// recovers, see fuzzFailure) or give an error other than a typed *Error,
// and every login attempt either passes or gives a Bad credentials error.
// The seeds are the statements of testdata/scripts/roles.
func FuzzRoles(f *testing.F) {
	b, err := os.ReadFile("testdata/scripts/roles")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		for _, kw := range []string{"CREATE ROLE", "CREATE USER", "ALTER", "DROP", "GRANT", "REVOKE", "LIST"} {
			if strings.HasPrefix(strings.ToUpper(line), kw) {
				f.Add(line, "alice")
				break
			}
		}
	}
	f.Fuzz(func(t *testing.T, input, login string) {
		eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		var log bytes.Buffer
		x := NewExecutor(eng, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		ctx := context.Background()
		if err := x.EnableAuthentication(ctx, AuthOptions{Superusers: map[string]string{"cassandra": "cassandra"}, LogRounds: 4}); err != nil {
			t.Fatal(err)
		}
		run := func(s *Session) {
			stmts, _ := parser.SplitStatements(input)
			for _, q := range stmts {
				if _, err := s.Query(ctx, q, nil); err != nil {
					if msg := fuzzFailure(err); msg != "" {
						t.Fatalf("%q: %s\n%s", q, msg, log.String())
					}
				}
			}
		}
		run(x.NewUserSession("cassandra"))
		// The password of a role the input made, if any, is unknown: a
		// login either passes or is refused as bad credentials.
		if err := x.Authenticate(ctx, login, "a"); err != nil {
			var e *query.Error
			if !errors.As(err, &e) || e.Code != wire.CodeBadCredentials {
				t.Fatalf("login %q: %v", login, err)
			}
			return
		}
		run(x.NewUserSession(login))
	})
}
