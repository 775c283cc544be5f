package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// Consistency levels, as Cassandra 4.1's coordinator applies them on a
// cluster of one node.
//
// A statement first validates its level (ConsistencyLevel.validateForRead,
// validateForWrite, validateCounterForWrite, validateForCas and
// validateForCasCommit): ANY cannot read, SERIAL cannot write without a
// condition, and so on. Then, before it reads or writes a keyspace, the
// replicas are counted as ReplicaPlans.assureSufficientLiveReplicas counts
// them: the level requires blockFor replicas, computed from the keyspace's
// replication factor (QUORUM of RF 3 is 2, ALL of RF 3 is 3, TWO is 2 at any
// RF), and the one node is the only live replica (none when the keyspace
// places no replica in its data center). Fewer live replicas than required
// is Unavailable ("Cannot achieve consistency level QUORUM", with the level,
// required and alive on the wire). So ONE and LOCAL_ONE always work, QUORUM
// works at RF 1 and 2 only where its quorum is 1, and a keyspace of RF 3
// answers QUORUM, LOCAL_QUORUM, EACH_QUORUM, ALL, TWO and THREE with
// Unavailable, as a one-node Cassandra does.
//
// A conditional statement (Paxos v1, StorageProxy.cas) needs a quorum of
// the Paxos participants, the natural replicas, which is the one node; it
// then reads the current values at QUORUM (LOCAL_QUORUM for LOCAL_SERIAL)
// and commits at the statement's level, so a keyspace of RF 3 refuses every
// conditional statement with Unavailable for QUORUM. A SERIAL read fetches
// at QUORUM (LOCAL_QUORUM) likewise. Virtual keyspaces have no replicas to
// count.

// Consistency returns the statement's consistency level: the request's, or
// ONE when it gives none (the Go API).
func (q *Execution) Consistency() wire.Consistency {
	if q.Params == nil || !q.Params.HasConsistency {
		return wire.One
	}
	return q.Params.Consistency
}

// serialConsistency returns the level of a conditional statement's Paxos
// round: the request's serial consistency, SERIAL when it gives none.
func (q *Execution) serialConsistency() wire.Consistency {
	if q.Params == nil || q.Params.SerialConsistency == 0 {
		return wire.Serial
	}
	return q.Params.SerialConsistency
}

func isSerial(cl wire.Consistency) bool { return cl == wire.Serial || cl == wire.LocalSerial }

// IsSerialRead reports whether the statement reads at SERIAL or
// LOCAL_SERIAL (a Paxos read, of one partition only).
func (q *Execution) IsSerialRead() bool { return isSerial(q.Consistency()) }

// ValidateRead checks the level of a SELECT (ConsistencyLevel.validateForRead).
func (q *Execution) ValidateRead() error {
	if q.Consistency() == wire.Any {
		return query.Invalidf("ANY ConsistencyLevel is only supported for writes")
	}
	return nil
}

// ValidateWrite checks the level of an unconditional write to tbl
// (validateForWrite, or validateCounterForWrite for a counter table).
func (q *Execution) ValidateWrite(tbl *schema.Table) error {
	cl := q.Consistency()
	if tbl.IsCounter() {
		switch {
		case cl == wire.Any:
			return query.Invalidf("Consistency level ANY is not yet supported for counter table %s", tbl.Name)
		case isSerial(cl):
			return query.Invalidf("Counter operations are inherently non-serializable")
		}
		return nil
	}
	if isSerial(cl) {
		return query.Invalidf("You must use conditional updates for serializable writes")
	}
	return nil
}

