package types

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Arithmetic on CQL values, as Cassandra 4's operation functions compute it
// (cql3/functions/OperationFcts and the NumberType and TemporalType
// classes of db/marshal). The results are Java's: integers wrap on
// overflow, floats follow IEEE 754, a varint is a BigInteger and a decimal
// a BigDecimal with DecimalType's rules. Errors carry the text of the Java
// exception (such as "/ by zero"); the CQL layer wraps them in
// "the operation '...' failed: ...".

// ArithOp is a binary arithmetic operator.
type ArithOp byte

// The arithmetic operators.
const (
	OpAdd ArithOp = '+'
	OpSub ArithOp = '-'
	OpMul ArithOp = '*'
	OpDiv ArithOp = '/'
	OpMod ArithOp = '%'
)

// IsNumeric reports whether t is one of the types arithmetic applies to:
// tinyint, smallint, int, bigint, counter, float, double, varint, decimal.
func IsNumeric(t Type) bool {
	switch t.Kind {
	case Tinyint, Smallint, Int, Bigint, Counter, Float, Double, Varint, Decimal:
		return true
	}
	return false
}

// numericSize is OperationFcts.size: the fixed width of the type, with
// tinyint 1, smallint 2 and counter 8; varint and decimal are unbounded.
func numericSize(t Type) int {
	switch t.Kind {
	case Tinyint:
		return 1
	case Smallint:
		return 2
	case Int, Float:
		return 4
	case Bigint, Counter, Double:
		return 8
	}
	return math.MaxInt32
}

func isFloatingPoint(t Type) bool {
	return t.Kind == Float || t.Kind == Double || t.Kind == Decimal
}

// ArithResultType is the type of l op r for numeric l and r
// (OperationFcts.returnType): floating point if either side is, of the
// larger width. So bigint with float gives double, varint with float
// gives decimal, and counter gives bigint.
func ArithResultType(l, r Type) Type {
	size := max(numericSize(l), numericSize(r))
	if isFloatingPoint(l) || isFloatingPoint(r) {
		switch size {
		case 4:
			return FloatType
		case 8:
			return DoubleType
		}
		return DecimalType
	}
	switch size {
	case 1:
		return TinyintType
	case 2:
		return SmallintType
	case 4:
		return IntType
	case 8:
		return BigintType
	}
	return VarintType
}

// errDivByZero is Java's ArithmeticException for an integer division by
// zero.
var errDivByZero = errors.New("/ by zero")

// Arith computes l op r, where l has type lt, r type rt and the result type
// ret is ArithResultType(lt, rt). Both values must be non-empty and valid
// for their types.
func Arith(op ArithOp, ret, lt Type, l []byte, rt Type, r []byte) ([]byte, error) {
	switch ret.Kind {
	case Tinyint, Smallint, Int, Bigint:
		a, b := intValue(lt, l), intValue(rt, r)
		if b == 0 && (op == OpDiv || op == OpMod) {
			return nil, errDivByZero
		}
		var v int64
		switch ret.Kind {
		case Bigint:
			v = intOp(op, a, b)
		case Int:
			v = int64(int32(intOp(op, int64(int32(a)), int64(int32(b)))))
		case Smallint:
			v = int64(int16(intOp(op, a, b)))
		default:
			v = int64(int8(intOp(op, a, b)))
		}
		return encodeInt(ret, v), nil
	case Float:
		v := floatOp(op, toFloat32(lt, l), toFloat32(rt, r))
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(v)), nil
	case Double:
		v := floatOp(op, toFloat64(lt, l), toFloat64(rt, r))
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case Varint:
		a, b := toBigInt(lt, l), toBigInt(rt, r)
		v := new(big.Int)
		switch op {
		case OpAdd:
			v.Add(a, b)
		case OpSub:
			v.Sub(a, b)
		case OpMul:
			v.Mul(a, b)
		default:
			if b.Sign() == 0 {
				return nil, errors.New("BigInteger divide by zero")
			}
			if op == OpDiv {
				v.Quo(a, b)
			} else {
				v.Rem(a, b)
			}
		}
		return encodeVarint(v), nil
	case Decimal:
		a, err := toDecimal(lt, l)
		if err != nil {
			return nil, err
		}
		b, err := toDecimal(rt, r)
		if err != nil {
			return nil, err
		}
		var v DecimalValue
		switch op {
		case OpAdd:
			if v, err = decimalAddMC(a, b); err != nil {
				return nil, err
			}
		case OpSub:
			if v, err = decimalAddMC(a, DecimalValue{Unscaled: new(big.Int).Neg(a0(b.Unscaled)), Scale: b.Scale}); err != nil {
				return nil, err
			}
		case OpMul:
			if v, err = decimalMulMC(a, b); err != nil {
				return nil, err
			}
		case OpDiv:
			if v, err = decimalDivide(a, b); err != nil {
				return nil, err
			}
		default:
			if v, err = decimalRemainder(a, b); err != nil {
				return nil, err
			}
		}
		return encodeDecimal(v), nil
	}
	return nil, fmt.Errorf("no arithmetic on %s", ret)
}

