package expr

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/types"
	"github.com/minicass/minicass/wire"
)

// This file holds the native aggregates (cql3/functions/AggregateFcts):
// count(*), count(x), min, max, sum and avg, and CAST (CastFcts). Their
// result types and overflow behaviour follow Cassandra: sum and avg of an
// integer type have that type and wrap around on overflow as Java's
// arithmetic does; avg truncates towards zero; count is a bigint.

func isAggregateName(name string) bool {
	switch name {
	case "count", "min", "max", "sum", "avg":
		return true
	}
	return false
}

// countRowsSel is count(*), named "count".
type countRowsSel struct{}

func (*countRowsSel) Name() string       { return "count" }
func (*countRowsSel) Typ() types.Type    { return types.BigintType }
func (*countRowsSel) Aggregate() bool    { return true }
func (*countRowsSel) NewEval() Evaluator { return &countEval{} }

type countEval struct {
	n   int64
	arg Evaluator // nil for count(*)
}

func (e *countEval) Add(q *query.Execution, r *SelRow) error {
	if e.arg == nil {
		e.n++
		return nil
	}
	e.arg.Reset()
	if err := e.arg.Add(q, r); err != nil {
		return err
	}
	v, err := e.arg.Out(q)
	if err != nil {
		return err
	}
	if v != nil {
		e.n++
	}
	return nil
}

func (e *countEval) Out(*query.Execution) ([]byte, error) { return Int64Bytes(e.n), nil }
func (e *countEval) Reset()                               { e.n = 0 }

// aggSel is count(x), min(x), max(x), sum(x) or avg(x).
type aggSel struct {
	fn  string
	arg Selector
	ret types.Type
}

func newAggregateSel(fn string, arg Selector) (Selector, error) {
	t := arg.Typ()
	s := &aggSel{fn: fn, arg: arg, ret: t}
	switch fn {
	case "count":
		s.ret = types.BigintType
	case "min", "max":
		if t.IsCollection() || t.IsUDT() || t.Kind == types.Tuple {
			// AggregateFcts declares min and max for the native types
			// only: another type resolves to the blob overload, which
			// compares and returns the value's bytes.
			s.ret = types.BlobType
		}
	case "sum", "avg":
		switch t.Kind {
		case types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Float, types.Double, types.Varint, types.Decimal, types.Counter:
			if t.Kind == types.Counter {
				s.ret = types.BigintType
			}
		default:
			return nil, query.Invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: system.%s : (tinyint) -> tinyint, system.%s : (smallint) -> smallint, system.%s : (int) -> int, system.%s : (bigint) -> bigint, system.%s : (float) -> float, system.%s : (double) -> double, system.%s : (decimal) -> decimal, system.%s : (varint) -> varint, system.%s : (counter) -> bigint)", fn, fn, fn, fn, fn, fn, fn, fn, fn, fn)
		}
	}
	return s, nil
}

func (s *aggSel) Name() string    { return "system." + s.fn + "(" + s.arg.Name() + ")" }
func (s *aggSel) Typ() types.Type { return s.ret }
func (s *aggSel) Aggregate() bool { return true }
func (s *aggSel) NewEval() Evaluator {
	if s.fn == "count" {
		return &countEval{arg: s.arg.NewEval()}
	}
	return &aggEval{s: s, arg: s.arg.NewEval()}
}

type aggEval struct {
	s     *aggSel
	arg   Evaluator
	best  []byte // min / max
	n     int64
	isum  *big.Int // integer sums (wrapped at output)
	fsum  float64
	fcomp float64 // Kahan compensation, as Cassandra sums floating point
	// fsimple is the plain sum, fbig the exact sum once an average's
	// Kahan sum overflowed (FloatSumAggregate, FloatAvgAggregate).
	fsimple float64
	fbig    *decimal
	// davg is a decimal average as it runs (avgFunctionForDecimal).
	davg  *decimal
	dsum  *big.Rat
	dscal int32
}

func (e *aggEval) Reset() {
	e.best, e.n, e.isum, e.fsum, e.fcomp, e.dsum, e.dscal = nil, 0, nil, 0, 0, nil, 0
	e.fsimple, e.fbig, e.davg = 0, nil, nil
}

