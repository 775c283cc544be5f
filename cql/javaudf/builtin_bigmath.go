package javaudf

import (
	"github.com/minicass/minicass/types"
	"math"
	"math/big"
	"strings"
)

// The instance methods of java.math.BigInteger and BigDecimal (the exact
// operations; those needing a MathContext or RoundingMode are outside the
// subset).

// bigArg is args[i] as a BigInteger, throwing NullPointerException for null.
func bigArg(args []any, i int) *big.Int {
	b, ok := args[i].(*big.Int)
	if !ok {
		throwNPE()
	}
	return b
}

// bigIntMethod runs a BigInteger method on r; results are new values.
func bigIntMethod(r *big.Int, name string, args []any, line int) any {
	n := new(big.Int)
	switch name {
	case "add":
		return n.Add(r, bigArg(args, 0))
	case "subtract":
		return n.Sub(r, bigArg(args, 0))
	case "multiply":
		o := bigArg(args, 0)
		checkBits(int64(r.BitLen()) + int64(o.BitLen()))
		return n.Mul(r, o)
	case "divide", "remainder", "mod":
		d := bigArg(args, 0)
		if d.Sign() == 0 {
			throwJava("ArithmeticException", "BigInteger divide by zero")
		}
		switch name {
		case "divide":
			return n.Quo(r, d)
		case "remainder":
			return n.Rem(r, d)
		}
		if d.Sign() < 0 {
			throwJava("ArithmeticException", "BigInteger: modulus not positive")
		}
		return n.Mod(r, d)
	case "pow":
		e := intArg(args, 0)
		if e < 0 {
			throwJava("ArithmeticException", "Negative exponent")
		}
		if r.CmpAbs(big.NewInt(1)) > 0 {
			checkBits(int64(r.BitLen()) * int64(e))
		}
		return n.Exp(r, big.NewInt(int64(e)), nil)
	case "negate":
		return n.Neg(r)
	case "abs":
		return n.Abs(r)
	case "max", "min":
		o := bigArg(args, 0)
		if (r.Cmp(o) >= 0) == (name == "max") {
			return r
		}
		return o
	case "gcd":
		return n.GCD(nil, nil, new(big.Int).Abs(r), new(big.Int).Abs(bigArg(args, 0)))
	case "compareTo":
		return int32(r.Cmp(bigArg(args, 0)))
	case "signum":
		return int32(r.Sign())
	case "intValue":
		return int32(truncBig(r))
	case "longValue":
		return truncBig(r)
	case "intValueExact", "longValueExact":
		if !r.IsInt64() || name == "intValueExact" && r.Int64() != int64(int32(r.Int64())) {
			throwJava("ArithmeticException", "BigInteger out of "+map[bool]string{true: "int", false: "long"}[name == "intValueExact"]+" range")
		}
		if name == "intValueExact" {
			return int32(r.Int64())
		}
		return r.Int64()
	case "doubleValue":
		f, _ := new(big.Float).SetInt(r).Float64()
		return f
	case "floatValue":
		f, _ := new(big.Float).SetInt(r).Float32()
		return f
	case "bitLength":
		if r.Sign() < 0 {
			return int32(new(big.Int).Not(r).BitLen())
		}
		return int32(r.BitLen())
	case "testBit":
		i := intArg(args, 0)
		if i < 0 {
			throwJava("ArithmeticException", "Negative bit address")
		}
		if i > r.BitLen() {
			return r.Sign() < 0
		}
		return r.Bit(i) == 1
	case "shiftLeft", "shiftRight":
		k := int64(intArg(args, 0))
		if name == "shiftRight" {
			k = -k
		}
		if k >= 0 {
			checkBits(int64(r.BitLen()) + k)
			return n.Lsh(r, uint(k))
		}
		return n.Rsh(r, uint(min(-k, int64(r.BitLen())+1)))
	case "and":
		return n.And(r, bigArg(args, 0))
	case "or":
		return n.Or(r, bigArg(args, 0))
	case "xor":
		return n.Xor(r, bigArg(args, 0))
	case "not":
		return n.Not(r)
	}
	panic(&UnsupportedError{Line: line, Construct: "the method BigInteger." + name})
}

