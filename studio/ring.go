package studio

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
)

// fullRing selects every partition.
var fullRing = data.FullRing

// palette colours the nodes of the ring, in turn.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// The ring's geometry, in SVG units.
const (
	ringSize   = 560.0
	ringCenter = ringSize / 2
	ringOuter  = 250.0 // the vnodes' band, ringOuter-ringBand to ringOuter
	ringBand   = 18.0
	ringDots   = 205.0 // the partitions' circle
)

// angle returns the angle of token t on the ring, clockwise from the top.
func angle(t int64) float64 {
	frac := (float64(t) + math.Exp2(63)) / math.Exp2(64)
	return frac*2*math.Pi - math.Pi/2
}

func polar(r, a float64) (float64, float64) {
	return ringCenter + r*math.Cos(a), ringCenter + r*math.Sin(a)
}

// ringView draws a simulated cluster (nodes, vnodes, SimpleStrategy rf)
// holding the table's partitions: each range on the outer band in its
// owner's colour, each partition a dot at its token whose area grows with
// its rows, the chosen key's token and replicas, and the load per node
// (partitions and rows each node holds a replica of).
func (s *Studio) ringView(r *http.Request) (*rendered, error) {
	t, err := s.table(r)
	if err != nil {
		return nil, err
	}
	nodes, err := intParam(r, "nodes", 4, 1, len(palette))
	if err != nil {
		return nil, err
	}
	vnodes, err := intParam(r, "vnodes", 8, 1, 256)
	if err != nil {
		return nil, err
	}
	rf, err := intParam(r, "rf", 3, 1, nodes)
	if err != nil {
		return nil, err
	}
	seed, err := intParam(r, "seed", 1, 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	members := make([]partitioner.Node, nodes)
	color := map[string]string{}
	for i := range members {
		members[i] = partitioner.Node{Name: fmt.Sprintf("node%d", i+1), DC: "datacenter1", Rack: "rack1"}
		color[members[i].Name] = palette[i]
	}
	ring := partitioner.NewRing(members, vnodes, int64(seed))
	strategy := partitioner.SimpleStrategy{RF: rf}
	parts, truncated, err := s.partitions(r.Context(), t)
	if err != nil {
		return nil, err
	}

	key, keyText, err := parseKey(r, t)
	if err != nil {
		return nil, err
	}

	type load struct{ partitions, rows int }
	loads := map[string]*load{}
	for _, n := range members {
		loads[n.Name] = &load{}
	}
	maxRows, hot := 0, -1
	for i, p := range parts {
		for _, n := range ring.Replicas(partitioner.Token(p.token), strategy) {
			loads[n.Name].partitions++
			loads[n.Name].rows += p.rows
		}
		if p.rows > maxRows {
			maxRows, hot = p.rows, i
		}
	}

	var svg strings.Builder
	fmt.Fprintf(&svg, `<svg id="ring" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="token ring of %s">`,
		ringSize, ringSize, ringSize, ringSize, esc(t.QualifiedName()))
	fmt.Fprintf(&svg, `<title>Token ring: %d nodes, %d vnodes each, replication factor %d; %d partitions of %s</title>`, nodes, vnodes, rf, len(parts), esc(t.QualifiedName()))
	// Each range (previous token, token] belongs to the owner of token.
	tokens := ring.Tokens()
	for i, tok := range tokens {
		prev := tokens[(i+len(tokens)-1)%len(tokens)]
		owner := ring.Owner(tok)
		a0, a1 := angle(int64(prev)), angle(int64(tok))
		if len(tokens) == 1 {
			a0, a1 = -math.Pi/2, 3*math.Pi/2-1e-6
		} else if a1 <= a0 {
			a1 += 2 * math.Pi
		}
		large := 0
		if a1-a0 > math.Pi {
			large = 1
		}
		x0, y0 := polar(ringOuter, a0)
		x1, y1 := polar(ringOuter, a1)
		x2, y2 := polar(ringOuter-ringBand, a1)
		x3, y3 := polar(ringOuter-ringBand, a0)
		fmt.Fprintf(&svg, `<path class="vnode" data-node="%s" fill="%s" stroke="#fff" stroke-width="0.5" d="M%.1f %.1f A%g %g 0 %d 1 %.1f %.1f L%.1f %.1f A%g %g 0 %d 0 %.1f %.1f Z"><title>%s: (%d, %d]</title></path>`,
			owner.Name, color[owner.Name], x0, y0, ringOuter, ringOuter, large, x1, y1, x2, y2, ringOuter-ringBand, ringOuter-ringBand, large, x3, y3, owner.Name, prev, tok)
	}
	fmt.Fprintf(&svg, `<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#ddd"/>`, ringCenter, ringCenter, ringDots)
	for i, p := range parts {
		rad := 2.5
		if maxRows > 0 {
			rad += 14 * math.Sqrt(float64(p.rows)/float64(maxRows))
		}
		x, y := polar(ringDots, angle(p.token))
		owner := ring.Owner(partitioner.Token(p.token)).Name
		class := "partition"
		if i == hot && len(parts) > 1 {
			class += " hot"
		}
		fmt.Fprintf(&svg, `<circle class="%s" cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="0.6" stroke="%s"><title>%s: token %d, %d rows, about %d bytes, primary replica %s</title></circle>`,
			class, x, y, rad, color[owner], color[owner], esc(t.FormatPartitionKey(p.key)), p.token, p.rows, p.bytes, owner)
	}
	var replicas []partitioner.Node
	if key != nil {
		tok := int64(partitioner.Murmur3(key))
		replicas = ring.Replicas(partitioner.Token(tok), strategy)
		x, y := polar(ringOuter+8, angle(tok))
		fmt.Fprintf(&svg, `<line id="key-token" x1="%g" y1="%g" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="2"><title>%s: token %d</title></line>`,
			ringCenter, ringCenter, x, y, esc(t.FormatPartitionKey(key)), tok)
	}
	fmt.Fprintf(&svg, `<text x="%g" y="%g" text-anchor="middle" font-size="13">%s</text>`, ringCenter, ringCenter-6, esc(t.QualifiedName()))
	fmt.Fprintf(&svg, `<text x="%g" y="%g" text-anchor="middle" font-size="11" fill="#555">%d partitions · %d nodes × %d vnodes · RF %d</text>`, ringCenter, ringCenter+12, len(parts), nodes, vnodes, rf)
	svg.WriteString(`</svg>`)

	var b strings.Builder
	fmt.Fprintf(&b, `<form method="get" action="/ring"><input type="hidden" name="table" value="%s">key <input name="key" value="%s" size="24"> nodes <input name="nodes" value="%d" size="2"> vnodes <input name="vnodes" value="%d" size="3"> rf <input name="rf" value="%d" size="2"> <button>show</button></form>`,
		esc(t.QualifiedName()), esc(keyText), nodes, vnodes, rf)
	b.WriteString(`<p class="note">A partition key's Murmur3 token places it on the ring; the node owning the range that holds the token is its primary replica, and SimpleStrategy takes the next distinct nodes clockwise for the other replicas. A dot's area grows with the partition's rows: a hot partition stands out, and so does the load of the nodes that hold it.</p>`)
	if truncated {
		fmt.Fprintf(&b, `<p class="note">Showing the first %d partitions in token order.</p>`, len(parts))
	}
	if key != nil {
		tok := int64(partitioner.Murmur3(key))
		names := make([]string, len(replicas))
		for i, n := range replicas {
			names[i] = n.Name
		}
		var rng partitioner.TokenRange
		for _, tr := range ring.Ranges() {
			if rangeContains(tr, partitioner.Token(tok)) {
				rng = tr
			}
		}
		fmt.Fprintf(&b, `<p id="key-info">Key <b>%s</b>: token %d, in range (%d, %d]; replicas <span id="replicas">%s</span> (primary first).</p>`,
			esc(t.FormatPartitionKey(key)), tok, rng.Start, rng.End, esc(strings.Join(names, ", ")))
	}
	maxLoad := 0
	for _, l := range loads {
		maxLoad = max(maxLoad, l.rows)
	}
	b.WriteString(`<table id="load"><tr><th>node</th><th>owns</th><th>partitions (replicas)</th><th>rows (replicas)</th><th></th></tr>`)
	own := ring.Ownership()
	names := make([]string, 0, len(loads))
	for n := range loads {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		l := loads[n]
		class := ""
		if l.rows == maxLoad && maxLoad > 0 {
			class = ` class="max-load"`
		}
		width := 0.0
		if maxLoad > 0 {
			width = 200 * float64(l.rows) / float64(maxLoad)
		}
		fmt.Fprintf(&b, `<tr%s data-node="%s"><td><span style="color:%s">■</span> %s</td><td class="num">%.1f%%</td><td class="num">%d</td><td class="num">%d</td><td><span class="bar" style="width:%.0fpx;background:%s"></span></td></tr>`,
			class, n, color[n], n, 100*own[n], l.partitions, l.rows, width, color[n])
	}
	b.WriteString(`</table>`)
	if hot >= 0 && len(parts) > 1 {
		p := parts[hot]
		fmt.Fprintf(&b, `<p id="hot">Largest partition: <b>%s</b>, %d rows (token %d).</p>`, esc(t.FormatPartitionKey(p.key)), p.rows, p.token)
	}
	return &rendered{title: "Ring of " + t.QualifiedName(), table: t, svg: svg.String(), body: b.String()}, nil
}

// rangeContains reports whether token t lies in the ring range (Start, End],
// which wraps past the largest token when Start >= End.
func rangeContains(tr partitioner.TokenRange, t partitioner.Token) bool {
	if tr.Start < tr.End {
		return t > tr.Start && t <= tr.End
	}
	return t > tr.Start || t <= tr.End
}
