package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"
)

// Order is the clustering order of a column.
type Order uint8

// Clustering orders.
const (
	Asc Order = iota
	Desc
)

// String returns "ASC" or "DESC".
func (o Order) String() string {
	if o == Desc {
		return "DESC"
	}
	return "ASC"
}

// ClusteringColumn describes one clustering column for the key encoding.
type ClusteringColumn struct {
	Type  Type
	Order Order
}

// BoundKind says which side of a clustering prefix a bound stands on.
type BoundKind uint8

// Bound kinds. A slice is the half-open byte range [start, end).
const (
	StartInclusive BoundKind = iota
	StartExclusive
	EndInclusive
	EndExclusive
)

// KeyKind is what DecodeClustering found at the end of a key.
type KeyKind uint8

// Key kinds.
const (
	// FullKey is a row's clustering key (terminator 0x80).
	FullKey KeyKind = iota
	// BeforePrefix is a bound that sorts before every key with its prefix
	// (terminator 0x00): written for StartInclusive and EndExclusive.
	BeforePrefix
	// AfterPrefix is a bound that sorts after every key with its prefix
	// (terminator 0xFF): written for StartExclusive and EndInclusive.
	AfterPrefix
)

// String returns "full", "before-prefix" or "after-prefix".
func (k KeyKind) String() string {
	switch k {
	case FullKey:
		return "full"
	case BeforePrefix:
		return "before-prefix"
	case AfterPrefix:
		return "after-prefix"
	}
	return "invalid"
}

// Format constants of the byte-comparable key encoding. They are part of
// the on-disk format of memtables' and SSTables' clustering keys: frozen.
const (
	headerNull  = 0x3E // tuple field that is null (nested only)
	headerEmpty = 0x3F // the empty value
	headerValue = 0x40 // any other value

	nestedEnd = 0x00 // end of a frozen collection or tuple body

	termFull   = 0x80 // end of a full clustering key
	termBefore = 0x00 // after a prefix: before every key with the prefix
	termAfter  = 0xFF // after a prefix: after every key with the prefix
)

// EncodeClustering encodes a full clustering key: one component per column
// and the terminator 0x80. len(values) must equal len(cols); null values,
// invalid values and types that cannot be clustering columns (counter,
// duration, non-frozen collections) are refused with an error wrapping
// ErrInvalidKey or ErrInvalidValue.
func EncodeClustering(cols []ClusteringColumn, values [][]byte) ([]byte, error) {
	// A component is a header byte and a body about as long as the value
	// (exactly for the fixed-width types); one more byte ends the key.
	size := 1
	for _, v := range values {
		size += 2 + len(v)
	}
	return AppendClustering(make([]byte, 0, size), cols, values)
}

// AppendClustering appends the full clustering key of values to dst; see
// EncodeClustering.
func AppendClustering(dst []byte, cols []ClusteringColumn, values [][]byte) ([]byte, error) {
	if len(values) != len(cols) {
		return dst, keyErr("%d values for %d clustering columns", len(values), len(cols))
	}
	dst, err := appendPrefix(dst, cols, values)
	if err != nil {
		return dst, err
	}
	return append(dst, termFull), nil
}

// EncodeBound encodes a slice bound on a clustering prefix (0 to len(cols)
// values): the prefix's components followed by 0x00 for StartInclusive and
// EndExclusive or 0xFF for StartExclusive and EndInclusive. For every full
// key K with prefix P, EncodeBound(P, StartInclusive) < K <
// EncodeBound(P, EndInclusive), and no bound equals a key.
func EncodeBound(cols []ClusteringColumn, prefix [][]byte, kind BoundKind) ([]byte, error) {
	if len(prefix) > len(cols) {
		return nil, keyErr("%d values for %d clustering columns", len(prefix), len(cols))
	}
	dst, err := appendPrefix(nil, cols, prefix)
	if err != nil {
		return nil, err
	}
	switch kind {
	case StartInclusive, EndExclusive:
		return append(dst, termBefore), nil
	case StartExclusive, EndInclusive:
		return append(dst, termAfter), nil
	}
	return nil, keyErr("unknown bound kind %d", kind)
}

