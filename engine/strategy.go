package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Compaction strategies. A table's `compaction` option chooses one:
//
//   - SizeTieredCompactionStrategy (the default): SSTables of similar size
//     (within bucket_low..bucket_high of a bucket's average, or all below
//     min_sstable_size) form buckets; the bucket with at least
//     min_threshold SSTables and the highest read hotness (ties: the
//     smallest average size) is compacted, trimmed to max_threshold
//     hottest. Without such a bucket, the SSTable with the largest ratio of
//     droppable tombstones above tombstone_threshold (older than
//     tombstone_compaction_interval) is compacted alone.
//   - TimeWindowCompactionStrategy: SSTables are grouped into windows of
//     compaction_window_size compaction_window_unit by their maximum
//     timestamp; the newest window is compacted with STCS once it holds
//     min_threshold SSTables, an older window as soon as it holds two (the
//     max_threshold smallest). Fully expired SSTables are dropped whole.
//   - LeveledCompactionStrategy and UnifiedCompactionStrategy are accepted
//     and run as SizeTieredCompactionStrategy (see docs/compatibility.md).
//
// Every compaction also drops the fully expired SSTables among its inputs
// (compactor.fullyExpired).

// compactionParams are a table's parsed compaction options.
type compactionParams struct {
	class                string // short class name
	enabled              bool
	minThreshold         int
	maxThreshold         int
	bucketLow            float64
	bucketHigh           float64
	minSSTableSize       int64
	tombstoneThreshold   float64
	tombstoneInterval    int64
	uncheckedTombstone   bool
	windowUnit           time.Duration
	windowSize           int64
	timestampResolution  int64 // timestamps per second
	unsafeAggressiveExpi bool
}

// The strategies' defaults (Cassandra's).
const (
	defaultMinThreshold       = 4
	defaultMaxThreshold       = 32
	defaultBucketLow          = 0.5
	defaultBucketHigh         = 1.5
	defaultMinSSTableSize     = 50 << 20
	defaultTombstoneThreshold = 0.2
	defaultTombstoneInterval  = 86400
)

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidCompactionOptions, fmt.Sprintf(format, args...))
}

// ValidateCompactionOptions checks a table's compaction map (class and
// sub-options) as Cassandra's strategies do (AbstractCompactionStrategy,
// SizeTieredCompactionStrategyOptions, TimeWindowCompactionStrategyOptions)
// and returns an error wrapping ErrInvalidCompactionOptions whose message
// ends with Cassandra's ConfigurationException text (after "engine:
// invalid compaction options: ").
func ValidateCompactionOptions(m map[string]string) error {
	_, err := parseCompaction(m)
	return err
}

// CompactionErrorMessage returns the ConfigurationException text of an
// error returned by ValidateCompactionOptions.
func CompactionErrorMessage(err error) string {
	return strings.TrimPrefix(err.Error(), ErrInvalidCompactionOptions.Error()+": ")
}

