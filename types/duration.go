package types

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
)

// DurationValue is a CQL duration: months, days and nanoseconds, kept apart
// because their lengths vary. All three have the same sign.
//
// Serialized form (DurationSerializer): three signed vints (zig-zag encoded,
// then Cassandra's VIntCoding: the count of leading 1 bits of the first byte
// is the number of extra bytes) for months (int32), days (int32) and
// nanoseconds (int64). 1h30m is 00 00 fc 09 d2 92 29 e0 00: months 0, days
// 0, then 5.4e12 ns zig-zagged to 0x09d29229e000, which needs 7 bytes, so
// the first byte carries six leading 1 bits (0xfc).
type DurationValue struct {
	Months int32
	Days   int32
	Nanos  int64
}

const (
	nanosPerMicro  = 1000
	nanosPerMilli  = 1000 * nanosPerMicro
	nanosPerSecond = 1000 * nanosPerMilli
	nanosPerMinute = 60 * nanosPerSecond
	nanosPerHour   = 60 * nanosPerMinute
)

// String formats d as Cassandra and cqlsh do: "1y2mo3d4h5m6s7ms8us9ns",
// omitting zero units, with a leading '-' for negative durations. The zero
// duration is "" in cqlsh; String returns "0s" for it so the text parses back.
func (d DurationValue) String() string {
	var b strings.Builder
	if d.Months < 0 || d.Days < 0 || d.Nanos < 0 {
		b.WriteByte('-')
	}
	rem := appendUnit(&b, absU64(int64(d.Months)), 12, "y")
	appendUnit(&b, rem, 1, "mo")
	appendUnit(&b, absU64(int64(d.Days)), 1, "d")
	if d.Nanos != 0 {
		rem = appendUnit(&b, absU64(d.Nanos), nanosPerHour, "h")
		rem = appendUnit(&b, rem, nanosPerMinute, "m")
		rem = appendUnit(&b, rem, nanosPerSecond, "s")
		rem = appendUnit(&b, rem, nanosPerMilli, "ms")
		rem = appendUnit(&b, rem, nanosPerMicro, "us")
		appendUnit(&b, rem, 1, "ns")
	}
	if b.Len() == 0 {
		return "0s"
	}
	return b.String()
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

func appendUnit(b *strings.Builder, v, div uint64, unit string) uint64 {
	if v == 0 || v < div {
		return v
	}
	b.WriteString(strconv.FormatUint(v/div, 10))
	b.WriteString(unit)
	return v % div
}

// encodeDuration serializes d (see DurationValue).
func encodeDuration(d DurationValue) []byte {
	b := make([]byte, 0, 12)
	b = appendVInt(b, int64(d.Months))
	b = appendVInt(b, int64(d.Days))
	return appendVInt(b, d.Nanos)
}

func appendVInt(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63) // zig-zag
	size := vintSize(u)
	if size == 1 {
		return append(b, byte(u))
	}
	var buf [9]byte
	if size == 9 {
		buf[0] = 0xff
		binary.BigEndian.PutUint64(buf[1:], u)
		return append(b, buf[:]...)
	}
	binary.BigEndian.PutUint64(buf[1:], u)
	out := buf[9-size:]
	out[0] |= ^byte(0xff >> (size - 1))
	return append(b, out...)
}

func vintSize(u uint64) int {
	magnitude := bits.LeadingZeros64(u | 1)
	return (639 - magnitude*9) >> 6
}

// readVInt decodes one signed vint from b and returns it with the number of
// bytes read, or n == 0 if b is truncated.
func readVInt(b []byte) (int64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	first := b[0]
	extra := bits.LeadingZeros8(^first)
	if len(b) < 1+extra {
		return 0, 0
	}
	u := uint64(first & (0xff >> extra))
	if extra == 8 {
		u = 0
	}
	for i := 1; i <= extra; i++ {
		u = u<<8 | uint64(b[i])
	}
	return int64(u>>1) ^ -int64(u&1), 1 + extra
}

func decodeDuration(b []byte) (DurationValue, error) {
	m, n1 := readVInt(b)
	if n1 == 0 {
		return DurationValue{}, valueErr(DurationType, "truncated months")
	}
	d, n2 := readVInt(b[n1:])
	if n2 == 0 {
		return DurationValue{}, valueErr(DurationType, "truncated days")
	}
	ns, n3 := readVInt(b[n1+n2:])
	if n3 == 0 {
		return DurationValue{}, valueErr(DurationType, "truncated nanoseconds")
	}
	if n1+n2+n3 != len(b) {
		return DurationValue{}, valueErr(DurationType, "%d trailing bytes", len(b)-n1-n2-n3)
	}
	// DurationSerializer.validate.
	if m < math.MinInt32 || m > math.MaxInt32 {
		return DurationValue{}, valueErr(DurationType, "The duration months must be a 32 bits integer but was: %d", m)
	}
	if d < math.MinInt32 || d > math.MaxInt32 {
		return DurationValue{}, valueErr(DurationType, "The duration days must be a 32 bits integer but was: %d", d)
	}
	v := DurationValue{Months: int32(m), Days: int32(d), Nanos: ns}
	if !((v.Months >= 0 && v.Days >= 0 && v.Nanos >= 0) || (v.Months <= 0 && v.Days <= 0 && v.Nanos <= 0)) {
		return DurationValue{}, valueErr(DurationType, "The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", v.Months, v.Days, v.Nanos)
	}
	return v, nil
}

