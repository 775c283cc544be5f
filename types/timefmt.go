package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DateValue is a CQL date: days since 1970-01-01, signed. Its serialized
// form is the unsigned 32-bit value days + 2^31 (SimpleDateSerializer), so
// 1970-01-01 is 80 00 00 00.
type DateValue int32

// DateOf returns the date containing t (in t's location).
func DateOf(t time.Time) DateValue {
	y, m, d := t.Date()
	days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	return DateValue(days)
}

// Time returns midnight UTC of the date.
func (d DateValue) Time() time.Time {
	return time.Unix(int64(d)*86400, 0).UTC()
}

// String returns the date as yyyy-mm-dd, as cqlsh prints it; dates outside
// years 1..9999 (which Python cannot represent) print as the signed number
// of days since the epoch, as cqlsh does.
func (d DateValue) String() string {
	t := d.Time()
	if t.Year() < 1 || t.Year() > 9999 {
		return strconv.FormatInt(int64(d), 10)
	}
	return t.Format("2006-01-02")
}

// ISOString returns the date as Java's LocalDate.toString does, which is
// what Cassandra's SELECT JSON writes: yyyy-mm-dd, with a year of more than
// four digits signed (+10000-01-01) and a negative year signed and padded to
// four digits (-0001-01-01 is 2 BC).
func (d DateValue) ISOString() string {
	y, m, day := d.Time().Date()
	var year string
	switch {
	case y > 9999:
		year = "+" + strconv.Itoa(y)
	case y < 0:
		year = fmt.Sprintf("-%04d", -y)
	default:
		year = fmt.Sprintf("%04d", y)
	}
	return fmt.Sprintf("%s-%02d-%02d", year, int(m), day)
}

func encodeDate(d DateValue) []byte {
	u := uint32(int64(d) + 1<<31)
	return []byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)}
}

func decodeDate(b []byte) DateValue {
	u := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	return DateValue(int64(u) - 1<<31)
}

// scanner is a tiny cursor for the hand-written time parsers.
type scanner struct {
	s   string
	pos int
}

func (sc *scanner) digits(min, max int) (int, bool) {
	start := sc.pos
	for sc.pos < len(sc.s) && sc.pos-start < max && sc.s[sc.pos] >= '0' && sc.s[sc.pos] <= '9' {
		sc.pos++
	}
	n := sc.pos - start
	if n < min {
		sc.pos = start
		return 0, false
	}
	v, err := strconv.Atoi(sc.s[start:sc.pos])
	return v, err == nil
}

func (sc *scanner) eat(c byte) bool {
	if sc.pos < len(sc.s) && sc.s[sc.pos] == c {
		sc.pos++
		return true
	}
	return false
}

func (sc *scanner) done() bool { return sc.pos == len(sc.s) }

