package statements

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/plan"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// poolQueries are SELECTs over table p of setupPooled, streamed and not,
// with the values each one is run with (k, then the LIMIT when it has one).
var poolQueries = []struct {
	query  string
	values func(k int) [][]byte
}{
	{"SELECT c, v FROM p WHERE k = ? ORDER BY c DESC LIMIT ?", func(k int) [][]byte { return [][]byte{int32Bytes(k), int32Bytes(7)} }},
	{"SELECT * FROM p WHERE k = ?", func(k int) [][]byte { return [][]byte{int32Bytes(k)} }},
	{"SELECT c, u, v FROM p WHERE k = ? LIMIT ?", func(k int) [][]byte { return [][]byte{int32Bytes(k), int32Bytes(3)} }},
	{"SELECT v, c FROM p WHERE k = ? AND v > 0x00 ALLOW FILTERING", func(k int) [][]byte { return [][]byte{int32Bytes(k)} }},
	{"SELECT k, c FROM p WHERE token(k) > ? LIMIT 20", func(int) [][]byte { return [][]byte{binary.BigEndian.AppendUint64(nil, 1<<63)} }},
	{"SELECT count(*), max(v) FROM p WHERE k = ?", func(k int) [][]byte { return [][]byte{int32Bytes(k)} }},
	{"SELECT c, v FROM p WHERE k IN (1, 2) ORDER BY c DESC", func(int) [][]byte { return nil }},
}

// poisonRuns fills the buffers of a few pooled runs with junk, which a run
// that read them before writing them would return or trip on.
func poisonRuns() {
	junk := []byte("junk-junk-junk")
	junkRow := &data.Row{Clustering: junk, Cells: []data.Cell{{Column: "v", Value: junk}}}
	var runs []*selectRun
	for range 4 {
		r := selectRuns.Get().(*selectRun)
		b := &r.runBuffers
		b.slice[0] = data.Slice{Start: junk, End: junk}
		b.key[0], b.comps[0], b.pk[0], b.pk[1] = junk, [][]byte{junk}, junk, junk
		b.sr = expr.SelRow{Pk: [][]byte{junk}, Ck: [][]byte{junk}, Static: junkRow, Row: junkRow, Now: 1}
		b.part = selPart{key: junk, static: junkRow, rows: []data.Row{*junkRow}, limit: 1, pos: 0}
		for i := range b.ckValsArr {
			b.ckValsArr[i] = junk
		}
		for i := range b.ckBufArr {
			b.ckBufArr[i], b.ckBytesArr[i] = 0xEE, 0xEE
		}
		runs = append(runs, r)
	}
	for _, r := range runs {
		selectRuns.Put(r)
	}
}

