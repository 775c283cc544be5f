package studio

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/minicass/minicass/engine"
)

// maxCompactionsDrawn bounds the compactions the history view draws (the
// latest ones).
const maxCompactionsDrawn = 30

// compactionView shows the table's compaction history (what nodetool
// compactionhistory lists): for each compaction, the SSTables that went in
// and the ones that came out, the inputs dropped whole because all their
// data expired, and what the inputs and outputs held, so that what was
// merged away or purged shows; then the live SSTables.
func (s *Studio) compactionView(r *http.Request) (*rendered, error) {
	t, err := s.table(r)
	if err != nil {
		return nil, err
	}
	e := s.db.Engine()
	var hist []engine.CompactionRecord
	for _, rec := range e.CompactionHistory() {
		if rec.Keyspace == t.Keyspace && rec.Table == t.Name {
			hist = append(hist, rec)
		}
	}
	all := len(hist)
	if len(hist) > maxCompactionsDrawn {
		hist = hist[len(hist)-maxCompactionsDrawn:]
	}
	live := map[string]bool{}
	var liveNames []string
	for _, in := range e.SSTables(t.Keyspace, t.Name) {
		live[in.Name] = true
		liveNames = append(liveNames, in.Name)
	}
	slices.Reverse(liveNames) // oldest first

	var svg strings.Builder
	const w, rowH = 760.0, 34.0
	h := 40 + rowH*float64(max(len(hist), 1)) + 50
	fmt.Fprintf(&svg, `<svg id="compactions" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="compaction history of %s">`, w, h, w, h, esc(t.QualifiedName()))
	fmt.Fprintf(&svg, `<title>Compaction history of %s</title>`, esc(t.QualifiedName()))
	svg.WriteString(`<text x="10" y="18" font-size="13" font-weight="bold">inputs</text><text x="520" y="18" font-size="13" font-weight="bold">outputs</text>`)
	if len(hist) == 0 {
		svg.WriteString(`<text x="10" y="56" font-size="12" fill="#555">no compaction yet</text>`)
	}
	box := func(x, y float64, name, class, fill string) {
		fmt.Fprintf(&svg, `<g class="%s"><rect x="%.1f" y="%.1f" width="118" height="22" rx="3" fill="%s"/><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%s</text><title>%s</title></g>`,
			class, x, y, fill, x+4, y+15, esc(shortSSTable(name)), esc(name))
	}
	for i, rec := range hist {
		y := 30 + rowH*float64(i)
		x := 10.0
		for j, in := range rec.Inputs {
			if j == 3 && len(rec.Inputs) > 4 {
				fmt.Fprintf(&svg, `<text x="%.1f" y="%.1f" font-size="11">+%d</text>`, x, y+15, len(rec.Inputs)-3)
				break
			}
			if slices.Contains(rec.Expired, in) {
				box(x, y, in, "sst-in expired", "#c0392b")
			} else {
				box(x, y, in, "sst-in", "#7f8c8d")
			}
			x += 124
		}
		fmt.Fprintf(&svg, `<line class="arrow" x1="%.1f" y1="%.1f" x2="512" y2="%.1f" stroke="#555" stroke-width="1.5"/><polygon points="512,%.1f 504,%.1f 504,%.1f" fill="#555"/>`,
			x+2, y+11, y+11, y+11, y+6, y+16)
		fmt.Fprintf(&svg, `<text x="%.1f" y="%.1f" font-size="10" fill="#555">%s</text>`, x+8, y+8, esc(rec.Reason))
		ox := 520.0
		if len(rec.Outputs) == 0 {
			fmt.Fprintf(&svg, `<text x="%.1f" y="%.1f" font-size="11" fill="#c0392b">nothing left</text>`, ox, y+15)
		}
		for j, out := range rec.Outputs {
			if j == 2 {
				fmt.Fprintf(&svg, `<text x="%.1f" y="%.1f" font-size="11">+%d</text>`, ox, y+15, len(rec.Outputs)-2)
				break
			}
			fill, class := "#95a5a6", "sst-out"
			if live[out] {
				fill, class = "#28b463", "sst-out live"
			}
			box(ox, y, out, class, fill)
			ox += 124
		}
	}
	ly := 40 + rowH*float64(max(len(hist), 1))
	fmt.Fprintf(&svg, `<text x="10" y="%.1f" font-size="12">live now: %s</text>`, ly, esc(strings.Join(shortAll(liveNames), ", ")))
	fmt.Fprintf(&svg, `<text x="10" y="%.1f" font-size="11" fill="#555">grey: input · red: dropped whole (all its data expired) · green: an output still live</text></svg>`, ly+20)

	var b strings.Builder
	b.WriteString(`<p class="note">A compaction reads some SSTables and writes their merge: each partition once, the newest version of each cell, the tombstones older than gc_grace_seconds purged with what they shadow (when nothing outside the compaction could still hold older data), expired cells turned into tombstones or dropped. An SSTable whose data all expired is dropped without being read. The counts come from the SSTables' statistics: what went in minus what came out is what the merge and purge removed.</p>`)
	if all > len(hist) {
		fmt.Fprintf(&b, `<p class="note">The latest %d of %d compactions.</p>`, len(hist), all)
	}
	fmt.Fprintf(&b, `<table id="history"><tr><th>compacted at</th><th>reason</th><th>inputs</th><th>outputs</th><th>bytes in → out</th><th>partitions merged from n SSTables</th><th>in: partitions, rows, cells, TTL, tombstones</th><th>out</th><th>removed</th></tr>`)
	for i := len(hist) - 1; i >= 0; i-- {
		rec := hist[i]
		var ins []string
		for _, in := range rec.Inputs {
			n := esc(in)
			if slices.Contains(rec.Expired, in) {
				n = `<span class="expired" title="dropped whole">` + n + ` (expired)</span>`
			}
			ins = append(ins, n)
		}
		var outs []string
		for _, out := range rec.Outputs {
			if live[out] {
				outs = append(outs, fmt.Sprintf(`<a href="/sstable?table=%s&amp;name=%s">%s</a>`, esc(t.QualifiedName()), esc(out), esc(out)))
			} else {
				outs = append(outs, esc(out))
			}
		}
		var merged []string
		keys := make([]int, 0, len(rec.RowsMerged))
		for k := range rec.RowsMerged {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			merged = append(merged, fmt.Sprintf("%d:%d", k, rec.RowsMerged[k]))
		}
		in, out, removed := "-", "-", "-"
		if rec.In != nil && rec.Out != nil {
			in, out = counts(*rec.In), counts(*rec.Out)
			removed = counts(engine.CompactionCounts{Partitions: rec.In.Partitions - rec.Out.Partitions, Rows: rec.In.Rows - rec.Out.Rows,
				Cells: rec.In.Cells - rec.Out.Cells, Expiring: rec.In.Expiring - rec.Out.Expiring, Tombstones: rec.In.Tombstones - rec.Out.Tombstones})
		}
		fmt.Fprintf(&b, `<tr class="compaction" data-id="%s"><td>%s</td><td>%s</td><td class="src">%s</td><td class="src">%s</td><td class="num">%d → %d</td><td>{%s}</td><td class="num">%s</td><td class="num">%s</td><td class="num removed">%s</td></tr>`,
			esc(rec.ID), esc(rec.CompactedAt.UTC().Format("2006-01-02 15:04:05")), esc(rec.Reason), strings.Join(ins, "<br>"), strings.Join(outs, "<br>"),
			rec.BytesIn, rec.BytesOut, esc(strings.Join(merged, ", ")), in, out, removed)
	}
	b.WriteString("</table>")
	return &rendered{title: "Compaction history of " + t.QualifiedName(), table: t, svg: svg.String(), body: b.String()}, nil
}

func counts(c engine.CompactionCounts) string {
	return fmt.Sprintf("%d, %d, %d, %d, %d", c.Partitions, c.Rows, c.Cells, c.Expiring, c.Tombstones)
}

// shortSSTable names an SSTable by its generation: "xa-3-big-Data.db"
// becomes "gen 3".
func shortSSTable(name string) string {
	parts := strings.Split(name, "-")
	if len(parts) >= 2 {
		return "gen " + parts[1]
	}
	return name
}

func shortAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = shortSSTable(n)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
