package partitioner

import (
	"math/rand/v2"
	"slices"
	"sort"
)

// Node is a simulated cluster member.
type Node struct {
	// Name identifies the node; it is what Ownership keys on.
	Name string
	// DC is the node's data center, used by NetworkTopologyStrategy.
	DC string
	// Rack is the node's rack within its data center.
	Rack string
}

// Ring is a simulated token ring: each node owns vnodes random tokens, and a
// token belongs to the first ring token greater than or equal to it,
// wrapping past MaxToken to the smallest ring token. A Ring is immutable and
// safe for concurrent use.
type Ring struct {
	nodes  []Node
	tokens []Token // sorted ascending
	owner  []int   // owner[i] indexes nodes; the node that holds tokens[i]
}

// NewRing builds a ring in which every node gets vnodes tokens drawn from a
// PCG generator seeded with seed, so the same inputs always give the same
// ring. Nodes are assigned tokens in slice order. vnodes below 1 is treated
// as 1. Tokens never equal MinToken and never repeat. A ring with no nodes
// owns nothing: Owner returns the zero Node and Replicas returns nil.
func NewRing(nodes []Node, vnodes int, seed int64) *Ring {
	if vnodes < 1 {
		vnodes = 1
	}
	r := &Ring{nodes: slices.Clone(nodes)}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d696e6963617373)) // "minicass"
	seen := make(map[Token]bool, len(nodes)*vnodes)
	type entry struct {
		t Token
		n int
	}
	entries := make([]entry, 0, len(nodes)*vnodes)
	for i := range nodes {
		for v := 0; v < vnodes; v++ {
			t := Token(rng.Uint64())
			for t == MinToken || seen[t] {
				t = Token(rng.Uint64())
			}
			seen[t] = true
			entries = append(entries, entry{t, i})
		}
	}
	sort.Slice(entries, func(a, b int) bool { return entries[a].t < entries[b].t })
	r.tokens = make([]Token, len(entries))
	r.owner = make([]int, len(entries))
	for i, e := range entries {
		r.tokens[i], r.owner[i] = e.t, e.n
	}
	return r
}

// Nodes returns the ring's nodes in the order given to NewRing.
func (r *Ring) Nodes() []Node { return slices.Clone(r.nodes) }

// Tokens returns the ring's tokens in ascending order.
func (r *Ring) Tokens() []Token { return slices.Clone(r.tokens) }

// firstIndex returns the index of the first ring token >= t, wrapping to 0
// past the last token (TokenMetadata.firstTokenIndex).
func (r *Ring) firstIndex(t Token) int {
	i, _ := slices.BinarySearch(r.tokens, t)
	if i == len(r.tokens) {
		i = 0
	}
	return i
}

// Owner returns the node owning t: the holder of the first ring token >= t,
// wrapping. It returns the zero Node for an empty ring.
func (r *Ring) Owner(t Token) Node {
	if len(r.tokens) == 0 {
		return Node{}
	}
	return r.nodes[r.owner[r.firstIndex(t)]]
}

// TokenRange is the half-open range (Start, End] of tokens owned by Owner.
// The range whose End is the smallest ring token wraps: it starts at the
// largest ring token, runs through MaxToken and MinToken, and ends at End.
// On a ring with a single token, Start equals End and the range is the
// whole ring.
type TokenRange struct {
	Start, End Token
	Owner      Node
}

// Size returns the number of tokens in the range, as a fraction of the
// 2^64 tokens of the ring. A range with Start == End covers the whole ring.
func (tr TokenRange) Size() float64 {
	d := uint64(tr.End) - uint64(tr.Start) // wraps modulo 2^64
	if d == 0 {
		return 1
	}
	return float64(d) / (1 << 64)
}

// Ranges returns the ring's ranges in ascending order of End; the first is
// the wrapping range. It returns nil for an empty ring.
func (r *Ring) Ranges() []TokenRange {
	if len(r.tokens) == 0 {
		return nil
	}
	out := make([]TokenRange, len(r.tokens))
	for i, t := range r.tokens {
		prev := r.tokens[(i+len(r.tokens)-1)%len(r.tokens)]
		out[i] = TokenRange{Start: prev, End: t, Owner: r.nodes[r.owner[i]]}
	}
	return out
}

// Ownership returns the fraction of the ring each node owns as primary
// replica, keyed by Node.Name. Fractions sum to 1 (up to rounding) on a
// non-empty ring.
func (r *Ring) Ownership() map[string]float64 {
	m := make(map[string]float64, len(r.nodes))
	for _, n := range r.nodes {
		m[n.Name] += 0
	}
	for _, tr := range r.Ranges() {
		m[tr.Owner.Name] += tr.Size()
	}
	return m
}

