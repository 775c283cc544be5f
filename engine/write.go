package engine

import (
	"context"
	"fmt"
	"hash/maphash"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// Write-path limits.
const (
	// MaxKeySize is the largest partition key, in bytes (Cassandra's
	// 65535-byte key limit).
	MaxKeySize = 65535
	// MaxMutationSize is the largest mutation (data.Mutation.Size), half of
	// Cassandra's default 32 MiB commit-log segment.
	MaxMutationSize = 16 << 20
	// MaxExpirationTime is the latest expiry a TTL may reach, in seconds:
	// 2038-01-19T03:14:06Z, Cassandra 4.x's Cell.MAX_DELETION_TIME.
	MaxExpirationTime = 1<<31 - 2
)

// Apply validates mutation m and applies it to table t, atomically for its
// partition: a concurrent read sees all of m or none of it. m.Table must be
// t.ID or zero (then it is set to t.ID).
//
// Apply keeps nothing of m, nor of the memory it references, once it
// returns: the commit log gets m's encoding, the memtable copies what it
// keeps into its arena, and the dependents' work (BaseWrite, derived
// mutations) ends before Apply returns. So a caller may reuse m, its rows,
// cells and byte slices for its next mutation as soon as Apply returns (a
// writer building many mutations can keep one set of buffers, as a pebble
// caller reuses its key buffer); it must not modify them while Apply runs.
// TestApplyKeepsNoCallerMemory holds the engine to this.
//
// Validation: a non-empty key of at most MaxKeySize bytes, at most
// MaxMutationSize bytes in all, TTLs between 0 and data.MaxTTL expiring no
// later than MaxExpirationTime, cells sorted by data.CompareID, counter cells
// holding 8-byte values. An invalid mutation changes nothing.
//
// Apply computes no timestamps, TTLs or expiry times: the caller (the CQL
// layer) builds cells with them, using NewTimestamp, Now and the table's
// default_time_to_live. Plain writes do not take LockPartition.
//
// A write to a table with dependents (AddDependent) takes the partition's
// lock and derives (see derived.go); a caller already holding the lock
// uses ApplyLocked.
func (e *Engine) Apply(ctx context.Context, t *schema.Table, m *data.Mutation) error {
	return e.apply(ctx, t, m, false)
}

// apply is Apply and ApplyLocked; locked says the caller holds the
// partition's lock.
func (e *Engine) apply(ctx context.Context, t *schema.Table, m *data.Mutation, locked bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := e.storeFor(t)
	if err != nil {
		return err
	}
	// The token is computed first, and the memtable index's directory
	// entry for it asked for, so that the entry's cache miss overlaps the
	// validation (see memtable.Memtable.PrefetchIndex; applyPlain
	// prefetches the bucket the entry points to).
	token := e.Token(m.Key)
	if mt := s.activeHint.Load(); mt != nil {
		mt.PrefetchIndex(token)
	}
	if m.Table != (data.TableID{}) && m.Table != t.ID {
		return fmt.Errorf("%w: mutation for table %x applied to %s", ErrInvalidMutation, m.Table, t.QualifiedName())
	}
	if err := validateMutation(m); err != nil {
		return err
	}
	m.Table = t.ID
	if deps := e.dependentsOf(t.ID); deps != nil {
		// A copy goes to the dependents, so that m itself does not
		// escape on the plain path (a caller's mutation may stay on its
		// stack, as before derived tables existed).
		mc := *m
		return e.applyDerived(ctx, t, s, &mc, deps, locked)
	}
	return e.applyPlain(ctx, t, s, m, token)
}

// applyPlain logs and applies a validated mutation of a table without
// dependents; token is m.Key's.
func (e *Engine) applyPlain(ctx context.Context, t *schema.Table, s *tableStore, m *data.Mutation, token int64) error {
	if err := e.waitForMemory(ctx, s); err != nil {
		return err
	}
	logged := e.log != nil && e.durableWrites(t.Keyspace)
	// The shared lock spans the append and the apply, so that a memtable
	// switch sees every appended record of the table in the memtable it
	// freezes (see tableStore.mu and releaseLog).
	s.mu.RLock()
	active := s.active
	if logged {
		// The memtable's index bucket for the key is fetched from memory
		// while the record is appended (see memtable.Prefetch).
		active.mt.Prefetch(token)
		// The record, m in the compact encoding, is encoded straight into
		// the commit log's segment (no buffer of our own), its size
		// computed first.
		pos, err := e.log.AppendEncoded(data.CompactMutationSize(m), func(dst []byte) []byte {
			return data.AppendCompactMutation(dst, m)
		})
		if err != nil {
			s.mu.RUnlock()
			return fmt.Errorf("engine: commit log append for %s: %w", t.QualifiedName(), err)
		}
		active.notePos(pos)
	}
	var n int
	if cx := s.custom.Load(); cx != nil {
		n = applyIndexed(active.mt, token, m, cx, e.Now())
	} else {
		n = active.mt.Apply(token, m)
	}
	s.mu.RUnlock()
	s.writeCount.Add(1)
	e.mem.Add(int64(n))
	if active.mt.Size() >= e.opts.MemtableSize || e.mem.Load() >= e.opts.MemtableHardLimit/2 {
		e.maybeFlush(s)
	}
	return nil
}

// durableWrites reports whether the keyspace's writes go through the commit
// log (durable_writes, true unless the keyspace says otherwise).
func (e *Engine) durableWrites(keyspace string) bool {
	st := e.state.Load()
	if st.allDurableWrites() {
		return true
	}
	ks, ok := st.keyspaces[keyspace]
	return !ok || ks.def.DurableWrites
}

// ValidateMutation checks m as Apply does before it writes anything (see
// Apply): a caller that applies several mutations together checks them
// all first, so that one invalid mutation leaves every other unwritten.
func ValidateMutation(m *data.Mutation) error { return validateMutation(m) }

func validateMutation(m *data.Mutation) error {
	if len(m.Key) == 0 {
		return ErrEmptyKey
	}
	if len(m.Key) > MaxKeySize {
		return fmt.Errorf("%w: %d bytes (maximum %d)", ErrKeyTooLarge, len(m.Key), MaxKeySize)
	}
	if n := m.Size(); n > MaxMutationSize {
		return fmt.Errorf("%w: %d bytes (maximum %d)", ErrMutationTooLarge, n, MaxMutationSize)
	}
	if m.Static != nil {
		if err := validateRow(m.Static); err != nil {
			return err
		}
	}
	for i := range m.Rows {
		if err := validateRow(&m.Rows[i]); err != nil {
			return err
		}
	}
	return nil
}

func validateTTL(ttl int32, expires int64) error {
	switch {
	case ttl < 0:
		return fmt.Errorf("%w: A TTL must be greater or equal to 0, but was %d", ErrInvalidTTL, ttl)
	case ttl > data.MaxTTL:
		return fmt.Errorf("%w: ttl is too large. requested (%d) maximum (%d)", ErrTTLTooLarge, ttl, data.MaxTTL)
	case ttl > 0 && expires > MaxExpirationTime:
		return fmt.Errorf("%w: expiry %d is after %d", ErrExpirationOverflow, expires, MaxExpirationTime)
	}
	return nil
}

func validateRow(r *data.Row) error {
	if !r.Liveness.IsExpired() {
		if err := validateTTL(r.Liveness.TTL, r.Liveness.ExpiresAt); err != nil {
			return err
		}
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if err := validateTTL(c.TTL, c.LocalDeletionTime); err != nil {
			return err
		}
		if i > 0 && data.CompareID(&r.Cells[i-1], c) >= 0 {
			return fmt.Errorf("%w: cells not sorted or duplicated at %q", ErrInvalidMutation, c.Column)
		}
		switch c.Kind {
		case data.CellCounter:
			if len(c.Value) != 8 {
				return fmt.Errorf("%w: counter cell %q holds %d bytes", ErrInvalidMutation, c.Column, len(c.Value))
			}
		case data.CellRegular, data.CellTombstone:
		default:
			return fmt.Errorf("%w: cell kind %d", ErrInvalidMutation, c.Kind)
		}
	}
	return nil
}

// lwtStripes is the number of partition locks LockPartition spreads
// partitions over.
const lwtStripes = 256

var lwtSeed = maphash.MakeSeed()

// LockPartition locks the partition key of table t for a read-modify-write
// (a lightweight transaction's compare-and-set) and returns the function that
// unlocks it. Only callers of LockPartition are serialized: plain writes do
// not take the lock, as in Cassandra, where a non-LWT write can interleave
// with a Paxos round. Partitions share a fixed set of locks, so a caller must
// hold at most one partition lock at a time.
func (e *Engine) LockPartition(t *schema.Table, key []byte) (unlock func()) {
	var h maphash.Hash
	h.SetSeed(lwtSeed)
	if t != nil {
		h.Write(t.ID[:])
	}
	h.Write(key)
	mu := &e.lwt[h.Sum64()%lwtStripes]
	mu.Lock()
	return mu.Unlock
}