// parseYMD reads [+-]yyyy-mm-dd and checks the calendar.
func (sc *scanner) parseYMD() (y, m, d int, ok bool) {
	neg := false
	if sc.eat('-') {
		neg = true
	} else {
		sc.eat('+')
	}
	if y, ok = sc.digits(4, 9); !ok {
		return
	}
	if neg {
		y = -y
	}
	if !sc.eat('-') {
		return 0, 0, 0, false
	}
	if m, ok = sc.digits(2, 2); !ok || !sc.eat('-') {
		return 0, 0, 0, false
	}
	if d, ok = sc.digits(2, 2); !ok {
		return
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseFraction reads up to 9 fraction digits after a '.', as nanoseconds.
func (sc *scanner) parseFraction() (int, bool) {
	start := sc.pos
	v, ok := sc.digits(1, 9)
	if !ok {
		return 0, false
	}
	for n := sc.pos - start; n < 9; n++ {
		v *= 10
	}
	return v, true
}

// parseZone reads an optional zone: Z, z, UTC, GMT, ±hh, ±hhmm, ±hh:mm or
// GMT±hh:mm, optionally after one space. It returns the offset in seconds.
func (sc *scanner) parseZone() (int, bool) {
	save := sc.pos
	sc.eat(' ')
	if sc.done() {
		sc.pos = save
		return 0, sc.pos == len(sc.s)
	}
	rest := sc.s[sc.pos:]
	switch rest {
	case "Z", "z", "UTC", "GMT":
		sc.pos = len(sc.s)
		return 0, true
	}
	if strings.HasPrefix(rest, "UTC") || strings.HasPrefix(rest, "GMT") {
		sc.pos += 3 // GMT+01:00, as Java's general time zone syntax
	}
	sign := 1
	switch {
	case sc.eat('+'):
	case sc.eat('-'):
		sign = -1
	default:
		return 0, false
	}
	h, ok := sc.digits(2, 2)
	if !ok || h > 18 {
		return 0, false
	}
	m := 0
	if !sc.done() {
		sc.eat(':')
		if m, ok = sc.digits(2, 2); !ok || m > 59 {
			return 0, false
		}
	}
	return sign * (h*3600 + m*60), sc.done()
}

// ParseTimestamp parses a timestamp as Cassandra's TimestampSerializer
// accepts it, returning milliseconds since the epoch: an integer (the
// milliseconds themselves), or yyyy-mm-dd optionally followed by a space or
// 'T' and hh:mm, hh:mm:ss or hh:mm:ss.fff (1 to 9 fraction digits,
// truncated to milliseconds), optionally followed by a zone (Z, UTC, GMT,
// +hh, +hhmm, +hh:mm, optionally after a space). Without a zone the time is
// UTC; Cassandra uses the server's default zone there. Errors wrap
// ErrInvalidValue.
func ParseTimestamp(s string) (int64, error) {
	if isInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, badTimestamp(s)
		}
		return v, nil
	}
	sc := &scanner{s: s}
	y, mo, d, ok := sc.parseYMD()
	if !ok {
		return 0, badTimestamp(s)
	}
	var h, mi, sec, nanos int
	if sc.pos < len(s) && (s[sc.pos] == ' ' || s[sc.pos] == 'T') && sc.pos+1 < len(s) && s[sc.pos+1] >= '0' && s[sc.pos+1] <= '9' {
		sc.pos++
		if h, ok = sc.digits(2, 2); !ok || h > 23 || !sc.eat(':') {
			return 0, badTimestamp(s)
		}
		if mi, ok = sc.digits(2, 2); !ok || mi > 59 {
			return 0, badTimestamp(s)
		}
		if sc.eat(':') {
			if sec, ok = sc.digits(2, 2); !ok || sec > 59 {
				return 0, badTimestamp(s)
			}
			if sc.eat('.') {
				if nanos, ok = sc.parseFraction(); !ok {
					return 0, badTimestamp(s)
				}
			}
		}
	}
	off, ok := sc.parseZone()
	if !ok {
		return 0, badTimestamp(s)
	}
	days := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	if y < 0 {
		days = daysFromCivil(int64(y), mo, d)
	}
	secs := days*86400 + int64(h*3600+mi*60+sec) - int64(off)
	if secs > math.MaxInt64/1000-1 || secs < math.MinInt64/1000+1 {
		return 0, badTimestamp(s)
	}
	return secs*1000 + int64(nanos/1e6), nil
}

func badTimestamp(s string) error {
	return fmt.Errorf("%w: Unable to coerce '%s' to a formatted date (long)", ErrInvalidValue, s)
}

// daysFromCivil converts a proleptic Gregorian date to days since the epoch
// (H. Hinnant's algorithm); time.Date handles every year we accept, but this
// keeps negative years exact and independent of time's internals.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := int64((153*mp+2)/5 + d - 1)
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	return s != "" && allDigits(s)
}

