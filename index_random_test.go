package minicass

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// indexModelSchema is the table of TestIndexModel and its built-in
// indexes, one of each kind.
const indexModelSchema = `
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (k1 int, k2 int, c1 int, c2 int, s int static, v int,
  l list<int>, st set<int>, m map<int, int>, f frozen<list<int>>, PRIMARY KEY ((k1, k2), c1, c2));
CREATE INDEX iv ON ks.t (v);
CREATE INDEX isc ON ks.t (s);
CREATE INDEX ic1 ON ks.t (c1);
CREATE INDEX ic2 ON ks.t (c2);
CREATE INDEX ik1 ON ks.t (k1);
CREATE INDEX il ON ks.t (values(l));
CREATE INDEX ist ON ks.t (st);
CREATE INDEX imk ON ks.t (keys(m));
CREATE INDEX imv ON ks.t (values(m));
CREATE INDEX ime ON ks.t (entries(m));
CREATE INDEX iff ON ks.t (full(f));
`

var indexModelNames = []string{"iv", "isc", "ic1", "ic2", "ik1", "il", "ist", "imk", "imv", "ime", "iff"}

// TestIndexModel applies random writes, deletions (cells, collection
// elements, rows, ranges, partitions, TRUNCATE), TTLs and clock moves,
// flushes, compactions and restarts to a table with an index of every kind, and
// checks after each step that every index table holds exactly the entries
// a recomputation from the table's rows gives (read with SELECT), and
// that the indexed queries return what filtering the rows gives. Set
// MINICASS_INDEX_SEED to replay a seed.
func TestIndexModel(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("MINICASS_INDEX_SEED"); s != "" {
		_, err := fmt.Sscan(s, &seed)
		require.NoError(t, err)
	}
	t.Logf("seed %d (MINICASS_INDEX_SEED replays it)", seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	dir := t.TempDir()
	clock := NewManualClock(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC))
	open := func() *DB {
		db, err := Open(Options{Dir: dir, Clock: clock})
		require.NoError(t, err)
		return db
	}
	db := open()
	defer func() { _ = db.Close() }()
	require.NoError(t, db.ExecScript(ctx, indexModelSchema))
	small := func() int { return rng.Intn(3) }
	steps := 300
	if testing.Short() {
		steps = 100
	}
	for step := 0; step < steps; step++ {
		key := fmt.Sprintf("k1 = %d AND k2 = %d", small(), small())
		row := fmt.Sprintf("%s AND c1 = %d AND c2 = %d", key, small(), small())
		// A TTL now and then, and now and then a client timestamp in
		// the past: an older write must lose to newer data and deletions
		// in the index as in the table.
		var opts []string
		if rng.Intn(4) == 0 {
			opts = append(opts, fmt.Sprintf("TTL %d", 1+rng.Intn(4)))
		}
		if rng.Intn(5) == 0 {
			opts = append(opts, fmt.Sprintf("TIMESTAMP %d", clock.Now().UnixMicro()-int64(rng.Intn(3_000_000))))
		}
		using := ""
		if len(opts) > 0 {
			using = " USING " + strings.Join(opts, " AND ")
		}
		dts := ""
		if rng.Intn(5) == 0 {
			dts = fmt.Sprintf(" USING TIMESTAMP %d", clock.Now().UnixMicro()-int64(rng.Intn(3_000_000)))
		}
		var stmt string
		switch op := rng.Intn(23); {
		case op < 4:
			stmt = fmt.Sprintf("INSERT INTO ks.t (k1, k2, c1, c2, v) VALUES (%d, %d, %d, %d, %d)%s", small(), small(), small(), small(), small(), using)
		case op < 5:
			stmt = fmt.Sprintf("INSERT INTO ks.t (k1, k2, c1, c2) VALUES (%d, %d, %d, %d)%s", small(), small(), small(), small(), using)
		case op < 7:
			stmt = fmt.Sprintf("UPDATE ks.t%s SET v = %d WHERE %s", using, small(), row)
		case op < 8:
			stmt = fmt.Sprintf("UPDATE ks.t%s SET s = %d WHERE %s", using, small(), key)
		case op < 9:
			stmt = fmt.Sprintf("UPDATE ks.t%s SET l = l + [%d] WHERE %s", using, small(), row)
		case op < 10:
			stmt = fmt.Sprintf("UPDATE ks.t%s SET st = st + {%d}, f = [%d, %d] WHERE %s", using, small(), small(), small(), row)
		case op < 11:
			stmt = fmt.Sprintf("UPDATE ks.t%s SET m[%d] = %d WHERE %s", using, small(), small(), row)
		case op < 12:
			stmt = fmt.Sprintf("UPDATE ks.t%s SET m = {%d: %d}, l = [%d] WHERE %s", using, small(), small(), small(), row)
		case op < 13:
			stmt = fmt.Sprintf("DELETE v FROM ks.t%s WHERE %s", dts, row)
		case op < 14:
			stmt = fmt.Sprintf("DELETE m[%d], st FROM ks.t%s WHERE %s", small(), dts, row)
		case op < 15:
			stmt = fmt.Sprintf("DELETE FROM ks.t%s WHERE %s", dts, row)
		case op < 16:
			stmt = fmt.Sprintf("DELETE FROM ks.t%s WHERE %s AND c1 = %d", dts, key, small())
		case op < 17:
			stmt = fmt.Sprintf("DELETE FROM ks.t%s WHERE %s", dts, key)
		case op < 18:
			stmt = fmt.Sprintf("DELETE s FROM ks.t%s WHERE %s", dts, key)
		case op < 19:
			clock.Advance(time.Duration(1+rng.Intn(3)) * time.Second)
		case op < 20:
			require.NoError(t, db.Flush(ctx, "ks", "t"))
		case op < 21:
			require.NoError(t, db.Compact(ctx, "ks", "t"))
		case op < 22:
			require.NoError(t, db.Close())
			clock.Advance(time.Second)
			db = open()
		default:
			if rng.Intn(2) == 0 {
				stmt = "TRUNCATE ks.t"
				break
			}
			// An index dropped and built again from the rows (whose new
			// table must not see its predecessor's commit-log records
			// after a restart).
			name := indexModelNames[rng.Intn(len(indexModelNames))]
			require.NoError(t, db.Exec(ctx, "DROP INDEX ks."+name))
			for _, line := range strings.Split(indexModelSchema, "\n") {
				if strings.HasPrefix(line, "CREATE INDEX "+name+" ") {
					stmt = strings.TrimSuffix(line, ";")
				}
			}
		}
		if stmt != "" {
			require.NoError(t, db.Exec(ctx, stmt), "seed %d step %d: %s", seed, step, stmt)
		}
		checkIndexModel(t, db, fmt.Sprintf("seed %d step %d (%s)", seed, step, stmt))
	}
}

