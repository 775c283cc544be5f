package cql

import (
	"context"
	"math/big"
	"math/rand"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/types"
)

// TestTupleTypeRandom ports TupleTypeTest's three QuickTheories methods
// (tuplePartitionReadWrite, tupleCkReadWriteAsc, tupleCkReadWriteDesc):
// each example draws a tuple of 1 to 10 primitive types (neither duration
// nor decimal, as the Java's generator) and up to 10 distinct values of it,
// writes each as a partition key (100 examples) or a clustering key (50
// examples per order), reads it back by key, then reads the whole table and
// expects the rows in the node's order (token order for partition keys, the
// tuple's order, or its reverse, for clustering keys). The seed is printed;
// TUPLE_SEED=N reruns one. These methods are not in the conformance tally,
// which counts scripts' assertions.
func TestTupleTypeRandom(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("TUPLE_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d (TUPLE_SEED=%d reruns it)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	t.Run("tuplePartitionReadWrite", func(t *testing.T) {
		for ex := 0; ex < 100; ex++ {
			tupleExample(t, rng, ex, "")
		}
	})
	for _, order := range []string{"ASC", "DESC"} {
		t.Run("tupleCkReadWrite"+strings.ToUpper(order[:1])+strings.ToLower(order[1:]), func(t *testing.T) {
			for ex := 0; ex < 50; ex++ {
				tupleExample(t, rng, ex, order)
			}
		})
	}
}

// tuplePrimitives are the kinds the Java's AbstractTypeGenerators draws from
// for TypeKind.PRIMITIVE, less duration and decimal.
var tuplePrimitives = []types.Type{types.AsciiType, types.TextType, types.IntType, types.BigintType, types.SmallintType,
	types.TinyintType, types.VarintType, types.FloatType, types.DoubleType, types.BooleanType, types.UUIDType,
	types.TimeUUIDType, types.TimestampType, types.DateType, types.TimeType, types.BlobType, {Kind: types.Inet}}

// tupleExample runs one example: clustering order "" is the partition-key
// table.
func tupleExample(t *testing.T, rng *rand.Rand, ex int, order string) {
	ctx := context.Background()
	n := 1 + rng.Intn(10)
	fields := make([]types.Type, n)
	names := make([]string, n)
	for i := range fields {
		fields[i] = tuplePrimitives[rng.Intn(len(tuplePrimitives))]
		names[i] = fields[i].String()
	}
	tt := types.TupleOf(fields...)
	cqlType := "frozen<tuple<" + strings.Join(names, ", ") + ">>"
	seen := map[string]bool{}
	var values [][]byte
	for tries := 0; len(values) < 10 && tries < 200; tries++ {
		comps := make([][]byte, n)
		for i, f := range fields {
			comps[i] = randomPrimitive(t, rng, f)
		}
		v := types.EncodeTuple(comps)
		if !seen[string(v)] {
			seen[string(v)] = true
			values = append(values, v)
		}
	}
	s := newConformanceSession(t, engine.Options{}, Options{})
	run := func(q string, vals ...[]byte) *query.Result {
		p := &query.Params{}
		for _, v := range vals {
			p.Values = append(p.Values, query.Value{Bytes: v})
		}
		res, err := s.Query(ctx, q, p)
		require.NoError(t, err, "example %d (%s): %s", ex, cqlType, q)
		return res
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	one := encodeInt(1)
	if order == "" {
		run("CREATE TABLE ks.t (id " + cqlType + ", value int, PRIMARY KEY(id))")
	} else {
		run("CREATE TABLE ks.t (pk int, ck " + cqlType + ", value int, PRIMARY KEY(pk, ck)) WITH CLUSTERING ORDER BY (ck " + order + ")")
	}
	type row struct {
		key   []byte
		value int
	}
	var rows []row
	for i, v := range values {
		cnt := encodeInt(int32(i))
		var res *query.Result
		if order == "" {
			run("INSERT INTO ks.t (id, value) VALUES (?, ?)", v, cnt)
			res = run("SELECT * FROM ks.t WHERE id = ?", v)
			require.Equal(t, [][][]byte{{v, cnt}}, res.Rows, "example %d (%s): row %d read back", ex, cqlType, i)
		} else {
			run("INSERT INTO ks.t (pk, ck, value) VALUES (?, ?, ?)", one, v, cnt)
			res = run("SELECT * FROM ks.t WHERE pk = ? AND ck = ?", one, v)
			require.Equal(t, [][][]byte{{one, v, cnt}}, res.Rows, "example %d (%s): row %d read back", ex, cqlType, i)
		}
		rows = append(rows, row{key: v, value: i})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].key, rows[j].key
		if order == "" {
			return data.ComparePartitions(int64(partitioner.Murmur3(a)), a, int64(partitioner.Murmur3(b)), b) < 0
		}
		c := types.Compare(tt, a, b)
		if order == "DESC" {
			c = -c
		}
		return c < 0
	})
	var want [][][]byte
	for _, r := range rows {
		if order == "" {
			want = append(want, [][]byte{r.key, encodeInt(int32(r.value))})
		} else {
			want = append(want, [][]byte{one, r.key, encodeInt(int32(r.value))})
		}
	}
	res := run("SELECT * FROM ks.t LIMIT 100")
	require.Equal(t, want, res.Rows, "example %d (%s): the table in order", ex, cqlType)
}