func parseCompaction(m map[string]string) (compactionParams, error) {
	p := compactionParams{class: "SizeTieredCompactionStrategy", enabled: true,
		minThreshold: defaultMinThreshold, maxThreshold: defaultMaxThreshold,
		bucketLow: defaultBucketLow, bucketHigh: defaultBucketHigh, minSSTableSize: defaultMinSSTableSize,
		tombstoneThreshold: defaultTombstoneThreshold, tombstoneInterval: defaultTombstoneInterval,
		windowUnit: 24 * time.Hour, windowSize: 1, timestampResolution: 1_000_000}
	if c, ok := m["class"]; ok {
		p.class = c[strings.LastIndexByte(c, '.')+1:]
	}
	if v, ok := m["enabled"]; ok {
		switch strings.ToLower(v) {
		case "true":
		case "false":
			p.enabled = false
		default:
			return p, configErr("Invalid value %s for 'enabled' compaction sub-option - must be 'true' or 'false'", v)
		}
	}
	for _, k := range []string{"min_threshold", "max_threshold"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			return p, configErr("Invalid value %s for '%s' compaction sub-option - must be an integer", v, k)
		}
		if k == "min_threshold" {
			p.minThreshold = n
		} else {
			p.maxThreshold = n
		}
	}
	if v, ok := m["tombstone_threshold"]; ok {
		f, err := strconv.ParseFloat(v, 32)
		if err != nil {
			return p, configErr("%s is not a parsable int (base10) for tombstone_threshold", v)
		}
		if f < 0 {
			return p, configErr("tombstone_threshold must be greater than 0, but was %f", f)
		}
		p.tombstoneThreshold = f
	}
	if v, ok := m["tombstone_compaction_interval"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return p, configErr("%s is not a parsable int (base10) for tombstone_compaction_interval", v)
		}
		if n < 0 {
			return p, configErr("tombstone_compaction_interval must be greater than 0, but was %d", n)
		}
		p.tombstoneInterval = n
	}
	if v, ok := m["unchecked_tombstone_compaction"]; ok {
		switch strings.ToLower(v) {
		case "true":
			p.uncheckedTombstone = true
		case "false":
		default:
			return p, configErr("'unchecked_tombstone_compaction' should be either 'true' or 'false', not '%s'", v)
		}
	}
	switch p.class {
	case "SizeTieredCompactionStrategy", "LeveledCompactionStrategy", "UnifiedCompactionStrategy", "TimeWindowCompactionStrategy":
		if err := parseSTCS(m, &p); err != nil {
			return p, err
		}
	default:
		return p, configErr("Unable to find compaction strategy class '%s'", m["class"])
	}
	if p.class == "TimeWindowCompactionStrategy" {
		if err := parseTWCS(m, &p); err != nil {
			return p, err
		}
	}
	return p, nil
}

func parseSTCS(m map[string]string, p *compactionParams) error {
	if v, ok := m["min_sstable_size"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return configErr("%s is not a parsable int (base10) for min_sstable_size", v)
		}
		if n < 0 {
			return configErr("min_sstable_size must be non negative: %d", n)
		}
		p.minSSTableSize = n
	}
	// Cassandra's messages name the default value rather than the key here.
	if v, ok := m["bucket_low"]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return configErr("%s is not a parsable int (base10) for %s", v, types.JavaFloat(defaultBucketLow, 64))
		}
		p.bucketLow = f
	}
	if v, ok := m["bucket_high"]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return configErr("%s is not a parsable int (base10) for %s", v, types.JavaFloat(defaultBucketHigh, 64))
		}
		p.bucketHigh = f
	}
	if p.bucketHigh <= p.bucketLow {
		return configErr("Bucket high value (%s) is less than or equal bucket low value (%s)", types.JavaFloat(p.bucketHigh, 64), types.JavaFloat(p.bucketLow, 64))
	}
	return nil
}

func parseTWCS(m map[string]string, p *compactionParams) error {
	if v, ok := m["timestamp_resolution"]; ok {
		switch strings.ToUpper(v) {
		case "MICROSECONDS":
		case "MILLISECONDS":
			p.timestampResolution = 1000
		case "SECONDS":
			p.timestampResolution = 1
		case "MINUTES", "HOURS", "DAYS", "NANOSECONDS":
			return configErr("%s is not valid for timestamp_resolution", v)
		default:
			return configErr("%s is not valid for timestamp_resolution", v)
		}
	}
	if v, ok := m["compaction_window_unit"]; ok {
		switch strings.ToUpper(v) {
		case "MINUTES":
			p.windowUnit = time.Minute
		case "HOURS":
			p.windowUnit = time.Hour
		case "DAYS":
			p.windowUnit = 24 * time.Hour
		default:
			return configErr("%s is not valid for compaction_window_unit", v)
		}
	}
	if v, ok := m["compaction_window_size"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return configErr("%s is not a parsable int (base10) for compaction_window_size", v)
		}
		if n < 1 {
			return configErr("%d must be greater than 1 for compaction_window_size", n)
		}
		p.windowSize = int64(n)
	}
	if v, ok := m["expired_sstable_check_frequency_seconds"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return configErr("%s is not a parsable int (base10) for expired_sstable_check_frequency_seconds", v)
		}
		if n < 0 {
			return configErr("%s must not be negative, but was %d", "expired_sstable_check_frequency_seconds", n)
		}
	}
	if v, ok := m["unsafe_aggressive_sstable_expiration"]; ok {
		switch strings.ToLower(v) {
		case "true":
			p.unsafeAggressiveExpi = true
		case "false":
		default:
			return configErr("%s is not 'true' or 'false' (unsafe_aggressive_sstable_expiration)", v)
		}
	}
	return nil
}

