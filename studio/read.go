package studio

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/minicass/minicass"
	"github.com/minicass/minicass/cql/parser"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Bounds of the read view: the rows of the result it reads (one page, as
// large as the drivers' default page) and shows.
const (
	readPageSize  = 5000
	maxReadShown  = 20
	maxReadSource = 12 // sources drawn per read; the table lists them all
)

// readView runs a SELECT typed in the page (q=...) with tracing on and
// draws what the read did, from the trace's values (query.TraceRead): how
// it found its partitions (a partition read by key, a range scan, filtered
// or not, an index read when the read path reports one), each source of
// the table read or skipped and why (token range, bloom filter, clustering
// bounds, an older SSTable under a newer partition deletion, or not
// present), the row versions, cells and tombstones it touched against the
// rows and cells it returned, the result and the trace's lines.
//
// The page runs the statement itself rather than show the reads a shell or
// driver ran: so it costs the shell's and drivers' reads nothing (no
// statistics kept for a page that may never look), and it is live like the
// other views: after a write, a flush or a compaction the page runs the
// same statement again on the table's new state. It runs SELECT only, on a
// session of its own, and records no trace in system_traces: it changes
// nothing but the table's read statistics (nodetool tablehistograms counts
// its reads, as it counts cqlsh's).
func (s *Studio) readView(r *http.Request) (*rendered, error) {
	q := r.URL.Query()
	stmt := strings.TrimSpace(q.Get("q"))
	var t *schema.Table
	if q.Get("table") != "" {
		var err error
		if t, err = s.table(r); err != nil {
			return nil, err
		}
	}
	if stmt == "" && t != nil {
		stmt = s.defaultRead(r, t)
	}
	var b strings.Builder
	b.WriteString(`<form method="get" action="/read">`)
	if t != nil {
		fmt.Fprintf(&b, `<input type="hidden" name="table" value="%s">`, esc(t.QualifiedName()))
	}
	fmt.Fprintf(&b, `<textarea name="q" id="q" rows="3" cols="100">%s</textarea><br><button>run</button> <span class="note">a SELECT, run with tracing on; the page runs it again when the table changes</span></form>`, esc(stmt))
	if stmt == "" {
		b.WriteString(`<p id="choose" class="note">Type a SELECT, or pick a table on the first page.</p>`)
		return &rendered{title: "A read", body: b.String()}, nil
	}
	parsed, err := parser.Parse(stmt)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	sel, ok := parsed.(*parser.Select)
	if !ok {
		return nil, badRequest("the read view runs SELECT statements only: it changes nothing")
	}
	ks := string(sel.Table.Keyspace)
	if ks == "" {
		if t == nil {
			return nil, badRequest("name the table with its keyspace (SELECT ... FROM ks.t), or open the view from a table")
		}
		ks = t.Keyspace
	}
	read, found := s.db.Engine().Table(ks, string(sel.Table.Name))
	if !found {
		return nil, badRequest("table %s.%s does not exist", ks, sel.Table.Name)
	}
	sess := s.db.Session()
	if err := sess.Exec(r.Context(), "USE "+quoteIdent(ks)); err != nil {
		return nil, err
	}
	rows := sess.Query(r.Context(), stmt, minicass.Tracing(), minicass.PageSize(readPageSize))
	title := "A read of " + read.QualifiedName()
	if err := rows.Err(); err != nil {
		// A refused read teaches too (ALLOW FILTERING, a missing key).
		fmt.Fprintf(&b, `<p id="error" class="tombstone">%s</p>`, esc(err.Error()))
		return &rendered{title: title, table: read, body: b.String()}, nil
	}
	res := rows.Result()
	var reads []query.TraceRead
	var lines []string
	if res != nil && res.Trace != nil {
		reads, lines = res.Trace.Reads, res.Trace.Activities()
	}
	returned := 0
	if res != nil {
		returned = len(res.Rows)
	}

	var svg strings.Builder
	drawReads(&svg, read, reads, returned)
	b.WriteString(`<p class="note">Each source of the table, in the order a read asks them: a memtable answers from memory; an SSTable is skipped when its token range, its bloom filter, its clustering bounds or a newer partition deletion rules it out, else its index is searched (and the partition may be "not present"). The merge reconciles the versions and drops what tombstones shadow and what has expired.</p>`)
	for i := range reads {
		writeReadTables(&b, i, &reads[i])
	}
	if len(reads) == 0 {
		b.WriteString(`<p id="no-reads" class="note">The statement read no stored partition (a derived system table, or nothing to read).</p>`)
	}
	writeResult(&b, res, returned)
	if res != nil && res.PagingState != nil {
		fmt.Fprintf(&b, `<p class="note">The result has more pages: this is the read of the first page, %d rows, as a driver's first request reads it.</p>`, readPageSize)
	}
	b.WriteString(`<h2>Trace</h2><pre id="trace">`)
	for _, l := range lines {
		b.WriteString(esc(l) + "\n")
	}
	b.WriteString(`</pre>`)
	return &rendered{title: title, table: read, svg: svg.String(), body: b.String()}, nil
}

// defaultRead is the statement a read page of t starts with: a read of
// its first partition, or of the table when it is empty.
func (s *Studio) defaultRead(r *http.Request, t *schema.Table) string {
	sc, err := s.db.Engine().Scan(r.Context(), t, fullRing, engine.ReadOptions{Limit: 1})
	if err == nil {
		defer sc.Close()
		if p, ok := sc.Next(); ok {
			return fmt.Sprintf("SELECT * FROM %s WHERE %s LIMIT 10", t.QualifiedName(), t.FormatPartitionWhere(p.Key()))
		}
	}
	return fmt.Sprintf("SELECT * FROM %s LIMIT 10", t.QualifiedName())
}

// quoteIdent quotes a name for CQL.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// describeRead says in words how a read found its partitions.
func describeRead(rd *query.TraceRead) string {
	n := rd.Stats.Partitions
	var w string
	switch rd.Access {
	case query.AccessIndex:
		w = fmt.Sprintf("index read through %s: %d partitions of %s read", rd.Index, n, rd.Table)
	case query.AccessScan:
		w = fmt.Sprintf("range scan of %d partitions of %s", n, rd.Table)
		if rd.Filtered {
			w = fmt.Sprintf("filtered scan of %d partitions of %s", n, rd.Table)
		}
	default:
		w = fmt.Sprintf("partition read of %s", rd.Table)
		if n != 1 {
			w = fmt.Sprintf("partition read of %d partitions of %s", n, rd.Table)
		}
		if len(rd.Keys) > 0 {
			w += ": " + strings.Join(rd.Keys, "; ")
			if n > len(rd.Keys) {
				w += "; ..."
			}
		}
	}
	if rd.Filtered {
		w += fmt.Sprintf(" — %d rows tested against the filters, %d kept", rd.RowsExamined, rd.RowsMatched)
	}
	if rd.Index != "" && rd.Access != query.AccessIndex {
		w += fmt.Sprintf(" (index %s serves the restriction, but the read path reports no index read: it scanned and filtered)", rd.Index)
	}
	return w
}

// sourceState classifies what a read did with a source: "read", "skipped"
// (never read) or "mixed" (read for some partitions, skipped for others).
func sourceState(src *engine.SourceStats) string {
	switch {
	case src.Read > 0 && src.Skipped > 0:
		return "mixed"
	case src.Read > 0:
		return "read"
	case src.Skipped > 0:
		return "skipped"
	}
	return "untouched"
}

// skipText lists a source's skip reasons with their counts.
func skipText(rd *query.TraceRead, src *engine.SourceStats) string {
	var parts []string
	for _, sk := range rd.Skips(src.Name) {
		parts = append(parts, fmt.Sprintf("%s ×%d", sk.Reason, sk.Partitions))
	}
	if len(parts) == 0 && src.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%s ×%d", src.SkipReason, src.Skipped))
	}
	return strings.Join(parts, ", ")
}