// randomPrimitive returns a random serialized value of primitive type f.
func randomPrimitive(t *testing.T, rng *rand.Rand, f types.Type) []byte {
	var v any
	switch f.Kind {
	case types.Ascii:
		b := make([]byte, rng.Intn(20))
		for i := range b {
			b[i] = byte(rng.Intn(128))
		}
		v = string(b)
	case types.Text:
		r := make([]rune, rng.Intn(20))
		for i := range r {
			r[i] = rune(rng.Intn(0xD7FF) + 1)
		}
		v = string(r)
	case types.Int:
		v = int32(rng.Uint32())
	case types.Bigint:
		v = int64(rng.Uint64())
	case types.Smallint:
		v = int16(rng.Uint32())
	case types.Tinyint:
		v = int8(rng.Uint32())
	case types.Varint:
		v = big.NewInt(rng.Int63() - rng.Int63())
	case types.Float:
		v = float32(rng.NormFloat64() * 1e6)
	case types.Double:
		v = rng.NormFloat64() * 1e12
	case types.Boolean:
		v = rng.Intn(2) == 1
	case types.UUID:
		var u types.UUIDValue
		rng.Read(u[:])
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		v = u
	case types.TimeUUID:
		g := types.NewTimeUUIDGeneratorAt(rng.Uint64() & 0x3fffffffffff)
		v = g.NewTimeUUID(time.UnixMilli(rng.Int63n(4e12)))
	case types.Timestamp:
		v = time.UnixMilli(rng.Int63n(8e12) - 4e12).UTC()
	case types.Date:
		v = types.DateValue(int32(rng.Uint32()))
	case types.Time:
		v = time.Duration(rng.Int63n(int64(24 * time.Hour)))
	case types.Blob:
		b := make([]byte, rng.Intn(20))
		rng.Read(b)
		v = b
	case types.Inet:
		ip := make(net.IP, 4+12*rng.Intn(2))
		rng.Read(ip)
		v = ip
	default:
		t.Fatalf("no generator for %s", f)
	}
	b, err := types.Encode(f, v)
	require.NoError(t, err, "%s value %v", f, v)
	return b
}

// TestMapWithLargePartition ports CollectionsTest.testMapWithLargePartition:
// 200 UPDATEs of one map entry each, every value 10,485 random bytes read as
// a string (Java's new String(bytes): invalid UTF-8 becomes U+FFFD, as
// strings.ToValidUTF8 with that replacement does here), then a flush; the
// partition's one row holds the 200 entries (the Java's two assertions),
// each with the value written. The seed is printed; MAP_SEED=N reruns one.
// Not in the conformance tally, which counts scripts' assertions.
func TestMapWithLargePartition(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("MAP_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d (MAP_SEED=%d reruns it)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	s := newConformanceSession(t, engine.Options{}, Options{})
	_, err := s.Query(ctx, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
	require.NoError(t, err)
	_, err = s.Query(ctx, "CREATE TABLE ks.t (userid text PRIMARY KEY, properties map<int, text>) with compression = {}", nil)
	require.NoError(t, err)
	const numKeys, size = 200, (1024 * 1024) / 100
	want := make([]string, numKeys)
	for i := range want {
		b := make([]byte, size)
		rng.Read(b)
		want[i] = strings.ToValidUTF8(string(b), "\uFFFD")
		v, err := types.Encode(types.TextType, want[i])
		require.NoError(t, err)
		_, err = s.Query(ctx, "UPDATE ks.t SET properties[?] = ? WHERE userid = 'user'", &query.Params{Values: []query.Value{{Bytes: encodeInt(int32(i))}, {Bytes: v}}})
		require.NoError(t, err)
	}
	require.NoError(t, s.x.env.Engine.Flush(ctx, "", ""))
	res, err := s.Query(ctx, "SELECT properties from ks.t where userid = 'user'", nil)
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	got, err := types.Decode(types.MapOf(types.IntType, types.TextType, false), res.Rows[0][0])
	require.NoError(t, err)
	entries := got.([]types.MapEntry)
	require.Len(t, entries, numKeys)
	for i, e := range entries {
		require.Equal(t, int32(i), e.Key)
		require.Equal(t, want[i], e.Value, "entry %d", i)
	}
}

// encodeInt is the serialized int v.
func encodeInt(v int32) []byte {
	b, _ := types.Encode(types.IntType, v)
	return b
}