// ValidateCAS checks the levels of a conditional statement: its serial
// consistency (validateForCas) and its commit consistency
// (validateForCasCommit).
func (q *Execution) ValidateCAS(ks string) error {
	if !isSerial(q.serialConsistency()) {
		return query.Invalidf("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")
	}
	switch cl := q.Consistency(); {
	case isSerial(cl):
		return query.Invalidf("%s is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"", cl)
	case cl == wire.EachQuorum:
		if r, ok := q.replication(ks); ok && !r.nts {
			return query.Invalidf("consistency level EACH_QUORUM not compatible with replication strategy (%s)", r.class)
		}
	}
	return nil
}

// Replicas is the replication of a keyspace as a plan compiled against one
// schema sees it (ReplicasOf), so that its executions count the replicas
// without looking the keyspace up (CheckReadOf). It depends only on the
// keyspace's definition and the node's data center, which a schema change
// replaces (the plan is then compiled again) and which never changes.
type Replicas struct {
	r  replicationOf
	ok bool // false: a virtual keyspace (or none), whose reads count none
}

// ReplicasOf returns the replication of keyspace ks in env's current
// schema.
func ReplicasOf(env *Env, ks string) Replicas {
	r, ok := (&Execution{Env: env}).replication(ks)
	return Replicas{r: r, ok: ok}
}

// CheckReadOf counts the replicas of a read, at the statement's level, of
// the keyspace whose replication is rs, as the plan resolved it when it was
// compiled: a SERIAL read's fetch is at QUORUM (LOCAL_QUORUM).
func (q *Execution) CheckReadOf(rs Replicas) error {
	if !rs.ok {
		return nil
	}
	return assureReplicasOf(rs.r, readLevel(q.Consistency()))
}

// readLevel is the level whose replicas a read at level cl counts: a
// SERIAL read's fetch is at QUORUM (LOCAL_QUORUM).
func readLevel(cl wire.Consistency) wire.Consistency {
	switch cl {
	case wire.Serial:
		return wire.Quorum
	case wire.LocalSerial:
		return wire.LocalQuorum
	}
	return cl
}

// CheckWrite counts the replicas of a write to keyspace ks at the
// statement's level.
func (q *Execution) CheckWrite(ks string) error { return q.assureReplicas(ks, q.Consistency()) }

// CheckCAS counts the replicas of a conditional statement on keyspace ks:
// the Paxos participants, the read of the current values at QUORUM
// (LOCAL_QUORUM for LOCAL_SERIAL) and the commit at the statement's level
// (none for ANY).
func (q *Execution) CheckCAS(ks string) error {
	r, ok := q.replication(ks)
	if !ok {
		return nil
	}
	serial := q.serialConsistency()
	if live := r.live(); live < 1 {
		// ReplicaPlans.forPaxos: a quorum of the natural replicas.
		return unavailable(serial, 1, live)
	}
	read := wire.Quorum
	if serial == wire.LocalSerial {
		read = wire.LocalQuorum
	}
	if err := q.assureReplicas(ks, read); err != nil {
		return err
	}
	if cl := q.Consistency(); cl != wire.Any {
		return q.assureReplicas(ks, cl)
	}
	return nil
}

// replicationOf is what the replica count needs of a keyspace's
// replication.
type replicationOf struct {
	class string
	nts   bool
	// total is the replication factor, all data centers together; local
	// that of the node's data center.
	total, local int
	// dcs is the NetworkTopologyStrategy map (data center to factor, with
	// "class"), read for EACH_QUORUM.
	dcs map[string]string
	dc  string // the node's data center
}

// live is the number of live replicas of any token: the node, when the
// keyspace places a replica in its data center.
func (r replicationOf) live() int {
	if r.local > 0 {
		return 1
	}
	return 0
}

// replication returns the replication of keyspace ks, false for a virtual
// keyspace (or one not found), whose reads count no replicas. It runs
// before every read and write, so it computes the replication of a
// keyspace definition once (replicationCache) and allocates nothing after.
func (q *Execution) replication(ks string) (replicationOf, bool) {
	k, ok := q.Env.Engine.Keyspace(ks)
	if !ok || k == nil {
		return replicationOf{}, false
	}
	dc := ""
	if q.Env.System != nil {
		dc = q.Env.System.DataCenter()
	}
	c := q.Env.replication.Load()
	if r, ok := c.lookup(k, dc); ok {
		return r, true
	}
	r := replicationFor(k, dc)
	q.Env.replication.Store(c.with(q.Env, k, r))
	return r, true
}

// replicationCache maps keyspace definitions to their replication. A
// definition is never modified once the engine holds it (ALTER KEYSPACE
// installs a new one), and the replication depends only on it and on the
// node's data center, so an entry stays true for as long as its
// definition is the keyspace's. The cache is immutable: a miss stores a
// new one (Env.replication), holding the entries of the old one whose
// definitions are still current; concurrent misses may lose an entry,
// which the next read computes again.
type replicationCache struct {
	dc   string
	defs map[*schema.Keyspace]replicationOf
}

// lookup returns the cached replication of k for data center dc.
func (c *replicationCache) lookup(k *schema.Keyspace, dc string) (replicationOf, bool) {
	if c == nil || c.dc != dc {
		return replicationOf{}, false
	}
	r, ok := c.defs[k]
	return r, ok
}

// with returns a cache holding c's entries that env's engine still
// holds, and r for k.
func (c *replicationCache) with(env *Env, k *schema.Keyspace, r replicationOf) *replicationCache {
	out := &replicationCache{dc: r.dc, defs: map[*schema.Keyspace]replicationOf{k: r}}
	if c == nil || c.dc != r.dc {
		return out
	}
	for def, rr := range c.defs {
		if cur, ok := env.Engine.Keyspace(def.Name); ok && cur == def {
			out.defs[def] = rr
		}
	}
	return out
}

// replicationFor computes the replication of keyspace definition k on a
// node of data center dc.
func replicationFor(k *schema.Keyspace, dc string) replicationOf {
	class := k.Replication["class"]
	r := replicationOf{class: class, dc: dc}
	switch strings.TrimPrefix(class, "org.apache.cassandra.locator.") {
	case "NetworkTopologyStrategy":
		r.nts, r.dcs = true, k.Replication
		for dc, v := range k.Replication {
			if dc == "class" {
				continue
			}
			n, _ := strconv.Atoi(v)
			r.total += n
			if dc == r.dc {
				r.local = n
			}
		}
	case "SimpleStrategy":
		r.total, _ = strconv.Atoi(k.Replication["replication_factor"])
		r.local = r.total
	default:
		// LocalStrategy (and EverywhereStrategy on one node): one replica.
		r.total, r.local = 1, 1
	}
	return r
}

// quorum is ConsistencyLevel.quorumFor.
func quorum(rf int) int { return rf/2 + 1 }

// assureReplicas is assureSufficientLiveReplicas for level cl on keyspace
// ks (blockFor, then the live replicas counted as the level counts them).
func (q *Execution) assureReplicas(ks string, cl wire.Consistency) error {
	if cl == wire.Any {
		return nil // a hint will do
	}
	r, ok := q.replication(ks)
	if !ok {
		return nil
	}
	return assureReplicasOf(r, cl)
}

// assureReplicasOf is assureReplicas of a keyspace of replication r.
func assureReplicasOf(r replicationOf, cl wire.Consistency) error {
	if cl == wire.Any {
		return nil // a hint will do
	}
	live := r.live()
	var required int
	switch cl {
	case wire.One, wire.LocalOne:
		required = 1
	case wire.Two:
		required = 2
	case wire.Three:
		required = 3
	case wire.Quorum, wire.Serial:
		required = quorum(r.total)
	case wire.All:
		required = r.total
	case wire.LocalQuorum, wire.LocalSerial:
		required = quorum(r.local)
	case wire.EachQuorum:
		if !r.nts {
			required = quorum(r.total)
			break
		}
		// Each data center needs its own quorum; the node's is the
		// only one with a live replica.
		for _, dc := range sortedDCs(r.dcs) {
			n, _ := strconv.Atoi(r.dcs[dc])
			need, have := quorum(n), 0
			if dc == r.dc {
				have = live
			}
			if have < need {
				return &query.Error{Code: wire.CodeUnavailable, Consistency: cl, Required: int32(need), Alive: int32(have),
					Message: fmt.Sprintf("Cannot achieve consistency level %s in DC %s", cl, dc)}
			}
		}
		return nil
	default:
		return nil
	}
	if live < required {
		return unavailable(cl, required, live)
	}
	return nil
}

// unavailable is UnavailableException.create's error.
func unavailable(cl wire.Consistency, required, alive int) *query.Error {
	return &query.Error{Code: wire.CodeUnavailable, Consistency: cl, Required: int32(required), Alive: int32(alive),
		Message: fmt.Sprintf("Cannot achieve consistency level %s", cl)}
}

// sortedDCs returns the data centers of a NetworkTopologyStrategy map.
func sortedDCs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "class" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
