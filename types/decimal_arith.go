package types

import (
	"errors"
	"math"
	"math/big"
)

// Decimal arithmetic bounded as Java's BigDecimal is. Cassandra's
// DecimalType adds, subtracts and multiplies with MathContext(10000)
// (10,000 significant digits, HALF_UP), so a sum of operands whose
// exponents are far apart never expands the smaller one: BigDecimal.add
// condenses an operand whose digits cannot reach the result's precision
// into a single digit below it (preAlign), and rounds. Division is at a
// scale of at most 1,000; the remainder and aggregate sums are exact. The
// exact operations align their operands by a power of ten as large as
// their scales are apart, as Java does, up to maxPow10: past it minicass
// answers "BigInteger would overflow supported range", the error Java
// gives when the power cannot be held (an exponent beyond about 2^29),
// rather than spend minutes and gigabytes on it (docs/compatibility.md).

// decimalPrecision is DecimalType's MathContext precision (MAX_PRECISION).
const decimalPrecision = 10000

// maxPow10 is the largest power of ten decimal arithmetic computes.
const maxPow10 = 1 << 20

// MaxDecimalPow10 is the largest power of ten decimal arithmetic computes
// (maxPow10): a decimal whose scale is further from zero cannot be made
// exact (DecimalValue.Rat) and is refused with ErrBigIntegerOverflow.
const MaxDecimalPow10 = maxPow10

// ErrBigIntegerOverflow is BigInteger's reportOverflow message, the error
// of a decimal operation that needs a power of ten past MaxDecimalPow10.
var ErrBigIntegerOverflow = errBigIntegerOverflow

var errBigIntegerOverflow = errors.New("BigInteger would overflow supported range")

// checkedPow10 returns 10^n for 0 <= n <= maxPow10.
func checkedPow10(n int64) (*big.Int, error) {
	if n > maxPow10 {
		return nil, errBigIntegerOverflow
	}
	return pow10(n), nil
}

// checkScale is BigDecimal.checkScale for a non-zero value: a scale past
// int32 is an underflow (too small a value) or an overflow.
func checkScale(s int64) (int32, error) {
	switch {
	case s > math.MaxInt32:
		return 0, errors.New("Underflow")
	case s < math.MinInt32:
		return 0, errors.New("Overflow")
	}
	return int32(s), nil
}

// digitCount is the number of decimal digits of v (1 for zero), the
// precision of a BigDecimal with unscaled value v.
func digitCount(v *big.Int) int64 {
	if v.Sign() == 0 {
		return 1
	}
	// log10(2) slightly under, then corrected against a power of ten.
	n := int64(float64(v.BitLen()-1)*0.30102999566398) + 1
	p := pow10(n - 1)
	abs := new(big.Int).Abs(v)
	for abs.Cmp(p) < 0 {
		n--
		p.Quo(p, bigTen)
	}
	for p.Mul(p, bigTen); abs.Cmp(p) >= 0; p.Mul(p, bigTen) {
		n++
	}
	return n
}

