package types

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// UUIDValue is a 16-byte UUID in its serialized (textual) byte order, the value
// of a uuid or timeuuid column.
type UUIDValue [16]byte

// ParseUUID parses the canonical 8-4-4-4-12 hexadecimal form (either case).
// Errors wrap ErrInvalidValue.
func ParseUUID(s string) (UUIDValue, error) {
	var u UUIDValue
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("%w: Unable to make UUID from '%s'", ErrInvalidValue, s)
	}
	// The 16 bytes start at these offsets of the text: dashes only at 8,
	// 13, 18 and 23 (checked above), hexadecimal digits everywhere else.
	for j, i := range [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34} {
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return UUIDValue{}, fmt.Errorf("%w: Unable to make UUID from '%s'", ErrInvalidValue, s)
		}
		u[j] = hi<<4 | lo
	}
	return u, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// String returns the lower-case 8-4-4-4-12 form, as cqlsh prints it.
func (u UUIDValue) String() string {
	var buf [36]byte
	hex.Encode(buf[0:8], u[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], u[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], u[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], u[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], u[10:])
	return string(buf[:])
}

// Version returns the UUID version (the high nibble of byte 6).
func (u UUIDValue) Version() int { return int(u[6] >> 4) }

// NewRandomUUID returns a version 4 UUID from crypto/rand, as Cassandra's
// uuid() function does.
func NewRandomUUID() UUIDValue {
	var u UUIDValue
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails on supported platforms
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// uuidEpochOffset is the number of 100ns ticks between the Gregorian epoch of
// version 1 UUIDs (1582-10-15) and the Unix epoch.
const uuidEpochOffset = 0x01B21DD213814000

// ticksToMSB lays out a 60-bit tick count as the most significant 8 bytes of
// a version 1 UUID (time_low, time_mid, version|time_hi), as UUIDGen.createTime.
func ticksToMSB(ticks uint64) uint64 {
	msb := (ticks & 0xffffffff) << 32
	msb |= (ticks & 0xffff00000000) >> 16
	msb |= (ticks & 0xffff000000000000) >> 48
	return msb | 0x1000
}

func msbToTicks(msb uint64) uint64 {
	return (msb&0x0fff)<<48 | ((msb>>16)&0xffff)<<32 | msb>>32
}

func makeTimeUUID(ticks, lsb uint64) UUIDValue {
	var u UUIDValue
	binary.BigEndian.PutUint64(u[:8], ticksToMSB(ticks))
	binary.BigEndian.PutUint64(u[8:], lsb)
	return u
}

func unixMillisToTicks(ms int64) uint64 {
	return uint64(ms*10000) + uuidEpochOffset
}

// MinTimeUUID returns the smallest timeuuid (by the timeuuid comparator)
// whose time is t truncated to milliseconds: exactly Cassandra's
// minTimeuuid(), with clock sequence and node 0x8080808080808080.
func MinTimeUUID(t time.Time) UUIDValue {
	return makeTimeUUID(unixMillisToTicks(t.UnixMilli()), 0x8080808080808080)
}

// MaxTimeUUID returns the largest timeuuid whose time is t truncated to
// milliseconds: exactly Cassandra's maxTimeuuid(), the last 100ns tick of
// that millisecond with clock sequence and node 0x7f7f7f7f7f7f7f7f.
func MaxTimeUUID(t time.Time) UUIDValue {
	return makeTimeUUID(unixMillisToTicks(t.UnixMilli()+1)-1, 0x7f7f7f7f7f7f7f7f)
}

// TimeUUIDTime returns the time embedded in a version 1 UUID, with its full
// 100ns precision, in UTC. Cassandra's toTimestamp() truncates it to
// milliseconds.
func TimeUUIDTime(u UUIDValue) time.Time {
	ticks := msbToTicks(binary.BigEndian.Uint64(u[:8]))
	d := int64(ticks) - uuidEpochOffset
	return time.Unix(0, 0).Add(time.Duration(d) * 100).UTC()
}

// TimeUUIDGenerator makes version 1 UUIDs. Its clock sequence and node are
// chosen once, randomly, when it is created or first used (with the
// multicast bit set, as RFC 4122 asks for random nodes), so they are fixed
// for its lifetime; an engine keeps one generator per process. The zero
// value is ready to use. It is safe for concurrent use.
type TimeUUIDGenerator struct {
	mu        sync.Mutex
	lastTicks uint64
	lsb       uint64
}

// NewTimeUUIDGenerator returns a generator with a random clock sequence and
// node.
func NewTimeUUIDGenerator() *TimeUUIDGenerator {
	return &TimeUUIDGenerator{lsb: randomClockSeqAndNode()}
}

// NewTimeUUIDGeneratorAt returns a generator whose clock sequence and node
// are the low 8 bytes lsb (with the RFC 4122 variant and the multicast bit
// set), for reproducible UUIDs: under a clock that does not move, its
// successive UUIDs are then fixed values.
func NewTimeUUIDGeneratorAt(lsb uint64) *TimeUUIDGenerator {
	return &TimeUUIDGenerator{lsb: lsb&0x3fffffffffffffff | 0x8000000000000000 | 0x0000010000000000}
}

func randomClockSeqAndNode() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	lsb := binary.BigEndian.Uint64(b[:])
	lsb = lsb&0x3fffffffffffffff | 0x8000000000000000 // RFC 4122 variant
	return lsb | 0x0000010000000000                   // multicast bit of the node
}

// NewTimeUUID returns a version 1 UUID for t. Successive calls return
// strictly increasing UUIDs: when t is not later than the previous call's
// time (to the 100ns tick), the tick is advanced by one past the previous,
// as Cassandra's UUIDGen does, so the embedded time may run slightly ahead.
func (g *TimeUUIDGenerator) NewTimeUUID(t time.Time) UUIDValue {
	ticks := uint64(t.UnixNano()/100) + uuidEpochOffset
	g.mu.Lock()
	if g.lsb == 0 {
		g.lsb = randomClockSeqAndNode()
	}
	if ticks <= g.lastTicks {
		ticks = g.lastTicks + 1
	}
	g.lastTicks = ticks
	lsb := g.lsb
	g.mu.Unlock()
	return makeTimeUUID(ticks, lsb)
}