func appendPrefix(dst []byte, cols []ClusteringColumn, values [][]byte) ([]byte, error) {
	for i, v := range values {
		c := cols[i]
		if v == nil {
			return dst, keyErr("null value for clustering column %d", i)
		}
		if err := checkKeyType(c.Type); err != nil {
			return dst, err
		}
		if err := Validate(c.Type, v); err != nil {
			return dst, err
		}
		start := len(dst)
		dst = appendComponent(dst, c.Type, v)
		if c.Order == Desc {
			invert(dst[start:])
		}
	}
	return dst, nil
}

func checkKeyType(t Type) error {
	switch {
	case t.Kind == Counter, t.Kind == Duration:
		return keyErr("%s type is not supported for PRIMARY KEY column", t)
	case t.IsMultiCell():
		return keyErr("Invalid non-frozen collection type %s for PRIMARY KEY component", t)
	}
	for _, p := range t.Params {
		if err := checkKeyType(p); err != nil {
			return err
		}
	}
	return nil
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// EncodeKey encodes one value as an ascending component without a
// terminator, so element keys of non-frozen collections (map keys, set
// elements, list timeuuids) sort with bytes.Compare as the element type's
// comparator orders them. It returns nil if v is null or not a valid value
// of t (a real key is never empty).
func EncodeKey(t Type, v []byte) []byte {
	if v == nil || Validate(t, v) != nil {
		return nil
	}
	return appendComponent(make([]byte, 0, len(v)+3), t, v)
}

// DecodeKey decodes a key written by EncodeKey back to the value's
// serialized bytes (normalised for varint, decimal, boolean and NaN, which
// have several serializations of one comparator value).
func DecodeKey(t Type, k []byte) ([]byte, error) {
	r := &keyReader{b: k}
	v, err := r.component(t)
	if err != nil {
		return nil, err
	}
	if r.pos != len(k) {
		return nil, keyErr("%d trailing bytes", len(k)-r.pos)
	}
	return v, nil
}

// DecodeClustering decodes a key written by EncodeClustering or EncodeBound
// back to its values (a prefix of cols for bounds) and says which kind of
// key it is. Values are returned normalised (see DecodeKey). Errors wrap
// ErrInvalidKey.
func DecodeClustering(cols []ClusteringColumn, key []byte) ([][]byte, KeyKind, error) {
	r := keyReader{b: key}
	values, kind, err := r.clustering(cols, nil)
	return values, kind, err
}

// AppendDecodedClustering is DecodeClustering without allocating, in the
// usual case: it appends the decoded values to values and their bytes to
// buf (which it may grow), and returns both. The values share buf, except
// those of uuid, timeuuid, varint, decimal, collection and tuple components,
// which have their own arrays. A caller decoding many keys in turn can pass
// values[:0] and buf[:0] again once it no longer needs the previous values.
func AppendDecodedClustering(values [][]byte, buf []byte, cols []ClusteringColumn, key []byte) ([][]byte, []byte, KeyKind, error) {
	if buf == nil {
		buf = make([]byte, 0, 2*len(key))
	}
	// Field by field: a composite literal is built aside and copied,
	// and the copy stalls on the stores it reads back.
	var r keyReader
	r.b, r.arena, r.buf = key, true, buf
	values, kind, err := r.clustering(cols, values)
	return values, r.buf, kind, err
}

// clustering decodes a clustering key or bound, appending its values to
// values.
func (r *keyReader) clustering(cols []ClusteringColumn, values [][]byte) ([][]byte, KeyKind, error) {
	key := r.b
	for i := 0; ; i++ {
		r.mask = 0
		c, ok := r.peek()
		if !ok {
			return nil, 0, keyErr("missing terminator")
		}
		if i < len(cols) {
			if cols[i].Order == Desc {
				c = ^c
			}
			if c == headerEmpty || c == headerValue {
				if cols[i].Order == Desc {
					r.mask = 0xff
				}
				if c == headerValue && r.arena {
					if v, ok := r.fixedInt(cols[i].Type.Kind); ok {
						values = append(values, v)
						continue
					}
				}
				v, err := r.component(cols[i].Type)
				if err != nil {
					return nil, 0, err
				}
				values = append(values, v)
				continue
			}
			if cols[i].Order == Desc {
				c = ^c
			}
		}
		r.pos++
		if r.pos != len(key) {
			return nil, 0, keyErr("%d bytes after the terminator", len(key)-r.pos)
		}
		switch {
		case c == termFull && i == len(cols):
			return values, FullKey, nil
		case c == termBefore:
			return values, BeforePrefix, nil
		case c == termAfter:
			return values, AfterPrefix, nil
		}
		return nil, 0, keyErr("unexpected byte %#x after %d components", c, i)
	}
}

// fixedInt is component for the fixed-width integer kinds in arena mode,
// the usual clustering columns, read in one pass: the header (already
// peeked as headerValue), the body through the mask and its sign bit
// restored. Its length is the one Validate checks, so the value needs no
// other check. ok is false for other kinds, or a truncated key, which
// component then reads (and refuses) as usual.
func (r *keyReader) fixedInt(k Kind) ([]byte, bool) {
	switch k {
	case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
	default:
		return nil, false
	}
	n := intSize(k)
	body := r.pos + 1
	if len(r.b)-body < n {
		return nil, false
	}
	start := len(r.buf)
	r.buf = append(r.buf, r.b[body:body+n]...)
	v := r.buf[start:len(r.buf):len(r.buf)]
	if r.mask != 0 {
		for i := range v {
			v[i] ^= r.mask
		}
	}
	v[0] ^= 0x80
	r.pos = body + n
	return v, true
}

// appendComponent appends header and body of the non-null value v.
func appendComponent(dst []byte, t Type, v []byte) []byte {
	if len(v) == 0 {
		return append(dst, headerEmpty)
	}
	return appendBody(append(dst, headerValue), t, v)
}

// appendBody appends the order-preserving, prefix-free body of a non-empty
// valid value.
func appendBody(dst []byte, t Type, v []byte) []byte {
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
		dst = append(dst, v[0]^0x80)
		return append(dst, v[1:]...)
	case Date:
		return append(dst, v...)
	case Boolean:
		if v[0] != 0 {
			return append(dst, 1)
		}
		return append(dst, 0)
	case Float:
		return binary.BigEndian.AppendUint32(dst, uint32(floatKey32(v)))
	case Double:
		return binary.BigEndian.AppendUint64(dst, floatKey64(v))
	case UUID:
		return uuidKey(dst, v)
	case TimeUUID:
		return timeUUIDKey(dst, v)
	case Varint:
		return appendVarintKey(dst, decodeVarint(v))
	case Decimal:
		return appendDecimalKey(dst, v)
	case List, Set, Map:
		elems, _ := DecodeCollection(t, v)
		for i, e := range elems {
			et := t.Params[0]
			if t.Kind == Map {
				et = t.Params[i%2]
			}
			dst = appendComponent(dst, et, e)
		}
		return append(dst, nestedEnd)
	case Tuple:
		fields, _ := DecodeTuple(t, v)
		last := len(fields)
		for last > 0 && fields[last-1] == nil {
			last--
		}
		for i, f := range fields[:last] {
			if f == nil {
				dst = append(dst, headerNull)
				continue
			}
			dst = appendComponent(dst, t.Params[i], f)
		}
		return append(dst, nestedEnd)
	}
	// text, ascii, blob, inet, duration: escaped bytes.
	for _, c := range v {
		if c == 0 {
			dst = append(dst, 0x00, 0xff)
			continue
		}
		dst = append(dst, c)
	}
	return append(dst, 0x00, 0x01)
}

