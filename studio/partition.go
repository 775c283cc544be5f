package studio

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// maxPartitionRows bounds the rows the partition view draws.
const maxPartitionRows = 2000

// partitionView shows one partition as the engine holds it: its rows in
// clustering order (the stored order, and the reverse a DESC read walks,
// side by side), and for each row every version of every cell with the
// memtable or SSTable holding it, marked live, shadowed (by a newer version
// or a deletion), tombstone, expiring (with the seconds left) or expired;
// then the deletions and their reach.
func (s *Studio) partitionView(r *http.Request) (*rendered, error) {
	t, err := s.table(r)
	if err != nil {
		return nil, err
	}
	keyText := r.URL.Query().Get("key")
	var b strings.Builder
	fmt.Fprintf(&b, `<form method="get" action="/partition"><input type="hidden" name="table" value="%s">partition key <input name="key" value="%s" size="30"> <button>show</button></form>`,
		esc(t.QualifiedName()), esc(keyText))
	if keyText == "" {
		parts, _, err := s.partitions(r.Context(), t)
		if err != nil {
			return nil, err
		}
		b.WriteString(`<p class="note">Choose a partition:</p><ul id="keys">`)
		for i, p := range parts {
			if i == 200 {
				fmt.Fprintf(&b, "<li>... %d more</li>", len(parts)-i)
				break
			}
			fmt.Fprintf(&b, `<li><a href="/partition?table=%s&amp;key=%s">%s</a> (%d rows)</li>`,
				esc(t.QualifiedName()), esc(keyText0(t, p.key)), esc(t.FormatPartitionKey(p.key)), p.rows)
		}
		b.WriteString("</ul>")
		return &rendered{title: "Partitions of " + t.QualifiedName(), table: t, body: b.String()}, nil
	}
	key, _, err := parseKey(r, t)
	if err != nil {
		return nil, err
	}
	e := s.db.Engine()
	now := e.Now()
	versions, err := e.PartitionVersions(r.Context(), t, key)
	if err != nil {
		return nil, err
	}
	live, err := s.liveRows(r, t, key)
	if err != nil {
		return nil, err
	}

	fmt.Fprintf(&b, `<p>Partition <b id="pkey">%s</b>, token %s, at %s (the engine's clock).</p>`,
		esc(t.FormatPartitionWhere(key)), esc(e.Partitioner().TokenString(key)), time.Unix(now, 0).UTC().Format(time.RFC3339))
	var order []string
	for _, c := range t.ClusteringColumns() {
		order = append(order, c.Name+" "+strings.ToUpper(c.ClusteringOrder()))
	}
	if len(order) > 0 {
		fmt.Fprintf(&b, `<p class="note">CLUSTERING ORDER BY (%s): rows are stored in this order, in memtables and SSTables alike, so a read in this order walks forward and ORDER BY the opposite walks backward, never sorting.</p>`, esc(strings.Join(order, ", ")))
	}

	// The sources and what each holds.
	b.WriteString(`<table id="sources"><tr><th>source</th><th>partition deletion</th><th>range tombstones</th><th>rows</th></tr>`)
	pdel := data.LiveDeletion
	var rts []sourced[data.RangeTombstone]
	for _, v := range versions {
		if v.Skip != "" {
			fmt.Fprintf(&b, `<tr><td class="src">%s %s</td><td colspan="3">skipped: %s</td></tr>`, v.Kind, esc(v.Name), esc(v.Skip))
			continue
		}
		pdel = data.MaxDeletion(pdel, v.Deletion)
		for _, rt := range v.RangeTombstones {
			rts = append(rts, sourced[data.RangeTombstone]{v.Name, rt})
		}
		fmt.Fprintf(&b, `<tr><td class="src">%s %s</td><td>%s</td><td class="num">%d</td><td class="num">%d</td></tr>`,
			v.Kind, esc(v.Name), deletionText(v.Deletion), len(v.RangeTombstones), len(v.Rows))
	}
	b.WriteString("</table>")

	// Every clustering any source holds, in stored (byte) order.
	type rowVersion struct {
		src string
		row *data.Row
	}
	byKey := map[string][]rowVersion{}
	var keys []string
	for _, v := range versions {
		for i := range v.Rows {
			k := string(v.Rows[i].Clustering)
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], rowVersion{v.Name, &v.Rows[i]})
		}
	}
	slices.Sort(keys)
	truncated := len(keys) > maxPartitionRows
	if truncated {
		keys = keys[:maxPartitionRows]
	}

	b.WriteString(`<div class="cols"><div><h2>Rows in stored order</h2><table id="rows"><tr><th>#</th><th>clustering</th><th>read result</th><th>versions (source: cells)</th></tr>`)
	for i, k := range keys {
		ck := []byte(k)
		cover := pdel
		for _, rt := range rts {
			if rt.v.Contains(ck) {
				cover = data.MaxDeletion(cover, rt.v.Deletion)
			}
		}
		for _, rv := range byKey[k] {
			cover = data.MaxDeletion(cover, rv.row.Deletion)
		}
		// The winner of each cell (column and path) among the versions the
		// deletions leave.
		winners := map[string]data.Cell{}
		for _, rv := range byKey[k] {
			for _, c := range rv.row.Cells {
				if cover.Deletes(c.Timestamp) || c.Kind == data.CellCounter {
					continue
				}
				id := c.Column + "\x00" + string(c.Path)
				if w, ok := winners[id]; ok {
					winners[id] = data.Reconcile(&w, &c)
				} else {
					winners[id] = c
				}
			}
		}
		status, class := "no live data", "expired"
		if live[k] {
			status, class = "live", "live"
		}
		fmt.Fprintf(&b, `<tr class="row" data-clustering="%s"><td class="num">%d</td><td>%s</td><td class="%s">%s</td><td>`,
			esc(t.FormatClustering(ck)), i+1, esc(t.FormatClustering(ck)), class, status)
		for _, rv := range byKey[k] {
			fmt.Fprintf(&b, `<div class="version"><span class="src">%s</span>: `, esc(rv.src))
			row := rv.row
			if !row.Liveness.IsEmpty() {
				cls := "live"
				if cover.Deletes(row.Liveness.Timestamp) {
					cls = "shadowed"
				}
				fmt.Fprintf(&b, `<span class="%s">row marker @%d%s</span> `, cls, row.Liveness.Timestamp, ttlText(row.Liveness.TTL, row.Liveness.ExpiresAt, now))
			}
			if !row.Deletion.IsLive() {
				fmt.Fprintf(&b, `<span class="tombstone">row deleted %s</span> `, deletionText(row.Deletion))
			}
			for _, cd := range row.ColumnDeletions {
				fmt.Fprintf(&b, `<span class="tombstone">%s deleted %s</span> `, esc(cd.Column), deletionText(cd.Deletion))
			}
			for _, c := range row.Cells {
				cls := cellClass(&c, cover, winners, now)
				fmt.Fprintf(&b, `<span class="cell %s" title="%s">%s=%s@%d%s</span> `, cls, cls,
					esc(c.Column+pathText(t, &c)), esc(cellValue(t, &c)), c.Timestamp, ttlText(c.TTL, c.LocalDeletionTime, now))
			}
			b.WriteString("</div>")
		}
		b.WriteString("</td></tr>")
	}
	b.WriteString("</table>")
	if truncated {
		fmt.Fprintf(&b, `<p class="note">The first %d rows are shown.</p>`, maxPartitionRows)
	}
	b.WriteString(`</div><div><h2>Reverse read order</h2><ol id="reverse">`)
	for i := len(keys) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "<li>%s</li>", esc(t.FormatClustering([]byte(keys[i]))))
	}
	b.WriteString("</ol></div></div>")

	b.WriteString(`<h2>Deletions and their reach</h2><ul id="deletions">`)
	for _, v := range versions {
		if !v.Deletion.IsLive() {
			fmt.Fprintf(&b, `<li class="tombstone">partition deletion %s in %s: shadows every version of the partition written at or before it</li>`, deletionText(v.Deletion), esc(v.Name))
		}
	}
	for _, rt := range rts {
		fmt.Fprintf(&b, `<li class="tombstone">range tombstone [%s, %s) %s in %s</li>`,
			esc(t.FormatClustering(rt.v.Start)), esc(t.FormatClustering(rt.v.End)), deletionText(rt.v.Deletion), esc(rt.src))
	}
	b.WriteString(`</ul><p class="note">Legend: <span class="live">live</span>, <span class="shadowed">shadowed</span> (a newer version or a deletion wins), <span class="tombstone">tombstone</span>, <span class="expiring">expiring</span>, <span class="expired">expired</span>. A tombstone stays until a compaction after gc_grace_seconds purges it.</p>`)
	return &rendered{title: "Partition " + t.FormatPartitionKey(key) + " of " + t.QualifiedName(), table: t, body: b.String()}, nil
}