func (e *aggEval) Add(q *query.Execution, r *SelRow) error {
	e.arg.Reset()
	if err := e.arg.Add(q, r); err != nil {
		return err
	}
	v, err := e.arg.Out(q)
	if err != nil || v == nil {
		return err
	}
	t := e.s.arg.Typ()
	if e.s.ret.Kind == types.Blob {
		t = types.BlobType
	}
	switch e.s.fn {
	case "min":
		if e.best == nil || types.Compare(t, v, e.best) < 0 {
			e.best = v
		}
		return nil
	case "max":
		if e.best == nil || types.Compare(t, v, e.best) > 0 {
			e.best = v
		}
		return nil
	}
	if len(v) == 0 {
		return nil
	}
	e.n++
	switch t.Kind {
	case types.Float, types.Double:
		f := floatOf(t, v)
		if e.fbig != nil {
			e.fbig = e.fbig.add(decimalOfFloat(f))
			return nil
		}
		e.fsimple += f
		prev := e.fsum
		y := f - e.fcomp
		s := e.fsum + y
		e.fcomp = (s - e.fsum) - y
		e.fsum = s
		if e.s.fn == "avg" && math.IsInf(s, 0) && !math.IsInf(f, 0) {
			// FloatAvgAggregate goes on with BigDecimal once the sum
			// overflows.
			e.fbig = decimalOfFloat(prev).add(decimalOfFloat(f))
		}
	case types.Decimal:
		d, ok := decimalOf(v)
		if !ok {
			return nil
		}
		if d.Scale > types.MaxDecimalPow10 || d.Scale < -types.MaxDecimalPow10 {
			// BigDecimal.add would align the sum by a power of ten
			// this large.
			return &query.Error{Code: wire.CodeFunctionFailure, Message: fmt.Sprintf("execution of 'system.%s[decimal]' failed: %v", e.s.fn, types.ErrBigIntegerOverflow)}
		}
		if e.s.fn == "avg" {
			// avg = avg + (value - avg) / count, each division rounded
			// HALF_EVEN at its dividend's scale.
			x := &decimal{u: d.Unscaled, scale: d.Scale}
			if e.davg == nil {
				e.davg = &decimal{u: new(big.Int)}
			}
			e.davg = e.davg.add(x.sub(e.davg).divInt(e.n))
			return nil
		}
		if e.dsum == nil {
			e.dsum = new(big.Rat)
		}
		e.dsum.Add(e.dsum, d.Rat())
		if d.Scale > e.dscal {
			e.dscal = d.Scale
		}
	default:
		if e.isum == nil {
			e.isum = new(big.Int)
		}
		e.isum.Add(e.isum, intOf(t, v))
	}
	return nil
}

func (e *aggEval) Out(*query.Execution) ([]byte, error) {
	if e.s.fn == "min" || e.s.fn == "max" {
		return e.best, nil
	}
	t := e.s.arg.Typ()
	avg := e.s.fn == "avg"
	switch t.Kind {
	case types.Float, types.Double:
		if avg && e.n == 0 {
			return floatBytes(t, 0), nil
		}
		if e.fbig != nil {
			return floatBytes(t, e.fbig.divInt(e.n).float()), nil
		}
		// The Kahan sum is NaN after same-signed infinities: the plain
		// sum is then the answer.
		f := e.fsum + e.fcomp
		if math.IsNaN(f) && math.IsInf(e.fsimple, 0) {
			f = e.fsimple
		}
		if avg {
			f /= float64(e.n)
		}
		return floatBytes(t, f), nil
	case types.Decimal:
		if avg {
			if e.davg == nil {
				return decimalBytes(&decimal{u: new(big.Int)}), nil
			}
			return decimalBytes(e.davg), nil
		}
		sum := e.dsum
		if sum == nil {
			sum = new(big.Rat)
		}
		return ratDecimal(sum, e.dscal), nil
	}
	sum := e.isum
	if sum == nil {
		sum = new(big.Int)
	}
	if avg && e.n > 0 {
		sum = new(big.Int).Quo(sum, big.NewInt(e.n)) // truncates towards zero, as Java
	}
	return intBytes(e.s.ret, sum), nil
}

// intOf decodes an integer value of type t.
func intOf(t types.Type, v []byte) *big.Int {
	switch t.Kind {
	case types.Varint:
		return varintOf(v)
	}
	var x int64
	switch len(v) {
	case 1:
		x = int64(int8(v[0]))
	case 2:
		x = int64(int16(binary.BigEndian.Uint16(v)))
	case 4:
		x = int64(int32(binary.BigEndian.Uint32(v)))
	case 8:
		x = int64(binary.BigEndian.Uint64(v))
	}
	return big.NewInt(x)
}