// stcsBuckets groups SSTables by size as SizeTieredCompactionStrategy.
// getBuckets: sorted by size, each joins the first bucket whose average it
// lies within (bucketLow, bucketHigh) of, or whose average is, as it is,
// below minSize; a bucket's average is updated as members join.
func stcsBuckets(ssts []*sstableSource, low, high float64, minSize int64) [][]*sstableSource {
	sorted := slices.Clone(ssts)
	slices.SortStableFunc(sorted, func(a, b *sstableSource) int { return cmp.Compare(a.size(), b.size()) })
	type bucket struct {
		avg     int64
		members []*sstableSource
	}
	var buckets []*bucket
	for _, s := range sorted {
		size := s.size()
		found := false
		for _, b := range buckets {
			if (float64(size) > float64(b.avg)*low && float64(size) < float64(b.avg)*high) || (size < minSize && b.avg < minSize) {
				total := b.avg * int64(len(b.members))
				b.members = append(b.members, s)
				b.avg = (total + size) / int64(len(b.members))
				found = true
				break
			}
		}
		if !found {
			buckets = append(buckets, &bucket{avg: size, members: []*sstableSource{s}})
		}
	}
	out := make([][]*sstableSource, len(buckets))
	for i, b := range buckets {
		out[i] = b.members
	}
	return out
}

// hotness is an SSTable's reads per partition (Cassandra: read rate per
// estimated key).
func (s *sstableSource) hotness() float64 {
	if s.stats.Partitions == 0 {
		return 0
	}
	return float64(s.reads.Load()) / float64(s.stats.Partitions)
}

// mostInterestingBucket picks, among the buckets with at least minT
// SSTables, each trimmed to its maxT hottest, the one with the highest
// total hotness, ties going to the smallest average size.
func mostInterestingBucket(buckets [][]*sstableSource, minT, maxT int) []*sstableSource {
	var best []*sstableSource
	var bestHot float64
	var bestAvg int64
	for _, b := range buckets {
		if len(b) < minT {
			continue
		}
		trimmed := slices.Clone(b)
		slices.SortStableFunc(trimmed, func(x, y *sstableSource) int {
			hx, hy := x.hotness(), y.hotness()
			switch {
			case hx > hy:
				return -1
			case hx < hy:
				return 1
			}
			return 0
		})
		if len(trimmed) > maxT {
			trimmed = trimmed[:maxT]
		}
		var hot float64
		var total int64
		for _, s := range trimmed {
			hot += s.hotness()
			total += s.size()
		}
		avg := total / int64(len(trimmed))
		if best == nil || hot > bestHot || (hot == bestHot && avg < bestAvg) {
			best, bestHot, bestAvg = trimmed, hot, avg
		}
	}
	return best
}

// stcsCandidates returns the SSTables STCS compacts next, and the reason.
func (p *compactionParams) stcsCandidates(ssts []*sstableSource, gcBefore, now int64) ([]*sstableSource, string) {
	if b := mostInterestingBucket(stcsBuckets(ssts, p.bucketLow, p.bucketHigh, p.minSSTableSize), p.minThreshold, p.maxThreshold); len(b) > 0 {
		return b, "background"
	}
	// Single-SSTable tombstone compaction.
	var best *sstableSource
	var bestRatio float64
	for _, s := range ssts {
		if now-s.created < p.tombstoneInterval {
			continue
		}
		r := s.stats.DroppableTombstones(gcBefore)
		if r > p.tombstoneThreshold && r > bestRatio {
			best, bestRatio = s, r
		}
	}
	if best != nil {
		return []*sstableSource{best}, "tombstone"
	}
	return nil, ""
}

