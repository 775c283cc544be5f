package cql

import (
	"slices"
	"sync"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/schema"
)

// The executor keeps one cache of prepared statements, shared by every
// session, the Go API and the server alike, as Cassandra's QueryProcessor
// keeps one. A statement is found by its id (the MD5 of the keyspace and
// the text, or of the text alone: the protocol's prepared id; a statement
// is cached under both, see Executor.prepare) or by the keyspace of its id
// and its text (the Go API, which then hashes nothing).
//
// The cache is bounded by an estimate of the memory its statements hold
// (Options.PreparedStatementsCacheSize, Cassandra's
// prepared_statements_cache_size). When a new statement does not fit, the
// clock algorithm evicts statements not used since the hand last passed
// them, an approximation of least recently used in which a hit only sets a
// flag, so lookups share a read lock.
//
// A schema change evicts the statements it invalidates, as Cassandra's
// StatementInvalidatingListener: a SELECT, INSERT, UPDATE, DELETE or BATCH
// whose table was dropped (or dropped and created again), or altered in a
// way that schema.ChangeAffectsPreparedStatements reports. The check runs
// when the statement is next looked up after the schema version moved, so
// it holds for every way the schema changes. An evicted id gets Unprepared
// (0x2500), and drivers prepare it again and see the new result metadata.
// Other statements are compiled again against the new schema, and must
// still promise the same result columns, or they are evicted too.

// DefaultPreparedStatementsCacheSize is the default bound of the prepared
// statement cache, Cassandra's minimum for prepared_statements_cache_size
// (10 MiB).
const DefaultPreparedStatementsCacheSize = 10 << 20

// preparedOverhead is the estimated memory of a prepared statement beyond
// its text: the parsed statement and its plan.
const preparedOverhead = 2048

// planCache holds the prepared statements. It is safe for concurrent use.
type planCache struct {
	mu     sync.RWMutex
	byID   map[[16]byte]*Prepared
	byText map[string]*Prepared
	// ring holds every statement in insertion order for the clock hand;
	// each statement knows its slot.
	ring  []*Prepared
	hand  int
	size  int64
	limit int64
}

func newPlanCache(limit int64) *planCache {
	if limit <= 0 {
		limit = DefaultPreparedStatementsCacheSize
	}
	return &planCache{byID: map[[16]byte]*Prepared{}, byText: map[string]*Prepared{}, limit: limit}
}

// textKey is the byText key of a statement prepared in keyspace ks.
func textKey(ks, query string) string { return ks + "\x00" + query }

// get returns the statement with id, or nil.
func (c *planCache) get(id []byte) *Prepared {
	if len(id) != 16 {
		return nil
	}
	c.mu.RLock()
	p := c.byID[[16]byte(id)]
	c.mu.RUnlock()
	if p != nil {
		p.used.Store(true)
	}
	return p
}

// getText returns the statement with text query cached under the id of
// keyspace ks and the text (ks empty: the text alone), or nil.
func (c *planCache) getText(ks, query string) *Prepared {
	// The key is built on the stack for short texts, and a lookup by
	// string(bytes) does not allocate.
	var buf [256]byte
	key := append(append(append(buf[:0], ks...), 0), query...)
	c.mu.RLock()
	p := c.byText[string(key)]
	c.mu.RUnlock()
	if p != nil {
		p.used.Store(true)
	}
	return p
}

// put adds p and returns it, or returns the statement already cached under
// its id. It evicts statements until p fits; a statement larger than the
// whole cache is returned uncached, as Cassandra executes a statement too
// large for its cache without keeping it.
func (c *planCache) put(p *Prepared) *Prepared {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.byID[[16]byte(p.ID)]; old != nil {
		return old
	}
	if p.weight > c.limit {
		return p
	}
	for c.size+p.weight > c.limit && len(c.ring) > 0 {
		if c.hand >= len(c.ring) {
			c.hand = 0
		}
		if e := c.ring[c.hand]; e.used.Swap(false) {
			c.hand++
			continue
		}
		c.removeLocked(c.ring[c.hand])
	}
	p.slot = len(c.ring)
	c.ring = append(c.ring, p)
	c.byID[[16]byte(p.ID)] = p
	c.byText[textKey(p.idKeyspace, p.Query)] = p
	c.size += p.weight
	return p
}

// remove evicts p if it is still cached.
func (c *planCache) remove(p *Prepared) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID[[16]byte(p.ID)] == p {
		c.removeLocked(p)
	}
}

func (c *planCache) removeLocked(p *Prepared) {
	last := len(c.ring) - 1
	moved := c.ring[last]
	c.ring[p.slot] = moved
	moved.slot = p.slot
	c.ring[last] = nil
	c.ring = c.ring[:last]
	delete(c.byID, [16]byte(p.ID))
	delete(c.byText, textKey(p.idKeyspace, p.Query))
	c.size -= p.weight
	p.slot = -1
}

// len returns the number of cached statements.
func (c *planCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.ring)
}

// PreparedStatements returns the number of statements the executor's
// cache holds.
func (x *Executor) PreparedStatements() int { return x.plans.len() }

// invalidatedBy reports whether the current schema invalidates a statement
// that depends on tables (the tables as they were when it was compiled).
func (x *Executor) invalidatedBy(tables []*schema.Table) bool {
	for _, t := range tables {
		if virtual.IsSystemKeyspace(t.Keyspace) || virtual.IsUserVirtual(t) {
			continue // no statement alters a system or virtual table
		}
		now, ok := x.env.Engine.Table(t.Keyspace, t.Name)
		if !ok || schema.ChangeAffectsPreparedStatements(t, now) {
			return true
		}
	}
	return false
}

// functionsChanged reports whether one of the user functions or aggregates
// a statement calls was replaced or dropped since it was compiled (its
// keyspace no longer holds that very definition).
func (x *Executor) functionsChanged(defs []any) bool {
	for _, d := range defs {
		switch d := d.(type) {
		case *schema.Function:
			ks, ok := x.env.Engine.Keyspace(d.Keyspace)
			if !ok || !slices.Contains(ks.Functions, d) {
				return true
			}
		case *schema.Aggregate:
			ks, ok := x.env.Engine.Keyspace(d.Keyspace)
			if !ok || !slices.Contains(ks.Aggregates, d) {
				return true
			}
		}
	}
	return false
}

// sameColumns reports whether two result metadata are the same.
func sameColumns(a, b []query.ColumnSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Keyspace != b[i].Keyspace || a[i].Table != b[i].Table || a[i].Name != b[i].Name || !a[i].Type.Equal(b[i].Type) {
			return false
		}
	}
	return true
}
