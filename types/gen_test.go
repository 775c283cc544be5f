package types

import (
	"encoding/binary"
	"math"
	"math/big"

	"pgregory.net/rapid"
)

// Generators for property tests. Every generated value is valid for its
// type and canonical (minimal varints, booleans 00/01, canonical NaNs,
// tuples with all their fields, sets and maps sorted), so round trips must
// give back the exact bytes; decimals are the exception, since 1.0 and 1.00
// are distinct canonical values the key encoding normalises.

type genOpts struct {
	keyOnly  bool // no counter or duration anywhere (clustering columns, element keys)
	noEmpty  bool // no empty values (which have no CQL literal for most types)
	finite   bool // no NaN or infinite float and double (JSON writes them as null)
	maxDepth int
}

var scalarKinds = []Kind{Ascii, Text, Int, Bigint, Smallint, Tinyint, Varint, Float, Double, Decimal,
	Boolean, UUID, TimeUUID, Timestamp, Date, Time, Duration, Blob, Inet}

func drawType(t *rapid.T, o genOpts, depth int, label string) Type {
	maxChoice := len(scalarKinds) + 4
	if depth >= o.maxDepth {
		maxChoice = len(scalarKinds)
	}
	for {
		i := rapid.IntRange(0, maxChoice-1).Draw(t, label)
		if i < len(scalarKinds) {
			k := scalarKinds[i]
			if o.keyOnly && k == Duration {
				continue
			}
			return Type{Kind: k}
		}
		elem := func(noDuration bool) Type {
			for {
				e := drawType(t, o, depth+1, label+".e")
				if noDuration && containsKind(e, Duration) {
					continue
				}
				return e.Freeze()
			}
		}
		switch i - len(scalarKinds) {
		case 0:
			return ListOf(elem(false), true)
		case 1:
			return SetOf(elem(true), true)
		case 2:
			return MapOf(elem(true), elem(false), true)
		default:
			n := rapid.IntRange(1, 3).Draw(t, label+".n")
			fields := make([]Type, n)
			for j := range fields {
				fields[j] = elem(false)
			}
			return TupleOf(fields...)
		}
	}
}

func containsKind(t Type, k Kind) bool {
	if t.Kind == k {
		return true
	}
	for _, p := range t.Params {
		if containsKind(p, k) {
			return true
		}
	}
	return false
}