// appendVarintKey: a sign byte (0x01 negative, 0x02 zero, 0x03 positive),
// then for non-zero values the byte length of |v| (one byte if below 0x80,
// else 0xFF and a uint32) and the magnitude bytes, all inverted for
// negatives so larger magnitudes sort first.
func appendVarintKey(dst []byte, v *big.Int) []byte {
	switch v.Sign() {
	case 0:
		return append(dst, 0x02)
	case 1:
		return appendMagnitude(append(dst, 0x03), v.Bytes())
	}
	start := len(dst) + 1
	dst = appendMagnitude(append(dst, 0x01), new(big.Int).Neg(v).Bytes())
	invert(dst[start:])
	return dst
}

func appendMagnitude(dst, mag []byte) []byte {
	if len(mag) < 0x80 {
		dst = append(dst, byte(len(mag)))
	} else {
		dst = append(dst, 0xff)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(mag)))
	}
	return append(dst, mag...)
}

// appendDecimalKey: the decimal normalised (trailing zeros of the unscaled
// value removed) as sign byte (0x01, 0x02 zero, 0x03), then the adjusted
// exponent E (value = d.ddd × 10^E) as a big-endian int64 with its sign bit
// flipped, then the digits two per byte (10·d1 + d2 + 1, the last one padded
// with 0) and a 0x00 terminator; everything after the sign byte inverted for
// negatives. 1.0 and 1.00 both encode as 03 80 00 00 00 00 00 00 00 0b 00.
func appendDecimalKey(dst, v []byte) []byte {
	d := decodeDecimal(v)
	if d.Unscaled.Sign() == 0 {
		return append(dst, 0x02)
	}
	digits := new(big.Int).Abs(d.Unscaled).String()
	trimmed := strings.TrimRight(digits, "0")
	scale := int64(d.Scale) - int64(len(digits)-len(trimmed))
	exp := int64(len(trimmed)-1) - scale
	neg := d.Unscaled.Sign() < 0
	if neg {
		dst = append(dst, 0x01)
	} else {
		dst = append(dst, 0x03)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(exp)^1<<63)
	for i := 0; i < len(trimmed); i += 2 {
		hi := trimmed[i] - '0'
		lo := byte(0)
		if i+1 < len(trimmed) {
			lo = trimmed[i+1] - '0'
		}
		dst = append(dst, hi*10+lo+1)
	}
	dst = append(dst, 0x00)
	if neg {
		invert(dst[start:])
	}
	return dst
}