// ParseDate parses a date as SimpleDateSerializer does: yyyy-mm-dd (the year
// may have a sign and more digits), or an integer which is the serialized
// unsigned value itself (2147483648 is 1970-01-01). Errors wrap
// ErrInvalidValue.
func ParseDate(s string) (DateValue, error) {
	if isInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > math.MaxUint32 {
			return 0, fmt.Errorf("%w: Input date %s is out of bounds", ErrInvalidValue, s)
		}
		return DateValue(v - 1<<31), nil
	}
	sc := &scanner{s: s}
	y, m, d, ok := sc.parseYMD()
	if !ok || !sc.done() {
		return 0, badTimestamp(s)
	}
	days := daysFromCivil(int64(y), m, d)
	if days < math.MinInt32 || days > math.MaxInt32 {
		return 0, fmt.Errorf("%w: Input date %s is out of bounds", ErrInvalidValue, s)
	}
	return DateValue(days), nil
}

// maxTimeNanos is one past the last nanosecond of a day.
const maxTimeNanos = 24 * 3600 * 1e9

// ParseTime parses a time of day as TimeSerializer does: hh:mm:ss with an
// optional fraction of 1 to 9 digits, or an integer number of nanoseconds
// since midnight. It returns nanoseconds. Errors wrap ErrInvalidValue.
func ParseTime(s string) (int64, error) {
	if isInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v >= maxTimeNanos {
			return 0, badTime(s)
		}
		return v, nil
	}
	sc := &scanner{s: s}
	h, ok := sc.digits(1, 2)
	if !ok || h > 23 || !sc.eat(':') {
		return 0, badTime(s)
	}
	m, ok := sc.digits(2, 2)
	if !ok || m > 59 || !sc.eat(':') {
		return 0, badTime(s)
	}
	sec, ok := sc.digits(2, 2)
	if !ok || sec > 59 {
		return 0, badTime(s)
	}
	nanos := 0
	if sc.eat('.') {
		if nanos, ok = sc.parseFraction(); !ok {
			return 0, badTime(s)
		}
	}
	if !sc.done() {
		return 0, badTime(s)
	}
	return int64(h)*3600e9 + int64(m)*60e9 + int64(sec)*1e9 + int64(nanos), nil
}

func badTime(s string) error {
	return fmt.Errorf("%w: Unable to coerce '%s' to a formatted time (long)", ErrInvalidValue, s)
}

// formatTimestamp prints milliseconds since the epoch as cqlsh does:
// "2024-01-15 10:30:00.123000+0000" (UTC). Outside years 1..9999 cqlsh
// cannot build a datetime and prints the raw milliseconds; so does this.
func formatTimestamp(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return strconv.FormatInt(ms, 10)
	}
	return t.Format("2006-01-02 15:04:05.000000-0700")
}

// formatTimestampLiteral prints a timestamp as Cassandra's toCQLLiteral
// does (TimestampSerializer.toStringUTC): 2024-01-15T10:30:00.123Z.
func formatTimestampLiteral(ms int64) string {
	return formatTimestampUTC(ms, "2006-01-02T15:04:05.000Z")
}

// formatTimestampJSON prints a timestamp as Cassandra's toJSONString does
// (TimestampSerializer.getJsonDateFormatter, "yyyy-MM-dd HH:mm:ss.SSSX" in
// UTC): 2024-01-15 10:30:00.123Z.
func formatTimestampJSON(ms int64) string {
	return formatTimestampUTC(ms, "2006-01-02 15:04:05.000Z")
}

// formatTimestampUTC prints a timestamp in UTC with layout, or as the raw
// milliseconds outside years 1..9999.
func formatTimestampUTC(ms int64, layout string) string {
	t := time.UnixMilli(ms).UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return strconv.FormatInt(ms, 10)
	}
	return t.Format(layout)
}

// formatTime prints nanoseconds since midnight as hh:mm:ss.nnnnnnnnn, as
// cqlsh does.
func formatTime(ns int64) string {
	neg := ""
	if ns < 0 {
		neg, ns = "-", -ns
	}
	h := ns / 3600e9
	m := ns / 60e9 % 60
	s := ns / 1e9 % 60
	return fmt.Sprintf("%s%02d:%02d:%02d.%09d", neg, h, m, s, ns%1e9)
}