// sourced is a value with the name of the source holding it.
type sourced[T any] struct {
	src string
	v   T
}

// liveRows returns the clusterings of the partition's live rows, as a read
// returns them.
func (s *Studio) liveRows(r *http.Request, t *schema.Table, key []byte) (map[string]bool, error) {
	p, err := s.db.Engine().ReadPartition(r.Context(), t, key, engine.ReadOptions{})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	out := map[string]bool{}
	for len(out) < maxPartitionRows {
		row, ok := p.Next()
		if !ok {
			break
		}
		out[string(row.Clustering)] = true
	}
	return out, p.Err()
}

// cellClass classifies one version of a cell.
func cellClass(c *data.Cell, cover data.DeletionTime, winners map[string]data.Cell, now int64) string {
	switch {
	case cover.Deletes(c.Timestamp):
		return "shadowed"
	case c.Kind == data.CellCounter:
		return "live"
	}
	w := winners[c.Column+"\x00"+string(c.Path)]
	if w.Timestamp != c.Timestamp || w.Kind != c.Kind || !bytes.Equal(w.Value, c.Value) {
		return "shadowed"
	}
	switch {
	case c.IsTombstone():
		return "tombstone"
	case c.IsExpired(now):
		return "expired"
	case c.IsExpiring():
		return "expiring"
	}
	return "live"
}

