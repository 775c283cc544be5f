package studio

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
)

// Bounds of the order view: the rows listed per table, and the rows drawn.
const (
	maxOrderRows  = 500
	maxOrderDrawn = 20
)

// orderSide is one table's column of the order view.
type orderSide struct {
	t      *schema.Table
	key    []byte
	order  string   // "at DESC, name ASC"
	rows   []string // clusterings in stored order, formatted
	more   bool     // the partition has more rows than listed
	absent bool
}

// orderView shows one partition key in two tables side by side, say one
// with CLUSTERING ORDER BY (c ASC) and one with (c DESC): each table's rows
// in the order stored (which is the order a read without ORDER BY returns
// them), and the first N, those a SELECT ... LIMIT N takes, reading only
// the start of the partition. A latest-N query is cheap in the DESC table
// and a backward walk in the ASC one.
func (s *Studio) orderView(r *http.Request) (*rendered, error) {
	t, err := s.table(r)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r, "limit", 3, 1, 100)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	var b strings.Builder
	b.WriteString(`<form method="get" action="/order">`)
	fmt.Fprintf(&b, `<input type="hidden" name="table" value="%s">%s against <select name="other">`, esc(t.QualifiedName()), esc(t.QualifiedName()))
	for _, o := range s.userTables() {
		sel := ""
		if o.QualifiedName() == q.Get("other") {
			sel = " selected"
		}
		fmt.Fprintf(&b, `<option value="%s"%s>%s</option>`, esc(o.QualifiedName()), sel, esc(o.QualifiedName()))
	}
	fmt.Fprintf(&b, `</select> partition key <input name="key" value="%s" size="24"> LIMIT <input name="limit" value="%d" size="4"> <button>show</button></form>`,
		esc(q.Get("key")), limit)
	if q.Get("other") == "" || q.Get("key") == "" {
		b.WriteString(`<p id="choose" class="note">Choose a second table (one with the opposite CLUSTERING ORDER BY, say) and a partition key both tables hold.</p>`)
		return &rendered{title: "ASC against DESC: " + t.QualifiedName(), table: t, body: b.String()}, nil
	}
	other, err := s.tableNamed(q.Get("other"))
	if err != nil {
		return nil, badRequest("other: %v", err)
	}
	var sides []*orderSide
	for _, tt := range []*schema.Table{t, other} {
		key, err := tt.ParsePartitionKey(q.Get("key"))
		if err != nil {
			return nil, badRequest("key for %s: %v", tt.QualifiedName(), err)
		}
		if len(key) > maxKeyLen {
			return nil, badRequest("key: a partition key is at most %d bytes, this one %d", maxKeyLen, len(key))
		}
		side := &orderSide{t: tt, key: key}
		var order []string
		for _, c := range tt.ClusteringColumns() {
			order = append(order, c.Name+" "+strings.ToUpper(c.ClusteringOrder()))
		}
		side.order = strings.Join(order, ", ")
		p, err := s.db.Engine().ReadPartition(r.Context(), tt, key, engine.ReadOptions{})
		if err != nil {
			return nil, err
		}
		for {
			row, ok := p.Next()
			if !ok {
				break
			}
			if len(side.rows) == maxOrderRows {
				side.more = true
				break
			}
			side.rows = append(side.rows, tt.FormatClustering(row.Clustering))
		}
		err = p.Err()
		p.Close()
		if err != nil {
			return nil, err
		}
		side.absent = len(side.rows) == 0
		sides = append(sides, side)
	}

	var svg strings.Builder
	const colW, rowH = 340.0, 22.0
	n := 0
	for _, sd := range sides {
		n = max(n, min(len(sd.rows), maxOrderDrawn))
	}
	h := 70 + rowH*float64(max(n, 1)) + 30
	fmt.Fprintf(&svg, `<svg id="order" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="rows of two tables in stored order">`, 2*colW+40, h, 2*colW+40, h)
	svg.WriteString(`<title>One partition in two tables, rows in stored order</title>`)
	for i, sd := range sides {
		x := 20 + float64(i)*(colW+20)
		fmt.Fprintf(&svg, `<g class="side" data-table="%s"><text x="%.1f" y="18" font-size="13" font-weight="bold">%s</text>`, esc(sd.t.QualifiedName()), x, esc(sd.t.QualifiedName()))
		fmt.Fprintf(&svg, `<text x="%.1f" y="34" font-size="11" fill="#555">CLUSTERING ORDER BY (%s)</text>`, x, esc(sd.order))
		if sd.absent {
			fmt.Fprintf(&svg, `<text class="absent" x="%.1f" y="64" font-size="12" fill="#a00">no rows for this key</text></g>`, x)
			continue
		}
		for j, row := range sd.rows {
			if j == maxOrderDrawn {
				break
			}
			y := 46 + rowH*float64(j)
			fill, class := "#d6eaf8", "orow"
			if j < limit {
				fill, class = "#58d68d", "orow first"
			}
			fmt.Fprintf(&svg, `<rect class="%s" x="%.1f" y="%.1f" width="%g" height="%g" fill="%s" stroke="#fff"><title>row %d in stored order</title></rect><text x="%.1f" y="%.1f" font-size="11">%d. %s</text>`,
				class, x+18, y, colW-20, rowH-2, fill, j+1, x+24, y+15, j+1, esc(row))
		}
		end := 46 + rowH*float64(min(len(sd.rows), maxOrderDrawn))
		fmt.Fprintf(&svg, `<line x1="%.1f" y1="46" x2="%.1f" y2="%.1f" stroke="#555" stroke-width="2"/><polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="#555"/>`,
			x+8, x+8, end-6, x+8, end, x+3, end-8, x+13, end-8)
		if len(sd.rows) > maxOrderDrawn || sd.more {
			fmt.Fprintf(&svg, `<text x="%.1f" y="%.1f" font-size="11" fill="#555">... more rows</text>`, x+24, end+14)
		}
		svg.WriteString(`</g>`)
	}
	fmt.Fprintf(&svg, `<text x="20" y="%.1f" font-size="11" fill="#555">green: the %d rows LIMIT %d reads first, walking forward from the start of the partition</text></svg>`, h-8, limit, limit)

	fmt.Fprintf(&b, `<p class="note">Both tables are read with the same key. Rows are stored sorted by the clustering columns in the table's CLUSTERING ORDER BY, in memtables and SSTables alike, so SELECT ... WHERE key = ... LIMIT %d returns the first %d rows stored (green) and stops there. With ORDER BY the other way round the read walks the partition backward from its end. Declare the order the queries ask for: latest-N reads want DESC on the time column.</p>`, limit, limit)
	b.WriteString(`<div class="cols">`)
	for _, sd := range sides {
		fmt.Fprintf(&b, `<div class="order-side"><h2>%s</h2><p>CLUSTERING ORDER BY (%s)</p>`, esc(sd.t.QualifiedName()), esc(sd.order))
		first := min(limit, len(sd.rows))
		fmt.Fprintf(&b, `<p class="src">SELECT * FROM %s WHERE %s LIMIT %d;</p>`, esc(sd.t.QualifiedName()), esc(sd.t.FormatPartitionWhere(sd.key)), limit)
		if first == 0 {
			b.WriteString(`<p class="first-rows">returns no row</p>`)
		} else {
			fmt.Fprintf(&b, `<p class="first-rows">returns %s</p>`, esc(strings.Join(sd.rows[:first], ", ")))
		}
		fmt.Fprintf(&b, `<ol class="stored">`)
		for j, row := range sd.rows {
			class := ""
			if j < limit {
				class = ` class="first"`
			}
			fmt.Fprintf(&b, `<li%s>%s</li>`, class, esc(row))
		}
		b.WriteString("</ol>")
		if sd.more {
			fmt.Fprintf(&b, `<p class="note">The first %d rows.</p>`, maxOrderRows)
		}
		b.WriteString("</div>")
	}
	b.WriteString("</div>")
	return &rendered{title: "ASC against DESC: " + t.QualifiedName() + " and " + other.QualifiedName(), table: t, also: other, svg: svg.String(), body: b.String()}, nil
}
