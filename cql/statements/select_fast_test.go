package statements

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/minicass/minicass/cql/query"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func selectPlanOf(t testing.TB, s *testSession, query string) *selectPlan {
	return s.plan(t, query).(*selectPlan)
}

// TestSelectPlanFlags checks which SELECTs take the fast paths.
func TestSelectPlanFlags(t *testing.T) {
	s := setupWide(t, 1)
	_, err := s.Query(context.Background(), "CREATE TABLE m (k1 int, k2 int, c1 int, c2 int, v int, s int static, PRIMARY KEY ((k1, k2), c1, c2))", nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		query                                    string
		plain, singlePK, singlePrefix, singleRow bool
		needCk, stream, ckInResult               bool
	}{
		{"SELECT v FROM w WHERE k = ? AND c = ?", true, true, true, true, false, true, true},
		{"SELECT c, v FROM w WHERE k = ? ORDER BY c DESC LIMIT 10", true, true, false, false, true, true, true},
		{"SELECT * FROM w WHERE k IN (1, 2) AND c = 3", true, false, true, false, true, true, true},
		{"SELECT v FROM w WHERE k = ? AND c IN (1, 2)", true, true, false, false, false, true, true},
		{"SELECT v FROM w WHERE k = ? AND c > 3", true, true, false, false, false, true, true},
		{"SELECT count(*) FROM w WHERE k = ?", false, true, false, false, true, false, false},
		{"SELECT JSON v FROM w WHERE k = ?", false, true, false, false, true, false, false},
		{"SELECT writetime(v) FROM w WHERE k = ?", false, true, false, false, true, false, false},
		{"SELECT v FROM w WHERE k = ? AND v = 'x' ALLOW FILTERING", true, true, false, false, true, true, false},
		{"SELECT v FROM m WHERE k1 = ? AND k2 = ? AND c1 = ? AND c2 = ?", true, true, true, true, false, true, true},
		{"SELECT v FROM m WHERE k1 = ? AND k2 = ? AND c1 = ?", true, true, true, false, false, true, true},
		{"SELECT v FROM m WHERE k1 = ? AND k2 IN (1, 2)", true, false, false, false, false, true, true},
		{"SELECT v FROM m WHERE token(k1, k2) > 0", true, false, false, false, false, true, true},
		{"SELECT DISTINCT k FROM w", true, false, false, false, false, false, false},
		{"SELECT c, v FROM w WHERE k IN (1, 2) ORDER BY c DESC", true, false, false, false, true, false, false},
	} {
		p := selectPlanOf(t, s, tc.query)
		assert.Equal(t, tc.plain, p.plainCols != nil, "plain: %s", tc.query)
		assert.Equal(t, tc.singlePK, p.singlePK, "singlePK: %s", tc.query)
		assert.Equal(t, tc.singlePrefix, p.singlePrefix, "singlePrefix: %s", tc.query)
		assert.Equal(t, tc.singleRow, p.singleRow, "singleRow: %s", tc.query)
		assert.Equal(t, tc.needCk, p.needCk, "needCk: %s", tc.query)
		assert.Equal(t, tc.stream, p.stream, "stream: %s", tc.query)
		assert.Equal(t, tc.ckInResult, p.ckInResult, "ckInResult: %s", tc.query)
	}
}