func int32Bytes(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// setupPooled returns a session with table p: text clustering values of
// varied lengths (some with zero bytes, which the clustering encoding
// escapes), a second uuid clustering column, and blob values.
func setupPooled(t *testing.T) *testSession {
	s := newTestSession(t, createKeyspace, "USE ks", "CREATE TABLE p (k int, c text, u uuid, v blob, PRIMARY KEY (k, c, u))")
	ctx := context.Background()
	for k := range 3 {
		for i := range 12 {
			c := fmt.Sprintf("'%s'", bytes.Repeat([]byte{byte('a' + i)}, 1+i*5))
			_, err := s.Query(ctx, fmt.Sprintf("INSERT INTO p (k, c, u, v) VALUES (%d, %s, 00000000-0000-0000-0000-%012d, 0x%x)", k, c, i, bytes.Repeat([]byte{byte(i + 1)}, i+k)), nil)
			require.NoError(t, err)
		}
		// A zero byte, which the clustering encoding escapes.
		_, err := s.Query(ctx, "INSERT INTO p (k, c, u, v) VALUES (?, ?, 00000000-0000-0000-0000-000000000099, 0x00)", &query.Params{Values: []query.Value{{Bytes: int32Bytes(k)}, {Bytes: []byte("a\x00b")}}})
		require.NoError(t, err)
	}
	return s
}

func runPooled(t testing.TB, s *testSession, i, k int, pageSize int, paging []byte) *query.Result {
	res, err := tryPooled(s, s.plan(t, poolQueries[i].query), i, k, pageSize, paging)
	require.NoError(t, err, poolQueries[i].query)
	return res
}

func tryPooled(s *testSession, pl plan.Plan, i, k int, pageSize int, paging []byte) (*query.Result, error) {
	var vals []query.Value
	for _, b := range poolQueries[i].values(k) {
		vals = append(vals, query.Value{Bytes: b})
	}
	return s.run(context.Background(), pl, &query.Params{Values: vals, PageSize: pageSize, PagingState: paging})
}

// generalPlan returns pl, a SELECT, with its fast paths off (see
// TestSelectFastMatchesGeneral): rows read whole, projected by evaluators.
func generalPlan(pl plan.Plan) plan.Plan {
	slow := *pl.(*selectPlan)
	slow.plainCols, slow.proj, slow.singlePK, slow.singlePrefix, slow.singleRow, slow.needCk, slow.stream, slow.ckInResult = nil, nil, false, false, false, true, false, false
	slow.direct, slow.fixedCk = false, nil
	return &slow
}

func cloneRows(rows [][][]byte) [][][]byte {
	out := make([][][]byte, len(rows))
	for i, r := range rows {
		out[i] = make([][]byte, len(r))
		for j, v := range r {
			if v != nil {
				out[i][j] = append([]byte{}, v...)
			}
		}
	}
	return out
}

// TestSelectResultsOutliveRuns checks that a SELECT's result owns what it
// holds although each execution's scratch is recycled (selectRun): each
// result is the one the general path gives (rows copied whole), even when
// the pooled runs' buffers hold junk from before (poisonRuns), and results
// kept while the same and other statements run again, with and without
// paging, are unchanged, and appending to a value read from the table never
// writes over another (values sharing a block are capped at their length).
func TestSelectResultsOutliveRuns(t *testing.T) {
	s := setupPooled(t)
	type kept struct {
		res  *query.Result
		want [][][]byte
		name string
	}
	var all []kept
	for i := range poolQueries {
		for _, pageSize := range []int{0, 2} {
			if pageSize > 0 && strings.Contains(poolQueries[i].query, " IN ") {
				continue // ORDER BY over an IN list cannot be paged
			}
			for k := range 3 {
				name := fmt.Sprintf("%s k=%d page=%d", poolQueries[i].query, k, pageSize)
				poisonRuns()
				res := runPooled(t, s, i, k, pageSize, nil)
				general, err := tryPooled(s, generalPlan(s.plan(t, poolQueries[i].query)), i, k, pageSize, nil)
				require.NoError(t, err)
				require.Equal(t, general.Rows, res.Rows, name)
				all = append(all, kept{res, cloneRows(res.Rows), name})
				if res.PagingState != nil {
					poisonRuns()
					next := runPooled(t, s, i, k, pageSize, res.PagingState)
					all = append(all, kept{next, cloneRows(next.Rows), name + ", page 2"})
				}
			}
		}
	}
	rows := 0
	for _, kp := range all {
		rows += len(kp.want)
	}
	require.Greater(t, rows, 100, "the statements return rows")
	for range 3 {
		for i := range poolQueries {
			for k := range 3 {
				runPooled(t, s, i, k, 0, nil)
				if !strings.Contains(poolQueries[i].query, " IN ") {
					runPooled(t, s, i, k, 3, nil)
				}
			}
		}
	}
	for _, kp := range all {
		require.Equal(t, kp.want, kp.res.Rows, kp.name)
		for _, row := range kp.res.Rows {
			for j, v := range row {
				if v == nil || kp.res.Columns[j].Name == "k" {
					continue // a key value is the bound value's bytes
				}
				_ = append(v, 0xEE) // writes into the spare capacity, if any
			}
		}
		require.Equal(t, kp.want, kp.res.Rows, "%s, after appending to each value", kp.name)
	}
}

// TestSelectConcurrentRuns runs the statements of poolQueries from several
// goroutines at once and checks that each gets the result it gets alone:
// executions share plans and the pool of run scratch, never a run. Run it
// with -race.
func TestSelectConcurrentRuns(t *testing.T) {
	s := setupPooled(t)
	want := make([][][][]byte, len(poolQueries)*3)
	for i := range poolQueries {
		for k := range 3 {
			want[i*3+k] = cloneRows(runPooled(t, s, i, k, 0, nil).Rows)
		}
	}
	plans := make([]plan.Plan, len(poolQueries))
	for i, q := range poolQueries {
		plans[i] = s.plan(t, q.query)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 60 {
				j := (g*7 + n) % len(want)
				res, err := tryPooled(s, plans[j/3], j/3, j%3, 0, nil)
				if err != nil {
					errs <- err
					return
				}
				if !assert.ObjectsAreEqual(want[j], res.Rows) {
					errs <- fmt.Errorf("%s k=%d: got %x, want %x", poolQueries[j/3].query, j%3, res.Rows, want[j])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