// truncBig is the low 64 bits of r in two's complement.
func truncBig(r *big.Int) int64 {
	m := new(big.Int).And(r, new(big.Int).SetUint64(math.MaxUint64))
	return int64(m.Uint64())
}

// decArg is args[i] as a BigDecimal, throwing NullPointerException for null.
func decArg(args []any, i int) types.DecimalValue {
	d, ok := args[i].(types.DecimalValue)
	if !ok {
		throwNPE()
	}
	return d
}

// align returns the unscaled values of a and b at their common scale.
func align(a, b types.DecimalValue) (*big.Int, *big.Int, int32) {
	x, y := new(big.Int).Set(a.Unscaled), new(big.Int).Set(b.Unscaled)
	s := max(a.Scale, b.Scale)
	x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-a.Scale)), nil))
	y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-b.Scale)), nil))
	return x, y, s
}

// decimalMethod runs a BigDecimal method on d.
func decimalMethod(d types.DecimalValue, name string, args []any, line int) any {
	switch name {
	case "add", "subtract":
		if len(args) != 1 {
			break
		}
		x, y, s := align(d, decArg(args, 0))
		if name == "add" {
			return types.DecimalValue{Unscaled: x.Add(x, y), Scale: s}
		}
		return types.DecimalValue{Unscaled: x.Sub(x, y), Scale: s}
	case "multiply":
		if len(args) != 1 {
			break
		}
		o := decArg(args, 0)
		return types.DecimalValue{Unscaled: new(big.Int).Mul(d.Unscaled, o.Unscaled), Scale: d.Scale + o.Scale}
	case "negate":
		return types.DecimalValue{Unscaled: new(big.Int).Neg(d.Unscaled), Scale: d.Scale}
	case "abs":
		return types.DecimalValue{Unscaled: new(big.Int).Abs(d.Unscaled), Scale: d.Scale}
	case "compareTo":
		return int32(d.Rat().Cmp(decArg(args, 0).Rat()))
	case "max", "min":
		o := decArg(args, 0)
		if (d.Rat().Cmp(o.Rat()) >= 0) == (name == "max") {
			return d
		}
		return o
	case "signum":
		return int32(d.Unscaled.Sign())
	case "scale":
		return d.Scale
	case "precision":
		s := new(big.Int).Abs(d.Unscaled).String()
		return int32(len(s))
	case "unscaledValue":
		return new(big.Int).Set(d.Unscaled)
	case "toBigInteger":
		return new(big.Int).Quo(d.Rat().Num(), d.Rat().Denom())
	case "intValue":
		return int32(truncBig(new(big.Int).Quo(d.Rat().Num(), d.Rat().Denom())))
	case "longValue":
		return truncBig(new(big.Int).Quo(d.Rat().Num(), d.Rat().Denom()))
	case "doubleValue":
		f, _ := d.Rat().Float64()
		return f
	case "floatValue":
		f, _ := d.Rat().Float32()
		return f
	case "toPlainString":
		return plainDecimal(d)
	case "stripTrailingZeros":
		u := new(big.Int).Set(d.Unscaled)
		s := d.Scale
		if u.Sign() == 0 {
			return types.DecimalValue{Unscaled: u}
		}
		ten := big.NewInt(10)
		for {
			q, m := new(big.Int).QuoRem(u, ten, new(big.Int))
			if m.Sign() != 0 {
				break
			}
			u, s = q, s-1
		}
		return types.DecimalValue{Unscaled: u, Scale: s}
	}
	panic(&UnsupportedError{Line: line, Construct: "the method BigDecimal." + name})
}

func plainDecimal(d types.DecimalValue) string {
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale <= 0 {
		s += strings.Repeat("0", int(-d.Scale))
	} else {
		for len(s) <= int(d.Scale) {
			s = "0" + s
		}
		s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	}
	if neg {
		return "-" + s
	}
	return s
}