var (
	durStandardRE = regexp.MustCompile(`(?i)^(\d+)(y|mo|w|d|h|s|ms|us|µs|ns|m)`)
	durISORE      = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)
	durISOWeekRE  = regexp.MustCompile(`^P(\d+)W$`)
	durISOAltRE   = regexp.MustCompile(`^P(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$`)
)

// ParseDuration parses a duration in any form Cassandra's Duration.from
// accepts: "1h30m", "2d", "-3mo15d" (units y, mo, w, d, h, m, s, ms, us, µs,
// ns, case-insensitive), ISO 8601 "P1DT2H", "P2W" and the alternative
// "P0001-02-03T04:05:06". Errors wrap ErrInvalidValue.
func ParseDuration(s string) (DurationValue, error) {
	var b durBuilder
	bad := func() (DurationValue, error) {
		if b.rangeErr != "" {
			return DurationValue{}, &DurationRangeError{Msg: b.rangeErr}
		}
		return DurationValue{}, fmt.Errorf("%w: Unable to convert '%s' to a duration", ErrInvalidValue, s)
	}
	in := s
	neg := false
	if strings.HasPrefix(in, "-") {
		neg = true
		in = in[1:]
	}
	if in == "" {
		return bad()
	}
	if in[0] == 'P' {
		if m := durISOWeekRE.FindStringSubmatch(in); m != nil {
			if !b.add(m[1], "w") {
				return bad()
			}
		} else if m := durISOAltRE.FindStringSubmatch(in); m != nil {
			units := []string{"y", "mo", "d", "h", "m", "s"}
			for i, u := range units {
				if !b.add(m[i+1], u) {
					return bad()
				}
			}
		} else if m := durISORE.FindStringSubmatch(in); m != nil && in != "P" && !strings.HasSuffix(in, "T") {
			units := []string{"y", "mo", "d", "h", "m", "s"}
			for i, u := range units {
				if m[i+1] != "" && !b.add(m[i+1], u) {
					return bad()
				}
			}
		} else {
			return bad()
		}
	} else {
		for in != "" {
			m := durStandardRE.FindStringSubmatch(in)
			if m == nil {
				return bad()
			}
			if !b.add(m[1], strings.ToLower(m[2])) {
				return bad()
			}
			in = in[len(m[0]):]
		}
	}
	d := b.d
	if neg {
		d = DurationValue{Months: -d.Months, Days: -d.Days, Nanos: -d.Nanos}
	}
	return d, nil
}

type durBuilder struct {
	d DurationValue
	// rangeErr is Duration.Builder's text when a unit overflows its field.
	rangeErr string
}

// DurationRangeError is a duration literal whose months, days or
// nanoseconds overflow (Duration.Builder's validateMonths, validateDays,
// validateNanos); it wraps ErrInvalidValue.
type DurationRangeError struct{ Msg string }

func (e *DurationRangeError) Error() string { return e.Msg }

func (e *DurationRangeError) Unwrap() error { return ErrInvalidValue }

// add adds digits units to the duration, reporting false on overflow.
func (b *durBuilder) add(digits, unit string) bool {
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return false
	}
	addI32 := func(dst *int32, n, mul int64) bool {
		if n > (math.MaxInt32-int64(*dst))/mul {
			what := "days"
			if dst == &b.d.Months {
				what = "months"
			}
			b.rangeErr = fmt.Sprintf("Invalid duration. The total number of %s must be less or equal to %d", what, math.MaxInt32)
			return false
		}
		*dst += int32(n * mul)
		return true
	}
	addNs := func(n, mul int64) bool {
		if n > (math.MaxInt64-b.d.Nanos)/mul {
			b.rangeErr = fmt.Sprintf("Invalid duration. The total number of nanoseconds must be less or equal to %d", int64(math.MaxInt64))
			return false
		}
		b.d.Nanos += n * mul
		return true
	}
	switch unit {
	case "y":
		return addI32(&b.d.Months, n, 12)
	case "mo":
		return addI32(&b.d.Months, n, 1)
	case "w":
		return addI32(&b.d.Days, n, 7)
	case "d":
		return addI32(&b.d.Days, n, 1)
	case "h":
		return addNs(n, nanosPerHour)
	case "m":
		return addNs(n, nanosPerMinute)
	case "s":
		return addNs(n, nanosPerSecond)
	case "ms":
		return addNs(n, nanosPerMilli)
	case "us", "µs":
		return addNs(n, nanosPerMicro)
	case "ns":
		return addNs(n, 1)
	}
	return false
}
