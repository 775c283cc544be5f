package query

import "github.com/minicass/minicass/engine"

// ReadAccess says how a read found the partitions it read.
type ReadAccess string

// The accesses a TraceRead reports.
const (
	// AccessPartition reads partitions by their keys (WHERE restricts the
	// whole partition key, with = or IN).
	AccessPartition ReadAccess = "partition read"
	// AccessScan walks a token range (a range read): every partition of
	// the range is read, and with filters each row is tested.
	AccessScan ReadAccess = "range scan"
	// AccessIndex reads a secondary index for the keys of the matching
	// rows, then those rows. The read path reports it when it reads an
	// index's data; TraceRead.Index then names the index.
	AccessIndex ReadAccess = "index read"
)

// maxTraceReadKeys bounds the keys a TraceRead keeps.
const maxTraceReadKeys = 8

// TraceRead is what one table read of a traced statement touched, summed
// over its partitions, kept as values for the views that draw a read (the
// studio's read page) rather than print it: how the partitions were found,
// the engine's statistics, what each source was skipped for, and what the
// CQL layer's filters kept. It is filled only when the statement is traced,
// so an untraced read pays nothing for it.
type TraceRead struct {
	// Table is the table read, keyspace.table.
	Table string
	// Access says how the partitions were found.
	Access ReadAccess
	// Index names the secondary index involved: the index read
	// (AccessIndex), or, with AccessScan, the index that lets the query
	// run without ALLOW FILTERING while the read path scans and filters.
	Index string
	// Keys are the first partitions read (up to 8), printed as WHERE
	// clauses with the table's types.
	Keys []string
	// Filtered is set when the CQL layer tested rows against residual
	// filters (ALLOW FILTERING, or an index the read path did not read):
	// RowsExamined rows were tested, RowsMatched kept.
	Filtered                  bool
	RowsExamined, RowsMatched int
	// Stats sums the engine's statistics of the partitions read; its
	// SkipReason fields keep only the last reason, SourceSkips all of them.
	Stats engine.ReadStats
	// SourceSkips counts, per source and reason, the partitions a source
	// was not read for, in the order first met.
	SourceSkips []SourceSkip
}

// SourceSkip counts the partitions one source was skipped for, for one
// reason ("bloom filter", "token out of range", ...).
type SourceSkip struct {
	Source, Reason string
	Partitions     int
}

// Skips returns the skips of the named source, in the order first met.
func (r *TraceRead) Skips(source string) []SourceSkip {
	var out []SourceSkip
	for _, s := range r.SourceSkips {
		if s.Source == source {
			out = append(out, s)
		}
	}
	return out
}

// Read records the read of one partition of table, found by access, with
// the engine's statistics of that read (st covers that partition alone, so
// each source's SkipReason is the reason it was skipped for it); key
// prints the partition as a WHERE clause, called only for the first keys.
// Reads of one table by one access sum into one TraceRead. Nothing is
// recorded on a nil trace.
func (t *Trace) Read(table string, access ReadAccess, index string, key func() string, st *engine.ReadStats) {
	if t == nil {
		return
	}
	r := t.traceRead(table, access)
	if index != "" {
		r.Index = index
	}
	if key != nil && len(r.Keys) < maxTraceReadKeys {
		r.Keys = append(r.Keys, key())
	}
	if st == nil {
		return
	}
	r.Stats.Add(st)
	for _, src := range st.Sources {
		if src.Skipped == 0 {
			continue
		}
		found := false
		for i := range r.SourceSkips {
			if s := &r.SourceSkips[i]; s.Source == src.Name && s.Reason == src.SkipReason {
				s.Partitions += src.Skipped
				found = true
				break
			}
		}
		if !found {
			r.SourceSkips = append(r.SourceSkips, SourceSkip{Source: src.Name, Reason: src.SkipReason, Partitions: src.Skipped})
		}
	}
}

// Filtered records that the rows read from table were tested against
// filters: examined rows tested, matched kept.
func (t *Trace) Filtered(table string, examined, matched int) {
	if t == nil {
		return
	}
	for i := range t.Reads {
		if r := &t.Reads[i]; r.Table == table && r.Access != AccessIndex {
			r.Filtered, r.RowsExamined, r.RowsMatched = true, r.RowsExamined+examined, r.RowsMatched+matched
			return
		}
	}
	t.Reads = append(t.Reads, TraceRead{Table: table, Access: AccessScan, Filtered: true, RowsExamined: examined, RowsMatched: matched})
}

// IndexChecked records that the rows an index read of table named were
// checked against the query's restrictions, the indexed one included (the
// index names rows, the base row decides): examined were tested, matched
// kept. It marks the table's index read as filtered.
func (t *Trace) IndexChecked(table string, examined, matched int) {
	if t == nil {
		return
	}
	r := t.traceRead(table, AccessIndex)
	r.Filtered, r.RowsExamined, r.RowsMatched = true, r.RowsExamined+examined, r.RowsMatched+matched
}

// traceRead returns the entry of table and access, adding it if needed.
func (t *Trace) traceRead(table string, access ReadAccess) *TraceRead {
	for i := range t.Reads {
		if r := &t.Reads[i]; r.Table == table && r.Access == access {
			return r
		}
	}
	t.Reads = append(t.Reads, TraceRead{Table: table, Access: access})
	return &t.Reads[len(t.Reads)-1]
}