// Negate returns -v for a numeric type t, with Java's wrapping (the
// negation of the smallest int is itself).
func Negate(t Type, v []byte) []byte {
	switch t.Kind {
	case Tinyint:
		return encodeInt(t, int64(-int8(v[0])))
	case Smallint:
		return encodeInt(t, int64(-int16(binary.BigEndian.Uint16(v))))
	case Int:
		return encodeInt(t, int64(-int32(binary.BigEndian.Uint32(v))))
	case Bigint, Counter:
		return encodeInt(BigintType, -int64(binary.BigEndian.Uint64(v)))
	case Float:
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(-math.Float32frombits(binary.BigEndian.Uint32(v))))
	case Double:
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(-math.Float64frombits(binary.BigEndian.Uint64(v))))
	case Varint:
		return encodeVarint(new(big.Int).Neg(decodeVarint(v)))
	case Decimal:
		d := decodeDecimal(v)
		return encodeDecimal(DecimalValue{Unscaled: new(big.Int).Neg(a0(d.Unscaled)), Scale: d.Scale})
	}
	return v
}

// numOp is Java's arithmetic on two longs, floats or doubles: wrapping
// integers, IEEE 754 floats; mod gives the remainder.
func numOp[N int64 | float32 | float64](op ArithOp, a, b N, mod func(a, b N) N) N {
	switch op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	case OpDiv:
		return a / b
	}
	return mod(a, b)
}

func intOp(op ArithOp, a, b int64) int64 {
	return numOp(op, a, b, func(a, b int64) int64 { return a % b })
}

// floatOp is Java's float or double arithmetic; % is the truncated
// remainder, exact, so computing it in float64 loses nothing.
func floatOp[F float32 | float64](op ArithOp, a, b F) F {
	return numOp(op, a, b, func(a, b F) F { return F(math.Mod(float64(a), float64(b))) })
}

func encodeInt(t Type, v int64) []byte {
	switch t.Kind {
	case Tinyint:
		return []byte{byte(v)}
	case Smallint:
		return binary.BigEndian.AppendUint16(nil, uint16(v))
	case Int:
		return binary.BigEndian.AppendUint32(nil, uint32(v))
	}
	return binary.BigEndian.AppendUint64(nil, uint64(v))
}

// intValue reads an integer value (tinyint to bigint, counter).
func intValue(t Type, b []byte) int64 {
	switch t.Kind {
	case Tinyint:
		return int64(int8(b[0]))
	case Smallint:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case Int:
		return int64(int32(binary.BigEndian.Uint32(b)))
	}
	return int64(binary.BigEndian.Uint64(b))
}

// toFloat32 is NumberType.toFloat: Java's (float) conversion.
func toFloat32(t Type, b []byte) float32 {
	if t.Kind == Float {
		return math.Float32frombits(binary.BigEndian.Uint32(b))
	}
	return float32(intValue(t, b))
}

// toFloat64 is NumberType.toDouble.
func toFloat64(t Type, b []byte) float64 {
	switch t.Kind {
	case Float:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case Double:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	}
	return float64(intValue(t, b))
}

// toBigInt is NumberType.toBigInteger.
func toBigInt(t Type, b []byte) *big.Int {
	if t.Kind == Varint {
		return decodeVarint(b)
	}
	return big.NewInt(intValue(t, b))
}

// toDecimal is NumberType.toBigDecimal: a varint exactly, a decimal as it
// is, and any other number through a Java double and BigDecimal.valueOf,
// so the int 1 becomes 1.0.
func toDecimal(t Type, b []byte) (DecimalValue, error) {
	switch t.Kind {
	case Decimal:
		return decodeDecimal(b), nil
	case Varint:
		return DecimalValue{Unscaled: decodeVarint(b)}, nil
	}
	return decimalOfDouble(toFloat64(t, b))
}