// keyReader reads key bytes through an xor mask (0xFF inside DESC
// components). With arena set, the fixed-width and escaped bodies it reads
// are appended to buf (never nil then) instead of new slices.
type keyReader struct {
	b     []byte
	pos   int
	mask  byte
	arena bool
	buf   []byte
}

func (r *keyReader) peek() (byte, bool) {
	if r.pos >= len(r.b) {
		return 0, false
	}
	return r.b[r.pos] ^ r.mask, true
}

func (r *keyReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, keyErr("truncated key")
	}
	c := r.b[r.pos] ^ r.mask
	r.pos++
	return c, nil
}

// read returns the next n bytes unmasked, in a new slice.
func (r *keyReader) read(n int) ([]byte, error) {
	if n < 0 || len(r.b)-r.pos < n {
		return nil, keyErr("truncated key")
	}
	var out []byte
	if r.arena {
		start := len(r.buf)
		r.buf = append(r.buf, r.b[r.pos:r.pos+n]...)
		out = r.buf[start:len(r.buf):len(r.buf)]
		if r.mask != 0 {
			for i := range out {
				out[i] ^= r.mask
			}
		}
	} else {
		out = make([]byte, n)
		for i := range out {
			out[i] = r.b[r.pos+i] ^ r.mask
		}
	}
	r.pos += n
	return out, nil
}

func (r *keyReader) component(t Type) ([]byte, error) {
	h, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch h {
	case headerEmpty:
		if !emptyAllowed(t) {
			return nil, keyErr("empty value for %s", t)
		}
		return []byte{}, nil
	case headerValue:
		return r.body(t)
	}
	return nil, keyErr("bad component header %#x", h)
}

