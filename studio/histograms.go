package studio

import (
	"fmt"
	"math"
	"math/bits"
	"net/http"
	"strings"
)

// The seed articles' limits of a healthy partition: about 100 MB and
// 100,000 rows (Cassandra logs a partition past 100 MiB at compaction, and
// minicass warns at both).
const (
	limitBytes = 100 << 20
	limitRows  = 100_000
)

// histogram counts values in power-of-two buckets: bucket 0 holds 0,
// bucket i > 0 holds [2^(i-1), 2^i).
type histogram struct {
	counts []int
}

func bucketOf(v int64) int {
	if v <= 0 {
		return 0
	}
	return bits.Len64(uint64(v))
}

func (h *histogram) add(v int64) {
	i := bucketOf(v)
	for len(h.counts) <= i {
		h.counts = append(h.counts, 0)
	}
	h.counts[i]++
}

// histogramView draws the table's partition sizes and rows per partition
// as histograms with the articles' limits drawn, so a wide partition shows
// against the narrow ones, and lists the partitions past a limit.
func (s *Studio) histogramView(r *http.Request) (*rendered, error) {
	t, err := s.table(r)
	if err != nil {
		return nil, err
	}
	parts, truncated, err := s.partitions(r.Context(), t)
	if err != nil {
		return nil, err
	}
	var sizes, rows histogram
	var over []partitionStat
	for _, p := range parts {
		sizes.add(p.bytes)
		rows.add(int64(p.rows))
		if p.bytes > limitBytes || p.rows > limitRows {
			over = append(over, p)
		}
	}
	var svg strings.Builder
	const w, h = 680.0, 470.0
	fmt.Fprintf(&svg, `<svg id="histograms" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="partition histograms of %s">`, w, h, w, h, esc(t.QualifiedName()))
	fmt.Fprintf(&svg, `<title>Partition sizes and rows per partition of %s (%d partitions)</title>`, esc(t.QualifiedName()), len(parts))
	chart(&svg, 10, "Partition size (bytes, estimated)", &sizes, limitBytes, "100 MB", byteLabel)
	chart(&svg, 240, "Rows per partition", &rows, limitRows, "100,000 rows", countLabel)
	svg.WriteString(`</svg>`)

	var b strings.Builder
	b.WriteString(`<p class="note">Each bar counts the partitions whose size (or row count) falls in a power-of-two bucket. The red lines are the seed articles' limits: keep a partition under about 100 MB and 100,000 rows, or split it (bucket the key by time or by a hash).</p>`)
	if truncated {
		fmt.Fprintf(&b, `<p class="note">The first %d partitions in token order are counted.</p>`, len(parts))
	}
	fmt.Fprintf(&b, `<p id="over">Partitions past a limit: %d.</p>`, len(over))
	if len(over) > 0 {
		b.WriteString(`<ul id="over-list">`)
		for i, p := range over {
			if i == 50 {
				break
			}
			fmt.Fprintf(&b, `<li>%s: %d rows, about %s</li>`, esc(t.FormatPartitionKey(p.key)), p.rows, byteLabel(p.bytes))
		}
		b.WriteString("</ul>")
	}
	return &rendered{title: "Partition histograms of " + t.QualifiedName(), table: t, svg: svg.String(), body: b.String()}, nil
}

// chart draws one histogram at vertical offset y0, its buckets up to the
// limit's bucket at least, and the limit as a red line.
func chart(b *strings.Builder, y0 float64, title string, h *histogram, limit int64, limitText string, label func(int64) string) {
	limitBucket := bucketOf(limit)
	const left, width, height = 60.0, 600.0, 160.0
	n := max(len(h.counts), limitBucket+2)
	peak := 1
	for _, c := range h.counts {
		peak = max(peak, c)
	}
	bw := width / float64(n)
	fmt.Fprintf(b, `<g class="chart" transform="translate(0,%g)"><text x="%g" y="14" font-size="13" font-weight="bold">%s</text>`, y0, left, esc(title))
	base := 40 + height
	fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#444"/>`, left, base, left+width, base)
	fmt.Fprintf(b, `<text x="%g" y="%g" font-size="10" text-anchor="end">%d</text>`, left-4, 48.0, peak)
	for i := 0; i < n; i++ {
		c := 0
		if i < len(h.counts) {
			c = h.counts[i]
		}
		x := left + float64(i)*bw
		if c > 0 {
			bh := math.Max(4, height*float64(c)/float64(peak))
			lo := int64(0)
			if i > 0 {
				lo = 1 << (i - 1)
			}
			fmt.Fprintf(b, `<rect class="hbar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#2e86c1"><title>%d partitions from %s to under %s</title></rect>`,
				x+1, base-bh, bw-2, bh, c, label(lo), label(int64(1)<<i))
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%d</text>`, x+bw/2, base-bh-3, c)
		}
		if i%4 == 0 {
			lo := int64(0)
			if i > 0 {
				lo = 1 << (i - 1)
			}
			fmt.Fprintf(b, `<text x="%.1f" y="%g" font-size="9" fill="#555">%s</text>`, x, base+12, label(lo))
		}
	}
	// The limit lies inside its bucket [2^(b-1), 2^b), placed on the log
	// scale.
	lim := left + (float64(limitBucket)+math.Log2(float64(limit)/math.Exp2(float64(limitBucket-1))))*bw
	fmt.Fprintf(b, `<line class="limit" x1="%.1f" y1="30" x2="%.1f" y2="%g" stroke="#c0392b" stroke-width="2" stroke-dasharray="5,3"/><text x="%.1f" y="40" font-size="11" fill="#c0392b" text-anchor="end">%s</text></g>`,
		lim, lim, base, lim-4, esc(limitText))
}

func byteLabel(v int64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%dGiB", v>>30)
	case v >= 1<<20:
		return fmt.Sprintf("%dMiB", v>>20)
	case v >= 1<<10:
		return fmt.Sprintf("%dKiB", v>>10)
	}
	return fmt.Sprintf("%dB", v)
}

func countLabel(v int64) string {
	switch {
	case v >= 1_000_000:
		return fmt.Sprintf("%dM", v/1_000_000)
	case v >= 1000:
		return fmt.Sprintf("%dk", v/1000)
	}
	return fmt.Sprintf("%d", v)
}