// decimalOfDouble is Java's BigDecimal.valueOf(double): the decimal whose
// text is Double.toString(d).
func decimalOfDouble(d float64) (DecimalValue, error) {
	switch {
	case math.IsNaN(d):
		return DecimalValue{}, errors.New("A NaN cannot be converted into a decimal")
	case math.IsInf(d, 0):
		return DecimalValue{}, errors.New("An infinite number cannot be converted into a decimal")
	}
	v, ok := ParseDecimal(JavaFloat(d, 64))
	if !ok {
		return DecimalValue{}, fmt.Errorf("cannot convert %v to a decimal", d)
	}
	return v, nil
}

// javaLongDigits returns, for an integral double d (positive, below
// 2^63), the digits Java's FloatingDecimal prints (dtoa's easy case and
// developLongDigits): the integer with its insignificant low digits rounded
// away, trailing zeros removed, and the number of digits before the point.
// So 4351057221767202816 prints as 4.3510572217672028E18, one digit more
// than the shortest form.
func javaLongDigits(d float64) (string, int, bool) {
	_, exp := math.Frexp(d)
	binExp := exp - 1 // d = 1.f × 2^binExp
	if d == math.Trunc(d) && binExp <= 62 {
		// FloatingDecimal.dtoa's easy case and developLongDigits.
		v := int64(d)
		insignificant := 0
		if p2 := binExp - 53 - 1; p2 > 1 {
			insignificant = int(float64(p2) * math.Log10(2))
		}
		decExp := 0
		if insignificant > 0 {
			p := int64(math.Pow10(insignificant))
			residue := v % p
			v /= p
			decExp = insignificant
			if residue >= p/2 {
				v++
			}
		}
		s := strconv.FormatInt(v, 10)
		decExp += len(s)
		return strings.TrimRight(s, "0"), decExp, true
	}
	return "", 0, false
}

// a0 returns v, or zero for nil.
func a0(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

var bigTen = big.NewInt(10)

// pow10 returns 10^n for n >= 0.
func pow10(n int64) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(n), nil) }

// precision is BigDecimal.precision: the number of digits of the unscaled
// value (1 for zero).
func precision(v *big.Int) int32 {
	if v.Sign() == 0 {
		return 1
	}
	return int32(len(new(big.Int).Abs(v).String()))
}

// Scales of DecimalType.divide.
const (
	decimalMinScale       = 32
	decimalMinSignificant = 32
	decimalMaxScale       = 1000
)