// drawValue draws a valid non-null value of ty. small restricts values to
// tiny domains so that equal and adjacent values are frequent.
func drawValue(t *rapid.T, ty Type, o genOpts, small bool, label string) []byte {
	if !o.noEmpty && emptyAllowed(ty) && rapid.IntRange(0, 9).Draw(t, label+".empty") == 0 {
		return []byte{}
	}
	intIn := func(lo, hi int64) int64 {
		if small {
			return rapid.Int64Range(max(lo, -2), min(hi, 2)).Draw(t, label)
		}
		return rapid.Int64Range(lo, hi).Draw(t, label)
	}
	bytesOf := func(alphabet *rapid.Generator[byte]) []byte {
		if small {
			return []byte(rapid.SampledFrom([]string{"", "a", "a\x00", "ab", "b", "\x00", "\x7f"}).Draw(t, label))
		}
		return rapid.SliceOfN(alphabet, 0, 12).Draw(t, label)
	}
	switch ty.Kind {
	case Ascii:
		b := bytesOf(rapid.ByteRange(0, 0x7f))
		if len(b) == 0 && o.noEmpty {
			b = []byte("x")
		}
		return b
	case Text:
		var s string
		if small {
			s = string(bytesOf(nil))
		} else {
			s = rapid.StringN(0, 8, -1).Draw(t, label)
		}
		if s == "" && o.noEmpty {
			s = "é"
		}
		return []byte(s)
	case Blob:
		b := bytesOf(rapid.Byte())
		if len(b) == 0 && o.noEmpty {
			b = []byte{0}
		}
		return b
	case Int:
		return putInt(intIn(math.MinInt32, math.MaxInt32), 4)
	case Bigint, Counter, Timestamp:
		return putInt(intIn(math.MinInt64, math.MaxInt64), 8)
	case Smallint:
		return putInt(intIn(math.MinInt16, math.MaxInt16), 2)
	case Tinyint:
		return putInt(intIn(math.MinInt8, math.MaxInt8), 1)
	case Time:
		return putInt(intIn(0, maxTimeNanos-1), 8)
	case Date:
		return encodeDate(DateValue(intIn(math.MinInt32, math.MaxInt32)))
	case Varint:
		return encodeVarint(drawBig(t, small, label))
	case Decimal:
		scale := int32(intIn(-30, 30))
		if !small && rapid.IntRange(0, 20).Draw(t, label+".extreme") == 0 {
			scale = rapid.SampledFrom([]int32{math.MinInt32, math.MaxInt32, math.MinInt32 + 1}).Draw(t, label+".scale")
		}
		return encodeDecimal(DecimalValue{Unscaled: drawBig(t, small, label+".u"), Scale: scale})
	case Float:
		var f float32
		if small {
			f = rapid.SampledFrom([]float32{float32(math.Inf(-1)), -1, float32(math.Copysign(0, -1)), 0, 1, float32(math.Inf(1)), float32(math.NaN())}).Draw(t, label)
		} else {
			f = math.Float32frombits(rapid.Uint32().Draw(t, label))
		}
		if o.finite && (f != f || math.IsInf(float64(f), 0)) {
			f = 1
		}
		bits := math.Float32bits(f)
		if f != f {
			bits = 0x7fc00000
		}
		return binary.BigEndian.AppendUint32(nil, bits)
	case Double:
		var f float64
		if small {
			f = rapid.SampledFrom([]float64{math.Inf(-1), -1, math.Copysign(0, -1), 0, 1, math.Inf(1), math.NaN()}).Draw(t, label)
		} else {
			f = math.Float64frombits(rapid.Uint64().Draw(t, label))
		}
		if o.finite && (f != f || math.IsInf(f, 0)) {
			f = 1
		}
		bits := math.Float64bits(f)
		if f != f {
			bits = 0x7ff8000000000000
		}
		return binary.BigEndian.AppendUint64(nil, bits)
	case Boolean:
		if rapid.Bool().Draw(t, label) {
			return []byte{1}
		}
		return []byte{0}
	case UUID, TimeUUID:
		var u []byte
		if small {
			u = make([]byte, 16)
			u[0] = byte(rapid.IntRange(0, 2).Draw(t, label+".hi")) * 0x7f
			u[6] = byte(rapid.SampledFrom([]int{1, 4}).Draw(t, label+".v")) << 4
			u[8] = byte(rapid.IntRange(0, 2).Draw(t, label+".lo")) * 0x7f
		} else {
			u = rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, label)
		}
		if ty.Kind == TimeUUID {
			u[6] = u[6]&0x0f | 0x10
		}
		return u
	case Inet:
		n := rapid.SampledFrom([]int{4, 16}).Draw(t, label+".len")
		if small {
			b := make([]byte, n)
			b[n-1] = byte(rapid.IntRange(0, 2).Draw(t, label))
			return b
		}
		return rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, label)
	case Duration:
		sign := int64(1)
		if rapid.Bool().Draw(t, label+".neg") {
			sign = -1
		}
		d := DurationValue{
			Months: int32(sign * rapid.Int64Range(0, math.MaxInt32).Draw(t, label+".m")),
			Days:   int32(sign * rapid.Int64Range(0, math.MaxInt32).Draw(t, label+".d")),
			Nanos:  sign * rapid.Int64Range(0, math.MaxInt64).Draw(t, label+".ns"),
		}
		return encodeDuration(d)
	case List, Set, Map:
		n := rapid.IntRange(0, 3).Draw(t, label+".n")
		var a, b [][]byte
		for i := 0; i < n; i++ {
			a = append(a, drawValue(t, ty.Params[0], o, small, label+".k"))
			if ty.Kind == Map {
				b = append(b, drawValue(t, ty.Params[1], o, small, label+".v"))
			}
		}
		switch ty.Kind {
		case Set:
			v, err := EncodeSet(ty, a)
			if err != nil {
				panic(err)
			}
			return v
		case Map:
			v, err := EncodeMap(ty, a, b)
			if err != nil {
				panic(err)
			}
			return v
		}
		return EncodeList(a)
	case Tuple:
		fields := make([][]byte, len(ty.Params))
		for i, p := range ty.Params {
			if rapid.IntRange(0, 4).Draw(t, label+".null") > 0 {
				fields[i] = drawValue(t, p, o, small, label+".f")
			}
		}
		return EncodeTuple(fields)
	}
	panic("unhandled kind " + ty.Kind.String())
}

func drawBig(t *rapid.T, small bool, label string) *big.Int {
	if small {
		return big.NewInt(rapid.Int64Range(-2, 2).Draw(t, label))
	}
	mag := rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, label)
	v := new(big.Int).SetBytes(mag)
	if rapid.Bool().Draw(t, label+".neg") {
		v.Neg(v)
	}
	return v
}
