package javaudf

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// The static methods of java.lang.Math (and StrictMath).

// mathCall runs a static method of Math on non-null arguments.
func mathCall(name string, args []any, line int) any {
	f := func(i int) float64 { return toFloat64(args[i]) }
	for _, a := range args {
		if a == nil {
			throwNPE()
		}
	}
	switch name {
	case "abs":
		switch x := args[0].(type) {
		case float64:
			return math.Abs(x)
		case float32:
			return float32(math.Abs(float64(x)))
		case int64:
			if x < 0 {
				return -x
			}
			return x
		}
		x := int32(toInt64(args[0]))
		if x < 0 {
			return -x
		}
		return x
	case "max", "min":
		k := promotedKind(args[0], args[1])
		switch k {
		case "double", "float":
			a, b := f(0), f(1)
			var r float64
			switch {
			case math.IsNaN(a) || math.IsNaN(b):
				r = math.NaN()
			case name == "max":
				r = math.Max(a, b)
			default:
				r = math.Min(a, b)
			}
			if k == "float" {
				return float32(r)
			}
			return r
		}
		a, b := toInt64(args[0]), toInt64(args[1])
		r := max(a, b)
		if name == "min" {
			r = min(a, b)
		}
		return convertNum(r, k)
	case "addExact", "subtractExact", "multiplyExact":
		k := promotedKind(args[0], args[1])
		a, b := new(big.Int).SetInt64(toInt64(args[0])), new(big.Int).SetInt64(toInt64(args[1]))
		switch name {
		case "addExact":
			a.Add(a, b)
		case "subtractExact":
			a.Sub(a, b)
		default:
			a.Mul(a, b)
		}
		if k == "long" {
			if !a.IsInt64() {
				throwJava("ArithmeticException", "long overflow")
			}
			return a.Int64()
		}
		if !a.IsInt64() || a.Int64() != int64(int32(a.Int64())) {
			throwJava("ArithmeticException", "integer overflow")
		}
		return int32(a.Int64())
	case "negateExact", "incrementExact", "decrementExact":
		d := map[string]int64{"negateExact": 0, "incrementExact": 1, "decrementExact": -1}[name]
		if _, long := args[0].(int64); long {
			x := toInt64(args[0])
			if name == "negateExact" {
				if x == math.MinInt64 {
					throwJava("ArithmeticException", "long overflow")
				}
				return -x
			}
			if (d > 0 && x == math.MaxInt64) || (d < 0 && x == math.MinInt64) {
				throwJava("ArithmeticException", "long overflow")
			}
			return x + d
		}
		x := toInt64(args[0])
		r := x + d
		if name == "negateExact" {
			r = -x
		}
		if r != int64(int32(r)) {
			throwJava("ArithmeticException", "integer overflow")
		}
		return int32(r)
	case "toIntExact":
		x := toInt64(args[0])
		if x != int64(int32(x)) {
			throwJava("ArithmeticException", "integer overflow")
		}
		return int32(x)
	case "floorDiv", "floorMod":
		a, b := toInt64(args[0]), toInt64(args[1])
		if b == 0 {
			throwJava("ArithmeticException", "/ by zero")
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		r := a - q*b
		if name == "floorDiv" {
			return convertNum(q, promotedKind(args[0], args[1]))
		}
		if _, ok := args[1].(int64); !ok {
			return int32(r)
		}
		return r
	case "round":
		if x, ok := args[0].(float32); ok {
			return int32(f2i(math.Floor(float64(x) + 0.5)))
		}
		x := f(0)
		if math.IsNaN(x) {
			return int64(0)
		}
		return f2l(math.Floor(x + 0.5))
	case "signum":
		x := f(0)
		r := x
		if x > 0 {
			r = 1
		} else if x < 0 {
			r = -1
		}
		if _, ok := args[0].(float32); ok {
			return float32(r)
		}
		return r
	case "sqrt":
		return math.Sqrt(f(0))
	case "cbrt":
		return math.Cbrt(f(0))
	case "pow":
		return javaPow(f(0), f(1))
	case "exp":
		return math.Exp(f(0))
	case "expm1":
		return math.Expm1(f(0))
	case "log":
		return math.Log(f(0))
	case "log10":
		return math.Log10(f(0))
	case "log1p":
		return math.Log1p(f(0))
	case "sin":
		return math.Sin(f(0))
	case "cos":
		return math.Cos(f(0))
	case "tan":
		return math.Tan(f(0))
	case "asin":
		return math.Asin(f(0))
	case "acos":
		return math.Acos(f(0))
	case "atan":
		return math.Atan(f(0))
	case "atan2":
		return math.Atan2(f(0), f(1))
	case "sinh":
		return math.Sinh(f(0))
	case "cosh":
		return math.Cosh(f(0))
	case "tanh":
		return math.Tanh(f(0))
	case "hypot":
		return math.Hypot(f(0), f(1))
	case "ceil":
		return math.Ceil(f(0))
	case "floor":
		return math.Floor(f(0))
	case "rint":
		return math.RoundToEven(f(0))
	case "toRadians":
		return f(0) / 180 * math.Pi
	case "toDegrees":
		return f(0) * 180 / math.Pi
	case "IEEEremainder":
		return math.Remainder(f(0), f(1))
	case "random":
		return rand.Float64()
	case "copySign":
		if x, ok := args[0].(float32); ok {
			if _, ok := args[1].(float64); !ok {
				return float32(math.Copysign(float64(x), f(1)))
			}
		}
		return math.Copysign(f(0), f(1))
	case "ulp", "nextUp", "nextDown", "getExponent", "scalb":
		if x, ok := args[0].(float32); ok {
			switch name {
			case "ulp":
				return float32(math.Abs(float64(math.Nextafter32(x, float32(math.Inf(1))) - x)))
			case "nextUp":
				return math.Nextafter32(x, float32(math.Inf(1)))
			case "nextDown":
				return math.Nextafter32(x, float32(math.Inf(-1)))
			case "getExponent":
				return int32(int(math.Float32bits(x)>>23&0xff) - 127)
			case "scalb":
				return float32(math.Ldexp(float64(x), int(toInt64(args[1]))))
			}
		}
		x := f(0)
		switch name {
		case "ulp":
			return math.Abs(math.Nextafter(x, math.Inf(1)) - x)
		case "nextUp":
			return math.Nextafter(x, math.Inf(1))
		case "nextDown":
			return math.Nextafter(x, math.Inf(-1))
		case "getExponent":
			return int32(int(math.Float64bits(x)>>52&0x7ff) - 1023)
		}
		return math.Ldexp(x, int(toInt64(args[1])))
	}
	panic(&UnsupportedError{Line: line, Construct: "Math." + name})
}

// javaPow is Math.pow, which differs from Go's math.Pow for a NaN
// exponent with base 1 (NaN in Java) and |base| == 1 with an infinite
// exponent (NaN in Java).
func javaPow(a, b float64) float64 {
	if math.IsNaN(b) || (math.Abs(a) == 1 && math.IsInf(b, 0)) {
		return math.NaN()
	}
	return math.Pow(a, b)
}
