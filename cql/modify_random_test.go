package cql

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dmlRow is a row of TestModifyRandom's table t (k, a, b, v).
type dmlRow struct{ k, a, b, v int }

// dmlClustering is a random clustering restriction of a DELETE: its CQL and
// the rows it selects.
type dmlClustering struct {
	cql   string
	match func(a, b int) bool
}

// randomDeleteClustering returns a clustering restriction that DELETE
// accepts: none, a prefix of EQ/IN (single or multi-column), or such a
// prefix followed by a single or multi-column slice.
func randomDeleteClustering(rng *rand.Rand) dmlClustering {
	x, y, x2, y2 := rng.Intn(5), rng.Intn(5), rng.Intn(5), rng.Intn(5)
	gt := func(a, b, x, y int) bool { return a > x || (a == x && b > y) }
	switch rng.Intn(12) {
	case 0:
		return dmlClustering{"", func(int, int) bool { return true }}
	case 1:
		return dmlClustering{fmt.Sprintf(" AND a = %d", x), func(a, _ int) bool { return a == x }}
	case 2:
		return dmlClustering{fmt.Sprintf(" AND a IN (%d, %d)", x, x2), func(a, _ int) bool { return a == x || a == x2 }}
	case 3:
		return dmlClustering{fmt.Sprintf(" AND a = %d AND b = %d", x, y), func(a, b int) bool { return a == x && b == y }}
	case 4:
		return dmlClustering{fmt.Sprintf(" AND (a, b) IN ((%d, %d), (%d, %d))", x, y, x2, y2),
			func(a, b int) bool { return (a == x && b == y) || (a == x2 && b == y2) }}
	case 5:
		return dmlClustering{fmt.Sprintf(" AND a = %d AND b < %d", x, y), func(a, b int) bool { return a == x && b < y }}
	case 6:
		return dmlClustering{fmt.Sprintf(" AND a IN (%d, %d) AND b >= %d", x, x2, y),
			func(a, b int) bool { return (a == x || a == x2) && b >= y }}
	case 7:
		return dmlClustering{fmt.Sprintf(" AND (a, b) > (%d, %d)", x, y), func(a, b int) bool { return gt(a, b, x, y) }}
	case 8:
		return dmlClustering{fmt.Sprintf(" AND (a, b) >= (%d, %d) AND (a, b) < (%d, %d)", x, y, x2, y2),
			func(a, b int) bool { return !gt(x, y, a, b) && gt(x2, y2, a, b) }}
	case 9:
		return dmlClustering{fmt.Sprintf(" AND a > %d AND a <= %d", x, x2), func(a, _ int) bool { return a > x && a <= x2 }}
	case 10:
		return dmlClustering{fmt.Sprintf(" AND (a) IN ((%d), (%d)) AND b <= %d", x, x2, y),
			func(a, b int) bool { return (a == x || a == x2) && b <= y }}
	default:
		return dmlClustering{fmt.Sprintf(" AND (a, b) < (%d, %d) AND (a) >= (%d)", x, y, x2),
			func(a, b int) bool { return gt(x, y, a, b) && a >= x2 }}
	}
}

// randomKeys returns a partition key restriction (k = or k IN) and its keys.
func randomKeys(rng *rand.Rand) (string, []int) {
	if rng.Intn(2) == 0 {
		k := rng.Intn(4)
		return fmt.Sprintf("k = %d", k), []int{k}
	}
	k1, k2 := rng.Intn(4), rng.Intn(4)
	return fmt.Sprintf("k IN (%d, %d)", k1, k2), []int{k1, k2}
}

// TestModifyRandom applies random UPDATEs (rows named by single and
// multi-column EQ and IN) and DELETEs (rows, ranges from single and
// multi-column slices, partitions), with flushes and compactions between
// them, to a table with random clustering orders and to a map, and
// compares the whole table after each statement. The seed is printed.
func TestModifyRandom(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	for round := 0; round < 4; round++ {
		s := newSelectTestSession(t)
		ord := func() string { return []string{"ASC", "DESC"}[rng.Intn(2)] }
		for _, q := range []string{
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"USE ks",
			fmt.Sprintf("CREATE TABLE t (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (a %s, b %s)", ord(), ord()),
		} {
			_, err := s.Query(ctx, q, nil)
			require.NoError(t, err, q)
		}
		model := map[[3]int]int{}
		for step := 0; step < 80; step++ {
			var q string
			keysCQL, keys := randomKeys(rng)
			switch op := rng.Intn(10); {
			case op < 5:
				// UPDATE names rows: EQ and IN, single or multi-column.
				v := rng.Intn(1000)
				x, y, x2, y2 := rng.Intn(5), rng.Intn(5), rng.Intn(5), rng.Intn(5)
				var pairs [][2]int
				switch rng.Intn(3) {
				case 0:
					q = fmt.Sprintf(" AND (a, b) = (%d, %d)", x, y)
					pairs = [][2]int{{x, y}}
				case 1:
					q = fmt.Sprintf(" AND a IN (%d, %d) AND b IN (%d, %d)", x, x2, y, y2)
					pairs = [][2]int{{x, y}, {x, y2}, {x2, y}, {x2, y2}}
				default:
					q = fmt.Sprintf(" AND (a, b) IN ((%d, %d), (%d, %d))", x, y, x2, y2)
					pairs = [][2]int{{x, y}, {x2, y2}}
				}
				q = fmt.Sprintf("UPDATE t SET v = %d WHERE %s%s", v, keysCQL, q)
				for _, k := range keys {
					for _, p := range pairs {
						model[[3]int{k, p[0], p[1]}] = v
					}
				}
			case op < 9:
				c := randomDeleteClustering(rng)
				q = "DELETE FROM t WHERE " + keysCQL + c.cql
				for key := range model {
					for _, k := range keys {
						if key[0] == k && c.match(key[1], key[2]) {
							delete(model, key)
						}
					}
				}
			default:
				if rng.Intn(2) == 0 {
					require.NoError(t, s.x.env.Engine.Flush(ctx, "ks", "t"))
				} else {
					require.NoError(t, s.x.env.Engine.Compact(ctx, "ks", "t"))
				}
				continue
			}
			_, err := s.Query(ctx, q, nil)
			require.NoError(t, err, "seed %d: %s", seed, q)
			var want []string
			for key, v := range model {
				want = append(want, fmt.Sprint(dmlRow{key[0], key[1], key[2], v}))
			}
			sort.Strings(want)
			res, err := s.Query(ctx, "SELECT k, a, b, v FROM t", nil)
			require.NoError(t, err)
			var got []string
			for _, r := range res.Rows {
				var vals [4]int
				for j := range vals {
					vals[j] = int(int32(uint32(r[j][0])<<24 | uint32(r[j][1])<<16 | uint32(r[j][2])<<8 | uint32(r[j][3])))
				}
				got = append(got, fmt.Sprint(dmlRow{vals[0], vals[1], vals[2], vals[3]}))
			}
			sort.Strings(got)
			require.Equal(t, strings.Join(want, "\n"), strings.Join(got, "\n"), "seed %d round %d step %d: %s", seed, round, step, q)
		}
	}
}
