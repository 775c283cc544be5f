package partitioner

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestRingDataDriven runs testdata/ring. Commands:
//
//	ring vnodes=N seed=S      input: one "name dc rack" per line; prints ranges and ownership
//	owner token=T             prints the owner of T
//	replicas token=T simple=RF | replicas token=T dc1=RF dc2=RF ...
func TestRingDataDriven(t *testing.T) {
	var r *Ring
	datadriven.RunTest(t, "testdata/ring", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "ring":
			var vnodes int
			var seed int64
			d.ScanArgs(t, "vnodes", &vnodes)
			d.ScanArgs(t, "seed", &seed)
			var nodes []Node
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				f := strings.Fields(line)
				require.Len(t, f, 3, "line %q", line)
				nodes = append(nodes, Node{Name: f[0], DC: f[1], Rack: f[2]})
			}
			r = NewRing(nodes, vnodes, seed)
			var b strings.Builder
			for _, tr := range r.Ranges() {
				fmt.Fprintf(&b, "(%d, %d] %s %.4f\n", tr.Start, tr.End, tr.Owner.Name, tr.Size())
			}
			own := r.Ownership()
			names := make([]string, 0, len(own))
			for n := range own {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(&b, "owns %s %.4f\n", n, own[n])
			}
			return b.String()
		case "owner":
			var tok int64
			d.ScanArgs(t, "token", &tok)
			return r.Owner(Token(tok)).Name + "\n"
		case "replicas":
			var tok int64
			d.ScanArgs(t, "token", &tok)
			var s Strategy
			if d.HasArg("simple") {
				var rf int
				d.ScanArgs(t, "simple", &rf)
				s = SimpleStrategy{RF: rf}
			} else {
				nts := NetworkTopologyStrategy{RF: map[string]int{}}
				for _, a := range d.CmdArgs {
					if a.Key == "token" {
						continue
					}
					rf, err := strconv.Atoi(a.Vals[0])
					require.NoError(t, err)
					nts.RF[a.Key] = rf
				}
				s = nts
			}
			var out []string
			for _, n := range r.Replicas(Token(tok), s) {
				out = append(out, n.Name+"@"+n.DC+"/"+n.Rack)
			}
			if len(out) == 0 {
				return "(none)\n"
			}
			return strings.Join(out, " ") + "\n"
		}
		t.Fatalf("unknown command %q", d.Cmd)
		return ""
	})
}

func TestRingDeterministic(t *testing.T) {
	nodes := []Node{{"a", "dc1", "r1"}, {"b", "dc1", "r2"}, {"c", "dc1", "r3"}}
	r1 := NewRing(nodes, 16, 42)
	r2 := NewRing(nodes, 16, 42)
	r3 := NewRing(nodes, 16, 43)
	assert.Equal(t, r1.Tokens(), r2.Tokens())
	assert.NotEqual(t, r1.Tokens(), r3.Tokens())
	assert.Len(t, r1.Tokens(), 48)
	assert.True(t, slices.IsSorted(r1.Tokens()))
}

func TestRingEmpty(t *testing.T) {
	r := NewRing(nil, 4, 1)
	assert.Equal(t, Node{}, r.Owner(0))
	assert.Nil(t, r.Ranges())
	assert.Nil(t, r.Replicas(0, SimpleStrategy{RF: 3}))
	assert.Empty(t, r.Ownership())
}

func TestRingSingleToken(t *testing.T) {
	r := NewRing([]Node{{"solo", "dc1", "r1"}}, 1, 7)
	rs := r.Ranges()
	require.Len(t, rs, 1)
	assert.Equal(t, rs[0].Start, rs[0].End)
	assert.InDelta(t, 1.0, r.Ownership()["solo"], 1e-12)
	assert.Equal(t, "solo", r.Owner(MinToken).Name)
	assert.Equal(t, "solo", r.Owner(MaxToken).Name)
}

