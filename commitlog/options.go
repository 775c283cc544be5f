package commitlog

import (
	"fmt"
	"io"
	"log/slog"
	"time"
)

// SyncMode says when appended records are made durable.
type SyncMode int

const (
	// SyncPeriodic syncs in the background every Options.SyncPeriod; Append
	// does not wait, unless the last sync finished more than 1.5 periods
	// ago, in which case it syncs (or waits for a running sync) first, as
	// Cassandra blocks writers when the periodic sync falls behind. It is
	// the default, as in Cassandra.
	SyncPeriodic SyncMode = iota
	// SyncBatch makes Append wait for an fsync covering its record;
	// concurrent appenders share fsyncs.
	SyncBatch
	// SyncNone never syncs.
	SyncNone
)

// String returns the mode's name as in cassandra.yaml: periodic, batch, or
// none.
func (m SyncMode) String() string {
	switch m {
	case SyncPeriodic:
		return "periodic"
	case SyncBatch:
		return "batch"
	case SyncNone:
		return "none"
	}
	return fmt.Sprintf("SyncMode(%d)", int(m))
}

// Default option values.
const (
	DefaultSyncPeriod  = 10 * time.Second
	DefaultSegmentSize = 32 << 20
)

// Ticker delivers the ticks that drive periodic syncing. *time.Ticker is
// adapted by the default; tests supply their own to sync on demand.
type Ticker interface {
	// C returns the channel on which ticks are delivered.
	C() <-chan time.Time
	// Stop stops the ticker.
	Stop()
}

// Options configures a Log. The zero value works: it means periodic sync
// every 10 s, 32 MiB segments and records up to 16 MiB.
type Options struct {
	// SyncMode chooses when records are synced. Default SyncPeriodic.
	SyncMode SyncMode
	// SyncPeriod is the interval of periodic syncs. Default 10 s.
	SyncPeriod time.Duration
	// SegmentSize is the size at which the log moves to a new segment. A
	// segment never exceeds it. Default 32 MiB.
	SegmentSize int64
	// MaxRecordSize is the largest payload Append accepts. Default half of
	// SegmentSize, as Cassandra's max_mutation_size. It must leave room for
	// the segment and record headers within SegmentSize.
	MaxRecordSize int
	// NewTicker creates the ticker of periodic syncing. Default: a
	// time.Ticker. Only used with SyncPeriodic.
	NewTicker func(d time.Duration) Ticker
	// Now returns the current time; it decides when a periodic sync is
	// late (see SyncPeriodic). Default time.Now.
	Now func() time.Time
	// Logger receives the log's records: every byte range Open and Replay
	// skip (torn tails, and corruption under IgnoreReplayErrors) with the
	// file, offset and size. Nil discards them.
	Logger *slog.Logger
	// IgnoreReplayErrors makes Open and Replay skip damaged data, logging
	// it, instead of failing with a *CorruptionError, as Cassandra's
	// -Dcassandra.commitlog.ignorereplayerrors=true. See ReplayOptions.
	IgnoreReplayErrors bool
	// OnRotate, if set, is called after the log moved to a new segment,
	// by the goroutine whose Append rotated, once the log's lock is
	// released. It must not call Append (the caller may hold locks of its
	// own around Append); Segments and Tail are fine. The engine uses it
	// to flush the tables that hold old segments when the log passes its
	// total space.
	OnRotate func()
}

func (o *Options) replayOptions() ReplayOptions {
	return ReplayOptions{Logger: o.Logger, IgnoreReplayErrors: o.IgnoreReplayErrors}
}

// EnsureDefaults fills zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.SyncPeriod == 0 {
		o.SyncPeriod = DefaultSyncPeriod
	}
	if o.SegmentSize == 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.MaxRecordSize == 0 {
		o.MaxRecordSize = int(o.SegmentSize / 2)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.NewTicker == nil {
		o.NewTicker = func(d time.Duration) Ticker { return timeTicker{time.NewTicker(d)} }
	}
}

// Validate reports options that cannot work, with an error wrapping
// ErrInvalidOptions. Call it after EnsureDefaults.
func (o *Options) Validate() error {
	switch {
	case o.SyncMode < SyncPeriodic || o.SyncMode > SyncNone:
		return fmt.Errorf("%w: unknown sync mode %d", ErrInvalidOptions, int(o.SyncMode))
	case o.SyncPeriod <= 0:
		return fmt.Errorf("%w: sync period %v must be positive", ErrInvalidOptions, o.SyncPeriod)
	case o.MaxRecordSize <= 0:
		return fmt.Errorf("%w: max record size %d must be positive", ErrInvalidOptions, o.MaxRecordSize)
	case int64(o.MaxRecordSize)+headerSize+recordHeaderSize+syncMarkerSize > o.SegmentSize:
		return fmt.Errorf("%w: a %d-byte record does not fit a %d-byte segment",
			ErrInvalidOptions, o.MaxRecordSize, o.SegmentSize)
	case o.MaxRecordSize > 1<<31:
		return fmt.Errorf("%w: max record size %d exceeds 2 GiB", ErrInvalidOptions, o.MaxRecordSize)
	}
	return nil
}

// timeTicker adapts *time.Ticker to Ticker.
type timeTicker struct{ t *time.Ticker }

func (t timeTicker) C() <-chan time.Time { return t.t.C }
func (t timeTicker) Stop()               { t.t.Stop() }