// EffectiveOwnership returns the fraction of the ring each node holds a
// replica of under strategy s, keyed by Node.Name: nodetool status's "Owns
// (effective)". The fractions sum to the number of replicas of a token
// (the replication factor, when the ring has enough nodes).
func (r *Ring) EffectiveOwnership(s Strategy) map[string]float64 {
	m := make(map[string]float64, len(r.nodes))
	for _, n := range r.nodes {
		m[n.Name] += 0
	}
	for _, tr := range r.Ranges() {
		// Every token of (Start, End] is placed from End.
		for _, n := range r.Replicas(tr.End, s) {
			m[n.Name] += tr.Size()
		}
	}
	return m
}

// Strategy is a replica placement strategy. It is implemented by
// SimpleStrategy and NetworkTopologyStrategy only.
type Strategy interface {
	replicas(r *Ring, start int) []int
}

// Replicas returns the nodes holding replicas of token t under strategy s,
// primary first, in the order Cassandra lists them. The walk starts at the
// first ring token >= t. Fewer nodes than requested are returned when the
// ring (or a data center) has fewer nodes than the replication factor.
func (r *Ring) Replicas(t Token, s Strategy) []Node {
	if len(r.tokens) == 0 || s == nil {
		return nil
	}
	idx := s.replicas(r, r.firstIndex(t))
	if len(idx) == 0 {
		return nil
	}
	out := make([]Node, len(idx))
	for i, n := range idx {
		out[i] = r.nodes[n]
	}
	return out
}

// SimpleStrategy places RF replicas on the first RF distinct nodes met
// walking the ring clockwise from the token (locator/SimpleStrategy.java
// calculateNaturalReplicas). It ignores data centers and racks.
type SimpleStrategy struct {
	RF int
}

func (s SimpleStrategy) replicas(r *Ring, start int) []int {
	var out []int
	for i := 0; i < len(r.tokens) && len(out) < s.RF; i++ {
		n := r.owner[(start+i)%len(r.tokens)]
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// NetworkTopologyStrategy places RF[dc] replicas in each data center
// (locator/NetworkTopologyStrategy.java calculateNaturalReplicas, 4.x). It
// makes one clockwise walk from the token. In each data center it accepts a
// node on a rack not yet used there; a node on an already used rack is
// accepted only while fewer than RF[dc] - racks(dc) such repeats have been
// taken, so distinct racks are preferred but the data center still fills up
// when it has fewer racks than replicas. A data center needs at most
// min(RF[dc], nodes in dc) replicas. Replicas are returned in walk order.
type NetworkTopologyStrategy struct {
	RF map[string]int
}

// ntsDC tracks one data center during the NetworkTopologyStrategy walk.
type ntsDC struct {
	rfLeft      int
	repeatsLeft int
	racksUsed   map[string]bool
}

func (s NetworkTopologyStrategy) replicas(r *Ring, start int) []int {
	nodesIn := map[string]int{}
	racksIn := map[string]map[string]bool{}
	for _, n := range r.nodes {
		nodesIn[n.DC]++
		if racksIn[n.DC] == nil {
			racksIn[n.DC] = map[string]bool{}
		}
		racksIn[n.DC][n.Rack] = true
	}
	dcs := map[string]*ntsDC{}
	pending := 0
	for dc, rf := range s.RF {
		if rf <= 0 || nodesIn[dc] == 0 {
			continue
		}
		dcs[dc] = &ntsDC{
			rfLeft:      min(rf, nodesIn[dc]),
			repeatsLeft: rf - len(racksIn[dc]),
			racksUsed:   map[string]bool{},
		}
		pending++
	}
	var out []int
	for i := 0; i < len(r.tokens) && pending > 0; i++ {
		n := r.owner[(start+i)%len(r.tokens)]
		node := r.nodes[n]
		d := dcs[node.DC]
		if d == nil || d.rfLeft <= 0 || slices.Contains(out, n) {
			continue
		}
		if !d.racksUsed[node.Rack] {
			d.racksUsed[node.Rack] = true
		} else if d.repeatsLeft <= 0 {
			continue
		} else {
			d.repeatsLeft--
		}
		out = append(out, n)
		d.rfLeft--
		if d.rfLeft == 0 {
			pending--
		}
	}
	return out
}