// TestRingProperties checks, on random rings and tokens, that the owner is
// the holder of the first ring token >= t (wrapping), that ownership sums to
// one, and that replica sets have the documented sizes and contain no
// duplicate node.
func TestRingProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "nodes")
		vnodes := rapid.IntRange(1, 8).Draw(t, "vnodes")
		seed := rapid.Int64().Draw(t, "seed")
		var nodes []Node
		for i := 0; i < n; i++ {
			nodes = append(nodes, Node{
				Name: fmt.Sprintf("n%d", i),
				DC:   fmt.Sprintf("dc%d", rapid.IntRange(1, 2).Draw(t, "dc")),
				Rack: fmt.Sprintf("r%d", rapid.IntRange(1, 3).Draw(t, "rack")),
			})
		}
		r := NewRing(nodes, vnodes, seed)
		tok := Token(rapid.Int64().Draw(t, "token"))

		// Owner by linear scan.
		toks := r.Tokens()
		want := toks[0]
		for _, rt := range toks {
			if rt >= tok {
				want = rt
				break
			}
		}
		var wantOwner Node
		for _, tr := range r.Ranges() {
			if tr.End == want {
				wantOwner = tr.Owner
			}
		}
		if got := r.Owner(tok); got != wantOwner {
			t.Fatalf("owner of %d: got %v want %v", tok, got, wantOwner)
		}

		sum := 0.0
		for _, f := range r.Ownership() {
			sum += f
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("ownership sums to %v", sum)
		}

		rf := rapid.IntRange(1, 5).Draw(t, "rf")
		// Each token has min(rf, n) replicas, so the effective
		// ownerships sum to that, and none exceeds the whole ring.
		sum = 0
		for name, f := range r.EffectiveOwnership(SimpleStrategy{RF: rf}) {
			if f > 1+1e-9 || f < r.Ownership()[name]-1e-9 {
				t.Fatalf("effective ownership of %s: %v (primary %v)", name, f, r.Ownership()[name])
			}
			sum += f
		}
		if math.Abs(sum-float64(min(rf, n))) > 1e-9 {
			t.Fatalf("effective ownership with rf=%d on %d nodes sums to %v", rf, n, sum)
		}
		simple := r.Replicas(tok, SimpleStrategy{RF: rf})
		if len(simple) != min(rf, n) {
			t.Fatalf("simple rf=%d on %d nodes: %d replicas", rf, n, len(simple))
		}
		if simple[0] != r.Owner(tok) {
			t.Fatalf("first replica %v is not the owner %v", simple[0], r.Owner(tok))
		}
		nts := r.Replicas(tok, NetworkTopologyStrategy{RF: map[string]int{"dc1": rf, "dc2": rf}})
		perDC := map[string]int{}
		for _, nd := range nodes {
			perDC[nd.DC]++
		}
		got := map[string]int{}
		seen := map[string]bool{}
		for _, nd := range nts {
			if seen[nd.Name] {
				t.Fatalf("duplicate replica %s", nd.Name)
			}
			seen[nd.Name] = true
			got[nd.DC]++
		}
		for dc, cnt := range perDC {
			if got[dc] != min(rf, cnt) {
				t.Fatalf("nts %s: %d replicas, want %d", dc, got[dc], min(rf, cnt))
			}
		}
	})
}

func BenchmarkRingReplicas(b *testing.B) {
	var nodes []Node
	for i := 0; i < 12; i++ {
		nodes = append(nodes, Node{fmt.Sprintf("n%d", i), fmt.Sprintf("dc%d", i%2), fmt.Sprintf("r%d", i%3)})
	}
	r := NewRing(nodes, 16, 1)
	s := NetworkTopologyStrategy{RF: map[string]int{"dc0": 3, "dc1": 3}}
	var i uint64
	for b.Loop() {
		i += 0x9e3779b97f4a7c15
		_ = r.Replicas(Token(int64(i)), s)
	}
}
