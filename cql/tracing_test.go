package cql

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
)

// TestTraceBounded adds far more events than a trace keeps, and longer ones
// than it keeps whole: the trace keeps query.MaxTraceEvents events, the last
// saying how many were left out, and RecordTrace writes it all (in chunks,
// never one mutation too large), where drivers read it back.
func TestTraceBounded(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	tr := query.NewTrace(func() time.Time { return testEpoch })
	long := strings.Repeat("x", 100_000)
	const n = 20_000
	for i := 0; i < n; i++ {
		tr.Add("event %d %s", i, long)
	}
	tr.Finish()
	require.Len(t, tr.Events, query.MaxTraceEvents)
	assert.Equal(t, n-query.MaxTraceEvents, tr.Dropped)
	assert.Equal(t, "... 19501 more events left out (a trace keeps at most 500)", tr.Events[len(tr.Events)-1].Activity)
	assert.True(t, strings.HasPrefix(tr.Events[0].Activity, "event 0 xxx"))
	assert.Less(t, len(tr.Events[0].Activity), 2100, "an activity is cut")
	assert.True(t, strings.HasSuffix(tr.Events[0].Activity, "..."))

	id, err := s.Executor().RecordTrace(ctx, TraceRequest{Command: "QUERY", Request: "Execute CQL3 query"}, tr)
	require.NoError(t, err)
	res, err := s.Query(ctx, "SELECT count(*) FROM system_traces.events WHERE session_id = "+id.String(), &query.Params{})
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0x01, 0xf4}, res.Rows[0][0], "500 events recorded")
}

// TestExecuteTraceParameters checks the bound values an EXECUTE's trace
// records, as Cassandra 4.1's ExecuteMessage.traceQuery writes them: a CQL
// literal per marker, named by its index and the marker's name, null for a
// null value, and a literal over 1,000 UTF-16 code units cut there (a
// character outside the BMP counting two) and closed with "...'".
func TestExecuteTraceParameters(t *testing.T) {
	s := newSelectTestSession(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.tp (k int PRIMARY KEY, t text, m map<int, text>)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	prep, err := s.Prepare(ctx, "SELECT * FROM ks.tp WHERE k = ? AND t = ? AND m CONTAINS KEY ? ALLOW FILTERING")
	require.NoError(t, err)
	long := strings.Repeat("😀", 600) // 1,200 UTF-16 code units
	p := &query.Params{PageSize: 10, Values: []query.Value{{Bytes: []byte{0, 0, 0, 7}}, {Bytes: []byte(long)}, {}}}
	got := ExecuteTraceParameters(prep, p)
	assert.Equal(t, map[string]string{
		"query":                    prep.Query,
		"page_size":                "10",
		"consistency_level":        "ANY",
		"serial_consistency_level": "SERIAL",
		"bound_var_0_k":            "7",
		"bound_var_1_t":            "'" + strings.Repeat("😀", 499) + "...'",
		"bound_var_2_key(m)":       "null",
	}, got)
	assert.Equal(t, map[string]string{"query": prep.Query}, ExecuteTraceParameters(prep, nil))
}
