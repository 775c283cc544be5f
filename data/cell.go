package data

import (
	"bytes"
	"encoding/binary"
)

// CellKind distinguishes ordinary cells, tombstones and counter cells.
type CellKind uint8

// The cell kinds. The values are part of the commit-log and SSTable formats
// and must not change.
const (
	// CellRegular is a live or expiring cell holding a value.
	CellRegular CellKind = 0
	// CellTombstone is a deleted cell (a null write or DELETE col): it has
	// no value and LocalDeletionTime is the deletion time.
	CellTombstone CellKind = 1
	// CellCounter holds a counter delta: an 8-byte big-endian int64. Two
	// counter cells reconcile by adding their values (see Reconcile).
	CellCounter CellKind = 2
)

// String returns the kind's name.
func (k CellKind) String() string {
	switch k {
	case CellRegular:
		return "regular"
	case CellTombstone:
		return "tombstone"
	case CellCounter:
		return "counter"
	}
	return "unknown"
}

// Cell is one column value of a row, or one element of a non-frozen
// collection column.
//
// Value and Path are the caller's again once engine.Apply returns (the
// memtable and the commit log copy what they keep); they must not change
// while Apply runs.
type Cell struct {
	// Column is the column's name.
	Column string
	// Path is nil for a simple column. For an element of a non-frozen
	// collection it is the element's key in a byte-comparable encoding
	// (the map key or set element; for lists, the element's timeuuid), so
	// the cells of a collection sort with bytes.Compare.
	Path []byte
	// Kind says whether the cell is a value, a tombstone or a counter.
	Kind CellKind
	// Timestamp is the write time in microseconds.
	Timestamp int64
	// TTL is the time to live in seconds (0 = does not expire). It is
	// always 0 for tombstones and counters.
	TTL int32
	// LocalDeletionTime is, in seconds, the expiry time of an expiring
	// cell, the deletion time of a tombstone, and NoDeletionTime otherwise.
	LocalDeletionTime int64
	// Value is the serialized value (native protocol bytes); nil for a
	// tombstone. For a set element the value is empty: the element is the
	// path.
	Value []byte
}

// IsTombstone reports whether c is a deletion.
func (c *Cell) IsTombstone() bool { return c.Kind == CellTombstone }

// IsExpiring reports whether c has a TTL.
func (c *Cell) IsExpiring() bool { return c.TTL > 0 }

// IsLive reports whether c holds a value at time now (seconds): it is not a
// tombstone and, if it expires, now is before its expiry.
func (c *Cell) IsLive(now int64) bool {
	if c.Kind == CellTombstone {
		return false
	}
	return c.TTL == 0 || now < c.LocalDeletionTime
}

// IsExpired reports whether c is an expiring cell whose TTL has run out at
// time now (seconds).
func (c *Cell) IsExpired(now int64) bool {
	return c.Kind != CellTombstone && c.TTL > 0 && now >= c.LocalDeletionTime
}

// CompareID orders cells by column name, then path. Cells of one row are
// kept in this order.
func CompareID(a, b *Cell) int {
	if a.Column != b.Column {
		if a.Column < b.Column {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.Path, b.Path)
}

// CounterValue returns the counter delta held by a counter cell's value, or
// 0 if the value is malformed.
func CounterValue(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// CounterBytes returns the 8-byte serialized form of a counter value.
func CounterBytes(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n))
}

// Reconcile returns the version of a cell that survives when a and b (two
// versions of the same column and path) meet, following Cassandra 4.x
// (db/rows/Cells.java resolveRegular):
//
//  1. the higher timestamp wins;
//  2. on equal timestamps a tombstone or expiring cell beats a plain live cell;
//  3. between a tombstone and an expiring cell, the tombstone wins;
//  4. between two expiring cells or two tombstones, the larger local deletion
//     time wins;
//  5. otherwise the larger value wins, comparing raw bytes as unsigned;
//  6. two expiring cells equal in all of the above (same expiry, same value)
//     but for their TTL: the larger TTL wins. Cassandra keeps whichever it
//     met first, which in one memtable is the earlier write, the one with
//     the larger TTL; minicass picks it whatever the order, so that a read
//     does not depend on which memtable or SSTable holds which version.
//
// Counters are different: a tombstone always wins, and two counter cells
// merge into one whose value is the sum of both and whose timestamp is the
// larger. (minicass stores counter updates as deltas; see docs/compatibility.md.)
//
// The returned cell may share memory with a or b.
func Reconcile(a, b *Cell) Cell {
	if a.Kind == CellCounter || b.Kind == CellCounter {
		return reconcileCounter(a, b)
	}
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return *a
		}
		return *b
	}
	aDead, bDead := a.Kind == CellTombstone || a.TTL > 0, b.Kind == CellTombstone || b.TTL > 0
	if aDead != bDead {
		if aDead {
			return *a
		}
		return *b
	}
	if aDead { // both are tombstones or expiring
		aTomb, bTomb := a.Kind == CellTombstone, b.Kind == CellTombstone
		if aTomb != bTomb {
			if aTomb {
				return *a
			}
			return *b
		}
		if a.LocalDeletionTime != b.LocalDeletionTime {
			if a.LocalDeletionTime > b.LocalDeletionTime {
				return *a
			}
			return *b
		}
	}
	if c := bytes.Compare(b.Value, a.Value); c > 0 || c == 0 && b.TTL > a.TTL {
		return *b
	}
	return *a
}

func reconcileCounter(a, b *Cell) Cell {
	switch {
	case a.Kind == CellTombstone && b.Kind == CellTombstone:
		if b.Timestamp > a.Timestamp {
			return *b
		}
		return *a
	case a.Kind == CellTombstone:
		return *a
	case b.Kind == CellTombstone:
		return *b
	case a.Kind != CellCounter || b.Kind != CellCounter:
		// A counter never meets a regular cell in a valid table; keep the
		// newer to stay deterministic.
		if b.Timestamp > a.Timestamp {
			return *b
		}
		return *a
	}
	out := *a
	out.Value = CounterBytes(CounterValue(a.Value) + CounterValue(b.Value))
	if b.Timestamp > out.Timestamp {
		out.Timestamp = b.Timestamp
	}
	return out
}