// TestSelectFastMatchesGeneral is a property test: with random bound
// values (valid, null, unset, malformed) and page sizes, every SELECT gives
// the same result, or the same error, with its fast paths as with the
// general ones (evaluators, sorted key and prefix combinations, decoded
// clustering values). rapid prints the seed of a failing run.
func TestSelectFastMatchesGeneral(t *testing.T) {
	s := setupWide(t, 0)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE m (k1 int, k2 text, c1 int, c2 int, v text, s int static, PRIMARY KEY ((k1, k2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)",
	} {
		_, err := s.Query(ctx, q, nil)
		require.NoError(t, err, q)
	}
	for k := range 3 {
		for c := range 6 {
			_, err := s.Query(ctx, fmt.Sprintf("INSERT INTO w (k, c, v) VALUES (%d, %d, 'v%d')", k, c, c), nil)
			require.NoError(t, err)
			_, err = s.Query(ctx, fmt.Sprintf("INSERT INTO m (k1, k2, c1, c2, v, s) VALUES (%d, 'a', %d, %d, 'x%d', %d)", k, c%3, c, c, k), nil)
			require.NoError(t, err)
		}
	}
	_, err := s.Query(ctx, "INSERT INTO m (k1, k2, s) VALUES (9, 'a', 1)", nil)
	require.NoError(t, err)
	queries := []string{
		"SELECT v FROM w WHERE k = ? AND c = ?",
		"SELECT c, v FROM w WHERE k = ? ORDER BY c DESC LIMIT ?",
		"SELECT * FROM w WHERE k = ? LIMIT ?",
		"SELECT v FROM w WHERE k = ?",
		"SELECT k, v FROM w WHERE k = ? AND c >= ?",
		"SELECT v, c2 FROM m WHERE k1 = ? AND k2 = ? AND c1 = ? AND c2 = ?",
		"SELECT v, s FROM m WHERE k1 = ? AND k2 = ? AND c1 = ?",
		"SELECT * FROM m WHERE k1 = ? AND k2 = ?",
		"SELECT s, v FROM m WHERE k1 = ? AND k2 = ? LIMIT ?",
		"SELECT k2, c2, k1, c1, v FROM m WHERE k1 = ? AND k2 = ? LIMIT ?",
		"SELECT c, v FROM w WHERE k IN (0, 1, 2) PER PARTITION LIMIT 2",
		"SELECT k, c, v FROM w WHERE token(k) > ? LIMIT ?",
	}
	plans := make([]*selectPlan, len(queries))
	for i, q := range queries {
		plans[i] = selectPlanOf(t, s, q)
	}
	// The one-pass copy and the fixed-width clustering decoder are among
	// the fast paths compared.
	require.True(t, plans[1].direct && plans[1].fixedCk != nil, queries[1])
	require.True(t, plans[9].direct && plans[9].fixedCk != nil, queries[9])
	require.False(t, plans[6].direct, queries[6]) // a static column
	rows := 0
	rapid.Check(t, func(rt *rapid.T) {
		i := rapid.IntRange(0, len(queries)-1).Draw(rt, "query")
		fast := plans[i]
		slow := *fast
		slow.plainCols, slow.proj, slow.singlePK, slow.singlePrefix, slow.singleRow, slow.needCk, slow.stream, slow.ckInResult = nil, nil, false, false, false, true, false, false
		slow.direct, slow.fixedCk = false, nil
		values := make([]query.Value, len(fast.bspec))
		for j, spec := range fast.bspec {
			switch rapid.IntRange(0, 29).Draw(rt, spec.Name+" kind") {
			case 0:
				values[j] = query.Value{}
			case 1:
				values[j] = query.Value{Unset: true}
			case 2:
				values[j] = query.Value{Bytes: rapid.SliceOfN(rapid.Byte(), 0, 5).Draw(rt, spec.Name+" bytes")}
			default:
				if spec.Type.String() == "text" {
					values[j] = query.Value{Bytes: []byte(rapid.SampledFrom([]string{"a", "a", "b", ""}).Draw(rt, spec.Name))}
				} else {
					values[j] = query.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(rapid.IntRange(0, 5).Draw(rt, spec.Name)))}
				}
			}
		}
		params := &query.Params{Values: values, PageSize: rapid.IntRange(0, 4).Draw(rt, "page size")}
		got, gotErr := s.run(ctx, fast, params)
		want, wantErr := s.run(ctx, &slow, params)
		if wantErr != nil {
			require.Error(rt, gotErr, queries[i])
			assert.Equal(rt, wantErr.Error(), gotErr.Error(), queries[i])
			return
		}
		require.NoError(rt, gotErr, queries[i])
		assert.Equal(rt, want, got, queries[i])
		rows += len(got.Rows)
	})
	assert.Positive(t, rows, "some queries return rows")
	t.Logf("%d rows compared", rows)
}