// divRoundHalfUp returns v / 10^n rounded half up (away from zero on a
// tie).
func divRoundHalfUp(v *big.Int, n int64) *big.Int {
	p := pow10(n)
	q, r := new(big.Int).QuoRem(v, p, new(big.Int))
	if r.Sign() != 0 {
		r.Abs(r).Lsh(r, 1)
		if r.Cmp(p) >= 0 {
			if v.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return q
}

// roundDecimal is BigDecimal.doRound with DecimalType's MathContext: the
// value with at most 10,000 significant digits, rounded half up.
func roundDecimal(d DecimalValue) (DecimalValue, error) {
	u, s := a0(d.Unscaled), int64(d.Scale)
	for {
		drop := digitCount(u) - decimalPrecision
		if drop <= 0 {
			break
		}
		ns, err := checkScale(s - drop)
		if err != nil {
			return DecimalValue{}, err
		}
		u, s = divRoundHalfUp(u, drop), int64(ns)
	}
	return DecimalValue{Unscaled: u, Scale: int32(s)}, nil
}

// decimalAddMC is BigDecimal.add(augend, MathContext(10000)).
func decimalAddMC(a, b DecimalValue) (DecimalValue, error) {
	au, bu := a0(a.Unscaled), a0(b.Unscaled)
	if au.Sign() == 0 || bu.Sign() == 0 {
		preferred := max(a.Scale, b.Scale)
		if au.Sign() == 0 && bu.Sign() == 0 {
			return DecimalValue{Unscaled: new(big.Int), Scale: preferred}, nil
		}
		nz := a
		if au.Sign() == 0 {
			nz = b
		}
		r, err := roundDecimal(nz)
		if err != nil {
			return DecimalValue{}, err
		}
		switch {
		case r.Scale > preferred:
			// stripZerosToMatchScale.
			u, s := new(big.Int).Set(r.Unscaled), r.Scale
			m := new(big.Int)
			for s > preferred {
				q, rem := new(big.Int).QuoRem(u, bigTen, m)
				if rem.Sign() != 0 {
					break
				}
				u, s = q, s-1
			}
			return DecimalValue{Unscaled: u, Scale: s}, nil
		case r.Scale < preferred:
			room := decimalPrecision - digitCount(r.Unscaled)
			target := int64(preferred)
			if room < int64(preferred)-int64(r.Scale) {
				target = int64(r.Scale) + room
			}
			return DecimalValue{Unscaled: new(big.Int).Mul(r.Unscaled, pow10(target-int64(r.Scale))), Scale: int32(target)}, nil
		}
		return r, nil
	}
	if a.Scale != b.Scale {
		// preAlign: hi is the operand with the smaller scale (Java's big).
		hi, small := &a, &b
		if a.Scale > b.Scale {
			hi, small = &b, &a
		}
		estUlpScale := int64(hi.Scale) - digitCount(a0(hi.Unscaled)) + decimalPrecision
		smallHigh := int64(small.Scale) - digitCount(a0(small.Unscaled)) + 1
		if smallHigh > int64(hi.Scale)+2 && smallHigh > estUlpScale+2 {
			s, err := checkScale(max(int64(hi.Scale), estUlpScale) + 3)
			if err != nil {
				return DecimalValue{}, err
			}
			*small = DecimalValue{Unscaled: big.NewInt(int64(a0(small.Unscaled).Sign())), Scale: s}
		}
	}
	// matchScale: the operands are now within about 10,000 digits of
	// scale of each other, or their digits overlap.
	s := max(a.Scale, b.Scale)
	ra, err := rescaleChecked(a, s)
	if err != nil {
		return DecimalValue{}, err
	}
	rb, err := rescaleChecked(b, s)
	if err != nil {
		return DecimalValue{}, err
	}
	return roundDecimal(DecimalValue{Unscaled: ra.Add(ra, rb), Scale: s})
}

// rescaleChecked returns the unscaled value of d at a scale at least its
// own, refusing a power of ten past maxPow10.
func rescaleChecked(d DecimalValue, scale int32) (*big.Int, error) {
	p, err := checkedPow10(int64(scale) - int64(d.Scale))
	if err != nil {
		return nil, err
	}
	return p.Mul(p, a0(d.Unscaled)), nil
}

// decimalMulMC is BigDecimal.multiply(multiplicand, MathContext(10000)).
func decimalMulMC(a, b DecimalValue) (DecimalValue, error) {
	u := new(big.Int).Mul(a0(a.Unscaled), a0(b.Unscaled))
	s := int64(a.Scale) + int64(b.Scale)
	if u.Sign() == 0 {
		// checkScale on a zero saturates.
		return DecimalValue{Unscaled: u, Scale: int32(max(min(s, math.MaxInt32), math.MinInt32))}, nil
	}
	if a0(a.Unscaled).Sign() != 0 {
		if _, err := checkScale(s); err != nil {
			return DecimalValue{}, err
		}
	}
	return roundDecimal(DecimalValue{Unscaled: u, Scale: int32(s)})
}

// DecimalSum is BigDecimal.add without a MathContext, as Cassandra's
// decimal sum and average aggregates add: exact, at the larger scale, with
// the operands aligned by a power of ten of at most maxPow10.
func DecimalSum(a, b DecimalValue) (DecimalValue, error) {
	s := max(a.Scale, b.Scale)
	ra, err := rescaleChecked(a, s)
	if err != nil {
		return DecimalValue{}, err
	}
	rb, err := rescaleChecked(b, s)
	if err != nil {
		return DecimalValue{}, err
	}
	return DecimalValue{Unscaled: ra.Add(ra, rb), Scale: s}, nil
}

// cmpDecimalMagnitude compares |a| and |b| without expanding a power of
// ten larger than the operands' digits: values of different adjusted
// exponents compare by exponent.
func cmpDecimalMagnitude(a, b DecimalValue) int {
	au, bu := a0(a.Unscaled), a0(b.Unscaled)
	switch {
	case au.Sign() == 0 && bu.Sign() == 0:
		return 0
	case au.Sign() == 0:
		return -1
	case bu.Sign() == 0:
		return 1
	}
	ea, eb := digitCount(au)-int64(a.Scale), digitCount(bu)-int64(b.Scale)
	if ea != eb {
		if ea < eb {
			return -1
		}
		return 1
	}
	// Same exponent: the scales differ by the difference in digits.
	x, y := new(big.Int).Abs(au), new(big.Int).Abs(bu)
	if d := int64(a.Scale) - int64(b.Scale); d > 0 {
		y.Mul(y, pow10(d))
	} else if d < 0 {
		x.Mul(x, pow10(-d))
	}
	return x.Cmp(y)
}