// decimalDivide is DecimalType.divide (Cassandra 4): the quotient rounded
// half up to a scale that keeps at least 32 significant digits (and at
// least 32, at most 1000 decimals), trailing zeros stripped.
func decimalDivide(a, b DecimalValue) (DecimalValue, error) {
	au, bu := a0(a.Unscaled), a0(b.Unscaled)
	if bu.Sign() == 0 {
		// BigDecimal.divide at a scale of 32 or more divides through
		// BigInteger.
		return DecimalValue{}, errors.New("BigInteger divide by zero")
	}
	firstDigit := (precision(au) - a.Scale) - (precision(bu) - b.Scale)
	scale := max(decimalMinSignificant-firstDigit, a.Scale, b.Scale, decimalMinScale)
	scale = min(scale, decimalMaxScale)
	// q = a / b × 10^scale = au × 10^(scale - a.Scale + b.Scale) / bu.
	num, den := new(big.Int).Set(au), new(big.Int).Set(bu)
	k := int64(scale) - int64(a.Scale) + int64(b.Scale)
	p, err := checkedPow10(max(k, -k))
	if err != nil {
		return DecimalValue{}, err
	}
	if k >= 0 {
		num.Mul(num, p)
	} else {
		den.Mul(den, p)
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// HALF_UP: round away from zero when the remainder is at least half.
	if r.Sign() != 0 {
		twice := new(big.Int).Abs(r)
		twice.Lsh(twice, 1)
		if twice.Cmp(new(big.Int).Abs(den)) >= 0 {
			if (num.Sign() < 0) != (den.Sign() < 0) {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return stripTrailingZeros(DecimalValue{Unscaled: q, Scale: scale}), nil
}

// stripTrailingZeros is BigDecimal.stripTrailingZeros (zero becomes 0).
func stripTrailingZeros(d DecimalValue) DecimalValue {
	u := a0(d.Unscaled)
	if u.Sign() == 0 {
		return DecimalValue{Unscaled: new(big.Int)}
	}
	u = new(big.Int).Set(u)
	s := d.Scale
	m := new(big.Int)
	for {
		q, r := new(big.Int).QuoRem(u, bigTen, m)
		if r.Sign() != 0 {
			break
		}
		u, s = q, s-1
	}
	return DecimalValue{Unscaled: u, Scale: s}
}

// trailingZeros counts the trailing decimal zeros of a non-zero v.
func trailingZeros(v *big.Int) int32 {
	n := int32(0)
	u := new(big.Int).Abs(v)
	m := new(big.Int)
	for u.Sign() != 0 {
		q, r := new(big.Int).QuoRem(u, bigTen, m)
		if r.Sign() != 0 {
			break
		}
		u = q
		n++
	}
	return n
}

// decimalRemainder is BigDecimal.remainder: a - q×b where q is
// divideToIntegralValue(a, b), the quotient truncated to an integer at the
// scale Java gives it.
func decimalRemainder(a, b DecimalValue) (DecimalValue, error) {
	au, bu := a0(a.Unscaled), a0(b.Unscaled)
	if bu.Sign() == 0 {
		if au.Sign() == 0 {
			return DecimalValue{}, errors.New("Division undefined")
		}
		return DecimalValue{}, errors.New("Division by zero")
	}
	preferred := a.Scale - b.Scale
	var q DecimalValue
	if cmpDecimalMagnitude(a, b) < 0 || au.Sign() == 0 {
		q = DecimalValue{Unscaled: new(big.Int), Scale: preferred}
	} else {
		// n = trunc(a / b), exactly.
		num, den := new(big.Int).Set(au), new(big.Int).Set(bu)
		k := int64(b.Scale) - int64(a.Scale)
		p, err := checkedPow10(max(k, -k))
		if err != nil {
			return DecimalValue{}, err
		}
		if k >= 0 {
			num.Mul(num, p)
		} else {
			den.Mul(den, p)
		}
		n := new(big.Int).Quo(num, den)
		scale := preferred
		if preferred < 0 {
			scale = max(preferred, -trailingZeros(n))
		}
		p, err = checkedPow10(max(int64(scale), -int64(scale)))
		if err != nil {
			return DecimalValue{}, err
		}
		if scale >= 0 {
			n.Mul(n, p)
		} else {
			n.Quo(n, p)
		}
		q = DecimalValue{Unscaled: n, Scale: scale}
	}
	ps, err := checkScale(int64(q.Scale) + int64(b.Scale))
	if err != nil {
		return DecimalValue{}, err
	}
	prod := DecimalValue{Unscaled: new(big.Int).Mul(q.Unscaled, bu), Scale: ps}
	return DecimalSum(a, DecimalValue{Unscaled: prod.Unscaled.Neg(prod.Unscaled), Scale: prod.Scale})
}

// AddDuration returns the timestamp or date v plus (or, with sub, minus)
// the serialized duration d, as TemporalType.addDuration and
// substractDuration do: a timestamp needs a duration of whole
// milliseconds, a date one of whole days; months are added first, on a
// UTC calendar that keeps the day within the month (Jan 31 + 1mo is the
// last day of February), then days, then milliseconds.
func AddDuration(t Type, v, d []byte, sub bool) ([]byte, error) {
	dur, err := decodeDuration(d)
	if err != nil {
		return nil, err
	}
	var millis int64
	switch t.Kind {
	case Timestamp:
		if dur.Nanos%nanosPerMilli != 0 {
			return nil, fmt.Errorf("The duration must have a millisecond precision. Was: %s", dur)
		}
		millis = int64(binary.BigEndian.Uint64(v))
	case Date:
		if dur.Nanos != 0 {
			return nil, fmt.Errorf("The duration must have a day precision. Was: %s", dur)
		}
		millis = (int64(binary.BigEndian.Uint32(v)) - 1<<31) * 86_400_000
	default:
		return nil, fmt.Errorf("no duration arithmetic on %s", t)
	}
	months, days, nanos := dur.Months, dur.Days, dur.Nanos
	if sub {
		months, days, nanos = -months, -days, -nanos
	}
	millis = addToMillis(millis, months, days, nanos)
	if t.Kind == Date {
		return binary.BigEndian.AppendUint32(nil, uint32(int32(millis/86_400_000+math.MinInt32))), nil
	}
	return binary.BigEndian.AppendUint64(nil, uint64(millis)), nil
}

// addToMillis is cql3.Duration.add.
func addToMillis(millis int64, months, days int32, nanos int64) int64 {
	if months == 0 {
		return millis + int64(days)*86_400_000 + nanos/nanosPerMilli
	}
	t := time.UnixMilli(millis).UTC()
	y, m, dd := t.Date()
	total := int64(y)*12 + int64(m-1) + int64(months)
	ny, nm := int(floorDiv(total, 12)), time.Month(floorMod(total, 12)+1)
	last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day()
	t = time.Date(ny, nm, min(dd, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	t = t.AddDate(0, 0, int(days))
	return t.UnixMilli() + int64(int32(nanos/nanosPerMilli))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
