package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteHTML writes the report as one self-contained HTML page: inline CSS,
// inline SVG plots and a few lines of inline script, no external asset. It
// shows the ratios in words, the sweep curves (time per operation against
// the swept parameter, one line per model), the latency percentiles and the
// throughput over time of each phase, and the tables of phases and data
// shapes. The page is well-formed XML as well as HTML, which the tests use
// to check it.
func WriteHTML(w io.Writer, r *Report) error {
	var b strings.Builder
	e := html.EscapeString
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/>
<title>minicass bench: ` + e(r.Profile) + `</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
h1,h2,h3{font-weight:600}
table{border-collapse:collapse;font-size:0.85em;margin:1em 0}
td,th{border:1px solid #ccc;padding:0.2em 0.5em;text-align:right}
th{background:#f3f3f3}
td.l,th.l{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:1em}
figure{margin:0}
figcaption{font-size:0.85em;color:#555;max-width:36em}
svg text{font-size:11px;fill:#333}
pre{background:#f6f6f6;padding:0.5em;overflow:auto;font-size:0.85em}
.hidden{display:none}
</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>minicass bench: %s</h1>\n<p>%s</p>\n", e(r.Profile), e(r.Description))
	fmt.Fprintf(&b, "<p>%d entities of %d rows each, written %s; %d operations per query phase on %d goroutine(s); states %s; %s, %s/%s, %d CPUs; started %s.</p>\n",
		r.Data.Entities, r.Data.Rows, e(r.Data.Order), r.Run.Ops, r.Run.Concurrency, e(strings.Join(r.Run.States, ", ")),
		e(r.Machine.GoVersion), e(r.Machine.OS), e(r.Machine.Arch), r.Machine.CPUs, e(r.Started.UTC().Format("2006-01-02 15:04:05 UTC")))
	b.WriteString("<h2>Models</h2>\n<table><tr><th class=\"l\">model</th><th class=\"l\">what it is</th><th class=\"l\">table</th></tr>\n")
	for _, m := range r.Models {
		fmt.Fprintf(&b, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td class=\"l\"><pre>%s</pre></td></tr>\n", e(m.Name), e(m.Summary), e(m.Table))
	}
	b.WriteString("</table>\n")

	b.WriteString("<h2>What the run says</h2>\n<ul id=\"ratios\">\n")
	for _, ra := range r.Ratios {
		cls := "model"
		if ra.Target != TargetMinicass {
			cls = "peer"
		}
		fmt.Fprintf(&b, "<li class=\"%s\">%s</li>\n", cls, e(ra.Text))
	}
	b.WriteString("</ul>\n<p><label><input type=\"checkbox\" id=\"show-peers\" checked=\"checked\"/> show the peers' ratios</label></p>\n")

	for _, sw := range r.Sweeps {
		fmt.Fprintf(&b, "<h2>Sweep of %s</h2>\n<div class=\"charts\">\n", e(sw.Param))
		for _, op := range r.ops() {
			for _, state := range r.Run.States {
				var series []chartSeries
				for _, se := range sw.Series {
					if se.Op != op || se.State != state {
						continue
					}
					s := chartSeries{name: se.Model}
					for _, pt := range se.Points {
						s.pts = append(s.pts, [2]float64{float64(pt.X), pt.TimePerOpNS})
					}
					series = append(series, s)
				}
				if len(series) == 0 {
					continue
				}
				title := fmt.Sprintf("%s, %s: time per operation against %s", op, state, sweepAxis(sw.Param))
				writeChart(&b, chart{title: title, xlabel: sweepAxis(sw.Param), ylabel: "time per operation",
					xlog: true, ylog: true, yfmt: fmtNS, xfmt: fmtCount, series: series,
					caption: fmt.Sprintf("Each line is a model; a line that climbs with %s pays for it on every %s.", sweepAxis(sw.Param), opNoun(op))})
			}
		}
		b.WriteString("</div>\n")
	}

	b.WriteString("<h2>Latency percentiles</h2>\n<div class=\"charts\">\n")
	for _, op := range r.ops() {
		for _, state := range r.Run.States {
			var series []chartSeries
			for _, ph := range r.Phases {
				if ph.Op != op || ph.State != state {
					continue
				}
				s := chartSeries{name: seriesName(ph), dashed: ph.Target != TargetMinicass}
				for _, pp := range ph.Percentiles {
					s.pts = append(s.pts, [2]float64{percentileX(pp.Percentile), float64(max(pp.NS, 1))})
				}
				series = append(series, s)
			}
			if len(series) == 0 {
				continue
			}
			writeChart(&b, chart{title: fmt.Sprintf("%s, %s: latency by percentile", op, state), xlabel: "percentile",
				ylabel: "latency", xlog: true, ylog: true, xfmt: fmtPercentile, yfmt: fmtNS, series: series,
				caption: "HDR histogram of single operations (three significant digits); dashed lines are peers."})
		}
	}
	b.WriteString("</div>\n<h2>Throughput over time</h2>\n<div class=\"charts\">\n")
	for _, op := range r.ops() {
		for _, state := range r.Run.States {
			var series []chartSeries
			for _, ph := range r.Phases {
				if ph.Op != op || ph.State != state || len(ph.Timeline) == 0 {
					continue
				}
				s := chartSeries{name: seriesName(ph), dashed: ph.Target != TargetMinicass}
				for _, tp := range ph.Timeline {
					s.pts = append(s.pts, [2]float64{tp.Seconds, tp.OpsPerSec})
				}
				series = append(series, s)
			}
			if len(series) == 0 {
				continue
			}
			writeChart(&b, chart{title: fmt.Sprintf("%s, %s: operations per second", op, state), xlabel: "seconds into the phase",
				ylabel: "ops/s", xfmt: fmtSeconds, yfmt: fmtRate, series: series,
				caption: fmt.Sprintf("One point per %s interval; dips are flushes, compactions or the garbage collector.", FormatNS(float64(r.Run.IntervalNS)))})
		}
	}
	b.WriteString("</div>\n<h2>Phases</h2>\n<table id=\"phases\"><tr><th class=\"l\">target</th><th class=\"l\">model</th><th class=\"l\">op</th><th class=\"l\">state</th><th>ops</th><th>ops/s</th><th>time/op</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>rows/op</th><th>bytes/op</th><th>statements/op</th><th>SSTables/op</th></tr>\n")
	for _, p := range r.Phases {
		sst := "-"
		if p.SSTables >= 0 {
			sst = strconv.FormatFloat(p.SSTables, 'f', 1, 64)
		}
		fmt.Fprintf(&b, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f</td><td>%.0f</td><td>%.1f</td><td>%s</td></tr>\n",
			e(p.Target), e(p.Model), e(p.Op), e(p.State), p.Ops, formatRate(p.OpsPerSec), e(FormatNS(p.TimePerOpNS)),
			e(fmtNS(float64(p.Latency.P50))), e(fmtNS(float64(p.Latency.P90))), e(fmtNS(float64(p.Latency.P99))),
			e(fmtNS(float64(p.Latency.P999))), e(fmtNS(float64(p.Latency.Max))), p.Rows, p.Bytes, p.Statements, sst)
	}
	b.WriteString("</table>\n<h2>Data shapes</h2>\n<table id=\"shapes\"><tr><th class=\"l\">target</th><th class=\"l\">model</th><th class=\"l\">state</th><th>rows</th><th>partitions</th><th>SSTables</th><th>partition bytes p50</th><th>p99</th><th>max</th><th>cells p50</th><th>cells max</th><th>bytes on disk</th><th>per row</th><th>write amplification</th></tr>\n")
	for _, s := range r.Shapes {
		fmt.Fprintf(&b, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%.1f</td><td>%.2f</td></tr>\n",
			e(s.Target), e(s.Model), e(s.State), s.Rows, s.Partitions, s.SSTables, s.PartitionBytes.P50, s.PartitionBytes.P99,
			s.PartitionBytes.Max, s.PartitionCells.P50, s.PartitionCells.Max, s.BytesOnDisk, s.BytesOnDiskPerRow, s.WriteAmplification)
	}
	b.WriteString(`</table>
<p>Partition sizes come from the SSTables' statistics (a partition spread over several SSTables counts once in each); write amplification is the bytes flushes and compactions wrote over the live data. Absolute figures on a shared machine move by tens of percent between runs; ratios measured in one run move much less.</p>
<script>
(function () {
  var box = document.getElementById("show-peers");
  function apply() {
    var items = document.querySelectorAll("#ratios li.peer");
    for (var i = 0; i !== items.length; i++) {
      items[i].classList.toggle("hidden", !box.checked);
    }
  }
  box.addEventListener("change", apply);
  apply();
  document.documentElement.setAttribute("data-charts", String(document.querySelectorAll("svg.chart").length));
  document.documentElement.setAttribute("data-ready", "true");
})();
</script>
</body></html>
`)
	_, err := io.WriteString(w, b.String())
	return err
}

func seriesName(ph Phase) string {
	if ph.Target == TargetMinicass {
		return ph.Model
	}
	return ph.Model + " (" + ph.Target + ")"
}

func opNoun(op string) string {
	if op == OpInsert {
		return "write"
	}
	return "query"
}

func sweepAxis(param string) string {
	switch param {
	case SweepWidth:
		return "rows per entity"
	case SweepPartitions:
		return "entities"
	}
	return "goroutines"
}

// percentileX places a percentile on a log axis of 1/(1-p), as
// HdrHistogram's plots do: 50% at 2, 99% at 100, 99.99% at 10^4.
func percentileX(p float64) float64 { return 1 / (1 - math.Min(p, 99.999)/100) }

func fmtNS(v float64) string      { return FormatNS(v) }
func fmtRate(v float64) string    { return formatRate(v) }
func fmtSeconds(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) + "s" }
func fmtCount(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e6) == 0:
		return strconv.FormatFloat(v/1e6, 'f', 0, 64) + "M"
	case v >= 1e3 && math.Mod(v, 1e3) == 0:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
func fmtPercentile(x float64) string {
	p := 100 * (1 - 1/x)
	return strconv.FormatFloat(p, 'g', 5, 64) + "%"
}

type chartSeries struct {
	name   string
	pts    [][2]float64
	dashed bool
}

type chart struct {
	title, xlabel, ylabel, caption string
	xlog, ylog                     bool
	xfmt, yfmt                     func(float64) string
	series                         []chartSeries
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// writeChart draws a line chart as inline SVG.
func writeChart(b *strings.Builder, c chart) {
	const W, H, left, right, top, bottom = 520.0, 300.0, 70.0, 150.0, 30.0, 45.0
	pw, ph := W-left-right, H-top-bottom
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.series {
		for _, p := range s.pts {
			if (c.xlog && p[0] <= 0) || (c.ylog && p[1] <= 0) || math.IsNaN(p[0]) || math.IsNaN(p[1]) {
				continue
			}
			xmin, xmax = math.Min(xmin, p[0]), math.Max(xmax, p[0])
			ymin, ymax = math.Min(ymin, p[1]), math.Max(ymax, p[1])
		}
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax, ymin, ymax = 1, 10, 1, 10
	}
	if !c.ylog {
		ymin = 0
	}
	xs, xt := axis(xmin, xmax, c.xlog)
	ys, yt := axis(ymin, ymax, c.ylog)
	px := func(v float64) float64 { return left + xs(v)*pw }
	py := func(v float64) float64 { return top + ph - ys(v)*ph }
	e := html.EscapeString
	fmt.Fprintf(b, "<figure><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>%s</title>\n",
		W, H, W, H, e(c.title))
	fmt.Fprintf(b, "<text x=\"%.0f\" y=\"16\" style=\"font-size:12px;font-weight:600\">%s</text>\n", left, e(c.title))
	fmt.Fprintf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n", left, top, pw, ph)
	for _, t := range xt {
		x := px(t)
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eee\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			x, top, x, top+ph, x, top+ph+14, e(c.xfmt(t)))
	}
	for _, t := range yt {
		y := py(t)
		fmt.Fprintf(b, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			left, y, left+pw, y, left-4, y+4, e(c.yfmt(t)))
	}
	fmt.Fprintf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", left+pw/2, H-8, e(c.xlabel))
	fmt.Fprintf(b, "<text x=\"14\" y=\"%.0f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.0f)\">%s</text>\n", top+ph/2, top+ph/2, e(c.ylabel))
	for i, s := range c.series {
		color := palette[i%len(palette)]
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		var pts []string
		for _, p := range s.pts {
			if (c.xlog && p[0] <= 0) || (c.ylog && p[1] <= 0) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p[0]), py(p[1])))
		}
		fmt.Fprintf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"%s\"/>\n", color, dash, strings.Join(pts, " "))
		for _, p := range s.pts {
			if (c.xlog && p[0] <= 0) || (c.ylog && p[1] <= 0) || len(s.pts) > 40 {
				continue
			}
			fmt.Fprintf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>%s: %s at %s</title></circle>\n",
				px(p[0]), py(p[1]), color, e(s.name), e(c.yfmt(p[1])), e(c.xfmt(p[0])))
		}
		ly := top + 10 + float64(i)*16
		fmt.Fprintf(b, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
			left+pw+8, ly, left+pw+28, ly, color, dash, left+pw+32, ly+4, e(s.name))
	}
	fmt.Fprintf(b, "</svg><figcaption>%s</figcaption></figure>\n", e(c.caption))
}

// axis returns the scale of [lo, hi] onto [0, 1] and its ticks: powers of
// ten (with 2 and 5 between when there are few) on a log axis, round
// steps on a linear one.
func axis(lo, hi float64, log bool) (func(float64) float64, []float64) {
	if log {
		a, z := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		if z == a {
			z = a + 1
		}
		scale := func(v float64) float64 { return (math.Log10(v) - a) / (z - a) }
		var ticks []float64
		for e := a; e <= z; e++ {
			ticks = append(ticks, math.Pow(10, e))
			if z-a <= 2 && e < z {
				ticks = append(ticks, 2*math.Pow(10, e), 5*math.Pow(10, e))
			}
		}
		return scale, ticks
	}
	if hi <= lo {
		hi = lo + 1
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 6 {
			step *= m
			break
		}
	}
	lo = math.Floor(lo/step) * step
	hi = math.Ceil(hi/step) * step
	scale := func(v float64) float64 { return (v - lo) / (hi - lo) }
	var ticks []float64
	for v := lo; v <= hi+step/2; v += step {
		ticks = append(ticks, v)
	}
	return scale, ticks
}
