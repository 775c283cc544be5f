package cql

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/types"
	"github.com/stretchr/testify/require"
)

// TestSelectRandom compares random SELECTs (slices, IN, multi-column
// slices, reverse order, limits, paging) on random data with a naive
// evaluation over all rows. The seed is printed; rerun one with
// -run TestSelectRandom and SELECT_SEED.
func TestSelectRandom(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for round := 0; round < 4; round++ {
		s := newSelectTestSession(t)
		ctx := context.Background()
		descA, descB := rng.Intn(2) == 1, rng.Intn(2) == 1
		ord := func(d bool) string {
			if d {
				return "DESC"
			}
			return "ASC"
		}
		for _, q := range []string{
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"USE ks",
			fmt.Sprintf("CREATE TABLE t (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (a %s, b %s)", ord(descA), ord(descB)),
		} {
			_, err := s.Query(ctx, q, nil)
			require.NoError(t, err, q)
		}
		type row struct{ k, a, b, v int }
		model := map[[3]int]row{}
		for i := 0; i < 60; i++ {
			r := row{rng.Intn(4), rng.Intn(5), rng.Intn(5), rng.Intn(100)}
			model[[3]int{r.k, r.a, r.b}] = r
			_, err := s.Query(ctx, fmt.Sprintf("INSERT INTO t (k, a, b, v) VALUES (%d, %d, %d, %d)", r.k, r.a, r.b, r.v), nil)
			require.NoError(t, err)
		}
		var all []row
		for _, r := range model {
			all = append(all, r)
		}
		tokenOf := func(k int) int64 {
			b, _ := types.FromConstant(types.IntType, types.ConstInteger, fmt.Sprint(k))
			return int64(partitioner.Murmur3(b))
		}
		cmpCk := func(x, y row) int {
			c := x.a - y.a
			if descA {
				c = -c
			}
			if c != 0 {
				return c
			}
			c = x.b - y.b
			if descB {
				c = -c
			}
			return c
		}
		for qi := 0; qi < 60; qi++ {
			var where []string
			var keys []int // nil: scan
			eqKey := false
			keyOK := func(int) bool { return true }
			switch rng.Intn(3) {
			case 1:
				k := rng.Intn(4)
				keys, eqKey = []int{k}, true
				where = append(where, fmt.Sprintf("k = %d", k))
			case 2:
				ks := []string{}
				set := map[int]bool{}
				for n := rng.Intn(3) + 1; n > 0; n-- {
					k := rng.Intn(5)
					ks = append(ks, fmt.Sprint(k))
					set[k] = true
				}
				for k := range set {
					keys = append(keys, k)
				}
				sort.Ints(keys)
				where = append(where, "k IN ("+strings.Join(ks, ", ")+")")
			}
			if keys != nil {
				set := map[int]bool{}
				for _, k := range keys {
					set[k] = true
				}
				keyOK = func(k int) bool { return set[k] }
			}
			ckOK := func(row) bool { return true }
			x, y, x2, y2 := rng.Intn(5), rng.Intn(5), rng.Intn(5), rng.Intn(5)
			switch rng.Intn(6) {
			case 1:
				where = append(where, fmt.Sprintf("a = %d", x))
				ckOK = func(r row) bool { return r.a == x }
			case 2:
				where = append(where, fmt.Sprintf("a IN (%d, %d)", x, x2))
				ckOK = func(r row) bool { return r.a == x || r.a == x2 }
			case 3:
				where = append(where, fmt.Sprintf("a = %d AND b < %d", x, y))
				ckOK = func(r row) bool { return r.a == x && r.b < y }
			case 4:
				where = append(where, fmt.Sprintf("(a, b) > (%d, %d)", x, y))
				ckOK = func(r row) bool { return r.a > x || (r.a == x && r.b > y) }
			case 5:
				where = append(where, fmt.Sprintf("(a, b) >= (%d, %d) AND (a, b) <= (%d, %d)", x, y, x2, y2))
				ckOK = func(r row) bool {
					ge := r.a > x || (r.a == x && r.b >= y)
					le := r.a < x2 || (r.a == x2 && r.b <= y2)
					return ge && le
				}
			}
			reverse := eqKey && rng.Intn(2) == 1
			limit, ppl := 0, 0
			if rng.Intn(3) == 0 {
				limit = rng.Intn(6) + 1
			}
			if rng.Intn(3) == 0 {
				ppl = rng.Intn(3) + 1
			}
			page := rng.Intn(5)
			q := "SELECT k, a, b, v FROM t"
			if len(where) > 0 {
				q += " WHERE " + strings.Join(where, " AND ")
			}
			if reverse {
				if descA {
					q += " ORDER BY a ASC"
				} else {
					q += " ORDER BY a DESC"
				}
			}
			if ppl > 0 {
				q += fmt.Sprintf(" PER PARTITION LIMIT %d", ppl)
			}
			if limit > 0 {
				q += fmt.Sprintf(" LIMIT %d", limit)
			}
			if keys == nil {
				q += " ALLOW FILTERING"
			}
			// Reference evaluation.
			var want []row
			for _, r := range all {
				if keyOK(r.k) && ckOK(r) {
					want = append(want, r)
				}
			}
			sort.Slice(want, func(i, j int) bool {
				if want[i].k != want[j].k {
					if keys != nil {
						return want[i].k < want[j].k
					}
					return tokenOf(want[i].k) < tokenOf(want[j].k)
				}
				c := cmpCk(want[i], want[j])
				if reverse {
					c = -c
				}
				return c < 0
			})
			if ppl > 0 {
				var kept []row
				n, last := 0, -1
				for _, r := range want {
					if r.k != last {
						n, last = 0, r.k
					}
					if n < ppl {
						kept = append(kept, r)
					}
					n++
				}
				want = kept
			}
			if limit > 0 && len(want) > limit {
				want = want[:limit]
			}
			res, _, err := queryAllPages(s, q, page)
			require.NoError(t, err, "seed %d: %s", seed, q)
			got := make([]row, len(res.Rows))
			for i, rr := range res.Rows {
				vals := make([]int, 4)
				for j := range vals {
					vals[j] = int(int32(uint32(rr[j][0])<<24 | uint32(rr[j][1])<<16 | uint32(rr[j][2])<<8 | uint32(rr[j][3])))
				}
				got[i] = row{vals[0], vals[1], vals[2], vals[3]}
			}
			if want == nil {
				want = []row{}
			}
			require.Equal(t, want, got, "seed %d page %d: %s", seed, page, q)
		}
	}
}