func int32Of(b []byte) int { return int(int32(binary.BigEndian.Uint32(b))) }

// expectedIndexEntries recomputes every index's entries from the rows of
// ks.t, as "index value|k1,k2|clustering" strings with a count each.
func expectedIndexEntries(t *testing.T, db *DB) map[string]map[string]int {
	t.Helper()
	rows := db.Query(context.Background(), "SELECT k1, k2, c1, c2, s, v, l, st, m, f FROM ks.t")
	require.NoError(t, rows.Err())
	res := rows.Result()
	out := map[string]map[string]int{}
	for _, n := range indexModelNames {
		out[n] = map[string]int{}
	}
	add := func(ix, value, key, ck string) { out[ix][value+"|"+key+"|"+ck]++ }
	listT := types.ListOf(types.IntType, false)
	mapT := types.MapOf(types.IntType, types.IntType, false)
	for _, r := range res.Rows {
		key := fmt.Sprintf("%d,%d", int32Of(r[0]), int32Of(r[1]))
		if r[4] != nil {
			out["isc"][fmt.Sprint(int32Of(r[4]))+"|"+key+"|"] = 1 // once per partition
			// A partition key index's entry of the static row (only
			// UPDATE ... SET s writes it, so it is live while s is).
			out["ik1"][fmt.Sprint(int32Of(r[0]))+"|"+key+"|"] = 1
		}
		if r[2] == nil { // a partition with only static data
			continue
		}
		c1, c2 := int32Of(r[2]), int32Of(r[3])
		ck := fmt.Sprintf("%d,%d", c1, c2)
		add("ic1", fmt.Sprint(c1), key, fmt.Sprint(c2))
		add("ic2", fmt.Sprint(c2), key, fmt.Sprint(c1))
		add("ik1", fmt.Sprint(int32Of(r[0])), key, ck)
		if r[5] != nil {
			add("iv", fmt.Sprint(int32Of(r[5])), key, ck)
		}
		if r[6] != nil {
			elems, err := types.DecodeCollection(listT, r[6])
			require.NoError(t, err)
			for _, e := range elems {
				add("il", fmt.Sprint(int32Of(e)), key, ck)
			}
		}
		if r[7] != nil {
			elems, err := types.DecodeCollection(types.SetOf(types.IntType, false), r[7])
			require.NoError(t, err)
			for _, e := range elems {
				add("ist", fmt.Sprint(int32Of(e)), key, ck)
			}
		}
		if r[8] != nil {
			elems, err := types.DecodeCollection(mapT, r[8])
			require.NoError(t, err)
			for i := 0; i+1 < len(elems); i += 2 {
				k, v := int32Of(elems[i]), int32Of(elems[i+1])
				add("imk", fmt.Sprint(k), key, ck)
				add("imv", fmt.Sprint(v), key, ck)
				add("ime", fmt.Sprintf("%d:%d", k, v), key, ck)
			}
		}
		if r[9] != nil {
			add("iff", hex.EncodeToString(r[9]), key, ck)
		}
	}
	return out
}