// intSize is the serialized size of a fixed-width integer kind.
func intSize(k Kind) int {
	switch k {
	case Int:
		return 4
	case Smallint:
		return 2
	case Tinyint:
		return 1
	}
	return 8
}

func emptyAllowed(t Type) bool {
	switch t.Kind {
	case Smallint, Tinyint, Date, Time, Duration:
		return false
	}
	return true
}

func (r *keyReader) body(t Type) ([]byte, error) {
	var v []byte
	var err error
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter, Timestamp, Time:
		if v, err = r.read(intSize(t.Kind)); err != nil {
			return nil, err
		}
		v[0] ^= 0x80
	case Date:
		v, err = r.read(4)
	case Boolean:
		if v, err = r.read(1); err == nil && v[0] > 1 {
			err = keyErr("bad boolean %#x", v[0])
		}
	case Float:
		if v, err = r.read(4); err == nil {
			u := binary.BigEndian.Uint32(v)
			if u&0x80000000 != 0 {
				u &^= 0x80000000
			} else {
				u = ^u
			}
			binary.BigEndian.PutUint32(v, u)
		}
	case Double:
		if v, err = r.read(8); err == nil {
			u := binary.BigEndian.Uint64(v)
			if u&(1<<63) != 0 {
				u &^= 1 << 63
			} else {
				u = ^u
			}
			binary.BigEndian.PutUint64(v, u)
		}
	case UUID:
		var k []byte
		if k, err = r.read(17); err == nil {
			var ok bool
			if v, ok = uuidFromKey(nil, k); !ok {
				err = keyErr("uuid version mismatch")
			}
		}
	case TimeUUID:
		var k []byte
		if k, err = r.read(16); err == nil {
			v = timeUUIDFromKey(nil, k)
		}
	case Varint:
		v, err = r.varint()
	case Decimal:
		v, err = r.decimal()
	case List, Set, Map:
		v, err = r.collection(t)
	case Tuple:
		v, err = r.tuple(t)
	default:
		v, err = r.escaped()
	}
	if err != nil {
		return nil, err
	}
	if err := Validate(t, v); err != nil {
		return nil, keyErr("decoded value is invalid: %v", err)
	}
	return v, nil
}

func (r *keyReader) escaped() ([]byte, error) {
	if r.arena {
		return r.escapedInto()
	}
	out := []byte{}
	for {
		c, err := r.byte()
		if err != nil {
			return nil, err
		}
		if c != 0 {
			out = append(out, c)
			continue
		}
		c, err = r.byte()
		if err != nil {
			return nil, err
		}
		switch c {
		case 0xff:
			out = append(out, 0)
		case 0x01:
			return out, nil
		default:
			return nil, keyErr("bad escape 0x00 %#x", c)
		}
	}
}

// escapedInto is escaped appending to r.buf.
func (r *keyReader) escapedInto() ([]byte, error) {
	start := len(r.buf)
	for {
		c, err := r.byte()
		if err != nil {
			return nil, err
		}
		if c != 0 {
			r.buf = append(r.buf, c)
			continue
		}
		c, err = r.byte()
		if err != nil {
			return nil, err
		}
		switch c {
		case 0xff:
			r.buf = append(r.buf, 0)
		case 0x01:
			return r.buf[start:len(r.buf):len(r.buf)], nil
		default:
			return nil, keyErr("bad escape 0x00 %#x", c)
		}
	}
}

func (r *keyReader) varint() ([]byte, error) {
	sign, err := r.byte()
	if err != nil {
		return nil, err
	}
	if sign == 0x02 {
		return []byte{0}, nil
	}
	if sign != 0x01 && sign != 0x03 {
		return nil, keyErr("bad varint sign %#x", sign)
	}
	if sign == 0x01 {
		r.mask = ^r.mask
		defer func() { r.mask = ^r.mask }()
	}
	l, err := r.byte()
	if err != nil {
		return nil, err
	}
	n := int(l)
	if l >= 0x80 {
		if l != 0xff {
			return nil, keyErr("bad varint length")
		}
		lb, err := r.read(4)
		if err != nil {
			return nil, err
		}
		n = int(binary.BigEndian.Uint32(lb))
		if n < 0x80 {
			return nil, keyErr("non-minimal varint length")
		}
	}
	mag, err := r.read(n)
	if err != nil {
		return nil, err
	}
	if n == 0 || mag[0] == 0 {
		return nil, keyErr("non-minimal varint magnitude")
	}
	v := new(big.Int).SetBytes(mag)
	if sign == 0x01 {
		v.Neg(v)
	}
	return encodeVarint(v), nil
}

