package types

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArithVectors compares Arith with Java: testdata/arith/vectors.txt
// holds l op r for edge cases and 2,000 random operand pairs of every
// numeric type, computed by testdata/arith/Gen.java with the arithmetic of
// Cassandra's NumberType and DecimalType (Java int, long, float, double,
// BigInteger and BigDecimal), as the serialized result or the Java
// exception's message.
func TestArithVectors(t *testing.T) {
	f, err := os.Open("testdata/arith/vectors.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		n++
		lhs, want, ok := strings.Cut(line, " => ")
		require.True(t, ok, line)
		fields := strings.Fields(lhs)
		require.Len(t, fields, 5, line)
		lt, rt := MustParseType(fields[1]), MustParseType(fields[3])
		l, r := arithOperand(t, lt, fields[2]), arithOperand(t, rt, fields[4])
		got, err := Arith(ArithOp(fields[0][0]), ArithResultType(lt, rt), lt, l, rt, r)
		if strings.HasPrefix(want, "error: ") {
			if assert.Error(t, err, line) {
				assert.Equal(t, strings.TrimPrefix(want, "error: "), err.Error(), line)
			}
		} else if assert.NoError(t, err, line) {
			if isNaN(ArithResultType(lt, rt), want) {
				// Any NaN: Java keeps the hardware's NaN bits.
				assert.True(t, isNaN(ArithResultType(lt, rt), hex.EncodeToString(got)), line)
				continue
			}
			assert.Equal(t, want, hex.EncodeToString(got), line)
		}
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, n, 2000)
}

// isNaN reports whether the hex value h of type t is a float or double NaN.
func isNaN(t Type, h string) bool {
	b, err := hex.DecodeString(h)
	if err != nil {
		return false
	}
	switch {
	case t.Kind == Float && len(b) == 4:
		return math.IsNaN(float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
	case t.Kind == Double && len(b) == 8:
		return math.IsNaN(math.Float64frombits(binary.BigEndian.Uint64(b)))
	}
	return false
}

// arithOperand serializes a value written as Java prints it.
func arithOperand(t *testing.T, typ Type, text string) []byte {
	t.Helper()
	lit := text
	if typ.Kind == Counter {
		typ = BigintType
	}
	kind := ConstInteger
	if strings.ContainsAny(text, ".eEIN") {
		kind = ConstFloat
	}
	b, err := FromConstant(typ, kind, lit)
	require.NoError(t, err, "%s %s", typ, text)
	return b
}

func TestArithResultType(t *testing.T) {
	for _, c := range []struct{ l, r, want string }{
		{"tinyint", "tinyint", "tinyint"}, {"tinyint", "smallint", "smallint"}, {"smallint", "int", "int"},
		{"int", "counter", "bigint"}, {"counter", "counter", "bigint"}, {"bigint", "float", "double"},
		{"int", "float", "float"}, {"float", "varint", "decimal"}, {"bigint", "varint", "varint"},
		{"double", "varint", "decimal"}, {"decimal", "tinyint", "decimal"},
	} {
		assert.Equal(t, c.want, ArithResultType(MustParseType(c.l), MustParseType(c.r)).String(), "%s, %s", c.l, c.r)
	}
}

// TestJavaFloatDigits checks JavaFloat on the values BigDecimal.valueOf
// reads in arithmetic, integral doubles beyond 2^53 included.
func TestJavaFloatDigits(t *testing.T) {
	for d, want := range map[float64]string{
		1: "1.0", 100: "100.0", 5.5: "5.5", 0.001: "0.001", 0.0001: "1.0E-4", 1e7: "1.0E7", 9999999: "9999999.0",
		1.5e-5: "1.5E-5", 2.147483657e9: "2.147483657E9", -0.5: "-0.5", 0: "0.0", 123456789.125: "1.23456789125E8",
		-4351057221767202588: "-4.3510572217672028E18", -1976263965088933109: "-1.97626396508893312E18",
	} {
		assert.Equal(t, want, JavaFloat(d, 64), "%v", d)
	}
}

func TestAddDuration(t *testing.T) {
	ts := func(s string) []byte {
		b, err := FromConstant(TimestampType, ConstString, s)
		require.NoError(t, err)
		return b
	}
	date := func(s string) []byte {
		b, err := FromConstant(DateType, ConstString, s)
		require.NoError(t, err)
		return b
	}
	dur := func(s string) []byte {
		b, err := FromConstant(DurationType, ConstDuration, s)
		require.NoError(t, err)
		return b
	}
	for _, c := range []struct {
		t          Type
		v, d, want string
		sub        bool
	}{
		{TimestampType, "2024-01-31 10:00:00+0000", "1mo", "2024-02-29 10:00:00+0000", false},
		{TimestampType, "2023-01-31 10:00:00+0000", "1mo1d", "2023-03-01 10:00:00+0000", false},
		{TimestampType, "2024-03-31 10:00:00+0000", "1mo", "2024-02-29 10:00:00+0000", true},
		{TimestampType, "2024-01-15 10:00:00+0000", "1d2h30m", "2024-01-16 12:30:00+0000", false},
		{TimestampType, "2017-01-01 00:00:00+0000", "2d", "2016-12-30 00:00:00+0000", true},
		{TimestampType, "2024-01-15 10:00:00+0000", "1y", "2023-01-15 10:00:00+0000", true},
		{DateType, "2024-01-31", "1mo", "2024-02-29", false},
		{DateType, "2016-10-04", "5d", "2016-09-29", true},
	} {
		got, err := AddDuration(c.t, map[Kind]func(string) []byte{Timestamp: ts, Date: date}[c.t.Kind](c.v), dur(c.d), c.sub)
		require.NoError(t, err)
		want := map[Kind]func(string) []byte{Timestamp: ts, Date: date}[c.t.Kind](c.want)
		assert.Equal(t, want, got, "%s %v %s", c.v, c.sub, c.d)
	}
	_, err := AddDuration(TimestampType, ts("2024-01-15 10:00:00+0000"), dur("10us"), true)
	assert.EqualError(t, err, "The duration must have a millisecond precision. Was: 10us")
	_, err = AddDuration(DateType, date("2024-01-15"), dur("10m"), true)
	assert.EqualError(t, err, "The duration must have a day precision. Was: 10m")
}
