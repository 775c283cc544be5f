package frame

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/netip"

	"github.com/minicass/minicass/wire"
)

// Reader decodes the body primitives of the protocol from a byte slice. The
// first error sticks: later reads return zero values and Err reports it, so a
// message decoder reads every field and checks once at the end.
//
// Slices returned by Bytes, ShortBytes, Value and BytesMap alias the input
// buffer; they stay valid as long as the buffer does.
type Reader struct {
	buf []byte
	off int
	err error
	// v is the protocol version of the body, 0 for v4 (ProtocolVersion).
	v int
}

// NewReader returns a Reader over b, a body of protocol v4.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// NewReaderVersion returns a Reader over b, a body of protocol version v.
func NewReaderVersion(b []byte, v int) *Reader { return &Reader{buf: b, v: v} }

// version returns the protocol version the Reader decodes.
func (r *Reader) version() int {
	if r.v == 0 {
		return ProtocolVersion
	}
	return r.v
}

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Remaining returns the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.buf) - r.off }

func (r *Reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf)-r.off {
		r.fail(fmt.Errorf("%w: %s needs %d bytes at offset %d, have %d", ErrShortBuffer, what, n, r.off, len(r.buf)-r.off))
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	b := r.take(1, "[byte]")
	if b == nil {
		return 0
	}
	return b[0]
}