// cellValue formats a cell's value with its column's type.
func cellValue(t *schema.Table, c *data.Cell) string {
	switch c.Kind {
	case data.CellTombstone:
		return "(tombstone)"
	case data.CellCounter:
		return fmt.Sprintf("%d (counter delta)", data.CounterValue(c.Value))
	}
	col := t.StoredColumn(c.Column)
	if col == nil {
		return fmt.Sprintf("0x%x", c.Value)
	}
	typ := col.Type
	if c.Path != nil && len(typ.Params) > 0 {
		typ = typ.Params[len(typ.Params)-1] // a list's or map's element, a set's (empty) value
		if col.Type.Kind == types.Set {
			return "(element)"
		}
	}
	return types.FormatLiteral(typ, c.Value)
}

// pathText formats the element path of a collection cell: [key] for maps
// and sets, the element's timeuuid for lists.
func pathText(t *schema.Table, c *data.Cell) string {
	if c.Path == nil {
		return ""
	}
	col := t.StoredColumn(c.Column)
	if col == nil || len(col.Type.Params) == 0 {
		return fmt.Sprintf("[0x%x]", c.Path)
	}
	kt := col.Type.Params[0]
	if col.Type.Kind == types.List {
		kt = types.TimeUUIDType
	}
	v, err := types.DecodeKey(kt, c.Path)
	if err != nil {
		return fmt.Sprintf("[0x%x]", c.Path)
	}
	return "[" + types.FormatLiteral(kt, v) + "]"
}

// ttlText says how long an expiring cell or row marker has left.
func ttlText(ttl int32, expiresAt, now int64) string {
	if ttl <= 0 {
		return ""
	}
	if left := expiresAt - now; left > 0 {
		return fmt.Sprintf(" (ttl %d, %ds left)", ttl, left)
	}
	return fmt.Sprintf(" (ttl %d, expired)", ttl)
}

func deletionText(d data.DeletionTime) string {
	if d.IsLive() {
		return "none"
	}
	return fmt.Sprintf("@%d (at %s)", d.MarkedForDeleteAt, time.Unix(d.LocalDeletionTime, 0).UTC().Format(time.RFC3339))
}

// keyText0 writes a partition key as ParsePartitionKey reads it.
func keyText0(t *schema.Table, key []byte) string {
	pk := t.PartitionKey()
	comps := [][]byte{key}
	if len(pk) > 1 {
		var err error
		if comps, err = partitioner.SplitCompositeKey(key); err != nil || len(comps) != len(pk) {
			return ""
		}
	}
	parts := make([]string, len(comps))
	for i, c := range comps {
		switch pk[i].Type.Kind {
		case types.Text, types.Ascii:
			parts[i] = string(c)
		case types.Blob:
			parts[i] = fmt.Sprintf("%x", c)
		default:
			parts[i] = strings.Trim(types.FormatLiteral(pk[i].Type, c), "'")
		}
		parts[i] = strings.ReplaceAll(parts[i], ":", `\:`)
	}
	if len(parts) == 1 {
		return strings.ReplaceAll(parts[0], `\:`, ":")
	}
	return strings.Join(parts, ":")
}