func varintOf(v []byte) *big.Int {
	x := new(big.Int).SetBytes(v)
	if len(v) > 0 && v[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(v))))
	}
	return x
}

// intBytes serializes x as type t, wrapping around like Java's narrowing.
func intBytes(t types.Type, x *big.Int) []byte {
	if t.Kind == types.Varint {
		return varintBytes(x)
	}
	// Low 64 bits, two's complement.
	m := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64))
	u := m.Uint64()
	switch t.Kind {
	case types.Tinyint:
		return []byte{byte(u)}
	case types.Smallint:
		return binary.BigEndian.AppendUint16(nil, uint16(u))
	case types.Int:
		return binary.BigEndian.AppendUint32(nil, uint32(u))
	}
	return binary.BigEndian.AppendUint64(nil, u)
}

func varintBytes(x *big.Int) []byte {
	if x.Sign() == 0 {
		return []byte{0}
	}
	if x.Sign() > 0 {
		b := x.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// Two's complement of a negative number in the minimal length.
	n := len(x.Bytes()) + 1
	m := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), uint(8*n)), x)
	b := m.Bytes()
	for len(b) < n {
		b = append([]byte{0xff}, b...)
	}
	for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}

func floatOf(t types.Type, v []byte) float64 {
	if t.Kind == types.Float && len(v) == 4 {
		return float64(math.Float32frombits(binary.BigEndian.Uint32(v)))
	}
	if len(v) == 8 {
		return math.Float64frombits(binary.BigEndian.Uint64(v))
	}
	return 0
}

func floatBytes(t types.Type, f float64) []byte {
	if t.Kind == types.Float {
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f)))
	}
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
}

func decimalOf(v []byte) (types.DecimalValue, bool) {
	if len(v) < 4 {
		return types.DecimalValue{}, false
	}
	return types.DecimalValue{Scale: int32(binary.BigEndian.Uint32(v)), Unscaled: varintOf(v[4:])}, true
}

// decimal is a BigDecimal: unscaled value u times ten to the power -scale.
type decimal struct {
	u     *big.Int
	scale int32
}

// decimalOfFloat is BigDecimal.valueOf(f): the decimal of f's shortest
// text.
func decimalOfFloat(f float64) *decimal {
	d, ok := types.ParseDecimal(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return &decimal{u: new(big.Int)}
	}
	return &decimal{u: d.Unscaled, scale: d.Scale}
}

// rescale returns d's unscaled value at scale s (s >= d.scale).
func (d *decimal) rescale(s int32) *big.Int {
	if s == d.scale {
		return d.u
	}
	return new(big.Int).Mul(d.u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-d.scale)), nil))
}

func (d *decimal) add(o *decimal) *decimal {
	s := max(d.scale, o.scale)
	return &decimal{u: new(big.Int).Add(d.rescale(s), o.rescale(s)), scale: s}
}

func (d *decimal) sub(o *decimal) *decimal {
	s := max(d.scale, o.scale)
	return &decimal{u: new(big.Int).Sub(d.rescale(s), o.rescale(s)), scale: s}
}

// divInt is d.divide(BigDecimal.valueOf(n), RoundingMode.HALF_EVEN): the
// quotient at d's scale, ties to the even neighbour.
func (d *decimal) divInt(n int64) *decimal {
	den := big.NewInt(n)
	q, r := new(big.Int).QuoRem(d.u, den, new(big.Int))
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	if c := twice.Cmp(new(big.Int).Abs(den)); c > 0 || (c == 0 && q.Bit(0) == 1) {
		if (d.u.Sign() < 0) != (n < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return &decimal{u: q, scale: d.scale}
}

// float is BigDecimal.doubleValue.
func (d *decimal) float() float64 {
	r := new(big.Rat).SetInt(d.u)
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(d.scale))), nil))
	if d.scale > 0 {
		r.Quo(r, p)
	} else {
		r.Mul(r, p)
	}
	f, _ := r.Float64()
	return f
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func decimalBytes(d *decimal) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(d.scale)), varintBytes(d.u)...)
}

// ratDecimal serializes the sum r as a decimal with the given scale.
func ratDecimal(r *big.Rat, scale int32) []byte {
	num := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	num.Quo(num, r.Denom())
	out := binary.BigEndian.AppendUint32(nil, uint32(scale))
	return append(out, varintBytes(num)...)
}