// Short reads a [short], an unsigned 16-bit integer.
func (r *Reader) Short() uint16 {
	b := r.take(2, "[short]")
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

// Int reads an [int], a signed 32-bit integer.
func (r *Reader) Int() int32 {
	b := r.take(4, "[int]")
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// Long reads a [long], a signed 64-bit integer.
func (r *Reader) Long() int64 {
	b := r.take(8, "[long]")
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// String reads a [string]: a [short] length and that many UTF-8 bytes.
func (r *Reader) String() string {
	n := r.Short()
	return string(r.take(int(n), "[string]"))
}

// LongString reads a [long string]: an [int] length and that many bytes. A
// negative length is an error.
func (r *Reader) LongString() string {
	n := r.Int()
	if n < 0 {
		r.fail(fmt.Errorf("%w: negative [long string] length %d", ErrInvalidValue, n))
		return ""
	}
	return string(r.take(int(n), "[long string]"))
}

// UUID reads a [uuid] of 16 bytes.
func (r *Reader) UUID() [16]byte {
	var u [16]byte
	copy(u[:], r.take(16, "[uuid]"))
	return u
}

// StringList reads a [string list]: a [short] n and n [string]s.
func (r *Reader) StringList() []string {
	n := int(r.Short())
	if r.err != nil || n == 0 {
		return nil
	}
	if n*2 > r.Remaining() {
		r.fail(fmt.Errorf("%w: [string list] of %d entries", ErrShortBuffer, n))
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = r.String()
	}
	return l
}

// Bytes reads [bytes]: an [int] length and that many bytes. A negative
// length means null and returns nil; an empty value returns a non-nil empty
// slice.
func (r *Reader) Bytes() []byte {
	n := r.Int()
	if n < 0 {
		return nil
	}
	return r.take(int(n), "[bytes]")
}

// Value reads a [value]: like [bytes], but length -2 means "unset", reported
// by unset. Lengths below -2 are errors.
func (r *Reader) Value() (v []byte, unset bool) {
	n := r.Int()
	switch {
	case n == -1:
		return nil, false
	case n == -2:
		return nil, true
	case n < 0:
		r.fail(fmt.Errorf("%w: [value] length %d", ErrInvalidValue, n))
		return nil, false
	}
	return r.take(int(n), "[value]"), false
}

// ShortBytes reads [short bytes]: a [short] length and that many bytes.
func (r *Reader) ShortBytes() []byte {
	n := r.Short()
	return r.take(int(n), "[short bytes]")
}

// Inet reads an [inet]: a one-byte address size (4 or 16), the address and
// an [int] port.
func (r *Reader) Inet() netip.AddrPort {
	n := r.Byte()
	if r.err == nil && n != 4 && n != 16 {
		r.fail(fmt.Errorf("%w: [inet] address size %d", ErrInvalidValue, n))
	}
	b := r.take(int(n), "[inet]")
	port := r.Int()
	if r.err != nil {
		return netip.AddrPort{}
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr, uint16(port))
}

// Consistency reads a [consistency] ([short]).
func (r *Reader) Consistency() wire.Consistency { return wire.Consistency(r.Short()) }

// StringMap reads a [string map]: a [short] n and n ([string], [string]) pairs.
func (r *Reader) StringMap() map[string]string {
	n := int(r.Short())
	if r.err != nil {
		return nil
	}
	if n*4 > r.Remaining() {
		r.fail(fmt.Errorf("%w: [string map] of %d entries", ErrShortBuffer, n))
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := r.String()
		m[k] = r.String()
	}
	return m
}

// StringMultimap reads a [string multimap]: a [short] n and n ([string],
// [string list]) pairs.
func (r *Reader) StringMultimap() map[string][]string {
	n := int(r.Short())
	if r.err != nil {
		return nil
	}
	if n*4 > r.Remaining() {
		r.fail(fmt.Errorf("%w: [string multimap] of %d entries", ErrShortBuffer, n))
		return nil
	}
	m := make(map[string][]string, n)
	for range n {
		k := r.String()
		m[k] = r.StringList()
	}
	return m
}

// BytesMap reads a [bytes map]: a [short] n and n ([string], [bytes]) pairs.
func (r *Reader) BytesMap() map[string][]byte {
	n := int(r.Short())
	if r.err != nil {
		return nil
	}
	if n*6 > r.Remaining() {
		r.fail(fmt.Errorf("%w: [bytes map] of %d entries", ErrShortBuffer, n))
		return nil
	}
	m := make(map[string][]byte, n)
	for range n {
		k := r.String()
		m[k] = r.Bytes()
	}
	return m
}

// Writer appends body primitives to a byte slice. A [string], [short bytes]
// or list longer than a [short] can count is not written and is reported by
// Err; all other writes cannot fail.
type Writer struct {
	// B holds the bytes written so far.
	B   []byte
	err error
	// V is the protocol version of the body, 0 for v4 (ProtocolVersion).
	V int
}

// version returns the protocol version the Writer encodes.
func (w *Writer) version() int {
	if w.V == 0 {
		return ProtocolVersion
	}
	return w.V
}

// Err returns the first encoding error (a [string] or [short bytes] longer
// than 65535 bytes, or a list too long for its count), or nil.
func (w *Writer) Err() error { return w.err }

func (w *Writer) short(n int, what string) {
	if n > math.MaxUint16 {
		if w.err == nil {
			w.err = fmt.Errorf("%w: %s of length %d exceeds 65535", ErrInvalidValue, what, n)
		}
		n = 0
	}
	w.B = binary.BigEndian.AppendUint16(w.B, uint16(n))
}

// Byte appends one byte.
func (w *Writer) Byte(b byte) { w.B = append(w.B, b) }

// Short appends a [short].
func (w *Writer) Short(v uint16) { w.B = binary.BigEndian.AppendUint16(w.B, v) }

// Int appends an [int].
func (w *Writer) Int(v int32) { w.B = binary.BigEndian.AppendUint32(w.B, uint32(v)) }

// Long appends a [long].
func (w *Writer) Long(v int64) { w.B = binary.BigEndian.AppendUint64(w.B, uint64(v)) }

// String appends a [string].
func (w *Writer) String(s string) {
	w.short(len(s), "[string]")
	if w.err == nil {
		w.B = append(w.B, s...)
	}
}

// LongString appends a [long string].
func (w *Writer) LongString(s string) {
	w.Int(int32(len(s)))
	w.B = append(w.B, s...)
}

// UUID appends a [uuid].
func (w *Writer) UUID(u [16]byte) { w.B = append(w.B, u[:]...) }

// StringList appends a [string list].
func (w *Writer) StringList(l []string) {
	w.short(len(l), "[string list]")
	for _, s := range l {
		w.String(s)
	}
}

// Bytes appends [bytes]; nil is written as null (length -1).
func (w *Writer) Bytes(b []byte) {
	if b == nil {
		w.Int(-1)
		return
	}
	w.Int(int32(len(b)))
	w.B = append(w.B, b...)
}

// Value appends a [value]: unset (length -2) if unset, else like Bytes.
func (w *Writer) Value(b []byte, unset bool) {
	if unset {
		w.Int(-2)
		return
	}
	w.Bytes(b)
}

// ShortBytes appends [short bytes].
func (w *Writer) ShortBytes(b []byte) {
	w.short(len(b), "[short bytes]")
	if w.err == nil {
		w.B = append(w.B, b...)
	}
}

// Inet appends an [inet]. An IPv4-mapped IPv6 address is written as IPv4.
func (w *Writer) Inet(ap netip.AddrPort) {
	a := ap.Addr().Unmap()
	if a.Is4() {
		w.Byte(4)
		b := a.As4()
		w.B = append(w.B, b[:]...)
	} else {
		w.Byte(16)
		b := a.As16()
		w.B = append(w.B, b[:]...)
	}
	w.Int(int32(ap.Port()))
}

// Consistency appends a [consistency].
func (w *Writer) Consistency(c wire.Consistency) { w.Short(uint16(c)) }

// StringMap appends a [string map] with keys in sorted order, so the
// encoding is deterministic.
func (w *Writer) StringMap(m map[string]string) {
	w.short(len(m), "[string map]")
	for _, k := range SortedKeys(m) {
		w.String(k)
		w.String(m[k])
	}
}

// StringMultimap appends a [string multimap] with keys in sorted order.
func (w *Writer) StringMultimap(m map[string][]string) {
	w.short(len(m), "[string multimap]")
	for _, k := range SortedKeys(m) {
		w.String(k)
		w.StringList(m[k])
	}
}

// BytesMap appends a [bytes map] with keys in sorted order.
func (w *Writer) BytesMap(m map[string][]byte) {
	w.short(len(m), "[bytes map]")
	for _, k := range SortedKeys(m) {
		w.String(k)
		w.Bytes(m[k])
	}
}
