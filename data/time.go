package data

import "math"

// NoTimestamp marks an absent timestamp (an empty LivenessInfo, a live
// DeletionTime). It sorts below every real timestamp.
const NoTimestamp int64 = math.MinInt64

// NoDeletionTime is the local deletion time of a cell that neither expires
// nor is a tombstone (Cassandra's Cell.NO_DELETION_TIME).
const NoDeletionTime int64 = math.MaxInt64

// MaxTTL is the largest TTL Cassandra accepts, in seconds (20 years).
const MaxTTL = 630720000

// DeletionTime records a deletion: everything written at or before
// MarkedForDeleteAt (microseconds) is shadowed. LocalDeletionTime is the
// server time of the deletion in seconds; gc_grace_seconds counts from it.
// The zero value is not live; use LiveDeletion for "no deletion".
type DeletionTime struct {
	MarkedForDeleteAt int64
	LocalDeletionTime int64
}

// LiveDeletion is the DeletionTime of something that is not deleted.
var LiveDeletion = DeletionTime{MarkedForDeleteAt: NoTimestamp, LocalDeletionTime: NoDeletionTime}

// IsLive reports whether d deletes nothing.
func (d DeletionTime) IsLive() bool { return d.MarkedForDeleteAt == NoTimestamp }

// Deletes reports whether data written at timestamp ts is shadowed by d.
// Deletions win ties: ts == MarkedForDeleteAt is deleted.
func (d DeletionTime) Deletes(ts int64) bool {
	return !d.IsLive() && ts <= d.MarkedForDeleteAt
}

// Supersedes reports whether d wins over o: the later MarkedForDeleteAt,
// then the later LocalDeletionTime (db/DeletionTime.java).
func (d DeletionTime) Supersedes(o DeletionTime) bool {
	if d.MarkedForDeleteAt != o.MarkedForDeleteAt {
		return d.MarkedForDeleteAt > o.MarkedForDeleteAt
	}
	return d.LocalDeletionTime > o.LocalDeletionTime
}

// MaxDeletion returns whichever of a and b supersedes the other.
func MaxDeletion(a, b DeletionTime) DeletionTime {
	if b.Supersedes(a) {
		return b
	}
	return a
}

// LivenessInfo is a row's primary-key liveness record. INSERT writes one
// (with its timestamp and TTL); UPDATE never does. A row whose liveness info
// is live is visible even when all its cells are null.
type LivenessInfo struct {
	// Timestamp is the write time in microseconds, or NoTimestamp when the
	// row has no liveness record.
	Timestamp int64
	// TTL is the time to live in seconds; 0 means the record does not expire.
	TTL int32
	// ExpiresAt is the local expiration time in seconds when TTL > 0, and
	// NoDeletionTime otherwise.
	ExpiresAt int64
}

// EmptyLiveness is the LivenessInfo of a row written only by UPDATE.
var EmptyLiveness = LivenessInfo{Timestamp: NoTimestamp, ExpiresAt: NoDeletionTime}

// ExpiredTTL is the TTL of an expired liveness record (Cassandra's
// LivenessInfo.EXPIRED_LIVENESS_TTL, Integer.MAX_VALUE): a record that is
// already dead when written, which a materialized view writes to end a
// view row with a timestamp that a row deletion could not carry
// (ViewUpdateGenerator.deleteOldEntryInternal). It is never live, and on a
// timestamp tie it wins over any other record.
const ExpiredTTL int32 = math.MaxInt32

// ExpiredLiveness returns an expired liveness record at timestamp ts,
// written at now (seconds).
func ExpiredLiveness(ts, now int64) LivenessInfo {
	return LivenessInfo{Timestamp: ts, TTL: ExpiredTTL, ExpiresAt: now}
}

// IsExpired reports whether l is an expired liveness record
// (ExpiredLiveness).
func (l LivenessInfo) IsExpired() bool { return l.TTL == ExpiredTTL }

// IsEmpty reports whether l records nothing.
func (l LivenessInfo) IsEmpty() bool { return l.Timestamp == NoTimestamp }

// IsExpiring reports whether l has a TTL.
func (l LivenessInfo) IsExpiring() bool { return l.TTL > 0 }

// IsLive reports whether l keeps its row alive at time now (seconds).
func (l LivenessInfo) IsLive(now int64) bool {
	return !l.IsEmpty() && (!l.IsExpiring() || now < l.ExpiresAt)
}

// Supersedes reports whether l wins over o (db/LivenessInfo.java): the
// higher timestamp; on a tie, if both or neither expire the later expiry;
// otherwise the expiring one.
func (l LivenessInfo) Supersedes(o LivenessInfo) bool {
	if l.Timestamp != o.Timestamp {
		return l.Timestamp > o.Timestamp
	}
	if l.IsExpired() != o.IsExpired() {
		return l.IsExpired()
	}
	if l.IsExpiring() == o.IsExpiring() {
		return l.ExpiresAt > o.ExpiresAt
	}
	return l.IsExpiring()
}