// drawReads draws each read as a band: the sources in read order (green
// read, grey skipped with the reason), then the merge (row versions and
// cells touched, rows and cells kept), the filter when there is one, and
// the rows returned.
func drawReads(svg *strings.Builder, t *schema.Table, reads []query.TraceRead, returned int) {
	const w, bandH, boxW, boxH = 980.0, 112.0, 118.0, 64.0
	h := 20 + bandH*float64(max(len(reads), 1))
	fmt.Fprintf(svg, `<svg id="read" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="a read of %s">`, w, h, w, h, esc(t.QualifiedName()))
	fmt.Fprintf(svg, `<title>A read of %s</title>`, esc(t.QualifiedName()))
	if len(reads) == 0 {
		fmt.Fprintf(svg, `<text x="10" y="40" font-size="12" fill="#555">no stored partition read; %d rows returned</text>`, returned)
	}
	for i := range reads {
		rd := &reads[i]
		y0 := 20 + bandH*float64(i)
		fmt.Fprintf(svg, `<g class="read-band" data-access="%s"><text x="10" y="%.1f" font-size="13" font-weight="bold">%s</text>`, esc(string(rd.Access)), y0+4, esc(trimText(describeRead(rd), 140)))
		y := y0 + 18
		x := 10.0
		srcs := rd.Stats.Sources
		shown := min(len(srcs), maxReadSource)
		step := boxW + 10
		if shown > 5 {
			step = (560 - boxW) / float64(shown-1)
		}
		for j := 0; j < shown; j++ {
			src := &srcs[j]
			state := sourceState(src)
			fill := map[string]string{"read": "#27ae60", "mixed": "#7dcea0", "skipped": "#aab7b8", "untouched": "#d5dbdb"}[state]
			label := "memtable"
			if src.Kind == engine.SourceSSTable {
				label = shortSSTable(src.Name)
			}
			detail := fmt.Sprintf("%d row versions", src.Rows)
			if src.Rows == 1 {
				detail = "1 row version"
			}
			why := ""
			if src.Skipped > 0 {
				why = skipText(rd, src)
			}
			fmt.Fprintf(svg, `<g class="source %s" data-source="%s" data-kind="%s"><rect x="%.1f" y="%.1f" width="%g" height="%g" rx="4" fill="%s"/>`,
				state, esc(src.Name), esc(src.Kind.String()), x, y, boxW, boxH, fill)
			fmt.Fprintf(svg, `<text x="%.1f" y="%.1f" font-size="11" fill="#fff" font-weight="bold">%s</text>`, x+5, y+15, esc(label))
			if src.Read > 0 {
				fmt.Fprintf(svg, `<text x="%.1f" y="%.1f" font-size="10" fill="#fff">read ×%d</text><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%s</text>`, x+5, y+30, src.Read, x+5, y+43, esc(detail))
			}
			if why != "" {
				wy := y + 30
				if src.Read > 0 {
					wy = y + 57
				} else {
					fmt.Fprintf(svg, `<text x="%.1f" y="%.1f" font-size="10" fill="#fff">skipped for</text>`, x+5, wy)
					wy += 13
				}
				fmt.Fprintf(svg, `<text class="why" x="%.1f" y="%.1f" font-size="10" fill="#fff">%s</text>`, x+5, wy, esc(trimText(why, 21)))
			}
			fmt.Fprintf(svg, `<title>%s %s: read for %d partitions, %d row versions; skipped for %s</title></g>`, esc(src.Kind.String()), esc(src.Name), src.Read, src.Rows, esc(why))
			x += step
		}
		if len(srcs) > shown {
			fmt.Fprintf(svg, `<text x="%.1f" y="%.1f" font-size="11">+%d more</text>`, x, y+boxH/2, len(srcs)-shown)
		}
		// The merge, the filter and the result, after the sources.
		mx := min(x+30, 600.0)
		st := &rd.Stats
		fmt.Fprintf(svg, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" stroke-width="1.5"/>`, mx-30, y+boxH/2, mx-4, y+boxH/2)
		fmt.Fprintf(svg, `<g class="merge"><rect x="%.1f" y="%.1f" width="150" height="%g" rx="4" fill="#2e86c1"/><text x="%.1f" y="%.1f" font-size="11" fill="#fff" font-weight="bold">merge</text><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%d row versions → %d rows</text><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%d cells → %d live</text><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%d tombstones · %d expired</text></g>`,
			mx, y, boxH, mx+5, y+15, mx+5, y+30, st.RowsRead, st.RowsReturned, mx+5, y+43, st.CellsRead, st.LiveCells, mx+5, y+57, st.Tombstones.Total(), st.ExpiredCells)
		fx := mx + 160
		if rd.Filtered {
			fmt.Fprintf(svg, `<g class="filter"><rect x="%.1f" y="%.1f" width="100" height="%g" rx="4" fill="#a04000"/><text x="%.1f" y="%.1f" font-size="11" fill="#fff" font-weight="bold">filter</text><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%d tested</text><text x="%.1f" y="%.1f" font-size="10" fill="#fff">%d kept</text></g>`,
				fx, y, boxH, fx+5, y+15, fx+5, y+30, rd.RowsExamined, fx+5, y+43, rd.RowsMatched)
			fx += 110
		}
		if i == len(reads)-1 {
			fmt.Fprintf(svg, `<g class="result"><rect x="%.1f" y="%.1f" width="96" height="%g" rx="4" fill="#1b4f72"/><text x="%.1f" y="%.1f" font-size="11" fill="#fff" font-weight="bold">result</text><text id="returned" x="%.1f" y="%.1f" font-size="10" fill="#fff">%d rows</text></g>`,
				fx, y, boxH, fx+5, y+15, fx+5, y+30, returned)
		}
		fmt.Fprintf(svg, `<text x="10" y="%.1f" font-size="10" fill="#555">green: read · light green: read for some partitions, skipped for others · grey: skipped</text></g>`, y+boxH+18)
	}
	svg.WriteString(`</svg>`)
}

// writeReadTables lists read i: what it was, its counts and its sources.
func writeReadTables(b *strings.Builder, i int, rd *query.TraceRead) {
	st := &rd.Stats
	fmt.Fprintf(b, `<h2 class="read-title" data-access="%s">%s</h2>`, esc(string(rd.Access)), esc(describeRead(rd)))
	fmt.Fprintf(b, `<table id="counts-%d" class="counts"><tr><th>partitions</th><th>row versions read</th><th>rows returned</th><th>cells read</th><th>live cells</th><th>expired cells</th><th>cell tombstones</th><th>row tombstones</th><th>range tombstones</th><th>partition tombstones</th><th>collection tombstones</th></tr>`, i)
	t := st.Tombstones
	fmt.Fprintf(b, `<tr><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td></tr></table>`,
		st.Partitions, st.RowsRead, st.RowsReturned, st.CellsRead, st.LiveCells, st.ExpiredCells, t.Cell, t.Row, t.Range, t.Partition, t.Collection)
	fmt.Fprintf(b, `<table id="sources-%d" class="sources"><tr><th>source</th><th>kind</th><th>partitions read</th><th>row versions</th><th>skipped for</th></tr>`, i)
	for j := range st.Sources {
		src := &st.Sources[j]
		fmt.Fprintf(b, `<tr class="source %s" data-source="%s"><td class="src">%s</td><td>%s</td><td class="num">%d</td><td class="num">%d</td><td class="why">%s</td></tr>`,
			sourceState(src), esc(src.Name), esc(src.Name), esc(src.Kind.String()), src.Read, src.Rows, esc(skipText(rd, src)))
	}
	b.WriteString(`</table>`)
}

// writeResult shows the first rows of the result.
func writeResult(b *strings.Builder, res *query.Result, returned int) {
	fmt.Fprintf(b, `<h2>Result: <span id="result-count">%d</span> rows</h2>`, returned)
	if res == nil || len(res.Columns) == 0 {
		return
	}
	b.WriteString(`<table id="result"><tr>`)
	for _, c := range res.Columns {
		fmt.Fprintf(b, `<th>%s</th>`, esc(c.Name))
	}
	b.WriteString(`</tr>`)
	for i, row := range res.Rows {
		if i == maxReadShown {
			fmt.Fprintf(b, `<tr><td colspan="%d" class="note">%d more rows</td></tr>`, len(res.Columns), len(res.Rows)-maxReadShown)
			break
		}
		b.WriteString(`<tr class="row">`)
		for j, v := range row {
			text := "null"
			if v != nil {
				text = types.Format(res.Columns[j].Type, v)
			}
			fmt.Fprintf(b, `<td>%s</td>`, esc(trimText(text, 80)))
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</table>`)
}

// trimText cuts s to n runes, marking the cut.
func trimText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
