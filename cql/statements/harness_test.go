package statements

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/minicass/minicass/cql/plan"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/auth"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/types"
)

// testEpoch is the start time of every test's manual clock.
var testEpoch = time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)

// testSession runs statements straight on an Env, as the executor does
// without its plan cache: the package's white-box tests compare a plan's
// fast paths with its general ones.
type testSession struct {
	env   *plan.Env
	uuids *types.TimeUUIDGenerator
	ks    string
}

func (s *testSession) User() string          { return "" }
func (s *testSession) Keyspace() string      { return s.ks }
func (s *testSession) SetKeyspace(ks string) { s.ks = ks }

// newTestSession returns a session on a fresh in-memory engine with a
// manual clock, after running setup.
func newTestSession(tb testing.TB, setup ...string) *testSession {
	eng, err := engine.Open(engine.Options{Clock: engine.NewManualClock(testEpoch)})
	require.NoError(tb, err)
	tb.Cleanup(func() { eng.Close() })
	node := virtual.NewNode(eng, "Test Cluster", "datacenter1", "rack1")
	require.NoError(tb, node.Bootstrap(context.Background()))
	s := &testSession{env: &plan.Env{Engine: eng, System: node}, uuids: types.NewTimeUUIDGenerator()}
	s.env.Roles = auth.New(node, s.Query)
	for _, q := range setup {
		_, err := s.Query(context.Background(), q, nil)
		require.NoError(tb, err, q)
	}
	return s
}

// plan compiles text in the session's keyspace.
func (s *testSession) plan(tb testing.TB, text string) plan.Plan {
	stmt, err := parser.Parse(text)
	require.NoError(tb, err, text)
	pl, _, err := Compile(s.env, stmt, s.ks)
	require.NoError(tb, err, text)
	// The statement's own plan, without its permission checks.
	pl, _ = unwrapAuthorized(pl)
	return pl
}

// Query parses, compiles and runs text.
func (s *testSession) Query(ctx context.Context, text string, p *query.Params) (*query.Result, error) {
	stmt, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	pl, _, err := Compile(s.env, stmt, s.ks)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, pl, p)
}

// run executes pl with p's values.
func (s *testSession) run(ctx context.Context, pl plan.Plan, p *query.Params) (*query.Result, error) {
	if p == nil {
		p = &query.Params{}
	}
	return pl.Exec(ctx, s.execution(p))
}

func (s *testSession) execution(p *query.Params) *plan.Execution {
	return &plan.Execution{Env: s.env, Session: s, Execution: query.Execution{Params: p, Values: p.Values, Now: s.env.Engine.Clock().Now(), UUIDs: s.uuids}}
}

const createKeyspace = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

// setupWide returns a session in keyspace ks with table w (k int, c int,
// v text) holding rows rows of partition 1.
func setupWide(tb testing.TB, rows int) *testSession {
	s := newTestSession(tb, createKeyspace, "USE ks", "CREATE TABLE w (k int, c int, v text, PRIMARY KEY (k, c))")
	for i := 0; i < rows; i++ {
		_, err := s.Query(context.Background(), fmt.Sprintf("INSERT INTO w (k, c, v) VALUES (1, %d, 'value')", i), nil)
		require.NoError(tb, err)
	}
	return s
}