// actualIndexEntries reads every index table of ks.t through the engine
// and decodes its entries (the layout of package cql/index).
func actualIndexEntries(t *testing.T, db *DB) map[string]map[string]int {
	t.Helper()
	out := map[string]map[string]int{}
	for _, n := range indexModelNames {
		out[n] = map[string]int{}
		tbl, ok := db.Engine().Table("ks", schema.IndexTableName("t", n))
		require.True(t, ok, "index table of %s", n)
		sc, err := db.Engine().Scan(context.Background(), tbl, data.FullRing, engine.ReadOptions{})
		require.NoError(t, err)
		for {
			p, ok := sc.Next()
			if !ok {
				break
			}
			v := p.Key()[1:]
			var value string
			switch n {
			case "iff":
				value = hex.EncodeToString(v)
			case "ime":
				kl, w := binary.Uvarint(v)
				value = fmt.Sprintf("%d:%d", int32Of(v[w:w+int(kl)]), int32Of(v[w+int(kl):]))
			default:
				value = fmt.Sprint(int32Of(v))
			}
			for {
				r, ok := p.Next()
				if !ok {
					break
				}
				vals, _, err := types.DecodeClustering(tbl.ClusteringTypes(), r.Clustering)
				require.NoError(t, err)
				parts, err := partitioner.SplitCompositeKey(vals[0][8:])
				require.NoError(t, err)
				key := fmt.Sprintf("%d,%d", int32Of(parts[0]), int32Of(parts[1]))
				var ck []string
				rest := vals[1:]
				if n == "il" || n == "imv" || n == "ist" {
					rest = rest[:len(rest)-1] // cell_path
				}
				for _, c := range rest {
					ck = append(ck, fmt.Sprint(int32Of(c)))
				}
				out[n][value+"|"+key+"|"+strings.Join(ck, ",")]++
			}
			require.NoError(t, p.Err())
		}
		require.NoError(t, sc.Err())
		require.NoError(t, sc.Close())
	}
	return out
}

func sortedEntries(m map[string]int) []string {
	var out []string
	for k, n := range m {
		out = append(out, fmt.Sprintf("%s x%d", k, n))
	}
	sort.Strings(out)
	return out
}

func checkIndexModel(t *testing.T, db *DB, what string) {
	t.Helper()
	want, got := expectedIndexEntries(t, db), actualIndexEntries(t, db)
	for _, n := range indexModelNames {
		require.Equal(t, sortedEntries(want[n]), sortedEntries(got[n]), "index %s after %s", n, what)
	}
	// The queries the indexes serve return the rows the entries name,
	// each once.
	ctx := context.Background()
	for v := 0; v < 3; v++ {
		for ix, q := range map[string]string{
			"iv":  "SELECT k1, k2, c1, c2 FROM ks.t WHERE v = %d",
			"il":  "SELECT k1, k2, c1, c2 FROM ks.t WHERE l CONTAINS %d",
			"imk": "SELECT k1, k2, c1, c2 FROM ks.t WHERE m CONTAINS KEY %d",
			"ik1": "SELECT k1, k2, c1, c2 FROM ks.t WHERE k1 = %d",
		} {
			q = fmt.Sprintf(q, v)
			rows := db.Query(ctx, q)
			require.NoError(t, rows.Err(), q)
			var gotRows, wantRows []string
			for _, r := range rows.Result().Rows {
				if r[2] == nil { // a partition's static row alone
					gotRows = append(gotRows, fmt.Sprintf("%d,%d|", int32Of(r[0]), int32Of(r[1])))
					continue
				}
				gotRows = append(gotRows, fmt.Sprintf("%d,%d|%d,%d", int32Of(r[0]), int32Of(r[1]), int32Of(r[2]), int32Of(r[3])))
			}
			seen := map[string]bool{}
			hasRows := map[string]bool{} // partitions with entries of rows
			for e := range want[ix] {
				if parts := strings.SplitN(e, "|", 3); parts[0] == fmt.Sprint(v) && parts[2] != "" {
					hasRows[parts[1]] = true
				}
			}
			for e := range want[ix] {
				parts := strings.SplitN(e, "|", 2)
				if parts[0] != fmt.Sprint(v) || seen[parts[1]] {
					continue
				}
				if key, ck, _ := strings.Cut(parts[1], "|"); ck == "" && hasRows[key] {
					// A static row's entry: the partition's rows are
					// returned instead of it.
					continue
				}
				seen[parts[1]] = true
				wantRows = append(wantRows, parts[1])
			}
			sort.Strings(gotRows)
			sort.Strings(wantRows)
			require.Equal(t, wantRows, gotRows, "%s after %s", q, what)
		}
	}
}
