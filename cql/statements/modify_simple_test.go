package statements

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// simpleSession returns a session with tables covering single and composite
// keys, descending clustering, several regular columns and a static column.
func simpleSession(t testing.TB) *testSession {
	return newTestSession(t, createKeyspace, "USE ks",
		"CREATE TABLE t (k int, c text, v blob, w int, f frozen<list<int>>, PRIMARY KEY (k, c))",
		"CREATE TABLE u (k1 int, k2 text, c1 int, c2 bigint, v text, s int static, PRIMARY KEY ((k1, k2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)",
		"CREATE TABLE n (k int PRIMARY KEY, v int, l list<int>)",
		"CREATE TABLE cnt (k int PRIMARY KEY, n counter)")
}

func modPlanOf(t testing.TB, s *testSession, query string) *modPlan {
	return s.plan(t, query).(*modPlan)
}

// TestPlanSimple checks which statements take the single-row path.
func TestPlanSimple(t *testing.T) {
	s := simpleSession(t)
	for _, tc := range []struct {
		query  string
		simple bool
	}{
		{"INSERT INTO t (k, c, v) VALUES (?, ?, ?)", true},
		{"INSERT INTO t (v, c, k, w) VALUES (?, 'x', 1, ?) USING TTL 10", true},
		{"INSERT INTO t (k, c, f) VALUES (1, 'a', [1, 2])", true},
		{"UPDATE t SET w = ?, v = ? WHERE k = ? AND c = ?", true},
		{"INSERT INTO u (k1, k2, c1, c2, v) VALUES (?, ?, ?, ?, ?)", true},
		{"INSERT INTO n (k, v) VALUES (?, ?)", true},
		{"INSERT INTO t (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS", false},
		{"UPDATE t SET w = ? WHERE k IN (1, 2) AND c = ?", false},
		{"UPDATE t SET w = ? WHERE k = ? AND c IN ?", false},
		{"INSERT INTO u (k1, k2, c1, c2, v, s) VALUES (?, ?, ?, ?, ?, ?)", false},
		{"INSERT INTO n (k, l) VALUES (?, ?)", false},
		{"UPDATE cnt SET n = n + 1 WHERE k = ?", false},
		{"DELETE w FROM t WHERE k = ? AND c = ?", false},
	} {
		assert.Equal(t, tc.simple, modPlanOf(t, s, tc.query).simple, tc.query)
	}
}

// TestSimpleMutationMatchesGeneral is a property test: for random bound
// values (valid, null, unset, malformed), the single-row path builds the
// same mutation as the general path, or fails with the same error. rapid
// prints the seed of a failing run.
func TestSimpleMutationMatchesGeneral(t *testing.T) {
	s := simpleSession(t)
	queries := []string{
		"INSERT INTO t (k, c, v) VALUES (?, ?, ?)",
		"INSERT INTO t (w, v, c, k) VALUES (?, ?, ?, ?) USING TTL ?",
		"UPDATE t USING TIMESTAMP ? SET w = ?, v = ? WHERE k = ? AND c = ?",
		"INSERT INTO u (v, k1, k2, c1, c2) VALUES (?, ?, ?, ?, ?)",
		"UPDATE u SET v = ? WHERE k1 = ? AND k2 = ? AND c1 = ? AND c2 = ?",
		"INSERT INTO n (k, v) VALUES (?, ?)",
	}
	plans := make([]*modPlan, len(queries))
	for i, q := range queries {
		plans[i] = modPlanOf(t, s, q)
		require.True(t, plans[i].simple, q)
	}
	rapid.Check(t, func(rt *rapid.T) {
		i := rapid.IntRange(0, len(queries)-1).Draw(rt, "query")
		p := plans[i]
		values := make([]query.Value, len(p.specs))
		for j, spec := range p.specs {
			values[j] = drawValue(rt, spec.Type.String(), spec.Name)
		}
		q := s.execution(&query.Params{Values: values, Timestamp: 42, HasTimestamp: true})
		q.Now = testEpoch
		wc, err := p.WriteContext(q)
		if err != nil {
			return
		}
		ctx := context.Background()
		fast, fastErr := p.Mutations(ctx, q, wc)
		p.simple = false
		slow, slowErr := p.Mutations(ctx, q, wc)
		p.simple = true
		if slowErr != nil {
			require.Error(rt, fastErr, queries[i])
			assert.Equal(rt, slowErr.Error(), fastErr.Error(), queries[i])
			return
		}
		require.NoError(rt, fastErr, queries[i])
		assert.Equal(rt, slow, fast, queries[i])
	})
}

// drawValue draws a bound value for a marker of type typ: usually valid,
// sometimes null, unset, empty or malformed.
func drawValue(rt *rapid.T, typ, name string) query.Value {
	kinds := 9
	if name == "[ttl]" || name == "[timestamp]" {
		// An empty or malformed TTL or timestamp fails before any
		// mutation is built (a server error, as Cassandra's
		// NullPointerException on an empty one).
		kinds = 1
		if rapid.Bool().Draw(rt, name+" set") {
			return query.Value{Bytes: binary.BigEndian.AppendUint64(nil, uint64(rapid.Int64Range(0, 1<<40).Draw(rt, name)))[8-typeWidth(typ):]}
		}
	}
	switch rapid.IntRange(0, kinds).Draw(rt, name+" kind") {
	case 0:
		return query.Value{}
	case 1:
		return query.Value{Unset: true}
	case 2:
		return query.Value{Bytes: []byte{}}
	case 3:
		return query.Value{Bytes: rapid.SliceOfN(rapid.Byte(), 0, 9).Draw(rt, name+" bytes")}
	}
	switch typ {
	case "int":
		return query.Value{Bytes: binary.BigEndian.AppendUint32(nil, rapid.Uint32().Draw(rt, name))}
	case "bigint":
		return query.Value{Bytes: binary.BigEndian.AppendUint64(nil, rapid.Uint64().Draw(rt, name))}
	case "text":
		return query.Value{Bytes: []byte(rapid.StringN(0, 6, -1).Draw(rt, name))}
	}
	return query.Value{Bytes: rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(rt, name)}
}

func typeWidth(typ string) int {
	if typ == "int" {
		return 4
	}
	return 8
}
