package types

import (
	"math/big"
	"strconv"
	"strings"
)

// DecimalValue is a CQL decimal: Unscaled × 10^-Scale, as Java's BigDecimal.
//
// Serialized form (DecimalSerializer): the scale as a big-endian int32, then
// the unscaled value as a varint (minimal two's complement). 12.34 is
// 00 00 00 02 04 d2.
type DecimalValue struct {
	Unscaled *big.Int
	Scale    int32
}

// String formats the decimal as Java's BigDecimal.toString and Python's
// Decimal.__str__ do (they agree): plain notation when the scale is not
// negative and the adjusted exponent is at least -6, otherwise scientific
// notation such as 1E+3 or 1.5E-7.
func (d DecimalValue) String() string {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	digits := new(big.Int).Abs(u).String()
	var b strings.Builder
	if u.Sign() < 0 {
		b.WriteByte('-')
	}
	adjusted := -int64(d.Scale) + int64(len(digits)-1)
	if d.Scale >= 0 && adjusted >= -6 {
		point := len(digits) - int(d.Scale)
		switch {
		case d.Scale == 0:
			b.WriteString(digits)
		case point > 0:
			b.WriteString(digits[:point])
			b.WriteByte('.')
			b.WriteString(digits[point:])
		default:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -point))
			b.WriteString(digits)
		}
		return b.String()
	}
	b.WriteString(digits[:1])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('E')
	if adjusted >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.FormatInt(adjusted, 10))
	return b.String()
}

// Rat returns the decimal as an exact rational. It allocates 10^|Scale|, so
// keep it for tests and small scales.
func (d DecimalValue) Rat() *big.Rat {
	r := new(big.Rat).SetInt(d.Unscaled)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(int64(d.Scale))), nil)
	if d.Scale >= 0 {
		return r.Quo(r, new(big.Rat).SetInt(p))
	}
	return r.Mul(r, new(big.Rat).SetInt(p))
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// ParseDecimal parses a decimal as Java's new BigDecimal(String): an
// optional sign, digits with an optional point, and an optional exponent.
// The scale is the number of fraction digits minus the exponent, so "1.50"
// has scale 2 and "1E+3" scale -3.
func ParseDecimal(s string) (DecimalValue, bool) {
	in := s
	neg := false
	if in != "" && (in[0] == '+' || in[0] == '-') {
		neg = in[0] == '-'
		in = in[1:]
	}
	mant, exp := in, ""
	if i := strings.IndexAny(in, "eE"); i >= 0 {
		mant, exp = in[:i], in[i+1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return DecimalValue{}, false
	}
	scale := int64(len(frac))
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || e > 1<<40 || e < -1<<40 {
			return DecimalValue{}, false
		}
		scale -= e
	}
	if scale < -1<<31 || scale > 1<<31-1 {
		return DecimalValue{}, false
	}
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return DecimalValue{}, false
	}
	if neg {
		u.Neg(u)
	}
	return DecimalValue{Unscaled: u, Scale: int32(scale)}, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// encodeVarint returns the minimal two's complement big-endian bytes of v
// (IntegerSerializer): 0 → 00, 128 → 00 80, -1 → ff, -129 → ff 7f.
func encodeVarint(v *big.Int) []byte {
	switch v.Sign() {
	case 0:
		return []byte{0}
	case 1:
		b := v.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// Two's complement of a negative: (|v| - 1) with bits inverted.
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// decodeVarint reads two's complement big-endian bytes (any length ≥ 1).
func decodeVarint(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return v
}

func encodeDecimal(d DecimalValue) []byte {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	vb := encodeVarint(u)
	out := make([]byte, 4, 4+len(vb))
	out[0], out[1], out[2], out[3] = byte(uint32(d.Scale)>>24), byte(uint32(d.Scale)>>16), byte(uint32(d.Scale)>>8), byte(uint32(d.Scale))
	return append(out, vb...)
}

func decodeDecimal(b []byte) DecimalValue {
	scale := int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	return DecimalValue{Unscaled: decodeVarint(b[4:]), Scale: scale}
}