// twcsWindow returns the lower bound, in seconds, of the window holding
// the timestamp ts (TimeWindowCompactionStrategy.getWindowBoundsInMillis).
func (p *compactionParams) twcsWindow(ts int64) int64 {
	sec := ts / p.timestampResolution
	if ts < 0 && ts%p.timestampResolution != 0 {
		sec--
	}
	w := int64(p.windowUnit/time.Second) * p.windowSize
	return sec - mod(sec, w)
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// twcsCandidates returns the SSTables TWCS compacts next.
func (p *compactionParams) twcsCandidates(ssts []*sstableSource) []*sstableSource {
	windows := map[int64][]*sstableSource{}
	var newest int64 = math.MinInt64
	for _, s := range ssts {
		w := p.twcsWindow(s.stats.MaxTimestamp)
		windows[w] = append(windows[w], s)
		newest = max(newest, w)
	}
	keys := slices.Sorted(maps.Keys(windows))
	for i := len(keys) - 1; i >= 0; i-- {
		k := keys[i]
		b := windows[k]
		switch {
		case k >= newest && len(b) >= p.minThreshold:
			if c := mostInterestingBucket(stcsBuckets(b, p.bucketLow, p.bucketHigh, p.minSSTableSize), p.minThreshold, p.maxThreshold); len(c) > 0 {
				return c
			}
		case k < newest && len(b) >= 2:
			trimmed := slices.Clone(b)
			slices.SortStableFunc(trimmed, func(x, y *sstableSource) int { return cmp.Compare(x.size(), y.size()) })
			if len(trimmed) > p.maxThreshold {
				trimmed = trimmed[:p.maxThreshold]
			}
			return trimmed
		}
	}
	return nil
}

// nextCompaction returns the next background compaction of s, if any.
func (e *Engine) nextCompaction(s *tableStore) ([]*sstableSource, string) {
	t := s.table.Load()
	p, err := parseCompaction(t.Options.Compaction)
	if err != nil || !p.enabled || p.minThreshold == 0 || p.maxThreshold == 0 {
		return nil, ""
	}
	s.mu.RLock()
	ssts := slices.Clone(s.ssts)
	s.mu.RUnlock()
	if len(ssts) == 0 {
		return nil, ""
	}
	now := e.Now()
	gcBefore := now - int64(t.Options.GCGraceSeconds)
	if p.class == "TimeWindowCompactionStrategy" {
		// Fully expired SSTables are dropped first, whatever the windows.
		c := &compactor{e: e, s: s, inputs: ssts, gcBefore: gcBefore}
		if expired, _ := c.fullyExpired(); len(expired) > 0 {
			return expired, "expired"
		}
		if b := p.twcsCandidates(ssts); len(b) > 0 {
			return b, "background"
		}
		return nil, ""
	}
	return p.stcsCandidates(ssts, gcBefore, now)
}

// scheduleCompaction runs the background compactions of s, one after the
// other until none is due, on one of CompactionWorkers workers, unless one
// is already queued for s.
func (e *Engine) scheduleCompaction(s *tableStore) {
	if e.opts.DisableAutoCompaction || e.closed.Load() || s.dropped.Load() {
		return
	}
	if !s.compactScheduled.CompareAndSwap(false, true) {
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		e.compactSem <- struct{}{}
		defer func() { <-e.compactSem }()
		s.compactScheduled.Store(false)
		for i := 0; i < 64 && !e.closed.Load() && !s.dropped.Load(); i++ {
			s.compactMu.Lock()
			inputs, reason := e.nextCompaction(s)
			if len(inputs) == 0 {
				s.compactMu.Unlock()
				return
			}
			_, err := e.compact(e.bgCtx, s, inputs, reason)
			s.compactMu.Unlock()
			if err != nil {
				if e.bgCtx.Err() == nil && !s.dropped.Load() {
					e.opts.Logger.Error("background compaction failed", "table", s.name, "err", err)
				}
				return
			}
		}
	}()
}

// checkCompactions schedules, every CompactionCheckPeriod until Close, the
// background compactions of every table (Cassandra runs its background
// compaction submitter every minute as a backstop to the checks after
// flushes). Time passing alone can make a compaction due: TWCS drops an
// SSTable once all its data expired more than gc_grace_seconds ago.
func (e *Engine) checkCompactions() {
	defer e.bg.Done()
	tick := time.NewTicker(e.opts.CompactionCheckPeriod)
	defer tick.Stop()
	for {
		select {
		case <-e.bgCtx.Done():
			return
		case <-tick.C:
		}
		for _, s := range e.state.Load().stores {
			e.scheduleCompaction(s)
		}
	}
}

// Compact forces a major compaction of one table (keyspace and table set,
// with the table's index tables, as Flush),
// of every table of a keyspace (table empty) or of every table (both
// empty): all the SSTables of each table are merged into one set (split by
// Options.MaxSSTableSize), with purge. It waits for running compactions of
// the tables and returns once the new SSTables replaced the old. It returns
// ErrNoKeyspace or ErrNoTable for a name that does not exist.
func (e *Engine) Compact(ctx context.Context, keyspace, table string) error {
	stores, err := e.selectStores(keyspace, table)
	if err != nil {
		return err
	}
	for _, s := range stores {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.compactMu.Lock()
		s.mu.RLock()
		inputs := slices.Clone(s.ssts)
		s.mu.RUnlock()
		_, err := e.compact(ctx, s, inputs, "major")
		s.compactMu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// selectStores returns the stores of one table, a keyspace's tables or all
// tables, as Flush and Compact select them.
func (e *Engine) selectStores(keyspace, table string) ([]*tableStore, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	st := e.state.Load()
	if keyspace != "" {
		ks, ok := st.keyspaces[keyspace]
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrNoKeyspace, keyspace)
		}
		if _, ok := ks.tables[table]; table != "" && !ok {
			return nil, fmt.Errorf("%w: %s.%s", ErrNoTable, keyspace, table)
		}
	} else if table != "" {
		return nil, fmt.Errorf("%w: table %q without a keyspace", ErrNoTable, table)
	}
	var stores []*tableStore
	for _, name := range slices.Sorted(maps.Keys(st.keyspaces)) {
		if keyspace != "" && name != keyspace {
			continue
		}
		ks := st.keyspaces[name]
		for _, tn := range slices.Sorted(maps.Keys(ks.tables)) {
			if table != "" && !schema.OwnsTable(table, tn) {
				continue
			}
			if s, ok := st.stores[ks.tables[tn].ID]; ok {
				stores = append(stores, s)
			}
		}
	}
	return stores, nil
}

// CompactPending runs, in the caller's goroutine, the background
// compactions due for one table, a keyspace or every table (as Compact
// selects them) until none is due, and returns them. It is the synchronous
// form of what background compaction does after flushes (nodetool
// compact without arguments runs a major compaction instead).
func (e *Engine) CompactPending(ctx context.Context, keyspace, table string) ([]CompactionRecord, error) {
	stores, err := e.selectStores(keyspace, table)
	if err != nil {
		return nil, err
	}
	var out []CompactionRecord
	for _, s := range stores {
		for i := 0; i < 64; i++ {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			s.compactMu.Lock()
			inputs, reason := e.nextCompaction(s)
			var rec *CompactionRecord
			if len(inputs) > 0 {
				rec, err = e.compact(ctx, s, inputs, reason)
			}
			s.compactMu.Unlock()
			if err != nil {
				return out, err
			}
			if rec == nil {
				break
			}
			out = append(out, *rec)
		}
	}
	return out, nil
}

// CompactSSTables compacts the named SSTables (Data.db file names, as
// SSTables lists them) of keyspace.table together, as nodetool compact
// --user-defined does. Unknown names give an error wrapping ErrCompaction.
func (e *Engine) CompactSSTables(ctx context.Context, keyspace, table string, names []string) (*CompactionRecord, error) {
	if keyspace == "" || table == "" {
		return nil, fmt.Errorf("%w: %s.%s", ErrNoTable, keyspace, table)
	}
	stores, err := e.selectStores(keyspace, table)
	if err != nil {
		return nil, err
	}
	s := stores[0]
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.RLock()
	var inputs []*sstableSource
	for _, n := range names {
		i := slices.IndexFunc(s.ssts, func(t *sstableSource) bool { return t.name == n })
		if i < 0 {
			s.mu.RUnlock()
			return nil, fmt.Errorf("%w: %s.%s has no SSTable %s", ErrCompaction, keyspace, table, n)
		}
		inputs = append(inputs, s.ssts[i])
	}
	s.mu.RUnlock()
	return e.compact(ctx, s, inputs, "user-defined")
}