func (r *keyReader) decimal() ([]byte, error) {
	sign, err := r.byte()
	if err != nil {
		return nil, err
	}
	if sign == 0x02 {
		return encodeDecimal(DecimalValue{Unscaled: new(big.Int)}), nil
	}
	if sign != 0x01 && sign != 0x03 {
		return nil, keyErr("bad decimal sign %#x", sign)
	}
	if sign == 0x01 {
		r.mask = ^r.mask
		defer func() { r.mask = ^r.mask }()
	}
	eb, err := r.read(8)
	if err != nil {
		return nil, err
	}
	exp := int64(binary.BigEndian.Uint64(eb) ^ 1<<63)
	var digits []byte
	for {
		c, err := r.byte()
		if err != nil {
			return nil, err
		}
		if c == 0 {
			break
		}
		if c > 100 {
			return nil, keyErr("bad decimal digit pair %#x", c)
		}
		digits = append(digits, '0'+(c-1)/10, '0'+(c-1)%10)
	}
	if len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 || digits[0] == '0' || digits[len(digits)-1] == '0' {
		return nil, keyErr("non-normalised decimal digits")
	}
	if exp > 1<<40 || exp < -1<<40 {
		return nil, keyErr("decimal exponent out of range")
	}
	scale := int64(len(digits)-1) - exp
	u, _ := new(big.Int).SetString(string(digits), 10)
	if scale > math.MaxInt32 {
		return nil, keyErr("decimal scale out of range")
	}
	if scale < math.MinInt32 {
		pad := math.MinInt32 - scale
		if pad > 1<<16 {
			return nil, keyErr("decimal scale out of range")
		}
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(pad), nil))
		scale = math.MinInt32
	}
	if sign == 0x01 {
		u.Neg(u)
	}
	return encodeDecimal(DecimalValue{Unscaled: u, Scale: int32(scale)}), nil
}

func (r *keyReader) collection(t Type) ([]byte, error) {
	if len(t.Params) != t.paramCount() {
		return nil, keyErr("malformed type %s", t)
	}
	var elems [][]byte
	for {
		c, err := r.byte()
		if err != nil {
			return nil, err
		}
		if c == nestedEnd {
			break
		}
		r.pos--
		et := t.Params[0]
		if t.Kind == Map {
			et = t.Params[len(elems)%2]
		}
		e, err := r.component(et)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	if t.Kind == Map && len(elems)%2 != 0 {
		return nil, keyErr("map key without value")
	}
	out := EncodeList(elems)
	if t.Kind == Map {
		binUint32(out, len(elems)/2)
	}
	return out, nil
}

func binUint32(b []byte, n int) { binary.BigEndian.PutUint32(b, uint32(n)) }

func (r *keyReader) tuple(t Type) ([]byte, error) {
	fields := make([][]byte, 0, len(t.Params))
	for {
		c, err := r.byte()
		if err != nil {
			return nil, err
		}
		if c == nestedEnd {
			break
		}
		if len(fields) == len(t.Params) {
			return nil, keyErr("too many tuple fields")
		}
		if c == headerNull {
			fields = append(fields, nil)
			continue
		}
		r.pos--
		f, err := r.component(t.Params[len(fields)])
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	if len(fields) > 0 && fields[len(fields)-1] == nil {
		return nil, keyErr("non-normalised trailing null")
	}
	for len(fields) < len(t.Params) {
		fields = append(fields, nil)
	}
	return EncodeTuple(fields), nil
}
