package partitioner

import (
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/spaolacci/murmur3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// cassandraVectors are the tokens of cassandra-facts.md section 1.3, produced
// by Cassandra's MurmurHash.java, the Python driver and gocql.
var cassandraVectors = []struct {
	name  string
	hex   string
	token int64
}{
	{"1 int 0", "00000000", -3485513579396041028},
	{"2 int -1", "ffffffff", 7297452126230313552},
	{"3 int 42", "0000002a", -7160136740246525330},
	{"4 int max", "7fffffff", -765994672030311617},
	{"5 int min", "80000000", -420533958509279465},
	{"6 bigint -1", "ffffffffffffffff", 7071048584287372947},
	{"7 smallint -2", "fffe", -2002833339314343643},
	{"8 text a", "61", -8839064797231613815},
	{"9 text hello", "68656c6c6f", -3758069500696749310},
	{"10 text héllo", "68c3a96c6c6f", 4427587122518744475},
	{"11 text 日本語", "e697a5e69cace8aa9e", 2587241856907040145},
	{"12 text Zürich-Straße", "5ac3bc726963682d53747261c39f65", 2985814061275734032},
	{"13 text a..q", "6162636465666768696a6b6c6d6e6f7071", 8459014091212432983},
	{"14 blob ff", "ff", -4442228696663692417},
	{"15 blob 80..ff", "80000000000000ff", 2613225757835462676},
	{"16 blob 15xff", "ffffffffffffffffffffffffffffff", -2195530867418009455},
	{"17 uuid", "123e4567e89b12d3a456426614174000", -44119901388393997},
	{"18 timeuuid", "d2177dd0eaa211dea572001b779c76e3", 1814919975521329373},
	{"19 timestamp", "0000018cc251f400", 8958033039009882346},
	{"20 date 2024", "80004d0b", -6364751440017804833},
	{"21 date 1970", "80000000", -420533958509279465},
	{"22 boolean", "01", 8849112093580131862},
	{"23 double", "40091eb851eb851f", 2670027926051588151},
	{"24 inet", "7f000001", 3370802529007389742},
	{"25 decimal", "0000000204d2", 5639331163334047897},
	{"26 time", "000029324bfd6000", -2454238039139654690},
	{"27 (abc,42)", "00036162630000040000002a00", 8948000416895937469},
	{"28 ('',0)", "00000000040000000000", -150644895381498316},
	{"29 (user,-7)", "000475736572000004fffffff900", -879340484913860013},
	{"30 (sensor-1,date)", "000873656e736f722d3100000480004d5500", 4883850236398199287},
	{"31 (é,date)", "0002c3a90000048000000000", 6459008292605518549},
	{"32 (1,2)", "0004000000010000040000000200", 4881097376275569167},
	{"py 123", "313233", -7468325962851647638},
	{"py fe*8", "fefefefefefefefe", -8927430733708461935},
	{"py 10*8", "1010101010101010", 1446172840243228796},
	{"py 00ff10fa99*10", strings.Repeat("00ff10fa99", 10), 5837342703291459765},
}

func TestMurmur3Vectors(t *testing.T) {
	for _, v := range cassandraVectors {
		t.Run(v.name, func(t *testing.T) {
			key, err := hex.DecodeString(v.hex)
			require.NoError(t, err)
			assert.Equal(t, Token(v.token), Murmur3(key))
		})
	}
}

// TestMurmur3CompositeVectors builds vectors 27-32 from their components
// through CompositeKey, so the composite encoding is checked end to end.
func TestMurmur3CompositeVectors(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(s)
		require.NoError(t, err)
		return b
	}
	for _, c := range []struct {
		parts [][]byte
		token int64
	}{
		{[][]byte{[]byte("abc"), h("0000002a")}, 8948000416895937469},
		{[][]byte{{}, h("00000000")}, -150644895381498316},
		{[][]byte{[]byte("user"), h("fffffff9")}, -879340484913860013},
		{[][]byte{[]byte("sensor-1"), h("80004d55")}, 4883850236398199287},
		{[][]byte{[]byte("é"), h("80000000")}, 6459008292605518549},
		{[][]byte{h("00000001"), h("00000002")}, 4881097376275569167},
	} {
		key, err := CompositeKey(c.parts)
		require.NoError(t, err)
		assert.Equal(t, Token(c.token), Murmur3(key), "key %x", key)
	}
}

func TestMurmur3EmptyKey(t *testing.T) {
	assert.Equal(t, MinToken, Murmur3(nil))
	assert.Equal(t, MinToken, Murmur3([]byte{}))
}

func TestMurmur3NoAlloc(t *testing.T) {
	key := []byte("a key of twenty-three b")
	allocs := testing.AllocsPerRun(100, func() { _ = Murmur3(key) })
	assert.Zero(t, allocs)
}

// diverges reports whether Cassandra's token for key must differ from
// reference MurmurHash3: some tail byte at tail index != 7 is >= 0x80.
func diverges(key []byte) bool {
	tail := key[len(key)&^15:]
	for j, b := range tail {
		if j != 7 && b >= 0x80 {
			return true
		}
	}
	return false
}

// TestMurmur3MatchesReference checks Murmur3 against spaolacci/murmur3 (the
// reference algorithm) where they must agree, and checks that they disagree
// exactly where the documented sign-extension rule says so.
func TestMurmur3MatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SliceOfN(rapid.Byte(), 1, 80).Draw(t, "key")
		h1, _ := murmur3.Sum128(key)
		ref := Token(int64(h1))
		if int64(h1) == math.MinInt64 {
			ref = MaxToken
		}
		got := Murmur3(key)
		if diverges(key) {
			if got == ref {
				t.Fatalf("key %x: expected divergence from reference, both %d", key, got)
			}
		} else if got != ref {
			t.Fatalf("key %x: got %d, reference %d", key, got, ref)
		}
	})
}

func BenchmarkMurmur3(b *testing.B) {
	for _, n := range []int{8, 64} {
		key := make([]byte, n)
		for i := range key {
			key[i] = byte(i * 37)
		}
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var sink Token
			for b.Loop() {
				sink ^= Murmur3(key)
			}
			_ = sink
		})
	}
}