// newCastSel compiles CAST(arg AS to) in a selection (Selectable.WithCast):
// a cast to the argument's own type is the argument itself, any other is
// CastFcts' overload for the argument's type, and a type CastFcts does not
// convert is refused naming the argument.
func newCastSel(arg Selector, to types.Type) (Selector, error) {
	from := arg.Typ()
	if from.Equal(to) {
		return arg, nil
	}
	conv, ok := castConversion(from, to)
	if !ok {
		return nil, query.Invalidf("%s cannot be cast to %s", arg.Name(), to)
	}
	return &castSel{arg: arg, to: to, conv: conv}, nil
}

// castText renders a value as CAST(x AS text) does.
func castText(t types.Type, b []byte) string {
	switch t.Kind {
	case types.Text, types.Ascii:
		return string(b)
	case types.Float, types.Double:
		f := floatOf(t, b)
		bits := 64
		if t.Kind == types.Float {
			bits = 32
		}
		s := strconv.FormatFloat(f, 'G', -1, bits)
		if !containsAny(s, ".EN") {
			s += ".0"
		}
		return s
	}
	if t.Kind == types.Timestamp {
		// TimestampSerializer.toCQLLiteral: 2015-05-21T11:03:02.000Z.
		return strings.Trim(types.FormatLiteral(t, b), "'")
	}
	j := types.AppendJSON(nil, t, b)
	if len(j) >= 2 && j[0] == '"' && j[len(j)-1] == '"' {
		return string(j[1 : len(j)-1])
	}
	return string(j)
}

func containsAny(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return true
			}
		}
	}
	return false
}

// castHugeDecimal casts a decimal whose scale is too far from zero to be
// made exact, as Java's BigDecimal conversions do without expanding it:
// doubleValue and floatValue round to zero or infinity, and longValue
// (and intValue) give 0 for a value that is all fraction or a multiple of
// 10^64. A varint keeps the integer part, which exists only for a value
// of more than MaxDecimalPow10 digits or a huge one: the huge ones, which
// Java would expand, give null.
func castHugeDecimal(d types.DecimalValue, to types.Type) []byte {
	switch to.Kind {
	case types.Float, types.Double:
		f, _ := strconv.ParseFloat(d.String(), 64)
		return floatBytes(to, f)
	case types.Decimal:
		return append(binary.BigEndian.AppendUint32(nil, uint32(d.Scale)), varintBytes(d.Unscaled)...)
	case types.Varint:
		if d.Scale > 0 && int64(len(new(big.Int).Abs(d.Unscaled).String())) <= int64(d.Scale) {
			return intBytes(to, new(big.Int))
		}
		return nil
	}
	return intBytes(to, new(big.Int))
}

func castNumber(from, to types.Type, b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var r *big.Rat
	var f float64
	isFloat := false
	switch from.Kind {
	case types.Float, types.Double:
		f, isFloat = floatOf(from, b), true
	case types.Decimal:
		d, ok := decimalOf(b)
		if !ok {
			return nil
		}
		if d.Scale > types.MaxDecimalPow10 || d.Scale < -types.MaxDecimalPow10 {
			return castHugeDecimal(d, to)
		}
		r = d.Rat()
	default:
		r = new(big.Rat).SetInt(intOf(from, b))
	}
	switch to.Kind {
	case types.Float, types.Double:
		if !isFloat {
			f, _ = r.Float64()
		}
		return floatBytes(to, f)
	case types.Decimal:
		if isFloat {
			// new BigDecimal(Float.toString(f)) for a float (CASSANDRA-18647,
			// 4.1.3), BigDecimal.valueOf(d), which reads Double.toString(d),
			// for a double.
			bits := 64
			if from.Kind == types.Float {
				bits = 32
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil
			}
			d, ok := types.ParseDecimal(types.JavaFloatString(f, bits))
			if !ok {
				return nil
			}
			return append(binary.BigEndian.AppendUint32(nil, uint32(d.Scale)), varintBytes(d.Unscaled)...)
		}
		if r.IsInt() {
			return append(binary.BigEndian.AppendUint32(nil, 0), varintBytes(r.Num())...)
		}
		return b
	}
	var i *big.Int
	if isFloat {
		// Java's (long) d saturates; NaN becomes 0.
		switch {
		case math.IsNaN(f):
			i = new(big.Int)
		case f >= math.MaxInt64:
			i = big.NewInt(math.MaxInt64)
		case f <= math.MinInt64:
			i = big.NewInt(math.MinInt64)
		default:
			i = big.NewInt(int64(f))
		}
	} else {
		i = new(big.Int).Quo(r.Num(), r.Denom())
	}
	return intBytes(to, i)
}
